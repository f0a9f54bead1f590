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
//! Use `engine::Engine` for everything: the protocols, the GUI and every
//! tool that searches (analysis, bench, datagen) make one. It owns the
//! search with its table and threads, the evaluation (network or
//! hand-crafted), the books and the playing strength; `Engine::go`
//! searches a position under `search::Limits`, with a `search::StopHandle`
//! and a callback for progress. To speak a protocol on stdin/stdout:
//! `protocol::run_stdio`.
//!
//! `search::Searcher` is the search inside an `Engine`, not a second way
//! in: `Engine::searcher` reaches it where the bare search is needed, and
//! only the search's own tests build one directly.

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
