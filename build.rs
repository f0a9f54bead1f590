//! Records the commit this binary is built from (`CHUHE_COMMIT`), for the
//! data it makes: datagen's manifest names the commit that can make a shard
//! again. Asking git at run time gave the checkout the binary sits in, which
//! is not the build's once the checkout moves on (a datagen binary copied
//! aside and left running while new commits land).

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    // `+dirty` when tracked files differ from the commit, but for the data
    // under nnue/data (datagen appends to the manifest there while it runs,
    // and no data goes into the binary); `unknown` outside a git checkout
    // (a source archive).
    let status = [
        "status",
        "--porcelain",
        "--untracked-files=no",
        "--",
        ".",
        ":(exclude)nnue/data",
    ];
    let commit = match git(&["rev-parse", "--short=10", "HEAD"]) {
        None => "unknown".to_string(),
        Some(c) => match git(&status) {
            Some(s) if s.is_empty() => c,
            _ => format!("{c}+dirty"),
        },
    };
    println!("cargo:rustc-env=CHUHE_COMMIT={commit}");
    // Run again when the commit or a tracked file may have changed. Only
    // paths that exist: a missing one would rerun this on every build.
    let mut watched = vec![
        "src".to_string(),
        "core/src".into(),
        "Cargo.toml".into(),
        "core/Cargo.toml".into(),
        "build.rs".into(),
    ];
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        for f in ["HEAD", "index", "refs", "packed-refs"] {
            watched.push(format!("{dir}/{f}"));
        }
    }
    for p in watched.iter().filter(|p| Path::new(p).exists()) {
        println!("cargo:rerun-if-changed={p}");
    }
}
