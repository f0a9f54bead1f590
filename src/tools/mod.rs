//! Tools built on the library: perft, and (as they land) bench, judge and the match runner.

pub mod matches;
pub mod perft;
