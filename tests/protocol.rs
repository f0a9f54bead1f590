//! The protocol as a GUI sees it: the built binary as a child process, talked
//! to over pipes. A reader thread with timeouts turns a hang into a failure.

use chuhe_core::board::{Move, Position};
use std::process::Stdio;
use std::time::{Duration, Instant};

#[path = "support/engine.rs"]
mod engine;
#[path = "support/piped.rs"]
mod piped;

use engine::{Engine, PATIENCE};

const KINGS: &str = "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1";
const MATED: &str = "3k5/4R4/4R4/9/9/9/9/9/9/4K4 b - - 0 1";

impl Engine {
    fn ucci() -> Engine {
        let mut e = Engine::start();
        e.send("ucci");
        e.expect("ucciok");
        e
    }

    fn uci() -> Engine {
        let mut e = Engine::start();
        e.send("uci");
        e.expect("uciok");
        e
    }

    /// An engine after the handshake of `proto` ("ucci" or "uci").
    fn speaking(proto: &str) -> Engine {
        match proto {
            "ucci" => Self::ucci(),
            "uci" => Self::uci(),
            _ => panic!("no protocol {proto}"),
        }
    }

    /// Sends `go ...`, returns the move of the `bestmove` line (None for
    /// `nobestmove` and `bestmove (none)`) and the whole line.
    fn go(&mut self, go: &str) -> (Option<Move>, String) {
        self.send(go);
        self.answer()
    }

    fn answer(&mut self) -> (Option<Move>, String) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Some(l) = self.next_line(left) else {
                panic!("no bestmove; the engine said:\n{}", self.log.join("\n"));
            };
            if l == "nobestmove" || l == "bestmove (none)" {
                return (None, l);
            }
            if let Some(rest) = l.strip_prefix("bestmove ") {
                let mv = rest.split_whitespace().next().and_then(|m| m.parse().ok());
                assert!(mv.is_some(), "bad bestmove line '{l}'");
                return (mv, l);
            }
        }
    }

    fn errors(&self) -> usize {
        self.log
            .iter()
            .filter(|l| l.starts_with("info string error"))
            .count()
    }
}

fn pos(fen: &str, moves: &[&str]) -> Position {
    let mut p = Position::from_fen(fen).expect("test FEN");
    for m in moves {
        p.make_move(m.parse().expect("test move"));
    }
    p
}

fn start_after(moves: &[&str]) -> Position {
    pos(chuhe_core::board::START_FEN, moves)
}

fn legal(p: &Position, mv: Option<Move>) -> bool {
    mv.is_some_and(|m| p.is_legal(m))
}

#[test]
fn full_ucci_session() {
    let mut e = Engine::start();
    e.send("ucci");
    let (_, hello) = e.until("ucciok");
    assert!(hello.iter().any(|l| l.starts_with("id name Chuhe")));
    assert!(hello.contains(&"option usemillisec type check default false".to_string()));
    assert!(hello
        .iter()
        .any(|l| l.starts_with("option hashsize type spin")));
    assert!(hello
        .iter()
        .any(|l| l.starts_with("option batch type check")));
    for opt in [
        "setoption hashsize 16",
        "setoption threads 1",
        "setoption ponder true",
        "setoption randomness small",
        "setoption style solid",
        "setoption newgame",
        "setoption usemillisec true",
    ] {
        e.send(opt);
    }
    e.send("isready");
    e.expect("readyok");
    assert_eq!(e.errors(), 0, "{:?}", e.log);

    e.send("position startpos moves h2e2 h9g7");
    let (mv, line) = e.go("go time 3000 increment 0 opptime 3000 oppincrement 0");
    assert!(legal(&start_after(&["h2e2", "h9g7"]), mv), "{line}");
    assert!(e.log.iter().any(|l| l.starts_with("info depth")));

    // Ponder on the predicted reply, then it is played.
    e.send("position startpos moves h2e2 h9g7 h0g2 i9h9");
    e.send("go ponder time 2000 increment 0 depth 4");
    e.quiet_for("bestmove", Duration::from_millis(200));
    e.send("ponderhit");
    let (mv, _) = e.answer();
    assert!(legal(&start_after(&["h2e2", "h9g7", "h0g2", "i9h9"]), mv));

    e.send("setoption usemillisec false");
    e.send("position fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1");
    let (mv, _) = e.go("go depth 3");
    assert!(legal(&Position::startpos(), mv));
    e.send("probe startpos moves h2e2");
    e.expect("pophash");
    e.send("quit");
    e.expect("bye");
    assert!(e.exits());
}

#[test]
fn full_uci_session() {
    let mut e = Engine::start();
    e.send("uci");
    let (_, hello) = e.until("uciok");
    assert!(hello.iter().any(|l| l.starts_with("id name Chuhe")));
    assert!(hello.contains(&"option name Hash type spin min 1 max 65536 default 64".to_string()));
    assert!(hello
        .iter()
        .any(|l| l.starts_with("option name Move Overhead")));
    e.send("setoption name Hash value 16");
    e.send("setoption name Threads value 1");
    e.send("setoption name Move Overhead value 10");
    e.send("ucinewgame");
    e.send("isready");
    e.expect("readyok");
    assert_eq!(e.errors(), 0, "{:?}", e.log);

    e.send("position startpos moves h2e2");
    let (mv, _) = e.go("go wtime 2000 btime 2000 winc 0 binc 0");
    assert!(legal(&start_after(&["h2e2"]), mv));
    let info = e.log.iter().rev().find(|l| l.starts_with("info depth"));
    let info = info.expect("an info line").clone();
    assert!(
        info.contains(" score cp ") || info.contains(" score mate "),
        "{info}"
    );
    for word in [" nodes ", " time ", " nps ", " pv "] {
        assert!(info.contains(word), "{info} lacks{word}");
    }

    e.send("position startpos");
    let (mv, _) = e.go("go movetime 100");
    assert!(legal(&Position::startpos(), mv));
    let (mv, _) = e.go("go depth 2 searchmoves b0c2 h0g2");
    assert!(mv == "b0c2".parse().ok() || mv == "h0g2".parse().ok());
    let (mv, _) = e.go("go nodes 2000");
    assert!(legal(&Position::startpos(), mv));

    // Ponder miss: stop, then the real position.
    e.send("go ponder wtime 1000 btime 1000");
    e.quiet_for("bestmove", Duration::from_millis(150));
    e.send("stop");
    e.answer();
    e.send("position startpos moves b0c2");
    let (mv, _) = e.go("go depth 2");
    assert!(legal(&start_after(&["b0c2"]), mv));

    e.send(&format!("position fen {MATED}"));
    let (mv, line) = e.go("go depth 1");
    assert_eq!((mv, line.as_str()), (None, "bestmove (none)"));
    e.send("quit");
    assert!(e.exits());
}

#[test]
fn ucci_ponder_miss_then_new_position() {
    let mut e = Engine::ucci();
    e.send("position startpos moves h2e2");
    e.send("go ponder time 10 increment 0");
    e.quiet_for("bestmove", Duration::from_millis(150));
    e.send("stop");
    let (mv, _) = e.answer();
    assert!(legal(&start_after(&["h2e2"]), mv));
    e.send("position startpos moves h2e2 b9c7");
    let (mv, _) = e.go("go time 10 increment 0");
    assert!(legal(&start_after(&["h2e2", "b9c7"]), mv));
}

#[test]
fn stop_during_infinite_and_isready_while_thinking() {
    for proto in ["ucci", "uci"] {
        let mut e = Engine::speaking(proto);
        e.send("position startpos");
        e.send("go infinite");
        e.send("isready");
        e.expect("readyok");
        e.quiet_for("bestmove", Duration::from_millis(200));
        e.send("stop");
        let (mv, _) = e.answer();
        assert!(legal(&Position::startpos(), mv));
        // Still in order afterwards.
        let (mv, _) = e.go("go depth 2");
        assert!(legal(&Position::startpos(), mv));
    }
    let mut e = Engine::ucci();
    e.send("go depth infinite");
    e.quiet_for("bestmove", Duration::from_millis(100));
    e.send("stop");
    e.answer();
}

#[test]
fn stop_while_idle() {
    let mut e = Engine::ucci();
    e.send("stop");
    e.expect("nobestmove");
    let mut e = Engine::uci();
    e.send("stop");
    e.send("isready");
    let (_, before) = e.until("readyok");
    assert!(!before.iter().any(|l| l.contains("bestmove")));
}

#[test]
fn banmoves_are_honoured_until_the_next_position() {
    let mut e = Engine::ucci();
    // The red king on e0 has two moves: e1 and f0 (d0 faces the black king).
    e.send(&format!("position fen {KINGS}"));
    e.send("banmoves e0e1");
    let (mv, _) = e.go("go depth 2");
    assert_eq!(mv, "e0f0".parse().ok());
    e.send("banmoves e0f0");
    let (mv, line) = e.go("go depth 2");
    assert_eq!((mv, line.as_str()), (None, "nobestmove"));
    e.send(&format!("position fen {KINGS}"));
    e.send("banmoves e0f0");
    let (mv, _) = e.go("go depth 2");
    assert_eq!(mv, "e0e1".parse().ok());

    // Ban whatever it picks from the start position: it picks another.
    e.send("position startpos");
    let (first, _) = e.go("go depth 3");
    let first = first.expect("a move");
    e.send("position startpos");
    e.send(&format!("banmoves {first}"));
    let (second, _) = e.go("go depth 3");
    assert!(legal(&Position::startpos(), second));
    assert_ne!(second, Some(first));
    // An illegal ban is reported and ignored.
    e.send("banmoves a0a5");
    e.send("isready");
    e.expect("readyok");
    assert_eq!(e.errors(), 1);
    // So is a word that is not a move: the moves beside it still count.
    e.send(&format!("position fen {KINGS}"));
    e.send("banmoves zz e0e1 e0");
    let (mv, _) = e.go("go depth 2");
    assert_eq!(mv, "e0f0".parse().ok());
    assert_eq!(e.errors(), 3);
    assert!(
        e.log
            .iter()
            .any(|l| l.contains("banmoves: 'zz' is not a move in ICCS form (like h2e2), ignored")),
        "{:?}",
        e.log
    );
}

#[test]
fn no_legal_move_answers_nobestmove() {
    let mut e = Engine::ucci();
    e.send(&format!("position fen {MATED}"));
    let (mv, line) = e.go("go depth 1");
    assert_eq!((mv, line.as_str()), (None, "nobestmove"));
    let (mv, _) = e.go("go time 5 increment 0");
    assert_eq!(mv, None);
}

#[test]
fn quit_during_search() {
    let mut e = Engine::ucci();
    e.send("position startpos");
    e.send("go infinite");
    e.quiet_for("bestmove", Duration::from_millis(100));
    e.send("quit");
    e.expect("bye");
    assert!(e.exits());
    let mut e = Engine::uci();
    e.send("go infinite");
    e.send("quit");
    assert!(e.exits());
}

#[test]
fn end_of_input_stops_an_endless_search() {
    let mut e = Engine::ucci();
    e.send("go infinite");
    e.close_input();
    e.answer();
    assert!(e.exits());
}

/// After each bad input: an error line, and a search that still works.
#[test]
fn bad_input_is_reported_and_survived() {
    let mut e = Engine::ucci();
    e.send(&format!("position fen {KINGS}"));
    let kings = pos(KINGS, &[]);
    let mut long_line = vec![b'x'; 1 << 20];
    long_line.push(b'\n');
    let mut long_position = b"position startpos moves".to_vec();
    while long_position.len() < (1 << 20) {
        long_position.extend_from_slice(b" b0c2 b9c7 c2b0 c7b9");
    }
    long_position.push(b'\n');
    let bad: Vec<Vec<u8>> = vec![
        b"frobnicate 12\n".to_vec(),
        b"position fen rnbakabnr/9/1c5c1 w\n".to_vec(),
        b"position fen 3k5/9/9/9/9/9/9/9/9/4K4 x - - 0 1\n".to_vec(),
        b"position fen 4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1\n".to_vec(),
        b"position startpos moves h2e2 h2e2\n".to_vec(),
        b"position startpos moves h2e2 zzzz\n".to_vec(),
        b"position startpos moves\xff\xfe h2e2\n".to_vec(),
        b"position\n".to_vec(),
        b"position fen\n".to_vec(),
        b"position sideways\n".to_vec(),
        long_position,
        long_line,
        b"\xc3\x28\xa0\xa1 \xff\n".to_vec(),
        b"setoption hashsize lots\n".to_vec(),
        b"setoption name Threads value many\n".to_vec(),
        b"setoption nosuchoption 3\n".to_vec(),
        b"setoption\n".to_vec(),
        b"ponderhit\n".to_vec(),
        b"debug maybe\n".to_vec(),
        b"probe fen garbage\n".to_vec(),
        b"go perft 99\n".to_vec(),
    ];
    for input in &bad {
        let errors = e.errors();
        e.send_bytes(input);
        e.send("isready");
        e.expect("readyok");
        let shown = String::from_utf8_lossy(&input[..input.len().min(60)]).into_owned();
        assert!(e.errors() > errors, "no error for {shown:?}");
        // The position is still the kings-only one.
        let (mv, _) = e.go("go depth 1");
        assert!(legal(&kings, mv), "after {shown:?}");
    }
    // Each rejected position says the previous one stands: every
    // `position` above but the over-long line, which the reader refuses
    // before it is parsed.
    let rejected = e
        .log
        .iter()
        .filter(|l| l.contains("position rejected, keeping the previous one: "))
        .count();
    assert_eq!(rejected, 9, "{:#?}", e.log);
    // Empty lines, blanks and Windows line endings are fine, not errors.
    let errors = e.errors();
    e.send_bytes(b"\n\n   \t \r\nisready\r\n");
    e.expect("readyok");
    e.send_bytes(b"position startpos moves h2e2\r\n");
    let (mv, _) = e.go("go depth 1\r");
    assert!(legal(&start_after(&["h2e2"]), mv));
    assert_eq!(e.errors(), errors);

    // go with bad numbers: reported, and still answered with a move.
    e.send("position startpos");
    for go in [
        "go depth -5",
        "go depth abc",
        "go depth",
        "go nodes -1 depth 2",
        "go time -100 increment 0",
        "go time abc",
        "go time 1e400",
        "go movetime 99999999999999999999999 depth 2",
        "go depth 99999999999999999999999 nodes 500",
        "go nodes 0",
        "go depth 2 wibble",
        "go movestogo 0 time 1 depth 2",
    ] {
        let (mv, line) = e.go(go);
        assert!(legal(&Position::startpos(), mv), "{go}: {line}");
    }
    assert!(e.errors() > errors + 8);
    e.send("quit");
    e.expect("bye");
}

#[test]
fn batch_mode_from_a_file() {
    let dir = std::env::temp_dir().join(format!("chuhe-batch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("input.txt");
    // In batch mode `stop` waits for the search (which finishes its depth)
    // and then meets an idle engine; the second go follows the first.
    std::fs::write(
        &file,
        "ucci\nsetoption batch true\nposition startpos\ngo depth 3\nstop\n\
         position startpos moves h2e2\ngo depth 2\nisready\n",
    )
    .expect("write input");
    let input = std::fs::File::open(&file).expect("open input");
    let mut e = Engine::start_with(Stdio::from(input));
    let (first, before) = e.until("bestmove");
    assert!(before.iter().any(|l| l.starts_with("info depth 3")));
    assert!(legal(
        &Position::startpos(),
        first.split(' ').nth(1).and_then(|m| m.parse().ok())
    ));
    e.expect("nobestmove");
    let (mv, _) = e.answer();
    assert!(legal(&start_after(&["h2e2"]), mv));
    e.expect("readyok");
    assert!(e.exits());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn go_perft_counts_like_the_perft_tool() {
    let mut e = Engine::uci();
    e.send("position startpos");
    e.send("go perft 3");
    let (total, divide) = e.until("nodes ");
    assert!(total.starts_with("nodes 79666 "), "{total}");
    assert_eq!(divide.len(), 44);
    e.send("isready");
    e.expect("readyok");
}

#[test]
fn draw_offers_are_accepted_only_when_drawn() {
    let mut e = Engine::ucci();
    e.send(&format!("position fen {KINGS}"));
    let (_, line) = e.go("go draw depth 2");
    assert!(line.ends_with(" draw"), "{line}");
    e.send("position startpos");
    let (_, line) = e.go("go draw depth 2");
    assert!(!line.contains("draw"), "{line}");
    // UCI has no draw offers.
    let mut e = Engine::uci();
    e.send(&format!("position fen {KINGS}"));
    let (_, line) = e.go("go draw depth 2");
    assert!(!line.contains("draw"), "{line}");
}

#[test]
fn resigns_only_after_several_lost_searches() {
    let mut e = Engine::ucci();
    e.send("setoption resignscore 300");
    e.send("setoption resignmoves 3");
    // Red has a king and an advisor against a full black army.
    e.send("position fen rnbakabnr/9/1c5c1/9/9/9/9/9/4A4/4K4 w - - 0 1");
    for _ in 0..2 {
        let (_, line) = e.go("go depth 2 time 60");
        assert!(!line.contains("resign"), "{line}");
    }
    let (_, line) = e.go("go depth 2 time 60");
    assert!(line.ends_with(" resign"), "{line}");
    // Analysis (no clock) never resigns.
    let (_, line) = e.go("go depth 2");
    assert!(!line.contains("resign"), "{line}");
}

/// `stop` brings a legal `bestmove` within a bound, whether it comes a few
/// milliseconds into the search or several iterations in. The bound is
/// generous for a small shared machine running other tests at once (the
/// engine takes a few milliseconds); the figures are printed (run with
/// --nocapture to see them).
#[test]
fn stop_latency_figures() {
    const BOUND: Duration = Duration::from_secs(1);
    let mut e = Engine::uci();
    e.send("position startpos");
    let mut times = Vec::new();
    for think_ms in [20, 100, 400].repeat(5) {
        e.send("go infinite");
        std::thread::sleep(Duration::from_millis(think_ms));
        let t = Instant::now();
        e.send("stop");
        let (mv, _) = e.answer();
        times.push(t.elapsed());
        assert!(legal(&Position::startpos(), mv));
    }
    times.sort();
    let (median, max) = (times[times.len() / 2], times[times.len() - 1]);
    eprintln!(
        "stop -> bestmove over {} runs: median {median:?}, max {max:?}",
        times.len()
    );
    assert!(max < BOUND, "bestmove {max:?} after stop; all: {times:?}");
}

#[test]
fn commands_sent_while_thinking_wait_their_turn() {
    let mut e = Engine::ucci();
    e.send("position startpos");
    e.send("go depth 3");
    e.send("position startpos moves h2e2");
    e.send("go depth 2");
    let (first, _) = e.answer();
    assert!(legal(&Position::startpos(), first));
    let (second, _) = e.answer();
    assert!(legal(&start_after(&["h2e2"]), second));
}

#[test]
fn ponderhit_with_a_draw_offer() {
    let mut e = Engine::ucci();
    e.send(&format!("position fen {KINGS}"));
    e.send("go ponder depth 2");
    e.quiet_for("bestmove", Duration::from_millis(100));
    e.send("ponderhit draw");
    let (mv, line) = e.answer();
    assert!(legal(&pos(KINGS, &[]), mv));
    assert!(line.ends_with(" draw"), "{line}");
}

#[test]
fn probe_reads_the_hash_table() {
    let mut e = Engine::ucci();
    // Nothing searched yet: a bare answer.
    e.send("probe startpos");
    assert_eq!(e.expect("pophash"), "pophash");
    e.send("position startpos");
    let (best, _) = e.go("go depth 6");
    let best = best.expect("a move");
    e.send("probe startpos");
    let line = e.expect("pophash");
    assert!(
        line.starts_with(&format!("pophash bestmove {best} ")),
        "{line}"
    );
    assert!(line.contains(" depth "), "{line}");
    // A position the search never reached, and a malformed one.
    e.send("probe fen 3k5/8R/9/9/9/9/9/9/9/4K4 b");
    assert_eq!(e.expect("pophash"), "pophash");
    e.send("probe fen nonsense");
    e.expect("info string error");
    e.send("isready");
    e.expect("readyok");
}

#[test]
fn debug_prints_the_pv_in_chinese_notation() {
    let mut e = Engine::ucci();
    e.send("setoption debug true");
    e.send("position startpos");
    e.send("go depth 3");
    let line = e.expect("info string pv ");
    let first = line
        .trim_start_matches("info string pv ")
        .split(' ')
        .next()
        .unwrap();
    // Red's move: a piece name, a Chinese file numeral, a direction, a target.
    assert_eq!(first.chars().count(), 4, "{line}");
    assert!(
        "车马炮相仕帅兵".contains(first.chars().next().unwrap()),
        "{line}"
    );
    e.expect("bestmove");
}

#[test]
fn evalfile_and_usennue_switch_the_evaluation_and_bad_files_are_refused() {
    let dir = std::env::temp_dir().join(format!("chuhe-evalfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let truncated = dir.join("short.nnue");
    let good = chuhe_core::nnue::default_network().unwrap().to_bytes();
    std::fs::write(&truncated, &good[..good.len() / 2]).unwrap();
    let copy = dir.join("copy.nnue");
    std::fs::write(&copy, &good).unwrap();

    for uci in [false, true] {
        let mut e = if uci { Engine::uci() } else { Engine::ucci() };
        let set = |name: &str, value: &str| {
            if uci {
                format!("setoption name {name} value {value}")
            } else {
                format!("setoption {name} {value}")
            }
        };
        let evalfile = if uci { "EvalFile" } else { "evalfile" };
        let usennue = if uci { "Use NNUE" } else { "usennue" };
        // A depth-limited search is deterministic: the same evaluation
        // gives the same node count.
        let newgame = if uci {
            "ucinewgame"
        } else {
            "setoption newgame"
        };
        let nodes = |e: &mut Engine| {
            e.send(newgame);
            e.send("position startpos");
            let (mv, _) = e.go("go depth 6");
            assert!(mv.is_some());
            let info = e
                .log
                .iter()
                .rev()
                .find(|l| l.starts_with("info depth 6"))
                .cloned()
                .expect("an info line at depth 6");
            let n = info
                .split_whitespace()
                .skip_while(|w| *w != "nodes")
                .nth(1)
                .unwrap();
            n.parse::<u64>().unwrap()
        };
        let net_nodes = nodes(&mut e);
        e.send(&set(evalfile, truncated.to_str().unwrap()));
        e.send("isready");
        let (_, lines) = e.until("readyok");
        assert!(
            lines
                .iter()
                .any(|l| l.contains("error") && l.contains("truncated")),
            "{lines:?}"
        );
        e.send(&set(evalfile, "/no/such/file.nnue"));
        e.send("isready");
        let (_, lines) = e.until("readyok");
        assert!(lines
            .iter()
            .any(|l| l.contains("error") && l.contains("/no/such/file.nnue")));
        // The network in use was kept.
        assert_eq!(nodes(&mut e), net_nodes);
        e.send(&set(evalfile, copy.to_str().unwrap()));
        assert_eq!(nodes(&mut e), net_nodes);
        e.send(&set(usennue, "false"));
        let hce_nodes = nodes(&mut e);
        assert_ne!(
            hce_nodes, net_nodes,
            "the hand-crafted evaluation searches another tree"
        );
        e.send(&set(usennue, "true"));
        assert_eq!(nodes(&mut e), net_nodes);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Resident memory of the engine process in kB (Linux), None elsewhere.
fn resident_kb(e: &Engine) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", e.child.id())).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The largest hash a GUI may ask for, on a machine with less memory than
/// that: `readyok` comes at once (a bound far above "at once", far below the
/// minutes that writing tens of gigabytes takes), the table is cut down with
/// a note, the process does not take the memory up front, and it still plays.
#[test]
fn huge_hash_then_isready_answers_at_once() {
    const BOUND: Duration = Duration::from_secs(15);
    for (hello, set) in [
        ("ucci", "setoption hashsize 65536"),
        ("uci", "setoption name Hash value 65536"),
    ] {
        let mut e = if hello == "ucci" {
            Engine::ucci()
        } else {
            Engine::uci()
        };
        let t = Instant::now();
        e.send(set);
        e.send("isready");
        let (_, before) = e.until("readyok");
        let took = t.elapsed();
        assert!(took < BOUND, "readyok after {took:?}");
        if let Some(kb) = resident_kb(&e) {
            assert!(kb < 1 << 20, "{kb} kB resident after the resize");
        }
        let small_machine = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|m| {
                let l = m.lines().find(|l| l.starts_with("MemTotal:"))?.to_string();
                l.split_whitespace().nth(1)?.parse::<u64>().ok()
            })
            .is_some_and(|kb| kb < 65536 * 1024);
        if small_machine {
            assert!(
                before
                    .iter()
                    .any(|l| l.starts_with("info string hash 65536 MB")),
                "{before:?}"
            );
        }
        // A new game on the huge table is as quick, and the engine still plays.
        e.send(if hello == "ucci" {
            "setoption newgame"
        } else {
            "ucinewgame"
        });
        e.send("isready");
        e.expect("readyok");
        e.send("position startpos");
        let (mv, _) = e.go("go depth 4");
        assert!(legal(&Position::startpos(), mv));
        assert!(t.elapsed() < BOUND * 2);
    }
}

/// Quit during a long perft and right after a huge hash request: the
/// process ends promptly either way.
#[test]
fn quit_during_long_commands() {
    let mut e = Engine::ucci();
    e.send("go perft 9");
    e.quiet_for("nodes", Duration::from_millis(200));
    e.send("quit");
    e.expect("bye");
    assert!(e.exits());

    let mut e = Engine::ucci();
    e.send("setoption hashsize 65536");
    e.send("setoption newgame");
    e.send("quit");
    e.expect("bye");
    assert!(e.exits());
}

/// A GUI that asks `isready` and quits at once still gets its `readyok`
/// (the worker is given a moment), then `bye`; in both protocols.
#[test]
fn isready_then_quit_answers_readyok() {
    for mut e in [Engine::ucci(), Engine::uci()] {
        e.send("isready\nquit");
        e.expect("readyok");
        assert!(e.exits());
    }
}

/// `stop` ends a `go perft`, which then prints no count, and the engine
/// carries on.
#[test]
fn stop_interrupts_go_perft() {
    let mut e = Engine::uci();
    e.send("position startpos");
    e.send("go perft 9");
    e.quiet_for("nodes", Duration::from_millis(200));
    e.send("stop");
    let (_, before) = e.until("info string perft stopped");
    assert!(!before.iter().any(|l| l.starts_with("nodes")), "{before:?}");
    e.send("isready");
    e.expect("readyok");
    let (mv, _) = e.go("go depth 2");
    assert!(legal(&Position::startpos(), mv));
}

/// A `stop` right behind its `go`, before the search can have started, is
/// never lost (each search has its own token, made when the go is accepted).
#[test]
fn stop_right_after_go_is_never_lost() {
    let mut e = Engine::uci();
    e.send("position startpos");
    for _ in 0..30 {
        e.send_bytes(b"go infinite\nstop\n");
        let (mv, _) = e.answer();
        assert!(legal(&Position::startpos(), mv));
    }
    let mut e = Engine::ucci();
    for _ in 0..10 {
        e.send_bytes(b"go ponder time 5000\nstop\n");
        e.answer();
    }
}

#[test]
fn stop_and_ponderhit_behind_a_waiting_go_are_for_that_go() {
    // A GUI that does not wait for `bestmove` after `stop`: the next `go`
    // waits its turn behind the running search, and the `stop` or
    // `ponderhit` sent after it belongs to it, not to the search still
    // running. Applied to the old search, the new one would never end.
    for (proto, second, signal) in [
        ("ucci", "go infinite", "stop"),
        ("uci", "go infinite", "stop"),
        ("ucci", "go ponder depth 3", "ponderhit"),
        ("uci", "go ponder depth 3", "ponderhit"),
    ] {
        let mut e = Engine::speaking(proto);
        e.send("position startpos");
        e.send("go infinite");
        e.expect("info depth 2");
        e.send_bytes(
            format!("stop\nposition startpos moves h2e2\n{second}\n{signal}\n").as_bytes(),
        );
        let (first, _) = e.answer();
        assert!(legal(&Position::startpos(), first), "{proto}");
        let (reply, _) = e.answer();
        assert!(legal(&start_after(&["h2e2"]), reply), "{proto} {second}");
        assert_eq!(e.errors(), 0, "{proto}: {:?}", e.log);
    }
}

/// Black has one legal move (Ke9-f9) and is then mated by the two rooks.
const ONE_MOVE_MATED: &str = "4k4/R8/9/9/9/9/9/9/4A4/3RK4 b - - 0 1";

/// The score lines of a search, as (depth, UCCI score).
fn depths_and_scores(lines: &[String]) -> Vec<(u32, i32)> {
    lines
        .iter()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let at = |k: &str| w.iter().position(|x| *x == k).and_then(|i| w.get(i + 1));
            let depth = at("depth")?.parse().ok()?;
            let score = at("score")?.parse().ok()?;
            Some((depth, score))
        })
        .collect()
}

/// With one legal move, an analysing `go` (movetime, infinite, depth) still
/// searches and finds the mate that follows; a `go` on the clock answers at
/// once.
#[test]
fn one_legal_move_is_still_analysed() {
    let p = Position::from_fen(ONE_MOVE_MATED).unwrap();
    assert_eq!(p.legal_moves().len(), 1);
    let mut e = Engine::ucci();
    e.send(&format!("position fen {ONE_MOVE_MATED}"));
    for go in ["go movetime 300", "go infinite", "go depth 8"] {
        e.log.clear();
        e.send(go);
        if go == "go infinite" {
            e.quiet_for("bestmove", Duration::from_millis(300));
            e.send("stop");
        }
        let (mv, _) = e.answer();
        assert!(legal(&p, mv));
        let found = depths_and_scores(&e.log);
        let (depth, score) = *found.last().expect("info lines");
        assert!(depth >= 3, "{go}: {:?}", e.log);
        assert!(score <= -29000, "{go}: the mate is not seen: {:?}", e.log);
    }
    e.log.clear();
    let (mv, _) = e.go("go time 60000 increment 0");
    assert!(legal(&p, mv));
    assert!(
        depths_and_scores(&e.log).iter().all(|&(d, _)| d <= 1),
        "{:?}",
        e.log
    );
}

/// ElephantEye's league runner (UCCILEAG 3.8), line for line as its log
/// showed it in a game against ElephantEye at 20 s + 0.333 s: no `isready`,
/// `newgame` before `usemillisec`, the FEN after the last capture with
/// ` - - 0 1` appended even to a FEN that already has its counters, clocks in
/// ms, and its clock running from the `position` line. The runner sends
/// `stop` when the clock is spent and forfeits the engine 200 ms later.
#[test]
fn league_runner_session_replayed() {
    let mut e = Engine::start();
    e.send("ucci");
    let (_, hello) = e.until("ucciok");
    // The runner switches to milliseconds only if it sees this line.
    assert!(hello.iter().any(|l| l.starts_with("option usemillisec ")));
    for line in [
        "setoption promotion false",
        "setoption ponder false",
        "setoption newgame",
        "setoption usemillisec true",
    ] {
        e.send(line);
    }
    let opening = "r1bakabr1/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKABR1 w - - 6 4";
    let late = "2r1k4/9/9/6R1P/9/9/r2p1c3/4B4/9/3RKAB2 b - - 0 1";
    let late_moves = "f3e3 e2g4 c9c3 d0b0 c3b3 b0c0 b3c3 c0b0 a3b3 b0a0 b3a3 a0b0 c3b3";
    // (FEN, moves, banmoves, clock of the side to move in ms, go line).
    let turns = [
        (
            opening,
            "",
            "",
            19980,
            "go time 19980 increment 333 opptime 19980 oppincrement 333",
        ),
        (
            opening,
            "h0h6 c6c5 b2b4 c9e7",
            "",
            18785,
            "go time 18785 increment 333 opptime 19231 oppincrement 333",
        ),
        (
            "1r1akabr1/9/1c2b1nc1/p3p1R1p/1np6/C5p2/P1P1P3P/2N1C1N2/9/R1BAKAB2 w - - 0 1",
            "",
            "",
            13450,
            "go time 13450 increment 333 opptime 18153 oppincrement 333",
        ),
        (
            "1r1akabr1/7c1/1c2b1n2/p3p3p/1np6/C3P1R2/P1P5P/2N1C1N2/9/R1BAKAB2 b - - 0 1",
            "d9e8",
            "",
            12711,
            "go time 12711 increment 333 opptime 16009 oppincrement 333",
        ),
        (
            late,
            late_moves,
            "",
            2151,
            "go time 2151 increment 333 opptime 2586 oppincrement 333",
        ),
        (
            late,
            late_moves,
            "b0c0",
            2151,
            "go time 2151 increment 333 opptime 2586 oppincrement 333",
        ),
    ];
    for (fen, moves, ban, clock, go) in turns {
        let mut line = format!("position fen {fen} - - 0 1");
        if !moves.is_empty() {
            line.push_str(&format!(" moves {moves}"));
        }
        let start = Instant::now();
        e.send(&line);
        if !ban.is_empty() {
            e.send(&format!("banmoves {ban}"));
        }
        let searched_from = e.log.len();
        let (mv, answer) = e.go(go);
        let used = start.elapsed();
        let moves: Vec<&str> = moves.split_whitespace().collect();
        let p = pos(fen, &moves);
        assert!(legal(&p, mv), "{answer} after {line}");
        assert_ne!(mv.map(|m| m.to_string()), Some(ban.to_string()), "{answer}");
        assert!(
            e.log[searched_from..]
                .iter()
                .any(|l| l.starts_with("info depth")),
            "no search reported for {line}"
        );
        // Inside the clock, and inside what the time manager allows itself
        // (at most half of what is left), with room for a loaded machine.
        let clock = Duration::from_millis(clock);
        assert!(used < clock, "{used:?} of a {clock:?} clock: {line}");
        assert!(
            used <= clock / 2 + Duration::from_millis(250),
            "{used:?} of a {clock:?} clock: {line}"
        );
    }
    assert_eq!(e.errors(), 0, "{:?}", e.log);
    e.send("quit");
    e.expect("bye");
    assert!(e.exits());
}

#[test]
fn multipv_reports_that_many_lines_in_both_protocols() {
    for (hello, ok, set) in [
        ("uci", "uciok", "setoption name MultiPV value 3"),
        ("ucci", "ucciok", "setoption multipv 3"),
    ] {
        let mut e = Engine::start();
        e.send(hello);
        let (_, options) = e.until(ok);
        assert!(
            options
                .iter()
                .any(|l| l.contains("MultiPV") || l.contains("multipv")),
            "{options:?}"
        );
        e.send(set);
        e.send("position startpos");
        let (mv, _) = e.go("go depth 6");
        let last: Vec<&String> = e
            .log
            .iter()
            .filter(|l| l.starts_with("info depth 6 "))
            .collect();
        assert_eq!(last.len(), 3, "{last:?}");
        let mut firsts = Vec::new();
        for (i, l) in last.iter().enumerate() {
            assert!(l.contains(&format!(" multipv {} ", i + 1)), "{l}");
            let first = l.split(" pv ").nth(1).and_then(|p| p.split(' ').next());
            firsts.push(first.expect("a pv").to_string());
        }
        assert_eq!(
            mv.map(|m| m.to_string()).as_deref(),
            Some(firsts[0].as_str())
        );
        firsts.sort();
        firsts.dedup();
        assert_eq!(firsts.len(), 3, "three different moves: {last:?}");
        let errors = e.errors();
        assert_eq!(errors, 0, "{:?}", e.log);
        e.send("quit");
        assert!(e.exits());
    }
}

#[test]
fn show_wdl_adds_odds_that_follow_the_score() {
    for (hello, ok, set) in [
        ("uci", "uciok", "setoption name UCI_ShowWDL value true"),
        ("ucci", "ucciok", "setoption showwdl true"),
    ] {
        let mut e = Engine::start();
        e.send(hello);
        let (_, options) = e.until(ok);
        assert!(options
            .iter()
            .any(|l| l.contains("UCI_ShowWDL") || l.contains("showwdl")));
        // Off by default: no wdl.
        e.send("position startpos");
        e.go("go depth 4");
        assert!(!e.log.iter().any(|l| l.contains(" wdl ")), "{:?}", e.log);
        e.send(set);
        // A rook up: the odds must favour the side to move.
        e.send("position fen 3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1");
        e.go("go depth 6");
        let lines: Vec<&String> = e.log.iter().filter(|l| l.contains(" wdl ")).collect();
        assert!(!lines.is_empty(), "{:?}", e.log);
        for l in lines {
            let words: Vec<&str> = l.split_whitespace().collect();
            let at = words.iter().position(|w| *w == "wdl").unwrap();
            let wdl: Vec<u32> = words[at + 1..at + 4]
                .iter()
                .map(|w| w.parse().unwrap())
                .collect();
            assert_eq!(wdl.iter().sum::<u32>(), 1000, "{l}");
            assert!(wdl[0] > wdl[2], "a rook up wins more than it loses: {l}");
            assert!(words[at - 2] == "score" || words[at - 3] == "score", "{l}");
        }
        assert_eq!(e.errors(), 0, "{:?}", e.log);
        e.send("quit");
        assert!(e.exits());
    }
}

#[test]
fn skill_level_and_elo_limit_the_search_and_play_legal_moves() {
    let mut e = Engine::uci();
    let options = e.log.clone();
    for name in ["Skill Level", "UCI_LimitStrength", "UCI_Elo"] {
        assert!(
            options
                .iter()
                .any(|l| l.contains(&format!("name {name} type"))),
            "{name}"
        );
    }
    e.send("setoption name Skill Level value 2");
    e.send("position startpos moves h2e2 h9g7");
    let (mv, _) = e.go("go depth 30");
    assert!(legal(&start_after(&["h2e2", "h9g7"]), mv));
    // A node budget, not the depth asked for, ends a low level's search;
    // and the GUI sees one line although the level searched several.
    let infos: Vec<&String> = e
        .log
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .collect();
    let nodes = |l: &str| -> u64 {
        let w: Vec<&str> = l.split_whitespace().collect();
        let at = w.iter().position(|x| *x == "nodes").unwrap();
        w[at + 1].parse().unwrap()
    };
    assert!(infos.iter().all(|l| nodes(l) < 20_000), "{infos:?}");
    assert!(!infos.iter().any(|l| l.contains("multipv 2")), "{infos:?}");
    // UCI_Elo counts only with UCI_LimitStrength; out of range is clamped
    // with a note, which is no error (issue 50).
    e.send("setoption name Skill Level value 20");
    e.send("setoption name UCI_Elo value 5");
    e.send("isready");
    e.expect("readyok");
    assert_eq!(e.errors(), 0, "{:?}", e.log);
    assert!(e
        .log
        .iter()
        .any(|l| l.starts_with("info string option UCI_Elo 5 is outside")
            && l.contains("clamped to")));
    e.send("setoption name UCI_LimitStrength value true");
    e.send("position startpos");
    let (mv, _) = e.go("go depth 30");
    assert!(legal(&Position::startpos(), mv));
    e.send("quit");
    assert!(e.exits());
}

#[test]
fn d_shows_the_board_and_eval_takes_the_evaluation_apart() {
    let mut e = Engine::ucci();
    e.send("position startpos moves h2e2");
    e.send("d");
    let fen = start_after(&["h2e2"]).fen();
    let (_, shown) = e.until(&format!("Fen: {fen}"));
    assert!(
        shown
            .iter()
            .any(|l| l.starts_with(" 2 | . C . . C . . . . |")),
        "{shown:?}"
    );
    let key = format!("Key: {:016X}", start_after(&["h2e2"]).key());
    e.expect(&key);
    e.expect("Checkers: none");
    e.send("eval");
    let (_, table) = e.until("Hand-crafted evaluation:");
    assert!(
        table.iter().any(|l| l.starts_with(" 0 |  R   |")),
        "{table:?}"
    );
    assert!(
        table
            .iter()
            .any(|l| l.starts_with("Network evaluation:") && l.ends_with("(in use)")),
        "{table:?}"
    );
    // With the hand-crafted evaluation playing, that one is marked.
    e.send("setoption usennue false");
    e.send("eval");
    let (hce, again) = e.until("Hand-crafted evaluation:");
    assert!(hce.ends_with("(in use)"), "{hce}");
    assert!(!again.last().unwrap().ends_with("(in use)"), "{again:?}");
    assert_eq!(e.errors(), 0, "{:?}", e.log);
    e.send("quit");
    assert!(e.exits());
}

/// An unknown command is quoted back escaped and cut short: escape
/// sequences and NULs never reach the GUI raw (issue 50).
#[test]
fn unknown_commands_are_quoted_safely() {
    let mut e = Engine::ucci();
    let mut line = b"frob\x1b[2J\x00\x07".to_vec();
    line.extend([b'y'; 500]);
    line.push(b'\n');
    e.send_bytes(&line);
    let said = e.expect("info string error: unknown command");
    assert!(said.contains("frob\\x1b[2J\\x00\\x07"), "{said:?}");
    assert!(!said.bytes().any(|b| b < 0x20), "{said:?}");
    assert!(said.len() < 120, "{said:?}");
    let mut x = Engine::start();
    x.send("xboard");
    x.send_bytes(b"bogus\x1b]0;title\x07\n");
    let said = x.expect("Error (unknown command)");
    assert!(!said.bytes().any(|b| b < 0x20), "{said:?}");
}

/// `quit` during a search ends it with its `bestmove` first (as ElephantEye
/// and Stockfish do), in both dialects; UCCI then says `bye` (issue 50).
#[test]
fn quit_ends_a_running_search_with_its_bestmove() {
    for (proto, go) in [
        ("ucci", "go depth 6"),
        ("uci", "go depth 6"),
        ("ucci", "go infinite"),
        ("uci", "go ponder"),
    ] {
        let mut e = Engine::speaking(proto);
        e.send("position startpos");
        e.send(go);
        e.send("quit");
        let (mv, _) = e.answer();
        assert!(legal(&Position::startpos(), mv), "{proto} {go}");
        if proto == "ucci" {
            e.expect("bye");
        }
        assert!(e.exits(), "{proto} {go}");
    }
    // A `go` still waiting behind the running one is answered too, at once.
    let mut e = Engine::uci();
    e.send("position startpos");
    e.send("go depth 30");
    e.send("go depth 30");
    e.send("isready");
    e.expect("readyok");
    e.send("quit");
    let t = Instant::now();
    assert!(e.answer().0.is_some());
    assert!(e.answer().0.is_some());
    assert!(e.exits());
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
}

/// Issue 50: errors name options as the dialect in use does, a clamped
/// value is a note and no error, and `help` answers before and after a
/// protocol is chosen.
#[test]
fn option_messages_speak_the_dialect_and_help_answers() {
    let mut e = Engine::uci();
    e.send("setoption name Hash value lots");
    e.send("setoption name Hash value 1000000");
    e.send("isready");
    let (_, said) = e.until("readyok");
    assert!(
        said.iter()
            .any(|l| l == "info string error: option Hash takes a whole number, not 'lots'"),
        "{said:?}"
    );
    assert!(
        said.iter().any(
            |l| l.starts_with("info string option Hash 1000000 is outside 1..")
                && l.contains("clamped to")
        ),
        "{said:?}"
    );
    assert!(!said.iter().any(|l| l.contains("hashsize")), "{said:?}");
    assert_eq!(e.errors(), 1, "{said:?}");
    e.send("help");
    e.expect("info string UCI commands");
    let mut e = Engine::ucci();
    e.send("setoption name Hash value lots");
    e.expect("info string error: option hashsize takes a whole number");
    let mut e = Engine::start();
    e.send("help");
    e.expect("info string Chuhe speaks UCCI, UCI and CECP");
    e.send("ucci");
    e.expect("ucciok");
    e.send("help");
    e.expect("info string UCCI commands");
}
