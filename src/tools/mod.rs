//! Tools built on the library: perft, bench, and (as they land) judge and the match runner.

pub mod bench;
pub mod perft;
