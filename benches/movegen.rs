//! Move generation speed: legal generation over the perft suite positions,
//! and perft of the start position to depths 4 and 5.

use chuhe_core::board::perft::perft;
use chuhe_core::board::Position;
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

fn suite() -> Vec<Position> {
    let mut out = Vec::new();
    for file in ["perft-classic.epd", "perft-random.epd"] {
        let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
        if let Ok(text) = std::fs::read_to_string(path) {
            for line in text
                .lines()
                .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            {
                if let Ok(p) = line.split(';').next().unwrap_or("").parse() {
                    out.push(p);
                }
            }
        }
    }
    if out.is_empty() {
        out.push(Position::startpos());
    }
    out
}

fn legal_generation(c: &mut Criterion) {
    let positions = suite();
    let mut g = c.benchmark_group("movegen");
    g.throughput(Throughput::Elements(positions.len() as u64));
    g.bench_function("legal_moves/suite", |b| {
        b.iter(|| {
            let mut n = 0;
            for p in &positions {
                n += black_box(p).legal_moves().len();
            }
            n
        })
    });
    g.finish();
}

fn perft_start(c: &mut Criterion) {
    let mut g = c.benchmark_group("perft");
    g.sample_size(10);
    for (depth, leaves) in [(4u32, 3_290_240u64), (5, 133_312_995)] {
        g.throughput(Throughput::Elements(leaves));
        g.bench_function(format!("startpos/{depth}"), |b| {
            let mut pos = Position::startpos();
            b.iter(|| perft(&mut pos, black_box(depth)))
        });
    }
    g.finish();
}

criterion_group!(benches, legal_generation, perft_start);
criterion_main!(benches);
