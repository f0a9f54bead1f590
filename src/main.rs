//! The `chuhe` program. With no subcommand it speaks UCCI/UCI on
//! stdin/stdout; subcommands run the tools (`chuhe::cli`).

use chuhe::cli::Cli;
use clap::Parser;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli
        .command
        .as_ref()
        .is_some_and(|c| !c.talks_to_other_processes())
    {
        quiet_on_closed_output();
    }
    // A process-wide handler is the program's business, never a library's:
    // only the tools that can stop cleanly get one.
    let stop = Arc::new(AtomicBool::new(false));
    if cli.command.as_ref().is_some_and(|c| c.stops_on_ctrl_c()) {
        let flag = stop.clone();
        if let Err(e) = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed)) {
            eprintln!("warning: cannot catch Ctrl-C ({e}); it will end the run at once");
        }
    }
    // Every tool reports a failure the same way: `error: ...` on stderr and
    // exit status 2 (1 is left for "ran, but some inputs failed").
    match chuhe::cli::run(cli.command, stop) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// A tool whose output is cut short (`chuhe perft ... | head`) should end
/// quietly, as Unix tools do, rather than panic on the next `println!`: Rust
/// ignores SIGPIPE, so the default action is restored for the tools. The
/// engine itself keeps Rust's default: its protocol output handles a
/// closed pipe by exiting (`core/src/protocol/output.rs`). So do the tools
/// that write to engines they started or to browsers (match, tune, gui):
/// an engine that dies before reading would otherwise kill the whole run
/// with its pipe, where it should only lose its game or fail its start.
#[cfg(unix)]
fn quiet_on_closed_output() {
    // SAFETY: setting a signal's disposition to its default is
    // async-signal-safe and done before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn quiet_on_closed_output() {}
