//! Tools built on the library: perft, bench, the rules judge, the match runner and record conversion.

pub mod bench;
pub mod convert;
pub mod judge;
pub mod matches;
pub mod perft;
