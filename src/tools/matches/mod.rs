//! `chuhe match`: engine-against-engine matches, round robins and gauntlets,
//! refereed by `crate::rules`, with PGN output, standings, Elo and SPRT.

pub mod cli;
pub mod config;
pub mod engine;
pub mod game;
pub mod openings;
pub mod pgn;
pub mod runner;
pub mod standings;
pub mod stats;
pub mod timecontrol;

pub use cli::MatchArgs;
pub use engine::{EngineSpec, Protocol};
pub use game::{GameRecord, GameSettings, Referee, RulesReferee, Termination};
pub use runner::{MatchConfig, MatchReport};
