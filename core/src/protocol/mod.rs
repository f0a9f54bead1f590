//! The protocol loops on stdin/stdout: UCCI, UCI and CECP (XBoard).
//!
//! Three threads: a reader turns raw input bytes into lines, the search
//! thread (`worker`) owns the engine and runs one job at a time, and the main
//! thread carries out commands in order. The first command picks the
//! session: `xboard` starts CECP (`cecp`, with a state machine of its own),
//! anything else the UCCI/UCI session (`session`), in which the first `ucci`
//! or `uci` picks the protocol (UCCI until one is seen). There, while a
//! search runs, the commands that only make sense then (`stop`, `ponderhit`,
//! `isready`, `probe`, `quit`) are answered at once and the rest wait for it
//! to end; in UCCI batch mode everything waits.
//!
//! Choices where UCCI and UCI leave room (CECP's are in `cecp`):
//! - no legal move (or every one banned): `nobestmove` in UCCI, `bestmove
//!   (none)` in UCI, after an `info depth 0` line with the lost score;
//! - `stop` while idle: `nobestmove` in UCCI, nothing in UCI;
//! - `quit` stops a running search and still tells its `bestmove` (as
//!   ElephantEye and Stockfish do), then carries out the commands that came
//!   before it (a `go` among them answers at once), lets the search thread
//!   finish their jobs (a few seconds at most), says `bye` in UCCI and
//!   exits; nothing after `quit` is read;
//! - a bare `go` searches until `stop`; a `go` whose every limit is unusable
//!   searches a short fixed time; end of input stops a search nothing else
//!   could end (infinite, pondering), lets a bounded one finish, carries out
//!   what is left and exits;
//! - `probe` answers from the hash table (`Engine::hash_view`), also while
//!   the engine thinks; a position the table lacks gets a bare `pophash`;
//! - with `usebook`, a `go` in a position the book holds answers from the
//!   book at once (`info string book move ...`; `crate::book` says which
//!   moves qualify), except `go infinite` and `go mate`, which search; a
//!   book move is no judgement of the position, so it counts neither
//!   towards resigning or offering a draw nor accepts an offered one;
//! - a book that cannot be read (missing, truncated, not a book) is
//!   reported with `info string error:` when set and left out.

mod cecp;
pub mod command;
mod controller;
mod drawresign;
mod inspect;
pub mod options;
mod output;
mod reader;
mod session;
pub mod timecontrol;
mod worker;

use crate::board::Move;
use crate::search::Score;
use std::sync::mpsc::channel;
use std::thread;

/// Which protocol of the UCCI family the GUI speaks (CECP has a session
/// of its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Ucci,
    Uci,
}

/// The wording differences between UCCI and UCI, in one table (CECP's are
/// its own: `cecp`); `output` and `timecontrol` read them from here and
/// never ask which protocol is in use.
pub struct Words {
    /// What ends the answer to `ucci`/`uci`.
    pub hello_ok: &'static str,
    pub copyright: bool,
    /// The answer when there is no move to play.
    pub no_move: &'static str,
    /// The answer to `stop` while idle.
    pub stop_while_idle: Option<&'static str>,
    /// The last line after `quit`.
    pub goodbye: Option<&'static str>,
    /// `go time ...` clocks are in seconds unless `usemillisec` (UCCI); UCI
    /// clocks are always in milliseconds.
    pub clock_in_seconds: bool,
    /// `bestmove ... draw|resign` may be said.
    pub draw_and_resign: bool,
    /// The answer to `help`.
    pub help: &'static [&'static str],
    /// The `score ...` part of an `info` line.
    pub score: fn(Score) -> String,
    /// The `info` line naming the move being searched: the depth, the move
    /// and its number among the root moves.
    pub currmove: fn(u32, Move, u32) -> String,
}

const UCCI_WORDS: Words = Words {
    hello_ok: "ucciok",
    copyright: true,
    no_move: "nobestmove",
    stop_while_idle: Some("nobestmove"),
    goodbye: Some("bye"),
    clock_in_seconds: true,
    draw_and_resign: true,
    help: &[
        "UCCI commands: ucci, isready, setoption <name> [<value>] (the options are listed after ucci),",
        "position {startpos | fen <fen>} [moves <m>...], banmoves <m>..., probe <position>,",
        "go [ponder | draw] [depth <n> | nodes <n> | time <t> [increment <t>] [movestogo <n>] | infinite | perft <n>],",
        "ponderhit [draw], stop, setoption newgame, d (the board), eval, quit",
    ],
    // One number; mates as a large value less the distance in plies.
    score: |s| format!("score {}", output::ucci_score(s)),
    // UCCI has no depth or move number on this line.
    currmove: |_, mv, _| format!("info currmove {mv}"),
};

const UCI_WORDS: Words = Words {
    hello_ok: "uciok",
    copyright: false,
    no_move: "bestmove (none)",
    stop_while_idle: None,
    goodbye: None,
    clock_in_seconds: false,
    draw_and_resign: false,
    help: &[
        "UCI commands: uci, isready, debug on|off, setoption name <name> [value <value>]",
        "(the options are listed after uci), ucinewgame, position {startpos | fen <fen>} [moves <m>...],",
        "go [ponder] [depth <n> | nodes <n> | movetime <ms> | wtime <ms> btime <ms> [winc/binc <ms>] |",
        "infinite | perft <n>] [searchmoves <m>...], ponderhit, stop, d (the board), eval, quit",
    ],
    score: |s| match s {
        Score::Cp(cp) => format!("score cp {cp}"),
        Score::Mate(n) => format!("score mate {n}"),
    },
    currmove: |depth, mv, number| {
        format!("info depth {depth} currmove {mv} currmovenumber {number}")
    },
};

/// The answer to `help` before a protocol is chosen.
pub const HELP_OPENERS: &[&str] = &[
    "Chuhe speaks UCCI, UCI and CECP (XBoard): start with ucci, uci or xboard;",
    "then help lists the commands of that protocol",
];

impl Mode {
    pub const fn words(self) -> &'static Words {
        match self {
            Mode::Ucci => &UCCI_WORDS,
            Mode::Uci => &UCI_WORDS,
        }
    }
}

/// Speaks the protocol on stdin/stdout until `quit` or the end of input;
/// does not return (the process ends with the session).
pub fn run_stdio() -> ! {
    let out = output::Out::new(Box::new(std::io::stdout()));
    let (events, inbox) = channel();
    // The first command picks the protocol, so it is read here, before the
    // reader thread takes over (stdin's buffer is shared, nothing is lost),
    // and handed on as the first input.
    let first = loop {
        match reader::next_line(&mut std::io::stdin().lock()) {
            reader::Input::Line(l) if l.trim().is_empty() => {}
            other => break other,
        }
    };
    let cecp = matches!(&first, reader::Input::Line(l) if l.trim() == "xboard");
    let ended = first == reader::Input::Eof;
    let _ = events.send(worker::Event::Input(first));
    if !ended {
        let from_reader = events.clone();
        thread::spawn(move || {
            let stdin = std::io::stdin();
            let mut input = stdin.lock();
            loop {
                let line = reader::next_line(&mut input);
                let end = line == reader::Input::Eof;
                if from_reader.send(worker::Event::Input(line)).is_err() || end {
                    return;
                }
            }
        });
    }
    let (jobs, handle) = worker::spawn(out.clone(), events);
    if cecp {
        cecp::run(out, jobs, handle, inbox)
    } else {
        session::Session::new(out, jobs, handle).run(inbox)
    }
}
