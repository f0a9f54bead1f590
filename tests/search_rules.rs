//! The search scores repetitions by the Chinese rules, not as plain draws.

use chuhe_core::board::{Move, Position};
use chuhe_core::search::{Limits, Score, SearchResult, Searcher};

fn play(fen: &str, moves: &str) -> Position {
    let mut pos: Position = fen.parse().unwrap();
    for m in moves.split_whitespace() {
        let mv: Move = m.parse().unwrap();
        assert!(pos.is_legal(mv), "{m} illegal in {}", pos.fen());
        pos.make_move(mv);
    }
    pos
}

fn search(pos: &Position, depth: u32) -> SearchResult {
    let mut engine = Searcher::new();
    engine.set_hash_mb(16);
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    engine.go(pos, &limits, &mut |_| {})
}

fn best(pos: &Position, depth: u32) -> Move {
    search(pos, depth).best.expect("a move")
}

/// A search of `pos` to each depth scores it on the board (or as a mate),
/// not as a win or loss by the repetition rules (the search's `RULE_WIN`
/// band).
fn assert_no_rule_score(pos: &Position, depths: &[u32]) {
    for &depth in depths {
        let result = search(pos, depth);
        let rule = matches!(result.score, Score::Cp(v) if (27_000..29_000).contains(&v.abs()));
        assert!(
            !rule,
            "depth {depth}: {:?} for {:?}",
            result.score, result.best
        );
    }
}

/// Red is a cannon down and has chased Black's unprotected cannon round a
/// cycle twice: the position stands for the third time and the referee
/// tells Red to vary. Repeating the chase would be a draw under plain
/// repetition rules (tempting when behind), but a perpetual chase loses:
/// Red must vary, and does so without being told (no `banmoves`).
#[test]
fn stops_a_losing_perpetual_chase() {
    let pos = play(
        "4k3r/9/1c7/9/7R1/9/9/9/9/3K5 w - - 0 1",
        "h5h7 b7b5 h7h5 b5b7 h5h7 b7b5 h7h5 b5b7",
    );
    let mv = best(&pos, 6);
    assert_ne!(mv.to_string(), "h5h7", "walked into a perpetual chase");
}

/// Black, far behind, has checked Red's king round a cycle twice but for the
/// last check: a2a1 would bring the position back for the third time with
/// every Black move of both cycles a check. A plain repetition would be
/// Black's draw; under the Chinese rules the perpetual check loses, so Black
/// must give up the checks.
#[test]
fn the_checker_varies_before_the_third_occurrence() {
    let pos = play(
        "2ba1k3/4a4/4b4/9/3R5/2N4R1/9/9/r3K4/9 w - - 0 1",
        "e1e2 a1a2 e2e1 a2a1 e1e2 a1a2 e2e1",
    );
    let mv = best(&pos, 6);
    assert_ne!(mv.to_string(), "a2a1", "completed a perpetual check");
}

/// Black has checked Red's king round one cycle. Red's king steps back out of
/// check onto e2, where it stood before: the position recurs, but only for
/// the second time, and Black may still check once more or vary. The search
/// must not score the recurrence as a win by the rules (it once did, and
/// showed +27999 in a lost position); it scores the game on.
#[test]
fn a_games_first_recurrence_is_not_yet_a_rule_result() {
    let pos = play(
        "2ba1k3/4a4/4b4/9/3R5/2N4R1/9/9/r3K4/9 w - - 0 1",
        "e1e2 a1a2 e2e1 a2a1",
    );
    assert_no_rule_score(&pos, &[1, 2, 5]);
}

/// The same chase, Black to move after Red's second h7h5: b5b7 brings the
/// position back for the third time, Red's chase forbidden and Black's moves
/// idle. That is not Red's loss but Red's duty to vary (24.3): the referee
/// bans h5h7 and Red plays on, a cannon down. So Black's score is the
/// board's, not a win by the rules (a chase once scored as one, +27999).
#[test]
fn a_chaser_at_the_third_occurrence_must_vary_not_lose() {
    let pos = play(
        "4k3r/9/1c7/9/7R1/9/9/9/9/3K5 w - - 0 1",
        "h5h7 b7b5 h7h5 b5b7 h5h7 b7b5 h7h5",
    );
    assert_no_rule_score(&pos, &[2, 6]);
}
