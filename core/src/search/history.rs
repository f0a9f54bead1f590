//! Move-ordering memory kept between nodes and between searches of one game:
//! the butterfly history of quiet moves, the continuation history of quiet
//! replies to the moves one and two plies earlier, the capture history, and
//! the countermove table.

use crate::board::{Move, Piece, Position};

/// History values stay inside ±HISTORY_MAX by the gravity update.
pub const HISTORY_MAX: i32 = 16384;

/// A (piece, destination) pair flattened to one index, the key of the
/// continuation history on both sides.
const PIECE_TO: usize = 14 * 90;

/// A continuation key standing for "no move" (the root, or a null move):
/// its row is read like any other but never rewarded.
pub const NO_CONT: usize = PIECE_TO;

pub struct Heuristics {
    /// [side][from][to]: how often a quiet move caused a cutoff lately.
    history: Box<[[[i32; 90]; 90]; 2]>,
    /// [earlier piece-to][piece-to]: how well a quiet move answered an
    /// earlier move. The row NO_CONT stays zero.
    cont: Box<[i16]>,
    /// [piece][to][captured kind]: how often a capture caused a cutoff
    /// lately, to order captures of the same victim.
    capture: Box<[[[i16; 7]; 90]; 14]>,
    /// [piece][to] of the previous move: the quiet reply that refuted it.
    counter: Box<[[Move; 90]; 14]>,
}

impl Default for Heuristics {
    fn default() -> Self {
        Heuristics {
            history: Box::new([[[0; 90]; 90]; 2]),
            // Built on the heap: 3 MB is too much for a thread's stack.
            cont: vec![0; (PIECE_TO + 1) * PIECE_TO].into_boxed_slice(),
            capture: Box::new([[[0; 7]; 90]; 14]),
            counter: Box::new([[Move::NONE; 90]; 14]),
        }
    }
}

/// The continuation key of `mv` by `piece`.
#[inline]
pub fn cont_key(piece: Piece, mv: Move) -> usize {
    piece.index() * 90 + mv.to().index()
}

#[inline]
fn gravity(h: i32, bonus: i32) -> i32 {
    h + bonus - h * bonus.abs() / HISTORY_MAX
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
        *h = gravity(*h, bonus);
    }

    /// The continuation score of the move with key `key` after the earlier
    /// move with key `earlier`.
    #[inline]
    pub fn cont(&self, earlier: usize, key: usize) -> i32 {
        self.cont[earlier * PIECE_TO + key] as i32
    }

    #[inline]
    pub fn update_cont(&mut self, earlier: usize, key: usize, bonus: i32) {
        if earlier == NO_CONT {
            return;
        }
        let h = &mut self.cont[earlier * PIECE_TO + key];
        *h = gravity(*h as i32, bonus) as i16;
    }

    /// The capture history of `mv` here (0 for a move that takes nothing).
    #[inline]
    pub fn capture_score(&self, pos: &Position, mv: Move) -> i32 {
        match (pos.piece_at(mv.from()), pos.piece_at(mv.to())) {
            (Some(p), Some(v)) => self.capture[p.index()][mv.to().index()][v.kind().index()] as i32,
            _ => 0,
        }
    }

    #[inline]
    pub fn update_capture(&mut self, pos: &Position, mv: Move, bonus: i32) {
        if let (Some(p), Some(v)) = (pos.piece_at(mv.from()), pos.piece_at(mv.to())) {
            let h = &mut self.capture[p.index()][mv.to().index()][v.kind().index()];
            *h = gravity(*h as i32, bonus) as i16;
        }
    }

    /// Butterfly and continuation history together, the order of quiet moves.
    #[inline]
    pub fn quiet_score(&self, pos: &Position, mv: Move, conts: [usize; 2]) -> i32 {
        let side = pos.side_to_move().index();
        let mut s = self.quiet(side, mv);
        if let Some(p) = pos.piece_at(mv.from()) {
            let k = cont_key(p, mv);
            s += self.cont(conts[0], k) + self.cont(conts[1], k);
        }
        s
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Color, PieceKind, START_FEN};

    #[test]
    fn continuation_history_rewards_the_reply_to_its_earlier_move() {
        let pos = Position::from_fen(START_FEN).unwrap();
        let mut h = Heuristics::default();
        let earlier = cont_key(
            Piece::new(Color::Black, PieceKind::Knight),
            "h9g7".parse().unwrap(),
        );
        let reply: Move = "h2e2".parse().unwrap();
        let key = cont_key(pos.piece_at(reply.from()).unwrap(), reply);
        h.update_cont(earlier, key, 500);
        assert_eq!(h.cont(earlier, key), 500);
        // Counted once for each earlier move it is keyed to.
        assert_eq!(h.quiet_score(&pos, reply, [earlier, NO_CONT]), 500);
        assert_eq!(h.quiet_score(&pos, reply, [earlier, earlier]), 1000);
        // Another earlier move knows nothing of it.
        assert_eq!(h.quiet_score(&pos, reply, [NO_CONT, NO_CONT]), 0);
    }

    #[test]
    fn capture_history_is_kept_per_victim_and_bounded() {
        // The rook e4 can take the pawn e5; e4-e3 takes nothing.
        let pos = Position::from_fen("5k3/9/9/9/4p4/4R4/9/9/9/3K5 w - - 0 1").unwrap();
        let mut h = Heuristics::default();
        let take: Move = "e4e5".parse().unwrap();
        h.update_capture(&pos, take, 500);
        assert_eq!(h.capture_score(&pos, take), 500);
        for _ in 0..1000 {
            h.update_capture(&pos, take, -HISTORY_MAX / 8);
        }
        assert!(h.capture_score(&pos, take) < 0 && h.capture_score(&pos, take) >= -HISTORY_MAX);
        // A move that takes nothing has no capture history and changes none.
        let quiet: Move = "e4e3".parse().unwrap();
        h.update_capture(&pos, quiet, 500);
        assert_eq!(h.capture_score(&pos, quiet), 0);
    }

    #[test]
    fn continuation_history_stays_bounded_and_ignores_no_move() {
        let mut h = Heuristics::default();
        for _ in 0..1000 {
            h.update_cont(3, 7, HISTORY_MAX / 8);
            h.update_cont(NO_CONT, 7, HISTORY_MAX / 8);
        }
        assert!(h.cont(3, 7) > 0 && h.cont(3, 7) <= HISTORY_MAX);
        assert_eq!(h.cont(NO_CONT, 7), 0);
    }
}
