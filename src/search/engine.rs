//! The engine behind the public contract: owns the transposition table and
//! the per-thread move-ordering memory, and runs one search (Lazy SMP: every
//! thread searches the same root, sharing only the TT; the calling thread is
//! the main one and decides the move).

use super::history::Heuristics;
use super::limits::*;
use super::time::TimeManager;
use super::tt::Tt;
use super::values::{to_score, MATE};
use super::worker::{Shared, Worker};
use super::HashView;
use crate::board::{Move, Position};
use crate::nnue::net::Network;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

const DEFAULT_HASH_MB: usize = 64;
/// More threads than this are refused quietly (clamped).
const MAX_THREADS: usize = 256;

pub struct Engine {
    tt: Arc<Tt>,
    hash_mb: usize,
    threads: usize,
    handle: StopHandle,
    heuristics: Vec<Heuristics>,
    /// The network in use; None: the hand-crafted evaluation.
    net: Option<Arc<Network>>,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

impl Engine {
    pub fn new() -> Self {
        Engine {
            tt: Arc::new(Tt::new(DEFAULT_HASH_MB)),
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            handle: StopHandle::new(),
            heuristics: vec![Heuristics::default()],
            net: crate::nnue::default_network(),
        }
    }

    /// Resizes the transposition table (its content is lost).
    pub fn set_hash_mb(&mut self, mb: usize) {
        let mb = mb.clamp(1, 1 << 20);
        if mb != self.hash_mb {
            self.hash_mb = mb;
            self.tt = Arc::new(Tt::new(mb));
        }
    }

    pub fn set_threads(&mut self, n: usize) {
        self.threads = n.clamp(1, MAX_THREADS);
        self.heuristics
            .resize_with(self.threads, Heuristics::default);
    }

    /// Chooses the evaluation: a network, or None for the hand-crafted one.
    /// The hash table is cleared: its stored evaluations came from the other.
    pub fn set_network(&mut self, net: Option<Arc<Network>>) {
        self.net = net;
        self.tt.clear();
    }

    pub fn network(&self) -> Option<&Arc<Network>> {
        self.net.as_ref()
    }

    /// Forgets everything learnt in the previous game.
    pub fn new_game(&mut self) {
        self.tt.clear();
        for h in &mut self.heuristics {
            h.clear();
        }
    }

    /// A read-only view of the transposition table, for UCCI `probe`. It
    /// stays valid while the engine searches; after `set_hash_mb` it shows
    /// the old table, so take a new one.
    pub fn hash_view(&self) -> HashView {
        HashView(self.tt.clone())
    }

    pub fn stop_handle(&self) -> StopHandle {
        self.handle.clone()
    }

    pub fn go(
        &mut self,
        pos: &Position,
        limits: &Limits,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        self.handle.stop.store(false, Ordering::SeqCst);
        self.handle.ponderhit.store(false, Ordering::SeqCst);
        let time = TimeManager::new(limits);

        let legal = pos.legal_moves();
        if legal.is_empty() {
            wait_unbounded(&self.handle, limits);
            return SearchResult {
                best: None,
                ponder: None,
                score: Score::Mate(0),
                depth: 0,
                nodes: 0,
            };
        }
        let mut root_moves: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|m| !limits.banmoves.contains(m))
            .filter(|m| limits.searchmoves.is_empty() || limits.searchmoves.contains(m))
            .collect();
        if root_moves.is_empty() {
            // Every legal move is excluded: playing one beats forfeiting.
            root_moves = legal.to_vec();
        }

        self.tt.new_search();
        let shared = Shared {
            tt: &self.tt,
            handle: &self.handle,
            limits,
            abort: AtomicBool::new(false),
            nodes: (0..self.threads).map(|_| AtomicU64::new(0)).collect(),
            root_moves,
            net: self.net.clone(),
        };
        let (main_heur, helper_heurs) = self
            .heuristics
            .split_first_mut()
            .expect("at least one thread");
        let shared_ref = &shared;
        let outcome = std::thread::scope(|scope| {
            for (i, heur) in helper_heurs.iter_mut().enumerate() {
                let pos = pos.clone();
                scope.spawn(move || {
                    let mut w = Worker::new(i + 1, shared_ref, heur, pos, None);
                    w.iterate(&mut |_| {});
                });
            }
            let mut main = Worker::new(0, shared_ref, main_heur, pos.clone(), Some(time));
            let out = main.iterate(on_info);
            wait_unbounded(&self.handle, limits);
            shared_ref.abort.store(true, Ordering::SeqCst);
            out
        });

        let ponder = outcome
            .pv
            .get(1)
            .copied()
            .or_else(|| self.ponder_from_tt(pos, outcome.best));
        SearchResult {
            best: Some(outcome.best),
            ponder,
            score: to_score(outcome.score.clamp(-MATE, MATE)),
            depth: outcome.depth,
            nodes: shared.total_nodes(),
        }
    }

    /// The expected reply after `best`, from the TT, if it is legal there.
    fn ponder_from_tt(&self, pos: &Position, best: Move) -> Option<Move> {
        let mut p = pos.clone();
        p.make_move(best);
        let mv = self.tt.probe(p.key())?.mv;
        (!mv.is_none() && p.is_legal(mv)).then_some(mv)
    }
}

/// A ponder or infinite search answers only after `stop`, or for a ponder
/// search also after `ponderhit`, even when it has nothing left to search.
fn wait_unbounded(handle: &StopHandle, limits: &Limits) {
    if !(limits.infinite || limits.ponder) {
        return;
    }
    while !handle.is_stopped() {
        if limits.ponder && !limits.infinite && handle.ponderhit.load(Ordering::Relaxed) {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}
