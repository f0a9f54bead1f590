//! Small `Copy` value types of the board: colours, files, ranks, squares,
//! piece kinds, pieces and moves. Every one parses from and prints to the
//! text form the protocols use.

use std::fmt;
use std::str::FromStr;

/// An error from parsing one of the small board types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    what: &'static str,
    text: String,
}

impl ParseError {
    pub(crate) fn new(what: &'static str, text: &str) -> Self {
        ParseError {
            what,
            text: text.to_string(),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "'{}' is not a valid {}", self.text, self.what)
    }
}

impl std::error::Error for ParseError {}

/// Red moves first and sits on ranks 0-4; Black on ranks 5-9.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    Red = 0,
    Black = 1,
}

impl Color {
    pub const ALL: [Color; 2] = [Color::Red, Color::Black];

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    #[inline]
    pub const fn flip(self) -> Color {
        match self {
            Color::Red => Color::Black,
            Color::Black => Color::Red,
        }
    }
}

impl std::ops::Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        self.flip()
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::Red => "w",
            Color::Black => "b",
        })
    }
}

impl FromStr for Color {
    type Err = ParseError;
    /// FEN spells Red `w` (chess habit) or `r`; Black is `b`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "w" | "r" | "W" | "R" | "red" => Ok(Color::Red),
            "b" | "B" | "black" => Ok(Color::Black),
            _ => Err(ParseError::new("side to move (w, r or b)", s)),
        }
    }
}

/// A file `a`..`i`, left to right from Red's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct File(u8);

impl File {
    pub const COUNT: usize = 9;

    #[inline]
    pub const fn new(index: u8) -> Option<File> {
        if index < 9 {
            Some(File(index))
        } else {
            None
        }
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for File {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", (b'a' + self.0) as char)
    }
}

impl FromStr for File {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.as_bytes() {
            [c @ b'a'..=b'i'] => Ok(File(c - b'a')),
            _ => Err(ParseError::new("file (a-i)", s)),
        }
    }
}

/// A rank `0`..`9`, from Red's back rank to Black's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rank(u8);

impl Rank {
    pub const COUNT: usize = 10;

    #[inline]
    pub const fn new(index: u8) -> Option<Rank> {
        if index < 10 {
            Some(Rank(index))
        } else {
            None
        }
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl FromStr for Rank {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.as_bytes() {
            [c @ b'0'..=b'9'] => Ok(Rank(c - b'0')),
            _ => Err(ParseError::new("rank (0-9)", s)),
        }
    }
}

/// One of the 90 points, numbered `rank * 9 + file` so that a0 is 0 and i9 is 89.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    pub const COUNT: usize = 90;

    #[inline]
    pub const fn new(index: u8) -> Option<Square> {
        if index < 90 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// # Safety-free contract
    /// `index` must be below 90; checked in debug builds only because this is
    /// on the move generator's hot path.
    #[inline]
    pub const fn from_index(index: usize) -> Square {
        debug_assert!(index < 90);
        Square(index as u8)
    }

    #[inline]
    pub const fn from_coords(file: File, rank: Rank) -> Square {
        Square(rank.0 * 9 + file.0)
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    #[inline]
    pub const fn file(self) -> File {
        File(self.0 % 9)
    }

    #[inline]
    pub const fn rank(self) -> Rank {
        Rank(self.0 / 9)
    }

    /// The square seen from the other side of the board (rank mirrored),
    /// used to share piece-square tables between the colours.
    #[inline]
    pub const fn flip_rank(self) -> Square {
        Square((9 - self.0 / 9) * 9 + self.0 % 9)
    }

    /// The square mirrored left-right.
    #[inline]
    pub const fn flip_file(self) -> Square {
        Square((self.0 / 9) * 9 + (8 - self.0 % 9))
    }

    /// Step by (file, rank) deltas; `None` off the board.
    #[inline]
    pub const fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let f = (self.0 % 9) as i8 + df;
        let r = (self.0 / 9) as i8 + dr;
        if f >= 0 && f < 9 && r >= 0 && r < 10 {
            Some(Square((r * 9 + f) as u8))
        } else {
            None
        }
    }

    /// Iterates a0, b0, ..., i9.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..90u8).map(Square)
    }

    /// Whether the square is on `color`'s half of the river.
    #[inline]
    pub const fn on_own_side(self, color: Color) -> bool {
        match color {
            Color::Red => self.0 < 45,
            Color::Black => self.0 >= 45,
        }
    }

    /// Whether the square lies in `color`'s palace (files d-f, three back ranks).
    #[inline]
    pub const fn in_palace(self, color: Color) -> bool {
        let f = self.0 % 9;
        let r = self.0 / 9;
        f >= 3
            && f <= 5
            && match color {
                Color::Red => r <= 2,
                Color::Black => r >= 7,
            }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file(), self.rank())
    }
}

impl FromStr for Square {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let b = s.as_bytes();
        match b {
            [f @ b'a'..=b'i', r @ b'0'..=b'9'] => Ok(Square((r - b'0') * 9 + (f - b'a'))),
            _ => Err(ParseError::new("square (a0-i9)", s)),
        }
    }
}

/// The seven kinds of piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PieceKind {
    King = 0,
    Advisor = 1,
    Bishop = 2,
    Knight = 3,
    Rook = 4,
    Cannon = 5,
    Pawn = 6,
}

impl PieceKind {
    pub const ALL: [PieceKind; 7] = [
        PieceKind::King,
        PieceKind::Advisor,
        PieceKind::Bishop,
        PieceKind::Knight,
        PieceKind::Rook,
        PieceKind::Cannon,
        PieceKind::Pawn,
    ];

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    #[inline]
    pub const fn from_index(i: usize) -> PieceKind {
        Self::ALL[i]
    }

    /// How many of this kind one side starts with; a FEN may hold no more.
    pub const fn max_count(self) -> u32 {
        match self {
            PieceKind::King => 1,
            PieceKind::Pawn => 5,
            _ => 2,
        }
    }

    /// The upper-case FEN letter (Red's spelling).
    pub const fn letter(self) -> char {
        match self {
            PieceKind::King => 'K',
            PieceKind::Advisor => 'A',
            PieceKind::Bishop => 'B',
            PieceKind::Knight => 'N',
            PieceKind::Rook => 'R',
            PieceKind::Cannon => 'C',
            PieceKind::Pawn => 'P',
        }
    }

    /// Reads a FEN letter of either case; also the GUI spellings E (elephant)
    /// and H (horse).
    pub fn from_letter(c: char) -> Option<PieceKind> {
        Some(match c.to_ascii_uppercase() {
            'K' => PieceKind::King,
            'A' => PieceKind::Advisor,
            'B' | 'E' => PieceKind::Bishop,
            'N' | 'H' => PieceKind::Knight,
            'R' => PieceKind::Rook,
            'C' => PieceKind::Cannon,
            'P' => PieceKind::Pawn,
            _ => return None,
        })
    }
}

/// A coloured piece, packed as `color * 7 + kind` (0..14).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Piece(u8);

impl Piece {
    pub const COUNT: usize = 14;

    #[inline]
    pub const fn new(color: Color, kind: PieceKind) -> Piece {
        Piece(color as u8 * 7 + kind as u8)
    }

    #[inline]
    pub const fn color(self) -> Color {
        if self.0 < 7 {
            Color::Red
        } else {
            Color::Black
        }
    }

    #[inline]
    pub const fn kind(self) -> PieceKind {
        // A table rather than `% 7`: asked at every step of move making,
        // ordering and exchange evaluation, where the division showed up.
        const KIND: [PieceKind; 16] = {
            let mut t = [PieceKind::King; 16];
            let mut i = 0;
            while i < 14 {
                t[i] = PieceKind::ALL[i % 7];
                i += 1;
            }
            t
        };
        KIND[(self.0 & 15) as usize]
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    #[inline]
    pub const fn from_index(i: usize) -> Piece {
        debug_assert!(i < 14);
        Piece(i as u8)
    }

    /// FEN letter: upper case for Red, lower case for Black.
    pub const fn letter(self) -> char {
        let c = self.kind().letter();
        match self.color() {
            Color::Red => c,
            Color::Black => c.to_ascii_lowercase(),
        }
    }

    pub fn from_letter(c: char) -> Option<Piece> {
        let kind = PieceKind::from_letter(c)?;
        let color = if c.is_ascii_uppercase() {
            Color::Red
        } else {
            Color::Black
        };
        Some(Piece::new(color, kind))
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// A move from one square to another, packed in 16 bits (7 bits each).
/// Xiangqi has no promotion, castling or en passant, so that is all a move is.
/// The all-zero value `a0a0` never occurs as a real move and serves as "none".
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Move(u16);

impl Move {
    pub const NONE: Move = Move(0);

    #[inline]
    pub const fn new(from: Square, to: Square) -> Move {
        Move(from.0 as u16 | (to.0 as u16) << 7)
    }

    #[inline]
    pub const fn from(self) -> Square {
        Square((self.0 & 0x7f) as u8)
    }

    #[inline]
    pub const fn to(self) -> Square {
        Square((self.0 >> 7) as u8)
    }

    #[inline]
    pub const fn is_none(self) -> bool {
        self.0 == 0
    }

    /// The raw 16 bits, for transposition-table storage.
    #[inline]
    pub const fn raw(self) -> u16 {
        self.0
    }

    /// Rebuilds a move from `raw()`; returns `None` when the bits name no square pair.
    pub const fn from_raw(raw: u16) -> Option<Move> {
        let from = raw & 0x7f;
        let to = (raw >> 7) & 0x7f;
        if from < 90 && to < 90 && raw >> 14 == 0 {
            Some(Move(raw))
        } else {
            None
        }
    }
}

impl fmt::Display for Move {
    /// ICCS coordinates, `h2e2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from(), self.to())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self)
    }
}

impl FromStr for Move {
    type Err = ParseError;
    /// Reads ICCS coordinates (`h2e2`); upper-case files (`H2-E2` in old
    /// records) are accepted, with or without the dash.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        // One dash, between the squares, and nowhere else: `-h2e2` or
        // `h2e-2` are not moves (the fuzzer found them read as h2e2).
        let lower = s.to_ascii_lowercase();
        let cleaned = match lower.split_once('-') {
            Some((a, b)) if a.len() == 2 && b.len() == 2 => format!("{a}{b}"),
            Some(_) => return Err(ParseError::new("move (like h2e2)", s)),
            None => lower,
        };
        if cleaned.len() != 4 || !cleaned.is_ascii() {
            return Err(ParseError::new("move (like h2e2)", s));
        }
        let from: Square = cleaned[0..2]
            .parse()
            .map_err(|_| ParseError::new("move (like h2e2)", s))?;
        let to: Square = cleaned[2..4]
            .parse()
            .map_err(|_| ParseError::new("move (like h2e2)", s))?;
        if from == to {
            return Err(ParseError::new("move (from and to differ)", s));
        }
        Ok(Move::new(from, to))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_round_trip() {
        for sq in Square::all() {
            let text = sq.to_string();
            assert_eq!(text.parse::<Square>().unwrap(), sq);
        }
        assert_eq!("a0".parse::<Square>().unwrap().index(), 0);
        assert_eq!("i9".parse::<Square>().unwrap().index(), 89);
        assert!("j0".parse::<Square>().is_err());
        assert!("a10".parse::<Square>().is_err());
    }

    #[test]
    fn move_round_trip() {
        let m: Move = "h2e2".parse().unwrap();
        assert_eq!(m.to_string(), "h2e2");
        assert_eq!(Move::from_raw(m.raw()), Some(m));
        assert!("h2h2".parse::<Move>().is_err());
        assert!("zz".parse::<Move>().is_err());
        assert!("h2e2x".parse::<Move>().is_err());
        assert_eq!("H2-E2".parse::<Move>().unwrap(), m);
        assert_eq!("h2-e2".parse::<Move>().unwrap(), m);
        for bad in ["-h2e2", "h2e2-", "h2e-2", "h-2e2", "h2--e2", "h2-e2-"] {
            assert!(bad.parse::<Move>().is_err(), "{bad}");
        }
    }

    #[test]
    fn piece_letters() {
        for i in 0..14 {
            let p = Piece::from_index(i);
            assert_eq!(Piece::from_letter(p.letter()), Some(p));
        }
        assert_eq!(
            Piece::from_letter('E'),
            Some(Piece::new(Color::Red, PieceKind::Bishop))
        );
        assert_eq!(
            Piece::from_letter('h'),
            Some(Piece::new(Color::Black, PieceKind::Knight))
        );
        assert_eq!(Piece::from_letter('x'), None);
    }

    #[test]
    fn palace_and_river() {
        let e0: Square = "e0".parse().unwrap();
        assert!(e0.in_palace(Color::Red));
        assert!(!e0.in_palace(Color::Black));
        assert!("d9".parse::<Square>().unwrap().in_palace(Color::Black));
        assert!(!"c9".parse::<Square>().unwrap().in_palace(Color::Black));
        assert!("a4".parse::<Square>().unwrap().on_own_side(Color::Red));
        assert!(!"a5".parse::<Square>().unwrap().on_own_side(Color::Red));
    }
}
