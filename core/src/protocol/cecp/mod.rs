//! CECP, the XBoard/WinBoard engine protocol (version 2), chosen by `xboard`
//! as the first command. It shares the reader, the search thread, the
//! writer and the option table with UCCI and UCI, but not their session:
//! CECP gives the engine a part in the game (a colour to play, force mode,
//! analyze mode, its own clocks and pondering) where UCCI and UCI only ask
//! for one search at a time, so this module keeps that state itself.
//!
//! The state: the game (its position with every move since `new` or
//! `setboard`), the colour the engine plays (none in force mode and in
//! analyze mode), and at most one search: thinking on the engine's move,
//! pondering on the opponent's time, or analysing. Every command is taken
//! as it comes, also while a search runs:
//! - settings (`post`, `level`, `time`, `memory`, `option` ...) apply at
//!   once, to the next search; the search thread takes hash and thread
//!   changes once a running search ends;
//! - `?` ends the search on our move, which is then played;
//! - whatever changes the game or the engine's part in it (`force`, `new`,
//!   `setboard`, `undo`, `remove`, `result`, a move, `exit`, `easy`) first
//!   stops the running search and forgets its result; a move that is the
//!   one being pondered turns the ponder search into the real one instead;
//! - `ping` is answered once everything before it is done: while thinking
//!   on our move, after the move (as the protocol says); while pondering or
//!   analysing, at once; otherwise once the search thread has done the work
//!   queued before it (a new game clears the hash table first). Pongs keep
//!   their order: XBoard ignores a move, or a result, that comes while a
//!   ping is unanswered.
//!
//! Choices where the protocol leaves room:
//! - moves are ICCS coordinates, which are XBoard's xiangqi coordinates
//!   (files a-i, ranks 0-9 from Red's side); FENs may use XBoard's H and E
//!   and leave out the castling and en-passant fields;
//! - an illegal move gets `Illegal move (REASON): MOVE`, a command we do
//!   not know `Error (unknown command): LINE`, bad arguments `Error
//!   (REASON): LINE`; none of them changes anything;
//! - game ends are judged by `crate::rules` (Chinese rules) when it is our
//!   move and after we move, and claimed as `verdict` says; after a claim
//!   the engine plays no more until `go` or `new`. A perpetual chase at its
//!   third occurrence is a ban, not an end (`rules::ruling`, 24.3): chasing,
//!   we vary; against a chaser that plays the banned move we claim the win;
//! - pondering (`hard`) searches the position after the reply the last
//!   search expected, with the clock we expect to have then; thinking
//!   lines put that reply first. If that reply comes with a clock clearly
//!   below the expected one, a fresh search replaces the ponder search;
//! - `draw` offers are accepted, and draws offered and games resigned, by
//!   the UCCI rules (`drawresign`, the `Resign Score`, `Resign Moves` and
//!   `Draw Offer Moves` options); a resignation is a result line
//!   (`verdict::resignation`);
//! - `.` answers `stat01: time nodes ply mvleft mvtot`; the search reports
//!   once per finished iteration, so nodes and ply are those of the last
//!   one, and no moves are left in it;
//! - `post` and `nopost` take effect from the next search;
//! - `quit` drops the running search (XBoard has left the game: no move is
//!   owed) but still writes what is (pongs, a claim), within a few seconds;
//! - `random`, `name`, `rating`, `ics`, `computer` change nothing but the
//!   claims (`computer`); `bk`, `edit`, `white`, `black`, `nps`, `pause`
//!   and other commands we never asked XBoard for are unknown commands.

mod clock;
mod command;
mod verdict;

use super::controller::{self, Controller, QUIT_GRACE};
use super::options::Dialect;
use super::output::{Notes, Out};
use super::reader::Input;
use super::worker::{Done, Event, Job, Progress, SharedHandle, Show};
use crate::board::{Color, Move, Position};
use crate::rules::{self, Outcome, Reason, Ruling, Verdict};
use crate::search::Limits;
use clock::Clock;
use command::Command;
use std::sync::mpsc::{Receiver, Sender};
use std::time::{Duration, Instant};

/// Speaks CECP until `quit` or the end of input; does not return.
pub fn run(out: Out, jobs: Sender<Job>, hash: SharedHandle, inbox: Receiver<Event>) -> ! {
    out.set_notes(Notes::Comment);
    Session::new(Controller::new(out, jobs, hash, Dialect::Cecp)).run(inbox)
}

struct Session {
    /// The running search is the controller's (`controller::Running`),
    /// with what this session keeps about it (`Search`).
    ctl: Controller<Search>,
    game: Position,
    /// The colour the engine plays; None in force mode, while analysing and
    /// after the game ended.
    side: Option<Color>,
    analyzing: bool,
    clock: Clock,
    post: bool,
    ponder: bool,
    /// `computer` since the last `new`: an engine-engine game, in which
    /// XBoard tests result claims.
    opponent_is_engine: bool,
    /// The opponent offered a draw since our last move.
    draw_offered: bool,
    /// `ping`s that came while thinking on our move, answered after it.
    held_pongs: Vec<String>,
    /// The last finished iteration of the running search.
    progress: Progress,
    /// The reply we expect, for `hint`, with the key of the position it is
    /// for (any change to the game makes it stale).
    guess: Option<(u64, Move)>,
    eof: bool,
}

/// What CECP keeps about the running search.
struct Search {
    kind: Kind,
    /// The engine's clock the search plans with (`Limits::time`).
    planned_clock: Option<Duration>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// On our move, on our clock.
    Think,
    /// On the opponent's time, in the position after `guess`.
    Ponder { guess: Move },
    /// `analyze`: until the GUI moves on.
    Analyze,
}

impl Session {
    fn new(ctl: Controller<Search>) -> Session {
        Session {
            ctl,
            game: Position::startpos(),
            side: Some(Color::Black),
            analyzing: false,
            clock: Clock::default(),
            post: false,
            ponder: false,
            opponent_is_engine: false,
            draw_offered: false,
            held_pongs: Vec::new(),
            progress: Progress::default(),
            guess: None,
            eof: false,
        }
    }

    fn run(mut self, inbox: Receiver<Event>) -> ! {
        loop {
            if self.eof && self.ctl.running().is_none() && !self.ctl.ending() {
                // What the search thread was given still gets done (a
                // queued pong or claim), then the session ends.
                self.ctl.end(None, None);
            }
            match self.ctl.next_event(&inbox) {
                // What follows `quit` is not for this session.
                Event::Input(_) if self.ctl.quitting() => {}
                Event::Input(Input::Line(line)) => match command::parse(&line) {
                    Ok(cmd) => self.carry_out(cmd, &line),
                    Err(e) => self.say(&e.reply(&line)),
                },
                Event::Input(Input::TooLong(n)) => {
                    self.say(&format!("Error (line too long): {n} bytes dropped"))
                }
                Event::Input(Input::Eof) => self.on_eof(),
                Event::Progress(p) => {
                    // Until the stopped searches have reported, the
                    // progress is theirs.
                    if self.ctl.progress_is_current() {
                        self.progress = p;
                    }
                }
                Event::SearchDone(done) => self.on_done(done),
                Event::Synced => self.ctl.synced(),
                Event::PerftDone => {}
            }
        }
    }

    fn carry_out(&mut self, cmd: Command, line: &str) {
        match cmd {
            Command::Xboard | Command::Noted | Command::Empty => {}
            Command::Protover => self.features(),
            Command::Rejected(feature) => {
                // Without `debug`, a comment line could be taken for a
                // command: say nothing rather than that.
                if feature.trim() == "debug" {
                    self.ctl.out.set_notes(Notes::Dropped);
                }
            }
            Command::New => self.new_game(),
            Command::Variant(v) if v.eq_ignore_ascii_case("xiangqi") => {}
            Command::Variant(v) => self.say(&format!("Error (unsupported variant): {v}")),
            Command::Force => {
                self.abandon_search();
                self.analyzing = false;
                self.side = None;
            }
            Command::Go => self.go(),
            Command::PlayOther => {
                self.abandon_search();
                self.analyzing = false;
                self.side = Some(!self.game.side_to_move());
            }
            Command::Move(mv) => self.user_move(mv),
            Command::Undo => self.take_back(1, line),
            Command::Remove => self.take_back(2, line),
            Command::Level(l) => self.clock.set_level(l),
            Command::St(t) => self.clock.set_per_move(t),
            Command::Sd(d) => self.clock.set_depth(d),
            Command::Time(t) => self.clock.set_mine(t),
            Command::Otim(t) => self.clock.set_theirs(t),
            Command::MoveNow => {
                let running = self.ctl.running();
                if let Some(r) = running.filter(|r| r.detail.kind == Kind::Think) {
                    r.stop.stop();
                }
            }
            Command::Ping(n) => self.ping(n),
            Command::Post(on) => self.post = on,
            Command::Ponder(on) => {
                self.ponder = on;
                if !on && matches!(self.search_kind(), Some(Kind::Ponder { .. })) {
                    self.abandon_search();
                }
            }
            Command::Analyze => {
                self.side = None;
                self.analyzing = true;
                self.analyze();
            }
            Command::Exit => {
                if self.analyzing {
                    self.abandon_search();
                    self.analyzing = false;
                }
            }
            Command::Status => self.status(),
            Command::Hint => {
                if let Some(mv) = self.hint() {
                    self.say(&format!("Hint: {mv}"));
                }
            }
            Command::Result => {
                self.abandon_search();
                self.side = None;
                self.draw_offered = false;
            }
            Command::Memory(mb) => self.set_option("Hash", Some(&mb.to_string()), line),
            Command::Cores(n) => self.set_option("Threads", Some(&n.to_string()), line),
            Command::Option { name, value } => self.set_option(&name, value.as_deref(), line),
            Command::Draw => self.draw_offered = true,
            Command::SetBoard(fen) => match Position::from_fen(&fen) {
                Ok(pos) => {
                    self.abandon_search();
                    self.game = pos;
                    self.after_game_change();
                }
                Err(e) => self.say(&format!("Error (illegal position: {e}): {line}")),
            },
            Command::Computer => self.opponent_is_engine = true,
            Command::Quit => self.quit(),
            Command::Help => {
                for line in HELP {
                    self.ctl.note(line);
                }
            }
        }
    }

    fn say(&self, line: &str) {
        self.ctl.say(line);
    }

    fn features(&self) {
        let version = env!("CARGO_PKG_VERSION");
        self.say(&format!(
            "feature myname=\"Chuhe {version}\" variants=\"xiangqi\" setboard=1 usermove=1 \
             ping=1 analyze=1 colors=0 sigint=0 sigterm=0 memory=1 smp=1 san=0 time=1 \
             draw=1 reuse=1 playother=0 nps=0 debug=1 name=0"
        ));
        for line in self.ctl.opts.announce(Dialect::Cecp) {
            self.say(&line);
        }
        self.say("feature done=1");
    }

    fn new_game(&mut self) {
        self.abandon_search();
        self.game = Position::startpos();
        self.side = (!self.analyzing).then_some(Color::Black);
        self.clock.new_game();
        self.opponent_is_engine = false;
        self.draw_offered = false;
        self.ctl.new_game();
        // In analyze mode `new` sets up the start and stays there.
        self.after_game_change();
    }

    fn set_option(&mut self, name: &str, value: Option<&str>, line: &str) {
        if let Err(e) = self.ctl.set_option(name, value) {
            self.say(&format!("Error ({e}): {line}"));
        }
    }

    fn ping(&mut self, n: String) {
        let pong = format!("pong {n}");
        match self.search_kind() {
            Some(Kind::Think) => self.held_pongs.push(pong),
            // "Pondering does not count", nor does analysing.
            Some(_) => self.ctl.now_or_in_turn(pong),
            None => self.ctl.after_jobs(pong),
        }
    }

    fn search_kind(&self) -> Option<Kind> {
        self.ctl.running().map(|r| r.detail.kind)
    }

    // ---- the game -------------------------------------------------------

    fn go(&mut self) {
        if self.search_kind() == Some(Kind::Think) {
            return;
        }
        self.abandon_search();
        self.analyzing = false;
        self.side = Some(self.game.side_to_move());
        self.think();
    }

    fn user_move(&mut self, mv: Move) {
        if let Err(reason) = why_illegal(&self.game, mv) {
            return self.say(&format!("Illegal move ({reason}): {mv}"));
        }
        let pondered = match self.search_kind() {
            Some(Kind::Ponder { guess }) => guess == mv,
            _ => false,
        };
        if !pondered {
            self.abandon_search();
        }
        let mover = self.game.side_to_move();
        let repeats_a_ban = rules::ruling(&self.game).banmoves(mover).contains(&mv);
        self.game.make_move(mv);
        if repeats_a_ban && self.side == Some(!mover) {
            // Told to vary (24.3), the opponent chased again: it loses.
            let v = Verdict {
                outcome: Outcome::win_for(!mover),
                reason: Reason::PerpetualAttack,
            };
            if self.claim(&v) {
                return self.abandon_search();
            }
        }
        if self.analyzing {
            return self.analyze();
        }
        if pondered {
            return self.ponder_hit();
        }
        if self.side == Some(self.game.side_to_move()) {
            self.think();
        }
    }

    /// `undo` (one ply) or `remove` (two): XBoard sends them in force mode
    /// or on the user's move, so nothing starts but a new analysis.
    fn take_back(&mut self, plies: usize, line: &str) {
        if self.game.history().len() < plies {
            return self.say(&format!("Error (no move to take back): {line}"));
        }
        self.abandon_search();
        for _ in 0..plies {
            self.game.unmake_move();
        }
        self.after_game_change();
    }

    /// After `new`, `setboard`, `undo` or `remove`: analysis starts afresh
    /// on the new position.
    fn after_game_change(&mut self) {
        if self.analyzing {
            self.analyze();
        }
    }

    /// It is our move: claims the game if it is over, else searches (with
    /// the move a perpetual chase of ours must not repeat banned).
    fn think(&mut self) {
        let ruled = rules::ruling(&self.game);
        if let Ruling::Over(v) = &ruled {
            if self.claim(v) {
                return;
            }
        }
        let limits = Limits {
            banmoves: ruled.banmoves(self.game.side_to_move()),
            ..self.limits(false)
        };
        self.start(Kind::Think, self.game.clone(), limits, None);
    }

    /// The opponent played the move we were pondering: the ponder search
    /// goes on as the real one, on our clock from now. It planned with the
    /// clock we expected to have after our move; if the GUI's `time` says
    /// clearly less (it charged our last move more than we measured, as a
    /// loaded machine makes XBoard do), its budget could overrun the clock,
    /// so a search planned afresh takes over, finding in the table what
    /// the ponder search learnt.
    fn ponder_hit(&mut self) {
        let now = self.limits(false).time;
        let slack = self.ctl.opts.move_overhead();
        let Some(r) = self.ctl.running_mut() else {
            return;
        };
        r.detail.kind = Kind::Think;
        r.started = Instant::now();
        if let Some(done) = r.held.take() {
            return self.on_think_done(done);
        }
        let short = match (now, r.detail.planned_clock) {
            (Some(now), Some(planned)) => now + slack + planned / 20 < planned,
            (now, planned) => now != planned,
        };
        if short {
            self.abandon_search();
            self.think();
        } else {
            r.stop.ponderhit();
        }
    }

    fn on_done(&mut self, done: Done) {
        // Held by the controller: a ponder search's or an analysis's result
        // waits there for the GUI; ours is played now.
        let Some(r) = self.ctl.search_done(done) else {
            return;
        };
        if r.detail.kind == Kind::Think {
            if let Some(done) = r.held.take() {
                self.on_think_done(done);
            }
        }
    }

    /// Our search ended: the move, with a draw offer or acceptance before
    /// it or a resignation instead, pongs held meanwhile, a claim if the
    /// move ended the game, and pondering on the expected reply.
    fn on_think_done(&mut self, done: Done) {
        let Some(s) = self.ctl.take_running() else {
            return;
        };
        let moves_made = self.game.history().len() as u32 / 2 + 1;
        self.clock.after_own_move(s.started.elapsed(), moves_made);
        let legal = self.game.legal_moves();
        let Some(best) = done.best_in(&legal) else {
            // No move: judged before the search, so only a position whose
            // verdict was not claimed could get here; it has none to play.
            self.flush_pongs();
            if let Some(v) = rules::ruling(&self.game).end() {
                self.claim(&v);
            }
            return;
        };
        // Accepting an offered draw comes before resigning, as in UCCI.
        match self.ctl.verdict(&s.root, &done, self.draw_offered, true) {
            Some(controller::Verdict::Resign) => {
                self.flush_pongs();
                self.ctl
                    .after_jobs(verdict::resignation(self.game.side_to_move()));
                self.side = None;
                return;
            }
            Some(controller::Verdict::Draw) => self.say("offer draw"),
            None => {}
        }
        self.draw_offered = false;
        self.game.make_move(best);
        self.say(&format!("move {best}"));
        // XBoard ignores a claim while a ping is unanswered: pongs first.
        self.flush_pongs();
        if let Some(v) = rules::ruling(&self.game).end() {
            if self.claim(&v) {
                return;
            }
        }
        let guess = done.ponder_move(&s.root, best);
        self.guess = guess.map(|g| (self.game.key(), g));
        if let Some(guess) = guess.filter(|_| self.ponder && !self.eof) {
            self.start_ponder(guess);
        }
    }

    fn start_ponder(&mut self, guess: Move) {
        let mut after = self.game.clone();
        after.make_move(guess);
        let ruled = rules::ruling(&after);
        if ruled.over() {
            return;
        }
        let limits = Limits {
            banmoves: ruled.banmoves(after.side_to_move()),
            ..self.limits(true)
        };
        self.start(Kind::Ponder { guess }, after, limits, Some(guess));
    }

    /// Claims `v` for the engine if `verdict::claim` says so, ending its
    /// part in the game; true if claimed. Queued like the pongs, which must
    /// come before it.
    fn claim(&mut self, v: &Verdict) -> bool {
        let Some(us) = self.side else {
            return false;
        };
        let line = verdict::result_line(v);
        if verdict::claim(v, us, self.opponent_is_engine) {
            self.ctl.after_jobs(line);
            self.side = None;
            true
        } else {
            self.ctl.note(&format!(
                "by the Chinese rules: {line}; not claimed, as XBoard tests claims \
                 in engine games by its own rules; playing on"
            ));
            false
        }
    }

    fn flush_pongs(&mut self) {
        for pong in std::mem::take(&mut self.held_pongs) {
            self.ctl.after_jobs(pong);
        }
    }

    // ---- searches -------------------------------------------------------

    /// The limits of a search on our move (or, `ponder`, on the move after
    /// the opponent's).
    fn limits(&self, ponder: bool) -> Limits {
        // Moves we have made before this one: half the plies, rounded down,
        // counted from the side to move (a ponder search is a ply on).
        let moves_made = (self.game.history().len() + usize::from(ponder)) as u32 / 2;
        Limits {
            ponder,
            move_overhead: self.ctl.opts.move_overhead(),
            multipv: self.ctl.opts.multipv(),
            ..self.clock.limits(moves_made)
        }
    }

    fn analyze(&mut self) {
        self.abandon_search();
        if !self.game.has_legal_move() {
            // Nothing to search: the score alone, mated now.
            if self.post {
                self.say("0 -100000 0 0 0 0 0\t");
            }
            return;
        }
        let limits = Limits {
            infinite: true,
            move_overhead: self.ctl.opts.move_overhead(),
            multipv: self.ctl.opts.multipv(),
            ..Limits::default()
        };
        self.start(Kind::Analyze, self.game.clone(), limits, None);
    }

    fn start(&mut self, kind: Kind, root: Position, limits: Limits, lead: Option<Move>) {
        self.abandon_search();
        let show = if self.post {
            Show::Thinking { lead }
        } else {
            Show::Nothing
        };
        let planned_clock = limits.time;
        let search = Search {
            kind,
            planned_clock,
        };
        self.ctl.start_search(root, limits, show, search);
    }

    /// Stops the running search and forgets it; its result will be dropped.
    /// Pongs held for a move that will not come are answered.
    fn abandon_search(&mut self) {
        self.ctl.abandon_search();
        self.progress = Progress::default();
        self.flush_pongs();
    }

    /// `.` in analyze mode: `stat01: time nodes ply mvleft mvtot`.
    fn status(&self) {
        let Some(s) = self
            .ctl
            .running()
            .filter(|r| r.detail.kind == Kind::Analyze)
        else {
            return;
        };
        let p = &self.progress;
        self.say(&format!(
            "stat01: {} {} {} 0 {}",
            s.started.elapsed().as_millis() / 10,
            p.nodes,
            p.depth,
            s.root.legal_moves().len()
        ));
    }

    /// The move we would suggest to the side to move.
    fn hint(&self) -> Option<Move> {
        match self.search_kind() {
            Some(Kind::Analyze) => self.progress.pv.first().copied(),
            Some(Kind::Ponder { guess }) => Some(guess),
            _ => self
                .guess
                .filter(|(key, _)| *key == self.game.key())
                .map(|(_, mv)| mv),
        }
    }

    // ---- the end --------------------------------------------------------

    /// `quit`: XBoard has left the game, so no move is owed and the search
    /// is dropped; what is owed (pongs, a claim already made) is still
    /// written once the search thread is through, within `QUIT_GRACE`.
    fn quit(&mut self) {
        self.abandon_search();
        self.ctl.end(None, Some(QUIT_GRACE));
    }

    /// End of input: nothing can end pondering or analysis any more; a move
    /// being thought about is still played, then the session ends.
    fn on_eof(&mut self) {
        self.eof = true;
        if self.search_kind() != Some(Kind::Think) {
            self.abandon_search();
        }
    }
}

/// The answer to `help` (a person at a terminal: XBoard never sends it).
const HELP: &[&str] = &[
    "CECP commands: xboard, protover 2, new, force, go, playother, usermove <m> (or a bare move),",
    "undo, remove, level <moves> <base> <inc>, st <s>, sd <depth>, time <cs>, otim <cs>, ?,",
    "ping <n>, post, nopost, hard, easy, analyze, exit, ., hint, draw, result, setboard <fen>,",
    "memory <MB>, cores <n>, option <name>[=<value>], computer, quit",
];

/// Why `mv` cannot be played in `pos`, in words for `Illegal move (...)`.
fn why_illegal(pos: &Position, mv: Move) -> Result<(), String> {
    if pos.is_legal(mv) {
        return Ok(());
    }
    let mover = pos.side_to_move();
    Err(match pos.piece_at(mv.from()) {
        None => format!("no piece on {}", mv.from()),
        Some(p) if p.color() != mover => format!("{} is to move", colour_name(mover)),
        Some(_) if pos.pseudo_legal_moves().contains(&mv) => {
            "the king would be in check".to_string()
        }
        Some(_) => "the piece cannot move so".to_string(),
    })
}

fn colour_name(c: Color) -> &'static str {
    match c {
        Color::Red => "Red",
        Color::Black => "Black",
    }
}
