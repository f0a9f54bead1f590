//! `chuhe analyze`'s library side: one report per ply, a graph point per
//! ply, marks, the annotated game and the rules verdict at the end. Small
//! depths keep it quick.

use chuhe::analyze::{self, Analysis, Mark, Settings, Thresholds};
use chuhe::record::{Game, MoveNode};
use chuhe_core::board::Move;
use chuhe_core::rules::{Outcome, Reason};
use chuhe_core::search::Limits;

fn game(fen: Option<&str>, moves: &str) -> Game {
    Game {
        tags: vec![
            ("Red".into(), "红方".into()),
            ("Black".into(), "黑方".into()),
        ],
        start_fen: fen.map(String::from),
        moves: moves
            .split_whitespace()
            .map(|m| MoveNode::new(m.parse::<Move>().unwrap()))
            .collect(),
        ..Default::default()
    }
}

fn settings(depth: u32) -> Settings {
    Settings {
        limits: Limits {
            depth: Some(depth),
            ..Default::default()
        },
        threads: 1,
        hash_mb: 4,
        thresholds: Thresholds::default(),
    }
}

fn run(g: &Game, depth: u32) -> (Analysis, usize) {
    let mut calls = 0;
    let a = analyze::analyze(g, &settings(depth), &mut |p| {
        calls += 1;
        assert!(p.done <= p.total);
    })
    .unwrap();
    (a, calls)
}

/// Red's rook checks from i9 and i8 while Black's king steps d9/d8: the
/// third time round Red has checked perpetually and loses.
const PERPETUAL_FEN: &str = "3k5/9/9/9/9/9/9/9/9/4K3R w - - 0 1";
const PERPETUAL: &str = "i0i9 d9d8 i9i8 d8d9 i8i9 d9d8 i9i8 d8d9 i8i9";

#[test]
fn one_report_and_one_graph_point_per_ply() {
    let g = game(None, "h2e2 h9g7 h0g2 i9h9 i0h0 b9c7");
    let (a, calls) = run(&g, 3);
    assert_eq!(a.plies.len(), 6);
    assert_eq!(calls, 7, "a progress report before and after each ply");
    for (i, p) in a.plies.iter().enumerate() {
        assert_eq!(p.ply, i + 1);
        assert_eq!(p.mv, g.moves[i].mv);
        assert!(p.best.is_some() && !p.pv.is_empty(), "ply {}", p.ply);
        assert_eq!(p.pv[0], p.best.unwrap());
        assert_eq!(p.pv.len(), p.pv_chinese.len());
        assert!(!p.chinese.is_empty());
        assert!(p.loss >= 0);
        assert_eq!(p.mark, Thresholds::default().mark(p.loss));
    }
    assert_eq!(a.plies[0].chinese, "炮二平五");
    assert_eq!(a.plies[1].chinese, "马8进7");
    assert!(a.ending.is_none());
    let svg = analyze::report::graph(&a);
    assert_eq!(svg.matches("<circle class=\"pt\"").count(), 6);
    let html = analyze::html(&g, &a);
    assert_eq!(html.matches("<circle class=\"pt\"").count(), 6);
    // One row per ply after the header row.
    assert_eq!(html.matches("<tr title=").count(), 6);
    assert!(html.contains("红方"));
    // Self-contained: no scripts, nothing fetched (the only address is the
    // SVG namespace name, which is never loaded).
    assert!(!html.contains("<script"));
    assert!(!html.contains("src=") && !html.contains("@import") && !html.contains("url(http"));
    assert_eq!(
        html.matches("http").count(),
        html.matches("http://www.w3.org/2000/svg").count()
    );
}

#[test]
fn perpetual_check_gets_the_rules_verdict_and_a_blunder_mark() {
    let g = game(Some(PERPETUAL_FEN), PERPETUAL);
    let (a, _) = run(&g, 3);
    assert_eq!(a.plies.len(), 9);
    let e = a
        .ending
        .as_ref()
        .expect("the record ends in a judged repetition");
    assert_eq!(e.verdict.outcome, Outcome::BlackWins);
    assert_eq!(e.verdict.reason, Reason::PerpetualCheck);
    assert_eq!(e.summary, "0-1: perpetual check by Red");
    assert!(
        e.detail.ends_with("result 0-1 perpetual-check\n"),
        "{}",
        e.detail
    );
    // The last check throws the win away: a blunder, with a better move.
    let last = a.plies.last().unwrap();
    assert_eq!(last.mark, Some(Mark::Blunder), "{last:?}");
    assert_ne!(last.best, Some(last.mv));
    assert!(last.after.text.starts_with("lost"), "{last:?}");
    // The annotated game: analysis in every move comment, the verdict last.
    let mut g2 = g.clone();
    g2.moves[0].comment = Some("old comment".into());
    let out = analyze::annotate(&g2, &a);
    assert_eq!(out.mainline(), g.mainline());
    assert!(out.moves[0]
        .comment
        .as_deref()
        .unwrap()
        .starts_with("old comment\nChuhe d3:"));
    assert!(out.moves.iter().all(|n| n.comment.is_some()));
    let last_comment = out.moves.last().unwrap().comment.as_deref().unwrap();
    assert!(last_comment.contains("?? blunder"), "{last_comment}");
    assert!(
        last_comment.ends_with("Rules verdict: 0-1: perpetual check by Red"),
        "{last_comment}"
    );
    assert!(out.tag("Annotator").unwrap().starts_with("Chuhe"));
    // The report shows the marked move on a board with both arrows.
    let html = analyze::html(&g, &a);
    assert!(html.contains("perpetual check by Red"));
    assert!(html.contains("class=\"played\"") && html.contains("class=\"better\""));
    assert_eq!(html.matches("<circle class=\"pt\"").count(), 9);
}

#[test]
fn bad_records_are_errors() {
    let g = game(None, "h2e2 h2e2");
    let e = analyze::analyze(&g, &settings(1), &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("move 2"), "{e}");
    assert!(
        matches!(e, analyze::AnalyzeError::IllegalMove { number: 2, .. }),
        "{e:?}"
    );
    let g = game(Some("not a fen"), "");
    let e = analyze::analyze(&g, &settings(1), &mut |_| {}).unwrap_err();
    assert!(matches!(e, analyze::AnalyzeError::BadStart(_)), "{e:?}");
    // No moves: nothing to analyse, but no failure either.
    let (a, _) = run(&game(None, ""), 1);
    assert!(a.plies.is_empty());
    assert_eq!(
        analyze::report::graph(&a).matches("class=\"pt\"").count(),
        0
    );
}

fn temp_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("chuhe-analyze-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn command_line_writes_the_annotated_pgn_and_the_report() {
    let dir = temp_dir();
    let input = dir.join("perpetual.pgn");
    let g = game(Some(PERPETUAL_FEN), PERPETUAL);
    std::fs::write(&input, chuhe::record::pgn::write(std::slice::from_ref(&g))).unwrap();
    let out = dir.join("out.pgn");
    let html = dir.join("report.html");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args(["analyze", input.to_str().unwrap(), "--depth", "2", "--out"])
        .arg(&out)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stdout}\n{stderr}");
    // A progress line per ply (stderr is no terminal here) and the start.
    assert_eq!(stderr.matches("analyze: ply ").count(), 10, "{stderr}");
    assert!(stdout.contains("rules verdict: 0-1: perpetual check by Red"));
    let back = chuhe::record::read_file(&out).unwrap();
    assert_eq!(back.len(), 1);
    assert_eq!(back[0].mainline(), g.mainline());
    let comments: Vec<&str> = back[0]
        .moves
        .iter()
        .filter_map(|n| n.comment.as_deref())
        .collect();
    assert_eq!(comments.len(), 9);
    assert!(
        comments.iter().all(|c| c.contains("Chuhe d")),
        "{comments:?}"
    );
    assert!(comments[8].contains("perpetual check by Red"));
    let report = std::fs::read_to_string(&html).unwrap();
    assert_eq!(report.matches("<circle class=\"pt\"").count(), 9);
    // The same as XQF, for XQStudio: the comments survive the round trip.
    let xqf = dir.join("out.xqf");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args(["analyze", input.to_str().unwrap(), "--depth", "2", "--out"])
        .arg(&xqf)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let back = chuhe::record::read_file(&xqf).unwrap();
    assert_eq!(back[0].mainline(), g.mainline());
    let last = back[0].moves.last().unwrap().comment.as_deref().unwrap();
    assert!(
        last.contains("Chuhe d2:") && last.contains("perpetual check by Red"),
        "{last}"
    );
    // Bad arguments fail before any work.
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args(["analyze", input.to_str().unwrap(), "--depth", "0"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    let missing = std::process::Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args(["analyze", "/nonexistent/game.pgn"])
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/game.pgn"));
}

/// Issue 24: the knights are won through the check Nf0-e2, and the verdict
/// says so (a plain capture is named without how, as above).
#[test]
fn perpetual_chase_through_a_check_names_the_check() {
    let g = game(
        Some("2b1k4/7n1/8n/2r6/9/9/9/8R/3K5/4CN3 w - - 0 1"),
        "i2h2 c9a7 h2i2 a7c9 i2h2 c9a7 h2i2 a7c9",
    );
    let (a, _) = run(&g, 1);
    let e = a.ending.expect("judged");
    assert_eq!(
        e.summary,
        "0-1: perpetual chase by Red (of the knight h8 after the check f0e2, \
         knight i7 after the check f0e2)"
    );
    assert!(
        e.detail
            .contains("i2h2 chase knight h8 (after the check f0e2)\n"),
        "{}",
        e.detail
    );
}

#[test]
fn perpetual_chase_and_natural_limit_verdicts() {
    // Black's rook chases Red's cannon up and down the b-file.
    let g = game(
        Some("3k5/9/9/9/9/7r1/9/1C7/9/4K4 b - - 0 1"),
        "h4h2 b2b4 h2h4 b4b2 h4h2 b2b4 h2h4 b4b2",
    );
    let (a, _) = run(&g, 2);
    assert_eq!(a.plies.len(), 8);
    assert_eq!(a.plies[0].side, chuhe_core::board::Color::Black);
    let e = a.ending.clone().expect("judged");
    assert_eq!(e.verdict.reason, Reason::PerpetualAttack);
    assert_eq!(
        e.summary,
        "1-0: perpetual chase by Black (of the cannon b2, cannon b4)"
    );
    assert!(
        e.detail.contains("h4h2 chase cannon b2 (direct)\n"),
        "{}",
        e.detail
    );
    // The numbering of a game Black starts: 1... then 2.
    let html = analyze::html(&g, &a);
    assert!(html.contains("<td>1...</td>") && html.contains("<td>2.</td>"));
    let g = game(Some("3k5/9/9/9/9/9/9/r8/9/4K3R w - - 119 80"), "i0i1");
    let (a, _) = run(&g, 2);
    let e = a.ending.expect("judged");
    assert_eq!(e.verdict.reason, Reason::NaturalLimit);
    assert!(e.summary.starts_with("1/2-1/2: the natural move limit"));
}

/// Issue 50: the text output numbered plies as moves (`14.` for Black's
/// seventh move) and the graph's axis counted plies. Both number moves now,
/// as the HTML table and the annotated PGN do: `7.` for Red, `7...` for
/// Black, a set-up position going on from its FEN's move number.
#[test]
fn moves_are_numbered_as_moves() {
    let g = game(None, "h2e2 h9g7 h0g2 i9h9 i0h0 b9c7");
    let (a, _) = run(&g, 1);
    let numbers: Vec<String> = a.plies.iter().map(|p| p.number_text()).collect();
    assert_eq!(numbers, ["1.", "1...", "2.", "2...", "3.", "3..."]);
    // The axis: one label a move, under its Red ply; the points' titles.
    let svg = analyze::report::graph(&a);
    let labels: Vec<&str> = svg
        .split("text-anchor=\"middle\" fill=\"#666\">")
        .skip(1)
        .map(|t| &t[..t.find('<').unwrap()])
        .collect();
    assert_eq!(labels, ["1", "2", "3"], "{svg}");
    assert!(svg.contains(">move</text>"), "{svg}");
    assert!(svg.contains("<title>3... 马2进3 "), "{svg}");

    // Black to move in a FEN numbered 30: 30... then 31.
    let g = game(
        Some("3k5/9/9/9/9/7r1/9/1C7/9/4K4 b - - 0 30"),
        "h4h2 b2b4 h2h4",
    );
    let (a, _) = run(&g, 1);
    let numbers: Vec<String> = a.plies.iter().map(|p| p.number_text()).collect();
    assert_eq!(numbers, ["30...", "31.", "31..."]);
    let html = analyze::html(&g, &a);
    assert!(html.contains("<td>30...</td>") && html.contains("<td>31.</td>"));

    // The command line's text output.
    let dir = temp_dir();
    let input = dir.join("numbers.pgn");
    let g = game(None, "h2e2 h9g7 h0g2 i9h9 i0h0 b9c7 b0c2 b7b5");
    std::fs::write(&input, chuhe::record::pgn::write(std::slice::from_ref(&g))).unwrap();
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args(["analyze", input.to_str().unwrap(), "--depth", "1"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stdout}");
    let starts: Vec<&str> = stdout
        .lines()
        .map(|l| l.split(' ').next().unwrap_or(""))
        .collect();
    assert_eq!(
        starts,
        ["1.", "1...", "2.", "2...", "3.", "3...", "4.", "4..."],
        "{stdout}"
    );
    assert!(stdout.starts_with("1. 炮二平五 h2e2: Chuhe d1"), "{stdout}");
    assert!(stdout.contains("\n4... 炮2进2 b7b5: "), "{stdout}");
}
