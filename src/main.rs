//! The `chuhe` program. With no subcommand it speaks UCCI/UCI on
//! stdin/stdout; subcommands run the tools (`chuhe::cli`).

use chuhe::cli::Cli;
use clap::Parser;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

fn main() -> ExitCode {
    let cli = Cli::parse();
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
