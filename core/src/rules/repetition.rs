//! Repetition (棋例): find the cycle, classify its moves, judge it by the
//! table of seeds 26.1-26.4 (see docs/RULES.md, "The verdict").

use super::classify::{describe_move, play_and_classify, ClassifiedMove, Facts};
use super::{MustVary, Outcome, Reach, Reason, RepetitionScore, Verdict};
use crate::board::{Color, Move, Position};

/// One side's moves in a judged stretch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SideCycle {
    /// 长将: every move a check.
    pub perpetual_check: bool,
    /// 长打: every move a check, mate threat or chase (a forbidden cycle).
    pub forbidden: bool,
    /// The same with pawn attacks counted as chases (27.2, mutual attack).
    pub forbidden_with_pawns: bool,
}

impl SideCycle {
    fn new() -> SideCycle {
        SideCycle {
            perpetual_check: true,
            forbidden: true,
            forbidden_with_pawns: true,
        }
    }

    fn add(&mut self, f: &Facts) {
        self.perpetual_check &= f.check;
        self.forbidden &= f.class().is_attack();
        self.forbidden_with_pawns &= f.class_with_pawns().is_attack();
    }

    /// Nothing this side still plays can change its summary.
    fn settled(&self) -> bool {
        !self.perpetual_check && !self.forbidden && !self.forbidden_with_pawns
    }
}

/// The repetition found in a game and how it is judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CycleReport {
    /// Which occurrence of the position `pos` is (2 for the first repeat).
    pub occurrence: usize,
    /// Index in `history()` of the first move of the judged stretch: the last
    /// cycle at the second occurrence, the last two cycles from the third on.
    pub start_ply: usize,
    pub moves: Vec<ClassifiedMove>,
    pub red: SideCycle,
    pub black: SideCycle,
    /// Set from the third occurrence on.
    pub verdict: Option<Verdict>,
    /// Set with a perpetual-attack verdict: who must vary and with what move.
    pub must_vary: Option<MustVary>,
}

/// The outcome of a judged stretch and the side that loses it, if any.
fn decide(red: SideCycle, black: SideCycle) -> (Outcome, Reason, Option<Color>) {
    let loses = |c: Color, r: Reason| (Outcome::win_for(!c), r, Some(c));
    let draw = (Outcome::Draw, Reason::RepetitionDraw, None);
    match (red.perpetual_check, black.perpetual_check) {
        (true, true) => return draw,
        (true, false) => return loses(Color::Red, Reason::PerpetualCheck),
        (false, true) => return loses(Color::Black, Reason::PerpetualCheck),
        (false, false) => {}
    }
    // 27.2: when both sides attack in every move, pawn attacks count too.
    let mutual = red.forbidden_with_pawns && black.forbidden_with_pawns;
    match (red.forbidden, black.forbidden) {
        _ if mutual => draw,
        (true, false) => loses(Color::Red, Reason::PerpetualAttack),
        (false, true) => loses(Color::Black, Reason::PerpetualAttack),
        _ => draw,
    }
}

/// Earlier plies whose position equals the current one, most recent first.
/// The search stops at the last capture, before which no position can recur.
fn earlier_occurrences(pos: &Position) -> Vec<usize> {
    let key = pos.key();
    let mut out = Vec::new();
    for (i, u) in pos.history().iter().enumerate().rev() {
        if u.key == key {
            out.push(i);
        }
        if u.captured.is_some() {
            break;
        }
    }
    out
}

/// Summarises both sides over the moves from `start` to the end of the
/// history, looking as far as `reach` allows. The moves are taken back on
/// `pos` itself and played again one by one as they are classified, so
/// `pos` ends as it began and nothing (its history least of all) is copied.
fn summarise(
    pos: &mut Position,
    start: usize,
    reach: Reach,
    mut report: Option<&mut Vec<ClassifiedMove>>,
) -> [SideCycle; 2] {
    let moves: Vec<Move> = pos.history()[start..].iter().map(|u| u.mv).collect();
    for mv in moves.iter().rev() {
        if mv.is_none() {
            pos.unmake_null();
        } else {
            pos.unmake_move();
        }
    }
    let mut sides = [SideCycle::new(); 2];
    for &mv in &moves {
        let side = pos.side_to_move();
        let s = &mut sides[side.index()];
        if report.is_none() && s.settled() {
            if mv.is_none() {
                pos.make_null();
            } else {
                pos.make_move(mv);
            }
            continue;
        }
        let facts = play_and_classify(pos, mv, report.is_some(), reach);
        s.add(&facts);
        if let Some(r) = report.as_deref_mut() {
            r.push(describe_move(pos, mv, side, &facts, reach));
        }
    }
    sides
}

/// The judged stretch's start and the most recent earlier occurrence, from
/// the third occurrence on.
fn judged_stretch(occ: &[usize]) -> Option<(usize, usize)> {
    Some((*occ.get(1)?, *occ.first()?))
}

/// The verdict of a judged stretch and, for a perpetual attack, who must
/// vary: the position now is the one the last cycle (from `last`) started
/// from, so the offender's next move in that cycle is the one to avoid.
fn verdict_of(
    pos: &Position,
    last: usize,
    red: SideCycle,
    black: SideCycle,
) -> (Verdict, Option<MustVary>) {
    let (outcome, reason, loser) = decide(red, black);
    let must_vary = loser
        .filter(|_| reason == Reason::PerpetualAttack)
        .and_then(|side| {
            let first = if side == pos.side_to_move() {
                last
            } else {
                last + 1
            };
            let banned = pos.history().get(first)?.mv;
            Some(MustVary { side, banned })
        });
    (Verdict { outcome, reason }, must_vary)
}

/// The repetition verdict alone (classifying only as far as needed): set
/// from the third occurrence of the current position on.
pub(crate) fn repetition_verdict(pos: &Position) -> Option<(Verdict, Option<MustVary>)> {
    let occ = earlier_occurrences(pos);
    let (start, last) = judged_stretch(&occ)?;
    let [red, black] = summarise(&mut pos.clone(), start, Reach::REFEREE, None);
    Some(verdict_of(pos, last, red, black))
}

/// The repetition of the current position, if it occurred before: the cycle
/// classified move by move and, from the third occurrence on, the verdict.
pub fn judge_repetition(pos: &Position) -> Option<CycleReport> {
    let occ = earlier_occurrences(pos);
    let last = *occ.first()?;
    let start = occ.get(1).copied().unwrap_or(last);
    let mut moves = Vec::new();
    let [red, black] = summarise(&mut pos.clone(), start, Reach::REFEREE, Some(&mut moves));
    let mut report = CycleReport {
        occurrence: occ.len() + 1,
        start_ply: start,
        moves,
        red,
        black,
        verdict: None,
        must_vary: None,
    };
    if judged_stretch(&occ).is_some() {
        let (verdict, must_vary) = verdict_of(pos, last, red, black);
        report.verdict = Some(verdict);
        report.must_vary = must_vary;
    }
    Some(report)
}

/// How the cycle of the last `plies_back` plies ends for the side to move,
/// judged on `pos` in place (it ends as it began).
pub(crate) fn score_cycle(pos: &mut Position, plies_back: usize) -> RepetitionScore {
    let n = pos.history().len();
    if plies_back == 0 || plies_back > n {
        return RepetitionScore::Draw;
    }
    let [red, black] = summarise(pos, n - plies_back, Reach::SEARCH, None);
    match decide(red, black) {
        (_, _, None) => RepetitionScore::Draw,
        (_, Reason::PerpetualCheck, Some(c)) if c == pos.side_to_move() => RepetitionScore::Loss,
        (_, _, Some(c)) if c == pos.side_to_move() => RepetitionScore::Vary,
        (_, _, Some(_)) => RepetitionScore::Win,
    }
}

/// Cycles already scored, for the search: it meets the same cycle again and
/// again, and a cycle's score depends on nothing but its positions. Each
/// search thread owns one, kept from search to search.
pub struct CycleCache {
    slots: Box<[(u64, RepetitionScore)]>,
}

const CACHE_SLOTS: usize = 4096;

impl Default for CycleCache {
    fn default() -> Self {
        CycleCache {
            slots: vec![(0, RepetitionScore::Draw); CACHE_SLOTS].into_boxed_slice(),
        }
    }
}

impl CycleCache {
    /// `score_cycle`, from the cache when this cycle was scored before.
    pub fn score(&mut self, pos: &mut Position, plies_back: usize) -> RepetitionScore {
        let n = pos.history().len();
        if plies_back == 0 || plies_back > n {
            return RepetitionScore::Draw;
        }
        let key = cycle_key(pos, n - plies_back);
        let slot = &mut self.slots[(key % CACHE_SLOTS as u64) as usize];
        if slot.0 == key {
            return slot.1;
        }
        let score = score_cycle(pos, plies_back);
        *slot = (key, score);
        score
    }
}

/// A fingerprint of the cycle: the keys of its positions in order.
fn cycle_key(pos: &Position, start: usize) -> u64 {
    pos.history()[start..]
        .iter()
        .fold(pos.key(), |h, u| h.rotate_left(9) ^ u.key)
        | 1 // never 0, the empty slot
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(perpetual_check: bool, forbidden: bool, forbidden_with_pawns: bool) -> SideCycle {
        SideCycle {
            perpetual_check,
            forbidden,
            forbidden_with_pawns,
        }
    }

    /// The verdict table of seeds 26.1-26.4 (docs/RULES.md), every row.
    #[test]
    fn verdict_table() {
        let check = side(true, true, true);
        let attack = side(false, true, true);
        let idle = side(false, false, false);
        let pawn_attack = side(false, false, true);
        let red_loses = |r| (Outcome::BlackWins, r, Some(Color::Red));
        let black_loses = |r| (Outcome::RedWins, r, Some(Color::Black));
        let draw = (Outcome::Draw, Reason::RepetitionDraw, None);
        assert_eq!(decide(check, idle), red_loses(Reason::PerpetualCheck));
        assert_eq!(decide(check, attack), red_loses(Reason::PerpetualCheck));
        assert_eq!(decide(attack, check), black_loses(Reason::PerpetualCheck));
        assert_eq!(decide(check, check), draw);
        assert_eq!(decide(attack, idle), red_loses(Reason::PerpetualAttack));
        assert_eq!(decide(idle, attack), black_loses(Reason::PerpetualAttack));
        assert_eq!(decide(attack, attack), draw);
        assert_eq!(decide(idle, idle), draw);
        // 27.2: a pawn's attacks count once both sides attack throughout.
        assert_eq!(decide(attack, pawn_attack), draw);
        assert_eq!(decide(pawn_attack, idle), draw);
    }
}
