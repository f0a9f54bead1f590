//! The `chuhe` binary run as a command-line user runs it: arguments in,
//! success and both output streams back. Shared by the tests of the tools.

#![allow(dead_code)]

use std::process::Command;

/// The binary under test.
pub const CHUHE: &str = env!("CARGO_BIN_EXE_chuhe");

/// Runs `chuhe` with `args` to the end: whether it succeeded, its stdout
/// and its stderr.
pub fn chuhe(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(CHUHE).args(args).output().expect("run chuhe");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
