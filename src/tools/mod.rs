//! Tools built on the library: perft, bench, the rules judge, the match runner and record conversion.

pub mod analyze;
pub mod bench;
pub mod book;
pub mod convert;
pub mod datagen;
pub mod judge;
pub mod matches;
pub mod perft;
