//! The short fuzz run (seconds): every target of tests/support/fuzz_targets.rs
//! with a fixed seed and a few thousand inputs. The long run is
//! the `fuzz` example built with the test profile (see docs/DEVELOPMENT.md).

#[path = "support/fuzz_targets.rs"]
mod targets;

use targets::{cecp_script, run_session, run_target, session_script, Rng, SessionNotes, TARGETS};

fn short_run(name: &str, count: u64) {
    let (_, f) = TARGETS.iter().find(|(n, _)| *n == name).expect("a target");
    let stats = run_target(name, *f, 0x5EED, 0, count);
    assert_eq!(stats.tried, count);
    assert!(stats.failures.is_empty(), "{name}: {:?}", stats.failures);
}

#[test]
fn fuzz_fen() {
    short_run("fen", 2_000);
}

#[test]
fn fuzz_moves() {
    short_run("moves", 5_000);
}

#[test]
fn fuzz_protocol_parse() {
    short_run("protocol-parse", 5_000);
}

#[test]
fn fuzz_judge() {
    short_run("judge", 150);
}

#[test]
fn fuzz_openings() {
    short_run("openings", 1_000);
}

#[test]
fn fuzz_config() {
    short_run("config", 2_000);
}

/// The file readers (see tests/support/fuzz_readers.rs): no panic, and
/// each input read within its memory and time budgets.
fn reader_run(name: &str, count: u64) {
    short_run(name, count);
}

#[test]
fn fuzz_pgn() {
    reader_run("pgn", 1_500);
}

#[test]
fn fuzz_xqf() {
    reader_run("xqf", 1_500);
}

#[test]
fn fuzz_records() {
    reader_run("records", 2_000);
}

#[test]
fn fuzz_book() {
    reader_run("book", 800);
}

#[test]
fn fuzz_network() {
    reader_run("network", 300);
}

#[test]
fn fuzz_mate_suite() {
    reader_run("mate-suite", 1_000);
}

#[test]
fn fuzz_chain() {
    reader_run("chain", 1_000);
}

/// The inputs of issue 50: a lone closing brace or bracket made the PGN
/// reader loop, adding an empty token each time round, until memory ran
/// out. Each is an error now, within the memory budget.
#[test]
fn stray_closing_brackets_are_errors_within_budget() {
    use chuhe::record;
    for text in [
        "}",
        "]",
        "1. h2e2 }",
        "1. h2e2 ]",
        "[Event \"x\"]]\n1. h2e2 *",
        "{a}}",
    ] {
        let bytes = text.as_bytes();
        let read = targets::readers::bounded(text, bytes, || record::read_bytes(bytes, None))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(read.is_err(), "{text:?} read as {read:?}");
    }
}

/// A memory budget that a runaway reader would break is reported as a
/// failure of the input, and a reader within it passes.
#[test]
fn memory_budget_is_checked() {
    let big = targets::readers::bounded("greedy", b"x", || vec![1u8; 80 << 20].len());
    assert!(big.unwrap_err().contains("greedy"));
    let small = targets::readers::bounded("modest", &[0; 1000], || vec![1u8; 1 << 20].len());
    assert_eq!(small, Ok(1 << 20));
}

/// The real engine over pipes: a few hundred random lines of each protocol,
/// each answered by `readyok` (CECP: `pong`) in time, then a clean exit.
#[test]
fn fuzz_session() {
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_chuhe"));
    let scripts = (0..2)
        .map(|seed| ("session", seed, session_script(&mut Rng::new(seed), 150)))
        .chain((0..2).map(|seed| ("cecp", seed, cecp_script(&mut Rng::new(seed), 200))));
    for (kind, seed, script) in scripts {
        let mut notes = SessionNotes::default();
        let sent = run_session(bin, &script, std::time::Duration::from_secs(20), &mut notes)
            .unwrap_or_else(|e| panic!("{kind} script, seed {seed}: {e}"));
        assert_eq!(sent, script.len());
    }
}

/// The harness itself: a target that breaks its property is reported with
/// its input's index, and a panicking one is caught and counted.
#[test]
fn harness_reports_failures_and_panics() {
    fn flaky(r: &mut Rng) -> Result<(), String> {
        match r.below(3) {
            0 => Err("broken".into()),
            1 => panic!("boom"),
            _ => Ok(()),
        }
    }
    let stats = run_target("flaky", flaky, 1, 0, 60);
    assert_eq!(stats.tried, 60);
    assert!(stats.panics > 0);
    assert!(stats.failures.len() as u64 > stats.panics);
    assert!(stats.failures.iter().any(|(_, w)| w == "broken"));
    assert!(stats.failures.iter().any(|(_, w)| w == "panic: boom"));
}

/// The colour mirror used by the judge target is an involution and maps a
/// legal game to a legal game.
#[test]
fn mirror_is_its_own_inverse() {
    let mut r = Rng::new(3);
    for _ in 0..50 {
        let (fen, moves) = targets::random_game(&mut r);
        assert_eq!(targets::mirror_fen(&targets::mirror_fen(&fen)), fen);
        let mut p = chuhe_core::board::Position::from_fen(&targets::mirror_fen(&fen)).unwrap();
        for m in moves {
            assert_eq!(targets::mirror_move(targets::mirror_move(m)), m);
            assert!(p.is_legal(targets::mirror_move(m)));
            p.make_move(targets::mirror_move(m));
        }
    }
}

/// Games with two equally cheap recapturers: each must be judged as its
/// colour mirror is, so `exchange_on` may not simply take the first in
/// generation order, which differs in the mirror.
#[test]
fn mirror_cases_found_by_the_long_run() {
    for (fen, moves) in [
        (
            "r1ba1a1n1/n3k1C2/9/9/p2r1P3/9/9/C5N2/4A4/1N2K1B2 b - - 0 24",
            "a5a4 g8g5 d5a5 g5g8 a5d5 g8g5 d5a5 g5g8 a5d5",
        ),
        (
            "2ba1abn1/3C1k3/nr7/p3p3p/P5pP1/9/c1P3P2/N3cC3/2r6/R1BAKABNR w - - 25 25",
            "i0i3 c1a1 i3i0 a1c1 i0i3 c1a1 i3i0 b7b2 i0i3 b2b7",
        ),
    ] {
        let moves: Vec<chuhe_core::board::Move> =
            moves.split(' ').map(|m| m.parse().unwrap()).collect();
        targets::check_game(fen, &moves).unwrap();
    }
}
