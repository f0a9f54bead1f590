//! `chuhe datagen`: self-play games at a fixed node budget per move, written
//! as training positions for the network (format: `crate::train::data`).
//!
//! Each game starts from an opening of the suite (or the start position)
//! followed by a few random legal plies, chosen from a seed derived from the
//! run's seed and the game's number, so a run can be repeated. Games are
//! refereed by the rules judge as the match runner applies it (mate,
//! stalemate, perpetual check, natural limit, no winning material; a
//! perpetual chase bans the chaser's next move of it, rule 24.3, and loses
//! only where it cannot vary) and adjudicated by score (a lost
//! position held for several plies, a dead draw late in the game). Positions
//! in check and positions whose best move is a capture are not kept: their
//! static value is not the search's.
//!
//! Games are written in the order of their numbers whatever order the
//! threads finish them in, so the output is a function of the command line
//! (and the search's code) alone: as chain shards (`shard`, the format of
//! `crate::train::chain`) or as 32-byte records (`crate::train::data`).

mod shard;

pub use shard::{ShardConfig, ShardSet};

use crate::matches::openings::{random_line, Opening};
use crate::train::chain::{result_for, ChainGame, ChainPly};
use crate::train::data::{DataWriter, Record, Wdl};
use chuhe_core::board::Color;
use chuhe_core::engine::Engine;
use chuhe_core::nnue::net::Network;
use chuhe_core::rng::SplitMix64;
use chuhe_core::rules::{self, Outcome, Ruling};
use chuhe_core::search::{Limits, Score, StopHandle};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct DatagenConfig {
    pub games: u64,
    /// The number of the first game: a stopped run goes on with the same
    /// seed from the games it had played, without repeating them.
    pub first_game: u64,
    /// The hard node limit of each move's search.
    pub nodes: u64,
    /// No new iteration past this many nodes (None: only the hard limit).
    pub soft_nodes: Option<u64>,
    pub threads: usize,
    pub out: Output,
    pub openings: Vec<Opening>,
    pub random_plies: u32,
    pub seed: u64,
    pub hash_mb: usize,
    /// The evaluation the games are played with (None: hand-crafted).
    pub net: Option<Arc<Network>>,
}

/// Why a datagen run could not go on. What it had written stays written.
#[derive(Debug)]
pub enum DatagenError {
    /// A file or directory could not be made, read or written; `what` says
    /// which of those it was when the error itself does not.
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    /// A chain shard could not be written, or read back when closing it.
    Chain {
        path: PathBuf,
        source: crate::train::chain::ChainError,
    },
    /// The 32-byte records file.
    Records {
        path: PathBuf,
        source: crate::train::data::DataError,
    },
    /// A closed shard of the seed already holds this game.
    Taken {
        game: u64,
        seed: u64,
        shard: String,
    },
    /// The name a closing shard should get is taken.
    Exists(PathBuf),
    ZeroShardGames,
}

impl DatagenError {
    fn io(what: &'static str, path: &std::path::Path, source: std::io::Error) -> Self {
        DatagenError::Io {
            what,
            path: path.to_path_buf(),
            source,
        }
    }

    fn chain(path: &std::path::Path, source: crate::train::chain::ChainError) -> Self {
        DatagenError::Chain {
            path: path.to_path_buf(),
            source,
        }
    }
}

impl std::fmt::Display for DatagenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DatagenError::Io {
                what: "",
                path,
                source,
            } => {
                write!(f, "{}: {source}", path.display())
            }
            DatagenError::Io { what, path, source } => {
                write!(f, "{what} {}: {source}", path.display())
            }
            DatagenError::Chain { path, source } => write!(f, "{}: {source}", path.display()),
            DatagenError::Records { path, source } => {
                write!(f, "cannot write {}: {source}", path.display())
            }
            DatagenError::Taken { game, seed, shard } => write!(
                f,
                "game {game} of seed {seed} is already in {shard}: a closed shard is never \
                 written again; start after its last game (--first-game)"
            ),
            DatagenError::Exists(path) => write!(f, "{} exists already", path.display()),
            DatagenError::ZeroShardGames => f.write_str("--shard-games must be positive"),
        }
    }
}

impl std::error::Error for DatagenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DatagenError::Io { source, .. } => Some(source),
            DatagenError::Chain { source, .. } => Some(source),
            DatagenError::Records { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Where the games go.
#[derive(Clone, Debug)]
pub enum Output {
    /// Chain shards in a directory (`shard`).
    Chain(ShardConfig),
    /// 32-byte records appended to one file.
    Records(PathBuf),
}

/// Scores past this are not stored (mates and near-mates teach nothing
/// about a static evaluation), and a side this far behind for
/// `RESIGN_PLIES` plies in a row has lost.
const RESIGN_CP: i32 = 1500;
const RESIGN_PLIES: usize = 4;
/// A game this long with the score within `DRAW_CP` of zero for
/// `DRAW_PLIES` plies in a row is a draw.
const DRAW_FROM_PLY: usize = 120;
const DRAW_CP: i32 = 10;
const DRAW_PLIES: usize = 16;
/// A mate's score as stored (either side's view).
const MATE_CP: i32 = 30_000;
/// Backstop: the natural limit ends any real game long before this.
const MAX_PLIES: usize = 800;

/// One played game, as both outputs want it.
struct GameRecords {
    /// The kept positions' records, made from the board as it was played
    /// (not by replaying the chain: the two outputs are built apart, so a
    /// test can hold one against the other).
    records: Vec<Record>,
    chain: ChainGame,
    tally: Tally,
}

/// Where a run's searches went: what was kept, why the rest was not, and
/// how games ended (the progress line reports it, to tune the filters and
/// the adjudication by).
#[derive(Clone, Copy, Debug, Default)]
pub struct Tally {
    pub games: u64,
    /// Positions searched (one search each), the nodes they took and the
    /// depths of their last finished iterations, summed: the cost of a kept
    /// position in nodes, which unlike positions a second does not depend
    /// on what else the machine runs.
    pub searched: u64,
    pub nodes: u64,
    pub depth: u64,
    pub kept: u64,
    pub in_check: u64,
    pub capture_best: u64,
    /// Past ±RESIGN_CP: decided, nothing to learn about the evaluation.
    pub decided: u64,
    /// Games ended by the rules judge, by score adjudication (a win or a
    /// draw), or by the ply cap.
    pub by_rules: u64,
    pub adjudicated_win: u64,
    pub adjudicated_draw: u64,
    pub capped: u64,
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.games += o.games;
        self.searched += o.searched;
        self.nodes += o.nodes;
        self.depth += o.depth;
        self.kept += o.kept;
        self.in_check += o.in_check;
        self.capture_best += o.capture_best;
        self.decided += o.decided;
        self.by_rules += o.by_rules;
        self.adjudicated_win += o.adjudicated_win;
        self.adjudicated_draw += o.adjudicated_draw;
        self.capped += o.capped;
    }

    fn summary(&self) -> String {
        let pct = |n: u64, of: u64| 100.0 * n as f64 / of.max(1) as f64;
        let s = self.searched;
        let g = self.games;
        format!(
            "plies/game {:.0} kept {:.0}% (skipped: check {:.0}%, capture {:.0}%, decided {:.0}%) \
             ends: rules {:.0}% won {:.0}% drawn {:.0}% cap {:.0}%; \
             depth {:.1} nodes/move {:.0} nodes/kept {:.0}",
            s as f64 / g.max(1) as f64,
            pct(self.kept, s),
            pct(self.in_check, s),
            pct(self.capture_best, s),
            pct(self.decided, s),
            pct(self.by_rules, g),
            pct(self.adjudicated_win, g),
            pct(self.adjudicated_draw, g),
            pct(self.capped, g),
            self.depth as f64 / s.max(1) as f64,
            self.nodes as f64 / s.max(1) as f64,
            self.nodes as f64 / self.kept.max(1) as f64,
        )
    }
}

/// Plays one game; `None` when the run was stopped in the middle of it.
fn play_game(
    cfg: &DatagenConfig,
    engine: &mut Engine,
    game_no: u64,
    stop: &AtomicBool,
) -> Option<GameRecords> {
    let mut rng = SplitMix64::new(cfg.seed ^ game_no.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let start = Opening::startpos();
    let (mut pos, opening, line) = loop {
        let o = if cfg.openings.is_empty() {
            &start
        } else {
            &cfg.openings[(rng.next_u64() % cfg.openings.len() as u64) as usize]
        };
        let mut pos = o.position().ok()?;
        if let Some(line) = random_line(&mut pos, cfg.random_plies, &mut rng) {
            break (pos, o, line);
        }
    };
    let mut chain = ChainGame {
        number: game_no,
        root_fen: opening.fen.clone(),
        prefix: opening.moves.iter().chain(&line).copied().collect(),
        plies: Vec::new(),
        outcome: Outcome::Draw,
    };
    engine.new_game();
    let limits = Limits {
        nodes: Some(cfg.nodes),
        soft_nodes: cfg.soft_nodes,
        ..Default::default()
    };
    // (position record without result, side to move) in game order.
    let mut kept: Vec<(Record, Color)> = Vec::new();
    let mut scores: Vec<i32> = Vec::new(); // from Red's view, per ply
    let mut tally = Tally {
        games: 1,
        ..Tally::default()
    };
    let start_ply = pos.ply();
    let outcome = loop {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        // As the match runner referees: a chase come round a third time
        // bans the chaser's next move of it rather than ending the game.
        let ruled = rules::ruling(&pos);
        if let Ruling::Over(v) = ruled {
            tally.by_rules += 1;
            break v.outcome;
        }
        let plies = pos.ply() - start_ply;
        if plies >= MAX_PLIES {
            tally.capped += 1;
            break Outcome::Draw;
        }
        let limits = Limits {
            banmoves: ruled.banmoves(pos.side_to_move()),
            ..limits.clone()
        };
        let res = engine.go(&pos, &limits, &StopHandle::new(), &mut |_| {});
        let best = res.best?;
        let us = pos.side_to_move();
        let cp = match res.score {
            Score::Cp(c) => c,
            Score::Mate(n) if n > 0 => MATE_CP,
            Score::Mate(_) => -MATE_CP,
        };
        let red_cp = if us == Color::Red { cp } else { -cp };
        scores.push(red_cp);
        tally.searched += 1;
        tally.nodes += res.nodes;
        tally.depth += res.depth as u64;
        let mut keep = false;
        if cp.abs() >= RESIGN_CP {
            tally.decided += 1;
        } else if pos.in_check() {
            tally.in_check += 1;
        } else if pos.is_capture(best) {
            tally.capture_best += 1;
        } else {
            tally.kept += 1;
            keep = true;
            kept.push((Record::from_position(&pos, cp as i16, Wdl::Draw), us));
        }
        chain.plies.push(ChainPly {
            mv: best,
            score: cp.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            keep,
        });
        if let Some(o) = adjudicate(&scores, plies) {
            match o {
                Outcome::Draw => tally.adjudicated_draw += 1,
                _ => tally.adjudicated_win += 1,
            }
            break o;
        }
        pos.make_move(best);
    };
    let records = kept
        .into_iter()
        .map(|(mut r, side)| {
            r.result = result_for(outcome, side);
            r
        })
        .collect();
    chain.outcome = outcome;
    Some(GameRecords {
        records,
        chain,
        tally,
    })
}

/// Score adjudication over the scores so far (Red's view, one per ply).
fn adjudicate(scores: &[i32], plies: usize) -> Option<Outcome> {
    // A mate proved by both sides' searches, one after the other: the
    // game's result is known, and the plies to the mate would be searched
    // only to be thrown away (decided positions are never kept).
    if let [.., a, b] = scores {
        if a.abs() == MATE_CP && a == b {
            return Some(if *a > 0 {
                Outcome::RedWins
            } else {
                Outcome::BlackWins
            });
        }
    }
    if scores.len() >= RESIGN_PLIES {
        let tail = &scores[scores.len() - RESIGN_PLIES..];
        if tail.iter().all(|&s| s >= RESIGN_CP) {
            return Some(Outcome::RedWins);
        }
        if tail.iter().all(|&s| s <= -RESIGN_CP) {
            return Some(Outcome::BlackWins);
        }
    }
    if plies >= DRAW_FROM_PLY && scores.len() >= DRAW_PLIES {
        let tail = &scores[scores.len() - DRAW_PLIES..];
        if tail.iter().all(|&s| s.abs() <= DRAW_CP) {
            return Some(Outcome::Draw);
        }
    }
    None
}

/// Where finished games are written, in the order of their numbers.
enum Sink {
    Records(DataWriter, Vec<Record>, PathBuf),
    Chain(ShardSet),
}

impl Sink {
    fn write(&mut self, g: GameRecords) -> Result<(), DatagenError> {
        match self {
            Sink::Records(_, buffer, _) => buffer.extend(g.records),
            Sink::Chain(set) => set.push(&g.chain)?,
        }
        Ok(())
    }

    /// Puts what is buffered on disk (for chain shards: closes the frame
    /// in progress, which costs a little packing, so only now and then).
    fn flush(&mut self) -> Result<(), DatagenError> {
        match self {
            Sink::Records(w, buffer, path) => {
                w.write(buffer).map_err(|source| DatagenError::Records {
                    path: path.clone(),
                    source,
                })?;
                buffer.clear();
            }
            Sink::Chain(set) => set.flush()?,
        }
        Ok(())
    }

    fn positions(&self) -> u64 {
        match self {
            Sink::Records(w, buffer, _) => w.written() + buffer.len() as u64,
            Sink::Chain(set) => set.positions(),
        }
    }

    fn close(mut self) -> Result<(), DatagenError> {
        self.flush()?;
        match self {
            Sink::Records(..) => Ok(()),
            Sink::Chain(mut set) => set.close(),
        }
    }
}

/// Runs the generation, printing progress lines through `progress`; returns
/// the number of positions written. Stops early (keeping every game
/// finished before the first one still in play) when `stop` is set.
pub fn run(
    cfg: &DatagenConfig,
    stop: Arc<AtomicBool>,
    progress: &mut dyn FnMut(&str),
) -> Result<u64, DatagenError> {
    let mut sink = match &cfg.out {
        Output::Records(path) => Sink::Records(
            DataWriter::append(path).map_err(|source| DatagenError::Records {
                path: path.clone(),
                source,
            })?,
            Vec::new(),
            path.clone(),
        ),
        Output::Chain(shards) => Sink::Chain(ShardSet::open(shards.clone(), progress)?),
    };
    let next_game = Arc::new(AtomicU64::new(cfg.first_game));
    let last_game = cfg.first_game.saturating_add(cfg.games);
    let (tx, rx) = mpsc::channel::<GameRecords>();
    let threads = cfg.threads.max(1);
    let mut handles = Vec::new();
    for _ in 0..threads {
        let (cfg, stop, next_game, tx) = (cfg.clone(), stop.clone(), next_game.clone(), tx.clone());
        handles.push(std::thread::spawn(move || {
            let mut engine = Engine::new();
            engine.set_network(cfg.net.clone());
            engine.set_hash_mb(cfg.hash_mb);
            loop {
                let g = next_game.fetch_add(1, Ordering::Relaxed);
                if g >= last_game || stop.load(Ordering::Relaxed) {
                    break;
                }
                match play_game(&cfg, &mut engine, g, &stop) {
                    Some(r) => {
                        if tx.send(r).is_err() {
                            break;
                        }
                    }
                    None => break,
                }
            }
        }));
    }
    drop(tx);
    let start = Instant::now();
    let mut last_report = Instant::now();
    let mut last_flush = Instant::now();
    let mut games = 0u64;
    let mut tally = Tally::default();
    // Games finished ahead of one still in play wait here for it.
    let mut waiting: BTreeMap<u64, GameRecords> = BTreeMap::new();
    let mut next_out = cfg.first_game;
    let report = |games: u64, positions: u64, tally: &Tally, progress: &mut dyn FnMut(&str)| {
        let secs = start.elapsed().as_secs_f64().max(1e-3);
        let eta = if games > 0 {
            (secs / games as f64 * (cfg.games - games) as f64) as u64
        } else {
            0
        };
        progress(&format!(
            "games {games}/{} positions {positions} pos/s {:.0} eta {}h{:02}m; {}",
            cfg.games,
            positions as f64 / secs,
            eta / 3600,
            eta / 60 % 60,
            tally.summary()
        ));
    };
    // Written in a closure so that an error still joins the threads below.
    let mut pump = || -> Result<(), DatagenError> {
        loop {
            match rx.recv_timeout(Duration::from_millis(500)) {
                Ok(g) => {
                    waiting.insert(g.chain.number, g);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(()),
            }
            while let Some(g) = waiting.remove(&next_out) {
                games += 1;
                tally.add(&g.tally);
                sink.write(g)?;
                next_out += 1;
            }
            if last_flush.elapsed() >= FLUSH_EVERY || stop.load(Ordering::Relaxed) {
                sink.flush()?;
                last_flush = Instant::now();
            }
            if last_report.elapsed() >= Duration::from_secs(10) {
                report(games, sink.positions(), &tally, progress);
                last_report = Instant::now();
            }
        }
    };
    let pumped = pump();
    if pumped.is_err() {
        stop.store(true, Ordering::Relaxed);
    }
    for h in handles {
        let _ = h.join();
    }
    pumped?;
    if !waiting.is_empty() {
        progress(&format!(
            "stopped: game {next_out} was in play, so the {} finished after it are not written; \
             go on with --first-game {next_out}",
            waiting.len()
        ));
    }
    let positions = sink.positions();
    sink.close()?;
    report(games, positions, &tally, progress);
    Ok(positions)
}

/// How often finished games are put on disk: what a hard kill can lose.
/// For chain shards this closes a frame, and frames much smaller than a few
/// hundred games pack worse.
const FLUSH_EVERY: Duration = Duration::from_secs(120);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjudication_by_mate_resignation_and_dead_draw() {
        // A mate seen by one side's search alone is not enough.
        assert_eq!(adjudicate(&[10, MATE_CP], 40), None);
        assert_eq!(adjudicate(&[MATE_CP, MATE_CP], 40), Some(Outcome::RedWins));
        assert_eq!(
            adjudicate(&[0, -MATE_CP, -MATE_CP], 40),
            Some(Outcome::BlackWins)
        );
        let lost = [-RESIGN_CP; RESIGN_PLIES];
        assert_eq!(adjudicate(&lost, 40), Some(Outcome::BlackWins));
        assert_eq!(adjudicate(&lost[1..], 40), None);
        let quiet = [3; DRAW_PLIES];
        assert_eq!(adjudicate(&quiet, DRAW_FROM_PLY), Some(Outcome::Draw));
        assert_eq!(adjudicate(&quiet, DRAW_FROM_PLY - 1), None);
    }
}
