//! One refereed game between two engine processes.

use super::adjudication::{self, Adjudicated, Adjudication};
use super::engine::{Engine, EngineError, EngineSpec, Protocol, Reply, Score};
use super::openings::Opening;
use super::timecontrol::{Clock, TimeControl};
use chuhe_core::board::notation;
use chuhe_core::board::{Color, Move, Position};
use chuhe_core::rules::{self, MustVary, Outcome, Reason, Verdict};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The rules the runner referees by; `RulesReferee` is `chuhe_core::rules`. Tests
/// may substitute their own to drive rare rulings (must-vary) on demand.
pub trait Referee: Send + Sync {
    fn judge(&self, pos: &Position) -> Option<Verdict>;
    fn must_vary(&self, pos: &Position) -> Option<MustVary>;
}

pub struct RulesReferee;

impl Referee for RulesReferee {
    fn judge(&self, pos: &Position) -> Option<Verdict> {
        rules::judge(pos)
    }

    fn must_vary(&self, pos: &Position) -> Option<MustVary> {
        rules::must_vary(pos)
    }
}

#[derive(Clone, Debug)]
pub struct GameSettings {
    pub tc: TimeControl,
    /// How far past its clock (or movetime) an engine may go before its flag falls.
    pub margin_ms: u64,
    /// How long to wait for `bestmove` under depth or node limits.
    pub no_answer_ms: u64,
    pub init_timeout_ms: u64,
    pub adjudication: Adjudication,
    /// Draw after this many plies (0: no cap). A guard, not a rule.
    pub max_plies: usize,
    /// Send UCCI engines the start FEN and every move instead of the FEN after
    /// the last capture.
    pub ucci_full_history: bool,
}

impl Default for GameSettings {
    fn default() -> Self {
        GameSettings {
            tc: TimeControl::Depth(1),
            margin_ms: 100,
            no_answer_ms: 60_000,
            init_timeout_ms: 10_000,
            adjudication: Adjudication::default(),
            max_plies: 1000,
            ucci_full_history: false,
        }
    }
}

/// Why a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    Rules(Reason),
    IllegalMove {
        side: Color,
        text: String,
    },
    /// Played the move it was told to vary from (must-vary ruling).
    BannedMove {
        side: Color,
        mv: Move,
    },
    /// Answered `bestmove` without a usable move (`(none)`, `0000`, nothing)
    /// with legal moves on the board.
    NoMove {
        side: Color,
    },
    /// Answered `nobestmove` with legal moves on the board. The record keeps
    /// the position (FEN) and the engine's last lines, to see why.
    NoBestMove {
        side: Color,
        fen: String,
        last_lines: Vec<String>,
    },
    Crash {
        side: Color,
    },
    NoAnswer {
        side: Color,
    },
    TimeForfeit {
        side: Color,
    },
    Resign {
        side: Color,
    },
    DrawAgreed,
    AdjudicatedWin {
        winner: Color,
    },
    AdjudicatedDraw,
    MaxPlies,
    StartFailure {
        side: Color,
        error: String,
    },
    Interrupted,
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::Red => "Red",
        Color::Black => "Black",
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Termination::*;
        match self {
            Rules(r) => f.write_str(match r {
                Reason::Checkmate => "checkmate",
                Reason::Stalemate => "stalemate",
                Reason::PerpetualCheck => "perpetual check",
                Reason::PerpetualAttack => "perpetual attack",
                Reason::RepetitionDraw => "repetition draw",
                Reason::NaturalLimit => "natural move limit",
                Reason::NoWinningMaterial => "no winning material",
            }),
            IllegalMove { side, text } => write!(f, "{} illegal move {text}", side_name(*side)),
            BannedMove { side, mv } => {
                write!(
                    f,
                    "{} repeated the banned move {mv} (must vary)",
                    side_name(*side)
                )
            }
            NoMove { side } => write!(f, "{} gave no move", side_name(*side)),
            NoBestMove { side, .. } => write!(f, "{} answered nobestmove", side_name(*side)),
            Crash { side } => write!(f, "{} engine crashed", side_name(*side)),
            NoAnswer { side } => write!(f, "{} engine did not answer", side_name(*side)),
            TimeForfeit { side } => write!(f, "{} lost on time", side_name(*side)),
            Resign { side } => write!(f, "{} resigned", side_name(*side)),
            DrawAgreed => f.write_str("draw agreed"),
            AdjudicatedWin { winner } => write!(f, "adjudicated win for {}", side_name(*winner)),
            AdjudicatedDraw => f.write_str("adjudicated draw"),
            MaxPlies => f.write_str("move cap reached"),
            StartFailure { side, error } => {
                write!(f, "{} engine failed to start: {error}", side_name(*side))
            }
            Interrupted => f.write_str("interrupted"),
        }
    }
}

/// A `Termination` tag that is none of the texts `Termination` writes:
/// the tag as found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownTermination(pub String);

impl fmt::Display for UnknownTermination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown termination '{}'", self.0)
    }
}

impl std::error::Error for UnknownTermination {}

impl std::str::FromStr for Termination {
    type Err = UnknownTermination;

    /// Reads back what `Display` wrote (a PGN `Termination` tag), so that a
    /// resumed match knows how its earlier games ended. The `nobestmove`
    /// position and engine lines are not in the tag and come back empty.
    fn from_str(text: &str) -> Result<Self, UnknownTermination> {
        use Termination::*;
        let bad = || UnknownTermination(text.to_string());
        // Variants whose text is fixed (or fixed but for the side): compared
        // through Display, so the words are written once.
        let mut fixed = vec![DrawAgreed, AdjudicatedDraw, MaxPlies, Interrupted];
        fixed.extend(Reason::ALL.map(Rules));
        for side in [Color::Red, Color::Black] {
            fixed.extend([
                NoMove { side },
                NoBestMove {
                    side,
                    fen: String::new(),
                    last_lines: Vec::new(),
                },
                Crash { side },
                NoAnswer { side },
                TimeForfeit { side },
                Resign { side },
                AdjudicatedWin { winner: side },
            ]);
        }
        if let Some(t) = fixed.into_iter().find(|t| t.to_string() == text) {
            return Ok(t);
        }
        // The variants that carry text of their own.
        let (side, rest) = if let Some(rest) = text.strip_prefix("Red ") {
            (Color::Red, rest)
        } else if let Some(rest) = text.strip_prefix("Black ") {
            (Color::Black, rest)
        } else {
            return Err(bad());
        };
        if let Some(t) = rest.strip_prefix("illegal move ") {
            Ok(IllegalMove {
                side,
                text: t.to_string(),
            })
        } else if let Some(e) = rest.strip_prefix("engine failed to start: ") {
            Ok(StartFailure {
                side,
                error: e.to_string(),
            })
        } else if let Some(mv) = rest
            .strip_prefix("repeated the banned move ")
            .and_then(|m| m.strip_suffix(" (must vary)"))
        {
            Ok(BannedMove {
                side,
                mv: mv.parse().map_err(|_| bad())?,
            })
        } else {
            Err(bad())
        }
    }
}

impl Termination {
    /// What the record should add to the one-line reason, if anything: for
    /// `nobestmove`, the position and the engine's last lines.
    pub fn details(&self) -> Option<String> {
        match self {
            Termination::NoBestMove {
                fen, last_lines, ..
            } => Some(format!(
                "position {fen}; last lines: {}",
                last_lines.join(" | ")
            )),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct MoveRecord {
    pub mv: Move,
    pub chinese: String,
    pub book: bool,
    pub score: Option<Score>,
    pub depth: Option<u32>,
    pub time_ms: u64,
    /// The engine's node count and speed for this move, when it reported them.
    pub nodes: Option<u64>,
    pub nps: Option<u64>,
    /// The engine offered a draw with this move (UCCI `bestmove ... draw`).
    pub draw_offer: bool,
    /// The engine's principal variation in ICCS (ranks 0-9, whatever the
    /// engine writes), as far as it could be read.
    pub pv: Vec<Move>,
}

/// A finished (or interrupted) game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub red: String,
    pub black: String,
    pub opening: Opening,
    pub moves: Vec<MoveRecord>,
    pub outcome: Option<Outcome>,
    pub termination: Termination,
}

impl GameRecord {
    /// Who made the move at `ply` (0 = the first move from the opening's
    /// FEN, book moves included).
    pub fn side_of_ply(&self, ply: usize) -> Color {
        let black_first = self.opening.fen.split_whitespace().nth(1) == Some("b");
        if (ply % 2 == 1) != black_first {
            Color::Black
        } else {
            Color::Red
        }
    }
}

/// Everything one game needs.
pub struct GameSetup<'a> {
    pub red: &'a EngineSpec,
    pub black: &'a EngineSpec,
    pub opening: &'a Opening,
    pub settings: &'a GameSettings,
    pub referee: &'a dyn Referee,
    pub stop: Arc<AtomicBool>,
}

fn loss(side: Color) -> Outcome {
    match side {
        Color::Red => Outcome::BlackWins,
        Color::Black => Outcome::RedWins,
    }
}

/// Plays one game to its end and says why it ended.
pub fn play(setup: &GameSetup) -> GameRecord {
    let mut record = GameRecord {
        red: setup.red.name.clone(),
        black: setup.black.name.clone(),
        opening: setup.opening.clone(),
        moves: Vec::new(),
        outcome: None,
        termination: Termination::Interrupted,
    };
    let init = Duration::from_millis(setup.settings.init_timeout_ms);
    let mut engines = Vec::with_capacity(2);
    for (side, spec) in [(Color::Red, setup.red), (Color::Black, setup.black)] {
        let started = Engine::start(spec, init, setup.stop.clone())
            .and_then(|mut e| e.new_game(init).map(|_| e));
        match started {
            Ok(e) => engines.push(e),
            Err(_) if setup.stop.load(Ordering::Relaxed) => return record,
            Err(error) => {
                record.outcome = Some(loss(side));
                record.termination = Termination::StartFailure {
                    side,
                    error: error.to_string(),
                };
                return record;
            }
        }
    }
    let (outcome, termination) = Game::new(setup, &mut record).run(&mut engines);
    record.outcome = outcome;
    record.termination = termination;
    for mut e in engines {
        // A ponder search still running when the game ended (the opponent's
        // move ended it, or the opponent failed) is stopped before `quit`,
        // as the protocols want; its answer is of no use.
        let _ = e.stop_pondering(PONDER_STOP_TIMEOUT);
        e.quit();
    }
    record
}

/// How long an engine has to answer `stop` after a ponder search it will not
/// use; past that it loses as if it had not answered a `go`.
const PONDER_STOP_TIMEOUT: Duration = Duration::from_secs(5);

struct Game<'a, 'b> {
    setup: &'b GameSetup<'a>,
    record: &'b mut GameRecord,
    pos: Position,
    start_fen: String,
    /// FEN after the last capture and the moves since, for UCCI `position`.
    capture_fen: String,
    since_capture: Vec<Move>,
    /// Each side's time control (its engine's own, or the match's) and its
    /// clock when that is a clock control; by colour.
    tcs: [&'b TimeControl; 2],
    clocks: [Option<Clock>; 2],
    /// The side whose draw offer awaits the other side's answer.
    draw_offer: Option<Color>,
    scores: [Vec<Option<i32>>; 2],
}

type End = (Option<Outcome>, Termination);

impl<'a, 'b> Game<'a, 'b> {
    fn new(setup: &'b GameSetup<'a>, record: &'b mut GameRecord) -> Self {
        // The opening was validated when it was loaded.
        let pos = Position::from_fen(&setup.opening.fen).unwrap_or_default();
        let start_fen = pos.fen();
        let tcs = [setup.red, setup.black].map(|e| e.tc.as_ref().unwrap_or(&setup.settings.tc));
        let clocks = tcs.map(Clock::new);
        Game {
            setup,
            record,
            capture_fen: start_fen.clone(),
            start_fen,
            pos,
            since_capture: Vec::new(),
            tcs,
            clocks,
            draw_offer: None,
            scores: [Vec::new(), Vec::new()],
        }
    }

    fn push_move(&mut self, mv: Move, book: bool, reply: Option<&Reply>, pv: Vec<Move>) {
        let chinese = notation::chinese(&self.pos, mv).unwrap_or_else(|_| mv.to_string());
        let capture = self.pos.is_capture(mv);
        self.pos.make_move(mv);
        if capture {
            self.capture_fen = self.pos.fen();
            self.since_capture.clear();
        } else {
            self.since_capture.push(mv);
        }
        self.record.moves.push(MoveRecord {
            mv,
            chinese,
            book,
            score: reply.and_then(|r| r.score),
            depth: reply.and_then(|r| r.depth),
            time_ms: reply.map_or(0, |r| r.elapsed.as_millis() as u64),
            nodes: reply.and_then(|r| r.nodes),
            nps: reply.and_then(Reply::speed),
            draw_offer: reply.is_some_and(|r| r.draw),
            pv,
        });
    }

    fn run(mut self, engines: &mut [Engine]) -> End {
        for &mv in &self.setup.opening.moves {
            self.push_move(mv, true, None, Vec::new());
        }
        let settings = self.setup.settings;
        loop {
            if self.setup.stop.load(Ordering::Relaxed) {
                return (None, Termination::Interrupted);
            }
            if let Some(v) = self.setup.referee.judge(&self.pos) {
                if !self.offender_must_vary(&v) {
                    return (Some(v.outcome), Termination::Rules(v.reason));
                }
            }
            if settings.max_plies > 0 && self.record.moves.len() >= settings.max_plies {
                return (Some(Outcome::Draw), Termination::MaxPlies);
            }
            let side = self.pos.side_to_move();
            if let Some(end) = self.turn(side, &mut engines[side.index()]) {
                return end;
            }
            if let Some(end) = self.adjudicate() {
                return end;
            }
        }
    }

    /// Whether a verdict leaves the game running: a forbidden perpetual
    /// attack (长捉, 长杀, 一将一捉 and the like, not a perpetual check) only
    /// obliges the offender to vary at the third occurrence; it loses when it
    /// repeats the cycle anyway (docs/RULES.md, "When it is judged"). `turn` sends
    /// the ban (`banmoves` / `searchmoves`) and rules on a repeat. Ending the
    /// game here instead forfeited engines that do not know these rules (such
    /// as ElephantEye, whose rules see checks and chases only) without the
    /// warning the rules give them. With nothing else to play the verdict
    /// stands.
    fn offender_must_vary(&self, v: &Verdict) -> bool {
        if v.reason != Reason::PerpetualAttack {
            return false;
        }
        let Some(m) = self.setup.referee.must_vary(&self.pos) else {
            return false;
        };
        m.can_vary(&self.pos)
    }

    /// One move by `side`; `Some` when the game ended.
    fn turn(&mut self, side: Color, engine: &mut Engine) -> Option<End> {
        let legal = self.pos.legal_moves();
        let banned = self
            .setup
            .referee
            .must_vary(&self.pos)
            .filter(|m| m.side == side)
            .map(|m| m.banned)
            // A ban that leaves nothing to play is no ban: the side must repeat.
            .filter(|&b| legal.iter().any(|&m| m != b));
        let offered = self.draw_offer.take().is_some_and(|c| c != side);
        let settings = self.setup.settings;
        let tc = self.tcs[side.index()];
        let wait = match (&self.clocks[side.index()], tc) {
            (Some(c), _) => c.remaining_ms() + settings.margin_ms + 1,
            (None, TimeControl::MoveTime(ms)) => ms + settings.margin_ms + 1,
            _ => settings.no_answer_ms,
        };
        let wait = Duration::from_millis(wait);
        let timed = !matches!(tc, TimeControl::Depth(_) | TimeControl::Nodes(_));
        let opponent_move = self.record.moves.last().map(|r| r.mv);
        // A ponder search on the move just played goes on as the real search
        // (`ponderhit`), unless the move must vary: `banmoves` and
        // `searchmoves` come with `go`, so a ban needs a new search.
        let hit =
            engine.pondering().is_some() && engine.pondering() == opponent_move && banned.is_none();
        let answer = if hit {
            engine.ponderhit(offered, wait)
        } else {
            // A ponder miss: the ponder search's answer is dropped, then the
            // move is searched as usual.
            match engine.stop_pondering(PONDER_STOP_TIMEOUT) {
                Ok(()) => {
                    let lines = self.commands(side, engine, banned, offered, &legal, None);
                    engine.go(&lines, wait)
                }
                // Not the clock's fault: a `stop` it did not answer.
                Err(EngineError::Timeout) => {
                    return Some((Some(loss(side)), Termination::NoAnswer { side }))
                }
                Err(e) => Err(e),
            }
        };
        let reply = match answer {
            Ok(r) => r,
            // An engine that died as the match was being stopped did not crash.
            Err(_) if self.setup.stop.load(Ordering::Relaxed) => {
                return Some((None, Termination::Interrupted))
            }
            Err(EngineError::Timeout) if timed => {
                return Some((Some(loss(side)), Termination::TimeForfeit { side }))
            }
            Err(EngineError::Timeout) => {
                return Some((Some(loss(side)), Termination::NoAnswer { side }))
            }
            Err(_) => return Some((Some(loss(side)), Termination::Crash { side })),
        };
        let elapsed = reply.elapsed.as_millis() as u64;
        let flag_fell = match (&mut self.clocks[side.index()], tc) {
            (Some(c), _) => !c.charge(elapsed, settings.margin_ms),
            (None, TimeControl::MoveTime(ms)) => elapsed > ms + settings.margin_ms,
            _ => false,
        };
        if flag_fell {
            return Some((Some(loss(side)), Termination::TimeForfeit { side }));
        }
        if offered && reply.draw {
            return Some((Some(Outcome::Draw), Termination::DrawAgreed));
        }
        if reply.resign {
            return Some((Some(loss(side)), Termination::Resign { side }));
        }
        if reply.nobestmove {
            let termination = Termination::NoBestMove {
                side,
                fen: self.pos.fen(),
                last_lines: engine.recent_lines(),
            };
            return Some((Some(loss(side)), termination));
        }
        let text = match reply.bestmove.as_deref() {
            None | Some("(none)") | Some("0000") | Some("null") => {
                return Some((Some(loss(side)), Termination::NoMove { side }))
            }
            Some(t) => t.to_string(),
        };
        let mv = match engine.read_move(&text) {
            Some(m) if legal.contains(&m) => m,
            _ => return Some((Some(loss(side)), Termination::IllegalMove { side, text })),
        };
        // The PV as far as it reads as moves; an engine that printed no PV
        // still named its move and perhaps the reply it expects.
        let mut pv: Vec<Move> = reply.pv.iter().map_while(|t| engine.read_move(t)).collect();
        if pv.first() != Some(&mv) {
            pv = std::iter::once(mv)
                .chain(reply.ponder.as_deref().and_then(|t| engine.read_move(t)))
                .collect();
        }
        self.scores[side.index()].push(reply.score.map(Score::as_cp));
        self.push_move(mv, false, Some(&reply), pv);
        if reply.draw && engine.proto == Protocol::Ucci {
            self.draw_offer = Some(side);
        }
        if banned == Some(mv) {
            // The rules decide the repeat (fourth occurrence); if they have
            // nothing to say, ignoring the ruling still loses.
            return Some(match self.setup.referee.judge(&self.pos) {
                Some(v) => (Some(v.outcome), Termination::Rules(v.reason)),
                None => (Some(loss(side)), Termination::BannedMove { side, mv }),
            });
        }
        if engine.spec.ponder {
            self.start_pondering(side, engine, reply.ponder.as_deref());
        }
        None
    }

    /// After `side`'s move: if its engine named a legal reply it expects
    /// (`bestmove X ponder Y`), it searches the position after that reply on
    /// the opponent's time. Its clock stands still until `ponderhit`.
    fn start_pondering(&self, side: Color, engine: &mut Engine, expected: Option<&str>) {
        let Some(y) = expected.and_then(|t| engine.read_move(t)) else {
            return;
        };
        if !self.pos.legal_moves().contains(&y) {
            return;
        }
        let lines = self.commands(side, engine, None, false, &[], Some(y));
        // An engine that cannot be written to is found out at its next turn.
        let _ = engine.ponder(&lines, y);
    }

    /// The `position`, optional `banmoves` and `go` lines for `side`; with
    /// `ponder_on`, the position after that opponent's move and `go ponder`.
    fn commands(
        &self,
        side: Color,
        engine: &Engine,
        banned: Option<Move>,
        offered: bool,
        legal: &[Move],
        ponder_on: Option<Move>,
    ) -> Vec<String> {
        let proto = engine.proto;
        let join = |moves: &[Move]| {
            moves
                .iter()
                .map(|&m| engine.write_move(m))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let full = proto == Protocol::Uci || self.setup.settings.ucci_full_history;
        let (mut fen, mut moves) = if full {
            let all: Vec<Move> = self.record.moves.iter().map(|r| r.mv).collect();
            (self.start_fen.clone(), all)
        } else {
            (self.capture_fen.clone(), self.since_capture.clone())
        };
        if let Some(y) = ponder_on {
            if !full && self.pos.is_capture(y) {
                // The FEN after the last capture, as if `y` had been played.
                let mut after = self.pos.clone();
                after.make_move(y);
                fen = after.fen();
                moves.clear();
            } else {
                moves.push(y);
            }
        }
        let mut position = format!("position fen {fen}");
        if !moves.is_empty() {
            position.push_str(" moves ");
            position.push_str(&join(&moves));
        }
        let mut lines = vec![position];
        let mut go = String::from(if ponder_on.is_some() {
            "go ponder"
        } else {
            "go"
        });
        if proto == Protocol::Ucci {
            if let Some(b) = banned {
                lines.push(format!("banmoves {}", engine.write_move(b)));
            }
            if offered {
                go.push_str(" draw");
            }
        }
        go.push_str(&self.limits(side, proto, engine.millis));
        if proto == Protocol::Uci {
            if let Some(b) = banned {
                let allowed: Vec<Move> = legal.iter().copied().filter(|&m| m != b).collect();
                go.push_str(" searchmoves ");
                go.push_str(&join(&allowed));
            }
        }
        lines.push(go);
        lines
    }

    fn limits(&self, side: Color, proto: Protocol, millis: bool) -> String {
        // UCCI without `usemillisec` counts whole seconds; round down so that
        // the engine is never told more time than it has.
        let t = |ms: u64| if millis { ms } else { ms / 1000 };
        let own_clock = &self.clocks[side.index()];
        // The opponent's clock, when it has one (under time odds it may play
        // at a fixed depth or node count).
        let opp_clock = &self.clocks[side.flip().index()];
        match (self.tcs[side.index()], own_clock) {
            (TimeControl::Depth(d), _) => format!(" depth {d}"),
            (TimeControl::Nodes(n), _) => format!(" nodes {n}"),
            (TimeControl::MoveTime(ms), _) => match proto {
                Protocol::Uci => format!(" movetime {ms}"),
                _ => format!(" time {} movestogo 1", t(*ms)),
            },
            (TimeControl::Clock { .. }, Some(own)) => {
                if proto == Protocol::Uci {
                    // Red is UCI's white.
                    let (red, black) = (&self.clocks[0], &self.clocks[1]);
                    let mut s = String::new();
                    for (tag, clock) in [("wtime", red), ("btime", black)] {
                        if let Some(c) = clock {
                            s.push_str(&format!(" {tag} {}", c.remaining_ms()));
                        }
                    }
                    for (tag, clock) in [("winc", red), ("binc", black)] {
                        if let Some(c) = clock {
                            s.push_str(&format!(" {tag} {}", c.increment_ms()));
                        }
                    }
                    if let Some(n) = own.moves_to_go() {
                        s.push_str(&format!(" movestogo {n}"));
                    }
                    s
                } else {
                    let mut s = format!(" time {}", t(own.remaining_ms()));
                    match own.moves_to_go() {
                        Some(n) => s.push_str(&format!(" movestogo {n}")),
                        None => s.push_str(&format!(" increment {}", t(own.increment_ms()))),
                    }
                    if let Some(opp) = opp_clock {
                        s.push_str(&format!(" opptime {}", t(opp.remaining_ms())));
                        match opp.moves_to_go() {
                            Some(n) => s.push_str(&format!(" oppmovestogo {n}")),
                            None => s.push_str(&format!(" oppincrement {}", t(opp.increment_ms()))),
                        }
                    }
                    s
                }
            }
            (TimeControl::Clock { .. }, None) => String::new(),
        }
    }

    fn adjudicate(&self) -> Option<End> {
        let adj = &self.setup.settings.adjudication;
        match adjudication::verdict(adj, &self.scores, self.record.moves.len())? {
            Adjudicated::Win(winner) => Some((
                Some(loss(winner.flip())),
                Termination::AdjudicatedWin { winner },
            )),
            Adjudicated::Draw => Some((Some(Outcome::Draw), Termination::AdjudicatedDraw)),
        }
    }
}
