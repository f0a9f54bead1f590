//! Move-ordering memory kept between nodes and between searches of one game:
//! the butterfly history of quiet moves and the countermove table.

use crate::board::{Move, Piece, Position};

/// History values stay inside ±HISTORY_MAX by the gravity update.
pub const HISTORY_MAX: i32 = 16384;

pub struct Heuristics {
    /// [side][from][to]: how often a quiet move caused a cutoff lately.
    history: Box<[[[i32; 90]; 90]; 2]>,
    /// [piece][to] of the previous move: the quiet reply that refuted it.
    counter: Box<[[Move; 90]; 14]>,
}

impl Default for Heuristics {
    fn default() -> Self {
        Heuristics {
            history: Box::new([[[0; 90]; 90]; 2]),
            counter: Box::new([[Move::NONE; 90]; 14]),
        }
    }
}

impl Heuristics {
    pub fn clear(&mut self) {
        *self = Heuristics::default();
    }

    #[inline]
    pub fn quiet(&self, side: usize, mv: Move) -> i32 {
        self.history[side][mv.from().index()][mv.to().index()]
    }

    /// Moves the entry towards ±HISTORY_MAX by `bonus`, slower the nearer it is.
    #[inline]
    pub fn update_quiet(&mut self, side: usize, mv: Move, bonus: i32) {
        let h = &mut self.history[side][mv.from().index()][mv.to().index()];
        *h += bonus - *h * bonus.abs() / HISTORY_MAX;
    }

    #[inline]
    pub fn counter(&self, prev: Option<(Piece, Move)>) -> Move {
        match prev {
            Some((p, m)) => self.counter[p.index()][m.to().index()],
            None => Move::NONE,
        }
    }

    #[inline]
    pub fn set_counter(&mut self, prev: Option<(Piece, Move)>, reply: Move) {
        if let Some((p, m)) = prev {
            self.counter[p.index()][m.to().index()] = reply;
        }
    }
}

/// The last move made on `pos` and the piece that made it (None after a null move).
#[inline]
pub fn previous_move(pos: &Position) -> Option<(Piece, Move)> {
    let last = pos.history().last()?;
    if last.mv.is_none() {
        return None;
    }
    pos.piece_at(last.mv.to()).map(|p| (p, last.mv))
}
