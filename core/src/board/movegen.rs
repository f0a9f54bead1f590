//! Legal move generation.
//!
//! Per node we compute, once, what can make a move illegal when not in check:
//! - `blockers`: our pieces whose leaving opens an attack on our king: the only
//!   piece between the king and an enemy rook or the enemy king (flying
//!   general), either of the two pieces between the king and an enemy cannon,
//!   and a piece on the leg of an enemy knight aimed at the king;
//! - `holes`: empty points between our king and an enemy cannon with nothing
//!   in between: a piece stepping there becomes the cannon's screen.
//!
//! Moving a piece can only uncover attacks through its `from` square and only
//! create one through its `to` square (a capture puts our piece where theirs
//! was, so occupancy there does not change). So a non-king move that is not
//! from a blocker and not to a hole is legal without further work, and one to
//! a hole is always illegal; the others, king moves and every move while in
//! check, get the full test.
//!
//! In check, a move other than the king's can only help by taking a checker,
//! by standing between it and the king (a block, or a cannon's second
//! screen), on the leg of a checking knight, or by taking a checking
//! cannon's screen away. Only such moves are tested; the rest cannot be legal.

use super::attacks::*;
use super::bitboard::Bitboard;
use super::position::Position;
use super::types::{Move, PieceKind, Square};
use arrayvec::ArrayVec;

/// More than the most moves any xiangqi position can have: with the piece
/// counts FEN validation allows (and moves never add pieces), two rooks and
/// two cannons reach at most 17 points each, two knights 8, five pawns 3,
/// two elephants, two advisors and the king 4: 119 in all, wherever the
/// pieces stand.
pub const MAX_MOVES: usize = 128;
pub type MoveList = ArrayVec<Move, MAX_MOVES>;

/// Which moves to generate.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum GenType {
    All,
    /// Captures only.
    Captures,
    /// Non-captures only.
    Quiets,
}

/// Where the walk over moves sends them.
trait Sink {
    fn one(&mut self, mv: Move);
    fn many(&mut self, from: Square, targets: Bitboard);
    /// Whether the sink needs no more moves (the walk then stops early).
    #[inline(always)]
    fn satisfied(&self) -> bool {
        false
    }
}

impl Sink for MoveList {
    #[inline(always)]
    fn one(&mut self, mv: Move) {
        // `generate` starts from an empty list and no position has more than
        // MAX_MOVES moves, so this never fails; the check costs a predictable
        // branch, and keeps the list sound whatever a caller does with it.
        self.push(mv);
    }

    #[inline(always)]
    fn many(&mut self, from: Square, targets: Bitboard) {
        for to in targets {
            self.one(Move::new(from, to));
        }
    }
}

/// Whether there is any move at all.
struct Any(bool);

impl Sink for Any {
    #[inline(always)]
    fn one(&mut self, _: Move) {
        self.0 = true;
    }

    #[inline(always)]
    fn many(&mut self, _: Square, targets: Bitboard) {
        self.0 |= targets.any();
    }

    #[inline(always)]
    fn satisfied(&self) -> bool {
        self.0
    }
}

struct Counter(usize);

impl Sink for Counter {
    #[inline(always)]
    fn one(&mut self, _: Move) {
        self.0 += 1;
    }

    #[inline(always)]
    fn many(&mut self, _: Square, targets: Bitboard) {
        self.0 += targets.count() as usize;
    }
}

/// What a node knows about the safety of its king.
struct Safety {
    in_check: bool,
    blockers: Bitboard,
    holes: Bitboard,
    /// In check: the points a non-king move must reach to answer every
    /// checker (its square, the points between it and the king, a checking
    /// knight's leg)...
    evasion_to: Bitboard,
    /// ...unless it moves a piece of ours that screens a checking cannon.
    evasion_from: Bitboard,
}

impl Position {
    fn safety(&self) -> Safety {
        let us = self.side_to_move();
        let them = !us;
        let ksq = self.king(us);
        let occ = self.occupied();
        let ours = self.color_bb(us);
        let in_check = self.in_check();

        let mut blockers = Bitboard::EMPTY;
        let mut holes = Bitboard::EMPTY;
        let empty_lines = rook_attacks(ksq, Bitboard::EMPTY);
        let rook_like = self.pieces(them, PieceKind::Rook) | self.pieces(them, PieceKind::King);
        for s in empty_lines & rook_like {
            let b = between(s, ksq) & occ;
            if b.count() == 1 {
                blockers |= b & ours;
            }
        }
        for s in empty_lines & self.pieces(them, PieceKind::Cannon) {
            let line = between(s, ksq);
            let b = line & occ;
            match b.count() {
                0 => holes |= line,
                2 => blockers |= b & ours,
                _ => {}
            }
        }
        let knights = self.pieces(them, PieceKind::Knight);
        if knights.any() {
            for (leg, from) in knight_attacker_legs(ksq) {
                if (from & knights).any() && ours.has(leg) {
                    blockers.set(leg);
                }
            }
        }
        let (mut evasion_to, mut evasion_from) = (Bitboard::EMPTY, Bitboard::EMPTY);
        if in_check {
            evasion_to = Bitboard::FULL;
            let cannons = self.pieces(them, PieceKind::Cannon);
            for c in self.checkers() {
                let line = between(c, ksq);
                let mut answers = line | Bitboard::from_square(c);
                if cannons.has(c) {
                    evasion_from |= line & occ & ours;
                } else if knights.has(c) {
                    for (leg, from) in knight_attacker_legs(ksq) {
                        if from.has(c) {
                            answers.set(leg);
                        }
                    }
                }
                evasion_to &= answers;
            }
        }
        Safety {
            in_check,
            blockers,
            holes,
            evasion_to,
            evasion_from,
        }
    }

    /// Walks the moves of the chosen kind, handing them to `sink`. With
    /// `LEGAL` only legal moves reach the sink; without, every pseudo-legal one.
    ///
    /// When not in check, a piece that is not a blocker can go anywhere its
    /// rules allow except into a hole (it would become a cannon screen, and
    /// the hole lies between the cannon and our king, so that is always
    /// check): those moves need no test. Blockers, the king, and every move
    /// while in check are tested one by one.
    #[inline(always)]
    fn walk<S: Sink, const LEGAL: bool>(&self, gen: GenType, sink: &mut S) {
        let us = self.side_to_move();
        let occ = self.occupied();
        let ours = self.color_bb(us);
        let enemy = self.color_bb(!us);
        let target = match gen {
            GenType::All => !ours,
            GenType::Captures => enemy,
            GenType::Quiets => !occ,
        };
        let ksq = self.king(us);
        let safety = if LEGAL {
            self.safety()
        } else {
            Safety {
                in_check: false,
                blockers: Bitboard::EMPTY,
                holes: Bitboard::EMPTY,
                evasion_to: Bitboard::EMPTY,
                evasion_from: Bitboard::EMPTY,
            }
        };
        // Pieces whose every move must be tested.
        let tested = if safety.in_check {
            ours
        } else {
            safety.blockers | Bitboard::from_square(ksq)
        };
        let free_target = !safety.holes;

        let mut emit = |from: Square, targets: Bitboard| {
            if sink.satisfied() {
                return;
            }
            if LEGAL && tested.has(from) {
                let targets = if safety.in_check && from != ksq && !safety.evasion_from.has(from) {
                    targets & safety.evasion_to
                } else {
                    targets
                };
                for to in targets {
                    let mv = Move::new(from, to);
                    if self.king_safe_after(mv) {
                        sink.one(mv);
                        if sink.satisfied() {
                            return;
                        }
                    }
                }
            } else {
                sink.many(from, targets & free_target);
            }
        };

        for from in self.pieces(us, PieceKind::Rook) {
            emit(from, rook_attacks(from, occ) & target);
        }
        for from in self.pieces(us, PieceKind::Cannon) {
            let mut t = Bitboard::EMPTY;
            if gen != GenType::Captures {
                t |= rook_attacks(from, occ) & !occ;
            }
            if gen != GenType::Quiets {
                t |= cannon_captures(from, occ) & enemy;
            }
            emit(from, t);
        }
        for from in self.pieces(us, PieceKind::Knight) {
            emit(from, knight_attacks(from, occ) & target);
        }
        for from in self.pieces(us, PieceKind::Pawn) {
            emit(from, pawn_attacks(us, from) & target);
        }
        for from in self.pieces(us, PieceKind::Bishop) {
            emit(from, bishop_attacks(from, occ) & target);
        }
        for from in self.pieces(us, PieceKind::Advisor) {
            emit(from, advisor_attacks(from) & target);
        }
        emit(ksq, king_attacks(ksq) & target);
    }

    /// Fills `list` with the legal moves of the chosen kind, replacing what
    /// it held (a list holds one position's moves: appending a second
    /// generation could pass its capacity).
    pub fn generate(&self, gen: GenType, list: &mut MoveList) {
        list.clear();
        self.walk::<_, true>(gen, list);
    }

    /// The number of legal moves, without storing them (perft's last ply).
    pub fn count_legal(&self) -> usize {
        let mut n = Counter(0);
        self.walk::<_, true>(GenType::All, &mut n);
        n.0
    }

    /// All legal moves.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(GenType::All, &mut list);
        list
    }

    /// Pseudo-legal moves: every move by the pieces' rules, ignoring whether
    /// the own king is left attacked or facing the other. For tests and tools.
    pub fn pseudo_legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.walk::<_, false>(GenType::All, &mut list);
        list
    }

    /// Whether the side to move has any legal move (if not, it has lost).
    /// The walk stops at the first one found.
    pub fn has_legal_move(&self) -> bool {
        let mut any = Any(false);
        self.walk::<_, true>(GenType::All, &mut any);
        any.0
    }
}
