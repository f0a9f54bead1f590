//! The natural move limit (自然限着, seeds 4.2.4 and 23.3): 60 moves (120
//! plies) in a row without a capture is a draw, where the checks of each side
//! count for at most 10 of its plies.

use crate::board::Position;

pub const NATURAL_LIMIT_PLIES: u32 = 120;

/// How many of a side's checking plies count towards the limit.
const CHECKS_COUNTED: u32 = 10;

/// Where the capture-free stretch starts in the history, and how many plies
/// of it lie before the history (the FEN's ply counter).
fn quiet_stretch(pos: &Position) -> (usize, u32) {
    let hist = pos.history();
    match hist.iter().rposition(|u| u.captured.is_some()) {
        Some(c) => (c + 1, 0),
        None => (
            0,
            hist.first()
                .map_or(pos.halfmove_clock(), |u| u32::from(u.halfmove)),
        ),
    }
}

/// Plies since the last capture as the natural limit counts them: checks
/// capped at 10 per side. Plies before the recorded history cannot be told
/// apart and count as non-checks.
pub fn effective_quiet_plies(pos: &Position) -> u32 {
    let hist = pos.history();
    let (start, before) = quiet_stretch(pos);
    let mut checks = [0u32; 2];
    let mut quiet = before;
    let mut p = pos.clone();
    for i in (start..hist.len()).rev() {
        // `p` stands right after move `i`; its mover is the side not to move.
        let mover = !p.side_to_move();
        if hist[i].mv.is_none() {
            quiet += 1;
            p.unmake_null();
            continue;
        }
        if p.in_check() {
            checks[mover.index()] += 1;
        } else {
            quiet += 1;
        }
        p.unmake_move();
    }
    quiet + checks[0].min(CHECKS_COUNTED) + checks[1].min(CHECKS_COUNTED)
}

pub fn limit_reached(pos: &Position) -> bool {
    // The ply counter is the uncapped count, and capping only lowers it: no
    // replay while it is short, so this is cheap enough for every node.
    pos.halfmove_clock() >= NATURAL_LIMIT_PLIES && effective_quiet_plies(pos) >= NATURAL_LIMIT_PLIES
}
