//! The state behind the page and what each API call does to it: the game
//! (a start position and a line of moves, with a cursor for going through
//! it), the game against the engine (side, strength, time, clocks, the
//! result by the rules), the analysis lines and the whole-game review.
//!
//! Every handler takes the state under one lock (`Shared`), and so do the
//! engine's reports, so there is one order of events and no lock order to
//! get wrong. Handlers answer JSON or an `ApiError`, which the server turns
//! into a 4xx answer with the message for the page; nothing here panics on
//! what a request holds.

use super::engine::{EngineHandle, Event, Job};
use crate::analyze::{self, Analysis, PlyReport, Thresholds};
use crate::record::{self, pgn, xqf, Format, Game, MoveNode};
use chuhe_core::board::{notation, Color, Move, Position};
use chuhe_core::engine::{Strength, MAX_ELO, MAX_LEVEL, MIN_ELO};
use chuhe_core::rules::{self, ruling, Outcome, Ruling};
use chuhe_core::search::{wdl, Limits, Score, SearchInfo, SearchResult};
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub type Shared = Arc<Mutex<App>>;

/// A refused request: the HTTP status and a message for the page.
#[derive(Debug)]
pub struct ApiError(pub u16, pub String);

fn bad(msg: impl Into<String>) -> ApiError {
    ApiError(400, msg.into())
}

pub type ApiResult = Result<Value, ApiError>;

/// How the game ended, in the rules' words.
#[derive(Clone, Debug)]
struct GameEnd {
    result: &'static str,
    summary: String,
    detail: String,
}

/// Clocks of a game with a time control (milliseconds left).
#[derive(Clone, Debug)]
struct Clocks {
    red_ms: i64,
    black_ms: i64,
    inc_ms: i64,
    /// When the side to move's clock started.
    since: Instant,
}

/// What the engine is doing, as far as the state is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Task {
    Idle,
    Play,
    Analyse,
    Review,
}

#[derive(Clone, Debug, Default)]
struct LineView {
    depth: u32,
    score: Option<Score>,
    pv: Vec<Move>,
}

#[derive(Default)]
struct Review {
    running: bool,
    done: usize,
    total: usize,
    plies: Vec<PlyReport>,
    analysis: Option<Box<Analysis>>,
    error: Option<String>,
}

pub struct App {
    start: Position,
    moves: Vec<Move>,
    /// How many of `moves` lead to the position shown.
    cursor: usize,
    /// The record the game was loaded from: its tags, comments and
    /// variations are kept for the moves the line still shares with it.
    record: Option<Game>,
    /// The engine's side in a game against it.
    engine_side: Option<Color>,
    /// A game against the engine is on (not ended, resigned or drawn).
    game_on: bool,
    level: u32,
    elo: Option<u32>,
    movetime_ms: u64,
    clocks: Option<Clocks>,
    end: Option<GameEnd>,
    analysing: bool,
    multipv: usize,
    engine: EngineHandle,
    task: Task,
    job: u64,
    lines: Vec<LineView>,
    nodes: u64,
    nps: u64,
    /// The engine's last score in the game, from its own view (draw offers).
    engine_score: Option<Score>,
    review: Review,
    review_job: u64,
    /// A note for the page (the engine declined a draw, ...).
    message: Option<String>,
    /// The rules' note that a side must vary (`ruling`), for the position
    /// at the end of the line; set by every move.
    vary: Option<String>,
    /// Goes up whenever the board or the line changes, so the page redraws
    /// the board only then (not under a piece being dragged).
    version: u64,
    threads: usize,
    hash_mb: usize,
    fresh: bool,
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::Red => "red",
        Color::Black => "black",
    }
}

fn other(c: Color) -> Color {
    match c {
        Color::Red => Color::Black,
        Color::Black => Color::Red,
    }
}

/// A score as text from Red's view: `+35`, `-120`, `Red mates in 3`.
fn score_text(s: Score, stm: Color) -> String {
    let red = match stm {
        Color::Red => s,
        Color::Black => match s {
            Score::Cp(c) => Score::Cp(-c),
            Score::Mate(n) => Score::Mate(-n),
        },
    };
    match red {
        Score::Cp(c) => format!("{c:+}"),
        Score::Mate(n) if n > 0 => format!("Red mates in {n}"),
        Score::Mate(0) => "mated".into(),
        Score::Mate(n) => format!("Black mates in {}", -n),
    }
}

/// Win/draw/loss per mille from Red's view.
fn red_wdl(s: Score, stm: Color, pieces: u32) -> [u32; 3] {
    let (w, d, l) = wdl::wdl(s, pieces);
    match stm {
        Color::Red => [w, d, l],
        Color::Black => [l, d, w],
    }
}

fn red_cp(s: Score, stm: Color) -> i32 {
    let cp = match s {
        Score::Cp(c) => c.clamp(-2000, 2000),
        Score::Mate(n) if n > 0 => 2000,
        Score::Mate(_) => -2000,
    };
    if stm == Color::Red {
        cp
    } else {
        -cp
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGame {
    side: String,
    #[serde(default)]
    level: Option<u32>,
    #[serde(default)]
    elo: Option<u32>,
    #[serde(default)]
    movetime_ms: Option<u64>,
    /// A clock instead: minutes for the game and seconds added a move.
    #[serde(default)]
    clock_min: Option<f64>,
    #[serde(default)]
    inc_s: Option<f64>,
    /// Start here instead of the position on the board's start.
    #[serde(default)]
    fen: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveReq {
    #[serde(rename = "move")]
    mv: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GotoReq {
    ply: usize,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FenReq {
    fen: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnalyseReq {
    on: bool,
    #[serde(default)]
    multipv: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReviewReq {
    #[serde(default)]
    movetime_ms: Option<u64>,
    #[serde(default)]
    stop: bool,
}

fn parse<'a, T: Deserialize<'a>>(body: &'a [u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|e| bad(format!("malformed request: {e}")))
}

impl App {
    /// The state and its engine worker; the worker reports into `shared`.
    pub fn new_shared(threads: usize, hash_mb: usize) -> Shared {
        Arc::new_cyclic(|weak: &std::sync::Weak<Mutex<App>>| {
            let weak = weak.clone();
            let engine = EngineHandle::spawn(
                threads,
                hash_mb,
                Box::new(move |id, event| {
                    if let Some(app) = weak.upgrade() {
                        if let Ok(mut app) = app.lock() {
                            app.on_event(id, event);
                        }
                    }
                }),
            );
            Mutex::new(App {
                start: Position::startpos(),
                moves: Vec::new(),
                cursor: 0,
                record: None,
                engine_side: None,
                game_on: false,
                level: MAX_LEVEL,
                elo: None,
                movetime_ms: 2000,
                clocks: None,
                end: None,
                analysing: false,
                multipv: 3,
                engine,
                task: Task::Idle,
                job: 0,
                lines: Vec::new(),
                nodes: 0,
                nps: 0,
                engine_score: None,
                review: Review::default(),
                review_job: 0,
                message: None,
                vary: None,
                version: 1,
                threads,
                hash_mb,
                fresh: true,
            })
        })
    }

    /// One API call: `name` is the path after `/api/`.
    pub fn handle(&mut self, name: &str, body: &[u8]) -> ApiResult {
        self.check_flag();
        let changed = match name {
            "state" => false,
            "new" => self.new_game(parse(body)?)?,
            "move" => self.play(parse(body)?)?,
            "goto" => self.goto(parse(body)?)?,
            "takeback" => self.takeback()?,
            "resign" => self.resign()?,
            "draw" => self.offer_draw()?,
            "fen" => self.set_fen(parse(body)?)?,
            "analyse" => self.analyse(parse(body)?)?,
            "review" => self.review(parse(body)?)?,
            _ => return Err(ApiError(404, format!("no API call '{name}'"))),
        };
        if changed {
            self.version += 1;
            self.refresh();
        }
        Ok(self.state())
    }

    /// The position after the first `n` moves, with its history.
    fn position_at(&self, n: usize) -> Position {
        let mut pos = self.start.clone();
        for &mv in &self.moves[..n.min(self.moves.len())] {
            pos.make_move(mv);
        }
        pos
    }

    fn at_end(&self) -> bool {
        self.cursor == self.moves.len()
    }

    fn strength(&self) -> Strength {
        match self.elo {
            Some(e) => Strength::from_elo(e),
            None if self.level >= MAX_LEVEL => Strength::full(),
            None => Strength::level(self.level),
        }
    }

    /// Stops the engine and starts what the state now asks for: the
    /// engine's move in a game, else the analysis if it is on. A review
    /// keeps the engine until it ends or is stopped.
    fn refresh(&mut self) {
        if self.task == Task::Review {
            return;
        }
        self.engine.stop();
        self.task = Task::Idle;
        self.lines.clear();
        self.nodes = 0;
        self.nps = 0;
        let pos = self.position_at(self.cursor);
        let ruled = ruling(&pos);
        if ruled.over() || !pos.has_legal_move() {
            return;
        }
        let engine_to_move =
            self.game_on && self.at_end() && self.engine_side == Some(pos.side_to_move());
        if engine_to_move {
            let banmoves = ruled.banmoves(pos.side_to_move());
            let limits = match &self.clocks {
                Some(c) => {
                    let (own, opp) = match pos.side_to_move() {
                        Color::Red => (c.red_ms, c.black_ms),
                        Color::Black => (c.black_ms, c.red_ms),
                    };
                    let ms = |v: i64| Duration::from_millis(v.max(1) as u64);
                    Limits {
                        time: Some(ms(own)),
                        increment: Some(ms(c.inc_ms)),
                        opptime: Some(ms(opp)),
                        oppincrement: Some(ms(c.inc_ms)),
                        move_overhead: Duration::from_millis(50),
                        banmoves,
                        ..Limits::default()
                    }
                }
                None => Limits {
                    movetime: Some(Duration::from_millis(self.movetime_ms)),
                    banmoves,
                    ..Limits::default()
                },
            };
            let strength = self.strength();
            let fresh = std::mem::take(&mut self.fresh);
            self.job = self.engine.start(Job::Search {
                pos: Box::new(pos),
                limits,
                strength,
                fresh,
            });
            self.task = Task::Play;
        } else if self.analysing && !(self.game_on && self.engine_side.is_some()) {
            let limits = Limits {
                infinite: true,
                multipv: self.multipv,
                ..Limits::default()
            };
            self.job = self.engine.start(Job::Search {
                pos: Box::new(pos),
                limits,
                strength: Strength::full(),
                fresh: std::mem::take(&mut self.fresh),
            });
            self.task = Task::Analyse;
        }
    }

    /// A report from the engine worker.
    fn on_event(&mut self, id: u64, event: Event) {
        match event {
            Event::Info(info) if id == self.job => self.take_info(&info),
            Event::Done(result) if id == self.job && self.task == Task::Play => {
                self.task = Task::Idle;
                self.engine_moved(result);
            }
            Event::Done(_) if id == self.job && self.task == Task::Analyse => {
                self.task = Task::Idle;
            }
            Event::ReviewPly { done, total, ply } if id == self.review_job => {
                self.review.done = done;
                self.review.total = total;
                if let Some(p) = ply {
                    self.review.plies.push(*p);
                }
            }
            Event::ReviewDone(result) if id == self.review_job => {
                self.review.running = false;
                match result {
                    Ok(a) => self.review.analysis = Some(a),
                    Err(e) => self.review.error = Some(e),
                }
                self.task = Task::Idle;
                self.refresh();
            }
            _ => {}
        }
    }

    fn take_info(&mut self, info: &SearchInfo) {
        self.nodes = info.nodes;
        self.nps = info.nps;
        if info.pv.is_empty() || info.currmove.is_some() {
            return;
        }
        let k = info.multipv.unwrap_or(1).max(1) as usize - 1;
        if k >= 16 {
            return;
        }
        if self.lines.len() <= k {
            self.lines.resize(k + 1, LineView::default());
        }
        self.lines[k] = LineView {
            depth: info.depth,
            score: info.score,
            pv: info.pv.clone(),
        };
        if self.task == Task::Play {
            self.engine_score = info.score;
        }
    }

    fn engine_moved(&mut self, result: SearchResult) {
        let pos = self.position_at(self.moves.len());
        let Some(mv) = result.best.filter(|&m| pos.is_legal(m)) else {
            return;
        };
        self.engine_score = Some(result.score);
        self.push_move(mv);
        self.version += 1;
        self.refresh();
    }

    /// Plays `mv` at the end of the line (the caller checked it), runs the
    /// clocks and asks the rules whether the game is over.
    fn push_move(&mut self, mv: Move) {
        let pos = self.position_at(self.moves.len());
        let mover = pos.side_to_move();
        let banned = ruling(&pos).banmoves(mover).contains(&mv);
        if let Some(c) = &mut self.clocks {
            if self.game_on {
                let used = c.since.elapsed().as_millis() as i64;
                let left = match mover {
                    Color::Red => &mut c.red_ms,
                    Color::Black => &mut c.black_ms,
                };
                *left = *left - used + c.inc_ms;
                c.since = Instant::now();
            }
        }
        self.moves.push(mv);
        self.cursor = self.moves.len();
        if banned {
            let chinese = notation::chinese(&pos, mv).unwrap_or_else(|_| mv.to_string());
            self.vary = None;
            self.finish(
                Outcome::win_for(other(mover)),
                format!(
                    "{} played {chinese} again after being told to vary (rule 24.3)",
                    side_word(mover)
                ),
            );
            return;
        }
        self.judge_end();
    }

    /// Sets the game's end from the rules, or the note that a side must
    /// vary (`ruling`).
    fn judge_end(&mut self) {
        let pos = self.position_at(self.moves.len());
        let (verdict, ban) = match ruling(&pos) {
            Ruling::On => (None, None),
            Ruling::Over(v) => (Some(v), None),
            Ruling::MustVary(v, m) => (None, Some((v, m))),
        };
        self.vary = ban.map(|(verdict, m)| {
            // Named as the referee would name the verdict it holds back.
            let what = analyze::ending(&pos, verdict).summary;
            let what = what.split_once(": ").map_or(what.as_str(), |(_, w)| w);
            let mut what = what.to_string();
            if let Some(first) = what.get(..1) {
                what.replace_range(..1, &first.to_ascii_uppercase());
            }
            // Named from where the cycle played it last (the offender may
            // not be the side to move).
            let banned = (0..self.moves.len())
                .rev()
                .find(|&i| self.moves[i] == m.banned)
                .and_then(|i| notation::chinese(&self.position_at(i), m.banned).ok())
                .unwrap_or_else(|| m.banned.to_string());
            format!(
                "{what}, the position for the third time: {} must vary, and {banned} again loses (rule 24.3).",
                side_word(m.side)
            )
        });
        self.end = verdict.map(|v| {
            let result = v.outcome.as_str();
            let e = analyze::ending(&pos, v);
            GameEnd {
                result,
                summary: e.summary,
                detail: e.detail,
            }
        });
        if self.end.is_some() {
            self.game_on = false;
        }
    }

    /// A human whose clock ran out loses (the engine's own time is its
    /// search's business).
    fn check_flag(&mut self) {
        let (Some(c), true) = (&self.clocks, self.game_on) else {
            return;
        };
        let stm = self.position_at(self.moves.len()).side_to_move();
        let left = match stm {
            Color::Red => c.red_ms,
            Color::Black => c.black_ms,
        } - c.since.elapsed().as_millis() as i64;
        if left <= 0 && self.engine_side != Some(stm) {
            self.finish(
                Outcome::win_for(other(stm)),
                format!("{} lost on time", side_word(stm)),
            );
            self.version += 1;
            self.refresh();
        }
    }

    fn finish(&mut self, outcome: Outcome, summary: String) {
        self.game_on = false;
        self.end = Some(GameEnd {
            result: outcome.as_str(),
            summary: format!("{}: {summary}", outcome.as_str()),
            detail: String::new(),
        });
        let stm = self.start_side_after(self.moves.len());
        if let Some(c) = &mut self.clocks {
            // Freeze the clocks where they stood.
            let used = c.since.elapsed().as_millis() as i64;
            match stm {
                Color::Red => c.red_ms -= used,
                Color::Black => c.black_ms -= used,
            }
        }
    }

    fn start_side_after(&self, plies: usize) -> Color {
        if plies.is_multiple_of(2) {
            self.start.side_to_move()
        } else {
            other(self.start.side_to_move())
        }
    }

    fn new_game(&mut self, req: NewGame) -> Result<bool, ApiError> {
        let human = match req.side.as_str() {
            "red" => Color::Red,
            "black" => Color::Black,
            s => return Err(bad(format!("side must be red or black, not '{s}'"))),
        };
        if let Some(l) = req.level {
            if l > MAX_LEVEL {
                return Err(bad(format!("level must be 0 to {MAX_LEVEL}")));
            }
        }
        if let Some(e) = req.elo {
            if !(MIN_ELO..=MAX_ELO).contains(&e) {
                return Err(bad(format!("Elo must be {MIN_ELO} to {MAX_ELO}")));
            }
        }
        let clock = match (req.clock_min, req.inc_s) {
            (Some(m), inc) => {
                let inc = inc.unwrap_or(0.0);
                if !(m > 0.0 && m <= 600.0 && (0.0..=600.0).contains(&inc)) {
                    return Err(bad("clock: 0 to 600 minutes, increment 0 to 600 seconds"));
                }
                Some(((m * 60_000.0) as i64, (inc * 1000.0) as i64))
            }
            (None, _) => None,
        };
        let movetime = req.movetime_ms.unwrap_or(self.movetime_ms);
        if !(10..=3_600_000).contains(&movetime) {
            return Err(bad("time per move must be 10 ms to 1 hour"));
        }
        let start = match &req.fen {
            Some(f) if !f.trim().is_empty() => {
                Position::from_fen(f.trim()).map_err(|e| bad(format!("bad FEN: {e}")))?
            }
            _ => Position::startpos(),
        };
        self.start = start;
        self.moves.clear();
        self.cursor = 0;
        self.record = None;
        self.engine_side = Some(other(human));
        self.game_on = true;
        self.level = req.level.unwrap_or(MAX_LEVEL);
        self.elo = req.elo;
        self.movetime_ms = movetime;
        self.clocks = clock.map(|(base, inc)| Clocks {
            red_ms: base,
            black_ms: base,
            inc_ms: inc,
            since: Instant::now(),
        });
        self.end = None;
        self.engine_score = None;
        self.analysing = false;
        self.message = None;
        self.review = Review::default();
        self.fresh = true;
        self.judge_end();
        Ok(true)
    }

    fn play(&mut self, req: MoveReq) -> Result<bool, ApiError> {
        let pos = self.position_at(self.cursor);
        let mv: Move = req
            .mv
            .trim()
            .parse()
            .map_err(|_| bad(format!("'{}' is not a move like h2e2", req.mv)))?;
        if !pos.is_legal(mv) {
            return Err(bad(format!("{mv} is not legal here")));
        }
        if self.game_on {
            if !self.at_end() {
                return Err(bad("go to the last move to play on in the game"));
            }
            if self.engine_side == Some(pos.side_to_move()) {
                return Err(bad("it is the engine's move"));
            }
        } else if self.at_end() && self.end.is_some() {
            return Err(bad("the game is over"));
        }
        self.moves.truncate(self.cursor);
        self.message = None;
        self.push_move(mv);
        Ok(true)
    }

    fn goto(&mut self, req: GotoReq) -> Result<bool, ApiError> {
        if req.ply > self.moves.len() {
            return Err(bad(format!(
                "ply {} is beyond the line ({} moves)",
                req.ply,
                self.moves.len()
            )));
        }
        self.cursor = req.ply;
        Ok(true)
    }

    fn takeback(&mut self) -> Result<bool, ApiError> {
        if self.moves.is_empty() {
            return Err(bad("no move to take back"));
        }
        self.moves.truncate(self.cursor.max(1));
        self.moves.pop();
        if self.engine_side.is_some() {
            // Back to a position where the human is to move.
            let stm = self.position_at(self.moves.len()).side_to_move();
            if self.engine_side == Some(stm) && !self.moves.is_empty() {
                self.moves.pop();
            }
            self.game_on = true;
            if let Some(c) = &mut self.clocks {
                c.since = Instant::now();
            }
        }
        self.cursor = self.moves.len();
        self.message = None;
        self.judge_end();
        Ok(true)
    }

    fn resign(&mut self) -> Result<bool, ApiError> {
        let Some(engine) = self.engine_side.filter(|_| self.game_on) else {
            return Err(bad("no game against the engine is on"));
        };
        self.finish(
            Outcome::win_for(engine),
            format!("{} resigns", side_word(other(engine))),
        );
        Ok(true)
    }

    /// The engine accepts a draw when its last score says it is worse
    /// (from its own view), or the rules say nobody can win anyway.
    fn offer_draw(&mut self) -> Result<bool, ApiError> {
        if !(self.game_on && self.engine_side.is_some()) {
            return Err(bad("no game against the engine is on"));
        }
        let worse = matches!(self.engine_score, Some(Score::Cp(c)) if c <= -50)
            || matches!(self.engine_score, Some(Score::Mate(n)) if n < 0);
        if worse || rules::no_winning_material(&self.position_at(self.moves.len())) {
            self.finish(Outcome::Draw, "draw agreed".into());
            self.message = Some("The engine accepts the draw.".into());
            Ok(true)
        } else {
            self.message = Some("The engine declines the draw.".into());
            Ok(false)
        }
    }

    fn set_fen(&mut self, req: FenReq) -> Result<bool, ApiError> {
        let pos = Position::from_fen(req.fen.trim()).map_err(|e| bad(format!("bad FEN: {e}")))?;
        self.set_line(pos, Vec::new(), None);
        Ok(true)
    }

    /// A new line to go through, out of any game against the engine.
    fn set_line(&mut self, start: Position, moves: Vec<Move>, record: Option<Game>) {
        self.start = start;
        self.moves = moves;
        self.cursor = 0;
        self.record = record;
        self.engine_side = None;
        self.game_on = false;
        self.clocks = None;
        self.engine_score = None;
        self.message = None;
        self.review = Review::default();
        self.fresh = true;
        self.judge_end();
    }

    fn analyse(&mut self, req: AnalyseReq) -> Result<bool, ApiError> {
        if req.on && self.game_on && self.engine_side.is_some() {
            return Err(bad("no analysis during a game against the engine"));
        }
        if let Some(n) = req.multipv {
            if !(1..=8).contains(&n) {
                return Err(bad("MultiPV must be 1 to 8"));
            }
            self.multipv = n;
        }
        self.analysing = req.on;
        Ok(true)
    }

    fn review(&mut self, req: ReviewReq) -> Result<bool, ApiError> {
        if req.stop {
            if self.task == Task::Review {
                self.engine.stop();
            }
            return Ok(false);
        }
        if self.game_on && self.engine_side.is_some() {
            return Err(bad("finish the game against the engine first"));
        }
        if self.moves.is_empty() {
            return Err(bad("no moves to review"));
        }
        let ms = req.movetime_ms.unwrap_or(300);
        if !(10..=60_000).contains(&ms) {
            return Err(bad("time per position must be 10 ms to 60 s"));
        }
        let game = Game {
            start_fen: (self.start.fen() != Position::startpos().fen()).then(|| self.start.fen()),
            moves: self.moves.iter().map(|&m| MoveNode::new(m)).collect(),
            ..Game::default()
        };
        let settings = analyze::Settings {
            limits: Limits {
                movetime: Some(Duration::from_millis(ms)),
                ..Limits::default()
            },
            threads: self.threads,
            hash_mb: self.hash_mb.min(256),
            thresholds: Thresholds::default(),
        };
        self.engine.stop();
        self.lines.clear();
        self.review = Review {
            running: true,
            total: self.moves.len(),
            ..Review::default()
        };
        self.review_job = self.engine.start(Job::Review {
            game: Box::new(game),
            settings,
        });
        self.job = self.review_job;
        self.task = Task::Review;
        Ok(false)
    }

    /// Loads the game numbered `index` (from 0) of an uploaded record.
    pub fn load(&mut self, bytes: &[u8], hint: Option<Format>, index: usize) -> ApiResult {
        if bytes.is_empty() {
            return Err(bad("the file is empty"));
        }
        let games = record::read_bytes(bytes, hint)
            .map_err(|e| bad(format!("cannot read this record: {e}")))?;
        let count = games.len();
        let game = games.into_iter().nth(index).ok_or_else(|| {
            bad(format!(
                "the file holds {count} game(s), none numbered {}",
                index + 1
            ))
        })?;
        let start = game
            .start_position()
            .map_err(|e| bad(format!("the record's start position is bad: {e}")))?;
        let mut pos = start.clone();
        let mut moves = Vec::new();
        for (i, mv) in game.mainline().into_iter().enumerate() {
            if !pos.is_legal(mv) {
                return Err(bad(format!(
                    "move {} ({mv}) of the record is illegal",
                    i + 1
                )));
            }
            pos.make_move(mv);
            moves.push(mv);
        }
        if self.task == Task::Review {
            self.engine.stop();
            self.task = Task::Idle;
        }
        self.set_line(start, moves, Some(game));
        self.version += 1;
        self.refresh();
        let mut state = self.state();
        state["loaded_games"] = json!(count);
        Ok(state)
    }

    /// The line as a record: the loaded record's tags, comments and
    /// variations where the line still follows it.
    fn to_game(&self) -> Game {
        let mut game = self.record.clone().unwrap_or_default();
        let std_start = self.start.fen() == Position::startpos().fen();
        game.start_fen = (!std_start).then(|| self.start.fen());
        let mut nodes = Vec::with_capacity(self.moves.len());
        let mut old = std::mem::take(&mut game.moves).into_iter();
        let mut following = true;
        for &mv in &self.moves {
            match old.next() {
                Some(n) if following && n.mv == mv => nodes.push(n),
                _ => {
                    following = false;
                    nodes.push(MoveNode::new(mv));
                }
            }
        }
        game.moves = nodes;
        if self.record.is_none() {
            game.set_tag("Event", "Chuhe GUI");
            if let Some(engine) = self.engine_side {
                let name = format!("Chuhe {}", env!("CARGO_PKG_VERSION"));
                let (red, black) = match engine {
                    Color::Red => (name.as_str(), "Player"),
                    Color::Black => ("Player", name.as_str()),
                };
                game.set_tag("Red", red);
                game.set_tag("Black", black);
            }
        }
        let result = self.end.as_ref().map_or("*", |e| e.result);
        game.set_tag("Result", result);
        game
    }

    /// The record as a file to download: (bytes, MIME type, file name).
    pub fn save(&self, format: Format) -> Result<(Vec<u8>, &'static str, String), ApiError> {
        let game = self.to_game();
        match format {
            Format::Pgn => Ok((
                pgn::write(std::slice::from_ref(&game)).into_bytes(),
                "application/x-chess-pgn; charset=utf-8",
                "chuhe-game.pgn".into(),
            )),
            Format::Xqf => xqf::write(&game)
                .map(|b| (b, "application/octet-stream", "chuhe-game.xqf".into()))
                .map_err(|e| bad(format!("cannot write XQF: {e}"))),
        }
    }

    /// Everything the page shows.
    pub fn state(&mut self) -> Value {
        let pos = self.position_at(self.cursor);
        let stm = pos.side_to_move();
        let pieces = pos.occupied().count();
        // The notation of each move of the line, and the marks of a review.
        let mut walk = self.start.clone();
        let nodes = self.record.as_ref().map(|g| g.moves.as_slice());
        let mut moves = Vec::with_capacity(self.moves.len());
        let mut following = true;
        for (i, &mv) in self.moves.iter().enumerate() {
            let chinese = notation::chinese(&walk, mv).unwrap_or_else(|_| mv.to_string());
            let node = nodes
                .and_then(|n| n.get(i))
                .filter(|n| n.mv == mv && following);
            following = node.is_some();
            let review = self.review.plies.get(i).filter(|p| p.mv == mv);
            moves.push(json!({
                "iccs": mv.to_string(),
                "chinese": chinese,
                "comment": node.and_then(|n| n.comment.clone()),
                "variations": node.map_or(0, |n| n.variations.len()),
                "mark": review.and_then(|p| p.mark.map(|m| m.symbol())),
            }));
            walk.make_move(mv);
        }
        let can_move = self.end.is_none() || !self.at_end();
        let human_turn = !(self.game_on && self.engine_side == Some(stm));
        let mut legal = serde_json::Map::new();
        if can_move && human_turn && (!self.game_on || self.at_end()) {
            for mv in pos.legal_moves().iter() {
                let from = mv.from().to_string();
                let to = Value::String(mv.to().to_string());
                match legal.get_mut(&from) {
                    Some(Value::Array(a)) => a.push(to),
                    _ => {
                        legal.insert(from, Value::Array(vec![to]));
                    }
                }
            }
        }
        let lines: Vec<Value> = self
            .lines
            .iter()
            .filter(|l| !l.pv.is_empty())
            .enumerate()
            .map(|(k, l)| {
                let score = l.score.unwrap_or(Score::Cp(0));
                json!({
                    "multipv": k + 1,
                    "depth": l.depth,
                    "score": score_text(score, stm),
                    "red_cp": red_cp(score, stm),
                    "wdl": red_wdl(score, stm, pieces),
                    "pv_iccs": l.pv.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
                    "pv_chinese": notation::chinese_line(&pos, &l.pv).unwrap_or_default(),
                })
            })
            .collect();
        let show_lines = self.task == Task::Analyse;
        let best = if show_lines {
            self.lines
                .first()
                .and_then(|l| l.pv.first())
                .map(|m| m.to_string())
        } else {
            None
        };
        let clocks = self.clocks.as_ref().map(|c| {
            let end_stm = self.start_side_after(self.moves.len());
            let run = if self.game_on {
                c.since.elapsed().as_millis() as i64
            } else {
                0
            };
            let (r, b) = match end_stm {
                Color::Red => (c.red_ms - run, c.black_ms),
                Color::Black => (c.red_ms, c.black_ms - run),
            };
            json!({"red_ms": r.max(0), "black_ms": b.max(0),
                   "running": self.game_on.then(|| side_name(end_stm))})
        });
        let review_plies: Vec<Value> = self
            .review
            .plies
            .iter()
            .map(|p| {
                json!({
                    "ply": p.ply,
                    "chinese": p.chinese,
                    "iccs": p.mv.to_string(),
                    "red_cp": p.red_cp_after().clamp(-2000, 2000),
                    "mark": p.mark.map(|m| m.symbol()),
                    "mark_name": p.mark.map(|m| m.name()),
                    "best_chinese": p.best_chinese,
                    "comment": analyze::comment(p),
                })
            })
            .collect();
        let last = self
            .cursor
            .checked_sub(1)
            .map(|i| self.moves[i].to_string());
        let in_check = pos.in_check();
        let end_here = if self.at_end() {
            self.end.as_ref()
        } else {
            None
        };
        json!({
            "version": self.version,
            "fen": pos.fen(),
            "start_fen": self.start.fen(),
            "side_to_move": side_name(stm),
            "cursor": self.cursor,
            "moves": moves,
            "start_comment": self.record.as_ref().and_then(|g| g.comment.clone()),
            "tags": self.record.as_ref().map(|g| g.tags.clone()).unwrap_or_default(),
            "last_move": last,
            "in_check": in_check,
            "legal": legal,
            "result": end_here.map(|e| json!({"result": e.result, "summary": e.summary, "detail": e.detail})),
            "game": {
                "on": self.game_on,
                "engine_side": self.engine_side.map(side_name),
                "level": self.level,
                "elo": self.elo,
                "movetime_ms": self.movetime_ms,
            },
            "clocks": clocks,
            "engine": {
                "task": match self.task { Task::Idle => "idle", Task::Play => "thinking",
                                          Task::Analyse => "analysing", Task::Review => "reviewing" },
                "nodes": self.nodes,
                "nps": self.nps,
                "lines": if show_lines { lines } else { Vec::new() },
                "best": best,
            },
            "analysing": self.analysing,
            "multipv": self.multipv,
            "review": {
                "running": self.review.running,
                "done": self.review.done,
                "total": self.review.total,
                "plies": review_plies,
                "ending": self.review.analysis.as_ref().and_then(|a| a.ending.as_ref().map(|e| e.summary.clone())),
                "error": self.review.error,
            },
            "message": match (&self.message, self.vary.as_ref().filter(|_| self.at_end())) {
                (Some(a), Some(b)) => Some(format!("{a} {b}")),
                (a, b) => a.clone().or_else(|| b.cloned()),
            },
        })
    }

    /// Stops the engine for good (the server is closing).
    pub fn shutdown(&mut self) {
        self.engine.stop();
    }
}

fn side_word(c: Color) -> &'static str {
    match c {
        Color::Red => "Red",
        Color::Black => "Black",
    }
}
