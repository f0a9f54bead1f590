//! `chuhe bench`: a fixed-depth search over a fixed list of positions. Its
//! single-threaded node count is a signature of the search (any change to
//! search or evaluation changes it); its speed is the engine's nps figure.
//! With `--suite` it measures instead: a mate suite searched for a fixed
//! time per position, counting the mates proved and the time to each proof.

use chuhe_core::board::{Move, Position};
use chuhe_core::engine::Engine;
use chuhe_core::nnue::net::Network;
use chuhe_core::search::{Limits, Score, StopHandle};
use std::sync::Arc;
use std::time::Instant;

/// Openings, middle games and endgames, taken from the shared perft and
/// opening suites and embedded so that bench runs from any directory.
pub const POSITIONS: &[&str] = &[
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "r1bakabr1/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKABR1 w - - 6 4",
    "r1bakabr1/9/1cn3nc1/p3p1pRp/2p6/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB2 w - - 8 5",
    "r1bakabr1/9/1cn3nc1/p1p1p3p/6p2/2P6/P3P1P1P/1C2C1N2/9/RNBAKABR1 w - - 8 5",
    "rnbakabr1/9/1c2c1n2/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKABR1 w - - 6 4",
    "rnbakabr1/9/1c4n2/p1p1p1p1p/9/9/P1P1P1PcP/1C2C1N2/9/RNBAKABR1 w - - 6 4",
    "rnbakab1r/9/2c3nc1/p1p1p1p1p/9/2P6/P3P1P1P/1CN4C1/9/R1BAKABNR w - - 4 3",
    "r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/6P2/P1P1P3P/1C4NC1/9/RNBAKAB1R w - - 4 3",
    "rnbaka2r/9/1c2b1nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2B1NC1/9/RN1AKAB1R w - - 4 3",
    "r1bakabr1/9/1cn3nc1/p1p1p3p/6p2/2P3P2/P3P3P/1C2C1N2/9/RNBAKABR1 b - - 9 5",
    "r1bakabr1/9/1cn1c1n2/p1p1p1p1p/9/9/P1P1P1P1P/1CN1C1N2/9/R1BAKABR1 w - - 8 5",
    "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1",
    "4kcP1N/8n/3rb4/9/9/9/9/3p1A3/4K4/5CB2 w - - 0 1",
    "3k5/9/5R3/7P1/P3P4/9/8P/3A4B/5NR2/4K4 w - - 39 48",
    "8R/1C1k5/b8/2p6/3P5/9/P1P5P/B7B/5K3/RN1A5 b - - 2 29",
    "1nbakabCr/r8/7c1/p1p1p1p1p/9/9/P1P1P1P1P/C8/9/RcBAKABNR w - - 2 3",
    "2b3CR1/r8/4k3b/p1C5p/4p1p2/9/P1P3P1P/9/1R2K4/1NB2cB2 b - - 0 24",
    "3k2b2/1C7/1c7/p3p4/2p6/6P2/P2N5/9/9/4K2c1 w - - 1 35",
    "rnbakab1r/9/8n/p3pCp1p/2p6/6cC1/P1P3P1P/7RB/9/RNBAKA3 w - - 8 9",
    "5a3/5k3/9/1PP6/6b1p/p1B6/5p3/5N2r/9/4K4 w - - 24 61",
    "4r4/3ka4/b7b/9/9/9/9/5K2p/9/9 b - - 49 70",
    "r1ba1a1nr/4k4/2nc5/p1p5p/6p2/6P2/P1P1P3P/B5N2/4A4/RN2KAR2 w - - 0 15",
    "9/3k5/5a3/4P4/9/N8/9/8B/4K4/9 w - - 10 94",
    "rnbk2bn1/7c1/9/p1p6/6p2/2P6/P5P2/N6c1/1R6r/4K4 b - - 9 24",
    "5k3/4a4/n8/2p6/6b2/3R5/4N4/4K4/7r1/2BA1AB1c b - - 14 38",
    "2bk1abn1/8R/9/2p3P2/r3p4/9/p1P6/2N2A3/9/R1B1K1B2 w - - 3 20",
    "4k1bP1/4a4/4b4/4p4/6p2/pc2r4/2P6/3K5/9/9 w - - 6 48",
    "1cb3b2/3k5/6n2/p1p3p2/9/9/P3P4/B7N/4K4/R2A2B2 w - - 1 29",
    "9/4k4/3cb4/4p3r/1P4p1p/p8/4P1P1P/1R7/4K4/7R1 b - - 2 27",
    "1n1k1a1c1/9/b2rb4/6C2/2p1p4/8P/P1N1P1P2/9/R8/2BAKABNR w - - 0 13",
    "2b3b2/4a1n2/R2ck4/3C2p2/9/9/P1P1P1P1r/B3B1N2/4A4/1N2K4 b - - 0 23",
    "rn1akabnr/9/b1c6/p1p1p1p1p/9/9/P1P1P1P1P/1C2B4/4A4/R1C1KcBNR w - - 2 5",
    "3a1kb2/3r5/1R7/6p2/9/C5P2/2P6/2NR5/4K4/2B2AB2 b - - 3 29",
    "r1bk1abn1/1c6C/9/p3p1p2/2P3P2/9/P8/B8/4K1c2/Rr1A1A3 b - - 1 19",
    "1Rbk5/9/8b/5P3/8p/2N6/4C3P/B3BK3/9/9 w - - 1 54",
    "3k1a1n1/8c/3a5/1np6/2b4P1/9/9/9/9/5K3 b - - 27 49",
    "rnbaka1n1/9/8r/p1p1p1p1C/6b2/2P1P4/c5P1P/3C5/7c1/RNBAKAB1R w - - 0 8",
];

pub const DEFAULT_DEPTH: u32 = 14;

/// What one bench run measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchResult {
    pub nodes: u64,
    pub time_ms: u64,
}

impl BenchResult {
    pub fn nps(&self) -> u64 {
        self.nodes * 1000 / self.time_ms.max(1)
    }

    /// The closing line of a bench run, in the same form as perft's.
    pub fn summary(&self) -> String {
        format!(
            "nodes {} time {} nps {}",
            self.nodes,
            self.time_ms,
            self.nps()
        )
    }
}

/// A fresh engine with the bench's settings.
fn new_engine(net: Option<Arc<Network>>, threads: usize, hash_mb: usize) -> Engine {
    let mut engine = Engine::new();
    engine.set_network(net);
    engine.set_hash_mb(hash_mb);
    engine.set_threads(threads);
    engine
}

/// Searches one position with the given limits, printing every info line
/// (for measuring time to depth or depth in a given time).
pub fn analyse(
    net: Option<Arc<Network>>,
    pos: &Position,
    limits: &Limits,
    threads: usize,
    hash_mb: usize,
    out: &mut dyn FnMut(&str),
) -> BenchResult {
    let mut engine = new_engine(net, threads, hash_mb);
    let start = Instant::now();
    let r = engine.go(pos, limits, &StopHandle::new(), &mut |i| {
        let pv: Vec<String> = i.pv.iter().map(|m| m.to_string()).collect();
        out(&format!(
            "depth {} seldepth {} score {} nodes {} time {} nps {} hashfull {} pv {}",
            i.depth,
            i.seldepth,
            score_text(i.score.unwrap_or_default()),
            i.nodes,
            i.time_ms,
            i.nps,
            i.hashfull,
            pv.join(" ")
        ))
    });
    let result = BenchResult {
        nodes: r.nodes,
        time_ms: start.elapsed().as_millis() as u64,
    };
    let best = r.best.map_or("(none)".to_string(), |m| m.to_string());
    out(&format!(
        "bestmove {best} depth {} score {}",
        r.depth,
        score_text(r.score)
    ));
    out(&result.summary());
    result
}

/// Searches every bench position to `depth`, from a fresh engine state each
/// time (so each count does not depend on the ones before), writing one line
/// per position and a summary line through `out`.
pub fn run(
    net: Option<Arc<Network>>,
    depth: u32,
    threads: usize,
    hash_mb: usize,
    out: &mut dyn FnMut(&str),
) -> BenchResult {
    let mut engine = new_engine(net, threads, hash_mb);
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let mut total = 0u64;
    let start = Instant::now();
    chuhe_core::search::stats::reset();
    for (i, fen) in POSITIONS.iter().enumerate() {
        let pos = match Position::from_fen(fen) {
            Ok(p) => p,
            Err(e) => {
                out(&format!("position {}: bad FEN ({e}), skipped", i + 1));
                continue;
            }
        };
        engine.new_game();
        let t = Instant::now();
        let r = engine.go(&pos, &limits, &StopHandle::new(), &mut |_| {});
        total += r.nodes;
        let best = r.best.map_or("(none)".to_string(), |m| m.to_string());
        out(&format!(
            "position {:2} nodes {:10} time {:6} best {} score {}",
            i + 1,
            r.nodes,
            t.elapsed().as_millis(),
            best,
            score_text(r.score)
        ));
    }
    let result = BenchResult {
        nodes: total,
        time_ms: start.elapsed().as_millis() as u64,
    };
    if chuhe_core::search::stats::ENABLED {
        // Before the summary, which stays the last line (CI reads it).
        for line in chuhe_core::search::stats::report().lines() {
            out(line);
        }
    }
    out(&result.summary());
    result
}

/// One position of a mate suite (`tests/data/mates.txt`): the side to move
/// mates in `mate` moves (its own moves, the mating one included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MateCase {
    pub fen: String,
    pub mate: u32,
    /// Where the position was taken from (free text).
    pub source: String,
    /// Line number in the suite file, from 1.
    pub line: usize,
}

/// Why a mate suite could not be read.
#[derive(Debug)]
pub enum SuiteError {
    /// Line `line` (from 1) is not a legal `FEN ; mate N ; source`.
    Line { line: usize, why: String },
    Read {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    /// A line of the file `path`.
    InFile {
        path: std::path::PathBuf,
        source: Box<SuiteError>,
    },
    /// The file has no position.
    Empty(std::path::PathBuf),
}

impl std::fmt::Display for SuiteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SuiteError::Line { line, why } => write!(f, "line {line}: {why}"),
            SuiteError::Read { path, source } => {
                write!(f, "{}: cannot read: {source}", path.display())
            }
            SuiteError::InFile { path, source } => write!(f, "{}: {source}", path.display()),
            SuiteError::Empty(path) => write!(f, "{}: no positions", path.display()),
        }
    }
}

impl std::error::Error for SuiteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SuiteError::Read { source, .. } => Some(source),
            SuiteError::InFile { source, .. } => Some(source.as_ref()),
            _ => None,
        }
    }
}

/// Reads a mate suite: one position a line, `FEN ; mate N ; source`; blank
/// lines and lines starting with `#` are skipped. Every FEN must be legal
/// with a legal move for the side to move, and N at least 1: anything else
/// is an error naming the line.
pub fn read_suite(text: &str) -> Result<Vec<MateCase>, SuiteError> {
    let mut cases = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let bad = |why: String| SuiteError::Line { line, why };
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = l.splitn(3, ';').map(str::trim).collect();
        if fields.len() < 2 {
            return Err(bad(format!(
                "expected `FEN ; mate N ; source`, found `{l}`"
            )));
        }
        let fen = fields[0];
        let pos = Position::from_fen(fen).map_err(|e| bad(format!("bad FEN ({e})")))?;
        if pos.legal_moves().is_empty() {
            return Err(bad("the side to move has no legal move".into()));
        }
        let mate = match fields[1].split_whitespace().collect::<Vec<_>>()[..] {
            ["mate", n] => n.parse::<u32>().ok().filter(|&n| n >= 1),
            _ => None,
        }
        .ok_or_else(|| bad(format!("expected `mate N` (N >= 1), found `{}`", fields[1])))?;
        cases.push(MateCase {
            fen: fen.to_string(),
            mate,
            source: fields.get(2).unwrap_or(&"").to_string(),
            line,
        });
    }
    Ok(cases)
}

/// Reads a mate suite file (see `read_suite`); errors name the file.
pub fn read_suite_file(path: &std::path::Path) -> Result<Vec<MateCase>, SuiteError> {
    let text =
        chuhe_core::files::read_text_capped(path, 64 << 20).map_err(|source| SuiteError::Read {
            path: path.to_path_buf(),
            source,
        })?;
    let cases = read_suite(&text).map_err(|e| SuiteError::InFile {
        path: path.to_path_buf(),
        source: Box::new(e),
    })?;
    if cases.is_empty() {
        return Err(SuiteError::Empty(path.to_path_buf()));
    }
    Ok(cases)
}

/// The groups a suite's summary counts by mate length, in moves.
pub const MATE_GROUPS: &[(u32, u32)] = &[(1, 2), (3, 4), (5, 6), (7, 8), (9, u32::MAX)];

fn group_name((lo, hi): (u32, u32)) -> String {
    if hi == u32::MAX {
        format!("{lo}+")
    } else {
        format!("{lo}-{hi}")
    }
}

/// What the search made of one suite position.
#[derive(Clone, Debug)]
pub struct MateOutcome {
    /// The final score is a mate in at most the suite's N moves and the
    /// move played is legal.
    pub solved: bool,
    /// Milliseconds (the search's own clock) of the first report of a mate
    /// for the side to move, of any length.
    pub first_mate_ms: Option<u64>,
    /// Milliseconds the whole search took.
    pub elapsed_ms: u64,
    pub score: Score,
    pub best: Option<Move>,
    pub depth: u32,
    pub nodes: u64,
}

impl MateOutcome {
    /// Time to the proof of a solved position: its first mate report, or
    /// the whole search where the mate came only with the final answer (a
    /// move that proved it in an iteration the clock cut short, never
    /// reported by an info line).
    pub fn proof_ms(&self) -> Option<u64> {
        self.solved
            .then_some(self.first_mate_ms.unwrap_or(self.elapsed_ms))
    }
}

/// A score as the UCI protocol writes it after `score` (`cp 99`,
/// `mate 3`, `mate -2`): what engine users read, rather than Rust's names.
pub fn score_text(s: Score) -> String {
    match s {
        Score::Mate(n) => format!("mate {n}"),
        Score::Cp(c) => format!("cp {c}"),
    }
}

/// How long a suite run searches each position.
#[derive(Clone, Copy, Debug)]
pub enum SuiteBudget {
    /// Milliseconds: what a player waits, but what fits in them depends
    /// on the machine and on what else runs there.
    Movetime(u64),
    /// Nodes: the same tree on any machine, however loaded, so two builds
    /// compare exactly on a shared machine.
    Nodes(u64),
}

/// Searches every suite position within `budget` from a fresh table,
/// writing one line per position and the summary (`suite_summary`).
pub fn run_suite(
    net: Option<Arc<Network>>,
    cases: &[MateCase],
    budget: SuiteBudget,
    threads: usize,
    hash_mb: usize,
    out: &mut dyn FnMut(&str),
) -> Vec<MateOutcome> {
    let mut engine = new_engine(net, threads, hash_mb);
    let limits = match budget {
        SuiteBudget::Movetime(ms) => Limits {
            movetime: Some(std::time::Duration::from_millis(ms)),
            ..Limits::default()
        },
        SuiteBudget::Nodes(n) => Limits {
            nodes: Some(n),
            ..Limits::default()
        },
    };
    let mut outcomes = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        // read_suite checked the FEN.
        let pos = Position::from_fen(&case.fen).expect("suite FEN");
        engine.new_game();
        let mut first_mate_ms = None;
        let t = Instant::now();
        let r = engine.go(&pos, &limits, &StopHandle::new(), &mut |info| {
            if first_mate_ms.is_none() && matches!(info.score, Some(Score::Mate(n)) if n > 0) {
                first_mate_ms = Some(info.time_ms);
            }
        });
        let solved = matches!(r.score, Score::Mate(n) if n >= 1 && n as u32 <= case.mate)
            && r.best.is_some_and(|m| pos.is_legal(m));
        let o = MateOutcome {
            solved,
            first_mate_ms,
            elapsed_ms: t.elapsed().as_millis() as u64,
            score: r.score,
            best: r.best,
            depth: r.depth,
            nodes: r.nodes,
        };
        out(&outcome_line(i + 1, case, &o));
        outcomes.push(o);
    }
    for l in suite_summary(cases, &outcomes) {
        out(&l);
    }
    outcomes
}

/// One position's line of a suite run.
pub fn outcome_line(index: usize, case: &MateCase, o: &MateOutcome) -> String {
    format!(
        "position {index:3} mate {} {} score {} proof {} best {} depth {} nodes {} ; {}",
        case.mate,
        if o.solved { "solved" } else { "MISSED" },
        score_text(o.score),
        match (o.proof_ms(), o.first_mate_ms) {
            (None, _) => "-".to_string(),
            (Some(t), Some(_)) => format!("{t}ms"),
            (Some(t), None) => format!("{t}ms(final)"),
        },
        o.best.map_or("(none)".to_string(), |m| m.to_string()),
        o.depth,
        o.nodes,
        case.source
    )
}

/// The summary of a suite run: per mate-length group present (and for the
/// whole suite) the positions solved and the median (the lower of the two
/// middle values for an even count) and longest time to the proof over
/// the solved ones, `-` when none was solved:
/// `mates 5-6 solved 20/22 median 17ms max 640ms`.
pub fn suite_summary(cases: &[MateCase], outcomes: &[MateOutcome]) -> Vec<String> {
    let line = |name: &str, picked: &[(&MateCase, &MateOutcome)]| {
        let mut times: Vec<u64> = picked.iter().filter_map(|(_, o)| o.proof_ms()).collect();
        times.sort_unstable();
        let solved = picked.iter().filter(|(_, o)| o.solved).count();
        let (median, max) = match times.last() {
            Some(&max) => (
                format!("{}ms", times[(times.len() - 1) / 2]),
                format!("{max}ms"),
            ),
            None => ("-".to_string(), "-".to_string()),
        };
        format!(
            "mates {name} solved {solved}/{} median {median} max {max}",
            picked.len()
        )
    };
    let all: Vec<(&MateCase, &MateOutcome)> = cases.iter().zip(outcomes).collect();
    let mut lines = Vec::new();
    for &(lo, hi) in MATE_GROUPS {
        let picked: Vec<_> = all
            .iter()
            .copied()
            .filter(|(c, _)| (lo..=hi).contains(&c.mate))
            .collect();
        if !picked.is_empty() {
            lines.push(line(&group_name((lo, hi)), &picked));
        }
    }
    lines.push(line("all", &all));
    lines
}
