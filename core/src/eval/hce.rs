//! The hand-crafted evaluation: the material and piece-square sum (kept
//! incrementally by the `Evaluator`, or summed afresh) plus xiangqi knowledge that needs the whole board:
//! mobility of the long-range pieces, pressure on the enemy palace, the
//! defenders left around the own king, and connected pawns across the river.

use super::psqt;
use crate::board::attacks::{
    between, bishop_attacks, cannon_captures, knight_attacks, pawn_attacks, rook_attacks,
};
use crate::board::{Bitboard, Color, PieceKind, Position, Square};

/// Bonus for having the move, so that odd and even plies agree better.
const TEMPO: i32 = 12;

/// Game phase weights: the heavy and minor attackers define the middle game.
const PHASE_ROOK: i32 = 6;
const PHASE_MINOR: i32 = 3;
const PHASE_MAX: i32 = 4 * PHASE_ROOK + 8 * PHASE_MINOR;

/// A knight's value by the number of points it can move to: a knight with
/// its legs blocked is nearly worthless in xiangqi.
const KNIGHT_MOBILITY: [i32; 9] = [-40, -24, -10, -2, 4, 8, 11, 13, 15];

/// An enemy rook attacked by a cheaper piece, and an enemy knight or cannon
/// attacked by a pawn: the quiescence search only sees such threats once
/// they are carried out, and a stand-pat score ignores two at once.
const THREAT_ON_ROOK: i32 = 30;
const THREAT_ON_MINOR: i32 = 20;

const fn zone(color: Color) -> Bitboard {
    // Files c-g and the three palace ranks plus the one before them.
    let mut b = 0u128;
    let mut sq = 0;
    while sq < 90 {
        let (f, r) = (sq % 9, sq / 9);
        let rel = match color {
            Color::Red => r,
            Color::Black => 9 - r,
        };
        if f >= 2 && f <= 6 && rel <= 3 {
            b |= 1u128 << sq;
        }
        sq += 1;
    }
    Bitboard(b)
}

/// The points around each side's palace where enemy pieces are dangerous.
const PALACE_ZONE: [Bitboard; 2] = [zone(Color::Red), zone(Color::Black)];

/// The palace centre, where an own knight blocks the king and the advisors.
const PALACE_CENTRE: [usize; 2] = [13, 76];

/// The evaluation counts a lot of bits; x86-64 builds without
/// `target-cpu=native` lack the POPCNT instruction, so when the CPU has it we
/// run a copy of the same code compiled with it.
/// `psq` is the position's `psqt::sum`.
pub(super) fn evaluate(pos: &Position, psq: psqt::Packed) -> i32 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU supports POPCNT, checked just above.
            return unsafe { evaluate_popcnt(pos, psq) };
        }
    }
    evaluate_impl(pos, psq)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn evaluate_popcnt(pos: &Position, psq: psqt::Packed) -> i32 {
    evaluate_impl(pos, psq)
}

#[inline(always)]
fn evaluate_impl(pos: &Position, psq: psqt::Packed) -> i32 {
    let (rm, re) = side_terms(pos, Color::Red);
    let (bm, be) = side_terms(pos, Color::Black);
    let mg = psqt::mg(psq) + rm - bm;
    let eg = psqt::eg(psq) + re - be;
    let phase = phase(pos);
    let mut v = (mg * phase + eg * (PHASE_MAX - phase)) / PHASE_MAX;
    // A side with nothing that can cross the river cannot mate: its extra
    // advisors and elephants are worth almost nothing.
    let leader = if v > 0 { Color::Red } else { Color::Black };
    if !has_attackers(pos, leader) {
        v /= 16;
    }
    let v = match pos.side_to_move() {
        Color::Red => v,
        Color::Black => -v,
    };
    v + TEMPO
}

#[inline(always)]
fn has_attackers(pos: &Position, color: Color) -> bool {
    (pos.color_bb(color)
        & (pos.kind_bb(PieceKind::Rook)
            | pos.kind_bb(PieceKind::Knight)
            | pos.kind_bb(PieceKind::Cannon)
            | pos.kind_bb(PieceKind::Pawn)))
    .any()
}

#[inline(always)]
fn phase(pos: &Position) -> i32 {
    let rooks = pos.kind_bb(PieceKind::Rook).count() as i32;
    let minors =
        (pos.kind_bb(PieceKind::Knight).count() + pos.kind_bb(PieceKind::Cannon).count()) as i32;
    (rooks * PHASE_ROOK + minors * PHASE_MINOR).min(PHASE_MAX)
}

/// Everything `us` gains from piece activity, palace pressure and pawn
/// structure, minus what its own king's shelter lacks; (middle game, endgame).
#[inline(always)]
fn side_terms(pos: &Position, us: Color) -> (i32, i32) {
    let them = !us;
    let occ = pos.occupied();
    let own = pos.color_bb(us);
    let their_king = pos.king(them);
    let (mut mg, mut eg) = (0, 0);
    let mut minor_att = Bitboard::EMPTY;
    let mut pawn_att = Bitboard::EMPTY;

    for sq in pos.pieces(us, PieceKind::Rook) {
        let mob = (rook_attacks(sq, occ) & !own).count() as i32;
        mg += 3 * (mob - 7);
        eg += 4 * (mob - 7);
        if sq.file() == their_king.file() {
            mg += 10;
        }
    }
    for sq in pos.pieces(us, PieceKind::Knight) {
        let att = knight_attacks(sq, occ);
        minor_att |= att;
        let mob = (att & !own).count() as usize;
        let v = KNIGHT_MOBILITY[mob.min(8)];
        mg += v;
        eg += v;
    }
    for sq in pos.pieces(us, PieceKind::Cannon) {
        minor_att |= cannon_captures(sq, occ);
        let quiet = (rook_attacks(sq, occ) & !occ).count() as i32;
        mg += quiet;
        eg += quiet / 2;
        if sq.file() == their_king.file() {
            // One screen: the cannon already aims at the king ("central
            // cannon" pressure); two screens: a latent threat.
            match (between(sq, their_king) & occ).count() {
                1 => mg += 28,
                2 => mg += 8,
                _ => {}
            }
        }
    }

    for sq in pos.pieces(us, PieceKind::Pawn) {
        pawn_att |= pawn_attacks(us, sq);
    }
    let threats = threats(pos, them, minor_att, pawn_att);
    mg += threats;
    eg += threats;

    let attackers = pos.pieces(us, PieceKind::Rook)
        | pos.pieces(us, PieceKind::Knight)
        | (pos.pieces(us, PieceKind::Pawn) & PALACE_ZONE[them.index()]);
    let in_zone = (attackers & PALACE_ZONE[them.index()]).count() as i32;
    let their_defenders = (pos.pieces(them, PieceKind::Advisor).count()
        + pos.pieces(them, PieceKind::Bishop).count()) as i32;
    mg += in_zone * (8 + 4 * (4 - their_defenders));
    eg += in_zone * 6;

    // The own shelter: each missing advisor or elephant costs more the more
    // attackers the enemy still has.
    let danger = 3 * pos.pieces(them, PieceKind::Rook).count() as i32
        + 2 * (pos.pieces(them, PieceKind::Knight).count()
            + pos.pieces(them, PieceKind::Cannon).count()) as i32
        + (pos.pieces(them, PieceKind::Pawn) & PALACE_ZONE[us.index()]).count() as i32;
    let advisors = pos.pieces(us, PieceKind::Advisor).count() as i32;
    let bishops = pos.pieces(us, PieceKind::Bishop);
    mg -= (2 - advisors) * danger * 2 + (2 - bishops.count() as i32) * danger;
    eg -= (2 - advisors) * danger + (2 - bishops.count() as i32) * danger / 2;
    if bishops.count() == 2 {
        let mut pair = bishops;
        let (a, b) = (pair.pop_lsb(), pair.lsb());
        if bishop_attacks(a, occ).has(b) {
            mg += 8;
            eg += 4;
        }
    }
    let centre = Square::from_index(PALACE_CENTRE[us.index()]);
    if pos.pieces(us, PieceKind::Knight).has(centre) && pos.king(us).file().index() == 4 {
        mg -= 20;
    }

    // Pawns across the river standing side by side protect each other.
    let crossed = pos.pieces(us, PieceKind::Pawn) & !home_half(us);
    for sq in crossed {
        if sq.file().index() < 8 && crossed.has(Square::from_index(sq.index() + 1)) {
            mg += 10;
            eg += 16;
        }
    }
    (mg, eg)
}

/// What `them` stands to lose to the cheap attackers of the other side,
/// given the points its knights and cannons (`minor_att`) and pawns
/// (`pawn_att`) attack.
#[inline(always)]
fn threats(pos: &Position, them: Color, minor_att: Bitboard, pawn_att: Bitboard) -> i32 {
    let on_rooks = ((minor_att | pawn_att) & pos.pieces(them, PieceKind::Rook)).count() as i32;
    let on_minors = (pawn_att
        & (pos.pieces(them, PieceKind::Knight) | pos.pieces(them, PieceKind::Cannon)))
    .count() as i32;
    on_rooks * THREAT_ON_ROOK + on_minors * THREAT_ON_MINOR
}

#[inline]
fn home_half(color: Color) -> Bitboard {
    match color {
        Color::Red => Bitboard::RED_SIDE,
        Color::Black => Bitboard::BLACK_SIDE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(fen: &str) -> i32 {
        let pos = Position::from_fen(fen).unwrap();
        evaluate(&pos, psqt::sum(&pos))
    }

    #[test]
    fn start_position_is_balanced_but_for_tempo() {
        let v = eval(crate::board::START_FEN);
        assert_eq!(v, TEMPO);
    }

    #[test]
    fn colour_symmetry() {
        // The same position with colours swapped (and mirrored) scores the same
        // for the side to move.
        let a = "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R w - - 0 1";
        let b = "rnbakab1r/9/1c2c1n2/p1p1p1p1p/9/9/P1P1P1P1P/1C4NC1/9/RNBAKAB1R b - - 0 1";
        assert_eq!(eval(a), eval(b));
    }

    #[test]
    fn defenders_alone_cannot_win() {
        // Two advisors and two elephants against a bare king: a dead draw.
        let v = eval("3k5/9/9/9/9/9/9/9/9/2BAKAB2 w - - 0 1");
        assert!(v.abs() < 30, "{v}");
    }

    #[test]
    fn threats_count_rooks_hit_by_minors_and_minors_hit_by_pawns() {
        // Black rook on e7 in reach of the red knight on d5 and the red pawn
        // on e6; black cannon on f7 in reach of nothing red.
        let pos = Position::from_fen("3k5/9/4rc3/4P4/3N5/9/9/9/9/4K4 w - - 0 1").unwrap();
        let occ = pos.occupied();
        let knight = knight_attacks(Square::from_index(5 * 9 + 3), occ);
        let pawn = pawn_attacks(Color::Red, Square::from_index(6 * 9 + 4));
        assert!(knight.has(Square::from_index(7 * 9 + 4)));
        assert_eq!(
            threats(&pos, Color::Black, knight, Bitboard::EMPTY),
            THREAT_ON_ROOK
        );
        // Two attackers on one rook still count it once.
        assert_eq!(threats(&pos, Color::Black, knight, pawn), THREAT_ON_ROOK);
        // Against a cannon only a pawn counts.
        let on_cannon = Bitboard::from_square(Square::from_index(7 * 9 + 5));
        assert_eq!(threats(&pos, Color::Black, on_cannon, Bitboard::EMPTY), 0);
        assert_eq!(
            threats(&pos, Color::Black, Bitboard::EMPTY, on_cannon),
            THREAT_ON_MINOR
        );
    }

    #[test]
    fn extra_rook_is_winning() {
        let v = eval("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1");
        assert!(v > 150, "{v}");
        let v = eval("3k5/9/9/9/9/9/9/9/9/R3K4 b - - 0 1");
        assert!(v < -150, "{v}");
    }
}
