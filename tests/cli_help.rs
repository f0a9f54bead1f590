//! The command line's help: every argument of every subcommand explains
//! itself, and `chuhe --help` says what `chuhe` alone does.

use chuhe::cli::Cli;
use clap::CommandFactory;

#[path = "support/cli.rs"]
mod cli;

/// Issue 50: `perft --depth`, `bench --depth` and `book probe --book`,
/// among others, had no help line. Walks the whole command tree.
#[test]
fn every_argument_has_help() {
    fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if matches!(id, "help" | "version") {
                continue;
            }
            if arg.get_help().is_none() && arg.get_long_help().is_none() {
                missing.push(format!("{path} {id}"));
            }
        }
        for sub in cmd.get_subcommands() {
            if sub.get_name() == "help" {
                continue;
            }
            if sub.get_about().is_none() {
                missing.push(format!("{path} {} (the subcommand)", sub.get_name()));
            }
            walk(sub, &format!("{path} {}", sub.get_name()), missing);
        }
    }
    let mut missing = Vec::new();
    walk(&Cli::command(), "chuhe", &mut missing);
    assert!(missing.is_empty(), "no help for: {missing:?}");
}

/// Issue 50: `chuhe` alone starts the engine and waits silently; the help
/// says so, and how it picks its protocol.
#[test]
fn help_says_that_no_subcommand_starts_the_engine() {
    for flag in ["--help", "-h"] {
        let (ok, out, err) = cli::chuhe(&[flag]);
        assert!(ok, "{err}");
        assert!(
            out.contains("With no subcommand, `chuhe` is the engine"),
            "{out}"
        );
        assert!(
            out.contains("UCCI, UCI or CECP (xboard) on stdin/stdout"),
            "{out}"
        );
    }
}
