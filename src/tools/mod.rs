//! Tools built on the library: perft, bench, the rules judge and the match runner.

pub mod analyze;
pub mod bench;
pub mod book;
pub mod judge;
pub mod matches;
pub mod perft;
