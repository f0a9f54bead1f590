//! `chuhe bench --suite`: the mate suite's reader, its summary, and a short
//! run of a few suite positions through the binary (a measurement tool: the
//! tests check its output and its errors, not the engine's strength, apart
//! from a mate in three that any search finds in milliseconds).

use chuhe::bench::{read_suite, read_suite_file, suite_summary, MateCase, MateOutcome};
use chuhe_core::search::Score;
use std::path::{Path, PathBuf};

#[path = "support/cli.rs"]
mod cli;
use cli::chuhe;

const SUITE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/mates.txt");

/// A file in the temporary directory, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, text: &str) -> TempFile {
        let path =
            std::env::temp_dir().join(format!("chuhe-bench-suite-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        TempFile(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn the_repository_suite_reads() {
    let cases = read_suite_file(Path::new(SUITE)).expect("tests/data/mates.txt reads");
    assert!(cases.len() >= 40, "{} positions", cases.len());
    let in_5_or_6 = cases.iter().filter(|c| (5..=6).contains(&c.mate)).count();
    assert!(in_5_or_6 >= 20, "{in_5_or_6} mates in 5 or 6");
    for c in &cases {
        assert!((1..=12).contains(&c.mate), "line {}", c.line);
        assert!(!c.source.is_empty(), "line {}: no source", c.line);
    }
    let mut fens: Vec<&str> = cases.iter().map(|c| c.fen.as_str()).collect();
    fens.sort_unstable();
    fens.dedup();
    assert_eq!(fens.len(), cases.len(), "a position appears twice");
}

#[test]
fn suite_errors_name_the_line() {
    let good = "3k5/6c2/9/4R4/9/2p6/9/9/9/4K1B2 w - - 15 69";
    let ok = read_suite(&format!("# comment\n\n{good} ; mate 6 ; a game; ply 3\n")).unwrap();
    assert_eq!(
        ok,
        vec![MateCase {
            fen: good.to_string(),
            mate: 6,
            source: "a game; ply 3".to_string(),
            line: 3,
        }]
    );
    for (text, want) in [
        (
            format!("# x\n{good} ; mate 0 ; s\n"),
            "line 2: expected `mate N`",
        ),
        (format!("{good} ; mates 3\n"), "line 1: expected `mate N`"),
        (
            format!("{good}\n"),
            "line 1: expected `FEN ; mate N ; source`",
        ),
        ("9/9/9 w ; mate 3 ; s\n".to_string(), "line 1: bad FEN"),
        (
            // Black is mated already: nothing to search.
            "3k5/3R5/3R5/9/9/9/9/9/9/4K4 b - - 0 1 ; mate 1 ; s\n".to_string(),
            "line 1: the side to move has no legal move",
        ),
    ] {
        let err = read_suite(&text).expect_err(&text);
        assert!(
            matches!(err, chuhe::bench::SuiteError::Line { .. }),
            "{err:?}"
        );
        let err = err.to_string();
        assert!(err.starts_with(want), "{err:?} for {text:?}");
    }
}

fn outcome(solved: bool, first: Option<u64>, elapsed: u64) -> MateOutcome {
    MateOutcome {
        solved,
        first_mate_ms: first,
        elapsed_ms: elapsed,
        score: if solved {
            Score::Mate(3)
        } else {
            Score::Cp(500)
        },
        best: None,
        depth: 10,
        nodes: 1000,
    }
}

#[test]
fn summary_counts_groups_and_times_only_proofs() {
    let case = |mate| MateCase {
        fen: String::new(),
        mate,
        source: String::new(),
        line: 0,
    };
    let cases = [
        case(3),
        case(4),
        case(5),
        case(6),
        case(6),
        case(6),
        case(7),
    ];
    let outcomes = [
        outcome(true, Some(4), 1000),
        outcome(true, None, 1000), // proved only by the final answer
        outcome(true, Some(30), 1000),
        outcome(false, Some(2), 1000), // a longer mate than asked: no proof
        outcome(true, Some(10), 1000),
        outcome(true, Some(20), 1000),
        outcome(false, None, 1000),
    ];
    assert_eq!(
        suite_summary(&cases, &outcomes),
        [
            "mates 3-4 solved 2/2 median 4ms max 1000ms",
            "mates 5-6 solved 3/4 median 20ms max 30ms",
            "mates 7-8 solved 0/1 median - max -",
            "mates all solved 5/7 median 20ms max 1000ms",
        ]
    );
}

#[test]
fn a_short_suite_run_reports_each_position_and_the_summary() {
    // The suite's first two mates in three or fewer moves and its first
    // mate in five or six. The file is sorted by mate length, and its first
    // mate in three is proved in a few thousand nodes: the search reaches
    // its depth limit and stops long before the second is up, however busy
    // the machine. The other two are checked for their lines' form only.
    let cases = read_suite_file(Path::new(SUITE)).unwrap();
    let easy: Vec<&MateCase> = cases.iter().filter(|c| c.mate <= 3).take(2).collect();
    let longer = cases.iter().find(|c| (5..=6).contains(&c.mate)).unwrap();
    assert_eq!(easy.len(), 2);
    let picked: Vec<&MateCase> = easy.iter().copied().chain([longer]).collect();
    let text: String = picked
        .iter()
        .map(|c| format!("{} ; mate {} ; {}\n", c.fen, c.mate, c.source))
        .collect();
    let file = TempFile::new("three.txt", &text);
    let (ok, out, err) = chuhe(&["bench", "--suite", file.path(), "--movetime", "1000"]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.len() >= 3 + 2, "{out}");
    for (i, (l, c)) in lines.iter().zip(&picked).enumerate() {
        let w: Vec<&str> = l.split_whitespace().collect();
        assert_eq!(w[0], "position", "{l}");
        assert_eq!(w[1], (i + 1).to_string(), "{l}");
        assert_eq!(&w[2..4], ["mate", &c.mate.to_string()], "{l}");
        assert!(["solved", "MISSED"].contains(&w[4]), "{l}");
        assert_eq!(w[5], "score", "{l}");
        assert_eq!(w[8], "proof", "{l}");
        assert_eq!(w[4] == "solved", w[9] != "-", "{l}");
        assert!(l.ends_with(&format!("; {}", c.source)), "{l}");
    }
    assert!(
        lines[0].contains(" solved score mate "),
        "an easy mate missed: {out}"
    );
    let summary = &lines[3..];
    assert_eq!(summary.len(), 3, "{out}");
    assert!(summary[0].starts_with("mates 3-4 solved "), "{out}");
    assert!(summary[1].starts_with("mates 5-6 solved "), "{out}");
    assert!(summary[2].starts_with("mates all solved "), "{out}");
}

#[test]
fn a_damaged_suite_file_is_an_error() {
    let file = TempFile::new("bad.txt", "# header\nnot a fen ; mate 3 ; x\n");
    let (ok, out, err) = chuhe(&["bench", "--suite", file.path()]);
    assert!(!ok, "{out}");
    assert!(err.contains("line 2: bad FEN"), "{err}");
    let (ok, _, err) = chuhe(&["bench", "--suite", "/nonexistent/mates.txt"]);
    assert!(!ok);
    assert!(err.contains("cannot read"), "{err}");
}

/// `--nodes`: every position gets the same search on any machine, so two
/// runs agree line for line apart from the times, and no search runs far
/// past the budget.
#[test]
fn a_node_budget_makes_suite_runs_repeatable() {
    let cases = read_suite_file(Path::new(SUITE)).unwrap();
    let text: String = cases
        .iter()
        .filter(|c| c.mate >= 5)
        .take(3)
        .map(|c| format!("{} ; mate {} ; {}\n", c.fen, c.mate, c.source))
        .collect();
    let file = TempFile::new("nodes.txt", &text);
    let run = || {
        let (ok, out, err) = chuhe(&["bench", "--suite", file.path(), "--nodes", "20000"]);
        assert!(ok, "{err}");
        out.lines()
            .take(3)
            .map(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                let nodes: u64 = w[w.iter().position(|&x| x == "nodes").unwrap() + 1]
                    .parse()
                    .unwrap();
                // A search stops at its next poll of the limit: within a
                // few thousand nodes of it.
                assert!(nodes <= 20000 + 4096, "{l}");
                // Everything but the proof time (field 9).
                let mut w = w.clone();
                w.remove(9);
                w.join(" ")
            })
            .collect::<Vec<String>>()
    };
    let first = run();
    assert_eq!(first.len(), 3);
    assert_eq!(first, run());

    let (ok, _, err) = chuhe(&["bench", "--suite", file.path(), "--nodes", "0"]);
    assert!(!ok && err.contains("--nodes must be at least 1"), "{err}");
    let (ok, _, err) = chuhe(&["bench", "--nodes", "1000"]);
    assert!(!ok && err.contains("--suite"), "{err}");
    let (ok, _, err) = chuhe(&[
        "bench",
        "--suite",
        file.path(),
        "--nodes",
        "9",
        "--movetime",
        "5",
    ]);
    assert!(!ok && err.contains("cannot be used with"), "{err}");
}

/// Issue 50: bench printed scores as Rust's debug names (`score Mate(3)`,
/// `score Cp(99)`); it writes them as the protocol does (`score mate 3`,
/// `score cp 99`), in the bench list, the per-depth lines of --fen and the
/// final line.
#[test]
fn scores_are_written_as_the_protocol_writes_them() {
    let easy = read_suite_file(Path::new(SUITE))
        .unwrap()
        .into_iter()
        .find(|c| c.mate <= 3)
        .expect("a short mate in the suite");
    let (ok, out, err) = chuhe(&["bench", "--fen", &easy.fen, "--depth", "8", "--eval", "hce"]);
    assert!(ok, "{err}");
    assert!(out.contains(" score mate "), "{out}");
    let (ok, list, err) = chuhe(&["bench", "--depth", "2", "--eval", "hce"]);
    assert!(ok, "{err}");
    assert!(list.contains(" score cp "), "{list}");
    for text in [&out, &list] {
        assert!(!text.contains("Mate(") && !text.contains("Cp("), "{text}");
        for l in text.lines().filter(|l| l.contains(" score ")) {
            let w: Vec<&str> = l.split_whitespace().collect();
            let at = w.iter().position(|&x| x == "score").unwrap();
            assert!(["cp", "mate"].contains(&w[at + 1]), "{l}");
            assert!(w[at + 2].parse::<i32>().is_ok(), "{l}");
        }
    }
}
