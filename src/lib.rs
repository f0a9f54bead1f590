//! Chuhe's tools, built on the engine core (`chuhe_core`): the match
//! runner, game analysis, record reading and writing, opening-book
//! building, self-play data generation, the network trainer and the
//! browser board (`gui`), plus the
//! command line's argument definitions. Nothing here is linked into the
//! engine's search; the engine core never imports this crate.

pub mod analyze;
pub mod bench;
pub mod book;
pub mod cli;
pub mod convert;
pub mod datagen;
pub mod gui;
pub mod judge;
pub mod matches;
pub mod record;
pub mod train;
pub mod tune;
