//! Search: the public face the protocol, bench and match tools use.
//!
//! CONTRACT (the protocol codes against these names; keep them stable):
//! - `Engine::new()`, `set_hash_mb`, `set_threads`, `new_game` (clears the TT
//!   and histories).
//! - `Engine::go(&mut self, pos: &Position, limits: &Limits,
//!   on_info: &mut dyn FnMut(&SearchInfo)) -> SearchResult` searches
//!   synchronously on the calling thread (helper threads inside), calling
//!   `on_info` for each `info` line worth printing, and returns when a limit is
//!   reached or `StopHandle::stop()` is called from another thread.
//! - `Engine::stop_handle()` gives a cloneable, `Send` handle: `stop()` ends
//!   the search at once; `ponderhit()` turns a ponder/infinite search into a
//!   timed one with the clock starting now.
//! - `pos` carries the game history (moves made with `make_move` since the
//!   FEN), which the repetition rules read.

mod engine;
mod history;
mod limits;
mod movepick;
pub mod see;
mod time;
mod tt;
pub mod values;
mod worker;
pub use engine::Engine;
pub use limits::{Limits, Score, SearchInfo, SearchResult, StopHandle};
