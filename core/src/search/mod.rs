//! Search: the search inside `engine::Engine`, which everything that
//! searches goes through (see the crate docs); these names are what
//! `Engine` and the search's own tests code against.
//!
//! CONTRACT (the protocol codes against these names; keep them stable):
//! - `Searcher::new()`, `set_hash_mb` (returns a `HashReport`: what was
//!   allocated and why it differs from what was asked), `set_threads`,
//!   `new_game` (clears the TT and histories).
//! - `Searcher::go(&mut self, pos: &Position, limits: &Limits,
//!   on_info: &mut dyn FnMut(&SearchInfo)) -> SearchResult` searches
//!   synchronously on the calling thread (helper threads of a pool that lives
//!   across searches inside), calling `on_info` for each `info` line worth
//!   printing, and returns when a limit is reached or `StopHandle::stop()` is
//!   called from another thread. `go_with` does the same with a stop token
//!   the caller made (one per search: a `stop` given to it before the search
//!   starts is never lost).
//! - `Searcher::stop_handle()` gives a cloneable, `Send` handle to the next
//!   search (`go` takes it, and the engine makes a fresh one for the search
//!   after): `stop()` ends the search at once; `ponderhit()` turns a
//!   ponder/infinite search into a timed one with the clock starting now.
//! - The limits every front end announces or checks (`MAX_HASH_MB`,
//!   `MAX_THREADS`, `MAX_DEPTH`, ...) are defined here once.
//! - `pos` carries the game history (moves made with `make_move` since the
//!   FEN), which the repetition rules read.

mod history;
mod limits;
mod movepick;
pub mod params;
mod searcher;
pub mod see;
pub mod stats;
mod time;
mod tt;
pub mod values;
pub mod wdl;
mod worker;
pub use searcher::{HashReport, Searcher};

/// Transposition table sizes in MB: the range offered to GUIs, and the
/// default. A size the machine cannot give is cut down (see `HashReport`).
pub const MIN_HASH_MB: usize = 1;
pub const MAX_HASH_MB: usize = 65536;
pub const DEFAULT_HASH_MB: usize = 64;
/// Search threads: more are refused (clamped, with a note from the protocol).
pub const MAX_THREADS: usize = 256;
/// The most principal variations one search reports.
pub const MAX_MULTIPV: usize = 128;
/// The deepest iteration the search runs: the search stack holds
/// `values::MAX_PLY` plies and keeps a few for quiescence and extensions.
pub const MAX_DEPTH: u32 = values::MAX_PLY as u32 - 10;
pub use limits::{Limits, PvLine, Score, SearchInfo, SearchResult, StopHandle};

/// A read-only, thread-safe view of the engine's transposition table.
#[derive(Clone)]
pub struct HashView(std::sync::Arc<tt::Tt>);

/// What the table holds for one position: the UCCI `pophash` answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HashEntry {
    /// The stored best move, if it is legal in the position.
    pub best: Option<crate::board::Move>,
    /// The score from the side to move's view, mates as `values::MATE`
    /// minus the distance in plies.
    pub score: i32,
    pub depth: i32,
    /// The true score is at least `score` (also set for exact scores).
    pub lower: bool,
    /// The true score is at most `score` (also set for exact scores).
    pub upper: bool,
}

impl HashView {
    pub fn probe(&self, pos: &crate::board::Position) -> Option<HashEntry> {
        let hit = self.0.probe(pos.key())?;
        Some(HashEntry {
            best: Some(hit.mv).filter(|&m| pos.is_legal(m)),
            score: values::from_tt(hit.score, 0),
            depth: hit.depth,
            lower: hit.bound != tt::Bound::Upper,
            upper: hit.bound != tt::Bound::Lower,
        })
    }
}
