//! Fuzz targets shared by the short run in `cargo test` (tests/fuzz.rs) and
//! the long run (`cargo run --release --example fuzz`). No coverage-guided
//! fuzzer here (cargo-fuzz needs a nightly toolchain and an extra tool);
//! instead each target builds inputs from a seeded generator that knows the
//! input's grammar (FEN fields, moves, protocol commands, TOML keys) and
//! then damages some of them byte by byte, so both near-valid and hostile
//! text get through. Every failure is reproducible from (target, seed, index).
//!
//! A target returns `Err` when a property fails; a panic is caught by the
//! driver; a hang is caught by the driver's per-input time limit.

#![allow(dead_code)]

use chuhe::matches::config::{parse_engine_arg, FileConfig};
use chuhe::matches::engine::{move_from_engine, move_to_engine};
use chuhe::matches::openings;
use chuhe::matches::timecontrol::TimeControl;
use chuhe_core::board::notation;
use chuhe_core::board::{Move, Position, Square};
use chuhe_core::protocol::command;
use chuhe_core::rules::{self, judge_repetition, Outcome, Reason};

#[path = "piped.rs"]
mod piped;

#[path = "alloc_count.rs"]
pub mod alloc_count;

#[path = "fuzz_readers.rs"]
pub mod readers;

// Every binary that runs these targets counts its allocations, so that the
// readers' memory can be checked (see `alloc_count`).
#[global_allocator]
static ALLOC: alloc_count::Counting = alloc_count::Counting;

/// splitmix64: small, fast, and the same everywhere.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The seed of input `index` of a run seeded with `seed`.
pub fn input_seed(seed: u64, index: u64) -> u64 {
    Rng::new(seed ^ index.wrapping_mul(0xD6E8_FEB8_6659_FD93)).next()
}

/// Numbers that break careless parsing.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "9",
    "10",
    "64",
    "255",
    "256",
    "1000",
    "65535",
    "65536",
    "2147483647",
    "-2147483648",
    "4294967296",
    "9223372036854775807",
    "18446744073709551616",
    "99999999999999999999999",
    "1e9",
    "1e308",
    "-0",
    "0.5",
    "NaN",
    "inf",
    "-inf",
    "",
    "x",
    "١٢",
];

fn number(r: &mut Rng) -> String {
    if r.chance(50) {
        r.pick(NUMBERS).to_string()
    } else {
        (r.next() % 100_000).to_string()
    }
}

/// Bytes and pieces of text that mutations insert.
const JUNK: &[&str] = &[
    " ", "  ", "\t", "/", "|", "#", "-", "+", "=", ",", ".", "\"", "'", "{", "}", "[", "]", "\\",
    "0", "9", "10", "a", "i", "j", "k", "K", "r", "R", "p", "P", "w", "b", "\u{0}", "\u{7f}", "é",
    "車", "炮", "进", "\u{feff}", "\r",
];

/// Damages `text`: a few random byte-level edits (kept valid UTF-8 by
/// editing at char boundaries).
pub fn mutate(r: &mut Rng, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..1 + r.below(4) {
        let at = r.below(chars.len() + 1);
        match r.below(6) {
            0 if at < chars.len() => {
                chars.remove(at);
            }
            1 if at < chars.len() => {
                let end = (at + 1 + r.below(8)).min(chars.len());
                chars.drain(at..end);
            }
            2 => {
                for (k, c) in r.pick(JUNK).chars().enumerate() {
                    chars.insert(at + k, c);
                }
            }
            3 if at < chars.len() => {
                chars[at] = *r.pick(&['0', '9', 'a', 'z', ' ', '/', '\u{100}'])
            }
            4 if !chars.is_empty() => {
                // Repeat a slice: long tokens and long lines.
                let from = r.below(chars.len());
                let len = 1 + r.below(chars.len() - from);
                let slice: Vec<char> = chars[from..from + len].to_vec();
                // All copies in one splice: inserting them char by char
                // made damaging a long text take seconds.
                let copies = slice.repeat(1 + r.below(4));
                let at = at.min(chars.len());
                chars.splice(at..at, copies);
            }
            _ => {
                let n = number(r);
                for (k, c) in n.chars().enumerate() {
                    chars.insert(at + k, c);
                }
            }
        }
    }
    chars.into_iter().collect()
}

// ---- positions ---------------------------------------------------------

/// Piece letters and the squares where each may legally stand (by FEN rules).
fn random_board(r: &mut Rng) -> String {
    // Start from a real position most of the time: the start position after
    // some random moves, thinned out, so material and kings stay plausible.
    let mut pos = Position::startpos();
    for _ in 0..r.below(60) {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        pos.make_move(*r.pick(&moves));
    }
    let fen = pos.fen();
    let mut fields: Vec<String> = fen.split(' ').map(str::to_string).collect();
    // Thin out: replace some non-king pieces by empty squares.
    let mut rows: Vec<Vec<char>> = fields[0]
        .split('/')
        .map(|row| {
            let mut v = Vec::new();
            for c in row.chars() {
                match c.to_digit(10) {
                    Some(n) => v.extend(std::iter::repeat_n('.', n as usize)),
                    None => v.push(c),
                }
            }
            v
        })
        .collect();
    let keep = 20 + r.below(81);
    for row in rows.iter_mut() {
        for c in row.iter_mut() {
            if *c != '.' && *c != 'k' && *c != 'K' && r.below(100) >= keep {
                *c = '.';
            }
        }
    }
    fields[0] = rows
        .iter()
        .map(|row| {
            let mut s = String::new();
            let mut empty = 0;
            for &c in row {
                if c == '.' {
                    empty += 1;
                } else {
                    if empty > 0 {
                        s.push_str(&empty.to_string());
                        empty = 0;
                    }
                    s.push(c);
                }
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
            s
        })
        .collect::<Vec<_>>()
        .join("/");
    fields.join(" ")
}

/// A FEN-like string: valid, nearly valid, or garbage.
pub fn fen_text(r: &mut Rng) -> String {
    let base = random_board(r);
    match r.below(4) {
        0 => base,
        1 | 2 => mutate(r, &base),
        _ => {
            // Field-level damage: drop, duplicate, replace fields.
            let mut f: Vec<String> = base.split(' ').map(str::to_string).collect();
            let i = r.below(f.len());
            match r.below(3) {
                0 => {
                    f.remove(i);
                }
                1 => {
                    let x = f[i].clone();
                    f.insert(i, x)
                }
                _ => f[i] = number(r),
            }
            f.join(" ")
        }
    }
}

/// FEN parsing never panics; what it accepts it writes back the same way,
/// and it can generate, make and unmake every move.
pub fn fen(r: &mut Rng) -> Result<(), String> {
    let text = fen_text(r);
    let Ok(mut pos) = Position::from_fen(&text) else {
        return Ok(());
    };
    let written = pos.fen();
    let again =
        Position::from_fen(&written).map_err(|e| format!("{text:?}: {written} rejected: {e}"))?;
    if again.fen() != written || again.key() != pos.key() {
        return Err(format!("{text:?}: round trip {written} -> {}", again.fen()));
    }
    let key = pos.key();
    for mv in pos.legal_moves() {
        pos.make_move(mv);
        let _ = pos.in_check();
        pos.unmake_move();
    }
    if pos.key() != key || pos.fen() != written {
        return Err(format!("{text:?}: make/unmake changed the position"));
    }
    Ok(())
}

// ---- moves --------------------------------------------------------------

fn random_move_text(r: &mut Rng) -> String {
    let sq = |r: &mut Rng| Square::new(r.below(90) as u8).unwrap();
    let mv = Move::new(sq(r), sq(r));
    let base = r.below(2) as u8;
    let text = move_to_engine(mv, base);
    if r.chance(50) {
        text
    } else {
        mutate(r, &text)
    }
}

/// ICCS and both UCI rank conventions: parsing never panics, and a move
/// read back is written as it was read (and the two conventions agree).
/// Chinese notation (only a writer exists) never fails for a legal move.
pub fn moves(r: &mut Rng) -> Result<(), String> {
    let text = random_move_text(r);
    if let Ok(m) = text.parse::<Move>() {
        // Upper case and one dash between the squares (`H2-E2`) are allowed.
        if m.to_string() != text.to_ascii_lowercase().replacen('-', "", 1) {
            return Err(format!("ICCS {text:?} read as {m}"));
        }
    }
    for base in [0u8, 1] {
        if let Some(m) = move_from_engine(&text, base) {
            // Ranks 0-9 are read as ICCS, with its tolerance for `H2-E2`.
            let plain = match base {
                0 => text.to_ascii_lowercase().replacen('-', "", 1),
                _ => text.clone(),
            };
            if move_to_engine(m, base) != plain {
                return Err(format!("base {base}: {text:?} read as {m}"));
            }
            let other = move_to_engine(m, 1 - base);
            if move_from_engine(&other, 1 - base) != Some(m) {
                return Err(format!("{m} does not survive {other:?}"));
            }
        }
    }
    if r.chance(10) {
        let Ok(mut pos) = Position::from_fen(&random_board(r)) else {
            return Ok(());
        };
        for _ in 0..4 {
            let legal = pos.legal_moves();
            for &m in &legal {
                notation::chinese(&pos, m).map_err(|e| format!("{} {m}: {e:?}", pos.fen()))?;
            }
            if legal.is_empty() {
                break;
            }
            pos.make_move(*r.pick(&legal));
        }
    }
    Ok(())
}

// ---- protocol lines -----------------------------------------------------

const OPTION_NAMES: &[&str] = &[
    "usemillisec",
    "batch",
    "debug",
    "ponder",
    "hashsize",
    "threads",
    "newgame",
    "usebook",
    "bookfiles",
    "randomness",
    "pruning",
    "knowledge",
    "style",
    "idle",
    "promotion",
    "moveoverhead",
    "resignscore",
    "resignmoves",
    "drawoffermoves",
    "Hash",
    "Threads",
    "Ponder",
    "Move Overhead",
    "Clear Hash",
    "OwnBook",
    "BookFile",
    "Randomness",
    "UCI_Variant",
    "MultiPV",
    "Skill Level",
    "skilllevel",
    "UCI_LimitStrength",
    "UCI_Elo",
    "UCI_ShowWDL",
    "showwdl",
    "nosuchoption",
];

const OPTION_VALUES: &[&str] = &[
    "true", "false", "on", "off", "none", "small", "medium", "large", "solid", "normal", "risky",
    "xiangqi", "",
];

/// Option values the engine can really act on in a test: a hash or thread
/// count the machine could not give would test the machine, not the parser.
fn option_value(r: &mut Rng, name: &str, session: bool) -> String {
    let sized = matches!(name, "hashsize" | "Hash" | "threads" | "Threads");
    if session && sized {
        return r.pick(&["0", "1", "2", "-5", "x", "", "1.5"]).to_string();
    }
    if r.chance(50) {
        r.pick(OPTION_VALUES).to_string()
    } else {
        number(r)
    }
}

fn position_line(r: &mut Rng) -> String {
    let mut pos = Position::from_fen(&random_board(r)).unwrap_or_default();
    let head = if r.chance(30) {
        pos = Position::startpos();
        "startpos".to_string()
    } else {
        format!("fen {}", pos.fen())
    };
    let mut moves = Vec::new();
    for _ in 0..r.below(12) {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = *r.pick(&legal);
        moves.push(m.to_string());
        pos.make_move(m);
    }
    if r.chance(10) {
        moves.push(random_move_text(r));
    }
    if moves.is_empty() && r.chance(50) {
        head
    } else {
        format!("{head} moves {}", moves.join(" "))
    }
}

/// `go` with random parameters. With `bounded` (a real engine answers it)
/// every search is capped at depth 1-2 or a few thousand nodes, or is an
/// infinite/ponder search that the caller stops.
fn go_line(r: &mut Rng, bounded: bool) -> String {
    // The parser's own list, so a word added there is fuzzed too.
    const WORDS: &[&str] = chuhe_core::protocol::command::GO_WORDS;
    let mut go = String::from("go");
    for _ in 0..r.below(5) {
        let w = *r.pick(WORDS);
        go.push(' ');
        go.push_str(w);
        match w {
            "ponder" | "draw" | "infinite" => {}
            "searchmoves" => {
                for _ in 0..r.below(4) {
                    go.push(' ');
                    go.push_str(&random_move_text(r));
                }
            }
            "perft" if bounded => go.push_str(&format!(" {}", r.below(4))),
            "depth" | "nodes" | "mate" | "movetime" if bounded => {
                // Kept small here; the cap below bounds the search anyway.
                go.push_str(&format!(" {}", r.below(3)))
            }
            _ => {
                go.push(' ');
                go.push_str(&number(r));
            }
        }
    }
    if bounded {
        // Later keywords override earlier ones: the cap comes last.
        if r.chance(50) {
            go.push_str(&format!(" depth {}", 1 + r.below(2)));
        } else {
            go.push_str(&format!(" nodes {}", 1 + r.below(3000)));
        }
    }
    go
}

/// One protocol line of either protocol, valid or damaged.
pub fn protocol_line(r: &mut Rng, bounded: bool) -> String {
    let line = match r.below(16) {
        0 => r.pick(&["ucci", "uci"]).to_string(),
        1 => "isready".into(),
        2 => format!("debug {}", r.pick(&["on", "off", "", "maybe"])),
        3 | 4 => {
            let name = *r.pick(OPTION_NAMES);
            let value = option_value(r, name, bounded);
            if r.chance(50) {
                format!("setoption name {name} value {value}")
            } else {
                format!("setoption {name} {value}")
            }
        }
        5..=7 => format!("position {}", position_line(r)),
        8 => {
            let mut s = String::from("banmoves");
            for _ in 0..r.below(4) {
                s.push(' ');
                s.push_str(&random_move_text(r));
            }
            s
        }
        9..=11 => go_line(r, bounded),
        12 => r.pick(&["ponderhit", "ponderhit draw", "stop"]).to_string(),
        13 => format!("probe {}", position_line(r)),
        14 => r
            .pick(&["ucinewgame", "setoption newgame", "", "   ", "d", "eval"])
            .to_string(),
        _ => r
            .pick(&["xyzzy", "go go go", "position", "setoption", "quitx"])
            .to_string(),
    };
    if bounded || r.chance(60) {
        line
    } else {
        mutate(r, &line)
    }
}

/// The command parser takes any line without panicking, and a parsed
/// position's moves are moves that print as ICCS.
pub fn protocol_parse(r: &mut Rng) -> Result<(), String> {
    let line = protocol_line(r, false);
    match command::parse(&line) {
        Ok(command::Command::Position(spec)) | Ok(command::Command::Probe(spec)) => {
            for m in spec.moves {
                if m.to_string().parse::<Move>() != Ok(m) {
                    return Err(format!("{line:?}: move {m} does not print back"));
                }
            }
            Ok(())
        }
        Ok(_) => Ok(()),
        Err(e) => {
            // Messages quote the user's text shortened: never the whole of a long line.
            let text = e.to_string();
            if text.chars().count() > 200 {
                return Err(format!("error message of {} chars", text.chars().count()));
            }
            Ok(())
        }
    }
}

/// A session script: lines for the real engine in UCCI, UCI or CECP (a
/// third each; see `cecp_script`). In UCCI/UCI, `stop` follows every
/// infinite or ponder search so nothing runs unbounded. In UCCI batch mode
/// the engine reads nothing while it thinks (UCCI.md), so no `stop` could
/// end such a search: while batch mode may be on, `go` lines lose their
/// `infinite` and `ponder` words.
pub fn session_script(r: &mut Rng, lines: usize) -> Vec<String> {
    let first = *r.pick(&["ucci", "uci", "xboard"]);
    if first == "xboard" {
        return cecp_script(r, lines);
    }
    let mut out = vec![first.to_string()];
    let mut batch = false;
    while out.len() < lines {
        let mut line = protocol_line(r, true);
        let first = line.split_whitespace().next().unwrap_or("").to_string();
        if first == "quit" {
            continue;
        }
        if first == "setoption" && line.contains("batch") {
            let last = line.split_whitespace().last().unwrap_or("");
            batch = !matches!(last, "false" | "off");
        }
        if first == "go" && batch {
            line = line
                .split_whitespace()
                .filter(|w| !matches!(*w, "infinite" | "ponder"))
                .collect::<Vec<_>>()
                .join(" ");
        }
        // A `go` without a limit of its own (the garbage `go go go`) searches
        // until `stop`, which batch mode would never read: give it one.
        let words: Vec<&str> = line.split_whitespace().collect();
        let capped = words.len() >= 2
            && matches!(words[words.len() - 2], "depth" | "nodes")
            && words[words.len() - 1].parse::<u32>().is_ok();
        if first == "go" && !capped {
            line.push_str(" depth 1");
        }
        let unbounded = first == "go" && (line.contains("infinite") || line.contains("ponder"));
        out.push(line);
        if unbounded {
            out.push("stop".into());
        }
    }
    out
}

// ---- CECP sessions --------------------------------------------------------

/// Moves often legal in the first plies, so that some games get going.
const OPENING_MOVES: &[&str] = &[
    "h2e2", "h9g7", "b0c2", "b9c7", "h0g2", "b2e2", "c3c4", "g6g5", "i9h9", "a0a1",
];

/// Option names as CECP spells them, and some it does not know. Not
/// `Hash`: a table the machine cannot give would test the machine, not the
/// protocol (`memory` gets small sizes only).
const CECP_OPTIONS: &[&str] = &[
    "Move Overhead",
    "Clear Hash",
    "Use NNUE",
    "EvalFile",
    "OwnBook",
    "BookFile",
    "Book Randomness",
    "Style",
    "Resign Score",
    "Resign Moves",
    "Draw Offer Moves",
    "nosuchoption",
    "",
];

/// One CECP line, valid or damaged. Lines that bound a search (`sd`, `st`,
/// `level`, `time`) are never damaged and keep searches short: depth 1-2
/// (the script repeats `sd` after every `new`, which clears it), a few
/// hundredths of a second a move, clocks of at most a minute.
pub fn cecp_line(r: &mut Rng) -> String {
    let bounded = match r.below(8) {
        0 => Some(format!(
            "level {} {} {}",
            r.pick(&["0", "40", "1", "x"]),
            r.pick(&["0:01", "0:05", "1", "0", "0:0", "1:x"]),
            r.pick(&["0", "0.1", "1", "-1", ""])
        )),
        1 => Some(format!("st {}", r.pick(&["0.02", "0.05", "0", "-1", "x"]))),
        2 => Some(format!("sd {}", r.pick(&["1", "2", "0", "x", "1 2", ""]))),
        3 => Some(format!("{} {}", r.pick(&["time", "otim"]), r.below(6000))),
        _ => None,
    };
    if let Some(line) = bounded {
        return line;
    }
    let mv = |r: &mut Rng| {
        if r.chance(60) {
            r.pick(OPENING_MOVES).to_string()
        } else {
            random_move_text(r)
        }
    };
    let line = match r.below(16) {
        0..=3 => format!("usermove {}", mv(r)),
        4 => mv(r),
        5 => r
            .pick(&[
                "new",
                "force",
                "go",
                "playother",
                "?",
                "undo",
                "remove",
                "result 1-0 {x}",
                "result *",
            ])
            .to_string(),
        6 => r
            .pick(&[
                "post", "nopost", "hard", "easy", "hint", ".", "draw", "computer",
            ])
            .to_string(),
        7 => r.pick(&["analyze", "exit", "analyze", "."]).to_string(),
        8 => format!("setboard {}", fen_text(r)),
        9 => format!(
            "{} {}",
            r.pick(&["memory", "cores"]),
            r.pick(&["1", "2", "16", "0", "-5", "x", ""])
        ),
        10 => {
            let name = *r.pick(CECP_OPTIONS);
            match r.below(3) {
                0 => format!("option {name}"),
                1 => format!("option {name}={}", r.pick(OPTION_VALUES)),
                _ => format!("option {name}={}", number(r)),
            }
        }
        11 => r
            .pick(&["variant xiangqi", "variant shogi", "variant", "protover 2"])
            .to_string(),
        12 => format!("ping {}", r.below(1000)),
        13 => r
            .pick(&[
                "random",
                "name someone",
                "rating 2000 1500",
                "ics -",
                "accepted ping",
            ])
            .to_string(),
        14 => r
            .pick(&[
                "rejected usermove",
                "edit",
                "white",
                "bk",
                "nps 1000",
                "xyzzy",
                "",
            ])
            .to_string(),
        _ => "\t \t".to_string(),
    };
    if r.chance(75) {
        line
    } else {
        mutate(r, &line)
    }
}

/// A CECP session script as XBoard starts one; `sd` after every `new`.
pub fn cecp_script(r: &mut Rng, lines: usize) -> Vec<String> {
    let mut out: Vec<String> = ["xboard", "protover 2", "new", "sd 2"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    while out.len() < lines {
        let line = cecp_line(r);
        if line.split_whitespace().next() == Some("quit") {
            continue;
        }
        let new_game = line.trim() == "new";
        out.push(line);
        if new_game {
            out.push(format!("sd {}", 1 + r.below(2)));
        }
    }
    out
}

// ---- the judge ----------------------------------------------------------

/// A colour-mirrored square: same file, rank 9 - rank.
fn mirror_sq(s: Square) -> Square {
    let rank = s.index() / 9;
    let file = s.index() % 9;
    Square::new(((9 - rank) * 9 + file) as u8).unwrap()
}

pub fn mirror_move(m: Move) -> Move {
    Move::new(mirror_sq(m.from()), mirror_sq(m.to()))
}

/// The FEN with colours swapped (the library's own twin-maker).
pub fn mirror_fen(fen: &str) -> String {
    chuhe_core::board::flip_colours_fen(fen)
}

fn mirror_outcome(o: Outcome) -> Outcome {
    match o {
        Outcome::RedWins => Outcome::BlackWins,
        Outcome::BlackWins => Outcome::RedWins,
        Outcome::Draw => Outcome::Draw,
    }
}

/// The verdict table (docs/RULES.md, seeds 26.1-26.4), restated here from
/// the sides' summaries so that the judge's verdict can be checked against it.
fn table(red: rules::SideCycle, black: rules::SideCycle) -> (Outcome, Reason) {
    let draw = (Outcome::Draw, Reason::RepetitionDraw);
    match (red.perpetual_check, black.perpetual_check) {
        (true, true) => return draw,
        (true, false) => return (Outcome::BlackWins, Reason::PerpetualCheck),
        (false, true) => return (Outcome::RedWins, Reason::PerpetualCheck),
        _ => {}
    }
    if red.forbidden_with_pawns && black.forbidden_with_pawns {
        return draw;
    }
    match (red.forbidden, black.forbidden) {
        (true, false) => (Outcome::BlackWins, Reason::PerpetualAttack),
        (false, true) => (Outcome::RedWins, Reason::PerpetualAttack),
        _ => draw,
    }
}

/// A random legal game from a thinned-out position, steered into
/// repetitions: most moves undo the mover's previous move when they can.
pub fn random_game(r: &mut Rng) -> (String, Vec<Move>) {
    let fen = loop {
        let f = random_board(r);
        if let Ok(p) = Position::from_fen(&f) {
            if p.has_legal_move() {
                break p.fen();
            }
        }
    };
    let mut pos = Position::from_fen(&fen).unwrap();
    let mut moves: Vec<Move> = Vec::new();
    let plies = 8 + r.below(40);
    for _ in 0..plies {
        if rules::judge(&pos).is_some() {
            break;
        }
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let n = moves.len();
        let back = (n >= 2).then(|| Move::new(moves[n - 2].to(), moves[n - 2].from()));
        let mv = match back {
            Some(b) if legal.contains(&b) && r.chance(80) => b,
            _ => *r.pick(&legal),
        };
        pos.make_move(mv);
        moves.push(mv);
    }
    (fen, moves)
}

/// The judge on a random game and its colour-mirrored twin: no panic,
/// mirrored verdicts and classes at every ply, the verdict table holds, and
/// the search's view of the cycle agrees with the verdict.
pub fn judge(r: &mut Rng) -> Result<(), String> {
    let (fen, moves) = random_game(r);
    check_game(&fen, &moves)
}

/// The judge's properties on one game (see `judge`).
pub fn check_game(fen: &str, moves: &[Move]) -> Result<(), String> {
    let mut a = Position::from_fen(fen).map_err(|e| e.to_string())?;
    let mut b = Position::from_fen(&mirror_fen(fen)).map_err(|e| format!("mirror: {e}"))?;
    let game = || {
        format!(
            "{fen} moves {}",
            moves
                .iter()
                .map(|m| m.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        )
    };
    for &m in moves {
        a.make_move(m);
        b.make_move(mirror_move(m));
        let va = rules::judge(&a);
        let vb = rules::judge(&b);
        let mirrored = vb.as_ref().map(|v| (mirror_outcome(v.outcome), v.reason));
        if va.as_ref().map(|v| (v.outcome, v.reason)) != mirrored {
            return Err(format!("{}: {va:?} but the mirror {vb:?}", game()));
        }
        let (Some(ra), Some(rb)) = (judge_repetition(&a), judge_repetition(&b)) else {
            continue;
        };
        let ca: Vec<_> = ra.moves.iter().map(|c| c.class).collect();
        let cb: Vec<_> = rb.moves.iter().map(|c| c.class).collect();
        if ca != cb || ra.red != rb.black || ra.black != rb.red {
            return Err(format!("{}: classes {ca:?} vs mirror {cb:?}", game()));
        }
        // The same targets, mirrored, won the same way (the check that wins
        // one may differ: the first found depends on where pieces stand).
        for (ma, mb) in ra.moves.iter().zip(&rb.moves) {
            let targets = |m: &rules::ClassifiedMove, flip: bool| {
                let mut t: Vec<_> = m
                    .chases
                    .iter()
                    .map(|t| {
                        let sq = if flip { mirror_sq(t.square) } else { t.square };
                        (sq.index(), t.pawn_only, t.how.as_str())
                    })
                    .collect();
                t.sort();
                t
            };
            let (ta, tb) = (targets(ma, false), targets(mb, true));
            if ta != tb {
                return Err(format!(
                    "{}: {} chases {ta:?} vs mirror {tb:?}",
                    game(),
                    ma.mv
                ));
            }
        }
        if let Some(v) = &ra.verdict {
            if (v.outcome, v.reason) != table(ra.red, ra.black) {
                return Err(format!("{}: verdict {v:?} against the table", game()));
            }
        }
    }
    Ok(())
}

// ---- files --------------------------------------------------------------

/// An opening file: good lines (all three forms), comments and damage.
pub fn openings(r: &mut Rng) -> Result<(), String> {
    let mut text = String::new();
    for i in 0..1 + r.below(4) {
        let mut pos = Position::startpos();
        let mut moves = Vec::new();
        for _ in 0..r.below(8) {
            let legal = pos.legal_moves();
            // A random game can be mated within eight plies.
            if legal.is_empty() {
                break;
            }
            let m = *r.pick(&legal);
            moves.push(m.to_string());
            pos.make_move(m);
        }
        let line = match r.below(4) {
            0 => format!("name {i} | {} | {}", pos.fen(), moves.join(" ")),
            1 => pos.fen(),
            2 => moves.join(" "),
            _ => format!("# comment {i}"),
        };
        text.push_str(&if r.chance(40) { mutate(r, &line) } else { line });
        text.push('\n');
    }
    if let Ok(list) = readers::bounded("openings", text.as_bytes(), || openings::parse(&text))? {
        for o in list {
            o.position()
                .map_err(|e| format!("{text:?}: accepted opening fails: {e}"))?;
        }
    }
    Ok(())
}

/// A match config (TOML) and `--engine` and `--tc` values.
pub fn config(r: &mut Rng) -> Result<(), String> {
    const KEYS: &[(&str, &str)] = &[
        ("tc", "\"40/90m,10/15m\""),
        ("tc", "\"1+0.01\""),
        ("tc", "\"depth=3\""),
        ("margin_ms", "100"),
        ("timeout_ms", "5000"),
        ("openings", "\"x.txt\""),
        ("shuffle", "true"),
        ("seed", "7"),
        ("games", "10"),
        ("concurrency", "2"),
        ("gauntlet", "false"),
        ("scale", "\"1,0.5,0\""),
        ("sprt", "\"0,10,0.05,0.05\""),
        ("resign_score", "600"),
        ("max_moves", "300"),
        ("ucci_full_history", "true"),
    ];
    let mut text = String::new();
    for _ in 0..r.below(5) {
        let (k, v) = *r.pick(KEYS);
        let v = if r.chance(30) {
            number(r)
        } else {
            v.to_string()
        };
        text.push_str(&format!("{k} = {v}\n"));
    }
    for i in 0..r.below(3) {
        text.push_str(&format!(
            "[[engine]]\nname = \"e{i}\"\ncmd = \"./e{i}\"\nproto = \"{}\"\ncoords = {}\n[engine.options]\nHash = {}\n",
            r.pick(&["ucci", "uci", "auto", "x"]),
            r.pick(&["0", "1", "\"auto\"", "2", "\"1\"", "true"]),
            number(r)
        ));
    }
    let text = if r.chance(50) { mutate(r, &text) } else { text };
    if let Ok(c) = FileConfig::parse(&text) {
        let _ = c.engines();
        if let Some(tc) = &c.tc {
            let _ = tc.parse::<TimeControl>();
        }
    }
    let arg = format!(
        "cmd=./x {},name={},proto={},coords={},option.Hash={}",
        number(r),
        number(r),
        r.pick(&["ucci", "uci", "auto", ""]),
        r.pick(&["0", "1", "auto", "10"]),
        number(r)
    );
    let _ = parse_engine_arg(&if r.chance(50) { mutate(r, &arg) } else { arg });
    let tc = format!("{}/{}+{}", number(r), number(r), number(r));
    let _ = (if r.chance(50) { mutate(r, &tc) } else { tc }).parse::<TimeControl>();
    Ok(())
}

/// One in-process target: builds an input from the generator and checks it.
pub type Target = fn(&mut Rng) -> Result<(), String>;

/// The in-process targets by name.
pub const TARGETS: &[(&str, Target)] = &[
    ("fen", fen),
    ("moves", moves),
    ("protocol-parse", protocol_parse),
    ("judge", judge),
    ("openings", openings),
    ("config", config),
    ("pgn", readers::pgn),
    ("xqf", readers::xqf),
    ("records", readers::records),
    ("book", readers::book),
    ("network", readers::network),
    ("mate-suite", readers::mate_suite),
    ("chain", readers::chain),
];

/// What a session run saw besides success.
#[derive(Debug, Default)]
pub struct SessionNotes {
    /// Lines after which `readyok` came only once a `stop` was sent: a
    /// search without a limit that the script had not stopped (a bare `go`
    /// and the like, or a `go` queued behind a search that a `stop` then
    /// ended). Not a hang (the engine listened), but reported.
    pub needed_stop: Vec<String>,
}

/// `ping` numbers of the harness: far from the scripts' own.
const SYNC_PING: usize = 1_000_000;

/// Plays `script` to the engine binary at `bin`, one line at a time, each
/// followed by `isready` (CECP scripts, which start with `xboard`: `ping
/// N`): every `readyok` (`pong N`) must come within `patience`, or at the
/// latest within `patience` after a `stop` (`?`) (see `SessionNotes`); an
/// engine that answers neither is hung. After `quit` the process must exit
/// cleanly (a panic fails). Returns the number of lines sent.
pub fn run_session(
    bin: &std::path::Path,
    script: &[String],
    patience: std::time::Duration,
    notes: &mut SessionNotes,
) -> Result<usize, String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    use std::time::Instant;
    let piped::Piped {
        mut child,
        stdin,
        lines: rx,
    } = piped::spawn(
        Command::new(bin)
            .stdin(Stdio::piped())
            .stderr(Stdio::null()),
    )
    .map_err(|e| format!("start {}: {e}", bin.display()))?;
    let mut stdin = stdin.ok_or("no stdin")?;
    let fail = |child: &mut std::process::Child, why: String| {
        let _ = child.kill();
        let _ = child.wait();
        Err(why)
    };
    let context = |i: usize| {
        let from = i.saturating_sub(4);
        format!("lines {from}..: {:?}", &script[from..=i])
    };
    let cecp = script.first().is_some_and(|l| l == "xboard");
    for (i, line) in script.iter().enumerate() {
        let (sync, answer, stop) = if cecp {
            let n = SYNC_PING + i;
            (format!("ping {n}"), format!("pong {n}"), "?")
        } else {
            ("isready".to_string(), "readyok".to_string(), "stop")
        };
        if writeln!(stdin, "{line}\n{sync}")
            .and_then(|_| stdin.flush())
            .is_err()
        {
            return fail(&mut child, format!("line {i} {line:?}: the engine is gone"));
        }
        let mut stopped = false;
        let mut deadline = Instant::now() + patience;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(l) if l == answer => break,
                Ok(_) => {}
                Err(_) if !stopped => {
                    stopped = true;
                    notes.needed_stop.push(context(i));
                    let _ = writeln!(stdin, "{stop}").and_then(|_| stdin.flush());
                    deadline = Instant::now() + patience;
                }
                Err(_) => {
                    let why = format!(
                        "line {i} {line:?}: no {answer} within {patience:?}, nor after {stop} ({})",
                        context(i)
                    );
                    return fail(&mut child, why);
                }
            }
        }
    }
    let _ = writeln!(stdin, "quit");
    drop(stdin);
    let deadline = Instant::now() + patience;
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(script.len()),
            Ok(Some(status)) => return Err(format!("exited with {status}")),
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(5))
            }
            _ => return fail(&mut child, "no exit after quit".into()),
        }
    }
}

/// What a run of one target found.
#[derive(Debug, Default)]
pub struct Stats {
    pub tried: u64,
    /// (input index, what failed): property failures and panics.
    pub failures: Vec<(u64, String)>,
    pub panics: u64,
    pub slowest_ms: u128,
    /// The index of the slowest input, to look at it again.
    pub slowest: u64,
}

/// How long one in-process input may take before the run is declared hung:
/// the process prints where and aborts (a hung thread cannot be unwound).
pub const HANG_LIMIT: std::time::Duration = std::time::Duration::from_secs(20);

/// Runs `count` inputs of `target` from `seed` (input `i` is generated from
/// `input_seed(seed, first + i)`), catching panics; a watchdog aborts the
/// process with the input's index if one runs past `HANG_LIMIT`.
pub fn run_target(name: &str, target: Target, seed: u64, first: u64, count: u64) -> Stats {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::Arc;
    use std::time::Instant;
    // Tells this run's runaway (see `alloc_count`) from another's when
    // tests run side by side.
    static RUNS: AtomicU64 = AtomicU64::new(1);
    let token = RUNS.fetch_add(1, Ordering::Relaxed);
    alloc_count::set_token(token);
    let epoch = Instant::now();
    // Milliseconds since `epoch` when the current input started; u64::MAX: idle.
    let started = Arc::new(AtomicU64::new(u64::MAX));
    let current = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let (started, current, done) = (started.clone(), current.clone(), done.clone());
        let name = name.to_string();
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(200));
                // Written to stderr itself: the test harness captures
                // `eprintln!`, and its capture is lost with the abort.
                if alloc_count::RUNAWAY.load(Ordering::SeqCst) == token {
                    let _ = writeln!(
                        std::io::stderr(),
                        "RUNAWAY: target {name} seed {seed} input {} held more than {} bytes",
                        current.load(Ordering::Relaxed),
                        alloc_count::HARD_CAP
                    );
                    std::process::abort();
                }
                let s = started.load(Ordering::Relaxed);
                let now = epoch.elapsed().as_millis() as u64;
                if s != u64::MAX && now.saturating_sub(s) > HANG_LIMIT.as_millis() as u64 {
                    let _ = writeln!(
                        std::io::stderr(),
                        "HANG: target {name} seed {seed} input {} ran past {HANG_LIMIT:?}",
                        current.load(Ordering::Relaxed)
                    );
                    std::process::abort();
                }
            }
        })
    };
    let mut stats = Stats::default();
    for i in first..first + count {
        current.store(i, Ordering::Relaxed);
        let t0 = Instant::now();
        started.store(epoch.elapsed().as_millis() as u64, Ordering::Relaxed);
        let result = std::panic::catch_unwind(|| {
            let mut r = Rng::new(input_seed(seed, i));
            target(&mut r)
        });
        started.store(u64::MAX, Ordering::Relaxed);
        let ms = t0.elapsed().as_millis();
        if ms > stats.slowest_ms {
            stats.slowest_ms = ms;
            stats.slowest = i;
        }
        stats.tried += 1;
        match result {
            Ok(Ok(())) => {}
            Ok(Err(why)) => stats.failures.push((i, why)),
            Err(p) => {
                stats.panics += 1;
                let why = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                stats.failures.push((i, format!("panic: {why}")));
            }
        }
    }
    done.store(true, Ordering::Relaxed);
    let _ = watchdog.join();
    stats
}
