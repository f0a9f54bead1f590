//! Search speed: nodes per second of a fixed-depth search over a few bench
//! positions (opening, middle game, endgame), each from a fresh engine state.

use chuhe::bench::POSITIONS;
use chuhe_core::board::Position;
use chuhe_core::engine::Engine;
use chuhe_core::search::{Limits, StopHandle};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const DEPTH: u32 = 9;

fn positions() -> Vec<Position> {
    // Start position, an opening, a middle game and two endgames.
    [0, 3, 12, 20, 30]
        .iter()
        .map(|&i| Position::from_fen(POSITIONS[i]).expect("bench FENs are valid"))
        .collect()
}

fn search_nodes(engine: &mut Engine, positions: &[Position]) -> u64 {
    let limits = Limits {
        depth: Some(DEPTH),
        ..Limits::default()
    };
    positions
        .iter()
        .map(|p| {
            engine.new_game();
            engine.go(p, &limits, &StopHandle::new(), &mut |_| {}).nodes
        })
        .sum()
}

fn bench_search(c: &mut Criterion) {
    let positions = positions();
    let mut engine = Engine::new();
    // A small table: clearing it between positions must not dominate the timing.
    engine.set_hash_mb(2);
    // The node count is fixed (single thread, fixed depth), so throughput in
    // elements per second is the search's nodes per second.
    let nodes = search_nodes(&mut engine, &positions);
    let mut group = c.benchmark_group("search");
    group.throughput(Throughput::Elements(nodes));
    group.sample_size(10);
    group.bench_function(format!("depth {DEPTH}"), |b| {
        b.iter(|| search_nodes(&mut engine, &positions))
    });
    group.finish();
}

criterion_group!(benches, bench_search);
criterion_main!(benches);
