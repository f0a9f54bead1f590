//! `chuhe convert`: files and collections between XQF and PGN.

use chuhe::record::{self, pgn, xqf, Game, MoveNode};
use chuhe_core::board::Move;
use std::path::{Path, PathBuf};
use std::process::Command;

fn chuhe() -> Command {
    Command::new(env!("CARGO_BIN_EXE_chuhe"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("chuhe-convert-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn game() -> Game {
    let mut g = Game::default();
    g.set_tag("Event", "测试");
    g.set_tag("Red", "红");
    g.set_tag("Black", "黑");
    g.set_tag("Result", "*");
    g.comment = Some("开局".into());
    let mv = |s: &str| s.parse::<Move>().unwrap();
    let mut moves: Vec<MoveNode> = ["h2e2", "h9g7", "h0g2"]
        .iter()
        .map(|s| MoveNode::new(mv(s)))
        .collect();
    moves[1].comment = Some("屏风马".into());
    moves[1].variations.push(vec![MoveNode::new(mv("b7e7"))]);
    g.moves = moves;
    g
}

fn run(args: &[&Path]) -> (i32, String, String) {
    let out = chuhe().arg("convert").args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn one_file_each_way() {
    let dir = scratch("one");
    let g = game();
    let x = dir.join("g.xqf");
    std::fs::write(&x, xqf::write(&g).unwrap()).unwrap();
    let p = dir.join("g.pgn");
    let (code, _, err) = run(&[&x, &p]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&p).unwrap();
    // ICCS moves with the Chinese notation opening each comment.
    assert!(
        text.contains("1. h2e2 {炮二平五} h9g7 {马8进7 屏风马} (1... b7e7 {炮2平5})"),
        "{text}"
    );
    assert_eq!(pgn::read_str(&text).unwrap(), vec![g.clone()]);
    let x2 = dir.join("back.xqf");
    let (code, _, err) = run(&[&p, &x2]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(&x2).unwrap(), std::fs::read(&x).unwrap());
}

#[test]
fn a_collection_converts_what_it_can_and_lists_the_rest() {
    let dir = scratch("many");
    let input = dir.join("in");
    std::fs::create_dir_all(input.join("sub")).unwrap();
    let g = game();
    let good_xqf = xqf::write(&g).unwrap();
    std::fs::write(input.join("a.xqf"), &good_xqf).unwrap();
    std::fs::write(input.join("sub/b.pgn"), pgn::write(&[g.clone(), g.clone()])).unwrap();
    // Truncated in the move section, and a PGN with an impossible move.
    std::fs::write(input.join("cut.xqf"), &good_xqf[..good_xqf.len() - 3]).unwrap();
    std::fs::write(
        input.join("bad.pgn"),
        "[Event \"x\"]\n1. h2e2 h9g7 2. 炮五进九 *\n",
    )
    .unwrap();
    std::fs::write(input.join("notes.txt"), "not a record").unwrap();
    let out = dir.join("out");
    let (code, stdout, err) = run(&[&input, &out]);
    assert_eq!(code, 1, "{stdout}{err}");
    assert!(
        stdout.contains("converted 3 game(s) into 3 file(s)"),
        "{stdout}"
    );
    assert!(err.contains("could not convert 2"), "{err}");
    assert!(err.contains("cut.xqf: offset"), "{err}");
    assert!(err.contains("file ends inside"), "{err}");
    assert!(err.contains("bad.pgn: offset 28:"), "{err}");
    assert!(err.contains("炮五进九"), "{err}");
    // XQF became PGN and PGN became XQF (one file per game).
    let a = record::read_file(&out.join("a.pgn")).unwrap();
    assert_eq!(a, vec![g.clone()]);
    for n in [1, 2] {
        let b = xqf::read(&std::fs::read(out.join(format!("sub/b-{n}.xqf"))).unwrap()).unwrap();
        assert_eq!(b, g);
    }
    // Everything into one PGN file.
    let all = dir.join("all.pgn");
    let (code, stdout, _) = run(&[&input, &all]);
    assert_eq!(code, 1);
    assert!(
        stdout.contains("converted 3 game(s) into 1 file(s)"),
        "{stdout}"
    );
    assert_eq!(record::read_file(&all).unwrap().len(), 3);
}

#[test]
fn usage_errors() {
    let dir = scratch("usage");
    let x = dir.join("g.xqf");
    std::fs::write(&x, xqf::write(&game()).unwrap()).unwrap();
    let (code, _, err) = run(&[&x, &dir.join("out.txt")]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(&[&x, &x.clone(), &dir.join("two.xqf")]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(&[&dir.join("missing.pgn"), &dir.join("o.xqf")]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("missing.pgn: offset 0: cannot read"), "{err}");
}

/// `chuhe` with `args`, its address space capped so that a reader that
/// allocates without end fails here instead of taking the machine down
/// (issue 50 saw 24 GB), and killed if it runs past `limit`.
fn run_capped(args: &[&std::ffi::OsStr], limit: std::time::Duration) -> (i32, String, String) {
    let mut cmd = chuhe();
    cmd.args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: setrlimit is async-signal-safe; nothing else runs between
        // fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                let cap = libc::rlimit {
                    rlim_cur: 4 << 30,
                    rlim_max: 4 << 30,
                };
                libc::setrlimit(libc::RLIMIT_AS, &cap);
                Ok(())
            });
        }
    }
    let mut child = cmd.spawn().unwrap();
    let t0 = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chuhe {args:?} ran past {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Issue 50: files holding only `}`, only `]`, or `1. h2e2 }` made convert,
/// analyze and book build grow a buffer until the system killed them. Each
/// tool now names the file, the offset and the stray bracket.
#[test]
fn stray_brackets_are_reported_by_every_tool() {
    let dir = scratch("stray");
    let limit = std::time::Duration::from_secs(60);
    for (i, text) in ["}", "]", "1. h2e2 }"].iter().enumerate() {
        let pgn = dir.join(format!("k{i}.pgn"));
        std::fs::write(&pgn, text).unwrap();
        let xqf = dir.join(format!("k{i}.xqf"));
        let (code, _, err) = run_capped(
            &["convert".as_ref(), pgn.as_os_str(), xqf.as_os_str()],
            limit,
        );
        assert_eq!(code, 1, "{err}");
        assert!(err.contains(&format!("k{i}.pgn: offset")), "{err}");
        assert!(err.contains("'}'") || err.contains("']'"), "{err}");
        assert!(!xqf.exists());
        let (code, _, err) = run_capped(&["analyze".as_ref(), pgn.as_os_str()], limit);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("'}'") || err.contains("']'"), "{err}");
        let book = dir.join(format!("k{i}.bin"));
        let (code, _, err) = run_capped(
            &[
                "book".as_ref(),
                "build".as_ref(),
                "--out".as_ref(),
                book.as_os_str(),
                pgn.as_os_str(),
            ],
            limit,
        );
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("skipped") && err.contains("offset"), "{err}");
    }
}

/// An endless input (`/dev/zero` here; a pipe or `/dev/urandom` alike)
/// used to be read until memory ran out: every tool's file reader stops at
/// its size limit and says so.
#[cfg(unix)]
#[test]
fn endless_inputs_are_refused_at_a_size_limit() {
    let limit = std::time::Duration::from_secs(60);
    for args in [
        &["analyze", "/dev/zero"][..],
        &["convert", "/dev/zero", "/tmp/never-written.xqf"],
        &["book", "probe", "--book", "/dev/zero"],
        &["bench", "--eval", "/dev/zero"],
        &["bench", "--suite", "/dev/zero"],
        &[
            "match",
            "--engine",
            "cmd=x",
            "--engine",
            "cmd=y",
            "--config",
            "/dev/zero",
        ],
        &[
            "match",
            "--engine",
            "cmd=x",
            "--engine",
            "cmd=y",
            "--openings",
            "/dev/zero",
        ],
    ] {
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
        let (code, _, err) = run_capped(&args, limit);
        assert_ne!(code, 0, "{args:?}: {err}");
        assert!(
            err.contains("larger than") && err.contains("bytes"),
            "{args:?}: {err}"
        );
    }
}
