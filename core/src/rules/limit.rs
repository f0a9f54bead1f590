//! The natural move limit (自然限着, seeds 4.2.4 and 23.3): 60 moves (120
//! plies) in a row without a capture is a draw. The side that claims it
//! counts at most 10 of its own checks (23.3: 提出方对非提出方"将军"的着数，
//! 最多只计10着); the other side's checks count in full. Either side may
//! claim, so the game is drawn as soon as one of the two claims would hold.

use crate::board::{Color, Position};

pub const NATURAL_LIMIT_PLIES: u32 = 120;

/// How many of a side's checking plies count towards the limit.
const CHECKS_COUNTED: u32 = 10;

/// Plies since the last capture as the natural limit counts them for the
/// better-placed claimant: the side with fewer checks claims, and only its
/// checks beyond 10 are left out. Plies before the recorded history cannot
/// be told apart and count as non-checks.
///
/// O(1): the position keeps the ply counter and each side's checking plies
/// of the capture-free stretch as moves are made and unmade.
pub fn effective_quiet_plies(pos: &Position) -> u32 {
    let (red, black) = (
        pos.stretch_checks(Color::Red),
        pos.stretch_checks(Color::Black),
    );
    // The ply counter includes every check; it saturates only far beyond the
    // limit, where subtracting saturates too and the answer stays "reached".
    pos.halfmove_clock().saturating_sub(uncounted(red, black))
}

/// The checking plies left out of the count: the claimant's beyond 10, for
/// the claimant that leaves out fewer.
fn uncounted(red: u32, black: u32) -> u32 {
    red.saturating_sub(CHECKS_COUNTED)
        .min(black.saturating_sub(CHECKS_COUNTED))
}

pub fn limit_reached(pos: &Position) -> bool {
    // The ply counter is the uncapped count, and capping only lowers it.
    pos.halfmove_clock() >= NATURAL_LIMIT_PLIES && effective_quiet_plies(pos) >= NATURAL_LIMIT_PLIES
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Move;

    /// The count by replaying the capture-free stretch backwards, as the
    /// rules define it: what the incremental count must always equal.
    fn replayed(pos: &Position) -> u32 {
        let hist = pos.history();
        let (start, before) = match hist.iter().rposition(|u| u.captured.is_some()) {
            Some(c) => (c + 1, 0),
            None => (
                0,
                hist.first()
                    .map_or(pos.halfmove_clock(), |u| u32::from(u.halfmove)),
            ),
        };
        let mut checks = [0u32; 2];
        let mut quiet = before;
        let mut p = pos.clone();
        for i in (start..hist.len()).rev() {
            let mover = !p.side_to_move();
            if hist[i].mv.is_none() {
                quiet += 1;
                p.unmake_null();
                continue;
            }
            if p.checkers().any() {
                checks[mover.index()] += 1;
            } else {
                quiet += 1;
            }
            p.unmake_move();
        }
        // Either side may claim; each counts the other's checks in full.
        let as_red = quiet + checks[0].min(CHECKS_COUNTED) + checks[1];
        let as_black = quiet + checks[0] + checks[1].min(CHECKS_COUNTED);
        as_red.max(as_black)
    }

    /// Each claimant leaves out only its own checks beyond 10; the claim
    /// that leaves out fewer decides.
    #[test]
    fn only_the_claimants_checks_beyond_ten_are_left_out() {
        assert_eq!(uncounted(14, 0), 0);
        assert_eq!(uncounted(0, 14), 0);
        assert_eq!(uncounted(14, 12), 2);
        assert_eq!(uncounted(12, 14), 2);
        assert_eq!(uncounted(25, 25), 15);
        assert_eq!(uncounted(10, 40), 0);
    }

    /// A small deterministic generator, so the games are the same each run.
    fn next(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// Random games that prefer checks and quiet moves (long capture-free,
    /// check-heavy stretches, with a capture now and then and null moves),
    /// checked against the replay after every move and every unmake.
    #[test]
    fn incremental_count_matches_the_replay() {
        let fens = [
            "9/4k4/9/9/9/9/9/9/9/3K4R w - - 80 1",
            "3akab2/9/b8/9/2n6/9/9/4C4/4R4/3AKA3 w - - 100 1",
            crate::board::START_FEN,
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for fen in fens {
            for _ in 0..8 {
                let mut pos = Position::from_fen(fen).unwrap();
                let mut made = 0;
                for _ in 0..200 {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    let r = next(&mut seed);
                    if r.is_multiple_of(29) && !pos.in_check() {
                        pos.make_null();
                    } else {
                        let checks: Vec<Move> = moves
                            .iter()
                            .copied()
                            .filter(|&m| pos.gives_check(m) && !pos.is_capture(m))
                            .collect();
                        let pick = if !checks.is_empty() && !r.is_multiple_of(3) {
                            checks[(r >> 8) as usize % checks.len()]
                        } else {
                            moves[(r >> 8) as usize % moves.len()]
                        };
                        pos.make_move(pick);
                    }
                    made += 1;
                    assert_eq!(effective_quiet_plies(&pos), replayed(&pos), "{}", pos.fen());
                }
                for _ in 0..made {
                    if pos.history().last().is_some_and(|u| u.mv.is_none()) {
                        pos.unmake_null();
                    } else {
                        pos.unmake_move();
                    }
                    assert_eq!(effective_quiet_plies(&pos), replayed(&pos), "{}", pos.fen());
                }
            }
        }
    }
}
