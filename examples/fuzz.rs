//! The long fuzz run (see docs/DEVELOPMENT.md, "Fuzzing"):
//!
//!     cargo build --profile test --example fuzz --bin chuhe
//!     target/debug/examples/fuzz [--target NAME|all] [--inputs N]
//!         [--seed S] [--first I] [--bin target/debug/chuhe] [--lines L]
//!
//! (The test profile keeps unwinding: the release profile aborts on a panic,
//! so a panicking input could not be caught and reported.)
//!
//! In-process targets: fen, moves, protocol-parse, judge, openings, config,
//! and the file readers pgn, xqf, records, book, network, mate-suite, chain (these
//! also check each input's peak memory against a budget; see
//! tests/support/fuzz_readers.rs).
//! `session` drives the engine binary (`--bin`) over pipes with random
//! scripts of `--lines` lines (default 200); its inputs are lines. Prints
//! one summary line per target and every failure with the index that
//! reproduces it (`--first I --inputs 1`); `--print-script I` prints
//! session script I (with `--seed` and `--lines`) instead of running it, to
//! replay by hand.

#[path = "../tests/support/fuzz_targets.rs"]
mod targets;

use std::time::{Duration, Instant};
use targets::{run_session, run_target, session_script, Rng, SessionNotes, TARGETS};

fn main() {
    let mut target = "all".to_string();
    let mut inputs: u64 = 100_000;
    let mut seed: u64 = 1;
    let mut first: u64 = 0;
    let mut bin = "target/release/chuhe".to_string();
    let mut lines: usize = 200;
    let mut print_script: Option<u64> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| die(&format!("{a} needs a value")))
        };
        match a.as_str() {
            "--target" => target = value(),
            "--inputs" => {
                inputs = value()
                    .parse()
                    .unwrap_or_else(|_| die("--inputs: a number"))
            }
            "--seed" => seed = value().parse().unwrap_or_else(|_| die("--seed: a number")),
            "--first" => first = value().parse().unwrap_or_else(|_| die("--first: a number")),
            "--bin" => bin = value(),
            "--lines" => lines = value().parse().unwrap_or_else(|_| die("--lines: a number")),
            "--print-script" => {
                print_script = Some(
                    value()
                        .parse()
                        .unwrap_or_else(|_| die("--print-script: a number")),
                )
            }
            _ => die(&format!("unknown argument {a}")),
        }
    }
    if let Some(i) = print_script {
        let script = session_script(&mut Rng::new(targets::input_seed(seed, i)), lines);
        for line in script {
            println!("{line}");
        }
        return;
    }
    // Panics are caught and reported per input; keep the default hook's
    // message out of the way of the summary.
    std::panic::set_hook(Box::new(|_| {}));
    let mut failed = false;
    for (name, f) in TARGETS {
        if target != "all" && target != *name {
            continue;
        }
        let t0 = Instant::now();
        // In chunks, so a long run shows progress.
        let chunk = 100_000.min(inputs.max(1));
        let mut done = 0;
        let mut total = targets::Stats::default();
        while done < inputs {
            let n = chunk.min(inputs - done);
            let s = run_target(name, *f, seed, first + done, n);
            total.tried += s.tried;
            total.panics += s.panics;
            if s.slowest_ms > total.slowest_ms {
                total.slowest_ms = s.slowest_ms;
                total.slowest = s.slowest;
            }
            for (i, why) in &s.failures {
                eprintln!("{name}: input {i}: {why}");
            }
            total.failures.extend(s.failures);
            done += n;
            eprintln!("{name}: {done} inputs, {} failures", total.failures.len());
        }
        report(name, &total, t0.elapsed());
        failed |= !total.failures.is_empty();
    }
    if target == "all" || target == "session" {
        let t0 = Instant::now();
        let mut total = targets::Stats::default();
        let mut script_no = first;
        let mut notes = SessionNotes::default();
        while total.tried < inputs {
            let script = session_script(&mut Rng::new(targets::input_seed(seed, script_no)), lines);
            let seen = notes.needed_stop.len();
            let run = run_session(
                std::path::Path::new(&bin),
                &script,
                Duration::from_secs(20),
                &mut notes,
            );
            for n in &notes.needed_stop[seen..] {
                eprintln!("session: script {script_no}: readyok only after stop: {n}");
            }
            match run {
                Ok(n) => total.tried += n as u64,
                Err(e) => {
                    eprintln!("session: script {script_no}: {e}");
                    total.tried += script.len() as u64;
                    total.failures.push((script_no, e));
                }
            }
            script_no += 1;
            if script_no.is_multiple_of(50) {
                eprintln!(
                    "session: {} lines, {} failures",
                    total.tried,
                    total.failures.len()
                );
            }
        }
        report("session", &total, t0.elapsed());
        println!(
            "session: {} searches ran on until the harness sent stop",
            notes.needed_stop.len()
        );
        failed |= !total.failures.is_empty();
    }
    std::process::exit(i32::from(failed));
}

fn report(name: &str, s: &targets::Stats, took: Duration) {
    println!(
        "{name}: {} inputs in {:.0}s, {} failures ({} panics), slowest input {} ms (input {})",
        s.tried,
        took.as_secs_f64(),
        s.failures.len(),
        s.panics,
        s.slowest_ms,
        s.slowest
    );
    for (i, why) in s.failures.iter().take(20) {
        println!("  input {i}: {why}");
    }
}

fn die(msg: &str) -> ! {
    eprintln!("fuzz: {msg}");
    std::process::exit(2)
}
