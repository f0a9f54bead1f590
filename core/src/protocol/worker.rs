//! The search thread: owns the `Engine`, takes jobs in order over a channel
//! and reports back, so the main thread stays free to read `stop`,
//! `ponderhit`, `isready` and `quit` while the engine thinks.

use super::output::{info_line, info_string, Out};
use super::reader::Input;
use super::Mode;
use crate::board::perft;
use crate::board::{notation, Move, Position};
use crate::search::{Engine, HashView, Limits, SearchResult, StopHandle};
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
    },
    Perft {
        pos: Position,
        depth: u32,
        threads: usize,
        stop: StopHandle,
    },
    SetHash(usize),
    SetThreads(usize),
    /// The evaluation to use: a network, or None for the hand-crafted one.
    SetNetwork(Option<Arc<crate::nnue::net::Network>>),
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
                } => {
                    let done = search(&mut engine, &pos, &limits, &stop, mode, chinese_pv, &out);
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
                Job::SetNetwork(net) => engine.set_network(net),
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
    let result = engine.go_with(pos, limits, stop, &mut |info| {
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
    Done { result, pv }
}
