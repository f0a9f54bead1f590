//! The network: incremental accumulators against full refreshes, colour
//! symmetry, SIMD against portable arithmetic, the file format's checks,
//! the training-data format, and a short training run that must learn.

use chuhe::train::data::{self, DataWriter, Record, Wdl};
use chuhe::train::{self, FloatNet, TrainConfig, Trainer};
use chuhe_core::board::Position;
use chuhe_core::eval::{evaluate_with, pieces_of, Evaluator};
use chuhe_core::nnue::net::{self, Accumulator, NetError, Network, HIDDEN};
use chuhe_core::rng::SplitMix64;
use std::sync::Arc;

/// A network with random weights: every feature matters, so any slip in
/// the incremental updates shows.
fn random_net(seed: u64) -> Arc<Network> {
    Arc::new(FloatNet::random(seed).quantise(300.0))
}

fn refreshed(net: &Network, pos: &Position) -> Accumulator {
    let mut acc = Accumulator::default();
    net.refresh(pieces_of(pos), &mut acc);
    acc
}

#[test]
fn incremental_accumulator_matches_refresh_over_random_games() {
    let net = random_net(7);
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
                assert_eq!(ev.accumulator(&pos).unwrap().v, refreshed(&net, &pos).v);
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
                    ev.accumulator(&pos).unwrap().v,
                    refreshed(&net, &pos).v,
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

#[test]
fn simd_and_portable_dot_products_agree() {
    let mut rng = SplitMix64::new(5);
    for round in 0..2000 {
        let mut x = [0i16; HIDDEN];
        let mut w = [0i16; HIDDEN];
        for i in 0..HIDDEN {
            // Accumulators well outside the clipping range and weights at
            // and past the export bound, to hit the edges.
            x[i] = (rng.next_u64() % 1200) as i16 - 400;
            w[i] = if round % 10 == 0 {
                rng.next_u64() as i16
            } else {
                (rng.next_u64() % 255) as i16 - 127
            };
        }
        assert_eq!(net::screlu_dot(&x, &w), net::screlu_dot_portable(&x, &w));
    }
}

#[test]
fn network_file_round_trips_and_bad_files_are_rejected() {
    let net = random_net(11);
    let bytes = net.to_bytes();
    let back = Network::from_bytes(&bytes).unwrap();
    assert_eq!(back.input_weights, net.input_weights);
    assert_eq!(back.output_weights, net.output_weights);
    assert_eq!(back.output_bias, net.output_bias);

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

fn sample_records(n: usize, seed: u64) -> Vec<Record> {
    let mut rng = SplitMix64::new(seed);
    let mut out = Vec::new();
    let mut pos = Position::startpos();
    while out.len() < n {
        let moves = pos.legal_moves();
        if moves.is_empty() || pos.ply() > 120 {
            pos = Position::startpos();
            continue;
        }
        pos.make_move(moves[rng.next_u64() as usize % moves.len()]);
        let result = [Wdl::Loss, Wdl::Draw, Wdl::Win][rng.next_u64() as usize % 3];
        let score = chuhe_core::eval::hce_evaluate(&pos) as i16;
        out.push(Record::from_position(&pos, score, result));
    }
    out
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

#[test]
fn a_short_training_run_lowers_the_loss() {
    let recs = sample_records(600, 2);
    let cfg = TrainConfig {
        batch: 64,
        lr: 0.01,
        wdl: 0.0,
        val_fraction: 0.0,
        ..Default::default()
    };
    let mut t = Trainer::new(FloatNet::random(1));
    let before = train::validation_loss(&t.net, &recs, &cfg);
    let mut work = recs.clone();
    for _ in 0..6 {
        t.epoch(&mut work, &cfg, cfg.lr);
    }
    let after = train::validation_loss(&t.net, &recs, &cfg);
    assert!(after < before * 0.7, "loss {before} -> {after}");
    // The integer export follows the float network.
    let q = t.net.quantise(cfg.scale);
    for r in recs.iter().take(50) {
        let pos = r.to_position().unwrap();
        let f = train::float_eval(&t.net, r, cfg.scale);
        let i = evaluate_with(Some(&q), &pos) as f32;
        assert!((f - i).abs() <= 8.0 + f.abs() * 0.05, "float {f} int {i}");
    }
}

#[test]
fn datagen_plays_refereed_games_and_labels_them() {
    use chuhe::datagen::{run, DatagenConfig};
    let dir = std::env::temp_dir().join(format!("chuhe-datagen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("d.bin");
    let _ = std::fs::remove_file(&out);
    let cfg = DatagenConfig {
        games: 4,
        first_game: 0,
        nodes: 300,
        threads: 2,
        out: out.clone(),
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
    // The same seed replays the same games.
    let again = dir.join("e.bin");
    let _ = std::fs::remove_file(&again);
    let cfg2 = DatagenConfig {
        out: again.clone(),
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
            out: split.clone(),
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
