//! What the match-runner tests share: the scripted fake engine, a log file
//! per test for what it received, and short-game settings. Each test file
//! uses part of it.
#![allow(dead_code)]

use chuhe::tools::matches::{EngineSpec, GameSettings};

pub const FAKE: &str = env!("CARGO_BIN_EXE_chuhe-fake-engine");

/// The fake engine under `name`, with its command-line script.
pub fn fake(name: &str, args: &[&str]) -> EngineSpec {
    let mut e = EngineSpec::new(name, FAKE);
    e.args = args.iter().map(|s| s.to_string()).collect();
    e
}

/// A fresh path for the lines a fake engine receives (removed if present).
pub fn temp_log(tag: &str) -> String {
    let path = std::env::temp_dir().join(format!("chuhe-match-{}-{tag}.log", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path.to_string_lossy().into_owned()
}

/// Settings for short scripted games: a small overrun margin, a 5 s wait
/// for a missing answer, and a cap on the plies.
pub fn settings(tc: &str, max_plies: usize) -> GameSettings {
    GameSettings {
        tc: tc.parse().unwrap(),
        margin_ms: 50,
        no_answer_ms: 5_000,
        max_plies,
        ..GameSettings::default()
    }
}
