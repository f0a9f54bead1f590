//! Every case of tests/data/rules-cases.txt (the project's shared cases)
//! and tests/data/rules-audit.txt (our own), through the library and
//! through the built `chuhe judge` binary; our own also with the colours
//! swapped and mirrored left to right.

use chuhe::judge::replay;
use chuhe_core::rules::{self, Outcome};
use std::process::Command;

mod common;
use common::{flip_colours, mirror_files, swap_colours};

struct Case {
    name: String,
    fen: String,
    moves: String,
    result: String,
    reason: String,
}

/// The cases of `tests/data/<file>`, at least `min` of them.
fn read_cases(file: &str, min: usize) -> Vec<Case> {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let cases: Vec<Case> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('|').map(str::trim).collect();
            assert_eq!(f.len(), 5, "malformed case line: {l}");
            Case {
                name: f[0].to_string(),
                fen: f[1].to_string(),
                moves: f[2].to_string(),
                result: f[3].to_string(),
                reason: f[4].to_string(),
            }
        })
        .collect();
    assert!(cases.len() >= min, "{file}: {} cases", cases.len());
    cases
}

fn cases() -> Vec<Case> {
    read_cases("rules-cases.txt", 12)
}

fn all_cases() -> Vec<Case> {
    let mut all = cases();
    all.extend(read_cases("rules-audit.txt", 40));
    all
}

/// The library's verdict after `moves` from `fen`: result and reason text.
fn judged(name: &str, fen: &str, moves: &str) -> (String, String) {
    let pos = replay(Some(fen), moves).unwrap_or_else(|e| panic!("{name}: {e}"));
    match rules::judge(&pos) {
        Some(v) => (v.outcome.as_str().into(), v.reason.as_str().into()),
        None => ("*".into(), "none".into()),
    }
}

#[test]
fn library_agrees_with_every_case() {
    for c in all_cases() {
        assert_eq!(
            judged(&c.name, &c.fen, &c.moves),
            (c.result.clone(), c.reason.clone()),
            "case {}",
            c.name
        );
    }
}

/// A verdict must not depend on which colour or which wing a case is
/// played on.
#[test]
fn our_cases_are_judged_alike_flipped_and_mirrored() {
    for c in read_cases("rules-audit.txt", 40) {
        // A game that goes on (`*`) goes on either way round.
        let swapped = [Outcome::RedWins, Outcome::BlackWins, Outcome::Draw]
            .into_iter()
            .find(|o| o.as_str() == c.result)
            .map_or(c.result.clone(), |o| swap_colours(o).as_str().into());
        let (fen, moves) = flip_colours(&c.fen, &c.moves);
        assert_eq!(
            judged(&c.name, &fen, &moves),
            (swapped, c.reason.clone()),
            "case {} with the colours swapped",
            c.name
        );
        let (fen, moves) = mirror_files(&c.fen, &c.moves);
        assert_eq!(
            judged(&c.name, &fen, &moves),
            (c.result.clone(), c.reason.clone()),
            "case {} mirrored",
            c.name
        );
    }
}

#[test]
fn binary_agrees_with_every_case() {
    for c in all_cases() {
        let out = Command::new(env!("CARGO_BIN_EXE_chuhe"))
            .args(["judge", "--fen", &c.fen, "--moves", &c.moves])
            .output()
            .expect("chuhe runs");
        assert!(
            out.status.success(),
            "case {}: exit {:?}",
            c.name,
            out.status
        );
        let text = String::from_utf8(out.stdout).expect("utf-8 output");
        let last = text.lines().last().unwrap_or("");
        assert_eq!(
            last,
            format!("result {} {}", c.result, c.reason),
            "case {}:\n{text}",
            c.name
        );

        let out = Command::new(env!("CARGO_BIN_EXE_chuhe"))
            .args(["judge", "--fen", &c.fen, "--moves", &c.moves, "--json"])
            .output()
            .expect("chuhe runs");
        let json = String::from_utf8(out.stdout).expect("utf-8 output");
        let want = format!("\"result\":\"{}\",\"reason\":\"{}\"}}", c.result, c.reason);
        assert!(
            json.trim_end().ends_with(&want),
            "case {} json: {json}",
            c.name
        );
    }
}

#[test]
fn must_vary_names_the_perpetual_chaser_and_its_move() {
    let c = cases()
        .into_iter()
        .find(|c| c.name == "rook-chases-unprotected-cannon")
        .expect("case present");
    let pos = replay(Some(&c.fen), &c.moves).expect("legal moves");
    let mv = rules::must_vary(&pos).expect("forbidden cycle");
    assert_eq!(mv.side, chuhe_core::board::Color::Red);
    assert_eq!(mv.banned.to_string(), "h5h7");
    // Draws and perpetual checks end the game: nothing to vary.
    for name in ["perpetual-check-rook", "rook-attacks-protected-cannon"] {
        let c = cases()
            .into_iter()
            .find(|c| c.name == name)
            .expect("case present");
        let pos = replay(Some(&c.fen), &c.moves).expect("legal moves");
        assert_eq!(rules::must_vary(&pos), None, "{name}");
    }
}

/// The shared rook-chases-cannon case with the colours swapped and entered
/// one move later, so that Red is to move at the third occurrence and the
/// offender is Black: its next move in the cycle is the banned one.
#[test]
fn must_vary_names_the_offender_when_it_is_not_to_move() {
    let pos = replay(
        Some("3k5/9/9/9/9/9/9/1C5r1/9/4K4 w - - 0 1"),
        "b2b4 h2h4 b4b2 h4h2 b2b4 h2h4 b4b2 h4h2",
    )
    .expect("legal moves");
    let v = rules::judge(&pos).expect("judged");
    assert_eq!(
        (v.outcome, v.reason),
        (rules::Outcome::RedWins, rules::Reason::PerpetualAttack)
    );
    let mv = rules::must_vary(&pos).expect("forbidden cycle");
    assert_eq!(mv.side, chuhe_core::board::Color::Black);
    assert_eq!(mv.banned.to_string(), "h2h4");
}

/// The text report lists the last cycle, each move with its class, before
/// the summaries and the result line.
#[test]
fn binary_prints_the_last_cycle_with_classes() {
    let out = Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args([
            "judge",
            "--fen",
            "3k5/9/9/9/c7R/9/9/9/9/4K4 w - - 0 1",
            "--moves",
            "i5i9 d9d8 i9i5 d8d9 i5i9 d9d8 i9i5 d8d9",
        ])
        .output()
        .expect("run chuhe judge");
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0], "repetition occurrence 3 cycle from ply 5",
        "{text}"
    );
    assert_eq!(lines[1], "i5i9 check");
    assert_eq!(lines[2], "d9d8 idle");
    assert!(
        lines[3].starts_with("i9i5 ") && lines[3].contains("chase cannon a5 (direct)"),
        "{text}"
    );
    assert_eq!(lines[4], "d8d9 idle");
    assert_eq!(lines[5], "red forbidden");
    assert_eq!(lines.last(), Some(&"result 0-1 perpetual-attack"));
}
