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
