//! The search scores repetitions by the Chinese rules, not as plain draws.

use chuhe_core::board::{Move, Position};
use chuhe_core::search::{Limits, Searcher};

fn play(fen: &str, moves: &str) -> Position {
    let mut pos: Position = fen.parse().unwrap();
    for m in moves.split_whitespace() {
        let mv: Move = m.parse().unwrap();
        assert!(pos.is_legal(mv), "{m} illegal in {}", pos.fen());
        pos.make_move(mv);
    }
    pos
}

fn best(pos: &Position, depth: u32) -> Move {
    let mut engine = Searcher::new();
    engine.set_hash_mb(16);
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    engine.go(pos, &limits, &mut |_| {}).best.expect("a move")
}

/// Red is a rook down and has chased Black's unprotected cannon round a
/// cycle twice. Repeating the chase would be a draw under plain repetition
/// rules (tempting when behind), but a perpetual chase loses: Red must vary.
#[test]
fn stops_a_losing_perpetual_chase() {
    let pos = play(
        "4k3r/9/1c7/9/7R1/9/9/9/9/3K5 w - - 0 1",
        "h5h7 b7b5 h7h5 b5b7",
    );
    let mv = best(&pos, 6);
    assert_ne!(mv.to_string(), "h5h7", "walked into a perpetual chase");
}

/// Black has checked Red's king round a cycle twice. Red, well ahead, could
/// block with a rook its king protects (the best move if the repetition were
/// a plain draw), but under the Chinese rules Black's perpetual check loses:
/// Red repeats and claims the win.
#[test]
fn lets_the_opponent_perpetually_check_into_a_loss() {
    let pos = play(
        "2ba1k3/4a4/4b4/9/3R5/2N4R1/9/9/r3K4/9 w - - 0 1",
        "e1e2 a1a2 e2e1 a2a1",
    );
    let mv = best(&pos, 6);
    assert_eq!(
        mv.to_string(),
        "e1e2",
        "should let Black's perpetual check lose"
    );
}
