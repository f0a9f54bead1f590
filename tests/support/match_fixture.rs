//! What the match-runner tests share: the scripted fake engine, a log file
//! per test for what it received, and short-game settings. Each test file
//! uses part of it.
#![allow(dead_code)]

use chuhe::matches::game::{self, GameSetup};
use chuhe::matches::openings::Opening;
use chuhe::matches::{EngineSpec, GameRecord, GameSettings, Referee};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

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

/// Longer than any scripted game should take, even on a loaded machine.
pub const GAME_LIMIT: Duration = Duration::from_secs(60);

/// Plays one game and returns its record. The game runs on a scoped thread:
/// if it has not ended within `GAME_LIMIT`, the match's stop flag is raised
/// (the runner then gives up on its engines) and the test fails, so a runner
/// that stops listening fails its test instead of stalling the suite.
pub fn play_game(
    red: &EngineSpec,
    black: &EngineSpec,
    opening: &Opening,
    settings: &GameSettings,
    referee: &dyn Referee,
) -> GameRecord {
    let stop = Arc::new(AtomicBool::new(false));
    let setup = GameSetup {
        red,
        black,
        opening,
        settings,
        referee,
        stop: stop.clone(),
    };
    std::thread::scope(|s| {
        let game = s.spawn(|| game::play(&setup));
        let deadline = Instant::now() + GAME_LIMIT;
        while !game.is_finished() {
            if Instant::now() > deadline {
                stop.store(true, Ordering::Relaxed);
                let _ = game.join();
                panic!("the game did not end within {GAME_LIMIT:?}");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        game.join().expect("the match runner panicked")
    })
}
