//! Perft: counts the leaves of the legal move tree, the standard check of a
//! move generator (against counts agreed by other engines) and its speed.

use crate::board::{Move, Position};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Leaf count at `depth`, counting the last ply in bulk (no make/unmake there).
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return pos.count_legal() as u64;
    }
    let moves = pos.legal_moves();
    let mut nodes = 0;
    for &mv in &moves {
        pos.make_move(mv);
        nodes += perft(pos, depth - 1);
        pos.unmake_move();
    }
    nodes
}

/// Below this depth a subtree is counted without looking at the stop flag:
/// it takes about a millisecond, so `stop` still answers at once.
const UNSTOPPABLE_DEPTH: u32 = 3;

/// The deepest perft the tools accept (the count at 12 does not fit far
/// beyond a u64 anyway, and it would run for days).
pub const MAX_DEPTH: u32 = 12;

/// `perft`, giving up (None) once `stop` is set.
fn perft_until(pos: &mut Position, depth: u32, stop: &AtomicBool) -> Option<u64> {
    if depth <= UNSTOPPABLE_DEPTH {
        return Some(perft(pos, depth));
    }
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    let moves = pos.legal_moves();
    let mut nodes = 0;
    for &mv in &moves {
        pos.make_move(mv);
        let n = perft_until(pos, depth - 1, stop);
        pos.unmake_move();
        nodes += n?;
    }
    Some(nodes)
}

/// Per root move counts, in generation order. With `threads` > 1 the root
/// moves are shared out over a rayon pool of that size.
pub fn divide(pos: &Position, depth: u32, threads: usize) -> Vec<(Move, u64)> {
    divide_until(pos, depth, threads, &AtomicBool::new(false)).unwrap_or_default()
}

/// `divide`, giving up (None) once `stop` is set.
pub fn divide_until(
    pos: &Position,
    depth: u32,
    threads: usize,
    stop: &AtomicBool,
) -> Option<Vec<(Move, u64)>> {
    let moves: Vec<Move> = pos.legal_moves().to_vec();
    let count = |mv: &Move| {
        let mut p = pos.clone();
        p.make_move(*mv);
        perft_until(&mut p, depth.saturating_sub(1), stop).map(|n| (*mv, n))
    };
    if depth == 0 {
        return Some(Vec::new());
    }
    if threads <= 1 {
        return moves.iter().map(count).collect();
    }
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool.install(|| moves.par_iter().map(count).collect()),
        Err(_) => moves.iter().map(count).collect(),
    }
}

/// Runs perft and prints the report the `perft` command and `go perft` share:
/// with `show_divide` a line `move: count` per root move, always a last line
/// `nodes <total> time <ms> nps <n>`.
pub fn run(
    pos: &Position,
    depth: u32,
    show_divide: bool,
    threads: usize,
    out: &mut dyn FnMut(&str),
) -> u64 {
    run_until(
        pos,
        depth,
        show_divide,
        threads,
        &AtomicBool::new(false),
        out,
    )
    .unwrap_or(0)
}

/// `run` that gives up once `stop` is set: then it prints nothing and
/// returns None.
pub fn run_until(
    pos: &Position,
    depth: u32,
    show_divide: bool,
    threads: usize,
    stop: &AtomicBool,
    out: &mut dyn FnMut(&str),
) -> Option<u64> {
    let start = Instant::now();
    let total = if depth == 0 {
        1
    } else if !show_divide && threads <= 1 {
        perft_until(&mut pos.clone(), depth, stop)?
    } else {
        let counts = divide_until(pos, depth, threads, stop)?;
        if show_divide {
            for (mv, n) in &counts {
                out(&format!("{mv}: {n}"));
            }
        }
        counts.iter().map(|(_, n)| n).sum()
    };
    let ms = start.elapsed().as_millis() as u64;
    let nps = (total * 1000).checked_div(ms).unwrap_or(total * 1000);
    out(&format!("nodes {total} time {ms} nps {nps}"));
    Some(total)
}
