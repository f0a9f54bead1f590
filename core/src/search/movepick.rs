//! Staged move ordering: the TT move before anything is generated, then
//! winning captures by MVV-LVA (capture history ordering like victims),
//! killers and the countermove, quiet moves by
//! history, and losing captures last. Most cutoffs happen before the quiet
//! moves are ever generated.

use super::history::{Heuristics, NO_CONT};
use super::see::see_ge;
use crate::board::{GenType, Move, MoveList, Position, MAX_MOVES};
use crate::eval::psqt::SEE_VALUE;
use arrayvec::ArrayVec;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Stage {
    Tt,
    GenCaptures,
    GoodCaptures,
    Killer0,
    Killer1,
    Counter,
    GenQuiets,
    Quiets,
    BadCaptures,
    GenEvasions,
    Evasions,
    QGenCaptures,
    QCaptures,
    Done,
}

pub struct MovePicker {
    stage: Stage,
    after_tt: Stage,
    tt_move: Move,
    refutations: [Move; 3],
    /// The moves of the current stage and their scores, side by side: the
    /// search for the best score reads the scores alone, packed.
    moves: MoveList,
    scores: ArrayVec<i32, MAX_MOVES>,
    cur: usize,
    bad: ArrayVec<Move, MAX_MOVES>,
    bad_cur: usize,
    /// Continuation keys of the moves one and two plies back.
    conts: [usize; 2],
    /// Set by the search once late quiet moves are pruned anyway.
    pub skip_quiets: bool,
}

/// Capture history is divided by this in the order of captures, so it moves
/// a capture by at most HISTORY_MAX / 64 = 256: about one step of victim
/// (pawn to advisor is 240). It orders captures of like victims and never
/// puts a pawn before a rook.
const CAPTURE_HISTORY_DIV: i32 = 64;

#[inline]
fn mvv_lva(pos: &Position, mv: Move) -> i32 {
    let victim = pos
        .piece_at(mv.to())
        .map_or(0, |p| SEE_VALUE[p.kind().index()]);
    let attacker = pos
        .piece_at(mv.from())
        .map_or(0, |p| SEE_VALUE[p.kind().index()].min(1000));
    victim * 16 - attacker / 8
}

/// The order of captures, in the main search and in quiescence alike.
#[inline]
fn capture_order(pos: &Position, heur: &Heuristics, mv: Move) -> i32 {
    mvv_lva(pos, mv) + heur.capture_score(pos, mv) / CAPTURE_HISTORY_DIV
}

impl MovePicker {
    /// For the main search. In check every legal move is an evasion and they
    /// are ordered together.
    pub fn new(
        pos: &Position,
        in_check: bool,
        tt_move: Move,
        killers: [Move; 2],
        counter: Move,
        conts: [usize; 2],
    ) -> Self {
        let after_tt = if in_check {
            Stage::GenEvasions
        } else {
            Stage::GenCaptures
        };
        let mut mp = Self::with(pos, tt_move, [killers[0], killers[1], counter], after_tt);
        mp.conts = conts;
        mp
    }

    /// For the quiescence search: captures, or all evasions when in check.
    pub fn new_qsearch(pos: &Position, tt_move: Move, in_check: bool) -> Self {
        let after_tt = if in_check {
            Stage::GenEvasions
        } else {
            Stage::QGenCaptures
        };
        let tt = if in_check || pos.is_capture(tt_move) {
            tt_move
        } else {
            Move::NONE
        };
        Self::with(pos, tt, [Move::NONE; 3], after_tt)
    }

    fn with(pos: &Position, tt_move: Move, refutations: [Move; 3], after_tt: Stage) -> Self {
        let tt_ok = !tt_move.is_none() && pos.is_legal(tt_move);
        MovePicker {
            stage: if tt_ok { Stage::Tt } else { after_tt },
            after_tt,
            tt_move: if tt_ok { tt_move } else { Move::NONE },
            refutations,
            moves: MoveList::new(),
            scores: ArrayVec::new(),
            cur: 0,
            bad: ArrayVec::new(),
            bad_cur: 0,
            conts: [NO_CONT; 2],
            skip_quiets: false,
        }
    }

    /// Takes the best-scored remaining move (selection sort: most nodes look
    /// at only a few moves), the first of equals. The best score is found
    /// first, over the scores alone, in a loop the compiler vectorises, and
    /// then where it is: one loop tracking both took a third of the
    /// picker's instructions.
    #[inline]
    fn pick_best(&mut self) -> Option<Move> {
        let rest = &self.scores[self.cur..];
        if rest.is_empty() {
            return None;
        }
        // A fold over values (not `max()`, which keeps a reference to the
        // element) is what vectorises.
        let top = rest.iter().fold(i32::MIN, |a, &b| a.max(b));
        let best = self.cur + rest.iter().position(|&s| s == top).unwrap_or(0);
        self.scores.swap(self.cur, best);
        self.moves.swap(self.cur, best);
        let mv = self.moves[self.cur];
        self.cur += 1;
        Some(mv)
    }

    fn fill(&mut self, pos: &Position, gen: GenType, score: impl Fn(Move) -> i32) {
        pos.generate(gen, &mut self.moves);
        if let Some(i) = self.moves.iter().position(|&m| m == self.tt_move) {
            // Removed in place: the order of the rest breaks ties.
            self.moves.remove(i);
        }
        self.scores.clear();
        self.scores.extend(self.moves.iter().map(|&m| score(m)));
        self.cur = 0;
    }

    fn is_refutation(&self, mv: Move) -> bool {
        self.refutations.contains(&mv)
    }

    /// A killer or countermove is only a guess carried from another position:
    /// play it only if it is a legal quiet move here and not already tried.
    fn refutation_ok(&self, pos: &Position, i: usize) -> bool {
        let mv = self.refutations[i];
        !mv.is_none()
            && mv != self.tt_move
            && !self.refutations[..i].contains(&mv)
            && !pos.is_capture(mv)
            && pos.is_legal(mv)
    }

    pub fn next(&mut self, pos: &Position, heur: &Heuristics) -> Option<Move> {
        loop {
            match self.stage {
                Stage::Tt => {
                    self.stage = self.after_tt;
                    return Some(self.tt_move);
                }
                Stage::GenCaptures => {
                    self.fill(pos, GenType::Captures, |m| capture_order(pos, heur, m));
                    self.stage = Stage::GoodCaptures;
                }
                Stage::GoodCaptures => match self.pick_best() {
                    Some(mv) => {
                        if see_ge(pos, mv, 0) {
                            return Some(mv);
                        }
                        self.bad.push(mv);
                    }
                    None => self.stage = Stage::Killer0,
                },
                Stage::Killer0 | Stage::Killer1 | Stage::Counter => {
                    let i = self.stage as usize - Stage::Killer0 as usize;
                    self.stage = match self.stage {
                        Stage::Killer0 => Stage::Killer1,
                        Stage::Killer1 => Stage::Counter,
                        _ => Stage::GenQuiets,
                    };
                    if !self.skip_quiets && self.refutation_ok(pos, i) {
                        return Some(self.refutations[i]);
                    }
                }
                Stage::GenQuiets => {
                    if self.skip_quiets {
                        self.stage = Stage::BadCaptures;
                        continue;
                    }
                    let conts = self.conts;
                    self.fill(pos, GenType::Quiets, |m| heur.quiet_score(pos, m, conts));
                    self.stage = Stage::Quiets;
                }
                Stage::Quiets => {
                    if self.skip_quiets {
                        self.stage = Stage::BadCaptures;
                        continue;
                    }
                    match self.pick_best() {
                        Some(mv) if self.is_refutation(mv) => continue,
                        Some(mv) => return Some(mv),
                        None => self.stage = Stage::BadCaptures,
                    }
                }
                Stage::BadCaptures => {
                    if self.bad_cur < self.bad.len() {
                        self.bad_cur += 1;
                        return Some(self.bad[self.bad_cur - 1]);
                    }
                    self.stage = Stage::Done;
                }
                Stage::GenEvasions => {
                    let conts = self.conts;
                    self.fill(pos, GenType::All, |m| {
                        if pos.is_capture(m) {
                            (1 << 20) + mvv_lva(pos, m)
                        } else {
                            heur.quiet_score(pos, m, conts)
                        }
                    });
                    self.stage = Stage::Evasions;
                }
                Stage::Evasions | Stage::QCaptures => match self.pick_best() {
                    Some(mv) => return Some(mv),
                    None => self.stage = Stage::Done,
                },
                Stage::QGenCaptures => {
                    self.fill(pos, GenType::Captures, |m| capture_order(pos, heur, m));
                    self.stage = Stage::QCaptures;
                }
                Stage::Done => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::history::HISTORY_MAX;

    /// The captures of a quiescence picker, in the order it gives them.
    fn captures(pos: &Position, heur: &Heuristics) -> Vec<String> {
        let mut mp = MovePicker::new_qsearch(pos, Move::NONE, false);
        let mut out = Vec::new();
        while let Some(mv) = mp.next(pos, heur) {
            out.push(mv.to_string());
        }
        out
    }

    /// Pushes a capture's history to one end of its range.
    fn saturate(heur: &mut Heuristics, pos: &Position, mv: &str, sign: i32) {
        for _ in 0..200 {
            heur.update_capture(pos, mv.parse().unwrap(), sign * HISTORY_MAX / 8);
        }
    }

    #[test]
    fn capture_history_orders_captures_of_like_victims() {
        // The rook e4 can take the pawn e5 or the pawn g4.
        let pos = Position::from_fen("5k3/9/9/9/4p4/4R1p2/9/9/9/3K5 w - - 0 1").unwrap();
        let mut heur = Heuristics::default();
        saturate(&mut heur, &pos, "e4g4", 1);
        assert_eq!(captures(&pos, &heur), ["e4g4", "e4e5"]);
        let mut heur = Heuristics::default();
        saturate(&mut heur, &pos, "e4e5", 1);
        assert_eq!(captures(&pos, &heur), ["e4e5", "e4g4"]);
    }

    #[test]
    fn capture_history_never_puts_a_pawn_before_a_rook() {
        // The rook e4 can take the pawn e5 or the rook a4: however the
        // histories stand, the rook comes first.
        let pos = Position::from_fen("5k3/9/9/9/4p4/r3R4/9/9/9/3K5 w - - 0 1").unwrap();
        let mut heur = Heuristics::default();
        saturate(&mut heur, &pos, "e4e5", 1);
        saturate(&mut heur, &pos, "e4a4", -1);
        assert_eq!(captures(&pos, &heur), ["e4a4", "e4e5"]);
    }
}
