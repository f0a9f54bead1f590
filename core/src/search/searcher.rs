//! The engine behind the public contract: owns the transposition table, the
//! main thread's move-ordering memory and a pool of helper threads, and runs
//! one search (Lazy SMP: every thread searches the same root, sharing only
//! the TT; the calling thread is the main one and decides the move).

use super::history::Heuristics;
use super::limits::*;
use super::time::TimeManager;
use super::tt::Tt;
use super::values::{to_score, MATE};
use super::worker::{Shared, Worker};
use super::{HashView, DEFAULT_HASH_MB, MAX_HASH_MB, MAX_THREADS, MIN_HASH_MB};
use crate::board::{Color, Move, Position};
use crate::nnue::net::Network;
use crate::rules::CycleCache;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

pub struct Searcher {
    tt: Arc<Tt>,
    hash_mb: usize,
    /// The stop token of the next search.
    handle: StopHandle,
    heuristics: Heuristics,
    cycles: CycleCache,
    pool: Pool,
    /// The network in use; None: the hand-crafted evaluation.
    net: Option<Arc<Network>>,
    /// The side and root score of the last search on the clock in this
    /// game: the time manager spends more when the score has fallen since.
    last_timed: Option<(Color, i32)>,
}

impl Default for Searcher {
    fn default() -> Self {
        Self::new()
    }
}

/// What `set_hash_mb` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HashReport {
    pub asked_mb: usize,
    /// The size of the table in use now.
    pub mb: usize,
    /// Set when the request was cut down to what the machine has free.
    pub capped_to_mb: Option<usize>,
    /// The system refused the memory: the previous table is kept.
    pub failed: bool,
}

impl HashReport {
    /// A line for the GUI when the table is not what was asked for.
    pub fn note(&self) -> Option<String> {
        (*self != HashReport::exact(self.asked_mb)).then(|| self.to_string())
    }

    fn exact(mb: usize) -> HashReport {
        HashReport {
            asked_mb: mb,
            mb,
            capped_to_mb: None,
            failed: false,
        }
    }
}

impl fmt::Display for HashReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let asked = self.asked_mb;
        if self.failed {
            let size = self.capped_to_mb.unwrap_or(asked);
            return write!(
                f,
                "hash {asked} MB: the system refused {size} MB; keeping the {} MB table",
                self.mb
            );
        }
        match self.capped_to_mb {
            Some(c) => write!(
                f,
                "hash {asked} MB is more than this machine has free; using {c} MB"
            ),
            None if self.mb != asked => {
                write!(f, "hash {asked} MB out of range; using {}", self.mb)
            }
            None => write!(f, "hash {} MB", self.mb),
        }
    }
}

/// Memory the system could give us now, in bytes (Linux: `MemAvailable`),
/// or None where that cannot be read.
fn available_memory() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb.saturating_mul(1024))
}

/// The largest table (MB) worth asking for, given `available` bytes free and
/// the current table (freed once the new one is in place): three quarters,
/// leaving room for the rest of the process, the GUI and the system, rounded
/// down to a power of two. A table larger than memory would be filled by the
/// search until the system swaps or kills the engine. The rounding keeps the
/// answer the same from one try to the next: free memory moves by a few
/// megabytes all the time, and a GUI asking twice should be told one size.
fn hash_cap_mb(available: usize, current_bytes: usize) -> usize {
    let mb = (available.saturating_add(current_bytes) / 4 * 3) >> 20;
    let pow2 = if mb == 0 { 0 } else { 1 << mb.ilog2() };
    pow2.max(MIN_HASH_MB)
}

/// The cap, measured once per process: after a capped resize the table in
/// use is the capped one, so measuring again (free memory plus that table)
/// would give a larger cap on the second try of the same request.
fn hash_cap_once(current_bytes: usize) -> Option<usize> {
    static CAP: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    *CAP.get_or_init(|| available_memory().map(|avail| hash_cap_mb(avail, current_bytes)))
}

impl Searcher {
    pub fn new() -> Self {
        // A default-sized table failing to allocate means no memory at all.
        let tt = Tt::try_new(DEFAULT_HASH_MB)
            .or_else(|| Tt::try_new(MIN_HASH_MB))
            .expect("no memory for even the smallest hash table");
        Searcher {
            tt: Arc::new(tt),
            hash_mb: DEFAULT_HASH_MB,
            handle: StopHandle::new(),
            heuristics: Heuristics::default(),
            cycles: CycleCache::default(),
            pool: Pool::default(),
            net: crate::nnue::default_network(),
            last_timed: None,
        }
    }

    /// Resizes the transposition table (its content is lost), within
    /// `MIN_HASH_MB..=MAX_HASH_MB` and what the machine has free. Fast for any
    /// size: the new table's pages are only taken as the search fills them,
    /// and the old table is freed on another thread. If the memory cannot be
    /// had the old table stays; the report says what happened.
    pub fn set_hash_mb(&mut self, asked: usize) -> HashReport {
        let mut report = HashReport::exact(asked);
        let mut mb = asked.clamp(MIN_HASH_MB, MAX_HASH_MB);
        if let Some(cap) = hash_cap_once(self.tt.bytes()) {
            if mb > cap {
                mb = cap;
                report.capped_to_mb = Some(cap);
            }
        }
        if mb != self.hash_mb {
            match Tt::try_new(mb) {
                Some(tt) => {
                    let old = std::mem::replace(&mut self.tt, Arc::new(tt));
                    self.hash_mb = mb;
                    free_in_background(old);
                }
                None => report.failed = true,
            }
        }
        report.mb = self.hash_mb;
        report
    }

    /// Sets the number of search threads (1..=`MAX_THREADS`); returns how
    /// many there are now (fewer if the system refuses new threads).
    pub fn set_threads(&mut self, n: usize) -> usize {
        self.pool.resize(n.clamp(1, MAX_THREADS) - 1);
        self.threads()
    }

    pub fn threads(&self) -> usize {
        self.pool.helpers.len() + 1
    }

    /// Chooses the evaluation: a network, or None for the hand-crafted one.
    /// The hash table is cleared: its stored evaluations came from the other.
    pub fn set_network(&mut self, net: Option<Arc<Network>>) {
        self.net = net;
        self.tt.clear();
    }

    pub fn network(&self) -> Option<&Arc<Network>> {
        self.net.as_ref()
    }

    /// Forgets everything learnt in the previous game.
    pub fn new_game(&mut self) {
        // A fresh zeroed table costs nothing now (pages are zeroed when the
        // search first touches them) where clearing a large one takes
        // seconds; the old one is freed in the background. If the memory is
        // not there right now, clear in place.
        match Tt::try_new(self.hash_mb) {
            Some(tt) => free_in_background(std::mem::replace(&mut self.tt, Arc::new(tt))),
            None => self.tt.clear(),
        }
        self.heuristics.clear();
        self.pool.clear_heuristics();
        self.last_timed = None;
    }

    /// A read-only view of the transposition table, for UCCI `probe`. It
    /// stays valid while the engine searches; after `set_hash_mb` or
    /// `new_game` it shows the old table, so take a new one.
    pub fn hash_view(&self) -> HashView {
        HashView(self.tt.clone())
    }

    /// The stop token the next `go` will use.
    pub fn stop_handle(&self) -> StopHandle {
        self.handle.clone()
    }

    /// Searches with the token from `stop_handle`; the next search gets a
    /// fresh one.
    pub fn go(
        &mut self,
        pos: &Position,
        limits: &Limits,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let stop = std::mem::take(&mut self.handle);
        self.go_with(pos, limits, &stop, on_info)
    }

    /// Searches, ending when a limit is reached or `stop` is stopped. The
    /// token belongs to this search alone: nothing resets it, so a `stop`
    /// given before the search starts ends it at once.
    pub fn go_with(
        &mut self,
        pos: &Position,
        limits: &Limits,
        stop: &StopHandle,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let mut time = TimeManager::new(limits);
        // Only this side's own last search compares: in analysis, or with
        // one engine playing both sides, the last search may be the other's.
        let us = pos.side_to_move();
        time.set_previous_score(self.last_timed.filter(|l| l.0 == us).map(|l| l.1));

        let legal = pos.legal_moves();
        if legal.is_empty() {
            wait_unbounded(stop, limits);
            return SearchResult::no_move();
        }
        let mut root_moves = limits.root_moves(pos);
        if root_moves.is_empty() {
            // Every legal move is excluded: playing one beats forfeiting.
            root_moves = legal.to_vec();
        }

        self.tt.new_search();
        let shared = Arc::new(Shared {
            tt: self.tt.clone(),
            handle: stop.clone(),
            limits: limits.clone(),
            abort: AtomicBool::new(false),
            nodes: (0..self.threads()).map(|_| AtomicU64::new(0)).collect(),
            root_moves,
            net: self.net.clone(),
        });
        let started = self.pool.start(&shared, pos);
        let mut main = Worker::new(
            0,
            &shared,
            &mut self.heuristics,
            &mut self.cycles,
            pos.clone(),
            Some(time),
        );
        let outcome = main.iterate(on_info);
        if limits.time.is_some() {
            self.last_timed = Some((us, outcome.score));
        }
        wait_unbounded(stop, limits);
        shared.abort.store(true, Ordering::SeqCst);
        self.pool.wait(started);

        let ponder = outcome
            .pv
            .get(1)
            .copied()
            .or_else(|| self.ponder_from_tt(pos, outcome.best));
        let score = |v: i32| to_score(v.clamp(-MATE, MATE));
        let lines = if outcome.lines.is_empty() {
            vec![PvLine {
                score: score(outcome.score),
                pv: outcome.pv.clone(),
            }]
        } else {
            outcome
                .lines
                .iter()
                .map(|(v, pv)| PvLine {
                    score: score(*v),
                    pv: pv.clone(),
                })
                .collect()
        };
        SearchResult {
            best: Some(outcome.best),
            ponder,
            score: score(outcome.score),
            depth: outcome.depth,
            nodes: shared.total_nodes(),
            lines,
        }
    }

    /// The expected reply after `best`, from the TT, if it is legal there.
    fn ponder_from_tt(&self, pos: &Position, best: Move) -> Option<Move> {
        let mut p = pos.clone();
        p.make_move(best);
        let mv = self.tt.probe(p.key())?.mv;
        (!mv.is_none() && p.is_legal(mv)).then_some(mv)
    }
}

/// Drops a replaced table on a thread of its own: giving back many
/// gigabytes of touched pages takes a while, and the protocol must not wait.
fn free_in_background(tt: Arc<Tt>) {
    if tt.bytes() < 256 << 20 {
        return;
    }
    // Had the thread not started, the closure, and the table in it, is
    // dropped right here instead.
    let _ = std::thread::Builder::new().spawn(move || drop(tt));
}

/// A ponder or infinite search answers only after `stop`, or for a ponder
/// search also after `ponderhit`, even when it has nothing left to search.
fn wait_unbounded(handle: &StopHandle, limits: &Limits) {
    if !(limits.infinite || limits.ponder) {
        return;
    }
    while !handle.is_stopped() {
        if limits.ponder && !limits.infinite && handle.ponderhit.load(Ordering::Relaxed) {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// What a helper thread is asked to do.
enum Task {
    Search(Arc<Shared>, Box<Position>),
    ClearHeuristics,
}

/// Helper threads that live as long as the engine (or until `set_threads`
/// lowers their number), each with its own move-ordering memory, so that
/// a search does not start threads and what they learnt is kept.
#[derive(Default)]
struct Pool {
    helpers: Vec<Helper>,
    /// Each helper reports here when it has finished a task.
    done: Option<(Sender<()>, Receiver<()>)>,
}

struct Helper {
    tasks: Sender<Task>,
    thread: JoinHandle<()>,
}

impl Pool {
    fn done_channel(&mut self) -> &(Sender<()>, Receiver<()>) {
        self.done.get_or_insert_with(channel)
    }

    fn resize(&mut self, helpers: usize) {
        while self.helpers.len() > helpers {
            if let Some(h) = self.helpers.pop() {
                // Closing its channel ends the helper's loop.
                drop(h.tasks);
                let _ = h.thread.join();
            }
        }
        let done = self.done_channel().0.clone();
        while self.helpers.len() < helpers {
            let id = self.helpers.len() + 1;
            let (tasks, inbox) = channel::<Task>();
            let done = done.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("chuhe-search-{id}"))
                .spawn(move || helper_loop(id, inbox, done));
            match spawned {
                Ok(thread) => self.helpers.push(Helper { tasks, thread }),
                // The system will not give more threads: search with fewer.
                Err(_) => break,
            }
        }
    }

    /// Hands the search to every helper; returns how many took it.
    fn start(&mut self, shared: &Arc<Shared>, pos: &Position) -> usize {
        let mut started = 0;
        for h in &self.helpers {
            let task = Task::Search(shared.clone(), Box::new(pos.clone()));
            started += h.tasks.send(task).is_ok() as usize;
        }
        started
    }

    /// Waits until `n` helpers have finished their task (or one has died,
    /// which only a bug can cause: then waiting longer would hang).
    fn wait(&mut self, n: usize) {
        let mut left = n;
        while left > 0 {
            match self
                .done_channel()
                .1
                .recv_timeout(Duration::from_millis(50))
            {
                Ok(()) => left -= 1,
                Err(_) if self.helpers.iter().any(|h| h.thread.is_finished()) => return,
                Err(_) => {}
            }
        }
    }

    fn clear_heuristics(&mut self) {
        let mut sent = 0;
        for h in &self.helpers {
            sent += h.tasks.send(Task::ClearHeuristics).is_ok() as usize;
        }
        self.wait(sent);
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.resize(0);
    }
}

fn helper_loop(id: usize, inbox: Receiver<Task>, done: Sender<()>) {
    let mut heur = Heuristics::default();
    let mut cycles = CycleCache::default();
    for task in inbox {
        match task {
            Task::Search(shared, pos) => {
                let mut w = Worker::new(id, &shared, &mut heur, &mut cycles, *pos, None);
                w.iterate(&mut |_| {});
            }
            Task::ClearHeuristics => heur.clear(),
        }
        if done.send(()).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_cap_leaves_a_quarter() {
        // 3/4 of 24 GB and 64 MB is 18,480 MB: 16 GB, a power of two.
        assert_eq!(hash_cap_mb(24 << 30, 64 << 20), 16 * 1024);
        // A few megabytes more or less free do not change the answer.
        assert_eq!(hash_cap_mb((24 << 30) - (37 << 20), 64 << 20), 16 * 1024);
        assert_eq!(hash_cap_mb(0, 0), MIN_HASH_MB);
    }

    #[test]
    fn reports_say_what_happened() {
        let mut e = Searcher::new();
        let r = e.set_hash_mb(2);
        assert_eq!((r.mb, r.note()), (2, None));
        let r = e.set_hash_mb(0);
        assert_eq!(r.mb, MIN_HASH_MB);
        assert!(r.note().is_some());
        // Far more than any machine here has free: cut down, never aborted.
        let r = e.set_hash_mb(MAX_HASH_MB);
        if available_memory().is_some_and(|a| a < (MAX_HASH_MB << 20)) {
            let cap = r.capped_to_mb.expect("capped");
            assert!(cap < MAX_HASH_MB);
            assert!(r
                .note()
                .unwrap()
                .contains("more than this machine has free"));
        }
        assert!(r.failed || r.mb == r.capped_to_mb.unwrap_or(MAX_HASH_MB));
        // Asked again, the same answer, though the table in use is now the
        // capped one.
        let again = e.set_hash_mb(MAX_HASH_MB);
        assert_eq!(again.note(), r.note());
    }

    #[test]
    fn threads_persist_and_resize() {
        let mut e = Searcher::new();
        assert_eq!(e.set_threads(3), 3);
        let ids: Vec<_> = e
            .pool
            .helpers
            .iter()
            .map(|h| h.thread.thread().id())
            .collect();
        let pos = Position::startpos();
        let limits = Limits {
            depth: Some(4),
            ..Limits::default()
        };
        for _ in 0..3 {
            let r = e.go(&pos, &limits, &mut |_| {});
            assert!(r.best.is_some() && r.nodes > 0);
        }
        let after: Vec<_> = e
            .pool
            .helpers
            .iter()
            .map(|h| h.thread.thread().id())
            .collect();
        assert_eq!(ids, after, "the same helper threads serve every search");
        assert_eq!(e.set_threads(1), 1);
        assert_eq!(e.set_threads(MAX_THREADS + 10), MAX_THREADS);
        e.new_game();
        assert!(e.go(&pos, &limits, &mut |_| {}).best.is_some());
    }

    #[test]
    fn a_stop_before_the_search_is_kept() {
        let mut e = Searcher::new();
        let stop = StopHandle::new();
        stop.stop();
        let limits = Limits {
            infinite: true,
            ..Limits::default()
        };
        // Infinite, but stopped before it began: it must end, with a move.
        let r = e.go_with(&Position::startpos(), &limits, &stop, &mut |_| {});
        assert!(r.best.is_some());
        // The engine's own next token is fresh.
        assert!(!e.stop_handle().is_stopped());
    }
}
