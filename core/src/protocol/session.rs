//! The main thread: protocol state and the commands that change it.

use super::command::{self, Command, CommandError, GoParams, PositionSpec};
use super::controller::{Controller, Running, Verdict, QUIT_GRACE};
use super::inspect;
use super::options::{Dialect, Id};
use super::output::{score_text, Out};
use super::reader::Input;
use super::timecontrol::{self, Context};
use super::worker::{Done, Event, Job, SharedHandle, Show};
use super::{Mode, HELP_OPENERS};
use crate::board::{Move, Position};
use crate::search::{Limits, Score, SearchResult, StopHandle};
use std::collections::VecDeque;
use std::sync::mpsc::{Receiver, Sender};

/// Lines kept waiting for a search to end; a GUI that sends more is flooding.
const MAX_PENDING: usize = 10_000;

pub struct Session {
    mode: Mode,
    /// `ucci` or `uci` was seen (`help` lists the openers until then).
    chosen: bool,
    /// The running search is the controller's (`Running`), with what this
    /// session keeps about it (`Thinking`).
    ctl: Controller<Thinking>,
    pos: Position,
    banmoves: Vec<Move>,
    /// A running `go perft`, with the token that stops it.
    perft: Option<StopHandle>,
    /// Commands that arrived while busy and must wait for the search to end.
    pending: Pending,
    eof: bool,
    /// `quit` came: the running search was stopped; it and the commands
    /// that came before `quit` are answered (any `go` among them stopped at
    /// once), the worker's queued jobs get a moment to finish, then the
    /// session ends. Input after `quit` is not read.
    quitting: bool,
}

/// Commands that wait for the running search (or perft) to end, in order,
/// parsed once when they arrive (a bad line keeps its error, told in turn).
#[derive(Default)]
struct Pending {
    commands: VecDeque<Parsed>,
}

type Parsed = Result<Command, CommandError>;

impl Pending {
    fn len(&self) -> usize {
        self.commands.len()
    }

    fn push(&mut self, cmd: Parsed) {
        self.commands.push_back(cmd);
    }

    fn pop_front(&mut self) -> Option<Parsed> {
        self.commands.pop_front()
    }

    fn has_go(&self) -> bool {
        self.commands
            .iter()
            .any(|c| matches!(c, Ok(Command::Go(_))))
    }

    /// The first `stop` or `ponderhit` with no `go` before it: it was sent
    /// after the `go` now running (which waited here itself), so it is for
    /// that search.
    fn take_signal(&mut self) -> Option<Command> {
        let i = self.commands.iter().position(|c| {
            matches!(
                c,
                Ok(Command::Go(_) | Command::Stop | Command::PonderHit { .. })
            )
        })?;
        match self.commands[i] {
            Ok(Command::Go(_)) => None,
            _ => self.commands.remove(i)?.ok(),
        }
    }
}

/// What UCCI and UCI keep about the running search.
struct Thinking {
    pondering: bool,
    infinite: bool,
    /// The opponent offered a draw (`go draw`, `ponderhit draw`).
    draw_offered: bool,
    /// A search on the game clock: its score counts towards resigning or
    /// offering a draw.
    on_clock: bool,
    stop_sent: bool,
}

impl Thinking {
    /// Whether the answer must wait for the GUI (UCI and UCCI both forbid a
    /// `bestmove` during an infinite search or a ponder before `ponderhit`).
    fn must_wait(&self) -> bool {
        (self.infinite || self.pondering) && !self.stop_sent
    }
}

impl Session {
    pub fn new(out: Out, jobs: Sender<Job>, handle: SharedHandle) -> Session {
        Session {
            mode: Mode::Ucci,
            chosen: false,
            ctl: Controller::new(out, jobs, handle, Dialect::Ucci),
            pos: Position::startpos(),
            banmoves: Vec::new(),
            perft: None,
            pending: Pending::default(),
            eof: false,
            quitting: false,
        }
    }

    pub fn run(mut self, inbox: Receiver<Event>) -> ! {
        loop {
            if !self.busy() {
                if let Some(cmd) = self.pending.pop_front() {
                    self.run_parsed(cmd);
                    continue;
                }
                if self.quitting {
                    // Once the search thread is through with the jobs of
                    // the commands before `quit`, within `QUIT_GRACE`.
                    let last = self.mode.words().goodbye;
                    self.ctl.end(last, Some(QUIT_GRACE));
                } else if self.eof {
                    // What the search thread was given still gets done (a
                    // queued `readyok`, say).
                    self.ctl.end(None, None);
                }
            } else if let Some(cmd) = self.take_signal() {
                self.carry_out(cmd);
                continue;
            }
            match self.ctl.next_event(&inbox) {
                // What follows `quit` is not for this session.
                Event::Input(_) if self.quitting => {}
                Event::Input(Input::Line(line)) => self.on_line(line),
                Event::Input(Input::TooLong(n)) => self.error(&format!(
                    "line of {n} bytes is longer than {} and was ignored",
                    super::reader::MAX_LINE
                )),
                Event::Input(Input::Eof) => self.on_eof(),
                Event::SearchDone(done) => self.on_search_done(done),
                Event::PerftDone => self.perft = None,
                Event::Synced => self.ctl.synced(),
                Event::Progress(_) => {}
            }
        }
    }

    /// A search or perft runs.
    fn busy(&self) -> bool {
        self.perft.is_some() || self.ctl.running().is_some()
    }

    fn say(&self, line: &str) {
        self.ctl.say(line);
    }

    fn error(&self, what: &str) {
        self.ctl.error(what);
    }

    fn note(&self, what: &str) {
        self.ctl.note(what);
    }

    fn send(&self, job: Job) {
        self.ctl.send(job);
    }

    fn batch(&self) -> bool {
        self.ctl.opts.flag(Id::Batch)
    }

    fn debug(&self) -> bool {
        self.ctl.opts.flag(Id::Debug)
    }

    fn on_line(&mut self, line: String) {
        let parsed = command::parse(&line);
        if !self.busy() {
            return self.run_parsed(parsed);
        }
        if self.batch() {
            return self.defer(parsed);
        }
        match parsed {
            // A `stop` or `ponderhit` behind a `go` still waiting its turn
            // is for that search, not the one running now.
            Ok(cmd @ (Command::Stop | Command::PonderHit { .. })) if self.pending.has_go() => {
                self.defer(Ok(cmd))
            }
            Ok(
                cmd @ (Command::Stop
                | Command::PonderHit { .. }
                | Command::IsReady
                | Command::Probe(_)
                | Command::Display
                | Command::Quit
                | Command::Debug(_)
                | Command::Help
                | Command::Empty),
            ) => self.carry_out(cmd),
            Ok(cmd) => self.defer(Ok(cmd)),
            Err(e) => self.error(&e.to_string()),
        }
    }

    /// While a search or perft runs: a deferred `stop` or `ponderhit` that
    /// was for it (see `Pending::take_signal`). Waiting for that search to
    /// end first could wait forever. Lines deferred in batch mode wait for
    /// the search to end.
    fn take_signal(&mut self) -> Option<Command> {
        if self.batch() {
            return None;
        }
        self.pending.take_signal()
    }

    fn defer(&mut self, cmd: Parsed) {
        if self.pending.len() >= MAX_PENDING {
            return self.error("too many commands waiting for the search to end; line dropped");
        }
        self.pending.push(cmd);
    }

    fn run_parsed(&mut self, cmd: Parsed) {
        match cmd {
            Ok(cmd) => self.carry_out(cmd),
            Err(e) => self.error(&e.to_string()),
        }
    }

    fn carry_out(&mut self, cmd: Command) {
        match cmd {
            Command::Ucci => self.hello(Mode::Ucci),
            Command::Uci => self.hello(Mode::Uci),
            // While thinking the search thread is busy, but the protocol is
            // ready; while idle it answers once earlier setup jobs are done.
            Command::IsReady if self.busy() => self.say("readyok"),
            Command::IsReady => self.send(Job::Reply("readyok".into())),
            Command::Debug(on) => self.ctl.opts.set_flag(Id::Debug, on),
            Command::SetOption { name, value } => {
                if let Err(e) = self.ctl.set_option(&name, value.as_deref()) {
                    self.error(&e.to_string());
                }
            }
            Command::Position(spec) => match build_position(&spec) {
                Ok(p) => {
                    self.pos = p;
                    self.banmoves.clear();
                }
                Err(e) => self.error(&format!("{}: {e}", command::POSITION_REJECTED)),
            },
            Command::BanMoves { moves, unreadable } => {
                for t in &unreadable {
                    self.error(&format!(
                        "banmoves: '{}' {}, ignored",
                        command::shorten(t),
                        command::NOT_ICCS
                    ));
                }
                self.ban(&moves)
            }
            Command::Go(params) => self.go(*params),
            Command::PonderHit { draw } => self.ponderhit(draw),
            Command::Stop => self.stop(),
            Command::Probe(spec) => match build_position(&spec) {
                Ok(pos) => {
                    let entry = self.ctl.hash_view().probe(&pos);
                    self.say(&pophash_line(entry.as_ref()));
                }
                Err(e) => self.error(&format!("probe: {e}")),
            },
            Command::Display => {
                for line in inspect::display(&self.pos) {
                    self.say(&line);
                }
            }
            Command::Eval => self.send(Job::Eval(self.pos.clone())),
            Command::Quit => self.quit(),
            Command::NewGame => self.ctl.new_game(),
            Command::Help => {
                let lines = if self.chosen {
                    self.mode.words().help
                } else {
                    HELP_OPENERS
                };
                for line in lines {
                    self.note(line);
                }
            }
            Command::Empty => {}
        }
    }

    fn hello(&mut self, mode: Mode) {
        self.mode = mode;
        self.chosen = true;
        self.ctl.dialect = Dialect::from(mode);
        let words = mode.words();
        let version = env!("CARGO_PKG_VERSION");
        self.say(&format!("id name Chuhe {version}"));
        if words.copyright {
            self.say("id copyright GPL-3.0-or-later");
        }
        self.say("id author the Chuhe authors");
        for line in self.ctl.opts.announce(self.ctl.dialect) {
            self.say(&line);
        }
        self.say(words.hello_ok);
    }

    fn ban(&mut self, moves: &[Move]) {
        for &mv in moves {
            if !self.pos.is_legal(mv) {
                self.error(&format!("banmoves: {mv} is not a legal move here, ignored"));
            } else if !self.banmoves.contains(&mv) {
                self.banmoves.push(mv);
            }
        }
    }

    fn go(&mut self, params: GoParams) {
        for p in &params.problems {
            self.error(&format!("go: {p}"));
        }
        if let Some(depth) = params.perft {
            return self.perft(depth);
        }
        let opts = &self.ctl.opts;
        let ctx = Context {
            words: self.mode.words(),
            usemillisec: opts.flag(Id::UseMillisec),
            side: self.pos.side_to_move(),
            move_overhead_ms: opts.move_overhead().as_millis() as u64,
            multipv: opts.multipv(),
        };
        let (mut limits, notes) = timecontrol::limits(&params, &ctx, &self.banmoves);
        for n in &notes {
            self.error(&format!("go: {n}"));
        }
        self.check_searchmoves(&mut limits);
        if self.debug() {
            self.note(&format!("debug: limits {limits:?}"));
        }
        let thinking = Thinking {
            pondering: limits.ponder,
            infinite: limits.infinite,
            draw_offered: params.draw,
            on_clock: limits.time.is_some() && !limits.infinite,
            stop_sent: false,
        };
        if limits.root_moves(&self.pos).is_empty() {
            if self.pos.has_legal_move() {
                self.note("every legal move is banned");
            }
            self.say(&format!(
                "info depth 0 {}",
                score_text(self.mode.words(), Score::Mate(0))
            ));
            let wait = thinking.must_wait() && !self.quitting;
            self.ctl
                .start_answered(self.pos.clone(), no_move_result(), thinking);
            if !wait {
                self.release();
            }
            return;
        }
        let show = Show::Info {
            mode: self.mode,
            chinese_pv: self.debug(),
            wdl: self.ctl.opts.flag(Id::ShowWdl),
        };
        self.ctl
            .start_search(self.pos.clone(), limits, show, thinking);
        if self.quitting {
            // A `go` that came before `quit`: answered, at once.
            self.stop();
        }
    }

    /// Drops `searchmoves` that are not legal here; if none is left, all
    /// moves are searched.
    fn check_searchmoves(&self, limits: &mut Limits) {
        let given = limits.searchmoves.len();
        limits.searchmoves.retain(|&mv| self.pos.is_legal(mv));
        if limits.searchmoves.len() < given {
            self.error("go: searchmoves has moves that are not legal here, ignored");
        }
    }

    fn perft(&mut self, depth: u64) {
        let max = crate::board::perft::MAX_DEPTH;
        if depth > u64::from(max) {
            return self.error(&format!("go perft {depth} is too deep (at most {max})"));
        }
        let stop = StopHandle::new();
        if self.quitting {
            stop.stop();
        }
        self.perft = Some(stop.clone());
        self.send(Job::Perft {
            pos: self.pos.clone(),
            depth: depth as u32,
            threads: self.ctl.opts.threads().max(1),
            stop,
        });
    }

    fn stop(&mut self) {
        if let Some(perft) = &self.perft {
            return perft.stop();
        }
        match self.ctl.running_mut() {
            None => {
                if let Some(line) = self.mode.words().stop_while_idle {
                    self.say(line);
                }
            }
            Some(r) => {
                r.detail.stop_sent = true;
                if r.held.is_some() {
                    self.release();
                } else {
                    r.stop.stop();
                }
            }
        }
    }

    fn ponderhit(&mut self, draw: bool) {
        let Some(r) = self.ctl.running_mut().filter(|r| r.detail.pondering) else {
            return self.error("ponderhit while not pondering, ignored");
        };
        r.detail.pondering = false;
        r.detail.draw_offered |= draw;
        if r.held.is_some() {
            if !r.detail.must_wait() {
                self.release();
            }
        } else {
            r.stop.ponderhit();
        }
    }

    /// `quit`: a running search is stopped and still answered with its
    /// `bestmove`, as ElephantEye and Stockfish do (a GUI may be waiting for
    /// it), and so is every command that came before; the loop then ends
    /// the session (`finish_and_quit`).
    fn quit(&mut self) {
        self.quitting = true;
        self.stop_for_quit();
    }

    /// While quitting: whatever runs is stopped, even an infinite search or
    /// a ponder search (their answer may then be told).
    fn stop_for_quit(&mut self) {
        if self.busy() {
            self.stop();
        }
    }

    fn on_eof(&mut self) {
        self.eof = true;
        // Nothing could end these any more, so end them now.
        if self.ctl.running().is_some_and(|r| r.detail.must_wait()) {
            self.stop();
        }
    }

    fn on_search_done(&mut self, done: Done) {
        let from_book = done.from_book;
        let Some(r) = self.ctl.search_done(done) else {
            return;
        };
        if from_book {
            // Not a judgement of the position: it counts neither towards
            // resigning or offering a draw nor for accepting one.
            r.detail.on_clock = false;
            r.detail.draw_offered = false;
        }
        if !r.detail.must_wait() {
            self.release();
        }
    }

    /// Tells the held result and goes idle.
    fn release(&mut self) {
        let Some(r) = self.ctl.take_running() else {
            return;
        };
        let Some(done) = r.held.as_ref() else {
            return;
        };
        let line = self.bestmove_line(&r, done);
        self.say(&line);
    }

    fn bestmove_line(&mut self, r: &Running<Thinking>, done: &Done) -> String {
        let t = &r.detail;
        let allowed: Vec<Move> = r
            .root
            .legal_moves()
            .into_iter()
            .filter(|m| !self.banmoves.contains(m))
            .collect();
        if let Some(m) = done.result.best.filter(|m| !allowed.contains(m)) {
            self.error(&format!(
                "the search chose {m}, which is not allowed here; replaced"
            ));
        }
        let Some(best) = done.best_in(&allowed) else {
            return self.mode.words().no_move.to_string();
        };
        let mut line = format!("bestmove {best}");
        if let Some(p) = done.ponder_move(&r.root, best) {
            line.push_str(&format!(" ponder {p}"));
        }
        // A ponder search the GUI stopped was on the wrong move: not our game.
        let in_game = t.on_clock && !(t.pondering && t.stop_sent);
        let verdict = self.ctl.verdict(&r.root, done, t.draw_offered, in_game);
        if self.mode.words().draw_and_resign {
            line.push_str(match verdict {
                Some(Verdict::Draw) => " draw",
                Some(Verdict::Resign) => " resign",
                None => "",
            });
        }
        line
    }
}

/// The position a `position`/`probe` command names, or why it cannot be set.
fn build_position(spec: &PositionSpec) -> Result<Position, String> {
    let mut pos = match &spec.fen {
        None => Position::startpos(),
        Some(fen) => Position::from_fen(fen).map_err(|e| format!("bad FEN: {e}"))?,
    };
    for (i, &mv) in spec.moves.iter().enumerate() {
        if !pos.is_legal(mv) {
            return Err(format!(
                "move {} ({mv}) is not legal in its position",
                i + 1
            ));
        }
        pos.make_move(mv);
    }
    Ok(pos)
}

fn no_move_result() -> Done {
    Done {
        result: SearchResult::no_move(),
        pv: Vec::new(),
        from_book: false,
    }
}

/// The UCCI answer to `probe`: `pophash [bestmove <m>] [lowerbound <v> depth
/// <d>] [upperbound <v> depth <d>]`, bare when the table has nothing.
fn pophash_line(entry: Option<&crate::search::HashEntry>) -> String {
    let mut line = String::from("pophash");
    if let Some(e) = entry {
        let v = super::output::ucci_score(crate::search::values::to_score(e.score));
        if let Some(m) = e.best {
            line += &format!(" bestmove {m}");
        }
        if e.lower {
            line += &format!(" lowerbound {v} depth {}", e.depth.max(0));
        }
        if e.upper {
            line += &format!(" upperbound {v} depth {}", e.depth.max(0));
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::{command, Command, Pending};

    fn pending(lines: &[&str]) -> Pending {
        let mut p = Pending::default();
        for l in lines {
            p.push(command::parse(l));
        }
        p
    }

    #[test]
    fn a_signal_is_taken_only_when_no_go_waits_before_it() {
        // Behind a waiting `go`: for that go, so it stays.
        let mut p = pending(&["position startpos", "go infinite", "stop"]);
        assert!(p.has_go());
        assert_eq!(p.take_signal(), None);
        // The go starts (popped); now the stop is for the running search,
        // even behind other setup lines.
        assert_eq!(p.pop_front(), Some(command::parse("position startpos")));
        assert_eq!(p.pop_front(), Some(command::parse("go infinite")));
        assert!(!p.has_go());
        assert_eq!(p.take_signal(), Some(Command::Stop));
        assert_eq!(p.take_signal(), None);
        let mut p = pending(&[
            "setoption name Hash value 8",
            "ponderhit",
            "go depth 1",
            "stop",
        ]);
        assert_eq!(p.take_signal(), Some(Command::PonderHit { draw: false }));
        assert_eq!(p.take_signal(), None, "the stop is for the go before it");
        assert_eq!(p.len(), 3);
    }
}
