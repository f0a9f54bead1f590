//! The rules judge (棋例): game end by mate, stalemate, natural limit, no
//! winning material and repetition under the Chinese competition rules.
//!
//! CONTRACT (the search and the match runner code against these names):
//! - `judge(pos: &Position) -> Option<Verdict>`: is the game over now? `pos`
//!   carries the moves played since its FEN (`Position::history`).
//! - `repetition_in_search(pos, plies_back) -> RepetitionScore`: called by the
//!   search when the current key equals the key `plies_back` plies ago; says
//!   how the cycle ends for the side to move.

use crate::board::{Color, Move, Position};

/// How a finished game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    RedWins,
    BlackWins,
    Draw,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    Checkmate,
    Stalemate,
    PerpetualCheck,
    PerpetualAttack,
    RepetitionDraw,
    NaturalLimit,
    NoWinningMaterial,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub outcome: Outcome,
    pub reason: Reason,
}

/// A repeated cycle met inside the search, from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepetitionScore {
    Draw,
    /// The opponent's cycle is forbidden and ours is not: we win.
    Win,
    /// Our cycle is forbidden (or a perpetual check against a non-check): we lose.
    Loss,
}

/// Must-vary advice at the third occurrence of a forbidden cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MustVary {
    pub side: Color,
    pub banned: Move,
}

/// Whether the game is over in `pos` (see the module contract).
/// Interim: mate and stalemate only, until the full judge lands.
pub fn judge(pos: &Position) -> Option<Verdict> {
    if pos.has_legal_move() {
        return None;
    }
    let outcome = match pos.side_to_move() {
        Color::Red => Outcome::BlackWins,
        Color::Black => Outcome::RedWins,
    };
    let reason = if pos.in_check() {
        Reason::Checkmate
    } else {
        Reason::Stalemate
    };
    Some(Verdict { outcome, reason })
}

/// How a repetition met in the search ends for the side to move.
/// Interim: every cycle is a draw, until the full judge lands.
pub fn repetition_in_search(_pos: &Position, _plies_back: usize) -> RepetitionScore {
    RepetitionScore::Draw
}

/// At the third occurrence of a cycle that is "forbidden, loses": the side
/// that must vary and the move it must not play again (for `banmoves`).
/// Interim: none, until the full judge lands.
pub fn must_vary(_pos: &Position) -> Option<MustVary> {
    None
}

/// Whether the natural move limit (60 moves without a capture, checks capped)
/// has been reached in `pos`. Interim: plain 120-ply count.
pub fn natural_limit_reached(pos: &Position) -> bool {
    pos.halfmove_clock() >= 120
}

/// Whether neither side can possibly win (no attacking material at all).
/// Interim: no rook, knight, cannon or pawn on the board.
pub fn no_winning_material(pos: &Position) -> bool {
    use crate::board::PieceKind::*;
    [Rook, Knight, Cannon, Pawn]
        .iter()
        .all(|&k| pos.kind_bb(k).is_empty())
}
