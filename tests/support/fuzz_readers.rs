//! Fuzz targets for the file readers of the tools and the engine: game
//! records (PGN, XQF, and `record::read_bytes`, which picks between them),
//! opening books (Chuhe's format and BOOK.DAT), network files and mate
//! suites. Besides "no panic", each reader's memory is a checked property:
//! what one call holds at its peak must stay under `budget` of its input
//! (see `alloc_count`); a reader that allocates without end is caught by
//! the hard cap there and reported by the driver's watchdog. So is its
//! time (`time_budget`), and a hang is the watchdog's too.
//!
//! Inputs start from files the writers produce (so the readers get past
//! their first checks) and are damaged at the level of the format: text
//! edits (brackets and braces among them) for PGN, length fields and key
//! bytes for the binary formats, plus plain random bytes.

use super::alloc_count;
use super::{mutate, Rng};
use chuhe::book::build::{to_bytes, Builder};
use chuhe::record::{self, pgn, xqf, Game, MoveNode};
use chuhe_core::board::notation;
use chuhe_core::board::Position;
use chuhe_core::book::{self, Book};
use chuhe_core::nnue::net::{self, Network};
use std::sync::Arc;

/// The memory a reader may hold for an input of `len` bytes: a fixed
/// allowance (tables, a decoded copy of a small file) and a generous
/// multiple of the input (tokens, move trees and their growth by doubling).
pub fn budget(len: usize) -> usize {
    (64 << 20) + 256 * len
}

/// The time a reader may take for an input of `len` bytes: far more than
/// a linear reader needs (well under a millisecond for the inputs here),
/// so that only work growing faster than the input, or a busy machine
/// beyond reason, fails it.
pub fn time_budget(len: usize) -> std::time::Duration {
    std::time::Duration::from_secs(2) + std::time::Duration::from_micros(2 * len as u64)
}

/// Runs a reader on `input` under the memory and time budgets.
pub fn bounded<R>(what: &str, input: &[u8], f: impl FnOnce() -> R) -> Result<R, String> {
    let t0 = std::time::Instant::now();
    let (out, peak) = alloc_count::measure(f);
    let took = t0.elapsed();
    let limit = budget(input.len());
    let start = || String::from_utf8_lossy(&input[..input.len().min(120)]).into_owned();
    if peak > limit {
        return Err(format!(
            "{what}: held {peak} bytes for a {}-byte input (budget {limit}); input starts {:?}",
            input.len(),
            start()
        ));
    }
    if took > time_budget(input.len()) {
        return Err(format!(
            "{what}: took {took:?} for a {}-byte input; input starts {:?}",
            input.len(),
            start()
        ));
    }
    Ok(out)
}

// ---- games -------------------------------------------------------------

const COMMENTS: &[&str] = &[
    "好棋",
    "a comment",
    "",
    "　　全角缩进",
    "line\nbreak",
    "brace } inside",
    "{nested",
    "semi; colon",
    "(paren)",
    "[bracket]",
    "\"quoted\"",
    "炮二平五 after",
];

const TAG_VALUES: &[&str] = &[
    "全国象棋个人赛",
    "x",
    "",
    "Black \"B\"",
    "back\\slash",
    "2006.08.03",
    "]",
    "a]b",
];

/// A random legal line of up to `max` plies from `pos`.
fn random_line(r: &mut Rng, pos: &Position, max: usize, depth: usize) -> Vec<MoveNode> {
    let mut p = pos.clone();
    let mut out: Vec<MoveNode> = Vec::new();
    for _ in 0..r.below(max + 1) {
        let legal = p.legal_moves();
        if legal.is_empty() {
            break;
        }
        let mut node = MoveNode::new(*r.pick(&legal));
        if r.chance(20) {
            node.comment = Some(r.pick(COMMENTS).to_string());
        }
        if depth < 3 && r.chance(10) {
            // A variation replaces this node's move, from the same position.
            let var = random_line(r, &p, 4, depth + 1);
            if !var.is_empty() {
                node.variations.push(var);
            }
        }
        p.make_move(node.mv);
        out.push(node);
    }
    out
}

/// A random game: the start position or a set-up one, tags, comments and
/// variations.
pub fn random_game(r: &mut Rng) -> Game {
    let mut g = Game::default();
    for name in ["Event", "Red", "Black", "Date"] {
        if r.chance(60) {
            g.set_tag(name, r.pick::<&str>(TAG_VALUES));
        }
    }
    g.set_tag("Result", r.pick::<&str>(&["1-0", "0-1", "1/2-1/2", "*"]));
    let start = if r.chance(25) {
        let (fen, _) = super::random_game(r);
        g.start_fen = Some(fen.clone());
        Position::from_fen(&fen).expect("a legal FEN")
    } else {
        Position::startpos()
    };
    if r.chance(30) {
        g.comment = Some(r.pick(COMMENTS).to_string());
    }
    let len = if r.chance(10) { 200 } else { 40 };
    g.moves = random_line(r, &start, len, 0);
    g
}

/// Movetext as people write it: move numbers, Chinese or ICCS moves (in
/// either case, with or without a dash), comments after `;`, variations.
fn hand_written(r: &mut Rng, g: &Game) -> String {
    let mut out = String::new();
    for (k, v) in &g.tags {
        out.push_str(&format!("[{k} \"{}\"]\n", pgn::escape_tag(v)));
    }
    if let Some(f) = &g.start_fen {
        out.push_str(&format!("[FEN \"{f}\"]\n"));
    }
    out.push('\n');
    let Ok(mut pos) = g.start_position() else {
        return out;
    };
    for (i, n) in g.moves.iter().enumerate() {
        if i % 2 == 0 {
            out.push_str(&format!("{}. ", i / 2 + 1));
        }
        let text = match r.below(4) {
            0 => notation::chinese(&pos, n.mv).unwrap_or_default(),
            1 => n.mv.to_string().to_uppercase(),
            2 => {
                let s = n.mv.to_string().to_uppercase();
                format!("{}-{}", &s[..2], &s[2..])
            }
            _ => n.mv.to_string(),
        };
        out.push_str(&text);
        out.push(' ');
        if let Some(c) = &n.comment {
            if r.chance(50) {
                out.push_str(&format!("{{{c}}} "));
            } else {
                out.push_str(&format!(";{c}\n"));
            }
        }
        pos.make_move(n.mv);
    }
    out.push_str(g.tag("Result").unwrap_or("*"));
    out.push('\n');
    out
}

/// The moves of every line of `game`, in a form that ignores comments.
fn move_tree(nodes: &[MoveNode]) -> String {
    let mut s = String::new();
    for n in nodes {
        s.push_str(&n.mv.to_string());
        for v in &n.variations {
            s.push('(');
            s.push_str(&move_tree(v));
            s.push(')');
        }
        s.push(' ');
    }
    s
}

/// Every line of an accepted game is legal from its position.
fn check_lines(pos: &Position, nodes: &[MoveNode]) -> Result<(), String> {
    let mut p = pos.clone();
    for n in nodes {
        for v in &n.variations {
            check_lines(&p, v)?;
        }
        if !p.is_legal(n.mv) {
            return Err(format!("accepted illegal move {} in {}", n.mv, p.fen()));
        }
        p.make_move(n.mv);
        p.clear_history();
    }
    Ok(())
}

fn check_games(games: &[Game]) -> Result<(), String> {
    for g in games {
        let start = g
            .start_position()
            .map_err(|e| format!("accepted a game with a bad FEN: {e}"))?;
        check_lines(&start, &g.moves)?;
    }
    Ok(())
}

/// Byte-level damage for binary formats: flips, cuts, insertions, copies
/// of a stretch elsewhere, and little-endian numbers written over fields.
fn damage(r: &mut Rng, bytes: &mut Vec<u8>, fields: &[usize]) {
    for _ in 0..1 + r.below(4) {
        let len = bytes.len();
        match r.below(7) {
            0 if len > 0 => {
                let i = r.below(len);
                bytes[i] ^= 1 << r.below(8);
            }
            1 if len > 0 => {
                let i = r.below(len);
                bytes[i] = *r.pick(&[0, 0x7F, 0x80, 0xFF, b'}', b']', b'X']);
            }
            2 => {
                let cut = r.below(len + 1);
                bytes.truncate(cut);
            }
            3 => {
                let at = r.below(len + 1);
                let n = 1 + r.below(64);
                let junk: Vec<u8> = (0..n).map(|_| r.next() as u8).collect();
                bytes.splice(at..at, junk);
            }
            4 if len > 0 => {
                let from = r.below(len);
                let n = 1 + r.below((len - from).min(256));
                let chunk = bytes[from..from + n].to_vec();
                let at = r.below(len + 1);
                bytes.splice(at..at, chunk);
            }
            5 if !fields.is_empty() => {
                let at = *r.pick(fields);
                let any = r.next() as u32;
                let v: u32 = *r.pick(&[
                    0,
                    1,
                    2,
                    3,
                    0x7F,
                    0xFF,
                    0x100,
                    0xFFFF,
                    0x7FFF_FFFF,
                    0x8000_0000,
                    0xFFFF_FFFF,
                    any,
                ]);
                for (k, b) in v.to_le_bytes().into_iter().enumerate() {
                    if let Some(slot) = bytes.get_mut(at + k) {
                        *slot = b;
                    }
                }
            }
            _ => {
                let n = r.below(32);
                let junk: Vec<u8> = (0..n).map(|_| r.next() as u8).collect();
                bytes.extend(junk);
            }
        }
    }
}

/// PGN: games as the writer writes them and as people do, in UTF-8 or
/// GBK, damaged as text. Accepted games are legal and survive the writer.
pub fn pgn(r: &mut Rng) -> Result<(), String> {
    let games: Vec<Game> = (0..1 + r.below(3)).map(|_| random_game(r)).collect();
    let mut text = if r.chance(50) {
        pgn::write(&games)
    } else {
        games.iter().map(|g| hand_written(r, g)).collect()
    };
    for _ in 0..r.below(4) {
        text = mutate(r, &text);
    }
    if r.chance(10) {
        // A stray closing bracket, alone or after moves.
        text.push_str(r.pick::<&str>(&["}", "]", " }", "\n]\n"]));
    }
    let mut bytes = if r.chance(20) {
        record::text::encode_gbk(&text)
    } else {
        text.into_bytes()
    };
    if r.chance(10) {
        damage(r, &mut bytes, &[]);
    }
    let read = bounded("pgn", &bytes, || {
        record::read_bytes(&bytes, Some(record::Format::Pgn))
    })?;
    let Ok(read) = read else {
        return Ok(());
    };
    check_games(&read)?;
    let again = pgn::write(&read);
    let back = bounded("pgn (again)", again.as_bytes(), || pgn::read_str(&again))?
        .map_err(|e| format!("the writer's text of accepted games does not read: {e}"))?;
    let trees = |gs: &[Game]| gs.iter().map(|g| move_tree(&g.moves)).collect::<Vec<_>>();
    if trees(&back) != trees(&read) {
        return Err("accepted games' moves change through the writer".into());
    }
    Ok(())
}

/// XQF of every version (plain and scrambled), damaged byte by byte and
/// in its length fields. Accepted games are legal and survive the writer.
pub fn xqf(r: &mut Rng) -> Result<(), String> {
    let game = random_game(r);
    let opts = if r.chance(50) {
        xqf::WriteOptions::default()
    } else {
        xqf::WriteOptions {
            version: *r.pick(&[11, 12, 18]),
            key_mask: r.next() as u8,
            key_or: std::array::from_fn(|_| r.next() as u8),
            key_xy: std::array::from_fn(|_| r.next() as u8),
        }
    };
    let Ok(mut bytes) = xqf::write_with(&game, &opts) else {
        return Ok(());
    };
    // Header bytes that steer the reader, and the first records' fields.
    let fields: Vec<usize> = [2, 3, 8, 12, 13, 0x33, 0x40, 0x400, 0x404, 0x408, 0x40C]
        .into_iter()
        .chain((0..4).map(|_| 0x400 + r.below(bytes.len().saturating_sub(0x400).max(1))))
        .collect();
    damage(r, &mut bytes, &fields);
    let read = bounded("xqf", &bytes, || {
        record::read_bytes(&bytes, Some(record::Format::Xqf))
    })?;
    let Ok(read) = read else {
        return Ok(());
    };
    check_games(&read)?;
    for g in &read {
        let written =
            xqf::write(g).map_err(|e| format!("an accepted game cannot be written: {e}"))?;
        let back =
            xqf::read(&written).map_err(|e| format!("the writer's file does not read: {e}"))?;
        if move_tree(&back.moves) != move_tree(&g.moves) {
            return Err("accepted game's moves change through the writer".into());
        }
    }
    Ok(())
}

/// Any bytes at all through the content sniffing of `record::read_bytes`:
/// random bytes, PGN punctuation, an `XQ` start.
pub fn records(r: &mut Rng) -> Result<(), String> {
    const PIECES: &[&[u8]] = &[
        b"}",
        b"]",
        b"{",
        b"[",
        b"(",
        b")",
        b";",
        b"%",
        b"\n",
        b" ",
        b"1.",
        b"h2e2",
        b"*",
        b"1-0",
        b"XQ",
        b"\"",
        b"\\",
        b"\xEF\xBB\xBF",
        b"\xC5\xDA",
        b"\xFF",
        b"\0",
    ];
    let mut bytes = Vec::new();
    let n = r.below(2000);
    while bytes.len() < n {
        if r.chance(50) {
            bytes.push(r.next() as u8);
        } else {
            bytes.extend_from_slice(r.pick::<&[u8]>(PIECES));
        }
    }
    let hint = *r.pick(&[None, Some(record::Format::Pgn), Some(record::Format::Xqf)]);
    if let Ok(games) = bounded("records", &bytes, || record::read_bytes(&bytes, hint))? {
        check_games(&games)?;
    }
    Ok(())
}

// ---- books -------------------------------------------------------------

/// Opening books of both formats, from real positions, damaged in their
/// counts and records. Accepted books answer probes with legal moves.
pub fn book(r: &mut Rng) -> Result<(), String> {
    let games: Vec<Game> = (0..1 + r.below(4)).map(|_| random_game(r)).collect();
    let mut bytes = if r.chance(60) {
        let mut b = Builder::new();
        for g in &games {
            let _ = b.add_game(g, 30);
        }
        to_bytes(&b.records(1))
    } else {
        // BOOK.DAT: 8-byte records (key, move, weight) sorted by key.
        let mut recs: Vec<(u32, u16, u16)> = Vec::new();
        for g in &games {
            let Ok(mut pos) = g.start_position() else {
                continue;
            };
            for n in g.moves.iter().take(20) {
                let key = book::eleeye::book_key(&pos, false);
                recs.push((key, book::eleeye::encode_move(n.mv), r.next() as u16));
                pos.make_move(n.mv);
            }
        }
        recs.sort_by_key(|x| x.0);
        recs.iter()
            .flat_map(|(k, m, w)| {
                let mut v = k.to_le_bytes().to_vec();
                v.extend(m.to_le_bytes());
                v.extend(w.to_le_bytes());
                v
            })
            .collect()
    };
    let fields = [8, 12, 16, 24, 26, 40, 4, 6];
    if r.chance(80) {
        damage(r, &mut bytes, &fields);
    }
    let read = bounded("book", &bytes, || Book::from_bytes("fuzz", &bytes))?;
    let Ok(b) = read else {
        return Ok(());
    };
    for g in &games {
        let Ok(mut pos) = g.start_position() else {
            continue;
        };
        for n in g.moves.iter().take(10) {
            for m in b.probe(&pos).unwrap_or_default() {
                if !pos.is_legal(m.mv) {
                    return Err(format!("probe offers illegal {} in {}", m.mv, pos.fen()));
                }
            }
            let legal = pos.legal_moves();
            let mut rng = chuhe_core::rng::SplitMix64::new(r.next());
            let _ = book::choose(
                std::slice::from_ref(&b),
                &pos,
                &legal,
                book::Variety::from_level("medium"),
                &mut rng,
            );
            pos.make_move(n.mv);
        }
    }
    Ok(())
}

// ---- networks ----------------------------------------------------------

/// A small valid network file (the smallest shape), made once.
fn network_bytes(version: u32) -> &'static [u8] {
    use std::sync::OnceLock;
    static FILES: OnceLock<(Vec<u8>, Vec<u8>)> = OnceLock::new();
    let (v1, v2) = FILES.get_or_init(|| {
        let mut r = Rng::new(7);
        let mut small =
            |n: usize| -> Vec<i16> { (0..n).map(|_| (r.next() % 64) as i16 - 32).collect() };
        let h = 256;
        let net = Network::new(
            h,
            1,
            1,
            small(net::FEATURES * h),
            small(h),
            small(2 * h),
            vec![5],
            300,
        )
        .expect("a valid shape");
        (net.to_v1_bytes().expect("v1 shape"), net.to_bytes())
    });
    if version == 1 {
        v1
    } else {
        v2
    }
}

/// Network files: header fields (version, shape, quantisation, payload
/// length) and the body damaged, the checksum sometimes made to fit so the
/// damage gets past it. An accepted network evaluates.
pub fn network(r: &mut Rng) -> Result<(), String> {
    let mut bytes = if r.chance(10) {
        // Only a header's worth, magic kept: shape fields alone.
        let mut b = network_bytes(2)[..r.below(64)].to_vec();
        damage(r, &mut b, &[8, 12, 16, 20, 36, 40, 44]);
        b
    } else {
        network_bytes(if r.chance(30) { 1 } else { 2 }).to_vec()
    };
    damage(
        r,
        &mut bytes,
        &[8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52],
    );
    if r.chance(50) && bytes.len() >= 8 {
        let n = bytes.len() - 8;
        let sum = net::fnv1a(&bytes[..n]);
        bytes[n..].copy_from_slice(&sum.to_le_bytes());
    }
    let read = bounded("network", &bytes, || Network::from_bytes(&bytes))?;
    if let Ok(n) = read {
        let pos = Position::startpos();
        let mut e = chuhe_core::eval::Evaluator::new(Some(Arc::new(n)), &pos);
        let _ = e.evaluate(&pos);
    }
    Ok(())
}

// ---- mate suites -------------------------------------------------------

/// `bench --suite` files: `FEN ; mate N ; source` lines, damaged.
pub fn mate_suite(r: &mut Rng) -> Result<(), String> {
    let mut text = String::new();
    for _ in 0..r.below(6) {
        let fen = super::fen_text(r);
        text.push_str(&format!("{fen} ; mate {} ; src\n", super::number(r)));
        if r.chance(10) {
            text.push_str("# comment\n\n");
        }
    }
    let text = if r.chance(50) { mutate(r, &text) } else { text };
    let read = bounded("mate suite", text.as_bytes(), || {
        chuhe::bench::read_suite(&text)
    })?;
    for case in read.unwrap_or_default() {
        let pos = Position::from_fen(&case.fen).map_err(|e| format!("accepted bad FEN: {e}"))?;
        if case.mate == 0 || pos.legal_moves().is_empty() {
            return Err(format!("accepted {case:?}"));
        }
    }
    Ok(())
}

// ---- datagen chain files -------------------------------------------------

/// A random game for a chain file: random legal moves from the start, some
/// of them searched plies with scores and keep bits.
fn chain_game(r: &mut Rng, number: u64) -> chuhe::train::chain::ChainGame {
    use chuhe::train::chain::{ChainGame, ChainPly};
    use chuhe_core::rules::Outcome;
    let mut pos = Position::startpos();
    let (mut prefix, mut plies) = (Vec::new(), Vec::new());
    let prefix_len = r.below(8);
    for k in 0..r.below(120) {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let mv = moves[r.below(moves.len())];
        if k < prefix_len {
            prefix.push(mv);
        } else {
            plies.push(ChainPly {
                mv,
                score: *r.pick(&[0, 35, -120, 1499, -30000, 30000, i16::MAX, i16::MIN]),
                keep: r.chance(70),
            });
        }
        pos.make_move(mv);
    }
    ChainGame {
        number,
        root_fen: chuhe_core::board::START_FEN.to_string(),
        prefix,
        plies,
        outcome: *r.pick(&[Outcome::Draw, Outcome::RedWins, Outcome::BlackWins]),
    }
}

/// One chain frame around `raw` (games as the writer lays them out), with
/// a header whose checksum fits whatever its fields say.
fn chain_frame(raw: &[u8], first_game: u64, games: u32, positions: u32) -> Vec<u8> {
    let packed = zstd::bulk::compress(raw, 3).expect("zstd packs");
    let mut h = [0u8; 32];
    h[..4].copy_from_slice(b"CHFR");
    h[4..8].copy_from_slice(&(packed.len() as u32).to_le_bytes());
    h[8..12].copy_from_slice(&(raw.len() as u32).to_le_bytes());
    h[12..20].copy_from_slice(&first_game.to_le_bytes());
    h[20..24].copy_from_slice(&games.to_le_bytes());
    h[24..28].copy_from_slice(&positions.to_le_bytes());
    let sum = h[..28].iter().fold(0x811c_9dc5u32, |a, &x| {
        (a ^ x as u32).wrapping_mul(0x0100_0193)
    });
    h[28..].copy_from_slice(&sum.to_le_bytes());
    let mut out = h.to_vec();
    out.extend(packed);
    out
}

/// Datagen's chain files (src/train/chain.rs): whole files from the writer
/// damaged anywhere (zstd's checksum and the frame header's must catch
/// it), and frames whose games themselves are damaged and then packed
/// and summed properly, so that the game decoder and the replay meet bad
/// lengths, varints, results and move indices. Every game read before the
/// damage must be one that was written; the error names a game or frame.
pub fn chain(r: &mut Rng) -> Result<(), String> {
    use chuhe::train::chain::{encode_game, ChainReader, ChainWriter};
    let games: Vec<_> = (0..1 + r.below(12))
        .map(|i| chain_game(r, 100 + i as u64))
        .collect();
    let mut damaged = true;
    let bytes = if r.chance(50) {
        let mut w = ChainWriter::new(Vec::new()).expect("a Vec takes writes");
        for g in &games {
            w.push(g).map_err(|e| e.to_string())?;
            if r.chance(30) {
                w.flush().expect("a Vec takes writes");
            }
        }
        let mut b = w.finish().expect("a Vec takes writes");
        if r.chance(90) {
            damage(r, &mut b, &[8, 16, 20, 24, 28, 36, 40, 44]);
        } else {
            damaged = false;
        }
        b
    } else {
        let mut raw = Vec::new();
        for g in &games {
            encode_game(g, &mut raw).map_err(|e| e.to_string())?;
        }
        damage(r, &mut raw, &[0, 1, 2, 3, 60, 61, 62, 63, 64]);
        let kept = games.iter().map(|g| g.kept() as u32).sum();
        let mut b = b"CHUHECHN\x01\0\0\0\0\0\0\0".to_vec();
        b.extend(chain_frame(&raw, 100, games.len() as u32, kept));
        b
    };
    let (got, err) = bounded("chain", &bytes, || {
        let mut got = Vec::new();
        let mut reader = match ChainReader::new(&bytes[..]) {
            Ok(reader) => reader,
            Err(e) => return (got, Some(e.to_string())),
        };
        loop {
            match reader.next_frame() {
                Ok(Some((_, frame))) => {
                    for g in &frame {
                        // A game that was read whole replays.
                        if let Err(e) = g.records() {
                            return (got, Some(format!("records of a game read whole: {e}")));
                        }
                    }
                    got.extend(frame)
                }
                Ok(None) => return (got, None),
                Err(e) => return (got, Some(e.to_string())),
            }
        }
    })?;
    if !damaged && (err.is_some() || got != games) {
        return Err(format!("an undamaged file read back otherwise: {err:?}"));
    }
    if let Some(e) = err {
        if e.starts_with("records of a game") {
            return Err(e);
        }
        if !(e.contains("game") || e.contains("frame") || e.contains("chain file")) {
            return Err(format!("an error that names no game or frame: {e}"));
        }
    }
    Ok(())
}
