//! Evaluation: one entry point for the search, `Evaluator::evaluate`, in
//! front of either the NNUE network or the hand-crafted evaluation.
//!
//! The network's accumulators cannot live in `Position`, which is cloned
//! freely (threads, the rules judge); each search thread owns an
//! `Evaluator` instead: a stack of accumulators pushed and popped around
//! each move, fed by what the move changed (the moved piece, the captured
//! one). Updates are lazy: a pushed frame only records its changes, and the
//! accumulator is computed when the position is evaluated, from the nearest
//! computed ancestor, so nodes cut before evaluating cost no update.

mod hce;
pub mod psqt;

use crate::board::{Move, Position};
use crate::nnue::net::{Accumulator, Changes, Network};
use std::sync::Arc;

/// Evaluations stay well inside this bound, far from mate and rule-win scores.
pub const EVAL_LIMIT: i32 = 20000;

/// The hand-crafted evaluation in centipawns from the side to move's point
/// of view (a knight or cannon is about 100 in the middle game).
#[inline]
pub fn hce_evaluate(pos: &Position) -> i32 {
    hce::evaluate(pos).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

struct Frame {
    acc: Accumulator,
    changes: Changes,
    computed: bool,
}

/// A search thread's evaluation state (see the module doc).
pub struct Evaluator {
    net: Option<Arc<Network>>,
    frames: Vec<Frame>,
    top: usize,
}

impl Evaluator {
    /// An evaluator with the network (None: the hand-crafted evaluation),
    /// set up for `pos`.
    pub fn new(net: Option<Arc<Network>>, pos: &Position) -> Evaluator {
        let mut e = Evaluator {
            net,
            frames: Vec::new(),
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
        if let Some(net) = &self.net {
            if self.frames.is_empty() {
                self.frames.push(Frame {
                    acc: Accumulator::default(),
                    changes: Changes::default(),
                    computed: false,
                });
            }
            net.refresh(pieces_of(pos), &mut self.frames[0].acc);
            self.frames[0].computed = true;
        }
    }

    fn push_frame(&mut self, changes: Changes) {
        self.top += 1;
        if self.frames.len() <= self.top {
            self.frames.push(Frame {
                acc: Accumulator::default(),
                changes: Changes::default(),
                computed: false,
            });
        }
        let f = &mut self.frames[self.top];
        f.changes = changes;
        f.computed = false;
    }

    /// Call before `pos.make_move(mv)`.
    #[inline]
    pub fn push(&mut self, pos: &Position, mv: Move) {
        if self.net.is_none() {
            self.top += 1;
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
        self.push_frame(c);
    }

    /// Call before `pos.make_null()`.
    #[inline]
    pub fn push_null(&mut self) {
        if self.net.is_none() {
            self.top += 1;
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
            return hce_evaluate(pos);
        };
        if !self.frames[self.top].computed {
            let mut k = self.top;
            while !self.frames[k].computed {
                k -= 1;
            }
            for j in k + 1..=self.top {
                let (done, rest) = self.frames.split_at_mut(j);
                let f = &mut rest[0];
                net.update(&done[j - 1].acc, &mut f.acc, &f.changes);
                f.computed = true;
            }
        }
        net.evaluate(&self.frames[self.top].acc, pos.side_to_move())
            .clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    /// The current accumulator brought up to date (for tests).
    pub fn accumulator(&mut self, pos: &Position) -> Option<&Accumulator> {
        self.net.as_ref()?;
        self.evaluate(pos);
        Some(&self.frames[self.top].acc)
    }
}

/// Every piece on the board with its square.
pub fn pieces_of(
    pos: &Position,
) -> impl Iterator<Item = (crate::board::Square, crate::board::Piece)> + '_ {
    pos.occupied()
        .map(move |sq| (sq, pos.piece_at(sq).expect("occupied square has a piece")))
}

/// A one-off evaluation of `pos` with `net` (None: hand-crafted), from
/// scratch; the search uses an `Evaluator` instead.
pub fn evaluate_with(net: Option<&Network>, pos: &Position) -> i32 {
    match net {
        None => hce_evaluate(pos),
        Some(net) => {
            let mut acc = Accumulator::default();
            net.refresh(pieces_of(pos), &mut acc);
            net.evaluate(&acc, pos.side_to_move())
                .clamp(-EVAL_LIMIT, EVAL_LIMIT)
        }
    }
}
