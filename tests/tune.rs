//! `chuhe tune` as a user runs it: options read from the engine, the state
//! file written every iteration and resumed from.

#[path = "support/cli.rs"]
mod cli;
use cli::{chuhe, CHUHE};

fn tune(state: &std::path::Path, params: &str, iterations: &str) -> (bool, String, String) {
    let engine = format!("cmd={CHUHE}");
    let args = [
        "tune",
        "--engine",
        &engine,
        "--params",
        params,
        "--iterations",
        iterations,
        "--tc",
        "depth=1",
        "--concurrency",
        "1",
        "--state",
        state.to_str().expect("a UTF-8 temporary path"),
    ];
    chuhe(&args)
}

/// A fresh directory of this test's own.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("chuhe-tune-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The progress lines the tuner wrote to stderr, one per iteration played.
fn iterations(err: &str) -> Vec<&str> {
    err.lines()
        .filter(|l| l.starts_with("iteration "))
        .collect()
}

#[test]
fn tune_keeps_its_state_and_resumes_from_it() {
    let dir = scratch("resume");
    let state = dir.join("state");
    // A plain build's spin options serve: here the table size, which a
    // game at depth 1 does not feel, from a value the state file gives.
    std::fs::write(&state, "iteration 0\nHash 40\n").unwrap();
    let (ok, out, err) = tune(&state, "Hash:2", "2");
    assert!(ok, "{err}");
    assert_eq!(iterations(&err).len(), 2, "{err}");
    assert!(out.lines().any(|l| l.starts_with("Hash ")), "{out}");
    let saved = std::fs::read_to_string(&state).unwrap();
    assert!(saved.starts_with("iteration 2\n"), "{saved}");
    // Resumed: the two done are not played again, the third is.
    let (ok, _, err) = tune(&state, "Hash:2", "3");
    assert!(ok, "{err}");
    let lines = iterations(&err);
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].starts_with("iteration 3/3"), "{err}");
    let saved = std::fs::read_to_string(&state).unwrap();
    assert!(saved.starts_with("iteration 3\n"), "{saved}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn tune_names_a_missing_option() {
    let dir = scratch("missing");
    let (ok, _, err) = tune(&dir.join("state"), "NoSuchOption", "1");
    assert!(!ok);
    assert!(err.contains("no spin option 'NoSuchOption'"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
