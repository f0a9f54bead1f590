//! Evaluation: one entry point for the search, `Evaluator::evaluate`, in
//! front of either the NNUE network or the hand-crafted evaluation.
//!
//! Incremental evaluation state cannot live in `Position`, which is cloned
//! freely (threads, the rules judge) and knows nothing of evaluations; each
//! search thread owns an `Evaluator` instead, pushed and popped around each
//! move and fed by what the move changed (the moved piece, the captured
//! one). Only the evaluation in use keeps state: with the network, a stack
//! of accumulators; with the hand-crafted evaluation, the stack of
//! material and piece-square sums (`psqt`). Network updates are lazy: a
//! pushed frame only records its changes, and the accumulator is computed
//! when the position is evaluated, from the nearest computed ancestor, so
//! nodes cut before evaluating cost no update. With king buckets, a king
//! move changes how its side reads the whole board: that frame also keeps
//! the pieces after the move, and that side's accumulator is computed
//! afresh from them when the frame is caught up.

mod hce;
pub mod psqt;
mod trace;

pub use trace::{trace, EvalTrace};

use crate::board::{Move, Piece, PieceKind, Position, Square};
use crate::nnue::aligned::AlignedI16;
use crate::nnue::net::{views_of, Accumulator, Changes, Network, View};
use crate::nnue::simd::Kernel;
use arrayvec::ArrayVec;
use std::sync::Arc;

/// Evaluations stay well inside this bound, far from mate and rule-win scores.
pub const EVAL_LIMIT: i32 = 20000;

/// The hand-crafted evaluation in centipawns from the side to move's point
/// of view (a knight or cannon is about 100 in the middle game), from
/// scratch; the search uses an `Evaluator` instead.
#[inline]
pub fn hce_evaluate(pos: &Position) -> i32 {
    hce_with_sum(pos, psqt::sum(pos))
}

#[inline]
fn hce_with_sum(pos: &Position, psq: psqt::Packed) -> i32 {
    hce::evaluate(pos, psq).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// A ply's record of the network's state (its accumulator is in
/// `Evaluator::accs`).
#[derive(Default)]
struct Frame {
    changes: Changes,
    computed: bool,
    /// Pieces on the board (they choose the network's output bucket).
    pieces: u8,
}

/// A search thread's evaluation state (see the module doc).
pub struct Evaluator {
    net: Option<Arc<Network>>,
    /// One frame per ply (network only).
    frames: Vec<Frame>,
    /// The frames' accumulators, `2 * hidden` values each, one after the
    /// other (each starts a cache line: the widths are multiples of 256).
    accs: AlignedI16,
    /// The pieces after a frame's king move, by frame (written only then,
    /// and only for a network with king buckets).
    boards: Vec<ArrayVec<(Square, Piece), 90>>,
    /// The network's king buckets (1: none).
    kings: usize,
    /// The hand-crafted evaluation's sums, one per ply (without a network).
    sums: Vec<psqt::Packed>,
    top: usize,
}

impl Evaluator {
    /// An evaluator with the network (None: the hand-crafted evaluation),
    /// set up for `pos`.
    pub fn new(net: Option<Arc<Network>>, pos: &Position) -> Evaluator {
        let kings = net.as_ref().map_or(1, |n| n.kings());
        let mut e = Evaluator {
            net,
            frames: Vec::new(),
            accs: AlignedI16::default(),
            boards: Vec::new(),
            kings,
            sums: Vec::new(),
            top: 0,
        };
        e.reset(pos);
        e
    }

    pub fn uses_network(&self) -> bool {
        self.net.is_some()
    }

    /// Starts over at `pos` (a full refresh of the root accumulator).
    pub fn reset(&mut self, pos: &Position) {
        self.top = 0;
        let Some(net) = &self.net else {
            self.sums.clear();
            self.sums.push(psqt::sum(pos));
            return;
        };
        if self.frames.is_empty() {
            self.frames.push(Frame::default());
            self.boards.push(ArrayVec::new());
            self.accs.resize(2 * net.hidden());
        }
        net.refresh(pieces_of(pos), &mut self.accs[..]);
        let board: ArrayVec<(Square, Piece), 90> = pieces_of(pos).collect();
        self.frames[0].changes.views = views_of(&board, self.kings);
        self.frames[0].computed = true;
        self.frames[0].pieces = piece_count(pos) as u8;
    }

    /// Pushes a frame with `changes`, whose views are the parent's unless
    /// a king move set them.
    fn push_frame(&mut self, mut changes: Changes) {
        // A capture removes two pieces' features and adds one.
        let pieces = self.frames[self.top].pieces - (changes.removed.len() == 2) as u8;
        if self.kings > 1 && changes.refresh.is_none() {
            changes.views = self.frames[self.top].changes.views;
        }
        self.top += 1;
        if self.frames.len() <= self.top {
            self.frames.push(Frame::default());
            self.boards.push(ArrayVec::new());
            let stride = self.net.as_ref().map_or(0, |n| 2 * n.hidden());
            self.accs.resize(stride * (self.top + 1));
        }
        let f = &mut self.frames[self.top];
        f.changes = changes;
        f.computed = false;
        f.pieces = pieces;
    }

    /// Call before `pos.make_move(mv)`.
    #[inline]
    pub fn push(&mut self, pos: &Position, mv: Move) {
        if self.net.is_none() {
            self.push_sum(self.sums[self.top].wrapping_add(psqt::delta(pos, mv)));
            return;
        }
        let mut c = Changes::default();
        if let Some(p) = pos.piece_at(mv.from()) {
            c.removed.push((mv.from(), p));
            c.added.push((mv.to(), p));
        }
        if let Some(cap) = pos.piece_at(mv.to()) {
            c.removed.push((mv.to(), cap));
        }
        if self.kings > 1 {
            if let Some(p) = pos
                .piece_at(mv.from())
                .filter(|p| p.kind() == PieceKind::King)
            {
                self.push_king_move(pos, mv, p, c);
                return;
            }
        }
        self.push_frame(c);
    }

    /// A king move with king buckets: its side's view changes, and the
    /// frame keeps the pieces after the move to compute that side afresh.
    #[cold]
    fn push_king_move(&mut self, pos: &Position, mv: Move, king: Piece, mut c: Changes) {
        let side = king.color();
        let mut views = self.frames[self.top].changes.views;
        let view = View::new(side, mv.to(), self.kings);
        if view != views[side.index()] {
            views[side.index()] = view;
            c.refresh = Some(side);
        }
        c.views = views;
        self.push_frame(c);
        let board = &mut self.boards[self.top];
        board.clear();
        board.extend(pieces_of(pos).filter(|&(sq, _)| sq != mv.from() && sq != mv.to()));
        board.push((mv.to(), king));
    }

    fn push_sum(&mut self, sum: psqt::Packed) {
        self.top += 1;
        if self.sums.len() > self.top {
            self.sums[self.top] = sum;
        } else {
            self.sums.push(sum);
        }
    }

    /// Call before `pos.make_null()`.
    #[inline]
    pub fn push_null(&mut self) {
        if self.net.is_none() {
            self.push_sum(self.sums[self.top]);
            return;
        }
        self.push_frame(Changes::default());
    }

    /// Call after `pos.unmake_move()` or `pos.unmake_null()`.
    #[inline]
    pub fn pop(&mut self) {
        debug_assert!(self.top > 0);
        self.top -= 1;
    }

    /// The static evaluation of `pos` (the position the pushes led to), in
    /// centipawns from the side to move's view.
    #[inline]
    pub fn evaluate(&mut self, pos: &Position) -> i32 {
        let Some(net) = &self.net else {
            debug_assert_eq!(self.sums[self.top], psqt::sum(pos));
            return hce_with_sum(pos, self.sums[self.top]);
        };
        let mut k = self.top;
        while !self.frames[k].computed {
            k -= 1;
        }
        debug_assert_eq!(self.frames[self.top].pieces as usize, piece_count(pos));
        net.run(CatchUp {
            net,
            frames: &mut self.frames[k..=self.top],
            boards: &self.boards[k..=self.top],
            accs: &mut self.accs[k * 2 * net.hidden()..],
            stm: pos.side_to_move(),
        })
        .clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    /// The current accumulators brought up to date, Red's then Black's
    /// (for tests).
    pub fn accumulator(&mut self, pos: &Position) -> Option<&[i16]> {
        let stride = 2 * self.net.as_ref()?.hidden();
        self.evaluate(pos);
        Some(&self.accs[self.top * stride..(self.top + 1) * stride])
    }
}

/// The evaluation of the last of `frames`: the accumulators of the frames
/// after the first (which is computed) brought up to date, then the
/// output. One kernel, so the whole of it runs in the network's instance
/// (width, instruction set) with one dispatch.
struct CatchUp<'a> {
    net: &'a Network,
    frames: &'a mut [Frame],
    /// The frames' boards (kept for king moves), from the first frame's on.
    boards: &'a [ArrayVec<(Square, Piece), 90>],
    /// The frames' accumulators, from the first frame's on.
    accs: &'a mut [i16],
    stm: crate::board::Color,
}

impl Kernel for CatchUp<'_> {
    type Output = i32;
    #[inline(always)]
    fn run<const H: usize, const AVX2: bool>(self) -> i32 {
        let stride = 2 * H;
        for j in 1..self.frames.len() {
            let (done, rest) = self.accs.split_at_mut(j * stride);
            let f = &mut self.frames[j];
            self.net
                .update_at::<H>(&done[(j - 1) * stride..], rest, &f.changes, &self.boards[j]);
            f.computed = true;
        }
        let j = self.frames.len() - 1;
        let pieces = self.frames[j].pieces as usize;
        self.net
            .evaluate_at::<H, AVX2>(&self.accs[j * stride..], self.stm, pieces)
    }
}

/// Every piece on the board with its square.
pub fn pieces_of(
    pos: &Position,
) -> impl Iterator<Item = (crate::board::Square, crate::board::Piece)> + '_ {
    pos.occupied()
        .map(move |sq| (sq, pos.piece_at(sq).expect("occupied square has a piece")))
}

/// The number of pieces on the board (it chooses the network's output
/// bucket).
#[inline]
pub fn piece_count(pos: &Position) -> usize {
    pos.occupied().0.count_ones() as usize
}

/// A one-off evaluation of `pos` with `net` (None: hand-crafted), from
/// scratch; the search uses an `Evaluator` instead.
pub fn evaluate_with(net: Option<&Network>, pos: &Position) -> i32 {
    match net {
        None => hce_evaluate(pos),
        Some(net) => {
            let mut acc = Accumulator::default();
            net.refresh(pieces_of(pos), &mut acc);
            net.evaluate(&acc, pos.side_to_move(), piece_count(pos))
                .clamp(-EVAL_LIMIT, EVAL_LIMIT)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// The evaluator's incremental sums (pushed with moves and passes,
    /// popped on the way back) always equal a fresh evaluation.
    #[test]
    fn incremental_hand_crafted_sums_match_a_fresh_evaluation() {
        let mut rng = SplitMix64::new(5);
        for game in 0..20 {
            let mut pos = Position::startpos();
            let mut ev = Evaluator::new(None, &pos);
            let mut made = Vec::new();
            for ply in 0..80 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                if ply % 7 == 3 && !pos.in_check() {
                    ev.push_null();
                    pos.make_null();
                    made.push(None);
                } else {
                    let mv = moves[(rng.next_u64() % moves.len() as u64) as usize];
                    ev.push(&pos, mv);
                    pos.make_move(mv);
                    made.push(Some(mv));
                }
                assert_eq!(
                    ev.evaluate(&pos),
                    hce_evaluate(&pos),
                    "game {game} ply {ply}"
                );
                // Now and then go back a few plies and check there too.
                if ply % 11 == 10 {
                    for _ in 0..3 {
                        match made.pop() {
                            Some(Some(_)) => pos.unmake_move(),
                            Some(None) => pos.unmake_null(),
                            None => break,
                        }
                        ev.pop();
                        assert_eq!(ev.evaluate(&pos), hce_evaluate(&pos));
                    }
                }
            }
        }
    }
}
