//! The engine binary as a GUI sees it: a child process talked to over
//! pipes, its output read with timeouts so that a hang fails a test instead
//! of blocking it. Shared by the UCCI/UCI and the CECP protocol tests.

#![allow(dead_code)]

use super::piped;
use std::io::Write;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Generous: the test machine is small and shared. Only a hang reaches it.
pub const PATIENCE: Duration = Duration::from_secs(30);

pub struct Engine {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    pub lines: Receiver<String>,
    /// Every line the engine wrote so far.
    pub log: Vec<String>,
}

impl Engine {
    pub fn start() -> Engine {
        Self::start_with(Stdio::piped())
    }

    pub fn start_with(input: Stdio) -> Engine {
        let piped::Piped {
            child,
            stdin,
            lines,
        } = piped::spawn(
            Command::new(env!("CARGO_BIN_EXE_chuhe"))
                .stdin(input)
                .stderr(Stdio::inherit()),
        )
        .expect("start chuhe");
        Engine {
            child,
            stdin,
            lines,
            log: Vec::new(),
        }
    }

    pub fn send(&mut self, text: &str) {
        self.send_bytes(format!("{text}\n").as_bytes());
    }

    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to chuhe");
        stdin.flush().expect("flush to chuhe");
    }

    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// The next line, or None when `wait` passes or the output ends.
    pub fn next_line(&mut self, wait: Duration) -> Option<String> {
        match self.lines.recv_timeout(wait) {
            Ok(l) => {
                self.log.push(l.clone());
                Some(l)
            }
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Reads until a line starts with `prefix`; returns that line and the
    /// ones before it. Fails (never hangs) when it does not come.
    pub fn until(&mut self, prefix: &str) -> (String, Vec<String>) {
        let deadline = Instant::now() + PATIENCE;
        let mut before = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left) {
                Some(l) if l.starts_with(prefix) => return (l, before),
                Some(l) => before.push(l),
                None => panic!(
                    "no line starting with '{prefix}' came; the engine said:\n{}",
                    self.log.join("\n")
                ),
            }
        }
    }

    pub fn expect(&mut self, prefix: &str) -> String {
        self.until(prefix).0
    }

    /// Asserts no line starting with `prefix` comes within `wait`.
    pub fn quiet_for(&mut self, prefix: &str, wait: Duration) {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            if let Some(l) = self.next_line(left) {
                assert!(!l.starts_with(prefix), "unexpected '{l}'");
            }
        }
    }

    /// Waits for the process to end by itself.
    pub fn exits(&mut self) -> bool {
        let deadline = Instant::now() + PATIENCE;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        false
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
