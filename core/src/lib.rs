//! Chuhe (楚河): the xiangqi engine core.
//!
//! Layers, each importing only the ones below it:
//!
//! ```text
//! protocol                 UCCI / UCI sessions on stdin/stdout
//! engine                   the engine object: search, network, books
//! search                   threads, time, transposition table, move picking
//! rules   eval   nnue   book (probing)
//! board   rng   files      types, bitboards, attacks, position, movegen, perft;
//!                          size-capped file reading
//! ```
//!
//! Tools (match runner, analysis, records, book building, datagen, trainer)
//! live in the `chuhe` package on top of this one.
//!
//! # Which way into the engine
//!
//! - To play or analyse (a GUI protocol, a tool that searches positions):
//!   `engine::Engine`. It owns the search with its table and threads, the
//!   evaluation (network or hand-crafted), the books and the playing
//!   strength; `Engine::go` searches a position under `search::Limits`,
//!   with a `search::StopHandle` and a callback for progress. The
//!   protocols (`protocol`) use nothing else.
//! - To speak a protocol on stdin/stdout: `protocol::run_stdio`.
//! - `search::Searcher` is the layer below, for code that must control the
//!   bare search (fixed-node benchmarks, tuning runs, self-play data);
//!   `Engine::searcher` gives access to the one inside an engine, so a tool
//!   can still start from `Engine` and keep its network and settings.

pub mod board;
pub mod book;
pub mod engine;
pub mod eval;
pub mod files;
pub mod nnue;
pub mod protocol;
pub mod rng;
pub mod rules;
pub mod search;
