//! 捉 (chase): which enemy pieces the side to move threatens to win with its
//! next move (seeds 28.3, 29.1-29.4, 27.1-27.2, 28.5).
//!
//! A target is a piece with material value (rook, knight, cannon, advisor,
//! elephant, crossed pawn). It is threatened when some piece can legally
//! take it (at once, or at the end of a run of checks whatever the answers,
//! as many as the `Reach` allows) and the exchange that follows on that square wins
//! material (so an unprotected piece, a piece whose protector is pinned,
//! would expose its king or would be mated at once for taking back, and a
//! rook attacked by a knight or cannon all count; after checks, net of
//! whatever the answers took, the checker say; a piece that answered a
//! check is a target where it stood), unless the attack is an exchange
//! offer between pieces of the same kind that can take each other with the
//! same gain (兑; a protected piece attacking a loose one of its kind chases
//! it, 捉兼兑), or taking would let the opponent mate at once. The king's
//! captures count only when another piece's move lets it win something
//! (借帅之力, 27.1); the king stepping up to attack is idle. Pawn attackers
//! are kept apart: a pawn's attack is a chase only when both sides attack
//! perpetually (27.2), whichever piece moved to make it possible.
//!
//! For reports, `how_won` says which of those ways wins a given target.

use super::Reach;
use crate::board::{Bitboard, Color, GenType, Move, MoveList, Piece, PieceKind, Position, Square};
use arrayvec::ArrayVec;
use std::cell::Cell;
use std::fmt;

/// Targets threatened, split by whether a non-pawn piece or only a pawn threatens them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Threats {
    pub by_pieces: Bitboard,
    pub by_pawns: Bitboard,
}

impl Threats {
    pub fn all(self) -> Bitboard {
        self.by_pieces | self.by_pawns
    }
}

/// Material value for exchanges (seeds 25.3: a rook is worth two knights or
/// cannons; knight equals cannon; advisor equals elephant; a crossed pawn's
/// value floats, taken here as an advisor's; an uncrossed pawn is no material).
pub fn value(piece: Piece, sq: Square) -> i32 {
    match piece.kind() {
        PieceKind::Rook => 4,
        PieceKind::Knight | PieceKind::Cannon => 2,
        PieceKind::Advisor | PieceKind::Bishop => 1,
        PieceKind::Pawn => i32::from(crossed(piece.color(), sq)),
        // Only ever the last to take (its capture must be legal, so nothing
        // takes it back); the value just makes it the capturer of last resort.
        PieceKind::King => 1000,
    }
}

fn crossed(c: Color, sq: Square) -> bool {
    !sq.on_own_side(c)
}

/// Whether `piece` on `sq` counts as material (子力) that can be chased.
pub fn is_material(piece: Piece, sq: Square) -> bool {
    match piece.kind() {
        PieceKind::King => false,
        PieceKind::Pawn => crossed(piece.color(), sq),
        _ => true,
    }
}

/// What a look for threats counts beyond the plain captures of the side to
/// move.
#[derive(Clone, Copy, Debug)]
struct Scope<'a> {
    /// Checkers whose check is ignored (see `threats`).
    set_aside: Bitboard,
    /// Whether captures by the king count: they do when the move judged was
    /// not the king's (借帅之力捉吃, 27.1), they do not when the king itself
    /// moved to attack (帅本身步步叫吃, an idle move).
    king: bool,
    /// Checks this look may still try (`Reach::chase_nodes`).
    budget: &'a Cell<u32>,
}

impl Scope<'_> {
    /// Takes one check from the budget; false when it is spent.
    fn spend(&self) -> bool {
        let left = self.budget.get();
        self.budget.set(left.saturating_sub(1));
        left > 0
    }

    fn spent(&self) -> bool {
        self.budget.get() == 0
    }
}

/// Targets won through runs of up to `reach.chase_checks` checks. Shorter
/// runs are looked at first, so that a budget spent on long fruitless runs
/// cannot hide a short one; with no budget to spend, the deepest look
/// alone finds everything the shallower ones would.
fn won_through_checks(pos: &mut Position, scope: Scope, reach: Reach) -> Threats {
    let first = if reach.chase_nodes == u32::MAX {
        reach.chase_checks
    } else {
        1
    };
    let mut won = Threats::default();
    for checks in first..=reach.chase_checks {
        let more = won_after_checks(pos, scope, 0, checks);
        won.by_pieces |= more.by_pieces;
        won.by_pawns = (won.by_pawns | more.by_pawns) & !won.by_pieces;
        if scope.spent() {
            break;
        }
    }
    won
}

/// The targets the side to move threatens in `pos`, as two sets: by a
/// direct capture, and by a capture that a run of checks forces (29.1:
/// 通过连续照将吃子) that no direct capture already wins. They are kept apart
/// because a chase is new per way of winning (see `classify`): a move that
/// lets a piece be taken at once, where before it could only be won by
/// checking first, creates a chase. With `relaxed`, a move that is illegal
/// only because the mover is in check from the pieces checking it now
/// still counts (a capture, or a check that starts a run), all along the
/// line: it tells what the mover was attacking before it had to answer the
/// check, for the 从捉到捉 comparison. Only that check is set aside: a check
/// the opponent gives on the way binds as usual. `king`: whether the king's
/// own captures count (see `Scope`). `reach`: how many checks a run may
/// have, and the budget of the look.
pub fn threats(pos: &mut Position, relaxed: bool, king: bool, reach: Reach) -> (Threats, Threats) {
    let set_aside = if relaxed {
        pos.checkers()
    } else {
        Bitboard::EMPTY
    };
    let budget = Cell::new(reach.chase_nodes);
    let scope = Scope {
        set_aside,
        king,
        budget: &budget,
    };
    let direct = direct_threats(pos, scope, 0);
    let won = won_through_checks(pos, scope, reach);
    let through_check = Threats {
        by_pieces: won.by_pieces & !direct.by_pieces,
        by_pawns: won.by_pawns & !direct.all(),
    };
    (direct, through_check)
}

/// Targets won by a check and then, against every answer, a capture or (with
/// `checks` > 1) another such run; `lost` is the material the answers have
/// taken so far, which the capture at the end must beat.
fn won_after_checks(pos: &mut Position, scope: Scope, lost: i32, checks: u32) -> Threats {
    let theirs = pos.color_bb(!pos.side_to_move());
    let mut out = Threats::default();
    for check in opening_checks(pos, scope.set_aside) {
        // No answer at all is a mate, judged as a mate threat instead.
        if let Some(t) = won_by_check(pos, check, scope, lost, checks) {
            out.by_pieces |= t.by_pieces & theirs;
            out.by_pawns |= t.by_pawns & theirs;
        }
    }
    out.by_pawns &= !out.by_pieces;
    out
}

/// The checks that can start a run towards a capture: every check, quiet or
/// taking something. A check that takes material is also weighed as a
/// capture of its own (兑 included, in `direct_threats`); as a first step
/// its gain is not counted, so what the run wins at its end must be won on
/// its own (otherwise a check winning a pawn would make every even trade
/// after it a chase of the piece traded). Moves illegal only through the
/// check of the pieces `set_aside` count.
fn opening_checks(pos: &mut Position, set_aside: Bitboard) -> MoveList {
    let moves = if set_aside.any() && pos.in_check() {
        let mut ok = MoveList::new();
        for mv in pos.pseudo_legal_moves() {
            if ignores_check(pos, mv, set_aside) {
                ok.push(mv);
            }
        }
        ok
    } else {
        pos.legal_moves()
    };
    let info = pos.check_info();
    let mut out = MoveList::new();
    for mv in moves {
        if pos.gives_check_with(mv, &info) {
            out.push(mv);
        }
    }
    out
}

/// The targets the check `check` wins against every answer, by a capture
/// next or, with `checks` > 1, by more checks first (`None` when it has no
/// answer: a mate). With the budget spent, nothing: every answer is looked
/// at or none, so what is found holds against all of them.
fn won_by_check(
    pos: &mut Position,
    check: Move,
    scope: Scope,
    lost: i32,
    checks: u32,
) -> Option<Threats> {
    if !scope.spend() {
        return Some(Threats::default());
    }
    pos.make_move(check);
    let mut common: Option<Threats> = None;
    for answer in pos.legal_moves() {
        let taken = pos.piece_at(answer.to());
        // Looking back past a check the mover was under (`scope.set_aside`), its
        // king stands attacked; that check is ignored throughout.
        if taken.is_some_and(|p| p.kind() == PieceKind::King) {
            continue;
        }
        // An answer that takes something (the checker, most often) costs
        // the checking side that much: the capture that follows must win
        // more than it, or the checks only trade material (得子, 29.3).
        let lost = lost + taken.map_or(0, |p| value(p, answer.to()));
        pos.make_move(answer);
        let mut t = direct_threats(pos, scope, lost);
        if checks > 1 {
            let more = won_after_checks(pos, scope, lost, checks - 1);
            t.by_pieces |= more.by_pieces;
            t.by_pawns = (t.by_pawns | more.by_pawns) & !t.by_pieces;
        }
        pos.unmake_move();
        // The piece that answered (a block, say) and is won where it went
        // is the piece chased: counted on the square it stands on now.
        let back = |mut b: Bitboard| {
            if b.has(answer.to()) {
                b.clear(answer.to());
                b.set(answer.from());
            }
            b
        };
        let t = Threats {
            by_pieces: back(t.by_pieces),
            by_pawns: back(t.by_pawns),
        };
        let acc = match common {
            None => t,
            Some(c) => {
                let by_pieces = c.by_pieces & t.by_pieces;
                Threats {
                    by_pieces,
                    by_pawns: c.all() & t.all() & !by_pieces,
                }
            }
        };
        common = Some(acc);
        if acc.all().is_empty() {
            break;
        }
    }
    pos.unmake_move();
    common
}

/// How a chase wins its target (29.1: 能够直接吃子；能够通过连续照将吃子；
/// 能够通过完整的交换过程得子).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum How {
    /// Taken next move and kept: nothing can take back with profit.
    Direct,
    /// Taken next move, and the exchange that follows on its square still
    /// leaves material ahead (a protected rook attacked by a knight or a
    /// cannon, say).
    Exchange,
    /// Won by a run of checks starting with this one and then, whatever
    /// the answers, a capture.
    Check(Move),
}

impl How {
    /// `direct`, `exchange` or `check`.
    pub fn as_str(self) -> &'static str {
        match self {
            How::Direct => "direct",
            How::Exchange => "exchange",
            How::Check(_) => "check",
        }
    }

    /// The checking move, for a target won through a check.
    pub fn check_move(self) -> Option<Move> {
        match self {
            How::Check(mv) => Some(mv),
            _ => None,
        }
    }
}

impl fmt::Display for How {
    /// `direct`, `by exchange`, `after the check f0e2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            How::Direct => f.write_str("direct"),
            How::Exchange => f.write_str("by exchange"),
            How::Check(mv) => write!(f, "after the check {mv}"),
        }
    }
}

/// How the side to move wins the target on `sq`, one that `threats(pos,
/// false, king, reach)` found (threatened by a pawn alone when `by_pawn`), for
/// reports: by a capture when one wins it (kept if any capture keeps it, else
/// by exchange), else by the first check, in generation order, that starts
/// one of the shortest runs winning it. The same tests as `threats`, asked of
/// one square; `None` if it is not a target.
pub fn how_won(
    pos: &mut Position,
    sq: Square,
    by_pawn: bool,
    king: bool,
    reach: Reach,
) -> Option<How> {
    let us = pos.side_to_move();
    let budget = Cell::new(reach.chase_nodes);
    let scope = Scope {
        set_aside: Bitboard::EMPTY,
        king,
        budget: &budget,
    };
    let mut caps = MoveList::new();
    pos.generate(GenType::Captures, &mut caps);
    let mut found = None;
    for mv in caps {
        if mv.to() != sq {
            continue;
        }
        let (Some(attacker), Some(target)) = (pos.piece_at(mv.from()), pos.piece_at(sq)) else {
            continue;
        };
        if (attacker.kind() == PieceKind::King && !king)
            || (attacker.kind() == PieceKind::Pawn) != by_pawn
            || !is_material(target, sq)
            || is_exchange_offer(pos, attacker, mv.from(), target, sq)
            || !wins_material(pos, mv, us, 0)
        {
            continue;
        }
        pos.make_move(mv);
        let kept = exchange_on(pos, sq) == 0;
        pos.unmake_move();
        if kept {
            return Some(How::Direct);
        }
        found = Some(How::Exchange);
    }
    if found.is_some() || !pos.color_bb(!us).has(sq) {
        return found;
    }
    let checks = opening_checks(pos, Bitboard::EMPTY);
    (1..=reach.chase_checks).find_map(|n| {
        checks.iter().find_map(|&check| {
            let t = won_by_check(pos, check, scope, 0, n)?;
            let won = if by_pawn { t.all() } else { t.by_pieces };
            won.has(sq).then_some(How::Check(check))
        })
    })
}

/// Targets whose capture wins more than `lost` (material already given up
/// on the way, 0 for a capture next move). Captures illegal only through
/// the check of the pieces `scope.set_aside` count.
fn direct_threats(pos: &mut Position, scope: Scope, lost: i32) -> Threats {
    let us = pos.side_to_move();
    let mut caps = MoveList::new();
    if scope.set_aside.any() && pos.in_check() {
        for mv in pos.pseudo_legal_moves() {
            if pos.is_capture(mv) && ignores_check(pos, mv, scope.set_aside) {
                caps.push(mv);
            }
        }
    } else {
        pos.generate(GenType::Captures, &mut caps);
    }
    let mut out = Threats::default();
    for mv in caps {
        let (from, to) = (mv.from(), mv.to());
        let (Some(attacker), Some(target)) = (pos.piece_at(from), pos.piece_at(to)) else {
            continue;
        };
        if (attacker.kind() == PieceKind::King && !scope.king) || !is_material(target, to) {
            continue;
        }
        if out.by_pieces.has(to) || (attacker.kind() == PieceKind::Pawn && out.by_pawns.has(to)) {
            continue;
        }
        if is_exchange_offer(pos, attacker, from, target, to) {
            continue;
        }
        if !wins_material(pos, mv, us, lost) {
            continue;
        }
        if attacker.kind() == PieceKind::Pawn {
            out.by_pawns.set(to);
        } else {
            out.by_pieces.set(to);
        }
    }
    out.by_pawns &= !out.by_pieces;
    out
}

/// A move illegal only through the check of the pieces `set_aside`: after
/// it, nothing else attacks the mover's king. A king move must be legal.
fn ignores_check(pos: &mut Position, mv: Move, set_aside: Bitboard) -> bool {
    if pos.piece_at(mv.from()).map(|p| p.kind()) == Some(PieceKind::King) {
        return pos.is_legal(mv);
    }
    let them = !pos.side_to_move();
    pos.make_move(mv);
    let after = pos.checkers_of(them);
    pos.unmake_move();
    (after & !set_aside).is_empty()
}

/// 兑 (28.5: 凡走子可与同等子力互换吃去者): the target is of the attacker's
/// kind and could take the attacker back, winning as much as the attacker
/// would. A blocked knight or a pinned piece cannot take back, and then it
/// is a real chase; nor is it an offer when taking the attacker wins the
/// target nothing (the attacker is protected) while the attacker wins the
/// target (unprotected): that is a chase that also offers a trade, judged
/// as a chase (细则5: 凡捉子兼具兑、献、送吃，也按捉处理).
fn is_exchange_offer(pos: &mut Position, a: Piece, from: Square, t: Piece, to: Square) -> bool {
    if a.kind() != t.kind() {
        return false;
    }
    pos.make_null();
    let back = Move::new(to, from);
    let offer = pos.is_legal(back) && wins_material(pos, back, t.color(), 0);
    pos.unmake_null();
    offer
}

/// Whether capturing with `mv` and the best exchange that follows on that
/// square leave `us` more than `lost` ahead, and the capture does not allow
/// mate at once (29.4).
fn wins_material(pos: &mut Position, mv: Move, us: Color, lost: i32) -> bool {
    let to = mv.to();
    let Some(target) = pos.piece_at(to) else {
        return false;
    };
    let gained = value(target, to);
    pos.make_move(mv);
    let ok = if pos.checkers_of(!us).any() {
        // Only in the relaxed look-back: the check set aside still stands,
        // so the exchange is read on the square alone.
        gained - exchange_on(pos, to) > lost
    } else {
        gained - exchange_on(pos, to) > lost && !has_mate_in_one(pos)
    };
    pos.unmake_move();
    ok
}

/// What the side to move gains by the best continuation of captures on `sq`
/// (least valuable capturer first, stopping when that is better).
/// When several capturers share the least value, the best of them is taken:
/// which one the generator meets first depends on where the pieces stand,
/// and a colour-mirrored position must be judged the same (the fuzzer found
/// cycles whose chases differed from their mirror's through that order).
/// A capture after which the opponent mates at once takes nothing back: a
/// protector whose recapture is mated is a root in form only (28.16, 假根),
/// as a capture that is mated is no chase (29.4); the next cheapest
/// capturer is asked instead.
pub fn exchange_on(pos: &mut Position, sq: Square) -> i32 {
    let Some(victim) = pos.piece_at(sq) else {
        return 0;
    };
    let mut caps = MoveList::new();
    pos.generate(GenType::Captures, &mut caps);
    // At most one entry per piece of the side to move (16).
    let mut by_value: ArrayVec<(i32, Move), 16> = caps
        .iter()
        .filter(|m| m.to() == sq)
        .filter_map(|&m| pos.piece_at(m.from()).map(|p| (value(p, m.from()), m)))
        .collect();
    by_value.sort_unstable_by_key(|&(v, _)| v);
    let gained = value(victim, sq);
    let mut best: Option<(i32, i32)> = None;
    for (v, mv) in by_value {
        if best.is_some_and(|(least, _)| v > least) {
            break;
        }
        pos.make_move(mv);
        if !has_mate_in_one(pos) {
            let got = gained - exchange_on(pos, sq);
            best = Some((v, best.map_or(got, |(_, b)| b.max(got))));
        }
        pos.unmake_move();
    }
    best.map_or(0, |(_, b)| b.max(0))
}

/// Whether the side to move can mate with one move.
pub fn has_mate_in_one(pos: &mut Position) -> bool {
    let info = pos.check_info();
    for mv in pos.legal_moves() {
        if !pos.gives_check_with(mv, &info) {
            continue;
        }
        pos.make_move(mv);
        let mate = !pos.has_legal_move();
        pos.unmake_move();
        if mate {
            return true;
        }
    }
    false
}

/// Targets as (piece, square) pairs, for reports.
pub fn describe(pos: &Position, targets: Bitboard) -> Vec<(Piece, Square)> {
    targets
        .filter_map(|sq| pos.piece_at(sq).map(|p| (p, sq)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        name.parse().unwrap()
    }

    /// Looking back past a check (`relaxed`), a run of checks that the
    /// check at hand makes illegal still counts: Red, in check from the
    /// knight b1, had Rxe6+ (a pawn of no value, with check), Kf9 forced,
    /// Rxi6 at hand before that check came. Not relaxed, none of it is legal.
    #[test]
    fn relaxed_threats_look_past_the_check_through_checks_too() {
        let mut pos = Position::from_fen("4k4/9/9/R3p3n/9/9/9/9/1n7/3K5 w - - 0 1").unwrap();
        assert!(pos.in_check());
        let (direct, through) = threats(&mut pos, true, false, Reach::SEARCH);
        assert!(direct.all().is_empty());
        assert!(through.by_pieces.has(sq("i6")), "{through:?}");
        let (direct, through) = threats(&mut pos, false, false, Reach::SEARCH);
        assert!(direct.all().is_empty() && through.all().is_empty());
    }

    /// Two checks in a row win the loose cannon (Rh9+ Ke8, Rh8+ Ke7/Ke9,
    /// Rxi8); with one check allowed it would not be found.
    #[test]
    fn a_run_of_two_checks_wins_material() {
        let mut pos = Position::from_fen("4k4/1n6c/9/7R1/9/9/9/9/9/3K5 w - - 0 1").unwrap();
        let (direct, through) = threats(&mut pos, false, false, Reach::SEARCH);
        assert!(direct.all().is_empty());
        assert!(through.by_pieces.has(sq("i8")) && through.by_pieces.has(sq("b8")));
        assert_eq!(
            won_after_checks(
                &mut pos,
                Scope {
                    set_aside: Bitboard::EMPTY,
                    king: false,
                    budget: &Cell::new(u32::MAX),
                },
                0,
                1
            )
            .all(),
            Bitboard::EMPTY
        );
        assert_eq!(
            how_won(&mut pos, sq("i8"), false, false, Reach::SEARCH),
            Some(How::Check("h6h9".parse().unwrap()))
        );
    }

    /// A look whose budget is spent finds less, never more: with no checks
    /// to spend, nothing is won through checks (the captures at hand are
    /// still found); with the referee's budget, the same as the search.
    #[test]
    fn a_spent_budget_wins_nothing_through_checks() {
        let mut pos = Position::from_fen("4k4/1n6c/9/7R1/9/9/9/9/9/3K5 w - - 0 1").unwrap();
        let broke = Reach {
            chase_nodes: 0,
            ..Reach::REFEREE
        };
        let (_, through) = threats(&mut pos, false, false, broke);
        assert!(through.all().is_empty());
        assert_eq!(how_won(&mut pos, sq("i8"), false, false, broke), None);
        assert_eq!(
            threats(&mut pos, false, false, Reach::REFEREE),
            threats(&mut pos, false, false, Reach::SEARCH)
        );
    }
}
