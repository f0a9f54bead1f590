//! Score constants and their conversions: mates, rule wins (a forbidden
//! cycle by the opponent) and the transposition-table ply adjustment.

use super::limits::Score;

/// Deepest ply the search ever reaches (plies beyond are evaluated statically).
pub const MAX_PLY: usize = 120;
/// Above every score.
pub const INF: i32 = 32000;
/// Mate at the root; mate in `n` plies scores `MATE - n`.
pub const MATE: i32 = 30000;
/// Scores beyond this are mates.
pub const MATE_BOUND: i32 = MATE - 1000;
/// A win by the repetition rules at the root; lower than every mate, higher
/// than every evaluation, and shortened by ply like a mate.
pub const RULE_WIN: i32 = 28000;
/// Scores beyond this are mates or rule wins: both depend on the distance
/// from the root, so the TT stores them relative to the node.
pub const WIN_BOUND: i32 = RULE_WIN - 1000;
/// "No static evaluation" (the side to move is in check).
pub const EVAL_NONE: i32 = INF + 1;

/// A win or loss by the repetition rules (not a mate).
#[inline]
pub fn is_rule_score(v: i32) -> bool {
    (WIN_BOUND..MATE_BOUND).contains(&v.abs())
}

#[inline]
pub fn mated_in(ply: usize) -> i32 {
    -MATE + ply as i32
}

/// Score as stored in the TT: mates and rule wins relative to this node.
#[inline]
pub fn to_tt(v: i32, ply: usize) -> i32 {
    if v >= WIN_BOUND {
        v + ply as i32
    } else if v <= -WIN_BOUND {
        v - ply as i32
    } else {
        v
    }
}

/// The inverse of `to_tt`: back to a distance from the root.
#[inline]
pub fn from_tt(v: i32, ply: usize) -> i32 {
    if v >= WIN_BOUND {
        v - ply as i32
    } else if v <= -WIN_BOUND {
        v + ply as i32
    } else {
        v
    }
}

/// The reported form: mates in moves, everything else in centipawns.
pub fn to_score(v: i32) -> Score {
    if v >= MATE_BOUND {
        Score::Mate((MATE - v + 1) / 2)
    } else if v <= -MATE_BOUND {
        Score::Mate(-(MATE + v) / 2)
    } else {
        Score::Cp(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_in_moves() {
        assert_eq!(to_score(MATE - 1), Score::Mate(1));
        assert_eq!(to_score(MATE - 3), Score::Mate(2));
        assert_eq!(to_score(-MATE + 2), Score::Mate(-1));
        assert_eq!(to_score(-MATE + 4), Score::Mate(-2));
        assert_eq!(to_score(RULE_WIN - 5), Score::Cp(RULE_WIN - 5));
    }

    #[test]
    fn tt_adjustment_round_trips() {
        for v in [MATE - 7, -MATE + 9, RULE_WIN - 3, -RULE_WIN + 4, 123, -45] {
            assert_eq!(from_tt(to_tt(v, 11), 11), v);
        }
    }
}
