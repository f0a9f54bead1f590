//! Pondering in the match runner (`ponder=true`): the scripted fake engine
//! answers `go ponder` only after `ponderhit` or `stop` and logs every line it
//! receives, so the tests read the exact command sequence from its log.

use chuhe::matches::engine::move_to_engine;
use chuhe::matches::openings::Opening;
use chuhe::matches::{EngineSpec, GameRecord, GameSettings, Referee, RulesReferee, Termination};
use chuhe_core::board::{Color, Move, Position};
use chuhe_core::rules::{MustVary, Outcome, Verdict};

#[path = "support/match_fixture.rs"]
mod fixture;
use fixture::*;

fn pondering(name: &str, args: &[&str]) -> EngineSpec {
    let mut e = fake(name, args);
    e.ponder = true;
    e
}

/// A game from the start position (see `play_game` for the time limit).
fn play_with(
    red: EngineSpec,
    black: EngineSpec,
    settings: GameSettings,
    referee: impl Referee,
) -> GameRecord {
    play_game(&red, &black, &Opening::startpos(), &settings, &referee)
}

fn play(red: EngineSpec, black: EngineSpec, settings: GameSettings) -> GameRecord {
    play_with(red, black, settings, RulesReferee)
}

/// The lines the fake engine received, and the file removed.
fn sent(log: &str) -> Vec<String> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let _ = std::fs::remove_file(log);
    text.lines().map(str::to_string).collect()
}

fn index_of(lines: &[String], from: usize, what: impl Fn(&str) -> bool) -> Option<usize> {
    lines[from..].iter().position(|l| what(l)).map(|i| i + from)
}

#[test]
fn ponder_hit_runs_the_clock_from_ponderhit() {
    for proto in ["ucci", "uci"] {
        // Black takes 300 ms a move; Red ponders meanwhile on the move Black
        // plays (the fake's ponder move is the first legal reply, which is
        // what `first` plays), so every Red move after the first is a hit.
        let log = temp_log(&format!("hit-{proto}"));
        let red = pondering("r", &["--proto", proto, "--ponder-option", "--log", &log]);
        let black = fake("b", &["--proto", proto, "--cycle", "--script", "first@300"]);
        let g = play(red, black, settings("5", 10));
        assert_eq!(g.termination, Termination::MaxPlies, "{proto}");
        assert_eq!(g.moves.len(), 10);
        // Red's time is counted from `ponderhit`, not from `go ponder`
        // (which was 300 ms or more before it).
        for (i, m) in g.moves.iter().enumerate().skip(2).step_by(2) {
            assert!(
                m.time_ms < 150,
                "{proto}: Red move {i} charged {} ms",
                m.time_ms
            );
            assert_ne!(m.depth, Some(99), "{proto}: a ponder-only info line");
        }
        let lines = sent(&log);
        let option = match proto {
            "ucci" => "setoption ponder true",
            _ => "setoption name Ponder value true",
        };
        assert!(lines.iter().any(|l| l == option), "{proto}: {lines:?}");
        let go_ponder = index_of(&lines, 0, |l| l.starts_with("go ponder ")).expect("go ponder");
        // The position of the ponder search ends with Red's move and the
        // reply Red expects (which Black then played), and the clocks come
        // along as for a normal go.
        let (mv0, mv1) = (g.moves[0].mv.to_string(), g.moves[1].mv.to_string());
        assert!(
            lines[go_ponder - 1].starts_with("position ")
                && lines[go_ponder - 1].ends_with(&format!(" moves {mv0} {mv1}")),
            "{proto}: {}",
            lines[go_ponder - 1]
        );
        let clock = match proto {
            "ucci" => "go ponder time ",
            _ => "go ponder wtime ",
        };
        assert!(lines[go_ponder].starts_with(clock), "{}", lines[go_ponder]);
        assert_eq!(lines[go_ponder + 1], "ponderhit", "{proto}: {lines:?}");
        let hits = lines.iter().filter(|l| *l == "ponderhit").count();
        assert_eq!(hits, 4, "{proto}: one hit per Red move after the first");
        // No ponder miss and nothing but the last ponder (ended by the move
        // cap) is stopped.
        assert_eq!(lines.iter().filter(|l| *l == "stop").count(), 1);
    }
}

#[test]
fn ponder_miss_stops_discards_and_searches_again() {
    // Red expects the first legal reply to h2e2; Black plays the last one.
    let mut pos = Position::startpos();
    pos.make_move("h2e2".parse().unwrap());
    let black_move = *pos.legal_moves().last().unwrap();
    pos.make_move(black_move);
    let log = temp_log("miss");
    let red = pondering("r", &["--script", "h2e2 h0g2", "--log", &log]);
    let black = fake("b", &["--script", &black_move.to_string()]);
    let g = play(red, black, settings("depth=1", 8));
    assert_eq!(g.termination, Termination::MaxPlies);
    assert_eq!(g.moves[1].mv, black_move);
    // The answer to `stop` (the last legal move of the pondered position) is
    // dropped: Red's move is the one its new search was scripted to play.
    assert_eq!(g.moves[2].mv, "h0g2".parse::<Move>().unwrap());
    assert!(g.moves.iter().all(|m| m.depth != Some(99)));
    let lines = sent(&log);
    let go_ponder = index_of(&lines, 0, |l| l.starts_with("go ponder")).expect("go ponder");
    assert_eq!(lines[go_ponder + 1], "stop", "{lines:?}");
    assert!(lines[go_ponder + 2].starts_with("position "));
    assert!(lines[go_ponder + 2].ends_with(&format!("h2e2 {black_move}")));
    assert!(lines[go_ponder + 3].starts_with("go ") && !lines[go_ponder + 3].contains("ponder"));
    // Later replies are the expected ones: hits.
    assert!(index_of(&lines, go_ponder, |l| l == "ponderhit").is_some());
}

/// Red must not play `h2e2` after the first two plies.
struct BanAtPly2;

impl Referee for BanAtPly2 {
    fn judge(&self, pos: &Position) -> Option<Verdict> {
        RulesReferee.judge(pos)
    }
    fn must_vary(&self, pos: &Position) -> Option<MustVary> {
        (pos.history().len() == 2).then(|| MustVary {
            side: Color::Red,
            banned: "h2e2".parse().unwrap(),
        })
    }
}

#[test]
fn a_ban_turns_a_hit_into_a_new_search() {
    // Black plays the reply Red ponders on, but Red's move now has a ban,
    // which only a new `go` can carry.
    let log = temp_log("ban");
    let red = pondering(
        "r",
        &[
            "--proto",
            "ucci",
            "--obey-ban",
            "--script",
            "h0g2 h2e2",
            "--log",
            &log,
        ],
    );
    let g = play_with(red, fake("b", &[]), settings("depth=1", 4), BanAtPly2);
    assert_eq!(g.termination, Termination::MaxPlies);
    assert_ne!(g.moves[2].mv, "h2e2".parse::<Move>().unwrap());
    let lines = sent(&log);
    let go_ponder = index_of(&lines, 0, |l| l.starts_with("go ponder")).expect("go ponder");
    assert_eq!(lines[go_ponder + 1], "stop", "{lines:?}");
    assert!(lines[go_ponder + 2].starts_with("position "));
    assert_eq!(lines[go_ponder + 3], "banmoves h2e2");
    assert!(lines[go_ponder + 4].starts_with("go depth"));
}

#[test]
fn a_game_that_ends_during_a_ponder_stops_it() {
    // The opponent crashes while Red ponders; then the move cap ends the
    // game right after Red's move. Either way: `stop`, its answer read, `quit`.
    for (black, max_plies, end) in [
        ("crash", 10, Termination::Crash { side: Color::Black }),
        ("first", 1, Termination::MaxPlies),
    ] {
        let log = temp_log(&format!("end-{black}"));
        let red = pondering("r", &["--script", "h2e2", "--log", &log]);
        let g = play(
            red,
            fake("b", &["--script", black]),
            settings("depth=1", max_plies),
        );
        assert_eq!(g.termination, end);
        let lines = sent(&log);
        let go_ponder = index_of(&lines, 0, |l| l.starts_with("go ponder")).expect("go ponder");
        assert_eq!(lines[go_ponder + 1..], ["stop", "quit"], "{lines:?}");
    }
}

#[test]
fn a_draw_offer_comes_with_ponderhit() {
    // Black offers a draw with the move Red ponders on; Red accepts.
    let log = temp_log("draw");
    let red = pondering("r", &["--script", "h2e2", "--accept-draw", "--log", &log]);
    let black = fake("b", &["--proto", "ucci", "--script", "first+draw"]);
    let g = play(red, black, settings("depth=1", 10));
    assert_eq!(g.termination, Termination::DrawAgreed);
    assert_eq!(g.outcome, Some(Outcome::Draw));
    assert!(sent(&log).iter().any(|l| l == "ponderhit draw"));
}

#[test]
fn no_ponder_unless_asked_and_no_option_it_lacks() {
    // Default: an engine that offers the option is never asked to ponder.
    let log = temp_log("off");
    let red = fake("r", &["--ponder-option", "--log", &log]);
    let g = play(red, fake("b", &[]), settings("depth=1", 6));
    assert_eq!(g.termination, Termination::MaxPlies);
    let lines = sent(&log);
    assert!(!lines.iter().any(|l| l.contains("ponder")), "{lines:?}");
    // Asked, but offering no such option: it ponders, unannounced.
    let log = temp_log("no-option");
    let red = pondering("r", &["--log", &log]);
    let g = play(red, fake("b", &[]), settings("depth=1", 6));
    assert_eq!(g.termination, Termination::MaxPlies);
    let lines = sent(&log);
    assert!(!lines.iter().any(|l| l.starts_with("setoption ponder")));
    assert!(lines.iter().any(|l| l == "ponderhit"));
}

#[test]
fn pondering_with_ranks_one_to_ten() {
    // A UCI engine that writes ranks 1-10 (coords auto: it lists
    // UCI_Variant) names its ponder move in that convention; the runner must
    // read it, send the ponder position in 1-10 too, and score the hits.
    let log = temp_log("ranks10");
    let red = pondering(
        "r",
        &[
            "--proto",
            "uci",
            "--ranks-from-one",
            "--variant-option",
            "--ponder-option",
            "--log",
            &log,
        ],
    );
    let black = fake("b", &["--proto", "uci", "--cycle", "--script", "first@300"]);
    let g = play(red, black, settings("5", 10));
    assert_eq!(g.termination, Termination::MaxPlies, "{g:?}");
    let lines = sent(&log);
    assert_eq!(lines.iter().filter(|l| *l == "ponderhit").count(), 4);
    let go_ponder = index_of(&lines, 0, |l| l.starts_with("go ponder ")).expect("go ponder");
    let (mv0, mv1) = (
        move_to_engine(g.moves[0].mv, 1),
        move_to_engine(g.moves[1].mv, 1),
    );
    assert!(
        lines[go_ponder - 1].ends_with(&format!(" moves {mv0} {mv1}")),
        "{}",
        lines[go_ponder - 1]
    );
    // The record stays in 0-9.
    assert_eq!(g.moves[0].mv.to_string(), "a0a1", "the first legal move");
}

#[test]
fn ucci_ponder_on_a_capture_sends_the_fen_after_it() {
    // Red's pawn checks from e8 and Black's only reply takes it (d9 faces
    // the red king, f9 the rook): Red ponders on a capture, so its UCCI
    // position is the FEN after that capture, with no moves.
    let opening = Opening {
        name: "capture".into(),
        fen: "4k4/9/4P4/9/9/9/9/5R3/9/3K5 w - - 0 1".into(),
        moves: Vec::new(),
    };
    let mut pos = opening.position().unwrap();
    pos.make_move("e7e8".parse().unwrap());
    assert_eq!(
        pos.legal_moves().as_slice(),
        ["e9e8".parse::<Move>().unwrap()]
    );
    pos.make_move("e9e8".parse().unwrap());
    let log = temp_log("capture");
    let red = pondering("r", &["--proto", "ucci", "--script", "e7e8", "--log", &log]);
    let black = fake("b", &["--proto", "ucci"]);
    let g = play_game(
        &red,
        &black,
        &opening,
        &settings("depth=1", 3),
        &RulesReferee,
    );
    assert_eq!(g.termination, Termination::MaxPlies, "{g:?}");
    let lines = sent(&log);
    let go_ponder = index_of(&lines, 0, |l| l.starts_with("go ponder")).expect("go ponder");
    assert_eq!(lines[go_ponder - 1], format!("position fen {}", pos.fen()));
    assert_eq!(lines[go_ponder + 1], "ponderhit", "{lines:?}");
}

#[test]
fn an_engine_deaf_to_stop_after_a_ponder_miss_loses() {
    // As in the miss test, but Red never answers the `stop`: after the
    // runner's wait it loses as an engine that did not answer.
    let mut pos = Position::startpos();
    pos.make_move("h2e2".parse().unwrap());
    let black_move = *pos.legal_moves().last().unwrap();
    let red = pondering("r", &["--script", "h2e2 h0g2", "--deaf-to-stop"]);
    let black = fake("b", &["--script", &black_move.to_string()]);
    let g = play(red, black, settings("depth=1", 8));
    assert_eq!(g.termination, Termination::NoAnswer { side: Color::Red });
    assert_eq!(g.outcome, Some(Outcome::BlackWins));
    assert_eq!(g.moves.len(), 2);
}

#[test]
fn a_game_ends_even_when_the_ponderer_ignores_stop() {
    // The move cap ends the game while Red ponders and Red ignores `stop`:
    // the result stands, and Red is told to quit after the wait.
    let log = temp_log("deaf-end");
    let red = pondering("r", &["--script", "h2e2", "--deaf-to-stop", "--log", &log]);
    let g = play(red, fake("b", &[]), settings("depth=1", 1));
    assert_eq!(g.termination, Termination::MaxPlies);
    let lines = sent(&log);
    let go_ponder = index_of(&lines, 0, |l| l.starts_with("go ponder")).expect("go ponder");
    assert_eq!(lines[go_ponder + 1..], ["stop", "quit"], "{lines:?}");
}
