//! The engine glue of `chuhe gui`: one worker thread owns the engine
//! (`chuhe_core::engine::Engine`) and runs one job at a time, so a search
//! never fights another for the cores. Everything the GUI needs from the
//! engine goes through here (the protocol layer is being reshaped and may
//! rename things; this is the one place to follow it).
//!
//! A job carries an id and a stop handle; the caller stops the running job
//! before it sends the next one, and the worker skips jobs that a later one
//! has already replaced. What the worker finds is reported as `Event`s to a
//! callback with the job's id, so the caller can drop a stale report.

use crate::analyze::{self, Analysis, PlyReport, Progress};
use crate::record::Game;
use chuhe_core::board::Position;
use chuhe_core::engine::{Engine, Strength};
use chuhe_core::search::{Limits, SearchInfo, SearchResult, StopHandle};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread;

/// What the worker is asked to do.
pub enum Job {
    /// Search `pos` (its history is the game's) with `limits`; `fresh`
    /// first forgets the previous game (transposition table and all).
    Search {
        pos: Box<Position>,
        limits: Limits,
        strength: Strength,
        fresh: bool,
    },
    /// Analyse a whole game's main line (`chuhe analyze`'s analysis).
    Review {
        game: Box<Game>,
        settings: analyze::Settings,
    },
}

/// A report from the worker about job `id`.
pub enum Event {
    Info(SearchInfo),
    Done(SearchResult),
    ReviewPly {
        done: usize,
        total: usize,
        ply: Option<Box<PlyReport>>,
    },
    ReviewDone(Result<Box<Analysis>, String>),
}

/// The caller's side of the worker.
pub struct EngineHandle {
    jobs: Sender<(u64, StopHandle, Job)>,
    running: Option<StopHandle>,
    next_id: u64,
}

pub type OnEvent = Box<dyn FnMut(u64, Event) + Send>;

impl EngineHandle {
    /// Starts the worker with `threads` search threads and a `hash_mb`
    /// table; `on_event` is called on the worker's thread.
    pub fn spawn(threads: usize, hash_mb: usize, on_event: OnEvent) -> EngineHandle {
        let (tx, rx) = channel();
        thread::Builder::new()
            .name("chuhe-gui-engine".into())
            .spawn(move || worker(rx, threads, hash_mb, on_event))
            .expect("cannot start the engine thread");
        EngineHandle {
            jobs: tx,
            running: None,
            next_id: 1,
        }
    }

    /// Stops the running job (if any) and queues `job`; returns its id.
    pub fn start(&mut self, job: Job) -> u64 {
        self.stop();
        let id = self.next_id;
        self.next_id += 1;
        let stop = StopHandle::new();
        self.running = Some(stop.clone());
        // A closed channel means the worker is gone; the job's id then
        // never reports, which the page shows as an idle engine.
        let _ = self.jobs.send((id, stop, job));
        id
    }

    /// Stops the running job; its final report still comes (as `Done`),
    /// for the caller to ignore.
    pub fn stop(&mut self) {
        if let Some(s) = self.running.take() {
            s.stop();
        }
    }
}

/// A handle dropped without `stop` (a `Gui` dropped without serving, or
/// one whose `serve` ended) must not leave an analysis running on every
/// core: nothing could stop it any more. Dropping the job channel alone
/// would only end the worker once the job in hand finished, which for an
/// infinite analysis is never.
impl Drop for EngineHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

fn worker(
    rx: Receiver<(u64, StopHandle, Job)>,
    threads: usize,
    hash_mb: usize,
    mut on_event: OnEvent,
) {
    let mut engine = Engine::new();
    engine.set_threads(threads);
    engine.set_hash_mb(hash_mb);
    while let Ok(mut next) = rx.recv() {
        // Jobs queued behind a newer one were replaced: run the newest
        // only, but keep any request to start afresh.
        let mut fresh_wanted = false;
        while let Ok(newer) = rx.try_recv() {
            if let Job::Search { fresh: true, .. } = next.2 {
                fresh_wanted = true;
            }
            next = newer;
        }
        let (id, stop, job) = next;
        if stop.is_stopped() {
            if fresh_wanted {
                engine.new_game();
            }
            continue;
        }
        match job {
            Job::Search {
                pos,
                limits,
                strength,
                fresh,
            } => {
                if fresh || fresh_wanted {
                    engine.new_game();
                }
                engine.set_strength(strength);
                let result = engine.go(&pos, &limits, &stop, &mut |info| {
                    on_event(id, Event::Info(info.clone()));
                });
                on_event(id, Event::Done(result));
            }
            Job::Review { game, settings } => {
                let result = analyze::analyze_with_stop(&game, &settings, &stop, &mut |p| {
                    let Progress { done, total, last } = p;
                    on_event(
                        id,
                        Event::ReviewPly {
                            done: *done,
                            total: *total,
                            ply: last.map(|p| Box::new(p.clone())),
                        },
                    );
                });
                let result = result.map(Box::new).map_err(|e| e.to_string());
                on_event(id, Event::ReviewDone(result));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    #[test]
    fn dropping_the_handle_stops_an_infinite_analysis() {
        let (tx, rx) = mpsc::channel();
        let mut handle = EngineHandle::spawn(
            1,
            1,
            Box::new(move |id, event| {
                let done = matches!(event, Event::Done(_));
                let _ = tx.send((id, done));
            }),
        );
        let id = handle.start(Job::Search {
            pos: Box::new(Position::startpos()),
            limits: Limits {
                infinite: true,
                ..Limits::default()
            },
            strength: Strength::full(),
            fresh: true,
        });
        // Searching: the first report came.
        assert_eq!(rx.recv_timeout(Duration::from_secs(30)).unwrap().0, id);
        drop(handle);
        // Only a stop can end an infinite search: its `Done` is the proof.
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok((_, true)) => break,
                Ok(_) => {}
                Err(e) => panic!("the analysis went on after the handle was dropped: {e}"),
            }
        }
    }
}
