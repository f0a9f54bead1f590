//! The engine object: everything a game needs besides the position. The
//! search (transposition table, threads, move-ordering memory), the
//! evaluation in use (a network file, the built-in network or the
//! hand-crafted evaluation), the opening books and the playing strength
//! (`strength`). The protocols drive it
//! through these methods and keep none of this state themselves; it knows
//! nothing of any protocol and reports what happened as values the caller
//! words for its GUI.
//!
//! Use `Engine` for everything that searches: the protocols and the tools
//! (analysis, bench, datagen, the GUI) all make one, configure it with
//! `set_hash_mb`, `set_threads`, `load_network` or `set_network` and
//! `set_use_nnue`, and search with `go` (at full strength exactly
//! `Searcher::go_with`). `Searcher` is the search inside it, reached
//! through `Engine::searcher` only where a caller needs something `Engine`
//! does not offer; nothing outside the search's own tests builds one.

mod strength;

pub use strength::{Strength, MAX_ELO, MAX_LEVEL, MIN_ELO};

use crate::board::{Move, Position};
use crate::book::{self, Book, BookError, Variety};
use crate::eval::{self, EvalTrace};
use crate::nnue::{self, net::NetError, net::Network};
use crate::rng::SplitMix64;
use crate::search::{HashReport, HashView, Limits, SearchInfo, SearchResult, Searcher, StopHandle};
use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// The name that selects the network built into the binary (the `evalfile`
/// value GUIs see by default).
pub const EMBEDDED_NET: &str = "<embedded>";

/// What loading a network did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetworkLoaded {
    /// The built-in network is in use.
    Embedded,
    /// This build's built-in network fails its own checks (a test rules it
    /// out): the hand-crafted evaluation plays.
    NoEmbedded,
    /// The network from this file is in use.
    File(String),
}

/// Why the engine refused a file it was given. In each case it keeps what
/// it had: the network in use, the books that could be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// A network file that cannot be used.
    Network { path: String, cause: NetError },
    /// A book that cannot be read; it is left out.
    Book(BookError),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Network { path, cause } => write!(f, "{path}: {cause}"),
            EngineError::Book(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for EngineError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EngineError::Network { cause, .. } => Some(cause),
            EngineError::Book(e) => Some(e),
        }
    }
}

/// A move from the opening book, with where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookPick {
    pub mv: Move,
    /// The reply we expect: the heaviest book move after ours.
    pub ponder: Option<Move>,
    pub weight: u32,
    /// The file of the book that answered.
    pub path: String,
}

/// A book `load_books` read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookInfo {
    pub path: String,
    pub records: usize,
    pub format: book::Format,
}

pub struct Engine {
    search: Searcher,
    /// The network `load_network` chose (None: none could be had); it
    /// evaluates while `use_nnue` is on.
    net: Option<Arc<Network>>,
    use_nnue: bool,
    books: Vec<Book>,
    /// Book choices and a reduced strength's choices.
    rng: SplitMix64,
    strength: Strength,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

impl Engine {
    /// An engine with the default table, one thread, the built-in network
    /// and no book.
    pub fn new() -> Engine {
        let net = nnue::default_network();
        let mut search = Searcher::new();
        search.set_network(net.clone());
        Engine {
            search,
            net,
            use_nnue: true,
            books: Vec::new(),
            rng: SplitMix64::from_entropy(),
            strength: Strength::full(),
        }
    }

    /// The search itself, for the tools that drive it directly.
    pub fn searcher(&mut self) -> &mut Searcher {
        &mut self.search
    }

    pub fn set_hash_mb(&mut self, mb: usize) -> HashReport {
        self.search.set_hash_mb(mb)
    }

    /// Evaluates with `net`, a network the caller already loaded (None:
    /// the hand-crafted evaluation), while `use_nnue` is on. For tools that
    /// load one network once and share it among several engines (datagen's
    /// threads) rather than reading the file for each.
    pub fn set_network(&mut self, net: Option<Arc<Network>>) {
        self.net = net;
        self.apply_evaluation();
    }

    /// Returns how many search threads there are now (fewer than asked if
    /// the system refuses more).
    pub fn set_threads(&mut self, n: usize) -> usize {
        self.search.set_threads(n)
    }

    /// Forgets everything learnt in the previous game.
    pub fn new_game(&mut self) {
        self.search.new_game();
    }

    /// A read-only view of the table (UCCI `probe`), valid while searching;
    /// take a new one after `set_hash_mb` or `new_game`.
    pub fn hash_view(&self) -> HashView {
        self.search.hash_view()
    }

    /// Loads the network `source` names: `EMBEDDED_NET` (or nothing) for
    /// the built-in one, else a file. A file that cannot be used is refused
    /// with the reason and the network in use is kept.
    pub fn load_network(&mut self, source: &str) -> Result<NetworkLoaded, EngineError> {
        let source = source.trim();
        let loaded = if source.is_empty() || source == EMBEDDED_NET {
            self.net = nnue::default_network();
            if self.net.is_some() {
                NetworkLoaded::Embedded
            } else {
                NetworkLoaded::NoEmbedded
            }
        } else {
            let net = Network::load(Path::new(source)).map_err(|cause| EngineError::Network {
                path: source.to_string(),
                cause,
            })?;
            self.net = Some(Arc::new(net));
            NetworkLoaded::File(source.to_string())
        };
        self.apply_evaluation();
        Ok(loaded)
    }

    /// The evaluation of `pos` taken apart (the `eval` command), with the
    /// loaded network even while the hand-crafted evaluation plays, and
    /// whether the network is the one in use.
    pub fn eval_trace(&self, pos: &Position) -> (EvalTrace, bool) {
        let trace = eval::trace(self.net.as_deref(), pos);
        (trace, self.use_nnue && self.net.is_some())
    }

    /// On: the loaded network evaluates; off: the hand-crafted evaluation.
    pub fn set_use_nnue(&mut self, on: bool) {
        self.use_nnue = on;
        self.apply_evaluation();
    }

    fn apply_evaluation(&mut self) {
        let net = self.net.clone().filter(|_| self.use_nnue);
        self.search.set_network(net);
    }

    /// Replaces the books with those of `files`; one answer per file, in
    /// order: what was read, or why it could not be (it is left out).
    pub fn load_books(&mut self, files: &[&str]) -> Vec<Result<BookInfo, EngineError>> {
        self.books.clear();
        let mut answers = Vec::with_capacity(files.len());
        for file in files {
            answers.push(Book::open(file).map_err(EngineError::Book).map(|b| {
                let info = BookInfo {
                    path: b.path().to_string(),
                    records: b.len(),
                    format: b.format(),
                };
                self.books.push(b);
                info
            }));
        }
        answers
    }

    pub fn has_books(&self) -> bool {
        !self.books.is_empty()
    }

    /// The book's move for a search in `pos` with `limits`, if a book holds
    /// the position and one of its moves is allowed (see `crate::book` for
    /// the filters). Analysis (`infinite`) and mate searches always search.
    pub fn book_move(
        &mut self,
        pos: &Position,
        limits: &Limits,
        variety: Variety,
    ) -> Option<BookPick> {
        if self.books.is_empty() || limits.infinite || limits.mate.is_some() {
            return None;
        }
        let allowed = limits.root_moves(pos);
        let (choice, index) = book::choose(&self.books, pos, &allowed, variety, &mut self.rng)?;
        let mut after = pos.clone();
        after.make_move(choice.mv);
        let ponder = self
            .books
            .iter()
            .find_map(|b| b.probe(&after))
            .and_then(|m| m.first().map(|b| b.mv));
        Some(BookPick {
            mv: choice.mv,
            ponder,
            weight: choice.weight,
            path: self.books[index].path().to_string(),
        })
    }

    /// How well to play (full strength unless told otherwise).
    pub fn set_strength(&mut self, strength: Strength) {
        self.strength = strength;
    }

    pub fn strength(&self) -> Strength {
        self.strength
    }

    /// Searches `pos` (its history is the game's) until a limit is reached
    /// or `stop` is stopped, reporting progress through `on_info`. Below
    /// full strength the search is limited and the move chosen among its
    /// best lines (see `strength`).
    pub fn go(
        &mut self,
        pos: &Position,
        limits: &Limits,
        stop: &StopHandle,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        if self.strength.is_full() {
            return self.search.go_with(pos, limits, stop, on_info);
        }
        let mut limited = limits.clone();
        self.strength.restrict(&mut limited);
        let mut result = self.search.go_with(pos, &limited, stop, on_info);
        if let Some(line) = self.strength.choose(&result.lines, &mut self.rng) {
            result.best = line.pv.first().copied();
            result.ponder = line.pv.get(1).copied();
            result.score = line.score;
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_network_file_keeps_the_one_in_use() {
        let mut e = Engine::new();
        assert_eq!(e.load_network(EMBEDDED_NET), Ok(NetworkLoaded::Embedded));
        let err = e.load_network("/nonexistent/net.nnue").unwrap_err();
        assert!(
            matches!(&err, EngineError::Network { path, .. } if path == "/nonexistent/net.nnue")
        );
        assert!(
            err.to_string().starts_with("/nonexistent/net.nnue: "),
            "{err}"
        );
        assert!(e.net.is_some(), "the built-in network is still loaded");
        e.set_use_nnue(false);
        assert!(e.searcher().network().is_none());
        e.set_use_nnue(true);
        assert!(e.searcher().network().is_some());
    }

    #[test]
    fn a_weaker_level_plays_a_near_best_legal_move() {
        let mut e = Engine::new();
        e.set_hash_mb(4);
        e.set_strength(Strength::level(2));
        let pos = Position::startpos();
        let limits = Limits {
            depth: Some(30),
            ..Limits::default()
        };
        let mut played = Vec::new();
        for _ in 0..8 {
            let r = e.go(&pos, &limits, &StopHandle::new(), &mut |_| {});
            let best = r.best.expect("a move");
            assert!(pos.is_legal(best));
            // Chosen among the lines, within the level's margin of the best.
            assert!(r.lines.len() >= 2, "{:?}", r.lines);
            let line = r
                .lines
                .iter()
                .find(|l| l.pv[0] == best)
                .expect("one of the lines");
            let cp = |s| match s {
                crate::search::Score::Cp(c) => c,
                _ => 0,
            };
            assert!(cp(r.lines[0].score) - cp(line.score) <= Strength::level(2).margin());
            assert!(r.nodes <= Strength::level(2).nodes() + 2048);
            played.push(best);
        }
        assert!(
            played.iter().any(|&m| m != played[0]),
            "a weak level varies its moves: {played:?}"
        );
    }

    #[test]
    fn unreadable_books_are_reported_and_left_out() {
        let mut e = Engine::new();
        let r = e.load_books(&["/nonexistent/book.dat"]);
        assert_eq!(r.len(), 1);
        assert!(matches!(&r[0], Err(EngineError::Book(b)) if b.path == "/nonexistent/book.dat"));
        assert!(!e.has_books());
        let limits = Limits::default();
        assert_eq!(
            e.book_move(&Position::startpos(), &limits, Variety::Medium),
            None
        );
    }
}
