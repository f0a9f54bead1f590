//! Network inference speed: one full accumulator refresh, one evaluation of
//! a computed accumulator, and one incremental update (a quiet move and a
//! capture) followed by an evaluation, as the search does them. First the
//! built-in network (`nnue/...`), then random networks of every width
//! (`nnue/<hidden>/...`, 8 output buckets, which cost the same as one),
//! on the arithmetic the CPU runs best; `CHUHE_BENCH_PORTABLE=1` measures
//! the portable arithmetic instead. Last, the trainer's forward and
//! backward pass over 1024 positions at every width (`train/<hidden>`, 8
//! buckets, one thread).
//!
//!     cargo bench --bench nnue [-- FILTER]

use chuhe::train::data::random_game_records;
use chuhe::train::float::batch_pass;
use chuhe::train::{random_network, FloatNet, Layout, TrainConfig};
use chuhe_core::board::Position;
use chuhe_core::eval::{piece_count, pieces_of, Evaluator};
use chuhe_core::nnue::net::{Accumulator, Network, Simd, WIDTHS};
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use std::sync::Arc;
use std::time::Duration;

fn simd() -> Simd {
    if std::env::var_os("CHUHE_BENCH_PORTABLE").is_some() {
        Simd::Portable
    } else {
        Simd::detect()
    }
}

fn bench_network(c: &mut Criterion, name: &str, net: Network) {
    let net = Arc::new(net.with_simd(simd()).unwrap());
    let pos = Position::from_fen(chuhe::bench::POSITIONS[12]).unwrap();
    let mut acc = Accumulator::default();
    c.bench_function(&format!("{name}/refresh"), |b| {
        b.iter(|| {
            net.refresh(pieces_of(black_box(&pos)), &mut acc);
            black_box(&acc);
        })
    });
    let pieces = piece_count(&pos);
    c.bench_function(&format!("{name}/evaluate"), |b| {
        b.iter(|| net.evaluate(black_box(&acc), pos.side_to_move(), pieces))
    });

    let moves = pos.legal_moves();
    let quiet = *moves.iter().find(|m| !pos.is_capture(**m)).unwrap();
    let capture = moves.iter().copied().find(|m| pos.is_capture(*m));
    let mut ev = Evaluator::new(Some(net.clone()), &pos);
    let mut after = pos.clone();
    after.make_move(quiet);
    c.bench_function(&format!("{name}/update+evaluate quiet"), |b| {
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
        c.bench_function(&format!("{name}/update+evaluate capture"), |b| {
            b.iter(|| {
                ev.push(&pos, cap);
                let v = ev.evaluate(black_box(&after));
                ev.pop();
                v
            })
        });
    }
}

fn bench_nnue(c: &mut Criterion) {
    // The shipped network when there is one; otherwise random weights of
    // the same shape cost the same.
    let shipped = chuhe_core::nnue::default_network()
        .map(|n| (*n).clone())
        .unwrap_or_else(|| random_network(256, 1, 1));
    bench_network(c, "nnue", shipped);
    for hidden in WIDTHS {
        bench_network(c, &format!("nnue/{hidden}"), random_network(hidden, 8, 1));
    }
    let pos = Position::from_fen(chuhe::bench::POSITIONS[12]).unwrap();
    c.bench_function("hce/evaluate", |b| {
        b.iter(|| chuhe_core::eval::hce_evaluate(black_box(&pos)))
    });
    bench_trainer(c);
}

fn bench_trainer(c: &mut Criterion) {
    let records = random_game_records(1024, 1);
    let cfg = TrainConfig {
        simd: simd(),
        ..Default::default()
    };
    for hidden in WIDTHS {
        let net = FloatNet::random(Layout::new(hidden, 8).unwrap(), 1);
        let mut grad = vec![0f32; net.layout.params()];
        c.bench_function(&format!("train/{hidden}/1024 positions"), |b| {
            b.iter(|| batch_pass(&net, black_box(&records), &cfg, Some(1), Some(&mut grad)))
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = bench_nnue
}
criterion_main!(benches);
