//! Interim search: iterative-deepening alpha-beta on material, enough to play
//! legal moves behind the public contract while the real search is built.

use super::limits::*;
use crate::board::{GenType, MoveList, PieceKind, Position};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

const MATE: i32 = 30000;

pub struct Engine {
    hash_mb: usize,
    threads: usize,
    handle: StopHandle,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

struct Ctx<'a> {
    nodes: u64,
    start: Instant,
    deadline: Option<Duration>,
    max_nodes: Option<u64>,
    handle: &'a StopHandle,
    aborted: bool,
}

impl Ctx<'_> {
    fn should_stop(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        if self.nodes & 1023 == 0 {
            if self.handle.stop.load(Ordering::Relaxed) {
                self.aborted = true;
            }
            if let Some(d) = self.deadline {
                if self.start.elapsed() >= d {
                    self.aborted = true;
                }
            }
        }
        if let Some(n) = self.max_nodes {
            if self.nodes >= n {
                self.aborted = true;
            }
        }
        self.aborted
    }
}

fn material(pos: &Position) -> i32 {
    const V: [i32; 7] = [0, 20, 20, 40, 90, 45, 10];
    let us = pos.side_to_move();
    let mut s = 0;
    for k in PieceKind::ALL {
        s += V[k.index()] * (pos.pieces(us, k).count() as i32 - pos.pieces(!us, k).count() as i32);
    }
    s * 10 / 4
}

fn negamax(
    pos: &mut Position,
    depth: u32,
    mut alpha: i32,
    beta: i32,
    ply: i32,
    ctx: &mut Ctx,
) -> i32 {
    ctx.nodes += 1;
    if ctx.should_stop() {
        return 0;
    }
    let mut moves = MoveList::new();
    pos.generate(GenType::All, &mut moves);
    if moves.is_empty() {
        return -MATE + ply;
    }
    if depth == 0 {
        return material(pos);
    }
    for mv in moves {
        pos.make_move(mv);
        let s = -negamax(pos, depth - 1, -beta, -alpha, ply + 1, ctx);
        pos.unmake_move();
        if ctx.aborted {
            return 0;
        }
        if s > alpha {
            alpha = s;
            if alpha >= beta {
                break;
            }
        }
    }
    alpha
}

impl Engine {
    pub fn new() -> Self {
        Engine {
            hash_mb: 64,
            threads: 1,
            handle: StopHandle::new(),
        }
    }

    pub fn set_hash_mb(&mut self, mb: usize) {
        self.hash_mb = mb;
    }

    pub fn set_threads(&mut self, n: usize) {
        self.threads = n.max(1);
    }

    pub fn new_game(&mut self) {}

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
        let mut pos = pos.clone();
        let mut root: Vec<_> = pos
            .legal_moves()
            .into_iter()
            .filter(|m| !limits.banmoves.contains(m))
            .filter(|m| limits.searchmoves.is_empty() || limits.searchmoves.contains(m))
            .collect();
        let deadline = limits.movetime.or_else(|| {
            limits.time.map(|t| {
                t / limits.movestogo.unwrap_or(30).max(1) + limits.increment.unwrap_or_default() / 2
            })
        });
        let timed = !(limits.infinite || limits.ponder);
        let mut ctx = Ctx {
            nodes: 0,
            start: Instant::now(),
            deadline: if timed { deadline } else { None },
            max_nodes: limits.nodes,
            handle: &self.handle,
            aborted: false,
        };
        let mut best = root.first().copied();
        let mut best_score = 0;
        let mut done_depth = 0;
        let max_depth = limits.depth.unwrap_or(64).max(1);
        for depth in 1..=max_depth {
            let mut alpha = -MATE - 1;
            let mut scored = Vec::new();
            for &mv in &root {
                pos.make_move(mv);
                let s = -negamax(&mut pos, depth - 1, -MATE - 1, -alpha, 1, &mut ctx);
                pos.unmake_move();
                if ctx.aborted {
                    break;
                }
                scored.push((s, mv));
                alpha = alpha.max(s);
            }
            if ctx.aborted {
                break;
            }
            scored.sort_by_key(|(s, _)| -s);
            root = scored.iter().map(|&(_, m)| m).collect();
            best = root.first().copied();
            best_score = scored.first().map_or(0, |x| x.0);
            done_depth = depth;
            let ms = ctx.start.elapsed().as_millis() as u64;
            on_info(&SearchInfo {
                depth,
                seldepth: depth,
                score: Some(Score::Cp(best_score)),
                nodes: ctx.nodes,
                time_ms: ms,
                nps: ctx.nodes * 1000 / ms.max(1),
                hashfull: 0,
                pv: best.into_iter().collect(),
                currmove: None,
            });
        }
        // A ponder or infinite search waits for its stop even after the last depth.
        while !timed && !self.handle.stop.load(Ordering::Relaxed) {
            if self.handle.ponderhit.load(Ordering::Relaxed) && limits.ponder {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        SearchResult {
            best,
            ponder: None,
            score: Score::Cp(best_score),
            depth: done_depth,
            nodes: ctx.nodes,
        }
    }
}
