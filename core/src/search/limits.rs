//! What a search is asked to do and what it reports.

use crate::board::{Move, Position};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The limits of one search, already turned into one clock form by the
/// protocol (UCCI seconds or milliseconds, UCI wtime/btime: all become
/// `Duration`s for the side to move and its opponent).
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Stop after this many plies of iterative deepening.
    pub depth: Option<u32>,
    /// Stop after about this many nodes.
    pub nodes: Option<u64>,
    /// Start no new iteration once this many nodes are searched, so each
    /// search ends on a finished iteration (`chuhe datagen --soft-nodes`;
    /// measured in nnue/README.md, "gen3 data": in self-play with a table
    /// kept for the game, the hard limit alone did better).
    pub soft_nodes: Option<u64>,
    /// Think exactly this long.
    pub movetime: Option<Duration>,
    /// Time left on our clock.
    pub time: Option<Duration>,
    /// Our increment per move.
    pub increment: Option<Duration>,
    /// Moves until the next time control (None: sudden death).
    pub movestogo: Option<u32>,
    /// The opponent's clock, for information.
    pub opptime: Option<Duration>,
    pub oppincrement: Option<Duration>,
    /// UCI `go mate n`: look for a mate in n moves.
    pub mate: Option<u32>,
    /// Search until stopped.
    pub infinite: bool,
    /// Pondering: search until `ponderhit` (then timed) or `stop`.
    pub ponder: bool,
    /// Only these root moves (UCI searchmoves); empty means all.
    pub searchmoves: Vec<Move>,
    /// Never these root moves (UCCI banmoves).
    pub banmoves: Vec<Move>,
    /// Time kept back for process and GUI overhead.
    pub move_overhead: Duration,
    /// Principal variations to find: the best `multipv` root moves, each
    /// with its own score and line (0 and 1 both mean one).
    pub multipv: usize,
}

impl Limits {
    /// The legal moves of `pos` these limits let the search play: none
    /// banned, and only the `searchmoves` if there are any. Empty when every
    /// legal move is excluded.
    pub fn root_moves(&self, pos: &Position) -> Vec<Move> {
        pos.legal_moves()
            .into_iter()
            .filter(|m| !self.banmoves.contains(m))
            .filter(|m| self.searchmoves.is_empty() || self.searchmoves.contains(m))
            .collect()
    }
}

/// A score from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns, a knight or cannon about 100.
    Cp(i32),
    /// Mate in this many moves (negative: we are mated).
    Mate(i32),
}

/// One `info` report during the search.
#[derive(Clone, Debug, Default)]
pub struct SearchInfo {
    pub depth: u32,
    pub seldepth: u32,
    pub score: Option<Score>,
    pub nodes: u64,
    pub time_ms: u64,
    pub nps: u64,
    /// Per mille of the TT in use.
    pub hashfull: u32,
    pub pv: Vec<Move>,
    /// Set for a `currmove` report.
    pub currmove: Option<(Move, u32)>,
    /// Which line this is (1 = best) when the search looks for several
    /// (`Limits::multipv` > 1); None with one line.
    pub multipv: Option<u32>,
}

/// One of the best root moves a multi-PV search found, best first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PvLine {
    pub score: Score,
    /// Starts with the root move.
    pub pv: Vec<Move>,
}

/// What the search settled on.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// None when the side to move has no legal move (it has lost).
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub score: Score,
    pub depth: u32,
    pub nodes: u64,
    /// The lines of the last finished iteration, best first: one per
    /// `Limits::multipv` (the best move's alone with one).
    pub lines: Vec<PvLine>,
}

impl SearchResult {
    /// The answer where the side to move has no legal move: no move, and
    /// mated now (a stalemate loses too).
    pub fn no_move() -> SearchResult {
        SearchResult {
            best: None,
            ponder: None,
            score: Score::Mate(0),
            depth: 0,
            nodes: 0,
            lines: Vec::new(),
        }
    }
}

/// A handle another thread uses to stop or ponderhit a running search.
#[derive(Clone, Debug, Default)]
pub struct StopHandle {
    pub(crate) stop: Arc<AtomicBool>,
    pub(crate) ponderhit: Arc<AtomicBool>,
}

impl StopHandle {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }
    pub fn ponderhit(&self) {
        self.ponderhit.store(true, Ordering::SeqCst);
    }
    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

impl Default for Score {
    fn default() -> Self {
        Score::Cp(0)
    }
}
