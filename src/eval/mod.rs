//! Evaluation: one interface (`evaluate`) in front of the hand-crafted
//! evaluation now and the NNUE network later.

mod hce;
pub mod psqt;

use crate::board::Position;

/// Evaluations stay well inside this bound, far from mate and rule-win scores.
pub const EVAL_LIMIT: i32 = 20000;

/// The static evaluation in centipawns from the side to move's point of view
/// (a knight or cannon is about 100 in the middle game).
#[inline]
pub fn evaluate(pos: &Position) -> i32 {
    hce::evaluate(pos).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}
