//! When to accept a draw offer, offer one, or resign (UCCI only: UCI has no
//! words for these). All three are cautious: accepting needs a position that
//! is really drawn or lost for us, offering and resigning need the same
//! verdict over several searches in a row.

use super::options::OptionMap;
use crate::board::{Move, PieceKind, Position};
use crate::rules;
use crate::search::Score;

/// A score this close to zero counts as level.
const DRAWISH_CP: i32 = 30;
/// Offers are made only on a position level by a narrower margin.
const OFFER_CP: i32 = 15;
/// Behind by this much a draw is worth more to us than playing on.
const ACCEPT_WHEN_BEHIND_CP: i32 = 300;

/// Whether to accept the opponent's draw offer after a search that scored
/// `score` with principal variation `pv` from `pos`.
pub fn accept_draw(pos: &Position, score: Score, pv: &[Move]) -> bool {
    match score {
        Score::Mate(n) => n <= 0,
        // Nobody can win: whatever small edge the evaluation sees is noise.
        Score::Cp(_) if rules::no_winning_material(pos) => true,
        Score::Cp(cp) if cp <= -ACCEPT_WHEN_BEHIND_CP => true,
        Score::Cp(cp) if cp.abs() <= DRAWISH_CP => low_material(pos) || repetition_ahead(pos, pv),
        Score::Cp(_) => false,
    }
}

/// Little left to win with: no rook on the board and at most two knights
/// and cannons between both sides.
pub fn low_material(pos: &Position) -> bool {
    pos.kind_bb(PieceKind::Rook).is_empty()
        && pos.kind_bb(PieceKind::Knight).count() + pos.kind_bb(PieceKind::Cannon).count() <= 2
}

/// Whether the principal variation returns to a position already seen (in
/// the game or earlier in the line): the search expects a repetition.
pub fn repetition_ahead(pos: &Position, pv: &[Move]) -> bool {
    let mut seen: Vec<u64> = pos.history().iter().map(|u| u.key).collect();
    seen.push(pos.key());
    let mut p = pos.clone();
    for &mv in pv {
        if !p.is_legal(mv) {
            return false;
        }
        p.make_move(mv);
        if seen.contains(&p.key()) {
            return true;
        }
        seen.push(p.key());
    }
    false
}

/// The scores of our recent game searches, oldest first.
#[derive(Default)]
pub struct ScoreTrack {
    scores: Vec<Score>,
    last: Option<Position>,
}

impl ScoreTrack {
    pub fn reset(&mut self) {
        self.scores.clear();
        self.last = None;
    }

    /// Records the result of a search in a game. A position that does not
    /// follow from the last one (another game, a set-up position) starts
    /// the record afresh.
    pub fn record(&mut self, pos: &Position, score: Score) {
        if !self.last.as_ref().is_some_and(|last| follows(last, pos)) {
            self.scores.clear();
        }
        self.scores.push(score);
        if self.scores.len() > 100 {
            self.scores.remove(0);
        }
        self.last = Some(pos.clone());
    }

    fn recent(&self, n: usize) -> Option<&[Score]> {
        (n > 0 && self.scores.len() >= n).then(|| &self.scores[self.scores.len() - n..])
    }

    pub fn resign_due(&self, opts: &OptionMap) -> bool {
        let resign_score = opts.resign_score();
        if resign_score <= 0 {
            return false;
        }
        self.recent(opts.resign_moves()).is_some_and(|s| {
            s.iter().all(|&sc| match sc {
                Score::Mate(n) => n <= 0,
                Score::Cp(cp) => cp <= -resign_score,
            })
        })
    }

    pub fn draw_offer_due(&self, opts: &OptionMap, pos: &Position) -> bool {
        low_material(pos)
            && self.recent(opts.draw_offer_moves()).is_some_and(|s| {
                s.iter()
                    .all(|&sc| matches!(sc, Score::Cp(cp) if cp.abs() <= OFFER_CP))
            })
    }
}

/// Whether `next` is `last` two plies on (our move and the reply). UCCI
/// GUIs restart the FEN after each capture, so when the history is too short
/// to show the link, the same side to move and no more pieces than before
/// have to do.
fn follows(last: &Position, next: &Position) -> bool {
    if last.side_to_move() != next.side_to_move() {
        return false;
    }
    let h = next.history();
    if h.len() >= 2 {
        return h[h.len() - 2].key == last.key();
    }
    next.occupied().count() <= last.occupied().count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).expect("test FEN")
    }

    #[test]
    fn accepts_only_drawn_or_lost() {
        let bare = pos("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1");
        assert!(accept_draw(&bare, Score::Cp(0), &[]));
        let start = Position::startpos();
        assert!(!accept_draw(&start, Score::Cp(0), &[]));
        assert!(!accept_draw(&start, Score::Cp(200), &[]));
        assert!(accept_draw(&start, Score::Cp(-500), &[]));
        assert!(accept_draw(&start, Score::Mate(-3), &[]));
        assert!(!accept_draw(&bare, Score::Mate(2), &[]));
    }

    #[test]
    fn repetition_in_the_pv() {
        let start = Position::startpos();
        let pv: Vec<Move> = ["b0c2", "b9c7", "c2b0", "c7b9"]
            .iter()
            .map(|m| m.parse().expect("move"))
            .collect();
        assert!(repetition_ahead(&start, &pv));
        assert!(!repetition_ahead(&start, &pv[..3]));
        assert!(accept_draw(&start, Score::Cp(0), &pv));
    }

    #[test]
    fn resign_needs_several_bad_scores_in_a_row() {
        let opts = OptionMap::default();
        let mut t = ScoreTrack::default();
        let p = Position::startpos();
        for _ in 0..opts.resign_moves() - 1 {
            t.record(&p, Score::Cp(-2000));
        }
        assert!(!t.resign_due(&opts));
        t.record(&p, Score::Mate(-4));
        assert!(t.resign_due(&opts));
        t.record(&p, Score::Cp(0));
        assert!(!t.resign_due(&opts));
    }
}
