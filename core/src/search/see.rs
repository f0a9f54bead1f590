//! Static exchange evaluation: whether the capture sequence on one point,
//! each side always taking with its least valuable piece, gains at least a
//! threshold. Attackers are recomputed from the shrinking occupancy at every
//! step, which covers the cannon's screens, uncovered rooks and freed knight
//! legs alike; pins are ignored, as usual.

use crate::board::{Bitboard, Move, PieceKind, Position, Square};
use crate::eval::psqt::SEE_VALUE;

/// Capture order: the cheapest attacker first.
const ORDER: [PieceKind; 7] = [
    PieceKind::Pawn,
    PieceKind::Advisor,
    PieceKind::Bishop,
    PieceKind::Knight,
    PieceKind::Cannon,
    PieceKind::Rook,
    PieceKind::King,
];

#[inline]
fn value_at(pos: &Position, sq: Square) -> i32 {
    pos.piece_at(sq).map_or(0, |p| SEE_VALUE[p.kind().index()])
}

/// Whether `mv` wins at least `threshold` centipawns by exchange.
pub fn see_ge(pos: &Position, mv: Move, threshold: i32) -> bool {
    let (from, to) = (mv.from(), mv.to());
    let mut swap = value_at(pos, to) - threshold;
    if swap < 0 {
        return false;
    }
    swap = value_at(pos, from) - swap;
    if swap <= 0 {
        return true;
    }
    let mut occ = pos.occupied() ^ Bitboard::from_square(from);
    let mut stm = pos.side_to_move();
    let mut res = true;
    loop {
        stm = !stm;
        let attackers = pos.attackers_to(to, stm, occ) & occ;
        if attackers.is_empty() {
            break;
        }
        res = !res;
        let Some((sq, kind)) = ORDER.iter().find_map(|&k| {
            let b = attackers & pos.kind_bb(k);
            b.any().then(|| (b.lsb(), k))
        }) else {
            break;
        };
        if kind == PieceKind::King {
            // The king may only take last: if the other side still attacks, it cannot.
            let other = pos.attackers_to(to, !stm, occ) & occ;
            return if other.any() { !res } else { res };
        }
        swap = SEE_VALUE[kind.index()] - swap;
        if swap < res as i32 {
            break;
        }
        occ ^= Bitboard::from_square(sq);
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    fn see(fen: &str, mv: &str, t: i32) -> bool {
        let pos = Position::from_fen(fen).unwrap();
        see_ge(&pos, mv.parse().unwrap(), t)
    }

    #[test]
    fn free_piece_and_defended_piece() {
        // Rook takes an undefended knight.
        assert!(see("4k4/9/9/9/9/9/9/9/4n4/3KR4 w - - 0 1", "e0e1", 100));
        assert!(!see("4k4/9/9/9/9/9/9/9/4n4/3KR4 w - - 0 1", "e0e1", 101));
        // Rook takes a knight defended by a rook: loses the exchange.
        let fen = "4kr3/9/9/9/9/9/9/9/5n3/3K1R3 w - - 0 1";
        assert!(!see(fen, "f0f1", 0));
        assert!(see(fen, "f0f1", -125));
    }

    #[test]
    fn cannon_screen_appears_after_capture() {
        // Red rook takes a pawn on e5; a black cannon on e9 with the black
        // knight on e7 as screen recaptures.
        let fen = "3k5/9/4n4/9/4p4/9/9/9/9/4RK3 w - - 0 1";
        assert!(see(fen, "e0e5", 0));
        let fen = "3kc4/9/4n4/9/4p4/9/9/9/9/4RK3 w - - 0 1";
        assert!(!see(fen, "e0e5", 0));
    }
}
