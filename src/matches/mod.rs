//! `chuhe match`: engine-against-engine matches, round robins and gauntlets,
//! refereed by `chuhe_core::rules`, with PGN output, standings, Elo and SPRT.
//!
//! ```text
//! chuhe match --engine cmd=target/release/chuhe,name=new \
//!             --engine "cmd=/opt/old/chuhe,name=old,proto=ucci,option.hashsize=64" \
//!             --tc 1+0.01 --openings tests/data/openings.txt --games 100 \
//!             --concurrency 2 --pgn games.pgn [--sprt 0,10,0.05,0.05]
//! chuhe match --config match.toml          # engines and settings from a file
//! ```
//!
//! Two engines play a match; three or more a round robin (`--gauntlet`: the
//! first against each of the others). Each opening is played twice with the
//! colours swapped. Every game starts fresh engine processes, so a process
//! serves one game at a time and an engine that crashed is simply started
//! again for its next game. Ctrl-C stops the match and keeps (and reports)
//! the games already finished; run the same command with `--resume` to go on
//! from the PGN file (`resume`).
//!
//! The runner keeps both clocks itself, timing each move from writing `go` to
//! reading `bestmove`; an engine loses on time when it overruns its clock by
//! more than `--margin-ms`. Games end by the rules judge (mate, stalemate,
//! repetition verdicts, natural limit, no winning material), by an engine's
//! fault (illegal move, `nobestmove`, crash, no answer, time), by resignation or agreed draw
//! (UCCI), or by optional score adjudication; the PGN `Termination` tag says
//! which. Relative paths (engine `dir`, `--openings`, `--pgn`) are taken from
//! the current directory.
//!
//! Files: `engine` (processes and protocol), `game` (one refereed game),
//! `timecontrol`, `openings`, `schedule` (the match's settings and its games
//! in order), `runner` (workers, output), `pgn`, `resume` (a stopped match's
//! games read back from its PGN), `standings`, `stats` (Elo, LOS, SPRT),
//! `usage` (clock, depth and speed per engine), `config` and `cli`. Each
//! imports only files below it: `runner` uses `resume` and `usage`, and all
//! three use `schedule`.

pub mod adjudication;
pub mod config;
pub mod engine;
pub mod game;
pub mod openings;
pub mod pgn;
pub mod resume;
pub mod runner;
pub mod schedule;
pub mod standings;
pub mod stats;
pub mod timecontrol;
pub mod usage;

pub use engine::{EngineSpec, Protocol};
pub use game::{GameRecord, GameSettings, Referee, RulesReferee, Termination};
pub use runner::MatchReport;
pub use schedule::MatchConfig;
