//! Zobrist hashing keys, generated at compile time from a fixed seed so that
//! keys (and so the bench signature) are the same on every build.

use super::types::{Piece, Square};
use crate::rng::splitmix64;

const fn build_keys() -> ([[u64; 90]; 14], u64) {
    let mut keys = [[0u64; 90]; 14];
    let mut state = 0x6368_7568_6520_6b65u64; // "chuhe ke"
    let mut p = 0;
    while p < 14 {
        let mut s = 0;
        while s < 90 {
            let (ns, k) = splitmix64(state);
            state = ns;
            keys[p][s] = k;
            s += 1;
        }
        p += 1;
    }
    let (_, side) = splitmix64(state);
    (keys, side)
}

const KEYS: ([[u64; 90]; 14], u64) = build_keys();
static PIECE_SQUARE: [[u64; 90]; 14] = KEYS.0;

/// Xor-ed in when Black is to move.
pub const SIDE: u64 = KEYS.1;

#[inline]
pub fn piece_square(piece: Piece, sq: Square) -> u64 {
    PIECE_SQUARE[piece.index()][sq.index()]
}
