//! The controller: what the three dialects (UCCI, UCI, CECP) share, so that
//! the sessions only parse commands and word answers. It holds the line to
//! the search thread (jobs out, the hash view for `probe`), the options
//! (`OptionMap`, each option's effect carried out here), the draw and resign
//! tracking, the running search (`Running`: its position, stop token and
//! held result, and the searches stopped and forgotten whose results are
//! still to come), the queue of replies that wait for the search thread,
//! and the end of the session.
//!
//! What stays in the sessions is what the protocols really do differently:
//! UCCI/UCI answer one `go` at a time (`session`), CECP plays a game with
//! its own clock, pondering and analysis (`cecp`). Each keeps what it must
//! know about the running search in the `Running`'s `detail`.

use super::drawresign::{accept_draw, ScoreTrack};
use super::options::{Dialect, Effect, OptionError, OptionMap, Value};
use super::output::Out;
use super::worker::{Done, Event, Job, SharedHandle, Show};
use crate::board::Position;
use crate::search::{HashView, Limits, StopHandle};
use std::collections::VecDeque;
use std::sync::mpsc::{Receiver, Sender};
use std::time::{Duration, Instant};

/// How long the end of a session (`quit`) waits for the search thread to
/// finish the jobs queued before it: a stopped search, a book being read, a
/// pong owed. Never longer: a huge table being cleared is abandoned.
pub const QUIT_GRACE: Duration = Duration::from_secs(3);

/// What a finished search in a game says besides its move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Accept the opponent's offer, or offer a draw ourselves.
    Draw,
    Resign,
}

/// The search the search thread runs for the session: one at a time.
pub struct Running<D> {
    /// The position searched.
    pub root: Position,
    /// This search's own token for stopping it and for `ponderhit`: made
    /// when the search was asked for, so one used before the search thread
    /// starts it still counts.
    pub stop: StopHandle,
    pub started: Instant,
    /// A result that came before the session could tell it (a ponder
    /// search or an analysis waits for the GUI).
    pub held: Option<Done>,
    /// What the dialect keeps about the search.
    pub detail: D,
}

pub struct Controller<D> {
    pub out: Out,
    jobs: Sender<Job>,
    hash: SharedHandle,
    pub opts: OptionMap,
    /// How options are named in errors and notes.
    pub dialect: Dialect,
    track: ScoreTrack,
    /// Replies that wait for the search thread (see `after_jobs`).
    waiting: VecDeque<Waiting>,
    /// The session ends by this moment at the latest (`end`).
    end_by: Option<Instant>,
    running: Option<Running<D>>,
    /// Searches stopped and forgotten whose results are still to come: the
    /// search thread reports every search, in order, so these come first.
    abandoned: usize,
}

/// A reply printed once the search thread has reached the `Job::Sync` sent
/// with it (`synced`), or, if not `synced`, as soon as the replies before it
/// are out.
struct Waiting {
    reply: Reply,
    synced: bool,
}

enum Reply {
    Line(String),
    /// The end of the session, with a last line (UCCI's `bye`).
    End(Option<&'static str>),
}

impl<D> Controller<D> {
    pub fn new(out: Out, jobs: Sender<Job>, hash: SharedHandle, dialect: Dialect) -> Controller<D> {
        Controller {
            out,
            jobs,
            hash,
            opts: OptionMap::default(),
            dialect,
            track: ScoreTrack::default(),
            waiting: VecDeque::new(),
            end_by: None,
            running: None,
            abandoned: 0,
        }
    }

    pub fn say(&self, line: &str) {
        self.out.line(line);
    }

    pub fn note(&self, what: &str) {
        self.out.note(what);
    }

    pub fn error(&self, what: &str) {
        self.out.error(what);
    }

    pub fn send(&self, job: Job) {
        if self.jobs.send(job).is_err() {
            // The search thread is gone (it can only end by a panic): nothing
            // more can be answered correctly.
            self.error("the search thread has stopped; exiting");
            self.out.last_line_and_exit(None);
        }
    }

    /// The hash table as it is now (`probe`).
    pub fn hash_view(&self) -> HashView {
        super::worker::current_hash(&self.hash)
    }

    // ---- options --------------------------------------------------------

    /// `setoption` in any dialect: the value is checked and stored and its
    /// effect carried out. A number brought into range is accepted with a
    /// note; what cannot be applied is returned for the session to word.
    pub fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), OptionError> {
        let change = self.opts.set(name, value, self.dialect)?;
        if let Some(note) = change.clamp_note() {
            self.note(&note);
        }
        match change.effect {
            Effect::Read => {}
            Effect::Engine(job) => self.send(job(&self.opts)),
            Effect::Books => {
                self.send(Job::LoadBooks(self.opts.book_files()));
                if let Some(note) = self.opts.book_note() {
                    self.note(note);
                }
            }
            Effect::NewGame => self.new_game(),
            Effect::Inert => {
                if self.opts.flag(super::options::Id::Debug) {
                    self.note(&format!(
                        "{} stored; the search has no such setting",
                        change.name
                    ));
                }
            }
            Effect::Refuse(why) => {
                if change.value == Value::Bool(true) {
                    self.note(why);
                }
            }
            Effect::Tune(param) => {
                if let Value::Int(v) = change.value {
                    param.set(v as i32);
                }
            }
        }
        Ok(())
    }

    /// A new game, in every dialect: the engine forgets what it learnt and
    /// the draw and resign tracking starts afresh.
    pub fn new_game(&mut self) {
        self.track.reset();
        self.send(Job::NewGame);
    }

    // ---- searches -------------------------------------------------------

    /// Hands a search of `root` to the search thread as the running search
    /// (one running before is abandoned), answered from the book when the
    /// options turn it on and it holds the position.
    pub fn start_search(
        &mut self,
        root: Position,
        limits: Limits,
        show: Show,
        detail: D,
    ) -> &mut Running<D> {
        self.abandon_search();
        let stop = StopHandle::new();
        self.send(Job::Search {
            pos: root.clone(),
            limits: Box::new(limits),
            show,
            stop: stop.clone(),
            book: self.opts.book_variety(),
        });
        self.running.insert(Running {
            root,
            stop,
            started: Instant::now(),
            held: None,
            detail,
        })
    }

    /// A search with nothing to search (no move allowed): the running
    /// search, its answer `done` held at once, as if it had come.
    pub fn start_answered(&mut self, root: Position, done: Done, detail: D) -> &mut Running<D> {
        self.abandon_search();
        self.running.insert(Running {
            root,
            stop: StopHandle::new(),
            started: Instant::now(),
            held: Some(done),
            detail,
        })
    }

    pub fn running(&self) -> Option<&Running<D>> {
        self.running.as_ref()
    }

    pub fn running_mut(&mut self) -> Option<&mut Running<D>> {
        self.running.as_mut()
    }

    /// The running search, no longer running for the session (its result
    /// was told, or is being).
    pub fn take_running(&mut self) -> Option<Running<D>> {
        self.running.take()
    }

    /// Stops the running search and forgets it; its result, still to come,
    /// will be dropped.
    pub fn abandon_search(&mut self) {
        if let Some(r) = self.running.take() {
            if r.held.is_none() {
                r.stop.stop();
                self.abandoned += 1;
            }
        }
    }

    /// A search's result came: held in the running search, which is
    /// returned; None when it was one abandoned (or none runs).
    pub fn search_done(&mut self, done: Done) -> Option<&mut Running<D>> {
        if self.abandoned > 0 {
            self.abandoned -= 1;
            return None;
        }
        let r = self.running.as_mut()?;
        r.held = Some(done);
        Some(r)
    }

    /// Whether progress reports now are the running search's, not those
    /// of one abandoned that has yet to report its end.
    pub fn progress_is_current(&self) -> bool {
        self.abandoned == 0
    }

    /// What to say with the move a search in `root` found: accept an offered
    /// draw when the position warrants it, else resign or offer a draw when
    /// the recent game searches (`in_game`) agree. A book move is no
    /// judgement of the position: it counts for none of these.
    pub fn verdict(
        &mut self,
        root: &Position,
        done: &Done,
        draw_offered: bool,
        in_game: bool,
    ) -> Option<Verdict> {
        let in_game = in_game && !done.from_book;
        let score = done.result.score;
        if in_game {
            self.track.record(root, score);
        }
        if draw_offered && !done.from_book && accept_draw(root, score, &done.pv) {
            Some(Verdict::Draw)
        } else if in_game && self.track.resign_due(&self.opts) {
            Some(Verdict::Resign)
        } else if in_game && self.track.draw_offer_due(&self.opts, root) {
            Some(Verdict::Draw)
        } else {
            None
        }
    }

    // ---- the reply queue and the end --------------------------------------

    /// Prints `line` once the search thread has done what it was given
    /// before (hash resizes, a new game).
    pub fn after_jobs(&mut self, line: String) {
        self.wait_for_jobs(Reply::Line(line));
    }

    fn wait_for_jobs(&mut self, reply: Reply) {
        self.waiting.push_back(Waiting {
            reply,
            synced: true,
        });
        self.send(Job::Sync);
    }

    /// Prints `line` now, or after the replies still waiting.
    pub fn now_or_in_turn(&mut self, line: String) {
        if self.waiting.is_empty() {
            self.say(&line);
        } else {
            self.waiting.push_back(Waiting {
                reply: Reply::Line(line),
                synced: false,
            });
        }
    }

    /// The search thread reached a `Job::Sync`: out with the reply that
    /// waited for it and those that only waited behind it.
    pub fn synced(&mut self) {
        let mut next = self.waiting.pop_front();
        while let Some(w) = next {
            match w.reply {
                Reply::Line(line) => self.say(&line),
                Reply::End(last) => self.out.last_line_and_exit(last),
            }
            next = match self.waiting.front() {
                Some(w) if !w.synced => self.waiting.pop_front(),
                _ => None,
            };
        }
    }

    /// Ends the session once the search thread has done the jobs queued so
    /// far and the replies before are out, with `last` as the last line; if
    /// `grace` is given, after that long at the latest.
    pub fn end(&mut self, last: Option<&'static str>, grace: Option<Duration>) {
        if let Some(g) = grace {
            self.end_by = Some(Instant::now() + g);
        }
        if !self.ending() {
            self.wait_for_jobs(Reply::End(last));
        }
    }

    /// Whether the end of the session is queued.
    pub fn ending(&self) -> bool {
        self.waiting
            .iter()
            .any(|w| matches!(w.reply, Reply::End(_)))
    }

    /// The next event; past the end's deadline, the session ends here (with
    /// the last line the end was queued with).
    pub fn next_event(&self, inbox: &Receiver<Event>) -> Event {
        let event = match self.end_by {
            None => inbox.recv().ok(),
            Some(by) => inbox
                .recv_timeout(by.saturating_duration_since(Instant::now()))
                .ok(),
        };
        match event {
            Some(e) => e,
            None => {
                let last = self.waiting.iter().find_map(|w| match w.reply {
                    Reply::End(last) => last,
                    Reply::Line(_) => None,
                });
                self.out.last_line_and_exit(last)
            }
        }
    }

    /// Whether input is no longer read (`quit` came).
    pub fn quitting(&self) -> bool {
        self.end_by.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::SearchResult;
    use std::sync::mpsc::channel;
    use std::sync::{Arc, Mutex};

    fn done() -> Done {
        Done {
            result: SearchResult::no_move(),
            pv: Vec::new(),
            from_book: false,
        }
    }

    #[test]
    fn an_abandoned_search_is_stopped_and_its_late_result_dropped() {
        let (jobs, sent) = channel();
        let hash = Arc::new(Mutex::new(crate::engine::Engine::new().hash_view()));
        let mut ctl: Controller<&str> = Controller::new(
            Out::new(Box::new(std::io::sink())),
            jobs,
            hash,
            Dialect::Cecp,
        );
        let pos = Position::startpos();
        let show = Show::Nothing;
        let first = ctl
            .start_search(pos.clone(), Limits::default(), show, "first")
            .stop
            .clone();
        ctl.start_search(pos.clone(), Limits::default(), show, "second");
        assert!(first.is_stopped(), "replaced, so stopped");
        assert_eq!(sent.try_iter().count(), 2, "both went to the search thread");
        assert!(!ctl.progress_is_current(), "the first has yet to report");
        // The first search's result comes first, and is not the second's.
        assert!(ctl.search_done(done()).is_none());
        assert!(ctl.progress_is_current());
        let r = ctl.search_done(done()).expect("the second's result");
        assert_eq!(r.detail, "second");
        assert!(r.held.is_some());
        // Abandoning a search whose result is held owes no result.
        ctl.abandon_search();
        assert!(ctl.running().is_none() && ctl.progress_is_current());
        let answered = ctl.start_answered(pos, done(), "no move");
        assert!(answered.held.is_some());
    }
}
