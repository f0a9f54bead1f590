//! Chuhe against Chuhe through its own protocol loop, at fixed depth.

use chuhe::matches::runner;
use chuhe::matches::schedule::MatchConfig;
use chuhe::matches::{EngineSpec, GameSettings, RulesReferee, Termination};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

#[test]
fn chuhe_plays_chuhe_at_fixed_depth() {
    let exe = env!("CARGO_BIN_EXE_chuhe");
    let engines = vec![
        EngineSpec::new("chuhe-a", exe),
        EngineSpec::new("chuhe-b", exe),
    ];
    let settings = GameSettings {
        tc: "depth=2".parse().unwrap(),
        no_answer_ms: 20_000,
        max_plies: 300,
        ..GameSettings::default()
    };
    let mut cfg = MatchConfig::new(engines, settings);
    cfg.games_per_pair = 2;
    cfg.concurrency = 2;
    let mut out = Vec::new();
    let report = runner::run(
        &cfg,
        Arc::new(RulesReferee),
        Arc::new(AtomicBool::new(false)),
        &mut out,
    )
    .unwrap();
    let printed = String::from_utf8_lossy(&out);
    assert_eq!(report.games.len(), 2, "{printed}");
    for (_, g) in &report.games {
        let fault = matches!(
            g.termination,
            Termination::Crash { .. }
                | Termination::IllegalMove { .. }
                | Termination::NoMove { .. }
                | Termination::NoAnswer { .. }
                | Termination::TimeForfeit { .. }
                | Termination::StartFailure { .. }
                | Termination::Interrupted
        );
        assert!(
            !fault,
            "game ended by an engine fault: {}\n{printed}",
            g.termination
        );
        assert!(g.outcome.is_some());
        assert!(!g.moves.is_empty());
    }
}
