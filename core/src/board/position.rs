//! The position: pieces on the board, side to move, Zobrist key, the ply
//! counter of FEN field 5, and the stack of what each move changed, so that
//! moves can be unmade and the repetition judge can walk back through the game.

use super::attacks::*;
use super::bitboard::Bitboard;
use super::types::{Color, Move, Piece, PieceKind, Square};
use super::zobrist;
use std::fmt;
use std::str::FromStr;

pub const START_FEN: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

const NO_PIECE: u8 = 14;

/// Why a FEN was refused. Every variant names the problem in its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FenError {
    Empty,
    /// The board field does not have ten ranks.
    RankCount(usize),
    /// A rank does not add up to nine files (rank number as printed, 9 first).
    FileCount {
        rank: u8,
        files: usize,
    },
    UnknownPiece(char),
    MissingKing(Color),
    TooManyKings(Color),
    TooMany {
        piece: Piece,
        count: u32,
    },
    OutOfPlace {
        piece: Piece,
        square: Square,
    },
    KingsFacing,
    /// The side that just moved is still in check.
    OpponentInCheck,
    BadSide(String),
    BadCounter(String),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use FenError::*;
        match self {
            Empty => write!(f, "empty FEN"),
            RankCount(n) => write!(f, "the board has {n} ranks, expected 10"),
            FileCount { rank, files } => {
                write!(f, "rank {rank} has {files} files, expected 9")
            }
            UnknownPiece(c) => write!(f, "unknown piece letter '{c}'"),
            MissingKing(c) => write!(f, "{} has no king", color_name(*c)),
            TooManyKings(c) => write!(f, "{} has more than one king", color_name(*c)),
            TooMany { piece, count } => write!(
                f,
                "{} pieces '{}' on the board, at most {} allowed",
                count,
                piece,
                piece.kind().max_count()
            ),
            OutOfPlace { piece, square } => {
                let why = match piece.kind() {
                    PieceKind::King | PieceKind::Advisor => "outside its palace",
                    PieceKind::Bishop => "off the elephant's seven points",
                    _ => "behind its starting rank",
                };
                write!(f, "piece '{piece}' on {square} is {why}")
            }
            KingsFacing => write!(f, "the kings face each other on an open file"),
            OpponentInCheck => write!(f, "the side not to move is in check"),
            BadSide(s) => write!(f, "side to move '{s}' must be w, r or b"),
            BadCounter(s) => write!(f, "move counter '{s}' is not a number"),
        }
    }
}

impl std::error::Error for FenError {}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::Red => "Red",
        Color::Black => "Black",
    }
}

/// The pieces of the side to move that could uncover a check on the enemy
/// king by moving, and the empty points where a piece would screen one of its
/// cannons against it (`Position::check_info`).
#[derive(Clone, Copy, Debug)]
pub struct CheckInfo {
    king: Square,
    discoverers: Bitboard,
    screen_points: Bitboard,
    /// A check already stands against the side not to move: no legal game
    /// gets there, so every move is left to the full test.
    unusual: bool,
}

/// What a move changed, kept so it can be unmade and so the game can be read back.
#[derive(Clone, Copy, Debug)]
pub struct Undo {
    pub mv: Move,
    /// The piece taken, if any.
    pub captured: Option<Piece>,
    /// The key of the position before the move.
    pub key: u64,
    /// The FEN-5 ply counter before the move.
    pub halfmove: u16,
    /// The checking plies of each side in the capture-free stretch before the move.
    pub stretch_checks: [u16; 2],
    /// Whether the side to move was in check before the move.
    pub in_check: bool,
}

#[derive(Clone)]
pub struct Position {
    board: [u8; 90],
    by_color: [Bitboard; 2],
    by_kind: [Bitboard; 7],
    side: Color,
    key: u64,
    /// Plies since the last capture (FEN field 5).
    halfmove: u16,
    /// Full-move number (FEN field 6), kept only for printing. Read as a u16
    /// but kept wider, so that moves made from a FEN's 65535 cannot saturate
    /// the count and leave unmake a move short.
    fullmove: u32,
    /// Checking plies of each side (by the mover's colour) since the last
    /// capture, within the recorded history: the natural limit counts at most
    /// ten of them per side, and keeping them here makes that test O(1).
    stretch_checks: [u16; 2],
    /// Whether the side to move is in check, worked out once per move: the
    /// move generator, the search and the natural-limit count all ask.
    check: bool,
    history: Vec<Undo>,
}

impl Default for Position {
    fn default() -> Self {
        Position::startpos()
    }
}

impl Position {
    pub fn startpos() -> Position {
        START_FEN.parse().expect("start FEN is valid")
    }

    fn empty() -> Position {
        Position {
            board: [NO_PIECE; 90],
            by_color: [Bitboard::EMPTY; 2],
            by_kind: [Bitboard::EMPTY; 7],
            side: Color::Red,
            key: 0,
            halfmove: 0,
            fullmove: 1,
            stretch_checks: [0; 2],
            check: false,
            history: Vec::with_capacity(256),
        }
    }

    /// Parses a FEN; fields after the side to move are optional.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let mut fields = fen.split_whitespace();
        let board = fields.next().ok_or(FenError::Empty)?;
        let mut pos = Position::empty();

        let ranks: Vec<&str> = board.split('/').collect();
        if ranks.len() != 10 {
            return Err(FenError::RankCount(ranks.len()));
        }
        for (i, text) in ranks.iter().enumerate() {
            let rank = 9 - i as u8;
            let mut file = 0usize;
            for c in text.chars() {
                if let Some(d) = c.to_digit(10) {
                    file += d as usize;
                } else {
                    let piece = Piece::from_letter(c).ok_or(FenError::UnknownPiece(c))?;
                    if file < 9 {
                        pos.put(piece, Square::from_index(rank as usize * 9 + file));
                    }
                    file += 1;
                }
            }
            if file != 9 {
                return Err(FenError::FileCount { rank, files: file });
            }
        }

        if let Some(side) = fields.next() {
            pos.side = side
                .parse()
                .map_err(|_| FenError::BadSide(side.to_string()))?;
            if pos.side == Color::Black {
                pos.key ^= zobrist::SIDE;
            }
        }
        // Fields 3 and 4 are chess leftovers ("- -") that xiangqi never uses.
        // XBoard leaves them out (`... b 0 1`), so they are skipped only
        // while they are not the move counters that follow them.
        let mut fields = fields.peekable();
        for _ in 0..2 {
            if fields.next_if(|f| f.parse::<u32>().is_err()).is_none() {
                break;
            }
        }
        if let Some(hm) = fields.next() {
            pos.halfmove = hm
                .parse()
                .map_err(|_| FenError::BadCounter(hm.to_string()))?;
        }
        if let Some(fm) = fields.next() {
            pos.fullmove = fm
                .parse::<u16>()
                .map(u32::from)
                .map_err(|_| FenError::BadCounter(fm.to_string()))?;
            pos.fullmove = pos.fullmove.max(1);
        }
        pos.validate()?;
        pos.check = pos.checkers().any();
        Ok(pos)
    }

    /// Checks that the pieces could stand like this in a real game.
    fn validate(&self) -> Result<(), FenError> {
        for color in Color::ALL {
            let kings = self.pieces(color, PieceKind::King).count();
            if kings == 0 {
                return Err(FenError::MissingKing(color));
            }
            if kings > 1 {
                return Err(FenError::TooManyKings(color));
            }
            for kind in PieceKind::ALL {
                let piece = Piece::new(color, kind);
                let bb = self.pieces(color, kind);
                if bb.count() > kind.max_count() {
                    return Err(FenError::TooMany {
                        piece,
                        count: bb.count(),
                    });
                }
                for sq in bb {
                    if !legal_square(piece, sq) {
                        return Err(FenError::OutOfPlace { piece, square: sq });
                    }
                }
            }
        }
        let (rk, bk) = (self.king(Color::Red), self.king(Color::Black));
        if rk.file() == bk.file() && (between(rk, bk) & self.occupied()).is_empty() {
            return Err(FenError::KingsFacing);
        }
        if self.checkers_of(self.side).any() {
            return Err(FenError::OpponentInCheck);
        }
        Ok(())
    }

    /// The same position with the colours swapped: the board turned over
    /// (ranks reversed, files kept), Red's pieces made Black's and back,
    /// the other side to move. A symmetric evaluation or rules verdict must
    /// treat the two alike. The history is not carried over.
    pub fn colour_flipped(&self) -> Position {
        Position::from_fen(&flip_colours_fen(&self.fen()))
            .expect("the colour-flipped twin of a legal position is legal")
    }

    /// The ranks of a diagram, rank 9 first: the rank's number and its
    /// squares from file a, each a piece letter (upper case for Red) or
    /// `.`, separated by spaces. Shared by `{:?}` and the protocols' `d`.
    pub fn diagram_rows(&self) -> impl Iterator<Item = (usize, String)> + '_ {
        (0..10).rev().map(move |rank| {
            let letters: Vec<String> = (0..9)
                .map(|file| {
                    self.piece_at(Square::from_index(rank * 9 + file))
                        .map_or('.', |p| p.letter())
                        .to_string()
                })
                .collect();
            (rank, letters.join(" "))
        })
    }

    pub fn fen(&self) -> String {
        let mut s = String::with_capacity(90);
        for rank in (0..10).rev() {
            let mut empty = 0;
            for file in 0..9 {
                match self.piece_at(Square::from_index(rank * 9 + file)) {
                    Some(p) => {
                        if empty > 0 {
                            s.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        s.push(p.letter());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                s.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                s.push('/');
            }
        }
        format!(
            "{} {} - - {} {}",
            s, self.side, self.halfmove, self.fullmove
        )
    }

    // ---- accessors -------------------------------------------------------

    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    #[inline]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// Plies since the last capture, counting the FEN's field 5 and the moves made since.
    #[inline]
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove as u32
    }

    #[inline]
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove
    }

    /// Checking plies of `c` since the last capture, counted over the moves
    /// made since set-up (plies before it, the FEN's counter, count as
    /// non-checks: they cannot be told apart).
    #[inline]
    pub fn stretch_checks(&self, c: Color) -> u32 {
        u32::from(self.stretch_checks[c.index()])
    }

    /// Moves made on this position since it was set up, oldest first.
    #[inline]
    pub fn history(&self) -> &[Undo] {
        &self.history
    }

    /// Number of moves made since set-up (the game ply relative to the FEN).
    #[inline]
    pub fn ply(&self) -> usize {
        self.history.len()
    }

    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let p = self.board[sq.index()];
        (p != NO_PIECE).then(|| Piece::from_index(p as usize))
    }

    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    #[inline]
    pub fn color_bb(&self, c: Color) -> Bitboard {
        self.by_color[c.index()]
    }

    #[inline]
    pub fn kind_bb(&self, k: PieceKind) -> Bitboard {
        self.by_kind[k.index()]
    }

    #[inline]
    pub fn pieces(&self, c: Color, k: PieceKind) -> Bitboard {
        self.by_color[c.index()] & self.by_kind[k.index()]
    }

    #[inline]
    pub fn king(&self, c: Color) -> Square {
        self.pieces(c, PieceKind::King).lsb()
    }

    // ---- changing the board ---------------------------------------------

    #[inline]
    fn put(&mut self, piece: Piece, sq: Square) {
        self.board[sq.index()] = piece.index() as u8;
        self.by_color[piece.color().index()].set(sq);
        self.by_kind[piece.kind().index()].set(sq);
        self.key ^= zobrist::piece_square(piece, sq);
    }

    #[inline]
    fn remove(&mut self, piece: Piece, sq: Square) {
        self.board[sq.index()] = NO_PIECE;
        self.by_color[piece.color().index()].clear(sq);
        self.by_kind[piece.kind().index()].clear(sq);
        self.key ^= zobrist::piece_square(piece, sq);
    }

    /// Plays a move. The move must be legal (or at least pseudo-legal: a piece of
    /// the side to move on `from`, no own piece on `to`); `is_legal` checks that
    /// for moves from outside the generator.
    #[inline]
    pub fn make_move(&mut self, mv: Move) {
        self.make_move_inner(mv, None);
    }

    /// `make_move` for a caller that already knows whether `mv` gives check
    /// (the search asked `gives_check`), so the checkers are not worked out
    /// a second time.
    #[inline]
    pub fn make_move_known_check(&mut self, mv: Move, gives_check: bool) {
        self.make_move_inner(mv, Some(gives_check));
    }

    #[inline(always)]
    fn make_move_inner(&mut self, mv: Move, gives_check: Option<bool>) {
        let (from, to) = (mv.from(), mv.to());
        let piece = self.piece_at(from).expect("make_move: no piece on from");
        debug_assert_eq!(piece.color(), self.side);
        let captured = self.piece_at(to);
        self.history.push(Undo {
            mv,
            captured,
            key: self.key,
            halfmove: self.halfmove,
            stretch_checks: self.stretch_checks,
            in_check: self.check,
        });
        if let Some(c) = captured {
            self.remove(c, to);
            self.halfmove = 0;
            self.stretch_checks = [0; 2];
        } else {
            self.halfmove = self.halfmove.saturating_add(1);
        }
        self.remove(piece, from);
        self.put(piece, to);
        if self.side == Color::Black {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        let mover = self.side;
        self.side = !self.side;
        self.key ^= zobrist::SIDE;
        self.check = match gives_check {
            Some(c) => {
                debug_assert_eq!(c, self.checkers().any(), "gives_check disagrees for {mv}");
                c
            }
            None => self.checkers().any(),
        };
        // A capture starts a new stretch that does not include itself.
        if self.check && captured.is_none() {
            let n = &mut self.stretch_checks[mover.index()];
            *n = n.saturating_add(1);
        }
    }

    /// Takes back the last `make_move`.
    #[inline]
    pub fn unmake_move(&mut self) {
        let undo = self
            .history
            .pop()
            .expect("unmake_move: no move to take back");
        let (from, to) = (undo.mv.from(), undo.mv.to());
        self.side = !self.side;
        if self.side == Color::Black {
            self.fullmove -= 1;
        }
        let piece = self.piece_at(to).expect("unmake_move: moved piece missing");
        self.remove(piece, to);
        self.put(piece, from);
        if let Some(c) = undo.captured {
            self.put(c, to);
        }
        self.key = undo.key;
        self.halfmove = undo.halfmove;
        self.stretch_checks = undo.stretch_checks;
        self.check = undo.in_check;
    }

    /// Passes the turn (for null-move pruning). Must not be called in check.
    pub fn make_null(&mut self) {
        self.history.push(Undo {
            mv: Move::NONE,
            captured: None,
            key: self.key,
            halfmove: self.halfmove,
            stretch_checks: self.stretch_checks,
            in_check: self.check,
        });
        // A pass is never a check by the natural limit's count.
        self.halfmove = self.halfmove.saturating_add(1);
        self.side = !self.side;
        self.key ^= zobrist::SIDE;
        self.check = self.checkers().any();
    }

    pub fn unmake_null(&mut self) {
        let undo = self
            .history
            .pop()
            .expect("unmake_null: nothing to take back");
        debug_assert!(undo.mv.is_none());
        self.side = !self.side;
        self.key = undo.key;
        self.halfmove = undo.halfmove;
        self.stretch_checks = undo.stretch_checks;
        self.check = undo.in_check;
    }

    /// Forgets the move history (keeps the position): the new position becomes
    /// the root for repetition purposes, and, as for a FEN, the plies before
    /// it count as non-checks for the natural limit.
    pub fn clear_history(&mut self) {
        self.history.clear();
        self.stretch_checks = [0; 2];
    }

    // ---- attacks --------------------------------------------------------

    /// Pieces of `by` that attack `sq` with the board occupancy `occ`
    /// (kings by their palace step, not by the flying-general rule).
    pub fn attackers_to(&self, sq: Square, by: Color, occ: Bitboard) -> Bitboard {
        let them = self.by_color[by.index()];
        let k = &self.by_kind;
        let rooks = k[PieceKind::Rook.index()];
        let mut att = self.far_attackers(sq, occ, them, rooks, by)
            | (advisor_attacks(sq) & k[PieceKind::Advisor.index()])
            | (king_attacks(sq) & k[PieceKind::King.index()]);
        let bishops = k[PieceKind::Bishop.index()] & them;
        if bishops.any() {
            att |= bishop_attacks(sq, occ) & bishops;
        }
        att & them
    }

    /// Pieces of `by` giving check to the other side's king now, the facing
    /// king included (it "checks" by the flying-general rule).
    pub fn checkers_of(&self, by: Color) -> Bitboard {
        let ksq = self.king(!by);
        self.king_attackers(ksq, self.occupied(), self.by_color[by.index()], by)
    }

    /// Pieces giving check to the side to move.
    #[inline]
    pub fn checkers(&self) -> Bitboard {
        self.checkers_of(!self.side)
    }

    /// Whether the side to move is in check (kept up to date by every move).
    #[inline]
    pub fn in_check(&self) -> bool {
        debug_assert_eq!(self.check, self.checkers().any());
        self.check
    }

    /// Attackers among `attackers` (pieces of colour `by`) of a king standing on
    /// `ksq` with occupancy `occ`. Only rooks, cannons, knights, pawns and the
    /// facing king can ever reach a king, because advisors and elephants never
    /// leave their own half.
    #[inline]
    pub(crate) fn king_attackers(
        &self,
        ksq: Square,
        occ: Bitboard,
        attackers: Bitboard,
        by: Color,
    ) -> Bitboard {
        let k = &self.by_kind;
        let rook_like = k[PieceKind::Rook.index()] | k[PieceKind::King.index()];
        self.far_attackers(ksq, occ, attackers, rook_like, by)
    }

    /// Attackers among `attackers` of `sq` by pawns, knights, cannons and the
    /// pieces of `rook_like` along the lines. Most squares see no slider or
    /// knight of the attacker's at all: the cheap empty-board masks are
    /// tested before the occupancy lookups.
    #[inline(always)]
    fn far_attackers(
        &self,
        sq: Square,
        occ: Bitboard,
        attackers: Bitboard,
        rook_like: Bitboard,
        by: Color,
    ) -> Bitboard {
        let k = &self.by_kind;
        let mut att = pawn_attackers(by, sq) & k[PieceKind::Pawn.index()] & attackers;
        let line = lines(sq) & attackers;
        if line.any() {
            let rook_like = rook_like & line;
            let cannons = k[PieceKind::Cannon.index()] & line;
            if rook_like.any() {
                att |= rook_attacks(sq, occ) & rook_like;
            }
            if cannons.any() {
                att |= cannon_captures(sq, occ) & cannons;
            }
        }
        let knights = k[PieceKind::Knight.index()] & attackers & knight_zone(sq);
        if knights.any() {
            att |= knight_attackers(sq, occ) & knights;
        }
        att
    }

    /// Whether `mv` (legal here) gives check.
    pub fn gives_check(&self, mv: Move) -> bool {
        self.gives_check_with(mv, &self.check_info())
    }

    /// What `gives_check_with` needs to know about the enemy king, worked out
    /// once for all the moves of a node.
    pub fn check_info(&self) -> CheckInfo {
        let us = self.side;
        let eks = self.king(!us);
        let occ = self.occupied();
        let ours = self.by_color[us.index()];
        let mut info = CheckInfo {
            king: eks,
            discoverers: Bitboard::EMPTY,
            screen_points: Bitboard::EMPTY,
            unusual: false,
        };
        let line = lines(eks) & ours;
        let rook_like =
            line & (self.by_kind[PieceKind::Rook.index()] | self.by_kind[PieceKind::King.index()]);
        for s in rook_like {
            let b = between(s, eks) & occ;
            match b.count() {
                0 => info.unusual = true,
                1 => info.discoverers |= b & ours,
                _ => {}
            }
        }
        for s in line & self.by_kind[PieceKind::Cannon.index()] {
            let points = between(s, eks);
            let b = points & occ;
            match b.count() {
                0 => info.screen_points |= points,
                1 => info.unusual = true,
                2 => info.discoverers |= b & ours,
                _ => {}
            }
        }
        if (pawn_attackers(us, eks) & self.by_kind[PieceKind::Pawn.index()] & ours).any() {
            info.unusual = true;
        }
        let knights = self.by_kind[PieceKind::Knight.index()] & ours & knight_zone(eks);
        if knights.any() {
            for (leg, from) in knight_attacker_legs(eks) {
                if (from & knights).any() {
                    if ours.has(leg) {
                        info.discoverers.set(leg);
                    } else if !occ.has(leg) {
                        info.unusual = true;
                    }
                }
            }
        }
        info
    }

    /// Whether `mv` (legal here) gives check, with this node's `check_info`.
    ///
    /// The moved piece may check from `to` itself; besides that, a move can
    /// only uncover a check by leaving a line or a knight's leg (a
    /// discoverer) and only make one by becoming a cannon's screen. So only
    /// moves by discoverers (they may stay on their line) and cannons
    /// stepping onto a screen point (it may lie on their own line, where
    /// there is nothing left to screen) need the full test.
    #[inline]
    pub fn gives_check_with(&self, mv: Move, info: &CheckInfo) -> bool {
        let (from, to) = (mv.from(), mv.to());
        let eks = info.king;
        let kind = match self.piece_at(from) {
            Some(p) => p.kind(),
            None => return false,
        };
        let occ = || (self.occupied() ^ Bitboard::from_square(from)) | Bitboard::from_square(to);
        // The moved piece's own attack from `to`, after the empty-board masks.
        let direct = match kind {
            PieceKind::Rook => lines(eks).has(to) && (between(to, eks) & occ()).is_empty(),
            PieceKind::Cannon => lines(eks).has(to) && (between(to, eks) & occ()).count() == 1,
            PieceKind::Knight => knight_zone(eks).has(to) && knight_attacks(to, occ()).has(eks),
            PieceKind::Pawn => pawn_attacks(self.side, to).has(eks),
            PieceKind::King => to.file() == eks.file() && (between(to, eks) & occ()).is_empty(),
            _ => false,
        };
        if direct {
            return true;
        }
        let screens = info.screen_points.has(to);
        if screens && kind != PieceKind::Cannon {
            return true;
        }
        if !(screens || info.unusual || info.discoverers.has(from)) {
            return false;
        }
        let others = self.by_color[self.side.index()] & !Bitboard::from_square(from);
        self.king_attackers(eks, occ(), others & !Bitboard::from_square(to), self.side)
            .any()
    }

    /// Whether a pseudo-legal move leaves the mover's king safe (not attacked,
    /// kings not facing).
    #[inline]
    pub(crate) fn king_safe_after(&self, mv: Move) -> bool {
        let (from, to) = (mv.from(), mv.to());
        let us = self.side;
        let from_bb = Bitboard::from_square(from);
        let to_bb = Bitboard::from_square(to);
        let occ = (self.occupied() ^ from_bb) | to_bb;
        let ksq = if self.by_kind[PieceKind::King.index()].has(from) {
            to
        } else {
            self.king(us)
        };
        let them = self.by_color[(!us).index()] & !to_bb;
        self.king_attackers(ksq, occ, them, !us).is_empty()
    }

    /// Whether `mv` is legal here: a piece of the side to move that can go there
    /// by its rules, and that leaves its own king safe. For moves from outside
    /// (the protocol, the TT, a game record).
    pub fn is_legal(&self, mv: Move) -> bool {
        if mv.is_none() {
            return false;
        }
        let piece = match self.piece_at(mv.from()) {
            Some(p) if p.color() == self.side => p,
            _ => return false,
        };
        if self.by_color[self.side.index()].has(mv.to()) {
            return false;
        }
        if !self.piece_reaches(piece, mv.from(), mv.to()) {
            return false;
        }
        self.king_safe_after(mv)
    }

    /// Whether `piece` on `from` can move to `to` by its movement rules alone.
    fn piece_reaches(&self, piece: Piece, from: Square, to: Square) -> bool {
        let occ = self.occupied();
        match piece.kind() {
            PieceKind::King => king_attacks(from).has(to),
            PieceKind::Advisor => advisor_attacks(from).has(to),
            PieceKind::Bishop => bishop_attacks(from, occ).has(to),
            PieceKind::Knight => knight_attacks(from, occ).has(to),
            PieceKind::Rook => rook_attacks(from, occ).has(to),
            PieceKind::Cannon => {
                if occ.has(to) {
                    cannon_captures(from, occ).has(to)
                } else {
                    rook_attacks(from, occ).has(to)
                }
            }
            PieceKind::Pawn => pawn_attacks(piece.color(), from).has(to),
        }
    }

    /// Whether `mv` takes a piece.
    #[inline]
    pub fn is_capture(&self, mv: Move) -> bool {
        self.board[mv.to().index()] != NO_PIECE
    }
}

/// Where each piece may stand at all: kings and advisors in their palace,
/// elephants on their seven points, pawns never behind their starting rank
/// (and, before crossing the river, only on the five starting files).
fn legal_square(piece: Piece, sq: Square) -> bool {
    let c = piece.color();
    // Rank as seen from the piece's own side: 0 is its back rank.
    let rel_rank = match c {
        Color::Red => sq.rank().index(),
        Color::Black => 9 - sq.rank().index(),
    };
    let file = sq.file().index();
    match piece.kind() {
        PieceKind::King => sq.in_palace(c),
        PieceKind::Advisor => sq.in_palace(c) && (file + rel_rank) % 2 == 1,
        PieceKind::Bishop => {
            matches!(
                (file, rel_rank),
                (2, 0) | (6, 0) | (0, 2) | (4, 2) | (8, 2) | (2, 4) | (6, 4)
            )
        }
        PieceKind::Pawn => rel_rank >= 5 || (rel_rank >= 3 && file.is_multiple_of(2)),
        _ => true,
    }
}

impl FromStr for Position {
    type Err = FenError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Position::from_fen(s)
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen())
    }
}

impl fmt::Debug for Position {
    /// The board as a diagram with rank 9 on top, then the FEN.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (r, row) in self.diagram_rows() {
            writeln!(f, "{r} {row}")?;
        }
        writeln!(f, "  a b c d e f g h i")?;
        write!(f, "{}", self.fen())
    }
}

/// A FEN's colour-flipped twin (see `Position::colour_flipped`), as text:
/// ranks reversed, letter cases swapped, the other side to move, the later
/// fields kept. Works on any text, legal or not, so fuzzers can use it.
pub fn flip_colours_fen(fen: &str) -> String {
    let fields: Vec<&str> = fen.split(' ').collect();
    let board: Vec<String> = fields[0]
        .split('/')
        .rev()
        .map(|rank| {
            rank.chars()
                .map(|c| {
                    if c.is_ascii_uppercase() {
                        c.to_ascii_lowercase()
                    } else {
                        c.to_ascii_uppercase()
                    }
                })
                .collect()
        })
        .collect();
    let side = if fields.get(1) == Some(&"w") {
        "b"
    } else {
        "w"
    };
    let rest = fields.get(2..).unwrap_or_default().join(" ");
    format!("{} {side} {rest}", board.join("/"))
        .trim_end()
        .to_string()
}
