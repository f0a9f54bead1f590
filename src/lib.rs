//! Chuhe (楚河): a xiangqi engine.
//!
//! Data flows one way: `protocol` reads commands and drives the `search`,
//! which walks `board` positions, scores them with `eval` and judges
//! repetitions with `rules`. `tools` (perft, bench, judge, match) are built on
//! the same library.

pub mod board;
pub mod book;
pub mod eval;
pub mod nnue;
pub mod protocol;
pub mod record;
pub mod rules;
pub mod search;
pub mod tools;
