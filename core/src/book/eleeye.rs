//! ElephantEye's position keys and its `BOOK.DAT` format, as ElephantEye
//! itself reads them (facts from its `book.cpp`, `position.cpp`,
//! `pregen.cpp` and `base/rc4prng.h`; the code here is our own).
//!
//! **Keys.** ElephantEye draws its Zobrist table from an RC4 keystream whose
//! key is four zero bytes. Each 32-bit number is four keystream bytes, the
//! first the lowest (little-endian). A Zobrist entry is three numbers in the
//! order `key`, `lock0`, `lock1`. The entry for "Black to move" comes first,
//! then one for each of 14 piece codes (Red king, advisor, bishop, knight,
//! rook, cannon, pawn = 0..6, Black's the same plus 7) times each of 256
//! squares of its 16x16 board, square = `y * 16 + x` with files a..i at
//! x = 3..11 and ranks 9..0 (Black's back rank first) at y = 3..12. A
//! position's entry is the xor of its pieces' entries, and of the side entry
//! when Black is to move.
//!
//! **BOOK.DAT** is a flat array of 8-byte little-endian records sorted by
//! `lock1` (unsigned): `u32 lock1`, `u16 move`, `u16 weight`. A move is
//! `from + 256 * to` in the 16x16 squares above. ElephantEye looks a position
//! up by binary search on `lock1`; if no record has it, it mirrors the
//! position left-right and looks that up, mirroring the moves it finds back
//! (the book stores one of each mirrored pair). Of the records found it keeps
//! the moves legal in the position, with their weights. The file's length
//! divided by 8 is its record count.

use crate::board::{Color, File, Move, Position, Rank, Square};
use once_cell::sync::Lazy;

/// The RC4 keystream generator, keyed as ElephantEye keys it.
struct Rc4 {
    s: [u8; 256],
    x: u8,
    y: u8,
}

impl Rc4 {
    fn new(key: &[u8]) -> Rc4 {
        let mut s = [0u8; 256];
        for (i, v) in s.iter_mut().enumerate() {
            *v = i as u8;
        }
        let mut j = 0u8;
        for i in 0..256 {
            j = j.wrapping_add(s[i]).wrapping_add(key[i % key.len()]);
            s.swap(i, j as usize);
        }
        Rc4 { s, x: 0, y: 0 }
    }

    fn next_byte(&mut self) -> u8 {
        self.x = self.x.wrapping_add(1);
        self.y = self.y.wrapping_add(self.s[self.x as usize]);
        self.s.swap(self.x as usize, self.y as usize);
        let t = self.s[self.x as usize].wrapping_add(self.s[self.y as usize]);
        self.s[t as usize]
    }

    fn next_u32(&mut self) -> u32 {
        u32::from_le_bytes([
            self.next_byte(),
            self.next_byte(),
            self.next_byte(),
            self.next_byte(),
        ])
    }
}

/// The two locks of one Zobrist entry (ElephantEye's `key` is not needed).
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Locks {
    pub lock0: u32,
    pub lock1: u32,
}

impl Locks {
    fn xor(&mut self, o: Locks) {
        self.lock0 ^= o.lock0;
        self.lock1 ^= o.lock1;
    }
}

struct Tables {
    side: Locks,
    /// [piece code 0..14][our square 0..90]
    pieces: [[Locks; 90]; 14],
}

static TABLES: Lazy<Box<Tables>> = Lazy::new(|| {
    let mut rc4 = Rc4::new(&[0, 0, 0, 0]);
    let mut draw = || {
        let _key = rc4.next_u32();
        let lock0 = rc4.next_u32();
        let lock1 = rc4.next_u32();
        Locks { lock0, lock1 }
    };
    let side = draw();
    let mut pieces = [[Locks::default(); 90]; 14];
    for table in pieces.iter_mut() {
        for sq in 0..256usize {
            let locks = draw();
            if let Some(ours) = from_ee_square(sq) {
                table[ours.index()] = locks;
            }
        }
    }
    Box::new(Tables { side, pieces })
});

/// Our square for one of ElephantEye's 16x16 squares (None: off the board).
pub fn from_ee_square(sq: usize) -> Option<Square> {
    let (x, y) = (sq & 15, sq >> 4);
    if !(3..=11).contains(&x) || !(3..=12).contains(&y) {
        return None;
    }
    Some(Square::from_coords(
        File::new((x - 3) as u8)?,
        Rank::new((12 - y) as u8)?,
    ))
}

/// ElephantEye's 16x16 square for one of ours.
pub fn to_ee_square(sq: Square) -> u16 {
    let x = sq.file().index() as u16 + 3;
    let y = 12 - sq.rank().index() as u16;
    y * 16 + x
}

/// A move in BOOK.DAT's encoding.
pub fn encode_move(mv: Move) -> u16 {
    to_ee_square(mv.from()) | to_ee_square(mv.to()) << 8
}

/// A BOOK.DAT move as ours (None: a square off the board).
pub fn decode_move(raw: u16) -> Option<Move> {
    let from = from_ee_square((raw & 0xff) as usize)?;
    let to = from_ee_square((raw >> 8) as usize)?;
    (from != to).then(|| Move::new(from, to))
}

/// The move mirrored left-right.
pub fn mirror_move(mv: Move) -> Move {
    Move::new(mv.from().flip_file(), mv.to().flip_file())
}

/// ElephantEye's locks of the position, or of its left-right mirror image.
pub fn locks(pos: &Position, mirrored: bool) -> Locks {
    let t = &**TABLES;
    let mut l = Locks::default();
    for sq in Square::all() {
        if let Some(p) = pos.piece_at(sq) {
            let code = p.kind().index() + if p.color() == Color::Black { 7 } else { 0 };
            let sq = if mirrored { sq.flip_file() } else { sq };
            l.xor(t.pieces[code][sq.index()]);
        }
    }
    if pos.side_to_move() == Color::Black {
        l.xor(t.side);
    }
    l
}

/// The key BOOK.DAT sorts and searches by.
pub fn book_key(pos: &Position, mirrored: bool) -> u32 {
    locks(pos, mirrored).lock1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_round_trip() {
        for sq in Square::all() {
            assert_eq!(from_ee_square(to_ee_square(sq) as usize), Some(sq));
        }
        assert_eq!(from_ee_square(0), None);
        assert_eq!(from_ee_square(0x33 - 1), None);
        // ElephantEye's a9 is its first board square, i0 its last.
        assert_eq!(to_ee_square("a9".parse().unwrap()), 0x33);
        assert_eq!(to_ee_square("i0".parse().unwrap()), 0xcb);
    }

    #[test]
    fn moves_encode_and_mirror() {
        let mv: Move = "h2e2".parse().unwrap();
        let raw = encode_move(mv);
        assert_eq!(raw & 0xff, 0xaa); // h2: x = 10, y = 10
        assert_eq!(decode_move(raw), Some(mv));
        assert_eq!(mirror_move(mv).to_string(), "b2e2");
        assert_eq!(decode_move(0), None);
    }

    /// ElephantEye's own BOOK.DAT (xqbase/eleeye, not in this repository)
    /// files the start position's moves (h2e2 weight 1473, ...) under this
    /// lock1 (16 records from byte 3816); checked there, pinned here.
    #[test]
    fn start_position_key_is_elephanteyes() {
        assert_eq!(book_key(&Position::startpos(), false), 0x0526_56d5);
    }

    #[test]
    fn mirrored_positions_share_keys() {
        let a = Position::from_fen("3k5/9/9/9/9/9/9/2C6/9/4K4 w - - 0 1").unwrap();
        let b = Position::from_fen("5k3/9/9/9/9/9/9/6C2/9/4K4 w - - 0 1").unwrap();
        assert_eq!(locks(&a, true), locks(&b, false));
        assert_ne!(locks(&a, false), locks(&b, false));
        // The side to move is part of the key.
        let c = Position::from_fen("3k5/9/9/9/9/9/9/2C6/9/4K4 b - - 0 1").unwrap();
        assert_ne!(book_key(&a, false), book_key(&c, false));
        // The start position is symmetric.
        let s = Position::startpos();
        assert_eq!(locks(&s, true), locks(&s, false));
    }
}
