//! What each move of a cycle is (seeds 28.1-28.3, 27.4 从重): 将 check,
//! 杀 mate threat, 捉 chase or 闲 idle.

use super::chase::{describe, how_won, threats, How};
use super::Reach;
use crate::board::{Bitboard, Color, Move, MoveList, Piece, PieceKind, Position, Square};
use std::fmt;

/// The class of one move, heaviest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MoveClass {
    Check,
    MateThreat,
    Chase,
    Idle,
}

impl MoveClass {
    pub fn as_str(self) -> &'static str {
        match self {
            MoveClass::Check => "check",
            MoveClass::MateThreat => "mate-threat",
            MoveClass::Chase => "chase",
            MoveClass::Idle => "idle",
        }
    }

    /// 打: check, mate threat or chase.
    pub fn is_attack(self) -> bool {
        self != MoveClass::Idle
    }
}

impl fmt::Display for MoveClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A chased piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub piece: Piece,
    pub square: Square,
    /// Threatened by a pawn alone: a chase only in a mutual attack (27.2).
    pub pawn_only: bool,
    /// How the chase wins it: a capture that keeps it, an exchange, or a check first.
    pub how: How,
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", kind_name(self.piece.kind()), self.square)
    }
}

pub fn kind_name(k: PieceKind) -> &'static str {
    match k {
        PieceKind::King => "king",
        PieceKind::Advisor => "advisor",
        PieceKind::Bishop => "elephant",
        PieceKind::Knight => "knight",
        PieceKind::Rook => "rook",
        PieceKind::Cannon => "cannon",
        PieceKind::Pawn => "pawn",
    }
}

/// One move of a judged cycle with its class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassifiedMove {
    pub mv: Move,
    pub side: Color,
    /// The class under the normal rules (a pawn's attack is idle).
    pub class: MoveClass,
    /// The class when both sides attack perpetually and pawn attacks count (27.2).
    pub class_with_pawns: MoveClass,
    /// Pieces newly chased by this move (pawn-only chases included).
    pub chases: Vec<Target>,
    /// For a mate threat: the first move of the mate it threatens.
    pub mate_move: Option<Move>,
}

/// What a move does, as far as it was needed.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Facts {
    pub check: bool,
    pub mate: Option<Move>,
    /// Targets newly threatened by pieces other than lone pawns.
    pub new_by_pieces: Bitboard,
    /// Targets newly threatened by anything (pawns included).
    pub new_all: Bitboard,
    /// Whether the king's captures counted (see `borrows_king`).
    pub king_counts: bool,
}

impl Facts {
    pub fn class(&self) -> MoveClass {
        self.class_in(self.new_by_pieces)
    }

    pub fn class_with_pawns(&self) -> MoveClass {
        self.class_in(self.new_all)
    }

    fn class_in(&self, chased: Bitboard) -> MoveClass {
        if self.check {
            MoveClass::Check
        } else if self.mate.is_some() {
            MoveClass::MateThreat
        } else if chased.any() {
            MoveClass::Chase
        } else {
            MoveClass::Idle
        }
    }
}

/// Whether the king's captures count as this move's threats: they do when
/// another piece moves (借帅之力捉吃: the move takes away a guard, say, so
/// that the king can win a piece beside it), not when the king itself
/// moves to attack (帅本身步步叫吃, 27.1, idle).
fn borrows_king(p: &Position, mv: Move) -> bool {
    p.piece_at(mv.from())
        .is_some_and(|m| m.kind() != PieceKind::King)
}

/// Plays `mv` on `p` (standing before it) and says what it does, looking as
/// far as `reach` allows. With `full` every fact is found; otherwise only as
/// much as tells whether the move is a check, and whether it is an attack
/// with and without pawn chases.
pub(crate) fn play_and_classify(p: &mut Position, mv: Move, full: bool, reach: Reach) -> Facts {
    let mut facts = Facts::default();
    if mv.is_none() {
        p.make_null();
        return facts;
    }
    if p.gives_check(mv) {
        // Check is the heaviest class; what else it does cannot change the verdict.
        p.make_move(mv);
        facts.check = true;
        return facts;
    }
    // A mover answering a check is compared with what it was attacking
    // before it had to answer (`relaxed`): through checks too, so that a
    // block that also opens a line for a winning run of checks chases (the
    // threat did not exist before the move, 从没捉到捉), while one that
    // leaves an old threat standing does not.
    let king = borrows_king(p, mv);
    facts.king_counts = king;
    let (before, before_check) = threats(p, true, king, reach);
    p.make_move(mv);
    p.make_null();
    let (after, after_check) = threats(p, false, king, reach);
    // New is judged against the position just before the move, per way of
    // winning (凡是走子前不存在捉，而走子后造成捉的，一律按捉处理): a piece
    // that can now be taken at once is newly chased even if before it could
    // be won through a check (a cannon that pins the only protector of a
    // piece a rook attacks, where the rook could also have checked to win
    // it, chases); a piece won through a check is new only if nothing
    // threatened it before.
    let before_any = before.by_pieces | before_check.by_pieces;
    let before_all = before.all() | before_check.all();
    facts.new_by_pieces =
        (after.by_pieces & !before.by_pieces) | (after_check.by_pieces & !before_any);
    // Counting pawn chases can only add attacks, never remove one.
    facts.new_all =
        facts.new_by_pieces | (after.all() & !before.all()) | (after_check.all() & !before_all);
    let threat = if full || facts.new_by_pieces.is_empty() {
        mate_by_checks(p, reach)
    } else {
        None
    };
    p.unmake_null();
    if threat.is_some() {
        // Like a chase, a mate threat must be new (28.2, 29.2 by analogy): a
        // mate the mover could already have played is not what this move threatens.
        p.unmake_move();
        let existed = mate_by_checks(p, reach).is_some();
        p.make_move(mv);
        if !existed {
            facts.mate = threat;
        }
    }
    facts
}

/// Full details of a move for reports; `p` stands after the move (and ends
/// so); `reach` as the move was classified with.
pub(crate) fn describe_move(
    p: &mut Position,
    mv: Move,
    side: Color,
    f: &Facts,
    reach: Reach,
) -> ClassifiedMove {
    let targets = describe(p, f.new_all);
    let chases = if targets.is_empty() {
        Vec::new()
    } else {
        // The threats were found with the mover to move again.
        p.make_null();
        let chases = targets
            .into_iter()
            .map(|(piece, square)| {
                let pawn_only = !f.new_by_pieces.has(square);
                let how =
                    how_won(p, square, pawn_only, f.king_counts, reach).unwrap_or_else(|| {
                        // Unreachable: `how_won` asks what `threats` asked.
                        debug_assert!(false, "no way to win {piece:?} {square} after {mv}");
                        How::Direct
                    });
                Target {
                    piece,
                    square,
                    pawn_only,
                    how,
                }
            })
            .collect();
        p.unmake_null();
        chases
    };
    ClassifiedMove {
        mv,
        side,
        class: f.class(),
        class_with_pawns: f.class_with_pawns(),
        chases,
        mate_move: f.mate,
    }
}

/// A mate by checks only for the side to move, of up to `reach.mate_checks`
/// checks: the first move of one, if any. Shorter mates are looked for first,
/// so that the node budget spent on long fruitless runs cannot hide a short
/// mate; a mate not found within the budget is not a threat.
fn mate_by_checks(p: &mut Position, reach: Reach) -> Option<Move> {
    let mut budget = reach.mate_nodes;
    let info = p.check_info();
    let mut checks = MoveList::new();
    for mv in p.legal_moves() {
        if p.gives_check_with(mv, &info) {
            checks.push(mv);
        }
    }
    for depth in 1..=reach.mate_checks {
        for &mv in &checks {
            if forced_mate_after(p, mv, depth, &mut budget) {
                return Some(mv);
            }
        }
        if budget == 0 {
            break;
        }
    }
    None
}

/// Whether the checking move `mv` mates at once or, with `checks - 1` more
/// checks, against every answer.
fn forced_mate_after(p: &mut Position, mv: Move, checks: u32, budget: &mut u32) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    p.make_move(mv);
    let answers = p.legal_moves();
    let mated = if answers.is_empty() {
        true
    } else if checks <= 1 {
        false
    } else {
        answers.iter().all(|&a| {
            p.make_move(a);
            let mut found = false;
            let info = p.check_info();
            for m in p.legal_moves() {
                if p.gives_check_with(m, &info) && forced_mate_after(p, m, checks - 1, budget) {
                    found = true;
                    break;
                }
            }
            p.unmake_move();
            found
        })
    };
    p.unmake_move();
    mated
}
