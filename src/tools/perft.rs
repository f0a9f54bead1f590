//! Perft: counts the leaves of the legal move tree, the standard check of a
//! move generator (against counts agreed by other engines) and its speed.

use crate::board::{Move, Position};
use rayon::prelude::*;
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

/// Per root move counts, in generation order. With `threads` > 1 the root
/// moves are shared out over a rayon pool of that size.
pub fn divide(pos: &Position, depth: u32, threads: usize) -> Vec<(Move, u64)> {
    let moves: Vec<Move> = pos.legal_moves().to_vec();
    let count = |mv: &Move| {
        let mut p = pos.clone();
        p.make_move(*mv);
        (*mv, perft(&mut p, depth.saturating_sub(1)))
    };
    if depth == 0 {
        return Vec::new();
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
    let start = Instant::now();
    let total = if depth == 0 {
        1
    } else if !show_divide && threads <= 1 {
        perft(&mut pos.clone(), depth)
    } else {
        let counts = divide(pos, depth, threads);
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
    total
}
