//! The network: incremental accumulators against full refreshes, colour
//! symmetry, SIMD against portable arithmetic, the file format's checks,
//! the training-data format, and a short training run that must learn.

use chuhe::train::data::{self, DataWriter, Record, Wdl};
use chuhe::train::{
    self, random_network, random_network_with_kings, FloatNet, Layout, LrSchedule, TrainConfig,
    Trainer,
};
use chuhe_core::board::{Color, Position};
use chuhe_core::eval::{evaluate_with, pieces_of, Evaluator};
use chuhe_core::nnue::net::{self, Accumulator, NetError, Network, Simd, WIDTHS};
use chuhe_core::rng::SplitMix64;
use std::sync::Arc;

/// A network with random weights: every feature matters, so any slip in
/// the incremental updates shows.
fn random_net(seed: u64) -> Arc<Network> {
    Arc::new(FloatNet::random(Layout::SHIPPED, seed).quantise(300.0))
}

/// The accumulators of `pos` from scratch (the part `net` uses).
fn refreshed(net: &Network, pos: &Position) -> Vec<i16> {
    let mut acc = Accumulator::default();
    net.refresh(pieces_of(pos), &mut acc);
    acc.v[..2 * net.hidden()].to_vec()
}

#[test]
fn incremental_accumulator_matches_refresh_over_random_games() {
    incremental_matches_refresh(random_net(7));
}

/// With king buckets a king move recomputes its side's accumulator (from
/// the board kept in its frame) and the other side's updates as usual.
#[test]
fn king_bucket_accumulators_match_refresh_over_random_games() {
    let layout = Layout::SHIPPED.with_kings(net::KING_BUCKETS).unwrap();
    incremental_matches_refresh(Arc::new(FloatNet::random(layout, 8).quantise(300.0)));
}

fn incremental_matches_refresh(net: Arc<Network>) {
    let mut rng = SplitMix64::new(42);
    let (mut captures, mut king_moves, mut nulls) = (0, 0, 0);
    for game in 0..60u32 {
        let mut pos = Position::startpos();
        let mut ev = Evaluator::new(Some(net.clone()), &pos);
        let mut depth = 0usize;
        for _ in 0..160 {
            let moves = pos.legal_moves();
            let r = rng.next_u64();
            // Go back now and then, so pops and lazy re-computation from an
            // older frame are exercised too.
            if depth > 0 && (moves.is_empty() || r.is_multiple_of(7)) {
                pos.unmake_move();
                ev.pop();
                depth -= 1;
            } else if moves.is_empty() {
                break;
            } else if r.is_multiple_of(11) && !pos.in_check() && game.is_multiple_of(2) {
                ev.push_null();
                pos.make_null();
                nulls += 1;
                assert_eq!(ev.accumulator(&pos).unwrap(), refreshed(&net, &pos));
                pos.unmake_null();
                ev.pop();
                continue;
            } else {
                let mv = moves[(r >> 8) as usize % moves.len()];
                captures += pos.is_capture(mv) as u32;
                king_moves += (pos.piece_at(mv.from()).unwrap().kind()
                    == chuhe_core::board::PieceKind::King) as u32;
                ev.push(&pos, mv);
                pos.make_move(mv);
                depth += 1;
            }
            // Evaluate only every third step, so several pushes are caught up at once.
            if r.is_multiple_of(3) {
                assert_eq!(
                    ev.accumulator(&pos).unwrap(),
                    refreshed(&net, &pos),
                    "game {game} at {}",
                    pos.fen()
                );
                assert_eq!(ev.evaluate(&pos), evaluate_with(Some(&net), &pos));
            }
        }
    }
    assert!(
        captures > 100 && king_moves > 50 && nulls > 20,
        "{captures} {king_moves} {nulls}"
    );
}

#[test]
fn evaluation_is_colour_symmetric() {
    let net = random_net(3);
    let mut rng = SplitMix64::new(9);
    let mut pos = Position::startpos();
    let mut checked = 0;
    for _ in 0..400 {
        let moves = pos.legal_moves();
        if moves.is_empty() || pos.halfmove_clock() > 60 {
            pos = Position::startpos();
            continue;
        }
        pos.make_move(moves[rng.next_u64() as usize % moves.len()]);
        let twin = pos.colour_flipped();
        assert_eq!(
            evaluate_with(Some(&net), &pos),
            evaluate_with(Some(&net), &twin),
            "{}",
            pos.fen()
        );
        checked += 1;
    }
    assert!(checked > 300);
}

fn dot_products_agree(h: usize) {
    let mut rng = SplitMix64::new(5 + h as u64);
    for round in 0..500 {
        let mut x = vec![0i16; h];
        let mut w = vec![0i16; h];
        for i in 0..h {
            // Accumulators well outside the clipping range and weights at
            // and past the export bound, to hit the edges; now and then
            // everything at the extremes (the largest sums there are).
            x[i] = match round % 50 {
                0 => 255,
                1 => i16::MAX,
                _ => (rng.next_u64() % 1200) as i16 - 400,
            };
            w[i] = match round % 50 {
                0 | 1 => [i16::MIN, i16::MAX, 127, -128][i % 4],
                _ if round % 10 == 0 => rng.next_u64() as i16,
                _ => (rng.next_u64() % 255) as i16 - 127,
            };
        }
        let portable = net::screlu_dot(&x, &w, Simd::Portable);
        // The exact sum, term by term.
        let exact: i64 = x
            .iter()
            .zip(&w)
            .map(|(&x, &w)| {
                let v = x.clamp(0, 255);
                v.wrapping_mul(w) as i64 * v as i64
            })
            .sum();
        assert_eq!(portable, exact, "H {h} round {round}");
        if Simd::Avx2.available() {
            assert_eq!(
                net::screlu_dot(&x, &w, Simd::Avx2),
                exact,
                "H {h} round {round}"
            );
        }
    }
}

#[test]
fn simd_and_portable_dot_products_are_exact() {
    for h in WIDTHS {
        dot_products_agree(h);
    }
}

#[test]
fn network_file_round_trips_and_bad_files_are_rejected() {
    let net = random_net(11);
    let bytes = net.to_bytes();
    let back = Network::from_bytes(&bytes).unwrap();
    assert_eq!(back.input_weights(), net.input_weights());
    assert_eq!(back.output_weights(), net.output_weights());
    assert_eq!(back.output_bias(), net.output_bias());

    assert!(matches!(
        Network::from_bytes(&bytes[..bytes.len() - 100]),
        Err(NetError::Truncated { .. })
    ));
    assert!(matches!(
        Network::from_bytes(&bytes[..10]),
        Err(NetError::Truncated { .. })
    ));
    let mut bad = bytes.clone();
    bad[0] = b'X';
    assert_eq!(Network::from_bytes(&bad).err(), Some(NetError::BadMagic));
    let mut bad = bytes.clone();
    bad[17] = 0; // hidden size 256 -> 0
    assert!(matches!(
        Network::from_bytes(&bad),
        Err(NetError::Architecture { .. })
    ));
    let mut bad = bytes.clone();
    bad[8] = 9;
    assert_eq!(Network::from_bytes(&bad).err(), Some(NetError::Version(9)));
    let mut bad = bytes.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 1;
    assert_eq!(Network::from_bytes(&bad).err(), Some(NetError::Checksum));
    assert!(matches!(
        Network::load(std::path::Path::new("/nonexistent/net.nnue")),
        Err(NetError::Io(_))
    ));
}

#[test]
fn embedded_network_loads() {
    assert_eq!(chuhe_core::nnue::embedded_network_error(), None);
    // Saving and loading it again must give the same evaluation.
    {
        let net = chuhe_core::nnue::default_network().unwrap();
        let again = Network::from_bytes(&net.to_bytes()).unwrap();
        let pos = Position::startpos();
        assert_eq!(
            evaluate_with(Some(&net), &pos),
            evaluate_with(Some(&again), &pos)
        );
        // A sane network likes an extra rook.
        let up = Position::from_fen(
            "rnbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        )
        .unwrap();
        assert!(
            evaluate_with(Some(&net), &up) > 300,
            "{}",
            evaluate_with(Some(&net), &up)
        );
    }
}

/// Evaluations of chuhe-2 (format 1, the built-in network before chuhe-3)
/// computed before format 2, the output buckets and the width-generic
/// kernels: the bench positions, in order...
const CHUHE2_BENCH_EVALS: [i32; 37] = [
    25, 27, 32, 12, 12, 36, 34, 11, 25, -7, 11, -159, -393, 1719, -1364, 0, -944, -28, 88, -508,
    457, -86, 233, 1054, 97, 353, -855, 253, -272, 717, -304, -48, -734, 622, 1021, 516, -97,
];
/// ...and an FNV-style hash of the evaluations of 2981 positions of random
/// games (`random_game_eval_hash`).
const CHUHE2_RANDOM_EVAL_HASH: u64 = 0x9a69_e9ab_74fa_6cbb;

/// The same for chuhe-3 (256 hidden, 8 output buckets), built in until
/// chuhe-4 replaced it.
const CHUHE3_BENCH_EVALS: [i32; 37] = [
    36, 32, 29, 6, 30, 47, 19, 52, 26, -3, 26, -168, -498, 2189, -1878, 63, -1128, 21, -73, -765,
    540, -75, 237, 1239, 70, 480, -1254, 372, -477, 752, -295, -51, -981, 885, 1330, 639, -37,
];
const CHUHE3_RANDOM_EVAL_HASH: u64 = 0x9628_0947_d696_4fac;
/// The same for chuhe-4 (chuhe-3's shape, trained on gen4-s6), built in
/// until chuhe-6 replaced it.
const CHUHE4_BENCH_EVALS: [i32; 37] = [
    25, 37, 19, 30, 27, 45, 48, 33, 20, -30, 25, -85, -689, 2180, -1866, 7, -1146, -72, 62, -857,
    686, -147, 366, 1573, 132, 456, -1380, 433, -474, 816, -390, -160, -1150, 903, 1380, 714, -107,
];
const CHUHE4_RANDOM_EVAL_HASH: u64 = 0x8c8f_50fc_bbe3_d1db;
/// The same for the built-in chuhe-6 (chuhe-4's shape, trained on gen5):
/// any change to the arithmetic, the file reader or the bucket choice that
/// moves one evaluation shows here.
const CHUHE6_BENCH_EVALS: [i32; 37] = [
    29, 52, 27, 34, 29, 45, 29, 43, 26, -43, 30, -228, -784, 2676, -2280, 1, -1397, 39, 75, -996,
    663, -132, 343, 1883, 155, 542, -1662, 524, -581, 993, -511, -166, -1348, 1008, 1777, 911, -80,
];
const CHUHE6_RANDOM_EVAL_HASH: u64 = 0x11af_18b1_93e5_77c3;

fn random_game_eval_hash(net: &Network) -> (usize, u64) {
    let mut rng = SplitMix64::new(2024);
    let mut pos = Position::startpos();
    let (mut h, mut n) = (0u64, 0);
    for _ in 0..3000 {
        let moves = pos.legal_moves();
        if moves.is_empty() || pos.ply() > 150 {
            pos = Position::startpos();
            continue;
        }
        pos.make_move(moves[(rng.next_u64() % moves.len() as u64) as usize]);
        let e = evaluate_with(Some(net), &pos);
        h = (h ^ (e as i64 as u64)).wrapping_mul(0x100_0000_01b3);
        n += 1;
    }
    (n, h)
}

fn bench_evals(net: &Network) -> Vec<i32> {
    chuhe::bench::POSITIONS
        .iter()
        .map(|f| evaluate_with(Some(net), &Position::from_fen(f).unwrap()))
        .collect()
}

/// `net` gives the pinned evaluations on both instruction sets and after a
/// trip through the format-2 writer.
fn evaluates_as_pinned(net: &Network, evals: &[i32], hash: u64) {
    assert_eq!(bench_evals(net), evals);
    assert_eq!(random_game_eval_hash(net), (2981, hash));
    let portable = net.clone().with_simd(Simd::Portable).unwrap();
    assert_eq!(random_game_eval_hash(&portable).1, hash);
    let v2 = Network::from_bytes(&net.to_bytes()).unwrap();
    assert_eq!(random_game_eval_hash(&v2).1, hash);
}

fn shipped_file(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("nnue")
        .join(name);
    std::fs::read(path).unwrap()
}

#[test]
fn the_built_in_network_evaluates_as_before() {
    let net = chuhe_core::nnue::default_network().unwrap();
    assert_eq!(chuhe_core::nnue::EMBEDDED_NAME, "chuhe-6.nnue");
    assert_eq!((net.hidden(), net.buckets()), (256, 8));
    // The binary holds the file in the repository, byte for byte.
    assert_eq!(net.to_bytes(), shipped_file("chuhe-6.nnue"));
    evaluates_as_pinned(&net, &CHUHE6_BENCH_EVALS, CHUHE6_RANDOM_EVAL_HASH);
}

/// A shipped network that is no longer built in still loads with its shape
/// and evaluates as pinned.
fn shipped_evaluates_as_pinned(name: &str, shape: (usize, usize), evals: &[i32], hash: u64) {
    let net = Network::from_bytes(&shipped_file(name)).unwrap();
    assert_eq!((net.hidden(), net.buckets()), shape);
    evaluates_as_pinned(&net, evals, hash);
}

#[test]
fn chuhe_2_evaluates_as_before() {
    let (evals, hash) = (&CHUHE2_BENCH_EVALS, CHUHE2_RANDOM_EVAL_HASH);
    shipped_evaluates_as_pinned("chuhe-2.nnue", (256, 1), evals, hash);
}

#[test]
fn chuhe_3_evaluates_as_before() {
    let (evals, hash) = (&CHUHE3_BENCH_EVALS, CHUHE3_RANDOM_EVAL_HASH);
    shipped_evaluates_as_pinned("chuhe-3.nnue", (256, 8), evals, hash);
}

#[test]
fn chuhe_4_evaluates_as_before() {
    let (evals, hash) = (&CHUHE4_BENCH_EVALS, CHUHE4_RANDOM_EVAL_HASH);
    shipped_evaluates_as_pinned("chuhe-4.nnue", (256, 8), evals, hash);
}

#[test]
fn format_1_files_round_trip_byte_for_byte() {
    let file = shipped_file("chuhe-2.nnue");
    assert_eq!(u32::from_le_bytes(file[8..12].try_into().unwrap()), 1);
    let net = Network::from_bytes(&file).unwrap();
    assert_eq!(net.to_v1_bytes().unwrap(), file);
    // Format 2 holds the same network in 8 more header bytes.
    let v2 = net.to_bytes();
    assert_eq!(v2.len(), file.len() + 8);
    assert_eq!(u32::from_le_bytes(v2[8..12].try_into().unwrap()), 2);
    let back = Network::from_bytes(&v2).unwrap();
    assert_eq!(back.to_v1_bytes().unwrap(), file);
    // Only 256 x 1 fits format 1.
    assert!(random_network(512, 1, 1).to_v1_bytes().is_none());
    assert!(random_network(256, 2, 1).to_v1_bytes().is_none());
}

#[test]
fn format_2_files_of_every_shape_round_trip() {
    for (i, &hidden) in WIDTHS.iter().enumerate() {
        for buckets in [1, 3, 8, 16] {
            let net = random_network(hidden, buckets, i as u64 * 100 + buckets as u64);
            let bytes = net.to_bytes();
            let back = Network::from_bytes(&bytes).unwrap();
            assert_eq!((back.hidden(), back.buckets()), (hidden, buckets));
            assert_eq!(back.input_weights(), net.input_weights());
            assert_eq!(back.input_bias(), net.input_bias());
            assert_eq!(back.output_weights(), net.output_weights());
            assert_eq!(back.output_bias(), net.output_bias());
            assert_eq!(back.scale(), net.scale());
            assert_eq!(back.to_bytes(), bytes);
        }
    }
}

#[test]
fn king_bucket_networks_round_trip_in_format_3() {
    for hidden in [256, 512] {
        let net = random_network_with_kings(hidden, 8, net::KING_BUCKETS, 5);
        let bytes = net.to_bytes();
        assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 3);
        assert_eq!(u32::from_le_bytes(bytes[44..48].try_into().unwrap()), 6);
        let back = Network::from_bytes(&bytes).unwrap();
        assert_eq!(
            (back.hidden(), back.buckets(), back.kings()),
            (hidden, 8, net::KING_BUCKETS)
        );
        assert_eq!(back.input_weights().len(), 6 * net::FEATURES * hidden);
        assert_eq!(back.input_weights(), net.input_weights());
        assert_eq!(back.to_bytes(), bytes);
        assert!(net.to_v1_bytes().is_none());
        // Another king bucket count is refused, with the reason.
        let mut b = bytes.clone();
        b[44..48].copy_from_slice(&4u32.to_le_bytes());
        let e = Network::from_bytes(&b).err().unwrap();
        assert!(matches!(e, NetError::Architecture { kings: 4, .. }), "{e}");
        assert!(e.to_string().contains("king bucket"), "{e}");
    }
    // A network without king buckets is still written as format 2.
    let plain = random_network(256, 8, 5).to_bytes();
    assert_eq!(u32::from_le_bytes(plain[8..12].try_into().unwrap()), 2);
}

#[test]
fn king_buckets_follow_the_palace_point_mirrored() {
    use chuhe_core::board::{Piece, PieceKind, Square};
    let sq = |s: &str| Square::from_index(Square::all().position(|q| q.to_string() == s).unwrap());
    let view = |c, s| net::View::new(c, sq(s), net::KING_BUCKETS);
    // Red: ranks 0-2 from Red's side, the d-file and the mirrored f-file alike.
    let red: Vec<(usize, bool)> = ["d0", "e0", "f0", "d1", "e1", "f1", "d2", "e2", "f2"]
        .iter()
        .map(|s| (view(Color::Red, s).bucket(), view(Color::Red, s).mirrored()))
        .collect();
    assert_eq!(
        red,
        [
            (0, false),
            (1, false),
            (0, true),
            (2, false),
            (3, false),
            (2, true),
            (4, false),
            (5, false),
            (4, true)
        ]
    );
    // Black sees its palace from its own side.
    assert_eq!(view(Color::Black, "e9").bucket(), 1);
    assert_eq!(view(Color::Black, "d7").bucket(), 4);
    assert!(view(Color::Black, "f8").mirrored());
    // Without king buckets: one block, no mirror.
    assert_eq!(
        net::View::new(Color::Red, sq("f2"), 1),
        net::View::default()
    );
    // A mirrored view reads a piece on the mirrored square.
    let rook = Piece::new(Color::Red, PieceKind::Rook);
    let (d, f) = (view(Color::Red, "d0"), view(Color::Red, "f0"));
    assert_eq!(
        d.feature(Color::Red, rook, sq("a3")),
        f.feature(Color::Red, rook, sq("i3"))
    );
    assert_ne!(
        d.feature(Color::Red, rook, sq("a3")),
        f.feature(Color::Red, rook, sq("a3"))
    );
}

#[test]
fn damaged_format_2_files_are_refused_with_a_reason() {
    let net = random_network(512, 8, 3);
    let bytes = net.to_bytes();
    let set_u32 = |at: usize, v: u32| {
        let mut b = bytes.clone();
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        b
    };
    let refused = |b: &[u8]| {
        let e = Network::from_bytes(b).unwrap_err();
        assert!(!e.to_string().is_empty());
        e
    };
    assert!(matches!(
        refused(&bytes[..bytes.len() - 1]),
        NetError::Truncated { .. }
    ));
    assert!(matches!(refused(&bytes[..44]), NetError::Truncated { .. }));
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(refused(&longer), NetError::Truncated { .. }));
    for (at, v) in [
        (16, 300),
        (16, 2048),
        (36, 0),
        (36, 17),
        (40, 2),
        (20, 2),
        (12, 1000),
    ] {
        assert!(
            matches!(refused(&set_u32(at, v)), NetError::Architecture { .. }),
            "field at {at} = {v}"
        );
    }
    assert_eq!(refused(&set_u32(8, 4)), NetError::Version(4));
    assert!(matches!(
        refused(&set_u32(28, 32)),
        NetError::Quantisation { .. }
    ));
    // The payload length field must agree with the shape.
    assert!(matches!(
        refused(&set_u32(44, 12)),
        NetError::Truncated { .. }
    ));
    // A flipped bit anywhere in the weights or biases.
    for at in [48, bytes.len() / 2, bytes.len() - 12] {
        let mut b = bytes.clone();
        b[at] ^= 0x10;
        assert_eq!(refused(&b), NetError::Checksum, "byte {at}");
    }
    // A format 1 header claiming another width.
    let v1 = random_network(256, 1, 3).to_v1_bytes().unwrap();
    let mut b = v1.clone();
    b[16..20].copy_from_slice(&512u32.to_le_bytes());
    assert!(matches!(refused(&b), NetError::Architecture { .. }));
    // A shape no file can have is refused by the constructor too.
    assert!(matches!(
        Network::new(
            256,
            1,
            1,
            vec![0; 5],
            vec![0; 256],
            vec![0; 512],
            vec![0],
            1
        ),
        Err(NetError::Shape { .. })
    ));
    assert!(matches!(
        Network::new(384, 1, 1, vec![], vec![], vec![], vec![0], 1),
        Err(NetError::Architecture { .. })
    ));
}

#[test]
fn output_buckets_split_the_piece_counts_evenly() {
    // The documented table for 8 buckets.
    let eight: Vec<usize> = (2..=32).map(|p| net::output_bucket(p, 8)).collect();
    let mut expected = Vec::new();
    for (b, n) in [4, 4, 4, 4, 4, 4, 4, 3].iter().enumerate() {
        expected.extend(std::iter::repeat_n(b, *n));
    }
    assert_eq!(eight, expected);
    for buckets in 1..=net::MAX_BUCKETS {
        let all: Vec<usize> = (2..=32).map(|p| net::output_bucket(p, buckets)).collect();
        // Monotone, from 0 to the last bucket, none skipped, sizes within one.
        assert_eq!(all[0], 0);
        assert_eq!(*all.last().unwrap(), buckets - 1);
        assert!(all.windows(2).all(|w| w[1] == w[0] || w[1] == w[0] + 1));
        let sizes: Vec<usize> = (0..buckets)
            .map(|b| all.iter().filter(|&&x| x == b).count())
            .collect();
        let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
        assert!(hi - lo <= 1, "{buckets} buckets: {sizes:?}");
        // Out-of-range counts (a hand-made position) stay in range.
        assert_eq!(net::output_bucket(0, buckets), 0);
        assert_eq!(net::output_bucket(40, buckets), buckets - 1);
    }
}

/// A network whose output is its bucket number (zero output weights, bias
/// b for bucket b): the evaluation shows which bucket was used.
fn bucket_probe(buckets: usize) -> Network {
    let r = random_network(256, buckets, 1);
    let scale = 10;
    Network::new(
        256,
        buckets,
        1,
        r.input_weights().to_vec(),
        r.input_bias().to_vec(),
        vec![0; buckets * 512],
        (0..buckets as i32).map(|b| b * net::QA * net::QB).collect(),
        scale,
    )
    .unwrap()
}

#[test]
fn the_evaluation_uses_the_bucket_of_the_piece_count() {
    let probe = Arc::new(bucket_probe(8));
    let mut rng = SplitMix64::new(77);
    let mut seen = [false; 8];
    for _ in 0..40 {
        let mut pos = Position::startpos();
        let mut ev = Evaluator::new(Some(probe.clone()), &pos);
        for _ in 0..300 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            // Prefer captures, to get down to few pieces.
            let caps: Vec<_> = moves.iter().filter(|m| pos.is_capture(**m)).collect();
            let mv = if !caps.is_empty() && !rng.next_u64().is_multiple_of(3) {
                *caps[rng.next_u64() as usize % caps.len()]
            } else {
                moves[rng.next_u64() as usize % moves.len()]
            };
            ev.push(&pos, mv);
            pos.make_move(mv);
            let pieces = chuhe_core::eval::piece_count(&pos);
            let b = net::output_bucket(pieces, 8);
            seen[b] = true;
            assert_eq!(ev.evaluate(&pos), b as i32 * 10, "{}", pos.fen());
            assert_eq!(evaluate_with(Some(&probe), &pos), b as i32 * 10);
        }
    }
    assert!(seen.iter().all(|&s| s), "{seen:?}");
}

/// Plays random games with a network of the shape on the best arithmetic
/// this CPU has and the same network on the portable one, comparing at
/// every step the incremental accumulators of both with refreshes of both,
/// and the evaluations (every bucket's: 2, 17 and 32 pieces).
fn check_shape(hidden: usize, buckets: usize, kings: usize) {
    let best = Arc::new(random_network_with_kings(
        hidden,
        buckets,
        kings,
        hidden as u64 + buckets as u64 + kings as u64,
    ));
    assert_eq!(best.simd(), Simd::detect());
    let portable = Arc::new((*best).clone().with_simd(Simd::Portable).unwrap());
    let mut rng = SplitMix64::new(hidden as u64 * 31 + buckets as u64);
    let mut checked = 0;
    for _ in 0..6 {
        let mut pos = Position::startpos();
        let mut ev_best = Evaluator::new(Some(best.clone()), &pos);
        let mut ev_portable = Evaluator::new(Some(portable.clone()), &pos);
        for _ in 0..120 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.next_u64() as usize % moves.len()];
            ev_best.push(&pos, mv);
            ev_portable.push(&pos, mv);
            pos.make_move(mv);
            let acc = refreshed(&best, &pos);
            assert_eq!(acc.len(), 2 * hidden);
            assert_eq!(ev_best.accumulator(&pos).unwrap(), acc);
            assert_eq!(ev_portable.accumulator(&pos).unwrap(), acc);
            assert_eq!(refreshed(&portable, &pos), acc);
            assert_eq!(ev_best.evaluate(&pos), ev_portable.evaluate(&pos));
            assert_eq!(ev_best.evaluate(&pos), evaluate_with(Some(&best), &pos));
            for pieces in [2, 17, 32] {
                for stm in chuhe_core::board::Color::ALL {
                    assert_eq!(
                        best.evaluate(&acc, stm, pieces),
                        portable.evaluate(&acc, stm, pieces)
                    );
                }
            }
            checked += 1;
        }
    }
    assert!(checked > 500);
}

#[test]
fn every_shape_updates_incrementally_and_avx2_matches_portable() {
    if !Simd::Avx2.available() {
        eprintln!("no AVX2 on this CPU: only the portable arithmetic is checked");
    }
    assert_eq!(Simd::detect() == Simd::Avx2, Simd::Avx2.available());
    for hidden in WIDTHS {
        for buckets in [1, 8] {
            check_shape(hidden, buckets, 1);
        }
    }
    for hidden in [256, 1024] {
        check_shape(hidden, 8, net::KING_BUCKETS);
    }
}

fn sample_records(n: usize, seed: u64) -> Vec<Record> {
    data::random_game_records(n, seed)
}

#[test]
fn data_files_round_trip_append_and_concatenate() {
    let dir = std::env::temp_dir().join(format!("chuhe-nnue-data-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("a.bin");
    let _ = std::fs::remove_file(&path);
    let recs = sample_records(300, 1);
    {
        let mut w = DataWriter::append(&path).unwrap();
        w.write(&recs[..100]).unwrap();
        w.write(&recs[100..200]).unwrap();
    }
    // A second run appends with a header of its own.
    {
        let mut w = DataWriter::append(&path).unwrap();
        w.write(&recs[200..]).unwrap();
    }
    let back = data::read_all(&path).unwrap();
    assert_eq!(back, recs);
    for (r, b) in recs.iter().zip(&back) {
        let p = b.to_position().unwrap();
        assert_eq!(Record::from_position(&p, r.score, r.result), *r);
    }
    // Concatenated files, and a partial block left by a killed run.
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(&std::fs::read(&path).unwrap());
    bytes.extend_from_slice(&[1, 2, 3]);
    assert_eq!(data::decode_all(&bytes).unwrap().len(), 600);
    // Garbage is an error, not a panic.
    assert!(data::decode_all(&[7u8; 64]).is_err());
    let mut bad = std::fs::read(&path).unwrap();
    bad[32 + 1] = 99; // piece count of the first record
    assert!(data::decode_all(&bad).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The float network's and the exported integer network's evaluations of
/// `recs` agree within the quantisation's error. That error is mostly the
/// output weights' rounding to 1/QB, summed over 2 × hidden units like a
/// random walk: it grows with the square root of the width.
fn assert_export_follows(net: &FloatNet, recs: &[Record], scale: f32) {
    let q = net.quantise(scale);
    assert_eq!(
        (q.hidden(), q.buckets()),
        (net.layout.hidden, net.layout.buckets)
    );
    let q = Network::from_bytes(&q.to_bytes()).unwrap();
    let widen = (net.layout.hidden as f32 / 256.0).sqrt();
    for r in recs.iter().take(50) {
        let pos = r.to_position().unwrap();
        let f = train::float_eval(net, r, scale);
        let i = evaluate_with(Some(&q), &pos) as f32;
        assert!(
            (f - i).abs() <= (8.0 + f.abs() * 0.05) * widen,
            "{}: float {f} int {i}",
            net.layout
        );
    }
}

/// A few epochs of every layout lower the loss (the shipped one, trained
/// longest, by 30%), leave no NaN, and export faithfully.
#[test]
fn every_layout_trains_and_exports_faithfully() {
    let recs = sample_records(500, 2);
    let cfg = TrainConfig {
        batch: 64,
        lr: 0.01,
        schedule: LrSchedule::Exponential { decay: 1.0 },
        wdl: 0.0,
        val_fraction: 0.0,
        ..Default::default()
    };
    for (hidden, buckets, kings, epochs, ratio) in [
        (256, 1, 1, 6, 0.7),
        (256, 8, 1, 3, 1.0),
        (512, 1, 1, 3, 1.0),
        (512, 4, 1, 3, 1.0),
        (768, 2, 1, 3, 1.0),
        (1024, 1, 1, 3, 1.0),
        (1024, 16, 1, 3, 1.0),
        (256, 8, net::KING_BUCKETS, 3, 1.0),
    ] {
        let layout = Layout::new(hidden, buckets)
            .unwrap()
            .with_kings(kings)
            .unwrap();
        let mut t = Trainer::new(FloatNet::random(layout, 1));
        assert_eq!(t.net.p.len(), layout.params());
        let before = train::validation_loss(&t.net, &recs, &cfg);
        let mut work = recs.clone();
        for _ in 0..epochs {
            t.epoch(&mut work, &cfg);
        }
        let after = train::validation_loss(&t.net, &recs, &cfg);
        assert!(t.net.p.iter().all(|x| x.is_finite()), "{layout}");
        assert!(after < before * ratio, "{layout}: loss {before} -> {after}");
        assert_export_follows(&t.net, &recs, cfg.scale);
    }
    assert!(Layout::new(384, 1).is_err() && Layout::new(256, 0).is_err());
    assert!(Layout::new(256, 17).is_err());
    assert!(Layout::SHIPPED.with_kings(4).is_err());
    // The records leave the kings' home points often enough that the
    // king-bucket export above met other buckets than the first.
    let moved = recs
        .iter()
        .take(50)
        .filter(|r| {
            let pos = r.to_position().unwrap();
            let home = |c| pos.king(c).to_string() != if c == Color::Red { "e0" } else { "e9" };
            home(Color::Red) || home(Color::Black)
        })
        .count();
    assert!(moved >= 5, "{moved}");
}

#[test]
fn avx2_and_portable_training_agree_bit_for_bit() {
    if !net::Simd::Avx2.available() {
        eprintln!("no AVX2 on this CPU: nothing to compare");
        return;
    }
    let recs = sample_records(300, 4);
    for layout in [Layout::SHIPPED, Layout::new(512, 4).unwrap()] {
        let trained = |simd| {
            let cfg = TrainConfig {
                batch: 64,
                lr: 0.01,
                val_fraction: 0.0,
                simd,
                ..Default::default()
            };
            let mut t = Trainer::new(FloatNet::random(layout, 9));
            let mut work = recs.clone();
            let losses = [t.epoch(&mut work, &cfg), t.epoch(&mut work, &cfg)];
            (losses, t.net.p)
        };
        let (fast, slow) = (trained(Simd::Avx2), trained(Simd::Portable));
        assert_eq!(fast.0, slow.0, "{layout}");
        assert!(
            fast.1
                .iter()
                .zip(&slow.1)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "{layout}"
        );
    }
}

#[test]
fn checkpoints_record_the_layout_and_refuse_another() {
    let dir = std::env::temp_dir().join(format!("chuhe-ckpt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let recs = sample_records(200, 5);
    let cfg = TrainConfig {
        batch: 64,
        val_fraction: 0.0,
        ..Default::default()
    };
    let kinged = Layout::SHIPPED.with_kings(net::KING_BUCKETS).unwrap();
    let mut k = Trainer::new(FloatNet::random(kinged, 3));
    k.epoch(&mut recs.clone(), &cfg);
    let path = dir.join("k.ckpt");
    k.save_checkpoint(&path).unwrap();
    assert_eq!(Trainer::resume(&path, kinged).unwrap().net.p, k.net.p);
    let e = Trainer::resume(&path, Layout::SHIPPED)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("6 king buckets") && e.contains("--king-buckets 6"),
        "{e}"
    );
    let layout = Layout::new(512, 8).unwrap();
    let mut t = Trainer::new(FloatNet::random(layout, 3));
    t.epoch(&mut recs.clone(), &cfg);
    let path = dir.join("a.ckpt");
    t.save_checkpoint(&path).unwrap();
    let back = Trainer::resume(&path, layout).unwrap();
    assert_eq!(back.layout(), layout);
    assert_eq!(back.epoch, 1);
    assert_eq!(back.net.p, t.net.p);
    // A format-2 checkpoint (before king buckets): the same without the field.
    let bytes = std::fs::read(&path).unwrap();
    let mut v2 = b"CHUHECK2".to_vec();
    v2.extend_from_slice(&bytes[8..24]);
    v2.extend_from_slice(&bytes[32..]);
    std::fs::write(dir.join("v2.ckpt"), &v2).unwrap();
    assert_eq!(
        Trainer::resume(&dir.join("v2.ckpt"), layout).unwrap().net.p,
        t.net.p
    );
    // Another layout is refused, naming both.
    let e = Trainer::resume(&path, Layout::SHIPPED).err().unwrap();
    assert!(
        matches!(e, train::TrainError::OtherLayout { held, .. } if held == layout),
        "{e}"
    );
    let e = e.to_string();
    assert!(
        e.contains("512 hidden, 8 output buckets") && e.contains("256 hidden, 1 output bucket"),
        "{e}"
    );
    // Damaged files.
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 4]).unwrap();
    assert!(Trainer::load_checkpoint(&path).is_err());
    let mut bad = bytes.clone();
    bad[8] = 7; // hidden 512 -> 519
    std::fs::write(&path, &bad).unwrap();
    let e = Trainer::load_checkpoint(&path).err().unwrap();
    assert!(
        matches!(
            e,
            train::TrainError::BadCheckpoint {
                why: train::CheckpointFlaw::Layout(train::LayoutError::Hidden(519)),
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("hidden width"), "{e}");
    // A format-1 checkpoint (before layouts) is the shipped layout.
    let old = Trainer::new(FloatNet::random(Layout::SHIPPED, 4));
    let mut v1 = b"CHUHECK1".to_vec();
    for v in [Layout::SHIPPED.params() as u64, 5, 2] {
        v1.extend_from_slice(&v.to_le_bytes());
    }
    for _ in 0..3 {
        for x in &old.net.p {
            v1.extend_from_slice(&x.to_le_bytes());
        }
    }
    std::fs::write(&path, &v1).unwrap();
    let back = Trainer::resume(&path, Layout::SHIPPED).unwrap();
    assert_eq!((back.epoch, back.net.p.clone()), (2, old.net.p.clone()));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn learning_rate_schedules() {
    let base = TrainConfig {
        epochs: 10,
        lr: 0.01,
        ..Default::default()
    };
    let at = |cfg: &TrainConfig, e, b| cfg.lr_at(e, b, 100, 1_000_000);
    // Exponential (the default): per epoch, constant within one.
    let exp = TrainConfig {
        schedule: LrSchedule::Exponential { decay: 0.5 },
        ..base.clone()
    };
    assert_eq!((at(&exp, 0, 0), at(&exp, 0, 99)), (0.01, 0.01));
    assert_eq!(at(&exp, 2, 50), 0.0025);
    // Step: drops every 3 epochs.
    let step = TrainConfig {
        schedule: LrSchedule::Step {
            every: 3,
            gamma: 0.1,
        },
        ..base.clone()
    };
    assert_eq!(at(&step, 2, 99), 0.01);
    assert!((at(&step, 3, 0) - 0.001).abs() < 1e-9);
    assert!((at(&step, 6, 0) - 0.0001).abs() < 1e-9);
    // Cosine: from lr to the final rate, half-way at the middle, falling
    // with every batch.
    let cos = TrainConfig {
        schedule: LrSchedule::Cosine { final_lr: 0.001 },
        ..base.clone()
    };
    assert_eq!(at(&cos, 0, 0), 0.01);
    assert!((at(&cos, 5, 0) - 0.0055).abs() < 1e-6);
    assert!((at(&cos, 9, 99) - 0.001).abs() < 1e-5);
    let mut last = f32::MAX;
    for e in 0..10 {
        for b in 0..100 {
            let lr = at(&cos, e, b);
            assert!(lr <= last);
            last = lr;
        }
    }
    // Warm-up: linear over the first batches of the run, then the schedule.
    let warm = TrainConfig {
        warmup: 10,
        ..cos.clone()
    };
    assert!((warm.lr_at(0, 0, 100, 0) - 0.001).abs() < 1e-9);
    assert!((warm.lr_at(0, 4, 100, 4) - 0.005 * at(&cos, 0, 4) / 0.01).abs() < 1e-9);
    assert_eq!(warm.lr_at(0, 10, 100, 10), at(&cos, 0, 10));
}

/// A record of the start position after `moves` (ICCS), with a score and
/// result.
fn record_after(moves: &[&str], black_to_move_anyway: bool, score: i16, result: Wdl) -> Record {
    let mut pos = Position::startpos();
    for m in moves {
        let mv = pos
            .legal_moves()
            .iter()
            .copied()
            .find(|mv| mv.to_string() == *m)
            .unwrap();
        pos.make_move(mv);
    }
    let mut r = Record::from_position(&pos, score, result);
    if black_to_move_anyway {
        r.side = chuhe_core::board::Color::Black;
    }
    r
}

#[test]
fn datamix_keeps_each_position_once_with_mean_score_and_result() {
    use chuhe::train::mix;
    let a = |s, w| record_after(&[], false, s, w);
    let a_black = |s, w| record_after(&[], true, s, w);
    let b = |s, w| record_after(&["h2e2"], false, s, w);
    let c = |s, w| record_after(&["h2e2", "h9g7"], false, s, w);
    let d = |s, w| record_after(&["b2e2"], false, s, w);
    let records = vec![
        a(10, Wdl::Win),
        b(-5, Wdl::Win),
        a(20, Wdl::Win),
        c(7, Wdl::Draw),
        a(41, Wdl::Draw),
        b(-6, Wdl::Loss),
        a_black(3, Wdl::Loss),
        d(1, Wdl::Loss),
        d(2, Wdl::Loss),
        d(3, Wdl::Draw),
    ];
    let mixed = mix::mix(&records, 1);
    assert_eq!(mixed.len(), 5);
    let find = |want: &Record| {
        *mixed
            .iter()
            .find(|r| r.pieces == want.pieces && r.side == want.side)
            .unwrap()
    };
    // Two wins and a draw: 5 half points over 3, nearer a win.
    assert_eq!(find(&a(0, Wdl::Draw)), a(24, Wdl::Win)); // (10 + 20 + 41) / 3 = 23.67
                                                         // A win and a loss: the draw.
    assert_eq!(find(&b(0, Wdl::Draw)), b(-6, Wdl::Draw)); // -5.5 rounds away from zero
    assert_eq!(find(&c(0, Wdl::Draw)), c(7, Wdl::Draw));
    // The side to move is part of the position.
    assert_eq!(find(&a_black(0, Wdl::Draw)), a_black(3, Wdl::Loss));
    // Two losses and a draw: 1 half point over 3, nearer a loss.
    assert_eq!(find(&d(0, Wdl::Draw)), d(2, Wdl::Loss));
    // A tie between two results goes to the draw.
    let tie = mix::mix(&[b(0, Wdl::Win), b(0, Wdl::Draw)], 1);
    assert_eq!(tie[0].result, Wdl::Draw);
    let tie = mix::mix(&[b(0, Wdl::Loss), b(0, Wdl::Draw)], 1);
    assert_eq!(tie[0].result, Wdl::Draw);
    // Seeded: the same order again, another order with another seed.
    let many = sample_records(2000, 6);
    let (m1, m2, m3) = (mix::mix(&many, 1), mix::mix(&many, 1), mix::mix(&many, 2));
    assert_eq!(m1, m2);
    assert_ne!(m1, m3);
    let sorted = |m: &[Record]| {
        let mut v: Vec<_> = m.iter().map(|r| r.encode()).collect();
        v.sort();
        v
    };
    assert_eq!(sorted(&m1), sorted(&m3));
    // Random games from the start repeat their first positions.
    assert!(
        m1.len() < many.len() && m1.len() > many.len() / 2,
        "{}",
        m1.len()
    );
}

#[test]
fn datamix_files_and_large_files_read_in_pieces() {
    use chuhe::train::mix;
    let dir = std::env::temp_dir().join(format!("chuhe-datamix-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // More records than one read buffer (32768), and a partial block.
    let recs = sample_records(45_000, 7);
    let (p1, p2, out) = (dir.join("1.bin"), dir.join("2.bin"), dir.join("out.bin"));
    for p in [&p1, &p2, &out] {
        let _ = std::fs::remove_file(p);
    }
    DataWriter::append(&p1)
        .unwrap()
        .write(&recs[..40_000])
        .unwrap();
    DataWriter::append(&p2)
        .unwrap()
        .write(&recs[40_000..])
        .unwrap();
    let mut bytes = std::fs::read(&p1).unwrap();
    bytes.extend_from_slice(&[9, 9, 9]);
    std::fs::write(&p1, &bytes).unwrap();
    assert_eq!(data::read_all(&p1).unwrap(), recs[..40_000]);
    assert_eq!(data::decode_all(&bytes).unwrap(), recs[..40_000]);
    let stats = mix::mix_files(&[p1.clone(), p2.clone()], &out, 3, &mut |_| {}).unwrap();
    assert_eq!(stats.read, 45_000);
    let mixed = data::read_all(&out).unwrap();
    assert_eq!(mixed.len() as u64, stats.distinct);
    assert_eq!(mixed, mix::mix(&recs, 3));
    // An existing output is not overwritten or appended to.
    let e = mix::mix_files(std::slice::from_ref(&p1), &out, 3, &mut |_| {}).unwrap_err();
    assert!(matches!(&e, mix::MixError::Exists(p) if *p == out), "{e}");
    assert!(e.to_string().contains("exists"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn datagen_plays_refereed_games_and_labels_them() {
    use chuhe::datagen::{run, DatagenConfig, Output};
    let dir = std::env::temp_dir().join(format!("chuhe-datagen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("d.bin");
    let _ = std::fs::remove_file(&out);
    let cfg = DatagenConfig {
        games: 4,
        first_game: 0,
        nodes: 300,
        soft_nodes: None,
        threads: 2,
        out: Output::Records(out.clone()),
        openings: Vec::new(),
        random_plies: 4,
        seed: 3,
        hash_mb: 1,
        net: None,
    };
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut lines = Vec::new();
    let n = run(&cfg, stop, &mut |l| lines.push(l.to_string())).unwrap();
    // The last progress line says where the searches went.
    let last = lines.last().expect("a progress line");
    assert!(
        last.starts_with("games 4/4 ") && last.contains(" kept "),
        "{last}"
    );
    let recs = data::read_all(&out).unwrap();
    assert_eq!(recs.len() as u64, n);
    assert!(n > 50, "{n}");
    for r in &recs {
        let pos = r.to_position().unwrap();
        assert!(!pos.in_check());
    }
    // Each move's cost: at most the hard limit, past the first ply.
    let nodes_per_move: f64 = last
        .split("nodes/move ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|t| t.parse().ok())
        .expect("nodes/move in the progress line");
    assert!((100.0..=300.0).contains(&nodes_per_move), "{last}");
    // The same seed replays the same games.
    let again = dir.join("e.bin");
    let _ = std::fs::remove_file(&again);
    let cfg2 = DatagenConfig {
        out: Output::Records(again.clone()),
        threads: 1,
        ..cfg.clone()
    };
    run(&cfg2, Arc::new(Default::default()), &mut |_| {}).unwrap();
    let mut a = recs.clone();
    let mut b = data::read_all(&again).unwrap();
    a.sort_by_key(|r| r.encode());
    b.sort_by_key(|r| r.encode());
    assert_eq!(a, b);
    // A run stopped after two games goes on from the third: together the
    // same games as the run of four.
    let split = dir.join("f.bin");
    let _ = std::fs::remove_file(&split);
    for first_game in [0, 2] {
        let part = DatagenConfig {
            out: Output::Records(split.clone()),
            games: 2,
            first_game,
            ..cfg.clone()
        };
        run(&part, Arc::new(Default::default()), &mut |_| {}).unwrap();
    }
    let mut c = data::read_all(&split).unwrap();
    c.sort_by_key(|r| r.encode());
    assert_eq!(a, c);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The scale fit recovers the K that generated the results: wins drawn with
/// probability sigmoid(score / 150), losses otherwise.
#[test]
fn fitted_scale_recovers_the_generating_scale() {
    let mut rng = SplitMix64::new(11);
    let start = Position::startpos();
    let records: Vec<Record> = (0..100_000)
        .map(|_| {
            let score = (rng.next_u64() % 1601) as i32 - 800;
            let p_win = 1.0 / (1.0 + (-(score as f64) / 150.0).exp());
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            let result = if u < p_win { Wdl::Win } else { Wdl::Loss };
            Record::from_position(&start, score as i16, result)
        })
        .collect();
    let s = train::summarise(&records);
    assert_eq!(s.positions, 100_000);
    assert!((s.wdl[0] - 0.5).abs() < 0.02 && s.wdl[1] == 0.0, "{s:?}");
    assert!((s.fitted_scale - 150.0).abs() < 10.0, "{s:?}");
}

/// `chuhe train --validation FILE`: every DATA position trains and the
/// validation loss is taken on the other file's positions (other games).
#[test]
fn training_validates_on_other_games_when_asked() {
    let dir = std::env::temp_dir().join(format!("chuhe-trainval-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (train_file, val_file, out) = (dir.join("t.bin"), dir.join("v.bin"), dir.join("n.nnue"));
    for p in [&train_file, &val_file, &out] {
        let _ = std::fs::remove_file(p);
    }
    let recs = sample_records(700, 11);
    DataWriter::append(&train_file)
        .unwrap()
        .write(&recs[..600])
        .unwrap();
    DataWriter::append(&val_file)
        .unwrap()
        .write(&recs[600..])
        .unwrap();
    let run = |extra: &[&std::path::Path]| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_chuhe"));
        cmd.args(["train", "--epochs", "1", "--batch", "64", "--threads", "1"])
            .arg("--out")
            .arg(&out)
            .arg(&train_file);
        for p in extra {
            cmd.arg("--validation").arg(p);
        }
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let log = run(&[&val_file]);
    assert!(log.contains("train 600 positions, validation 100"), "{log}");
    // Without it, 5% of the data is held back as before.
    let log = run(&[]);
    assert!(log.contains("train 570 positions, validation 30"), "{log}");
    // A validation file with no positions is an error, not a silent split.
    let empty = dir.join("e.bin");
    std::fs::write(&empty, b"").unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args(["train", "--epochs", "1", "--out"])
        .arg(&out)
        .arg(&train_file)
        .arg("--validation")
        .arg(&empty)
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--validation"));
    std::fs::remove_dir_all(&dir).unwrap();
}
