//! One engine process seen from the runner: spawn, handshake (UCCI, UCI or
//! auto-detect), options, and `go` with a deadline. A reader thread turns the
//! engine's stdout into a channel of lines, so every wait has a timeout and a
//! hung engine never blocks the runner.

use super::timecontrol::TimeControl;
use chuhe_core::board::{Move, Square};
use std::collections::VecDeque;
use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    Ucci,
    Uci,
    /// Send `ucci`; if no `ucciok` comes, try `uci`.
    Auto,
}

impl std::str::FromStr for Protocol {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "ucci" => Ok(Protocol::Ucci),
            "uci" => Ok(Protocol::Uci),
            "auto" => Ok(Protocol::Auto),
            _ => Err(format!("protocol '{s}' must be ucci, uci or auto")),
        }
    }
}

/// How an engine numbers the ranks in its moves. UCCI and most xiangqi UCI
/// engines write ranks 0-9 (`b0c2`); Fairy-Stockfish's UCI mode writes 1-10
/// (`b1c3`, `a10a9`). The board FEN is the same either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coords {
    /// Ranks 0-9.
    Zero,
    /// Ranks 1-10.
    One,
    /// Ranks 1-10 for a UCI engine that announces the `UCI_Variant` option
    /// (the mark of a multi-variant engine such as Fairy-Stockfish), 0-9
    /// otherwise. Fairy-Stockfish's UCCI mode uses 0-9, so a UCCI handshake
    /// always means 0-9.
    Auto,
}

impl std::str::FromStr for Coords {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "0" => Ok(Coords::Zero),
            "1" => Ok(Coords::One),
            "auto" => Ok(Coords::Auto),
            _ => Err(format!("coords '{s}' must be 0, 1 or auto")),
        }
    }
}

/// Writes `mv` as an engine with ranks from `base` (0 or 1) reads it.
pub fn move_to_engine(mv: Move, base: u8) -> String {
    if base == 0 {
        return mv.to_string();
    }
    let sq = |s: Square| format!("{}{}", s.file(), s.rank().index() + 1);
    format!("{}{}", sq(mv.from()), sq(mv.to()))
}

/// Reads a move written with ranks from `base` (0 or 1); `None` when the text
/// is not a move in that convention.
pub fn move_from_engine(text: &str, base: u8) -> Option<Move> {
    if base == 0 {
        return text.parse().ok();
    }
    // file letter, rank 1-10, file letter, rank 1-10: `a10a9`, `b1c3`.
    let b = text.as_bytes();
    let square = |i: usize| -> Option<(Square, usize)> {
        let file = b.get(i).filter(|c| (b'a'..=b'i').contains(*c))? - b'a';
        let digits = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        let rank = match &b[i + 1..i + 1 + digits] {
            [d @ b'1'..=b'9'] => d - b'0',
            [b'1', b'0'] => 10,
            _ => return None,
        };
        Some((Square::new((rank - 1) * 9 + file)?, i + 1 + digits))
    };
    let (from, j) = square(0)?;
    let (to, end) = square(j)?;
    // A move must go somewhere, as in ICCS (`Move::from_str`).
    (end == b.len() && from != to).then(|| Move::new(from, to))
}

/// How to start an engine and what to tell it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    pub name: String,
    pub cmd: String,
    pub args: Vec<String>,
    pub dir: Option<PathBuf>,
    pub proto: Protocol,
    /// Options in the order given; values as text.
    pub options: Vec<(String, String)>,
    /// How it numbers ranks in moves.
    pub coords: Coords,
    /// Let it think on the opponent's time (`go ponder` on the move it
    /// expects, `ponderhit` or `stop` when the real move comes).
    pub ponder: bool,
    /// Its own time control, in place of the match's (time odds: the same
    /// engine at twice the time against itself measures what a doubling of
    /// the clock is worth).
    pub tc: Option<TimeControl>,
}

impl EngineSpec {
    pub fn new(name: &str, cmd: &str) -> Self {
        EngineSpec {
            name: name.to_string(),
            cmd: cmd.to_string(),
            args: Vec::new(),
            dir: None,
            proto: Protocol::Auto,
            options: Vec::new(),
            coords: Coords::Auto,
            ponder: false,
            tc: None,
        }
    }
}

/// Why talking to an engine failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    Spawn(String),
    /// The engine closed its output (exited or crashed).
    Eof,
    /// No answer before the deadline.
    Timeout,
    /// Writing to the engine failed (it has gone).
    Write(String),
    /// The match was interrupted.
    Stopped,
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Spawn(e) => write!(f, "cannot start: {e}"),
            EngineError::Eof => write!(f, "the engine exited"),
            EngineError::Timeout => write!(f, "no answer in time"),
            EngineError::Write(e) => write!(f, "cannot write to the engine: {e}"),
            EngineError::Stopped => write!(f, "interrupted"),
        }
    }
}

impl std::error::Error for EngineError {}

/// An engine's evaluation as reported in `info`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    /// Mate in this many moves (negative: being mated).
    Mate(i32),
}

impl Score {
    /// Centipawns, with mates as large values, for adjudication.
    pub fn as_cp(self) -> i32 {
        match self {
            Score::Cp(c) => c,
            Score::Mate(m) if m >= 0 => 30_000 - m,
            Score::Mate(m) => -30_000 - m,
        }
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(c) => write!(f, "{c:+}"),
            Score::Mate(m) => write!(f, "M{m}"),
        }
    }
}

/// What an engine answered to `go`.
#[derive(Clone, Debug, Default)]
pub struct Reply {
    /// The move text after `bestmove`; `None` for `nobestmove`.
    pub bestmove: Option<String>,
    /// The engine said `nobestmove` (rather than `bestmove` with no usable move).
    pub nobestmove: bool,
    /// The text after `ponder` in the `bestmove` line, as the engine wrote it.
    pub ponder: Option<String>,
    /// The principal variation of the last `info ... pv` line, as written.
    pub pv: Vec<String>,
    pub draw: bool,
    pub resign: bool,
    pub depth: Option<u32>,
    pub score: Option<Score>,
    /// The last node count the engine reported for this search.
    pub nodes: Option<u64>,
    /// The last speed the engine reported (`nps`), if it reports one.
    pub nps: Option<u64>,
    /// The search time the engine last reported with its nodes (`time`, ms).
    pub engine_time_ms: Option<u64>,
    /// From writing `go` to reading `bestmove`.
    pub elapsed: Duration,
}

impl Reply {
    /// Nodes per second: as the engine said it, else from its node count
    /// over its own reported time (ElephantEye prints `info time T nodes N`
    /// and no `nps`), else over the time the runner measured. An engine the
    /// runner starves shows up here as a low figure.
    pub fn speed(&self) -> Option<u64> {
        if self.nps.is_some() {
            return self.nps;
        }
        let nodes = self.nodes?;
        let ms = match self.engine_time_ms {
            Some(t) if t > 0 => t,
            _ => self.elapsed.as_millis() as u64,
        };
        (ms > 0).then(|| (nodes as u128 * 1000 / ms as u128).min(u64::MAX as u128) as u64)
    }
}

enum Line {
    Text(String),
    Eof,
}

pub struct Engine {
    pub spec: EngineSpec,
    /// The protocol agreed in the handshake (never `Auto`).
    pub proto: Protocol,
    /// Whether `go` times are in milliseconds: always in UCI; in UCCI only
    /// when the engine offers `usemillisec` (otherwise UCCI counts seconds).
    pub millis: bool,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Line>,
    stop: Arc<AtomicBool>,
    /// Whether the handshake listed the `UCI_Variant` option.
    announces_variant: bool,
    /// Whether the handshake listed the option `ponder` (UCCI) or `Ponder` (UCI).
    announces_ponder: bool,
    /// The opponent's move a `go ponder` search is running on, from
    /// `ponder` until `ponderhit` or `stop` ends the wait.
    pondering: Option<Move>,
    /// The last lines the engine printed, for the record when it gives no move.
    recent: VecDeque<String>,
}

/// How many of an engine's last lines are kept for the record.
const RECENT_LINES: usize = 8;

const POLL: Duration = Duration::from_millis(20);

impl Engine {
    /// Starts the engine and completes the handshake within `init_timeout`.
    pub fn start(
        spec: &EngineSpec,
        init_timeout: Duration,
        stop: Arc<AtomicBool>,
    ) -> Result<Engine, EngineError> {
        let mut cmd = Command::new(program(spec));
        cmd.args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(dir) = &spec.dir {
            cmd.current_dir(dir);
        }
        // A terminal's Ctrl-C goes to the whole foreground process group; the
        // engines get their own group so that only the runner sees it and
        // games in progress are not mistaken for crashes.
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| EngineError::Spawn(format!("{}: {e}", spec.cmd)))?;
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(i), Some(o)) => (i, o),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(EngineError::Spawn("no pipes to the engine".into()));
            }
        };
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => {
                        let _ = tx.send(Line::Eof);
                        return;
                    }
                    Ok(_) => {
                        let text = String::from_utf8_lossy(&buf).trim_end().to_string();
                        if tx.send(Line::Text(text)).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let mut engine = Engine {
            spec: spec.clone(),
            proto: spec.proto,
            millis: true,
            child,
            stdin,
            lines: rx,
            stop,
            announces_variant: false,
            announces_ponder: false,
            pondering: None,
            recent: VecDeque::with_capacity(RECENT_LINES),
        };
        engine.handshake(init_timeout)?;
        Ok(engine)
    }

    fn handshake(&mut self, timeout: Duration) -> Result<(), EngineError> {
        let deadline = Instant::now() + timeout;
        self.proto = match self.spec.proto {
            Protocol::Ucci => {
                self.send("ucci")?;
                self.millis = self.wait_for_ucciok(deadline)?.ok_or_else(|| {
                    EngineError::Spawn(format!("{} does not know `ucci`", self.spec.cmd))
                })?;
                Protocol::Ucci
            }
            Protocol::Uci => {
                self.send("uci")?;
                self.wait_for("uciok", deadline)?;
                Protocol::Uci
            }
            Protocol::Auto => {
                self.send("ucci")?;
                // A UCI-only engine ignores `ucci` or complains about it: give
                // it a short while, then ask in UCI.
                let probe = (Instant::now() + Duration::from_secs(2)).min(deadline);
                match self.wait_for_ucciok(probe) {
                    Ok(Some(millis)) => {
                        self.millis = millis;
                        Protocol::Ucci
                    }
                    Ok(None) | Err(EngineError::Timeout) => {
                        self.send("uci")?;
                        self.wait_for("uciok", deadline)?;
                        Protocol::Uci
                    }
                    Err(e) => return Err(e),
                }
            }
        };
        if self.proto == Protocol::Ucci && self.millis {
            self.send("setoption usemillisec true")?;
        }
        let options = self.spec.options.clone();
        for (name, value) in &options {
            let line = match self.proto {
                Protocol::Uci => format!("setoption name {name} value {value}"),
                _ => format!("setoption {name} {value}"),
            };
            self.send(&line)?;
        }
        // An engine that lists no such option may still ponder (ElephantEye
        // knows `go ponder` without one), but is not sent an option it lacks.
        if self.spec.ponder && self.announces_ponder {
            self.send(match self.proto {
                Protocol::Uci => "setoption name Ponder value true",
                _ => "setoption ponder true",
            })?;
        }
        self.ready(deadline)
    }

    /// The first rank number in this engine's moves: 0 or 1 (see `Coords`).
    pub fn rank_base(&self) -> u8 {
        match self.spec.coords {
            Coords::Zero => 0,
            Coords::One => 1,
            Coords::Auto => u8::from(self.proto == Protocol::Uci && self.announces_variant),
        }
    }

    /// A move as this engine writes it.
    pub fn write_move(&self, mv: Move) -> String {
        move_to_engine(mv, self.rank_base())
    }

    /// A move as this engine wrote it, in the board's terms.
    pub fn read_move(&self, text: &str) -> Option<Move> {
        move_from_engine(text, self.rank_base())
    }

    /// The last lines the engine printed (at most `RECENT_LINES`), oldest first.
    pub fn recent_lines(&self) -> Vec<String> {
        self.recent.iter().cloned().collect()
    }

    /// `isready` and wait for `readyok`.
    pub fn ready(&mut self, deadline: Instant) -> Result<(), EngineError> {
        self.send("isready")?;
        self.wait_for("readyok", deadline)
    }

    /// Tells the engine a new game starts.
    pub fn new_game(&mut self, timeout: Duration) -> Result<(), EngineError> {
        match self.proto {
            Protocol::Uci => self.send("ucinewgame")?,
            _ => self.send("setoption newgame")?,
        }
        self.ready(Instant::now() + timeout)
    }

    pub fn send(&mut self, line: &str) -> Result<(), EngineError> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|e| EngineError::Write(e.to_string()))
    }

    fn next_line(&mut self, deadline: Instant) -> Result<String, EngineError> {
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return Err(EngineError::Stopped);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(EngineError::Timeout);
            }
            match self.lines.recv_timeout((deadline - now).min(POLL)) {
                Ok(Line::Text(t)) => {
                    if self.recent.len() == RECENT_LINES {
                        self.recent.pop_front();
                    }
                    self.recent.push_back(t.clone());
                    return Ok(t);
                }
                Ok(Line::Eof) | Err(RecvTimeoutError::Disconnected) => {
                    return Err(EngineError::Eof)
                }
                Err(RecvTimeoutError::Timeout) => continue,
            }
        }
    }

    /// Waits for `ucciok`: `Some(offers usemillisec)`, or `None` as soon as
    /// the engine says it does not know `ucci`.
    fn wait_for_ucciok(&mut self, deadline: Instant) -> Result<Option<bool>, EngineError> {
        let mut millis = false;
        loop {
            let line = self.next_line(deadline)?;
            let mut words = line.split_whitespace();
            match (words.next(), words.next()) {
                (Some("ucciok"), _) => return Ok(Some(millis)),
                (Some("option"), Some("usemillisec")) => millis = true,
                (Some("option"), Some("ponder")) => self.announces_ponder = true,
                _ if line.to_ascii_lowercase().contains("unknown") => return Ok(None),
                _ => {}
            }
        }
    }

    fn wait_for(&mut self, token: &str, deadline: Instant) -> Result<(), EngineError> {
        loop {
            let line = self.next_line(deadline)?;
            let mut words = line.split_whitespace();
            let first = words.next();
            if first == Some("option") && words.next() == Some("name") {
                match words.next() {
                    Some("UCI_Variant") => self.announces_variant = true,
                    Some("Ponder") => self.announces_ponder = true,
                    _ => {}
                }
            }
            if first == Some(token) {
                return Ok(());
            }
        }
    }

    /// Sends the lines that set up a search, the last of which is `go ...`,
    /// and reads until `bestmove`/`nobestmove`. The time runs from the moment
    /// `go` is written; `deadline_after_go` bounds the wait.
    pub fn go(
        &mut self,
        setup: &[String],
        deadline_after_go: Duration,
    ) -> Result<Reply, EngineError> {
        let Some((go, before)) = setup.split_last() else {
            return Err(EngineError::Write("nothing to send".into()));
        };
        for line in before {
            self.send(line)?;
        }
        self.send(go)?;
        self.read_reply(Instant::now(), deadline_after_go)
    }

    /// Starts a `go ponder` search (the last line of `setup`) on the position
    /// after the opponent's expected move `expected`. Its answer is read only
    /// after `ponderhit` or `stop` (`stop_pondering`); until then whatever it
    /// prints waits in the channel.
    pub fn ponder(&mut self, setup: &[String], expected: Move) -> Result<(), EngineError> {
        for line in setup {
            self.send(line)?;
        }
        self.pondering = Some(expected);
        Ok(())
    }

    /// The opponent's move the engine is pondering on, if it is pondering.
    pub fn pondering(&self) -> Option<Move> {
        self.pondering
    }

    /// The expected move came: the ponder search becomes the real one. The
    /// time runs from `ponderhit`, as on a clock that stood still while the
    /// engine pondered; the `info` lines it printed while pondering are read
    /// into the reply, since they come from the same search.
    pub fn ponderhit(&mut self, draw: bool, deadline: Duration) -> Result<Reply, EngineError> {
        self.pondering = None;
        // Only UCCI knows draw offers.
        self.send(if draw && self.proto == Protocol::Ucci {
            "ponderhit draw"
        } else {
            "ponderhit"
        })?;
        self.read_reply(Instant::now(), deadline)
    }

    /// Ends a ponder search that will not be used: `stop`, then reads and
    /// drops its answer so that it is not taken for the answer to the next
    /// `go`. Does nothing when the engine is not pondering.
    pub fn stop_pondering(&mut self, timeout: Duration) -> Result<(), EngineError> {
        if self.pondering.take().is_none() {
            return Ok(());
        }
        self.send("stop")?;
        self.read_reply(Instant::now(), timeout).map(|_| ())
    }

    /// Reads until `bestmove`/`nobestmove`; the time runs from `start`.
    fn read_reply(&mut self, start: Instant, wait: Duration) -> Result<Reply, EngineError> {
        let deadline = start + wait;
        let mut reply = Reply::default();
        loop {
            let line = self.next_line(deadline)?;
            let mut words = line.split_whitespace();
            match words.next() {
                Some("info") => parse_info(&line, &mut reply),
                Some("bestmove") => {
                    reply.elapsed = start.elapsed();
                    let rest: Vec<&str> = words.collect();
                    reply.bestmove = rest.first().map(|s| s.to_string());
                    reply.draw = rest.contains(&"draw");
                    reply.ponder = rest
                        .iter()
                        .position(|&w| w == "ponder")
                        .and_then(|i| rest.get(i + 1))
                        .map(|s| s.to_string());
                    reply.resign = rest.contains(&"resign");
                    if reply.bestmove.as_deref() == Some("resign") {
                        reply.bestmove = None;
                        reply.resign = true;
                    }
                    return Ok(reply);
                }
                Some("nobestmove") => {
                    reply.elapsed = start.elapsed();
                    reply.nobestmove = true;
                    return Ok(reply);
                }
                _ => {}
            }
        }
    }

    /// Asks the engine to leave, then makes sure it has.
    pub fn quit(mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        // Drop kills it.
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// The program to run. A relative path such as `target/release/chuhe` is
/// taken from the runner's directory when it exists there, even if the
/// engine runs in another `dir`.
fn program(spec: &EngineSpec) -> PathBuf {
    let path = PathBuf::from(&spec.cmd);
    if spec.dir.is_some() && path.is_relative() && spec.cmd.contains('/') {
        if let Ok(abs) = path.canonicalize() {
            return abs;
        }
    }
    path
}

/// Reads depth and score from an `info` line (UCCI `score 12`, UCI `score cp 12`
/// or `score mate 3`), and the search's nodes, nps and time when given.
fn parse_info(line: &str, reply: &mut Reply) {
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut i = 1;
    let mut depth = None;
    let mut score = None;
    let number = |i: usize| words.get(i + 1).and_then(|w| w.parse::<u64>().ok());
    while i < words.len() {
        match words[i] {
            "depth" => {
                depth = words.get(i + 1).and_then(|w| w.parse().ok());
                i += 2;
            }
            // Counters of the whole search so far: the latest one is kept
            // (ElephantEye prints `time` and `nodes` on a line of their own).
            "nodes" => {
                if let Some(n) = number(i) {
                    reply.nodes = Some(n);
                }
                i += 2;
            }
            "nps" => {
                if let Some(n) = number(i) {
                    reply.nps = Some(n);
                }
                i += 2;
            }
            "time" => {
                if let Some(n) = number(i) {
                    reply.engine_time_ms = Some(n);
                }
                i += 2;
            }
            "score" => match words.get(i + 1) {
                Some(&"cp") => {
                    score = words.get(i + 2).and_then(|w| w.parse().ok()).map(Score::Cp);
                    i += 3;
                }
                Some(&"mate") => {
                    score = words
                        .get(i + 2)
                        .and_then(|w| w.parse().ok())
                        .map(Score::Mate);
                    i += 3;
                }
                Some(w) => {
                    score = w.parse().ok().map(Score::Cp);
                    i += 2;
                }
                None => i += 1,
            },
            // Everything after pv is moves; nothing more to read.
            "pv" => {
                reply.pv = words[i + 1..].iter().map(|w| w.to_string()).collect();
                break;
            }
            "string" | "message" => break,
            _ => i += 1,
        }
    }
    // A bare `info time ... nodes ...` line must not wipe the last score.
    if let Some(s) = score {
        reply.score = Some(s);
        if depth.is_some() {
            reply.depth = depth;
        }
    } else if reply.depth.is_none() {
        reply.depth = depth;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines() {
        let mut r = Reply::default();
        parse_info("info depth 6 score 4 pv b0c2 b9c7", &mut r);
        assert_eq!((r.depth, r.score), (Some(6), Some(Score::Cp(4))));
        parse_info("info time 5000 nodes 5000000", &mut r);
        assert_eq!((r.depth, r.score), (Some(6), Some(Score::Cp(4))));
        parse_info(
            "info depth 9 seldepth 12 score mate -3 nodes 10 pv h2e2",
            &mut r,
        );
        assert_eq!((r.depth, r.score), (Some(9), Some(Score::Mate(-3))));
        parse_info("info depth 10 score cp -35 nps 1", &mut r);
        assert_eq!((r.depth, r.score), (Some(10), Some(Score::Cp(-35))));
        assert_eq!(Score::Mate(-3).as_cp(), -29_997);
        parse_info("info depth 3 score cp 5 pv b1c3 h10g8", &mut r);
        assert_eq!(r.pv, ["b1c3", "h10g8"]);
    }

    #[test]
    fn ranks_from_one() {
        let m = |s: &str| s.parse::<Move>().unwrap();
        for (iccs, one) in [("b0c2", "b1c3"), ("a9a8", "a10a9"), ("i0i9", "i1i10")] {
            assert_eq!(move_to_engine(m(iccs), 1), one);
            assert_eq!(move_to_engine(m(iccs), 0), iccs);
            assert_eq!(move_from_engine(one, 1), Some(m(iccs)));
            assert_eq!(move_from_engine(iccs, 0), Some(m(iccs)));
        }
        for bad in [
            "a0a1", "a11a9", "a01a2", "j1a1", "a10", "a1a1x", "", "a1", "b1c3 ", "é1a1",
        ] {
            assert_eq!(move_from_engine(bad, 1), None, "{bad}");
        }
        assert_eq!("auto".parse::<Coords>(), Ok(Coords::Auto));
        assert!("2".parse::<Coords>().is_err());
    }

    #[test]
    fn nodes_and_speed() {
        // ElephantEye: time and nodes alone, no nps; the speed comes from them.
        let mut r = Reply::default();
        parse_info("info time 2000 nodes 7000000", &mut r);
        parse_info("info depth 11 score 25 pv h2e2", &mut r);
        assert_eq!(
            (r.nodes, r.nps, r.engine_time_ms),
            (Some(7_000_000), None, Some(2000))
        );
        assert_eq!(r.speed(), Some(3_500_000));
        // Chuhe and UCI engines: nps as given, the latest line wins.
        let mut r = Reply::default();
        parse_info(
            "info depth 9 score 3 nodes 10 time 1 nps 10000 pv h2e2",
            &mut r,
        );
        parse_info("info depth 10 seldepth 14 score 5 nodes 900000 time 600 nps 1500000 hashfull 3 pv h2e2", &mut r);
        assert_eq!((r.nodes, r.speed()), (Some(900_000), Some(1_500_000)));
        // Nodes but no time of its own: over the runner's measured time.
        let mut r = Reply {
            elapsed: Duration::from_millis(500),
            ..Reply::default()
        };
        parse_info("info nodes 1000", &mut r);
        assert_eq!(r.speed(), Some(2000));
        // A pv that looks like a number is not read as a counter.
        let mut r = Reply::default();
        parse_info("info depth 1 score 0 pv nodes 5", &mut r);
        assert_eq!((r.nodes, r.speed()), (None, None));
    }
}
