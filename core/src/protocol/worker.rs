//! The search thread: owns the engine object, takes jobs in order over a
//! channel and reports back, so the main thread stays free to read `stop`,
//! `ponderhit`, `isready` and `quit` while the engine thinks.

use super::inspect;
use super::output::{info_line, thinking_line, Out};
use super::reader::Input;
use super::Mode;
use crate::board::perft;
use crate::board::{notation, Move, Position};
use crate::book::Variety;
use crate::engine::{Engine, NetworkLoaded, Strength};
use crate::search::{HashView, Limits, PvLine, Score, SearchResult, StopHandle};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Mutex};
use std::thread;

pub enum Job {
    Search {
        pos: Position,
        /// Boxed: the limits are the largest part of any job.
        limits: Box<Limits>,
        /// What to print as the search goes.
        show: Show,
        /// This search's own stop token, made when the `go` was accepted.
        stop: StopHandle,
        /// Answer from the opening book, with this variety, when it holds
        /// the position (None: the book is off).
        book: Option<Variety>,
    },
    Perft {
        pos: Position,
        depth: u32,
        threads: usize,
        stop: StopHandle,
    },
    SetHash(usize),
    SetThreads(usize),
    /// `evalfile`: the network to load (`EMBEDDED_NET`: the built-in one).
    LoadNetwork(String),
    /// `usennue`: the loaded network (true) or the hand-crafted evaluation.
    UseNnue(bool),
    /// The book files to read; none turns the book off.
    LoadBooks(Vec<String>),
    /// `eval`: print the evaluation of this position taken apart.
    Eval(Position),
    /// How well to play (`Skill Level`, `UCI_LimitStrength`, `UCI_Elo`).
    SetStrength(Strength),
    NewGame,
    /// Print this line once every job before this one is done (a hash
    /// resize or a new game can take a moment): `readyok`, `pong N`.
    Reply(String),
    /// Report `Event::Synced` once every job before this one is done.
    Sync,
}

/// What a search prints as it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    /// UCCI or UCI `info` lines; with `chinese_pv` (the `debug` option)
    /// each PV in Chinese notation as well; with `wdl` (`UCI_ShowWDL`)
    /// the win/draw/loss odds of each score.
    Info {
        mode: Mode,
        chinese_pv: bool,
        wdl: bool,
    },
    /// CECP thinking lines (`post`), with `lead`, the guessed reply a
    /// ponder search assumes, in front of each PV.
    Thinking { lead: Option<Move> },
    /// Nothing (CECP `nopost`).
    Nothing,
}

/// What the main loop waits on: input lines and finished work.
pub enum Event {
    Input(Input),
    /// A finished iteration of the running search (CECP answers `.` and
    /// `hint` from it).
    Progress(Progress),
    SearchDone(Done),
    PerftDone,
    Synced,
}

/// Where the running search stands after its last finished iteration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    pub depth: u32,
    pub nodes: u64,
    pub time_ms: u64,
    /// The first two moves of the PV: the best move and the expected reply.
    pub pv: Vec<Move>,
}

pub struct Done {
    pub result: SearchResult,
    /// The last principal variation reported, for the ponder move and the
    /// draw judgement.
    pub pv: Vec<Move>,
    /// The move came from the book: no judgement of the position.
    pub from_book: bool,
}

impl Done {
    /// The move to play among `allowed`: the search's, or the first allowed
    /// one when the search stopped before finishing an iteration or chose a
    /// move that is not allowed. None when nothing is allowed.
    pub fn best_in(&self, allowed: &[Move]) -> Option<Move> {
        match self.result.best {
            Some(m) if allowed.contains(&m) => Some(m),
            _ => allowed.first().copied(),
        }
    }

    /// The reply we expect to `best`, played from `root`: the engine's,
    /// else the second move of the last PV when it starts with `best`;
    /// only if legal after `best`.
    pub fn ponder_move(&self, root: &Position, best: Move) -> Option<Move> {
        let guess = self.result.ponder.or_else(|| match self.pv.as_slice() {
            [first, second, ..] if *first == best => Some(*second),
            _ => None,
        })?;
        let mut after = root.clone();
        after.make_move(best);
        after.is_legal(guess).then_some(guess)
    }
}

/// What the main thread may touch while the worker owns the engine: a read
/// view of the hash table (for `probe`). The worker refreshes it whenever
/// the engine may have replaced the table (hash resize, new game). Stop
/// tokens need no such slot: the session makes one for each `go`.
pub type SharedHandle = Arc<Mutex<HashView>>;

pub fn current_hash(shared: &SharedHandle) -> HashView {
    shared.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Starts the search thread; jobs sent on the returned channel run in order.
pub fn spawn(out: Out, events: Sender<Event>) -> (Sender<Job>, SharedHandle) {
    let mut engine = Engine::new();
    let shared: SharedHandle = Arc::new(Mutex::new(engine.hash_view()));
    let (jobs, rx) = channel::<Job>();
    let slot = shared.clone();
    thread::spawn(move || {
        for job in rx {
            match job {
                Job::Search {
                    pos,
                    limits,
                    show,
                    stop,
                    book,
                } => {
                    let from_book =
                        book.and_then(|v| book_move(&mut engine, &pos, &limits, v, &out));
                    let done = match from_book {
                        Some(done) => done,
                        None => search(&mut engine, &pos, &limits, &stop, show, &out, &events),
                    };
                    if events.send(Event::SearchDone(done)).is_err() {
                        return;
                    }
                }
                Job::Perft {
                    pos,
                    depth,
                    threads,
                    stop,
                } => {
                    let print = &mut |l: &str| out.line(l);
                    if perft::run_until(&pos, depth, true, threads, &stop.stop, print).is_none() {
                        out.note("perft stopped");
                    }
                    if events.send(Event::PerftDone).is_err() {
                        return;
                    }
                }
                Job::SetHash(mb) => {
                    let report = engine.set_hash_mb(mb);
                    if let Some(note) = report.note() {
                        out.note(&note);
                    }
                    *slot.lock().unwrap_or_else(|e| e.into_inner()) = engine.hash_view();
                }
                Job::SetThreads(n) => {
                    let got = engine.set_threads(n);
                    if got < n {
                        out.note(&format!("threads {n}: only {got} could be started"));
                    }
                }
                Job::NewGame => {
                    engine.new_game();
                    *slot.lock().unwrap_or_else(|e| e.into_inner()) = engine.hash_view();
                }
                Job::LoadNetwork(source) => match engine.load_network(&source) {
                    Ok(NetworkLoaded::Embedded) => {}
                    Ok(NetworkLoaded::NoEmbedded) => out.note(
                        "this build has no built-in network: the hand-crafted evaluation plays",
                    ),
                    Ok(NetworkLoaded::File(path)) => {
                        out.note(&format!("network loaded from {path}"))
                    }
                    Err(e) => out.error(&format!("evalfile {e}; keeping the current evaluation")),
                },
                Job::UseNnue(on) => engine.set_use_nnue(on),
                Job::SetStrength(strength) => engine.set_strength(strength),
                Job::Eval(pos) => {
                    let (trace, network_in_use) = engine.eval_trace(&pos);
                    for line in inspect::eval(&pos, &trace, network_in_use) {
                        out.line(&line);
                    }
                }
                Job::LoadBooks(files) => {
                    let files: Vec<&str> = files.iter().map(String::as_str).collect();
                    for answer in engine.load_books(&files) {
                        match answer {
                            Ok(b) => out.note(&format!(
                                "book {}: {} records ({:?} format)",
                                b.path, b.records, b.format
                            )),
                            Err(e) => out.error(&format!("{e}; playing on without it")),
                        }
                    }
                }
                Job::Reply(line) => out.line(&line),
                Job::Sync => {
                    if events.send(Event::Synced).is_err() {
                        return;
                    }
                }
            }
        }
    });
    (jobs, shared)
}

fn search(
    engine: &mut Engine,
    pos: &Position,
    limits: &Limits,
    stop: &StopHandle,
    show: Show,
    out: &Out,
    events: &Sender<Event>,
) -> Done {
    let mut pv = Vec::new();
    let pieces = pos.occupied().count();
    let result = engine.go(pos, limits, stop, &mut |info| {
        if info.currmove.is_some() {
            if let Show::Info { mode, .. } = show {
                if let Some(line) = info_line(mode.words(), info, None) {
                    out.line(&line);
                }
            }
            return;
        }
        // A reduced strength searches more lines than were asked for, to
        // choose among them; the GUI sees the ones it asked for.
        if info.multipv.is_some_and(|n| n as usize > limits.multipv) {
            return;
        }
        if !info.pv.is_empty() {
            pv.clone_from(&info.pv);
        }
        match show {
            Show::Info {
                mode,
                chinese_pv,
                wdl,
            } => {
                if let Some(line) = info_line(mode.words(), info, wdl.then_some(pieces)) {
                    out.line(&line);
                }
                if chinese_pv {
                    // The PV comes from the engine, so it replays; if it ever
                    // did not, the ICCS line above is still there.
                    if let Ok(words) = notation::chinese_line(pos, &info.pv) {
                        out.note(&format!("pv {}", words.join(" ")));
                    }
                }
            }
            Show::Thinking { lead } => {
                // A stopped CECP search was left behind by a move or a new
                // position: its lines would be read as thinking about that.
                if let Some(line) = thinking_line(info, lead) {
                    out.line_while(&line, || !stop.is_stopped());
                }
            }
            Show::Nothing => {}
        }
        // Nobody listening only means the session is ending.
        let _ = events.send(Event::Progress(Progress {
            depth: info.depth,
            nodes: info.nodes,
            time_ms: info.time_ms,
            pv: info.pv.iter().take(2).copied().collect(),
        }));
    });
    Done {
        result,
        pv,
        from_book: false,
    }
}

/// The book's answer, told to the GUI, if the book holds the position.
fn book_move(
    engine: &mut Engine,
    pos: &Position,
    limits: &Limits,
    variety: Variety,
    out: &Out,
) -> Option<Done> {
    let pick = engine.book_move(pos, limits, variety)?;
    let cn = notation::chinese(pos, pick.mv).unwrap_or_default();
    out.note(&format!(
        "book move {} {cn} weight {} from {}",
        pick.mv, pick.weight, pick.path
    ));
    Some(Done {
        result: SearchResult {
            best: Some(pick.mv),
            ponder: pick.ponder,
            score: Score::Cp(0),
            depth: 0,
            nodes: 0,
            lines: vec![PvLine {
                score: Score::Cp(0),
                pv: vec![pick.mv],
            }],
        },
        pv: vec![pick.mv],
        from_book: true,
    })
}
