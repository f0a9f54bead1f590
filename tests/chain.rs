//! The chain format (src/train/chain.rs) and datagen's shards: the games
//! come back as the same records the 32-byte format holds, and damage is
//! reported by game without panics or unbounded allocations.

use chuhe::datagen::{run, DatagenConfig, DatagenError, Output, ShardConfig};
use chuhe::train::chain::{self, ChainError, ChainGame, ChainPly, ChainReader, ChainWriter};
use chuhe::train::data;
use chuhe_core::board::{Position, START_FEN};
use chuhe_core::rng::SplitMix64;
use chuhe_core::rules::Outcome;
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// Counts the bytes live and the most ever live, so that a test can say
/// how much a reader allocated for a file.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("chuhe-chain-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn config(out: Output, games: u64, threads: usize) -> DatagenConfig {
    DatagenConfig {
        games,
        first_game: 0,
        nodes: 300,
        soft_nodes: None,
        threads,
        out,
        openings: chuhe::matches::openings::load(Path::new("tests/data/openings.txt")).unwrap(),
        random_plies: 4,
        seed: 11,
        hash_mb: 1,
        net: None,
    }
}

fn shards(dir: &Path, shard_games: u64) -> Output {
    Output::Chain(ShardConfig {
        dir: dir.to_path_buf(),
        seed: 11,
        shard_games,
        recipe: vec![("nodes".into(), "300".into())],
    })
}

fn chain_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "chain"))
        .collect();
    v.sort();
    v
}

fn quiet(_: &str) {}

/// The heart of the format: the chain of a seeded run decodes to exactly
/// the 32-byte records the records output writes for the same seed (built
/// from the board during play, not from the chain), bit for bit, and the
/// shards are cut where `shard_games` says.
#[test]
fn chain_decodes_to_the_records_of_the_same_run() {
    let dir = temp_dir("same");
    let records_file = dir.join("r.bin");
    let stop = Arc::new(AtomicBool::new(false));
    let n = run(
        &config(Output::Records(records_file.clone()), 7, 2),
        stop.clone(),
        &mut quiet,
    )
    .unwrap();
    let shard_dir = dir.join("gen");
    let m = run(&config(shards(&shard_dir, 3), 7, 2), stop, &mut quiet).unwrap();
    assert_eq!(n, m);
    let names: Vec<_> = chain_files(&shard_dir)
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "s11-0000000-0000002.chain",
            "s11-0000003-0000005.chain",
            "s11-0000006-0000006.chain"
        ]
    );
    let mut from_chain = Vec::new();
    for f in chain_files(&shard_dir) {
        data::visit(&f, |r| from_chain.push(r)).unwrap();
    }
    let want = std::fs::read(&records_file).unwrap();
    let got: Vec<u8> = from_chain.iter().flat_map(|r| r.encode()).collect();
    // The records file starts with one 32-byte header block.
    assert_eq!(got, want[32..], "chain and records differ");
    assert_eq!(from_chain.len() as u64, n);

    // Every shard has its manifest line, with what `data info` counts.
    let manifest = std::fs::read_to_string(shard_dir.join("MANIFEST")).unwrap();
    for f in chain_files(&shard_dir) {
        let s = chain::summarise(&f).unwrap();
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let line = manifest
            .lines()
            .find(|l| l.starts_with(&name))
            .unwrap_or_else(|| panic!("no manifest line for {name}:\n{manifest}"));
        for want in [
            format!(" games={} ", s.games),
            format!(" positions={} ", s.positions),
            format!(" bytes={}", s.bytes),
            " seed=11 ".to_string(),
            " nodes=300 ".to_string(),
        ] {
            assert!(line.contains(&want), "{line} lacks {want}");
        }
        assert_eq!(s.bytes, std::fs::metadata(&f).unwrap().len());
    }

    // A closed shard is never written again.
    let e = run(
        &config(shards(&shard_dir, 3), 2, 1),
        Arc::new(AtomicBool::new(false)),
        &mut quiet,
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("already in s11-0000000-0000002.chain"),
        "{e}"
    );
    assert!(
        matches!(&e, DatagenError::Taken { game: 0, seed: 11, shard }
            if shard == "s11-0000000-0000002.chain"),
        "{e:?}"
    );
    // Going on from the next game fills the next shard, and the games are
    // the same as one run's (each game a function of its number).
    let resumed = dir.join("resumed");
    let mut c = config(shards(&resumed, 3), 4, 1);
    run(&c, Arc::new(AtomicBool::new(false)), &mut quiet).unwrap();
    c.first_game = 4;
    c.games = 3;
    run(&c, Arc::new(AtomicBool::new(false)), &mut quiet).unwrap();
    let mut again = Vec::new();
    for f in chain_files(&resumed) {
        data::visit(&f, |r| again.push(r)).unwrap();
    }
    assert_eq!(again, from_chain);
    assert_eq!(chain_files(&resumed).len(), 4, "0-2, 3, 4-5, 6");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Random games from a seeded generator, with every field exercised.
fn random_games(n: usize, seed: u64) -> Vec<ChainGame> {
    let mut rng = SplitMix64::new(seed);
    let fens = [
        START_FEN,
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1",
    ];
    (0..n)
        .map(|i| {
            let root = fens[i % 2];
            let mut pos = Position::from_fen(root).unwrap();
            let mut prefix = Vec::new();
            let mut plies = Vec::new();
            let prefix_len = rng.next_u64() % 8;
            for k in 0..rng.next_u64() % 200 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let mv = moves[(rng.next_u64() % moves.len() as u64) as usize];
                if k < prefix_len {
                    prefix.push(mv);
                } else {
                    let score = match rng.next_u64() % 10 {
                        0 => 30000,
                        1 => -30000,
                        _ => (rng.next_u64() % 2001) as i16 - 1000,
                    };
                    plies.push(ChainPly {
                        mv,
                        score,
                        keep: !rng.next_u64().is_multiple_of(4),
                    });
                }
                pos.make_move(mv);
            }
            ChainGame {
                number: 1000 + i as u64 * 3,
                root_fen: root.to_string(),
                prefix,
                plies,
                outcome: [Outcome::Draw, Outcome::RedWins, Outcome::BlackWins][i % 3],
            }
        })
        .collect()
}

fn written(games: &[ChainGame]) -> Vec<u8> {
    let mut w = ChainWriter::new(Vec::new()).unwrap();
    for (i, g) in games.iter().enumerate() {
        w.push(g).unwrap();
        // Several frames, so that damage can fall after whole ones.
        if i % 7 == 6 {
            w.flush().unwrap();
        }
    }
    w.finish().unwrap()
}

/// Reads every game it can; the error, if any, comes after them.
fn read_games(bytes: &[u8]) -> (Vec<ChainGame>, Option<ChainError>) {
    let mut out = Vec::new();
    let mut r = match ChainReader::new(bytes) {
        Ok(r) => r,
        Err(e) => return (out, Some(e)),
    };
    loop {
        match r.next_frame() {
            Ok(Some((_, games))) => out.extend(games),
            Ok(None) => return (out, None),
            Err(e) => return (out, Some(e)),
        }
    }
}

#[test]
fn games_round_trip() {
    let games = random_games(40, 5);
    let bytes = written(&games);
    let (back, err) = read_games(&bytes);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(back, games);
    // Records from the replay: the kept plies, scored from the mover's view.
    let g = &games[3];
    let recs = g.records().unwrap();
    assert_eq!(recs.len(), g.kept());
    let kept: Vec<_> = g.plies.iter().filter(|p| p.keep).collect();
    for (r, p) in recs.iter().zip(kept) {
        assert_eq!(r.score, p.score);
    }
}

#[test]
fn an_illegal_move_is_refused_when_written() {
    let mut g = random_games(1, 9).remove(0);
    g.prefix
        .insert(0, chuhe_core::board::Move::from_raw(1 | 2 << 7).unwrap());
    let mut w = ChainWriter::new(Vec::new()).unwrap();
    let e = w.push(&g).unwrap_err().to_string();
    assert!(
        e.contains("game 1000") && e.contains("not a legal move"),
        "{e}"
    );
    // The same, typed, from the encoder and the replay: the ply at fault.
    let illegal = chain::GameError::Illegal {
        ply: 1,
        mv: g.prefix[0],
    };
    assert_eq!(
        chain::encode_game(&g, &mut Vec::new()),
        Err(illegal.clone())
    );
    assert_eq!(g.records(), Err(illegal));
}

/// Cut anywhere, a file gives back the games of its whole frames and an
/// error that names the game where it was cut.
#[test]
fn a_truncated_file_keeps_the_games_before_the_cut() {
    let games = random_games(30, 6);
    let bytes = written(&games);
    for cut in (0..bytes.len()).step_by(7) {
        let (back, err) = read_games(&bytes[..cut]);
        assert_eq!(back[..], games[..back.len()], "cut at {cut}");
        if cut < 16 {
            assert!(matches!(err, Some(ChainError::Header(_))), "cut at {cut}");
            continue;
        }
        let Some(e) = err else {
            // A cut between frames leaves a shorter, whole file.
            continue;
        };
        let msg = e.to_string();
        assert!(
            msg.contains("cut short") && msg.contains("intact"),
            "cut at {cut}: {msg}"
        );
        if let ChainError::Frame { game: Some(g), .. } = e {
            assert_eq!(Some(g), games.get(back.len()).map(|g| g.number), "{msg}");
        }
    }
}

/// Damage anywhere is found (zstd's checksum, the frame header's, the
/// game structure, the replay), never panics, and never costs more memory
/// than a bound.
#[test]
fn damaged_files_give_errors_by_game_and_bounded_memory() {
    let games = random_games(30, 7);
    let bytes = written(&games);
    let mut rng = SplitMix64::new(8);
    let base = LIVE.load(Ordering::Relaxed);
    for round in 0..3000 {
        let mut b = bytes.clone();
        let flips = 1 + rng.next_u64() % 3;
        for _ in 0..flips {
            let i = (rng.next_u64() % b.len() as u64) as usize;
            b[i] ^= 1 << (rng.next_u64() % 8);
        }
        PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
        let (back, err) = read_games(&b);
        let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
        // The games read and a frame's buffers: a few megabytes at most,
        // whatever the damaged lengths claim.
        assert!(peak < 24 << 20, "round {round}: {peak} bytes");
        assert_eq!(back[..], games[..back.len()], "round {round}");
        if let Some(e) = err {
            let msg = e.to_string();
            let named = msg.contains("game") || msg.contains("frame");
            assert!(named || matches!(e, ChainError::Header(_)), "{msg}");
        }
    }
    // A frame header that claims the largest frame, over a file that has
    // none of it: refused before any of it is allocated.
    let mut b = bytes[..16].to_vec();
    let mut h = [0u8; 32];
    h[..4].copy_from_slice(b"CHFR");
    h[4..8].copy_from_slice(&(16u32 << 20).to_le_bytes());
    h[8..12].copy_from_slice(&(16u32 << 20).to_le_bytes());
    let sum = h[..28].iter().fold(0x811c_9dc5u32, |a, &x| {
        (a ^ x as u32).wrapping_mul(0x0100_0193)
    });
    h[28..].copy_from_slice(&sum.to_le_bytes());
    b.extend_from_slice(&h);
    PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
    let (_, err) = read_games(&b);
    assert!(err.unwrap().to_string().contains("cut short"));
    assert!(PEAK.load(Ordering::Relaxed).saturating_sub(base) < 1 << 20);
    // Random bytes after a valid file header.
    for _ in 0..500 {
        let mut b = bytes[..16].to_vec();
        for _ in 0..1 + rng.next_u64() % 400 {
            b.push(rng.next_u64() as u8);
        }
        let (back, err) = read_games(&b);
        assert!(back.is_empty() && err.is_some());
    }
}

#[test]
fn a_killed_run_leaves_a_part_that_the_next_run_closes() {
    let dir = temp_dir("part");
    let games = random_games(20, 12);
    let mut bytes = written(&games);
    // A killed writer: the last frame half written.
    bytes.truncate(bytes.len() - 10);
    let part = dir.join("s11-0001000.chain.part");
    std::fs::write(&part, &bytes).unwrap();
    let mut lines = Vec::new();
    let set = chuhe::datagen::ShardSet::open(
        ShardConfig {
            dir: dir.clone(),
            seed: 11,
            shard_games: 100,
            recipe: Vec::new(),
        },
        &mut |l| lines.push(l.to_string()),
    )
    .unwrap();
    drop(set);
    assert!(!part.exists());
    // Frames of seven games: 14 whole games survive (1000 + 3 × 13 = 1039).
    let shard = dir.join("s11-0001000-0001039.chain");
    let s = chain::summarise(&shard).unwrap();
    assert_eq!(s.games, 14);
    assert!(
        lines[0].starts_with("recovered s11-0001000-0001039.chain"),
        "{lines:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn data_info_and_unpack_on_the_command_line() {
    let dir = temp_dir("cli");
    let f = dir.join("s1-0000000-0000009.chain");
    std::fs::write(&f, written(&random_games(10, 13))).unwrap();
    let bin = env!("CARGO_BIN_EXE_chuhe");
    let out = std::process::Command::new(bin)
        .args(["data", "info"])
        .arg(&f)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let s = chain::summarise(&f).unwrap();
    let lines: Vec<_> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    let tail = format!(
        "games {} positions {} bytes {}",
        s.games, s.positions, s.bytes
    );
    assert!(lines[0].ends_with(&tail), "{text}");
    assert!(lines[1].starts_with("total") && lines[1].ends_with(&tail));

    let unpacked = dir.join("u.bin");
    let out = std::process::Command::new(bin)
        .args(["data", "unpack"])
        .arg(&f)
        .arg("--out")
        .arg(&unpacked)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let mut want = Vec::new();
    data::visit(&f, |r| want.push(r)).unwrap();
    assert_eq!(data::read_all(&unpacked).unwrap(), want);

    // A damaged file: a clear error naming the game, and a failing exit.
    let mut b = std::fs::read(&f).unwrap();
    let n = b.len();
    b.truncate(n - 5);
    let bad = dir.join("bad.chain");
    std::fs::write(&bad, &b).unwrap();
    let out = std::process::Command::new(bin)
        .args(["data", "info"])
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("bad.chain") && err.contains("game "), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_manifest_names_the_commit_the_binary_was_built_from() {
    // A datagen binary copied out of its checkout (as a long run's is, so
    // that new builds do not replace it) still names its own commit; asking
    // git where it runs gave "unknown" here, or a later commit in a
    // checkout that had moved on.
    let dir = temp_dir("commit");
    let bin = dir.join("chuhe-copy");
    std::fs::copy(env!("CARGO_BIN_EXE_chuhe"), &bin).unwrap();
    let out = std::process::Command::new(&bin)
        .current_dir(&dir)
        .args(["datagen", "--games", "1", "--nodes", "200"])
        .args(["--threads", "1", "--seed", "5", "--shard-games", "10"])
        .args(["--out", "gen"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let manifest = std::fs::read_to_string(dir.join("gen/MANIFEST")).unwrap();
    let line = manifest.lines().find(|l| l.starts_with("s5-")).unwrap();
    let commit = env!("CHUHE_COMMIT");
    assert!(
        line.contains(&format!(" commit={commit} ")),
        "{line} (built from {commit})"
    );
    // In a git checkout the build knows its commit.
    if Path::new(env!("CARGO_MANIFEST_DIR")).join(".git").exists() {
        let hex = commit.trim_end_matches("+dirty");
        assert!(
            hex.len() == 10 && hex.chars().all(|c| c.is_ascii_hexdigit()),
            "{commit}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
