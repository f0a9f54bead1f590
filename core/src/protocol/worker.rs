//! The search thread: owns the engine object, takes jobs in order over a
//! channel and reports back, so the main thread stays free to read `stop`,
//! `ponderhit`, `isready` and `quit` while the engine thinks.

use super::output::{error_line, info_line, info_string, Out};
use super::reader::Input;
use super::Mode;
use crate::board::perft;
use crate::board::{notation, Move, Position};
use crate::book::Variety;
use crate::engine::{Engine, NetworkLoaded};
use crate::search::{HashView, Limits, PvLine, Score, SearchResult, StopHandle};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Mutex};
use std::thread;

pub enum Job {
    Search {
        pos: Position,
        limits: Limits,
        mode: Mode,
        /// Also print each PV in Chinese notation (the `debug` option).
        chinese_pv: bool,
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
    NewGame,
    /// Answer `readyok` once every job before this one is done (a hash
    /// resize or a new game can take a moment).
    Ready,
    /// Report `Event::Synced` once every job before this one is done.
    Sync,
}

/// What the main loop waits on: input lines and finished work.
pub enum Event {
    Input(Input),
    SearchDone(Done),
    PerftDone,
    Synced,
}

pub struct Done {
    pub result: SearchResult,
    /// The last principal variation reported, for the ponder move and the
    /// draw judgement.
    pub pv: Vec<Move>,
    /// The move came from the book: no judgement of the position.
    pub from_book: bool,
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
                    mode,
                    chinese_pv,
                    stop,
                    book,
                } => {
                    let from_book =
                        book.and_then(|v| book_move(&mut engine, &pos, &limits, v, &out));
                    let done = match from_book {
                        Some(done) => done,
                        None => search(&mut engine, &pos, &limits, &stop, mode, chinese_pv, &out),
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
                        out.line(&info_string("perft stopped"));
                    }
                    if events.send(Event::PerftDone).is_err() {
                        return;
                    }
                }
                Job::SetHash(mb) => {
                    let report = engine.set_hash_mb(mb);
                    if let Some(note) = report.note() {
                        out.line(&info_string(&note));
                    }
                    *slot.lock().unwrap_or_else(|e| e.into_inner()) = engine.hash_view();
                }
                Job::SetThreads(n) => {
                    let got = engine.set_threads(n);
                    if got < n {
                        out.line(&info_string(&format!(
                            "threads {n}: only {got} could be started"
                        )));
                    }
                }
                Job::NewGame => {
                    engine.new_game();
                    *slot.lock().unwrap_or_else(|e| e.into_inner()) = engine.hash_view();
                }
                Job::LoadNetwork(source) => match engine.load_network(&source) {
                    Ok(NetworkLoaded::Embedded) => {}
                    Ok(NetworkLoaded::NoEmbedded) => out.line(&info_string(
                        "this build has no built-in network: the hand-crafted evaluation plays",
                    )),
                    Ok(NetworkLoaded::File(path)) => {
                        out.line(&info_string(&format!("network loaded from {path}")))
                    }
                    Err(e) => out.line(&error_line(&format!(
                        "evalfile {}: {e}; keeping the current evaluation",
                        source.trim()
                    ))),
                },
                Job::UseNnue(on) => engine.set_use_nnue(on),
                Job::LoadBooks(files) => {
                    let files: Vec<&str> = files.iter().map(String::as_str).collect();
                    for answer in engine.load_books(&files) {
                        out.line(&match answer {
                            Ok(b) => info_string(&format!(
                                "book {}: {} records ({:?} format)",
                                b.path, b.records, b.format
                            )),
                            Err(e) => error_line(&format!("{e}; playing on without it")),
                        });
                    }
                }
                Job::Ready => out.line("readyok"),
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
    mode: Mode,
    chinese_pv: bool,
    out: &Out,
) -> Done {
    let mut pv = Vec::new();
    let result = engine.go(pos, limits, stop, &mut |info| {
        if info.currmove.is_none() && !info.pv.is_empty() {
            pv.clone_from(&info.pv);
        }
        if let Some(line) = info_line(mode, info) {
            out.line(&line);
            if chinese_pv && info.currmove.is_none() {
                // The PV comes from the engine, so it replays; if it ever did
                // not, the ICCS line above is still there.
                if let Ok(words) = notation::chinese_line(pos, &info.pv) {
                    out.line(&info_string(&format!("pv {}", words.join(" "))));
                }
            }
        }
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
    out.line(&info_string(&format!(
        "book move {} {cn} weight {} from {}",
        pick.mv, pick.weight, pick.path
    )));
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
