//! Repeats one network operation N times, for instruction counts under
//! callgrind (deterministic, unlike timings on a shared machine):
//!
//!     cargo build --release --example nnue_ops
//!     valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!         target/release/examples/nnue_ops update 100000 [HIDDEN BUCKETS] [portable]
//!
//! OP: `refresh` (the bench positions from scratch), `evaluate` (the
//! output of a computed accumulator) or `update` (one move's update and
//! evaluation through an `Evaluator`, every legal move of the bench
//! positions in turn). Without HIDDEN the built-in network; with it a
//! random one of that shape. Run with N = 0 too and subtract: the
//! difference over N is the cost of one operation.

use chuhe_core::board::Position;
use chuhe_core::eval::{piece_count, pieces_of, Evaluator};
use chuhe_core::nnue::net::{Accumulator, Simd};
use std::hint::black_box;
use std::sync::Arc;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: nnue_ops refresh|evaluate|update N [HIDDEN BUCKETS] [portable]";
    let (Some(op), Some(Ok(n))) = (args.get(1), args.get(2).map(|a| a.parse::<usize>())) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let mut net = match (args.get(3), args.get(4)) {
        (Some(h), Some(b)) => {
            chuhe::train::random_network(h.parse().expect("HIDDEN"), b.parse().expect("BUCKETS"), 1)
        }
        _ => (*chuhe_core::nnue::default_network().expect("the built-in network")).clone(),
    };
    if args.iter().any(|a| a == "portable") {
        net = net.with_simd(Simd::Portable).unwrap();
    }
    let net = Arc::new(net);
    let positions: Vec<Position> = chuhe::bench::POSITIONS
        .iter()
        .map(|f| Position::from_fen(f).unwrap())
        .collect();
    let mut total = 0i64;
    match op.as_str() {
        "refresh" => {
            let mut acc = Accumulator::default();
            for i in 0..n {
                let p = &positions[i % positions.len()];
                net.refresh(pieces_of(black_box(p)), &mut acc);
                total += black_box(&acc).v[i % 8] as i64;
            }
        }
        "evaluate" => {
            let pieces: Vec<usize> = positions.iter().map(piece_count).collect();
            let accs: Vec<Accumulator> = positions
                .iter()
                .map(|p| {
                    let mut a = Accumulator::default();
                    net.refresh(pieces_of(p), &mut a);
                    a
                })
                .collect();
            for i in 0..n {
                let k = i % positions.len();
                let stm = positions[k].side_to_move();
                total += net.evaluate(black_box(&accs[k]), stm, pieces[k]) as i64;
            }
        }
        "update" => {
            let mut cases = Vec::new();
            for (k, p) in positions.iter().enumerate() {
                for &m in p.legal_moves().iter() {
                    let mut after = p.clone();
                    after.make_move(m);
                    cases.push((k, m, after));
                }
            }
            let mut evs: Vec<Evaluator> = positions
                .iter()
                .map(|p| Evaluator::new(Some(net.clone()), p))
                .collect();
            for i in 0..n {
                let (k, m, after) = &cases[i % cases.len()];
                let ev = &mut evs[*k];
                ev.push(&positions[*k], *m);
                total += ev.evaluate(black_box(after)) as i64;
                ev.pop();
            }
        }
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    }
    println!("{op} {n} {total}");
}
