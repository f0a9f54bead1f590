//! Material and piece-square values, packed as (middle game, endgame) pairs
//! in one `i32` so that the evaluator can keep their sum incrementally,
//! one add per piece a move moves, takes or puts down.
//!
//! Tables are written from Red's side (rank 0 is the own back rank); Black
//! reads them rank-mirrored and with the sign flipped, so the position's sum
//! is always from Red's point of view.

use crate::board::{Move, Piece, PieceKind, Position, Square};

/// A (middle game, endgame) pair packed in one integer: the endgame half in
/// the low 16 bits, the middle-game half above it, both signed.
pub type Packed = i32;

#[inline]
pub const fn pack(mg: i32, eg: i32) -> Packed {
    (mg << 16).wrapping_add(eg)
}

#[inline]
pub const fn mg(s: Packed) -> i32 {
    (s.wrapping_add(0x8000)) >> 16
}

#[inline]
pub const fn eg(s: Packed) -> i32 {
    s as i16 as i32
}

/// Material in centipawns, a knight or cannon about 100 in the middle game.
/// Cannons lose power as the board empties (fewer screens); knights gain it.
pub const VALUE_MG: [i32; 7] = [0, 40, 40, 100, 225, 105, 20];
pub const VALUE_EG: [i32; 7] = [0, 40, 40, 110, 235, 95, 25];

/// Rough exchange values, used by SEE and move ordering.
pub const SEE_VALUE: [i32; 7] = [10000, 40, 40, 100, 225, 100, 25];

const fn abs(x: i32) -> i32 {
    if x < 0 {
        -x
    } else {
        x
    }
}

/// Positional bonus for a Red piece of `kind` on file `f`, rank `r`.
const fn bonus(kind: PieceKind, f: i32, r: i32) -> (i32, i32) {
    let centre = 4 - abs(f - 4); // 0 on the edge, 4 in the middle file
    match kind {
        PieceKind::King => {
            // The king belongs on its back rank centre: stepping up exposes it
            // to rooks and cannons; in the endgame it may help more freely.
            let mg = -12 * r - 8 * abs(f - 4);
            let eg = -4 * r - 3 * abs(f - 4);
            (mg, eg)
        }
        PieceKind::Advisor => {
            if f == 4 && r == 1 {
                (6, 4)
            } else {
                (0, 0)
            }
        }
        PieceKind::Bishop => {
            if f == 4 && r == 2 {
                (6, 4)
            } else if f == 0 || f == 8 {
                (-4, -2)
            } else {
                (0, 0)
            }
        }
        PieceKind::Knight => {
            // Knights want to advance towards the enemy palace and hate the edge.
            let adv = match r {
                0 => -12,
                1 => -6,
                2 => 0,
                3 => 4,
                4 => 8,
                5 => 12,
                6 => 16,
                7 => 18,
                8 => 14,
                _ => 0,
            };
            let mut mg = adv + 3 * centre;
            if f == 0 || f == 8 {
                mg -= 10;
            }
            // The "horse at the trough" points beside the enemy palace.
            if (r == 7 && (f == 2 || f == 6)) || (r == 8 && (f == 3 || f == 5)) {
                mg += 12;
            }
            (mg, mg / 2 + 2 * centre)
        }
        PieceKind::Rook => {
            let mut mg = match r {
                0 => -6,
                5 | 6 => 6,
                7 => 10,
                8 => 8,
                _ => 0,
            };
            // Rib files beside the palace are natural attacking lines.
            if f == 3 || f == 5 {
                mg += 6;
            }
            if f == 4 {
                mg += 2;
            }
            (mg, mg / 2)
        }
        PieceKind::Cannon => {
            let mut mg = 0;
            if f == 4 {
                mg += 14;
            }
            if r == 9 {
                mg += 8; // bottom cannon pins the back rank
            }
            if r == 7 && f >= 3 && f <= 5 {
                mg += 6;
            }
            if r >= 3 && r <= 6 {
                mg += 3;
            }
            (mg, 0)
        }
        PieceKind::Pawn => {
            if r < 5 {
                // Not yet across the river: only the central and the two
                // mobile edge pawns matter a little.
                let mg = if r == 4 && f == 4 { 6 } else { 0 };
                (mg, 0)
            } else {
                // Across the river a pawn gains its sideways step and grows
                // towards the palace; on the last rank it can no longer advance.
                let rank_bonus = match r {
                    5 => 0,
                    6 => 10,
                    7 => 16,
                    8 => 12,
                    _ => -10,
                };
                let palace = if f >= 3 && f <= 5 && r >= 6 && r <= 8 {
                    10
                } else {
                    0
                };
                let mg = 24 + rank_bonus + 4 * centre + palace;
                let eg = 34 + rank_bonus + 3 * centre + palace;
                (mg, eg)
            }
        }
    }
}

const fn build() -> [[Packed; 90]; 14] {
    let mut t = [[0; 90]; 14];
    let mut k = 0;
    while k < 7 {
        let kind = PieceKind::ALL[k];
        let mut sq = 0;
        while sq < 90 {
            let (f, r) = ((sq % 9) as i32, (sq / 9) as i32);
            let (bm, be) = bonus(kind, f, r);
            let v = pack(VALUE_MG[k] + bm, VALUE_EG[k] + be);
            t[k][sq] = v;
            // Black's piece on the rank-mirrored square, counted against Red.
            let black_sq = (9 - r as usize) * 9 + f as usize;
            t[7 + k][black_sq] = pack(-(VALUE_MG[k] + bm), -(VALUE_EG[k] + be));
            sq += 1;
        }
        k += 1;
    }
    t
}

static PSQ: [[Packed; 90]; 14] = build();

/// The packed value of `piece` on `sq`, from Red's point of view.
#[inline(always)]
pub fn psq(piece: Piece, sq: Square) -> Packed {
    PSQ[piece.index()][sq.index()]
}

/// The packed sum over every piece of `pos`, from Red's point of view.
pub fn sum(pos: &Position) -> Packed {
    pos.occupied()
        .map(|sq| psq(pos.piece_at(sq).expect("occupied square has a piece"), sq))
        .fold(0, |a, v| a.wrapping_add(v))
}

/// How `mv` (to be played in `pos`) changes the sum.
#[inline(always)]
pub fn delta(pos: &Position, mv: Move) -> Packed {
    let (from, to) = (mv.from(), mv.to());
    let mut d = 0;
    if let Some(p) = pos.piece_at(from) {
        d = psq(p, to).wrapping_sub(psq(p, from));
    }
    if let Some(c) = pos.piece_at(to) {
        d = d.wrapping_sub(psq(c, to));
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Color;

    #[test]
    fn packing_round_trips_signed_halves() {
        for (a, b) in [(0, 0), (100, -30), (-250, 17), (-5, -5), (3000, -3000)] {
            let p = pack(a, b);
            assert_eq!((mg(p), eg(p)), (a, b));
            assert_eq!(mg(p + pack(1, -1)), a + 1);
        }
    }

    #[test]
    fn black_mirrors_red() {
        for kind in PieceKind::ALL {
            for sq in Square::all() {
                let r = psq(Piece::new(Color::Red, kind), sq);
                let b = psq(Piece::new(Color::Black, kind), sq.flip_rank());
                assert_eq!(r, -b, "{kind:?} {sq}");
            }
        }
    }
}
