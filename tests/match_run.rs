//! Whole matches against the scripted fake engine: schedule, concurrency,
//! PGN, standings, SPRT stop, interruption, resuming and the `chuhe match`
//! command line.

use chuhe::matches::resume;
use chuhe::matches::runner;
use chuhe::matches::schedule::{self, MatchConfig};
use chuhe::matches::stats::SprtDecision;
use chuhe::matches::{EngineSpec, GameSettings, RulesReferee, Termination};
use chuhe_core::rules::Outcome;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

const FAKE: &str = env!("CARGO_BIN_EXE_chuhe-fake-engine");

fn fake(name: &str, args: &[&str]) -> EngineSpec {
    let mut e = EngineSpec::new(name, FAKE);
    e.args = args.iter().map(|s| s.to_string()).collect();
    e
}

fn settings(max_plies: usize) -> GameSettings {
    GameSettings {
        tc: "depth=1".parse().unwrap(),
        max_plies,
        ..GameSettings::default()
    }
}

/// Runs a match that nothing interrupts, refereed by the rules judge.
fn run_to_end(cfg: &MatchConfig, out: &mut Vec<u8>) -> runner::MatchReport {
    runner::run(
        cfg,
        Arc::new(RulesReferee),
        Arc::new(AtomicBool::new(false)),
        out,
    )
    .unwrap()
}

fn temp(tag: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("chuhe-run-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

#[test]
fn round_robin_standings_and_pgn() {
    let engines = vec![
        fake("Alpha", &[]),
        fake("Beta", &[]),
        fake("Crasher", &["--script", "crash"]),
    ];
    let mut cfg = MatchConfig::new(engines, settings(10));
    cfg.games_per_pair = 2;
    cfg.concurrency = 2;
    let pgn = temp("rr.pgn");
    cfg.pgn = Some(pgn.clone());
    let mut out = Vec::new();
    let report = run_to_end(&cfg, &mut out);
    assert_eq!(report.games.len(), 6);
    assert!(!report.stopped_early);
    let rows = &report.standings;
    let by_name = |n: &str| rows.iter().find(|r| r.name == n).unwrap();
    // Alpha and Beta draw both their games at the move cap and beat the crasher twice.
    for n in ["Alpha", "Beta"] {
        let r = by_name(n);
        assert_eq!((r.games, r.wins, r.draws, r.losses), (4, 2, 2, 0));
        assert_eq!(r.points, 6.0);
        // 小分: beat Crasher (0 points) twice, drew the other (6) twice: 2 * 3.
        assert_eq!(r.small_points, 6.0);
        assert_eq!(r.rank, 1);
    }
    let c = by_name("Crasher");
    assert_eq!((c.points, c.losses, c.rank), (0.0, 4, 3));

    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(text.matches("[Event \"Chuhe match\"]").count(), 6);
    assert_eq!(text.matches("[Result \"1/2-1/2\"]").count(), 2);
    assert_eq!(
        text.matches("[Termination \"move cap reached\"]").count(),
        2
    );
    assert_eq!(text.matches("engine crashed\"]").count(), 4);
    for tag in [
        "Site",
        "Date",
        "Round",
        "Red",
        "Black",
        "TimeControl \"depth=1\"",
        "Opening",
    ] {
        assert_eq!(text.matches(&format!("[{tag}")).count(), 6, "{tag}");
    }
    // Every game's movetext ends with its result; moves carry Chinese notation.
    for game in text.split("[Event").skip(1) {
        let result = game
            .split("[Result \"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert!(game.trim_end().ends_with(result), "{game}");
    }
    assert!(text.contains("1. "));
    assert!(text.contains('进') || text.contains('平') || text.contains('退'));
    let printed = String::from_utf8(out).unwrap();
    assert!(printed.contains("After 6 of 6 games:"));
    assert!(printed.contains("Finished 6 of 6 games"));
    // The clock/depth/speed table: one row per engine, with the moves it chose.
    let usage = printed
        .split("Clock use and depth per move (means), speed (median):\n")
        .nth(1)
        .expect("usage table");
    let moves_of = |n: &str| -> u32 {
        let row = usage.lines().find(|l| l.starts_with(n)).unwrap();
        row.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    assert!(moves_of("Alpha") > 0 && moves_of("Beta") > 0, "{usage}");
    assert!(moves_of("Crasher") <= 4, "{usage}");
    let _ = std::fs::remove_file(&pgn);
}

#[test]
fn sprt_stops_a_decided_match() {
    // Beta resigns whenever it has Black; with Red it draws at the move cap.
    let engines = vec![fake("Alpha", &[]), fake("Beta", &["--resign-as-black"])];
    let mut cfg = MatchConfig::new(engines, settings(4));
    cfg.games_per_pair = 40;
    cfg.concurrency = 2;
    cfg.sprt = Some("0,200,0.05,0.05".parse().unwrap());
    let mut out = Vec::new();
    let report = run_to_end(&cfg, &mut out);
    let (llr, decision) = report.sprt.unwrap();
    assert_eq!(decision, SprtDecision::H1);
    assert!(llr >= 2.94);
    assert!(report.stopped_early);
    assert!(report.games.len() < 40);
    let wdl = report.wdl.unwrap();
    assert_eq!(wdl.losses, 0);
    assert!(wdl.wins > 0 && wdl.draws > 0);
    let printed = String::from_utf8(out).unwrap();
    assert!(printed.contains("H1 accepted"), "{printed}");
    assert!(printed.contains("LOS"));
    // Each running score shows how far the test is from a decision.
    let progress: Vec<&str> = printed
        .lines()
        .filter(|l| l.starts_with("Games "))
        .collect();
    assert!(!progress.is_empty(), "{printed}");
    assert!(
        progress
            .iter()
            .all(|l| l.contains(" LLR ") && l.ends_with("[-2.94, 2.94]")),
        "{progress:?}"
    );
}

#[test]
fn stop_flag_keeps_finished_games_only() {
    // Each move takes 100 ms: the match is far from done when stopped.
    let slow = ["--cycle", "--script", "first@100"];
    let engines = vec![fake("A", &slow), fake("B", &slow)];
    let mut cfg = MatchConfig::new(engines, settings(6));
    cfg.games_per_pair = 50;
    let pgn = temp("stop.pgn");
    cfg.pgn = Some(pgn.clone());
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(1500));
        flag.store(true, Ordering::Relaxed);
    });
    let mut out = Vec::new();
    let report = runner::run(&cfg, Arc::new(RulesReferee), stop, &mut out).unwrap();
    stopper.join().unwrap();
    assert!(report.stopped_early);
    assert!(report.games.len() < 50);
    assert!(report
        .games
        .iter()
        .all(|(_, g)| g.termination == Termination::MaxPlies && g.outcome == Some(Outcome::Draw)));
    let text = std::fs::read_to_string(&pgn).unwrap_or_default();
    assert_eq!(text.matches("[Event").count(), report.games.len());
    let _ = std::fs::remove_file(&pgn);
}

#[test]
fn a_stopped_match_resumes_from_its_pgn() {
    let slow = ["--cycle", "--script", "first@100"];
    let engines = vec![fake("A", &slow), fake("B", &["--resign-as-black"])];
    let mut cfg = MatchConfig::new(engines, settings(6));
    cfg.games_per_pair = 8;
    let pgn = temp("resume.pgn");
    cfg.pgn = Some(pgn.clone());
    // Stopped as soon as the first game is in the PGN (a game takes at least
    // 300 ms of A's moves, so the match is far from done).
    let stop = Arc::new(AtomicBool::new(false));
    let (flag, watched) = (stop.clone(), pgn.clone());
    let stopper = std::thread::spawn(move || {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while !std::fs::read_to_string(&watched).is_ok_and(|t| t.contains("[Round"))
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(10));
        }
        flag.store(true, Ordering::Relaxed);
    });
    let first = runner::run(&cfg, Arc::new(RulesReferee), stop, &mut Vec::new()).unwrap();
    stopper.join().unwrap();
    let before = first.games.len();
    assert!(first.stopped_early && before > 0 && before < 8, "{before}");

    cfg.concurrency = 2;
    let jobs = schedule::schedule(&cfg);
    let done = resume::load(&pgn, &cfg, &jobs).unwrap();
    assert_eq!((done.games.len(), done.ignored), (before, 0));
    // A game of no round of this schedule is left alone and said so.
    let text = std::fs::read_to_string(&pgn).unwrap();
    let first_game = text.split_inclusive("\n\n[Event").next().unwrap();
    let foreign = first_game.trim_end_matches("[Event").to_string();
    let foreign = foreign.replacen("[Round \"", "[Round \"99", 1);
    std::fs::write(&pgn, format!("{text}\n{foreign}")).unwrap();
    cfg.resume = true;
    let mut out = Vec::new();
    let report = runner::run(
        &cfg,
        Arc::new(RulesReferee),
        Arc::new(AtomicBool::new(false)),
        &mut out,
    )
    .unwrap();
    let printed = String::from_utf8(out).unwrap();
    assert!(
        printed.contains(&format!("Resumed {before} of 8 games")),
        "{printed}"
    );
    assert!(printed.contains("Finished 8 of 8 games"), "{printed}");
    assert!(printed.contains("note: 1 game(s)"), "{printed}");
    assert_eq!(report.games.len(), 8);
    // B resigns with Black and draws at the move cap with Red: +4 =4 for A,
    // whichever run played which game.
    let wdl = report.wdl.unwrap();
    assert_eq!((wdl.wins, wdl.draws, wdl.losses), (4, 4, 0));
    let text = std::fs::read_to_string(&pgn).unwrap();
    for round in 1..=8 {
        let tag = format!("[Round \"{round}\"]");
        assert_eq!(text.matches(&tag).count(), 1, "{tag}");
    }
    let _ = std::fs::remove_file(&pgn);

    let no_pgn = std::process::Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args([
            "match", "--engine", "cmd=x", "--engine", "cmd=y", "--resume",
        ])
        .output()
        .unwrap();
    assert_eq!(no_pgn.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&no_pgn.stderr).contains("--resume needs"));
}

#[test]
fn command_line_with_config_file() {
    let config = temp("match.toml");
    let pgn = temp("cli.pgn");
    let openings = temp("openings.txt");
    std::fs::write(
        &openings,
        "# two lines\nh2e2 h9g7\nrnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1\n",
    )
    .unwrap();
    std::fs::write(
        &config,
        format!(
            "tc = \"depth=1\"\nmax_moves = 3\nconcurrency = 2\nopenings = {:?}\n\
             [[engine]]\nname = \"One\"\ncmd = {FAKE:?}\nproto = \"ucci\"\n\
             [engine.options]\nhashsize = 16\n",
            openings.to_string_lossy()
        ),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args(["match", "--config"])
        .arg(&config)
        .arg("--engine")
        .arg(format!("cmd={FAKE} --resign-as-black,name=Two,proto=uci"))
        .arg("--pgn")
        .arg(&pgn)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("Finished 4 of 4 games"), "{stdout}");
    assert!(stdout.contains("One vs Two: +2 =2 -0"), "{stdout}");
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(text.matches("[Opening \"opening 2\"]").count(), 2);
    assert_eq!(text.matches("{马8进7 book}").count(), 2);

    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args(["match", "--engine", "cmd=x", "--tc", "sometimes"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("at least two engines"));
    for f in [config, pgn, openings] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn random_plies_give_each_pair_its_own_opening() {
    let pgn = temp("random.pgn");
    let openings = temp("random-openings.txt");
    std::fs::write(&openings, "h2e2 h9g7\nb2e2 b9c7\n").unwrap();
    let run = |extra: &[&str], pgn: &PathBuf| {
        std::process::Command::new(env!("CARGO_BIN_EXE_chuhe"))
            .args([
                "match",
                "--tc",
                "depth=1",
                "--max-moves",
                "3",
                "--games",
                "6",
            ])
            .arg("--engine")
            .arg(format!("cmd={FAKE},name=One"))
            .arg("--engine")
            .arg(format!("cmd={FAKE},name=Two"))
            .arg("--openings")
            .arg(&openings)
            .arg("--pgn")
            .arg(pgn)
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run(&["--random-plies", "3", "--seed", "5"], &pgn);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("warning"));
    let text = std::fs::read_to_string(&pgn).unwrap();
    // Three pairs, three openings, each played with both colours: the
    // suite's two in turn, each with three random plies after its moves.
    for name in ["opening 1 r1", "opening 2 r2", "opening 1 r3"] {
        let tag = format!("[Opening \"{name}\"]");
        assert_eq!(text.matches(&tag).count(), 2, "{name}\n{text}");
    }
    // Comments may be wrapped onto the next line: undo that to read them.
    let book = |t: &str| {
        t.replace('\n', " ")
            .split('{')
            .filter_map(|c| c.split_once(" book}").map(|(mv, _)| mv.to_string()))
            .collect::<Vec<_>>()
    };
    assert_eq!(book(&text).len(), 6 * 5, "{text}");

    // The same seed gives the same openings; without --random-plies at a
    // fixed depth the runner warns that the games repeat.
    let again = temp("random-again.pgn");
    assert!(run(&["--random-plies", "3", "--seed", "5"], &again)
        .status
        .success());
    // Concurrency 1: the games come in the same order.
    assert_eq!(book(&text), book(&std::fs::read_to_string(&again).unwrap()));
    let plain = temp("random-plain.pgn");
    let out = run(&[], &plain);
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("only 4 of the 6 games differ"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(&["--random-plies", "41"], &temp("random-bad.pgn"));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("at most 40"));
    for f in [pgn, again, plain, openings] {
        let _ = std::fs::remove_file(f);
    }
}

/// Issue 50: an engine that cannot start forfeited every game, and the
/// match ranked the other engine first and succeeded. Each engine now goes
/// through its handshake once before the first game; one that fails stops
/// the run with the reason, before any game or PGN.
#[test]
fn an_engine_that_cannot_start_stops_the_match_before_the_first_game() {
    let pgn = temp("ghost.pgn");
    let mut cfg = MatchConfig::new(
        vec![
            fake("Alpha", &[]),
            EngineSpec::new("ghost", "/nonexistent/engine"),
        ],
        settings(10),
    );
    cfg.pgn = Some(pgn.clone());
    let mut out = Vec::new();
    let e = runner::run(
        &cfg,
        Arc::new(RulesReferee),
        Arc::new(AtomicBool::new(false)),
        &mut out,
    )
    .unwrap_err();
    assert!(
        matches!(&e, runner::MatchError::EngineStart { name, .. } if name == "ghost"),
        "{e}"
    );
    let e = e.to_string();
    assert!(
        e.contains("engine ghost (`/nonexistent/engine`) failed to start"),
        "{e}"
    );
    assert!(e.contains("the match stopped before its first game"), "{e}");
    assert!(out.is_empty(), "{}", String::from_utf8_lossy(&out));
    assert!(!pgn.exists());
    // Ctrl-C before the start: a stopped match, as ever, not a failure.
    let report = runner::run(
        &cfg,
        Arc::new(RulesReferee),
        Arc::new(AtomicBool::new(true)),
        &mut Vec::new(),
    )
    .unwrap();
    assert!(report.stopped_early && report.games.is_empty());

    let chuhe = |engine: &str, extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_chuhe"))
            .args(["match", "--tc", "depth=1", "--max-moves", "3"])
            .arg("--engine")
            .arg(format!("cmd={FAKE},name=One"))
            .arg("--engine")
            .arg(engine)
            .args(extra)
            .output()
            .unwrap()
    };
    // A program that is not there, and one that exits before its handshake
    // (found gone on the first write or on the first read, whichever the
    // race gives: either is its failure to start, never a killed runner).
    for (engine, why) in [
        ("cmd=/nonexistent,name=ghost", &["No such file"][..]),
        (
            "cmd=sh -c true,name=quitter",
            &["the engine exited", "Broken pipe"][..],
        ),
    ] {
        let run = chuhe(engine, &[]);
        let stdout = String::from_utf8_lossy(&run.stdout);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{stdout}{stderr}");
        assert!(
            stderr.contains("failed to start") && why.iter().any(|w| stderr.contains(w)),
            "{stderr}"
        );
        assert!(!stdout.contains("Game 1"), "{stdout}");
    }
}

/// `--games 0` used to be taken silently as the default.
#[test]
fn zero_games_is_an_error() {
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args(["match", "--tc", "depth=1", "--games", "0"])
        .arg("--engine")
        .arg(format!("cmd={FAKE},name=One"))
        .arg("--engine")
        .arg(format!("cmd={FAKE},name=Two"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("is 0: a pairing needs at least one game"),
        "{stderr}"
    );
    assert!(run.stdout.is_empty());
}

/// Issue 50: a short one-way match printed `Elo -inf [-inf, -inf]`. The
/// progress lines and the final report give a bound in words instead, and
/// no infinity or NaN appears anywhere in the output.
#[test]
fn a_one_way_match_reports_a_bound_not_infinity() {
    let mut cfg = MatchConfig::new(
        vec![fake("Crasher", &["--script", "crash"]), fake("Alpha", &[])],
        settings(10),
    );
    cfg.games_per_pair = 2;
    let mut out = Vec::new();
    let report = run_to_end(&cfg, &mut out);
    let text = String::from_utf8(out).unwrap();
    let wdl = report.wdl.unwrap();
    assert_eq!((wdl.wins, wdl.draws, wdl.losses), (0, 0, 2), "{text}");
    assert!(
        text.contains("Elo below +290.5 (all 2 games lost: too lopsided to estimate)"),
        "{text}"
    );
    let lower = text.to_lowercase();
    assert!(!lower.contains("inf") && !lower.contains("nan"), "{text}");
}
