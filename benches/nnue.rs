//! Network inference speed: one full accumulator refresh, and one
//! incremental update (a quiet move and a capture) followed by an evaluation,
//! as the search does them.

use chuhe::train::FloatNet;
use chuhe_core::board::Position;
use chuhe_core::eval::{pieces_of, Evaluator};
use chuhe_core::nnue::net::{Accumulator, Network};
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use std::sync::Arc;

fn network() -> Arc<Network> {
    // The shipped network when there is one; otherwise random weights of
    // the same shape cost the same.
    chuhe_core::nnue::default_network()
        .unwrap_or_else(|| Arc::new(FloatNet::random(1).quantise(300.0)))
}

fn bench_nnue(c: &mut Criterion) {
    let net = network();
    let pos = Position::from_fen(chuhe::bench::POSITIONS[12]).unwrap();
    let mut acc = Accumulator::default();
    c.bench_function("nnue/refresh", |b| {
        b.iter(|| {
            net.refresh(pieces_of(black_box(&pos)), &mut acc);
            black_box(&acc);
        })
    });

    let moves = pos.legal_moves();
    let quiet = *moves.iter().find(|m| !pos.is_capture(**m)).unwrap();
    let capture = moves.iter().copied().find(|m| pos.is_capture(*m));
    let mut ev = Evaluator::new(Some(net.clone()), &pos);
    let mut after = pos.clone();
    after.make_move(quiet);
    c.bench_function("nnue/update+evaluate quiet", |b| {
        b.iter(|| {
            ev.push(&pos, quiet);
            let v = ev.evaluate(black_box(&after));
            ev.pop();
            v
        })
    });
    if let Some(cap) = capture {
        let mut after = pos.clone();
        after.make_move(cap);
        c.bench_function("nnue/update+evaluate capture", |b| {
            b.iter(|| {
                ev.push(&pos, cap);
                let v = ev.evaluate(black_box(&after));
                ev.pop();
                v
            })
        });
    }
    c.bench_function("hce/evaluate", |b| {
        b.iter(|| chuhe_core::eval::hce_evaluate(black_box(&pos)))
    });
}

criterion_group!(benches, bench_nnue);
criterion_main!(benches);
