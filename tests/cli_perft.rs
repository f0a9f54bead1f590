//! The `chuhe perft` command as a user runs it.

use std::process::Command;

#[path = "support/cli.rs"]
mod cli;
use cli::chuhe;

#[test]
fn perft_prints_total_line() {
    let (ok, out, _) = chuhe(&["perft", "--depth", "3"]);
    assert!(ok);
    let last = out.lines().last().unwrap();
    let w: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(w[0], "nodes");
    assert_eq!(w[1], "79666");
    assert_eq!(w[2], "time");
    assert_eq!(w[4], "nps");
}

#[test]
fn perft_divide_lists_each_root_move() {
    let fen = "3k2b2/1C7/1c7/p3p4/2p6/6P2/P2N5/9/9/4K2c1 w - - 1 35";
    let (ok, out, _) = chuhe(&[
        "perft",
        "--fen",
        fen,
        "--depth",
        "2",
        "--divide",
        "--threads",
        "2",
    ]);
    assert!(ok);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 22 + 1, "{out}");
    let mut sum = 0;
    for l in &lines[..22] {
        let (mv, n) = l.split_once(": ").unwrap();
        assert_eq!(mv.len(), 4, "{l}");
        sum += n.parse::<u64>().unwrap();
    }
    assert_eq!(sum, 757);
    assert!(lines[22].starts_with("nodes 757 "));
}

#[test]
fn perft_rejects_bad_fen_with_a_message() {
    let (ok, out, err) = chuhe(&["perft", "--fen", "rnbakabnr/9/9 w", "--depth", "2"]);
    assert!(!ok);
    assert!(out.is_empty());
    assert!(err.contains("ranks"), "{err}");
    let (ok, _, err) = chuhe(&["perft", "--depth", "banana"]);
    assert!(!ok);
    assert!(err.contains("depth"), "{err}");
}

/// Output cut short (`chuhe perft --divide | head -1`) ends the tool
/// quietly, as a Unix tool ends, never with a panic's message.
#[cfg(unix)]
#[test]
fn a_closed_output_ends_the_tool_without_a_panic() {
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args(["perft", "--depth", "4", "--divide"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run chuhe");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait for chuhe");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}
