//! CECP (XBoard protocol 2) as XBoard speaks it: scripted sessions against
//! the built binary over pipes. The command sequences follow real XBoard
//! 4.9.1 debug logs (tests/gui/xboard.sh drives the real XBoard).

use chuhe_core::board::{Move, Position, START_FEN};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

#[path = "support/engine.rs"]
mod engine;
#[path = "support/piped.rs"]
mod piped;

use engine::Engine;

/// Red mates with i1i9 or i1d1 (the rook on h8 covers the king's one
/// flight; the pawn keeps a waiting move from stalemating Black).
const MATE_IN_ONE: &str = "3k5/7R1/9/p8/9/9/9/9/8R/4K4 w - - 0 1";
/// Red stalemates Black, which loses, with i7i8.
const STALEMATE_IN_ONE: &str = "3k5/9/8R/9/9/9/9/9/9/4K4 w - - 0 1";
/// Red checks with the rook up and down the i-file; Black's king shuttles.
const PERPETUAL: &str = "3k5/8R/9/9/9/9/9/9/9/4K4 w - - 0 1";
/// Seven plies of the cycle: Black's d8d9 makes the third occurrence.
const CYCLE: [&str; 7] = ["i8i9", "d9d8", "i9i8", "d8d9", "i8i9", "d9d8", "i9i8"];

static PINGS: AtomicU32 = AtomicU32::new(1);

impl Engine {
    /// An engine after XBoard's handshake.
    fn xboard() -> Engine {
        let mut e = Engine::start();
        e.send("xboard");
        e.send("protover 2");
        e.expect("feature done=1");
        e
    }

    /// `ping N` and its `pong N`; returns the lines before the pong.
    fn sync(&mut self) -> Vec<String> {
        let n = PINGS.fetch_add(1, Ordering::Relaxed);
        self.send(&format!("ping {n}"));
        self.until(&format!("pong {n}")).1
    }

    /// Waits for the engine's `move`; returns it.
    fn engine_move(&mut self) -> Move {
        let (line, _) = self.until("move ");
        line["move ".len()..]
            .parse()
            .unwrap_or_else(|_| panic!("bad move line '{line}'"))
    }

    /// After a command that restarts the analysis from `root`: syncs, and
    /// returns the new analysis's lines so far (at least one). Some may come
    /// before the pong, and a small search can even end before it, so those
    /// count too; lines of the stopped search can only come before the
    /// first new one.
    fn analysis_restarted(&mut self, root: &Position) -> Vec<String> {
        let before = self.sync();
        let mut lines: Vec<String> = before
            .into_iter()
            .skip_while(|l| !thinking_line(l, root))
            .collect();
        assert!(lines.iter().all(|l| thinking_line(l, root)), "{lines:?}");
        if lines.is_empty() {
            lines.push(self.thinking_from(root));
        }
        lines
    }

    /// Waits for the next thinking line; it must read from `root`.
    fn thinking_from(&mut self, root: &Position) -> String {
        let (line, _) = self.until("");
        assert!(thinking_line(&line, root), "'{line}' from {}", root.fen());
        line
    }

    fn sends(&mut self, lines: &[&str]) {
        for l in lines {
            self.send(l);
        }
    }
}

fn position(fen: &str, moves: &[&str]) -> Position {
    let mut p = Position::from_fen(fen).expect("test FEN");
    for m in moves {
        p.make_move(m.parse().expect("test move"));
    }
    p
}

/// `ply score time nodes seldepth nps tbhits<TAB>pv`, the PV legal from `root`.
fn thinking_line(line: &str, root: &Position) -> bool {
    let Some((numbers, pv)) = line.split_once('\t') else {
        return false;
    };
    let numbers: Vec<&str> = numbers.split_whitespace().collect();
    if numbers.len() != 7 || !numbers.iter().all(|n| n.parse::<i64>().is_ok()) {
        return false;
    }
    let mut p = root.clone();
    pv.split_whitespace().all(|m| match m.parse::<Move>() {
        Ok(mv) if p.is_legal(mv) => {
            p.make_move(mv);
            true
        }
        _ => false,
    })
}

#[test]
fn features_are_announced_then_done() {
    let mut e = Engine::start();
    e.send("xboard");
    e.send("protover 2");
    let (_, lines) = e.until("feature done=1");
    assert!(lines.iter().all(|l| l.starts_with("feature ")), "{lines:?}");
    let first = &lines[0];
    for f in [
        "myname=\"Chuhe ",
        "variants=\"xiangqi\"",
        "setboard=1",
        "usermove=1",
        "ping=1",
        "analyze=1",
        "colors=0",
        "sigint=0",
        "sigterm=0",
        "memory=1",
        "smp=1",
        "san=0",
        "time=1",
        "draw=1",
        "reuse=1",
        "debug=1",
    ] {
        assert!(first.contains(f), "{f} missing from {first}");
    }
    for opt in [
        "feature option=\"Move Overhead -spin 30 0 5000\"",
        "feature option=\"EvalFile -file <embedded>\"",
        "feature option=\"Use NNUE -check 1\"",
        "feature option=\"OwnBook -check 0\"",
        "feature option=\"Clear Hash -button\"",
    ] {
        assert!(lines.iter().any(|l| l == opt), "{opt} missing");
    }
    // What XBoard sends next, accepted silently.
    e.sends(&[
        "accepted setboard",
        "accepted usermove",
        "accepted done",
        "memory 16",
        "cores 1",
        "new",
        "random",
        "variant xiangqi",
        "level 40 5 0",
        "post",
        "hard",
        "easy",
    ]);
    assert_eq!(e.sync(), Vec::<String>::new());
}

#[test]
fn the_engine_answers_on_its_own_turn() {
    let mut e = Engine::xboard();
    e.sends(&["new", "variant xiangqi", "level 0 0:05 0", "post", "sd 4"]);
    let mut moves: Vec<String> = Vec::new();
    for _ in 0..3 {
        let pos = position(
            START_FEN,
            &moves.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
        );
        let ours = pos.legal_moves()[0];
        e.send("time 500");
        e.send("otim 500");
        e.send(&format!("usermove {ours}"));
        moves.push(ours.to_string());
        let (line, before) = e.until("move ");
        let theirs: Move = line[5..].parse().unwrap();
        let root = position(
            START_FEN,
            &moves.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
        );
        assert!(root.is_legal(theirs), "{line} after {moves:?}");
        let thinking: Vec<&String> = before.iter().filter(|l| l.contains('\t')).collect();
        assert!(!thinking.is_empty(), "post shows thinking");
        for l in thinking {
            assert!(thinking_line(l, &root), "bad thinking line '{l}'");
        }
        moves.push(theirs.to_string());
    }
    // `go` makes the engine play the side to move, here Red.
    e.sends(&["new", "sd 3", "go"]);
    let mv = e.engine_move();
    assert!(Position::startpos().is_legal(mv));
}

#[test]
fn force_mode_plays_nothing_until_go() {
    let mut e = Engine::xboard();
    e.sends(&["new", "force", "usermove h2e2", "usermove h9g7", "sd 3"]);
    e.quiet_for("move", Duration::from_millis(300));
    e.send("go");
    let mv = e.engine_move();
    assert!(position(START_FEN, &["h2e2", "h9g7"]).is_legal(mv));
    // The engine now plays Red: Black's move gets an answer.
    let after = position(START_FEN, &["h2e2", "h9g7", &mv.to_string()]);
    let reply = after.legal_moves()[0];
    e.send(&format!("usermove {reply}"));
    let mv2 = e.engine_move();
    let root = position(
        START_FEN,
        &["h2e2", "h9g7", &mv.to_string(), &reply.to_string()],
    );
    assert!(root.is_legal(mv2));
}

#[test]
fn undo_and_remove_take_moves_back() {
    let mut e = Engine::xboard();
    e.sends(&["new", "force", "undo"]);
    let (err, _) = e.until("Error");
    assert!(err.ends_with(": undo"), "{err}");
    e.sends(&["usermove h2e2", "usermove h9g7", "usermove b0c2", "undo"]);
    // b0 is free again only if b0c2 was taken back.
    e.send("usermove b0a2");
    e.send("undo");
    e.sends(&["usermove b0c2", "usermove b9c7", "remove"]);
    e.send("usermove b0a2");
    let lines = e.sync();
    assert!(lines.is_empty(), "{lines:?}");
    e.sends(&["sd 2", "go"]);
    let mv = e.engine_move();
    assert!(position(START_FEN, &["h2e2", "h9g7", "b0a2"]).is_legal(mv));
}

#[test]
fn setboard_takes_xboard_fens() {
    let mut e = Engine::xboard();
    // As XBoard sends them: H and E, no castling or en-passant fields.
    let fen = "rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RHEAKAEHR b 0 1";
    e.sends(&["new", "force", &format!("setboard {fen}"), "sd 2", "go"]);
    let mv = e.engine_move();
    let root = Position::from_fen(fen).unwrap();
    assert_eq!(root.key(), position(START_FEN, &["h2e2"]).key());
    assert!(root.is_legal(mv));
    let fen = "rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w - - 0 1";
    e.sends(&["force", &format!("setboard {fen}"), "go"]);
    assert!(Position::startpos().is_legal(e.engine_move()));
    // A position that cannot be is refused and the last one kept: Black,
    // after the engine's move, may answer it.
    e.sends(&["force", "setboard rheakaehr/9/9 w"]);
    let (err, _) = e.until("Error");
    assert!(err.starts_with("Error (illegal position"), "{err}");
    e.send("usermove h9g7");
    assert!(e.sync().is_empty());
}

#[test]
fn time_controls_bound_the_search() {
    let mut e = Engine::xboard();
    // sd: no iteration past depth 3.
    e.sends(&["new", "force", "post", "sd 3", "go"]);
    let (_, before) = e.until("move ");
    let depths: Vec<u32> = before
        .iter()
        .filter(|l| l.contains('\t'))
        .map(|l| l.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert!(
        !depths.is_empty() && depths.iter().all(|&d| d <= 3),
        "{depths:?}"
    );
    // st: at most so long a move, with our overhead kept.
    e.sends(&["new", "force", "nopost", "st 0.4"]);
    e.sync();
    let t0 = Instant::now();
    e.send("go");
    e.engine_move();
    let took = t0.elapsed();
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    // level with the clocks: 0.3 s left is a quick move.
    e.sends(&["new", "force", "level 0 0:02 0", "time 30", "otim 3000"]);
    e.sync();
    let t0 = Instant::now();
    e.send("go");
    e.engine_move();
    assert!(t0.elapsed() < Duration::from_secs(3), "{:?}", t0.elapsed());
    // Conventional control, minutes:seconds and a decimal increment.
    for level in ["level 40 5 0", "level 0 0:30 0.2", "level 40 25+5 0"] {
        e.send(level);
    }
    for bad in ["level 40 5", "level x 5 0", "st 0", "sd deep", "time soon"] {
        e.send(bad);
        let (err, _) = e.until("Error");
        assert!(err.ends_with(bad), "{err} for {bad}");
    }
}

#[test]
fn pong_follows_everything_sent_before_it() {
    let mut e = Engine::xboard();
    // While thinking on its move, after the move.
    e.sends(&["new", "force", "st 0.5", "go", "ping 99"]);
    let (_, before) = e.until("pong 99");
    assert!(before.iter().any(|l| l.starts_with("move ")), "{before:?}");
    // After a new game (the table is cleared first).
    e.sends(&["memory 32", "new", "ping 100"]);
    e.expect("pong 100");
    // While analysing: at once.
    e.sends(&["analyze", "ping 101"]);
    e.expect("pong 101");
    e.send("exit");
    e.sync();
}

#[test]
fn pongs_keep_their_order_when_commands_come_at_once() {
    // XBoard ignores a move that comes while a ping is unanswered, and the
    // last pong it reads is the one it takes for the answer.
    let mut e = Engine::xboard();
    e.send("new\nping 1\nmemory 16\nping 2\nanalyze\nping 3\nexit\nnew\nping 4\nsd 1\ngo\nping 5");
    let (_, before) = e.until("pong 5");
    let order: Vec<&str> = before
        .iter()
        .filter(|l| l.starts_with("pong") || l.starts_with("move"))
        .map(|l| l.as_str())
        .collect();
    assert_eq!(
        order[..4],
        ["pong 1", "pong 2", "pong 3", "pong 4"],
        "{before:?}"
    );
    assert!(order[4].starts_with("move "), "{before:?}");
}

#[test]
fn analyze_mode_follows_the_game() {
    let mut e = Engine::xboard();
    e.sends(&["new", "post", "analyze"]);
    let start = Position::startpos();
    e.thinking_from(&start);
    e.thinking_from(&start);
    e.send(".");
    let (stat, before) = e.until("stat01: ");
    assert!(
        before
            .iter()
            .filter(|l| l.contains('\t'))
            .all(|l| thinking_line(l, &start)),
        "{before:?}"
    );
    let fields: Vec<u64> = stat["stat01: ".len()..]
        .split(' ')
        .map(|n| n.parse().unwrap())
        .collect();
    assert_eq!(fields.len(), 5, "{stat}");
    assert!(fields[2] >= 1, "a finished iteration: {stat}");
    assert_eq!(fields[4], 44, "44 legal moves at the start: {stat}");
    e.send("hint");
    let hint = e.expect("Hint: ");
    assert!(start.is_legal(hint[6..].parse().unwrap()));
    // A move: the analysis starts again, from the new position, and the
    // old one says nothing more.
    e.send("usermove h2e2");
    let after = position(START_FEN, &["h2e2"]);
    e.analysis_restarted(&after);
    // undo and setboard restart it too.
    e.send("undo");
    e.analysis_restarted(&start);
    e.send(&format!("setboard {MATE_IN_ONE}"));
    let mate = Position::from_fen(MATE_IN_ONE).unwrap();
    let mated = |l: &String| l.split(' ').nth(1) == Some("100001");
    if !e.analysis_restarted(&mate).iter().any(mated) {
        while !mated(&e.thinking_from(&mate)) {}
    }
    // exit ends it; out of analyze mode the engine plays nothing itself.
    e.send("exit");
    e.sync();
    e.quiet_for("", Duration::from_millis(300));
    e.send("usermove i1i9");
    e.quiet_for("move", Duration::from_millis(200));
}

#[test]
fn bad_input_changes_nothing() {
    let mut e = Engine::xboard();
    e.sends(&["new", "force", "usermove h2e2"]);
    let cases = [
        (
            "usermove a9a5",
            "Illegal move (the piece cannot move so): a9a5",
        ),
        ("usermove e5e4", "Illegal move (no piece on e5): e5e4"),
        ("usermove a0a1", "Illegal move (Black is to move): a0a1"),
        ("usermove z9z9", "Illegal move (not a move like h2e2): z9z9"),
        ("frobnicate 3", "Error (unknown command): frobnicate 3"),
        ("edit", "Error (unknown command): edit"),
        ("variant shogi", "Error (unsupported variant): shogi"),
        ("sd 1 2", "Error (too many parameters): sd 1 2"),
        ("ping", "Error (argument missing): ping"),
        ("memory lots", "Error (not a whole number): memory lots"),
        (
            "option Nosuch=1",
            "Error (unknown option 'Nosuch' ignored): option Nosuch=1",
        ),
        (
            "setboard 9/9 w",
            "Error (illegal position: the board has 2 ranks, expected 10): setboard 9/9 w",
        ),
    ];
    for (line, reply) in cases {
        e.send(line);
        let lines = e.sync();
        assert_eq!(lines, vec![reply.to_string()], "for '{line}'");
    }
    // Bytes that are no text are read as text, refused all the same.
    e.send_bytes(b"us\xffermove\n\n   \n");
    e.until("Error (unknown command)");
    e.sends(&["usermove h9g7", "sd 2", "go"]);
    let mv = e.engine_move();
    assert!(position(START_FEN, &["h2e2", "h9g7"]).is_legal(mv));
}

#[test]
fn the_king_may_not_be_left_in_check() {
    let mut e = Engine::xboard();
    // Black's king on d9 is checked along the rank by the rook on i9.
    e.sends(&[
        "new",
        "force",
        &format!("setboard {PERPETUAL}"),
        "usermove i8i9",
    ]);
    e.send("usermove d9e9");
    let lines = e.sync();
    assert_eq!(
        lines,
        vec!["Illegal move (the king would be in check): d9e9".to_string()]
    );
}

#[test]
fn the_engine_claims_mate_and_stalemate() {
    let mut e = Engine::xboard();
    // Its own mating move, then the result.
    e.sends(&[
        "new",
        "force",
        &format!("setboard {MATE_IN_ONE}"),
        "sd 3",
        "go",
    ]);
    let mv = e.engine_move();
    assert!(Position::from_fen(MATE_IN_ONE).unwrap().is_legal(mv));
    e.expect("1-0 {Red mates}");
    // Mated by the opponent's move: the claim instead of a move.
    e.sends(&["new", &format!("setboard {MATE_IN_ONE}"), "usermove i1i9"]);
    let (claim, before) = e.until("1-0");
    assert_eq!(claim, "1-0 {Red mates}");
    assert!(!before.iter().any(|l| l.starts_with("move")));
    // Stalemated: a loss in xiangqi.
    e.sends(&[
        "new",
        &format!("setboard {STALEMATE_IN_ONE}"),
        "usermove i7i8",
    ]);
    e.expect("1-0 {Black is stalemated and loses}");
    // The game is over for the engine: a `go` in a finished game claims
    // again, a legal-looking move is refused (Black has none).
    e.send("go");
    e.expect("1-0 {Black is stalemated and loses}");
    e.quiet_for("move", Duration::from_millis(200));
}

#[test]
fn perpetual_check_is_claimed_by_the_chinese_rules() {
    // Black's king completes the third occurrence: Red, who checked every
    // move, loses.
    let mut e = Engine::xboard();
    e.sends(&["new", "force", &format!("setboard {PERPETUAL}")]);
    for m in CYCLE {
        e.send(&format!("usermove {m}"));
    }
    e.sends(&["sd 4", "go"]);
    assert_eq!(e.engine_move().to_string(), "d8d9");
    e.expect("0-1 {Red loses by perpetual check}");

    // The engine checked and the opponent's move completes the cycle: the
    // engine claims its own loss, in an engine-engine game too.
    let mut e = Engine::xboard();
    e.sends(&["new", "force", &format!("setboard {PERPETUAL}")]);
    for m in CYCLE {
        e.send(&format!("usermove {m}"));
    }
    e.sends(&["playother", "computer", "usermove d8d9"]);
    let (claim, before) = e.until("0-1");
    assert_eq!(claim, "0-1 {Red loses by perpetual check}");
    assert!(!before.iter().any(|l| l.starts_with("move")));
}

/// Red chases Black's loose cannon with its rook; Black's cannon shuttles.
const CHASE: &str = "4k3r/9/1c7/9/7R1/9/9/9/9/3K5 w - - 0 1";
/// Two rounds of the chase: the position stands for the third time, Red to
/// move, and Red must vary (24.3): h5h7 again would lose.
const CHASE_TWICE: [&str; 8] = [
    "h5h7", "b7b5", "h7h5", "b5b7", "h5h7", "b7b5", "h7h5", "b5b7",
];

#[test]
fn a_perpetual_chase_must_vary_before_it_loses() {
    // The engine is the chaser: it varies rather than claim its own loss.
    let mut e = Engine::xboard();
    e.sends(&["new", "force", &format!("setboard {CHASE}")]);
    for m in CHASE_TWICE {
        e.send(&format!("usermove {m}"));
    }
    e.sends(&["sd 4", "go"]);
    let (line, before) = e.until("move ");
    assert_ne!(line, "move h5h7", "{before:?}");
    assert!(!before.iter().any(|l| l.starts_with("0-1")), "{before:?}");

    // The person is the chaser: varying plays on, chasing again loses.
    for (mv, loses) in [("h5h4", false), ("h5h7", true)] {
        let mut e = Engine::xboard();
        e.sends(&["new", "force", &format!("setboard {CHASE}")]);
        for m in CHASE_TWICE {
            e.send(&format!("usermove {m}"));
        }
        e.sends(&["sd 4", "playother", &format!("usermove {mv}")]);
        let lines = e.sync();
        let claimed = lines
            .iter()
            .any(|l| l == "0-1 {Red loses by perpetual chase}");
        assert_eq!(claimed, loses, "{mv}: {lines:?}");
        if !loses && !lines.iter().any(|l| l.starts_with("move ")) {
            e.engine_move();
        }
    }
}

#[test]
fn in_engine_games_only_claims_xboard_confirms_are_made() {
    // XBoard tests claims when the opponent is an engine (`computer`) and
    // does not know this rule: a claimed win would forfeit the game.
    let mut e = Engine::xboard();
    e.sends(&["new", "computer", "force", &format!("setboard {PERPETUAL}")]);
    for m in CYCLE {
        e.send(&format!("usermove {m}"));
    }
    e.sends(&["sd 4", "go"]);
    assert_eq!(e.engine_move().to_string(), "d8d9");
    let lines = e.sync();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("# by the Chinese rules: 0-1 {Red loses by perpetual check}")),
        "{lines:?}"
    );
    assert!(!lines.iter().any(|l| l.starts_with("0-1")), "{lines:?}");
    // The engine plays on.
    e.send("usermove i8i9");
    let mv = e.engine_move();
    let mut moves: Vec<&str> = CYCLE.to_vec();
    moves.extend(["d8d9", "i8i9"]);
    assert!(position(PERPETUAL, &moves).is_legal(mv));
}

#[test]
fn move_now_and_result_end_the_thinking() {
    let mut e = Engine::xboard();
    e.sends(&["new", "force", "st 60", "go"]);
    std::thread::sleep(Duration::from_millis(300));
    let t0 = Instant::now();
    e.send("?");
    let mv = e.engine_move();
    assert!(t0.elapsed() < Duration::from_secs(5));
    assert!(Position::startpos().is_legal(mv));
    // `result` while thinking: no move comes.
    e.send("usermove h9g7");
    std::thread::sleep(Duration::from_millis(200));
    e.send("result 1-0 {White resigns}");
    let lines = e.sync();
    assert!(!lines.iter().any(|l| l.starts_with("move")), "{lines:?}");
    // `?` when not thinking is ignored.
    e.send("?");
    assert!(e.sync().is_empty());
}

#[test]
fn pondering_on_the_expected_reply() {
    let mut e = Engine::xboard();
    e.sends(&[
        "new",
        "hard",
        "level 0 0:10 0",
        "time 1000",
        "otim 1000",
        "force",
        "go",
    ]);
    let first = e.engine_move();
    e.send("hint");
    let hint = e.expect("Hint: ");
    let guess: Move = hint[6..].parse().unwrap();
    let after_first = position(START_FEN, &[&first.to_string()]);
    assert!(after_first.is_legal(guess), "{hint}");
    // A ping while pondering is answered at once, before any move.
    let lines = e.sync();
    assert!(!lines.iter().any(|l| l.starts_with("move")), "{lines:?}");
    // The expected reply: the ponder search goes on as the real one.
    e.sends(&["time 950", "otim 1000", &format!("usermove {guess}")]);
    let second = e.engine_move();
    let root = position(START_FEN, &[&first.to_string(), &guess.to_string()]);
    assert!(root.is_legal(second));
    // Another reply: the ponder search is dropped, a new one answers.
    e.send("hint");
    let guess2: Move = e.expect("Hint: ")[6..].parse().unwrap();
    let root = position(
        START_FEN,
        &[&first.to_string(), &guess.to_string(), &second.to_string()],
    );
    let other = root
        .legal_moves()
        .into_iter()
        .find(|&m| m != guess2)
        .unwrap();
    e.send(&format!("usermove {other}"));
    let third = e.engine_move();
    let mut after = root.clone();
    after.make_move(other);
    assert!(after.is_legal(third));
    // `easy` stops pondering; `force` then `quit` end cleanly.
    e.sends(&["easy", "force", "quit"]);
    assert!(e.exits());
}

#[test]
fn a_ponder_hit_on_a_shorter_clock_than_expected_is_searched_afresh() {
    // The ponder search plans with ten minutes; the GUI's clock says one
    // second (it charged our move more than we measured): the answer must
    // fit that second, not the ten minutes.
    let mut e = Engine::xboard();
    e.sends(&[
        "new",
        "hard",
        "level 0 10 0",
        "time 60000",
        "otim 60000",
        "force",
        "go",
    ]);
    // A quick first move; the ponder search then plans with the rest.
    std::thread::sleep(Duration::from_millis(300));
    e.send("?");
    e.engine_move();
    e.send("hint");
    let guess: Move = e.expect("Hint: ")[6..].parse().unwrap();
    e.sends(&["time 100", "otim 60000"]);
    let t0 = Instant::now();
    e.send(&format!("usermove {guess}"));
    e.engine_move();
    assert!(t0.elapsed() < Duration::from_secs(3), "{:?}", t0.elapsed());
}

#[test]
fn options_and_engine_settings() {
    let mut e = Engine::xboard();
    e.sends(&[
        "memory 16",
        "cores 1",
        "option Move Overhead=50",
        "option Clear Hash",
        "option Use NNUE=0",
        "option Use NNUE=1",
        "option Style=risky",
        "option Resign Score=900",
        "option EvalFile=<embedded>",
    ]);
    assert_eq!(e.sync(), Vec::<String>::new());
    e.send("option OwnBook=1");
    let lines = e.sync();
    assert!(
        lines.iter().all(|l| l.starts_with("# ")) && !lines.is_empty(),
        "notes are comments: {lines:?}"
    );
    e.send("option EvalFile=/nonexistent/net.nnue");
    let lines = e.sync();
    assert!(
        lines.iter().any(|l| l.starts_with("# error: evalfile")),
        "{lines:?}"
    );
    // Without the debug feature, comments are not sent at all.
    e.send("rejected debug");
    e.send("option EvalFile=/nonexistent/net.nnue");
    assert!(e.sync().is_empty());
}

#[test]
fn a_draw_offer_is_accepted_when_lost() {
    let mut e = Engine::xboard();
    // Black has a bare king against a rook: a draw is welcome.
    e.sends(&[
        "new",
        "setboard 4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1",
        "sd 4",
        "draw",
        "usermove a0a1",
    ]);
    let (_, before) = e.until("move ");
    assert!(before.iter().any(|l| l == "offer draw"), "{before:?}");
    // From the start, an offer is declined (nothing said).
    e.sends(&["new", "sd 4", "draw", "usermove h2e2"]);
    let (_, before) = e.until("move ");
    assert!(!before.iter().any(|l| l.contains("draw")), "{before:?}");
}

#[test]
fn a_lost_game_is_resigned_with_a_result_line() {
    let mut e = Engine::xboard();
    e.sends(&[
        "new",
        "option Resign Moves=1",
        "option Resign Score=300",
        "setboard 4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1",
        "sd 4",
        "usermove a0a1",
    ]);
    let (_, before) = e.until("1-0 {Black resigns}");
    assert!(!before.iter().any(|l| l.starts_with("move")), "{before:?}");
    // Resigned: the next move gets no answer.
    e.send("usermove a1a2");
    e.quiet_for("move", Duration::from_millis(300));
}

#[test]
fn nopost_hides_the_thinking() {
    let mut e = Engine::xboard();
    e.sends(&["new", "nopost", "sd 3", "force", "go"]);
    let (_, before) = e.until("move ");
    assert!(before.is_empty(), "{before:?}");
}

#[test]
fn quit_ends_the_session_even_while_thinking() {
    let mut e = Engine::xboard();
    e.sends(&["new", "force", "st 60", "go"]);
    std::thread::sleep(Duration::from_millis(200));
    e.send("quit");
    assert!(e.exits());
    // End of input: the move being thought about still comes.
    let mut e = Engine::xboard();
    e.sends(&["new", "force", "st 0.3", "go"]);
    e.close_input();
    e.engine_move();
    assert!(e.exits());
}

#[test]
fn multipv_and_skill_level_options() {
    let mut e = Engine::xboard();
    let features = e.log.clone();
    for name in [
        "MultiPV -spin",
        "Skill Level -spin",
        "UCI_LimitStrength -check",
        "UCI_Elo -spin",
    ] {
        assert!(
            features.iter().any(|l| l.contains(name)),
            "{name}: {features:?}"
        );
    }
    // MultiPV 3 in analysis: three thinking lines of each depth, three
    // different first moves.
    e.sends(&["new", "post", "option MultiPV=3", "analyze"]);
    let start = Position::startpos();
    let mut by_depth: Vec<String> = Vec::new();
    while by_depth.len() < 9 {
        by_depth.push(e.thinking_from(&start));
    }
    e.send("exit");
    e.sync();
    let depth = |l: &String| l.split(' ').next().unwrap().to_string();
    let first = |l: &String| {
        l.split('\t')
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .to_string()
    };
    let d = depth(&by_depth[3]);
    let same: Vec<&String> = by_depth.iter().filter(|l| depth(l) == d).collect();
    assert_eq!(same.len(), 3, "{by_depth:?}");
    let mut moves: Vec<String> = same.iter().map(|l| first(l)).collect();
    moves.sort();
    moves.dedup();
    assert_eq!(moves.len(), 3, "{same:?}");
    // A low skill level still answers with a legal move.
    e.sends(&[
        "option MultiPV=1",
        "option Skill Level=1",
        "new",
        "level 0 1 0",
        "usermove h2e2",
    ]);
    let mv = e.engine_move();
    assert!(position(START_FEN, &["h2e2"]).is_legal(mv));
    assert!(!e.log.iter().any(|l| l.starts_with("Error")), "{:?}", e.log);
}

/// `quit` while thinking: no move is owed any more (XBoard has left the
/// game), but a `ping` sent before it is still answered, and the engine
/// ends promptly (issue 50).
#[test]
fn quit_still_answers_the_pings_before_it() {
    let mut e = Engine::xboard();
    e.send("new");
    e.send("st 30");
    e.send("go");
    e.send("ping 41");
    e.send("quit");
    let t = Instant::now();
    e.expect("pong 41");
    assert!(e.exits());
    assert!(t.elapsed() < Duration::from_secs(10));
}
