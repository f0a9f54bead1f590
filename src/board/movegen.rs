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
//! from a blocker and not to a hole is legal without further work; the others,
//! king moves and every move while in check, get the full test.

use super::attacks::*;
use super::bitboard::Bitboard;
use super::position::Position;
use super::types::{Move, PieceKind, Square};
use arrayvec::ArrayVec;

/// Far more than the most moves any xiangqi position has (about 120).
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

/// What a node knows about the safety of its king.
struct Safety {
    in_check: bool,
    blockers: Bitboard,
    holes: Bitboard,
}

impl Position {
    fn safety(&self) -> Safety {
        let us = self.side_to_move();
        let them = !us;
        let ksq = self.king(us);
        let occ = self.occupied();
        let ours = self.color_bb(us);
        let in_check = self.checkers().any();

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
        Safety {
            in_check,
            blockers,
            holes,
        }
    }

    /// Pseudo-legal moves of the side to move, kings and blockers included,
    /// with targets limited to `target`. Cannons need two masks: quiet moves go
    /// to empty points, captures to enemy pieces.
    fn pseudo_legal(&self, list: &mut MoveList, gen: GenType) {
        let us = self.side_to_move();
        let occ = self.occupied();
        let ours = self.color_bb(us);
        let enemy = self.color_bb(!us);
        let target = match gen {
            GenType::All => !ours,
            GenType::Captures => enemy,
            GenType::Quiets => !occ,
        };

        #[inline(always)]
        fn push_all(list: &mut MoveList, from: Square, targets: Bitboard) {
            for to in targets {
                // Capacity is a hard bound on xiangqi moves, so this never drops one.
                unsafe { list.push_unchecked(Move::new(from, to)) };
            }
        }

        for from in self.pieces(us, PieceKind::Rook) {
            push_all(list, from, rook_attacks(from, occ) & target);
        }
        for from in self.pieces(us, PieceKind::Cannon) {
            let mut t = Bitboard::EMPTY;
            if gen != GenType::Captures {
                t |= rook_attacks(from, occ) & !occ;
            }
            if gen != GenType::Quiets {
                t |= cannon_captures(from, occ) & enemy;
            }
            push_all(list, from, t);
        }
        for from in self.pieces(us, PieceKind::Knight) {
            push_all(list, from, knight_attacks(from, occ) & target);
        }
        for from in self.pieces(us, PieceKind::Pawn) {
            push_all(list, from, pawn_attacks(us, from) & target);
        }
        for from in self.pieces(us, PieceKind::Bishop) {
            push_all(list, from, bishop_attacks(from, occ) & target);
        }
        for from in self.pieces(us, PieceKind::Advisor) {
            push_all(list, from, advisor_attacks(from) & target);
        }
        let k = self.king(us);
        push_all(list, k, king_attacks(k) & target);
    }

    /// Appends the legal moves of the chosen kind to `list`.
    pub fn generate(&self, gen: GenType, list: &mut MoveList) {
        let start = list.len();
        self.pseudo_legal(list, gen);
        let safety = self.safety();
        let ksq = self.king(self.side_to_move());
        let mut i = start;
        while i < list.len() {
            let mv = list[i];
            let needs_test = safety.in_check
                || mv.from() == ksq
                || safety.blockers.has(mv.from())
                || safety.holes.has(mv.to());
            if needs_test && !self.king_safe_after(mv) {
                list.swap_remove(i);
            } else {
                i += 1;
            }
        }
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
        self.pseudo_legal(&mut list, GenType::All);
        list
    }

    /// Whether the side to move has any legal move (if not, it has lost).
    pub fn has_legal_move(&self) -> bool {
        !self.legal_moves().is_empty()
    }
}
