//! A child process whose standard output arrives line by line on a channel,
//! so a test can wait for a line with a timeout (a hang becomes a failure)
//! instead of blocking on a read. Used by the protocol tests and the fuzz
//! harness's `session` target.

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};

pub struct Piped {
    pub child: Child,
    /// None when the caller gave the child some other standard input.
    pub stdin: Option<ChildStdin>,
    pub lines: Receiver<String>,
}

/// Starts `cmd` with its standard output piped to a reader thread. Standard
/// input and error are the caller's choice (set them on `cmd`).
pub fn spawn(cmd: &mut Command) -> std::io::Result<Piped> {
    let mut child = cmd.stdout(Stdio::piped()).spawn()?;
    let stdout = child.stdout.take().expect("stdout is piped");
    let (tx, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let stdin = child.stdin.take();
    Ok(Piped {
        child,
        stdin,
        lines,
    })
}
