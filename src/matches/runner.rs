//! The match itself: the schedule's games (`schedule`) N at once on worker
//! threads (each game starts its own two engine processes, so a process serves
//! one game at a time and a crashed engine is simply started afresh for the
//! next game), PGN as games finish, the running score, standings and the final
//! report.

use super::engine::{Engine, EngineError, EngineSpec};
use super::game::{self, GameRecord, GameSettings, GameSetup, Referee, Termination};
use super::pgn::{self, PgnHeader};
use super::resume::{self, ResumeError};
use super::schedule::{schedule, Job, MatchConfig};
use super::standings::{self, Played, Row};
use super::stats::{self, Penta, SprtDecision, Wdl};
use super::usage;
use chuhe_core::rules::Outcome;
use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};

#[derive(Debug)]
pub struct MatchReport {
    pub games: Vec<(Job, GameRecord)>,
    pub standings: Vec<Row>,
    /// The first engine's results against the second, in a two-engine match.
    pub wdl: Option<Wdl>,
    /// The same by game pairs (an opening with colours swapped), once both
    /// games of a pair are in: what the SPRT is taken over.
    pub pairs: Option<Penta>,
    /// The SPRT's log-likelihood ratio and decision: once decided, as they
    /// were at the deciding game pair (the games then in flight still
    /// finish and count in the score, but cannot undo the decision).
    pub sprt: Option<(f64, SprtDecision)>,
    /// Games counted when the SPRT decided.
    pub sprt_decided_after: Option<usize>,
    /// Stopped before the schedule was done (Ctrl-C or SPRT decision).
    pub stopped_early: bool,
}

/// Plays the match. `stop` ends it early (Ctrl-C): games in progress are
/// dropped, finished ones are kept. With `cfg.resume` the games of this
/// schedule already in the PGN file count as played (`resume`) and only the
/// other rounds are played. Progress and tables go to `out`; the error is a
/// PGN file that cannot be resumed from, or `out` failing.
pub fn run(
    cfg: &MatchConfig,
    referee: Arc<dyn Referee>,
    stop: Arc<AtomicBool>,
    out: &mut dyn Write,
) -> Result<MatchReport, MatchError> {
    let jobs = schedule(cfg);
    let done = match (&cfg.pgn, cfg.resume) {
        (Some(path), true) => {
            let resumed = resume::load(path, cfg, &jobs)?;
            if resumed.ignored > 0 {
                writeln!(
                    out,
                    "note: {} game(s) in {} are not rounds of this match (other engines, \
                     openings or rounds, unfinished, or a round twice) and do not count",
                    resumed.ignored,
                    path.display()
                )
                .map_err(output_error)?;
            }
            resumed.games
        }
        _ => Vec::new(),
    };
    let mut resolved = cfg.clone();
    let done_rounds: HashSet<usize> = done.iter().map(|(j, _)| j.round).collect();
    if jobs.iter().any(|j| !done_rounds.contains(&j.round)) {
        start_each_engine(&mut resolved.engines, &cfg.settings, &stop)?;
    }
    play(&resolved, jobs, done, referee, stop, out).map_err(output_error)
}

fn output_error(e: io::Error) -> MatchError {
    MatchError::Output(e)
}

/// Why a match could not be played (an engine failing during a game only
/// loses that game).
#[derive(Debug)]
pub enum MatchError {
    /// The PGN file to resume from could not be read or parsed.
    Resume(ResumeError),
    /// Writing progress or tables to the output failed.
    Output(io::Error),
    /// An engine failed to start before the first game: its name, its
    /// command line as run, and why.
    EngineStart {
        name: String,
        command: String,
        why: StartFailure,
    },
}

/// Why an engine did not start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartFailure {
    /// No answer to the handshake within the init timeout.
    Timeout(std::time::Duration),
    Engine(EngineError),
}

impl fmt::Display for StartFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartFailure::Timeout(t) => {
                write!(f, "no answer within {} s of the handshake", t.as_secs_f64())
            }
            StartFailure::Engine(e) => write!(f, "{e}"),
        }
    }
}

impl fmt::Display for MatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MatchError::Resume(e) => write!(f, "{e}"),
            MatchError::Output(e) => write!(f, "output: {e}"),
            MatchError::EngineStart { name, command, why } => write!(
                f,
                "engine {name} (`{command}`) failed to start: {why}; the match stopped before its first game"
            ),
        }
    }
}

impl std::error::Error for MatchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MatchError::Resume(e) => Some(e),
            MatchError::Output(e) => Some(e),
            MatchError::EngineStart {
                why: StartFailure::Engine(e),
                ..
            } => Some(e),
            MatchError::EngineStart { .. } => None,
        }
    }
}

impl From<ResumeError> for MatchError {
    fn from(e: ResumeError) -> Self {
        MatchError::Resume(e)
    }
}

/// Plays the rounds of `jobs` not in `done` (games already played), which
/// count in the score and the report as if played now.
fn play(
    cfg: &MatchConfig,
    jobs: Vec<Job>,
    done: Vec<(Job, GameRecord)>,
    referee: Arc<dyn Referee>,
    stop: Arc<AtomicBool>,
    out: &mut dyn Write,
) -> io::Result<MatchReport> {
    let total = jobs.len();
    let done_rounds: HashSet<usize> = done.iter().map(|(j, _)| j.round).collect();
    let pending: VecDeque<Job> = jobs
        .into_iter()
        .filter(|j| !done_rounds.contains(&j.round))
        .collect();
    let queue = Arc::new(Mutex::new(pending));
    let names: Vec<String> = cfg.engines.iter().map(|e| e.name.clone()).collect();
    let mut tally = Tally {
        cfg,
        names: &names,
        total,
        queue: &queue,
        played: Vec::new(),
        report: MatchReport {
            games: Vec::new(),
            standings: Vec::new(),
            wdl: (names.len() == 2).then(Wdl::default),
            pairs: (names.len() == 2).then(Penta::default),
            // Until a pair is complete the test has no evidence: LLR 0.
            sprt: cfg.sprt.map(|_| (0.0, SprtDecision::Continue)),
            sprt_decided_after: None,
            stopped_early: false,
        },
        half_pairs: HashMap::new(),
    };
    if !done.is_empty() {
        let n = done.len();
        for (job, record) in done {
            tally.add(job, record);
        }
        writeln!(out, "Resumed {n} of {total} games from the PGN file")?;
        tally.progress(out)?;
    }

    let (tx, rx) = mpsc::channel::<(Job, GameRecord)>();
    let workers = cfg.concurrency.clamp(1, total.max(1));
    let cfg_shared = Arc::new(cfg.clone());
    let mut handles = Vec::with_capacity(workers);
    for _ in 0..workers {
        let (queue, tx, stop, referee, cfg) = (
            queue.clone(),
            tx.clone(),
            stop.clone(),
            referee.clone(),
            cfg_shared.clone(),
        );
        handles.push(std::thread::spawn(move || loop {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            let job = match queue.lock() {
                Ok(mut q) => q.pop_front(),
                Err(_) => None,
            };
            let Some(job) = job else { return };
            let setup = GameSetup {
                red: &cfg.engines[job.red],
                black: &cfg.engines[job.black],
                opening: &cfg.openings[job.opening],
                settings: &cfg.settings,
                referee: referee.as_ref(),
                stop: stop.clone(),
            };
            let record = game::play(&setup);
            if tx.send((job, record)).is_err() {
                return;
            }
        }));
    }
    drop(tx);

    // Each engine's time control as PGN writes it (its own under time odds).
    let tc_texts: Vec<String> = cfg
        .engines
        .iter()
        .map(|e| e.tc.as_ref().unwrap_or(&cfg.settings.tc).to_string())
        .collect();
    for (job, record) in rx {
        let Some(outcome) = record.outcome else {
            continue; // interrupted: not a result
        };
        if let Some(path) = &cfg.pgn {
            let header = PgnHeader {
                event: &cfg.event,
                site: &cfg.site,
                date: &pgn::today(),
                round: job.round,
                time_control: [&tc_texts[job.red], &tc_texts[job.black]],
            };
            let text = pgn::format_game(&record, &header);
            let written = OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .and_then(|mut f| f.write_all(text.as_bytes()));
            if let Err(e) = written {
                writeln!(out, "warning: cannot write PGN to {}: {e}", path.display())?;
            }
        }
        writeln!(
            out,
            "Game {} ({} vs {}, {}): {} {{{}}}",
            job.round,
            record.red,
            record.black,
            record.opening.name,
            pgn::result_text(Some(outcome)),
            record.termination
        )?;
        tally.add(job, record);
        tally.progress(out)?;
    }
    for h in handles {
        let _ = h.join();
    }
    let mut report = tally.report;
    if stop.load(Ordering::Relaxed) && report.games.len() < total {
        report.stopped_early = true;
    }
    report.standings = standings::standings(&names, &tally.played, &cfg.scale);
    write_final(cfg, &report, total, out)?;
    Ok(report)
}

/// The score so far, and the SPRT's say on whether to go on.
struct Tally<'a> {
    cfg: &'a MatchConfig,
    names: &'a [String],
    total: usize,
    queue: &'a Mutex<VecDeque<Job>>,
    played: Vec<Played>,
    report: MatchReport,
    /// The first engine's score in games whose pair partner is not in yet,
    /// by pair number.
    half_pairs: HashMap<usize, f64>,
}

impl Tally<'_> {
    /// Counts a finished game; a decided SPRT empties the queue.
    fn add(&mut self, job: Job, record: GameRecord) {
        let Some(outcome) = record.outcome else {
            return;
        };
        self.played.push(Played {
            red: job.red,
            black: job.black,
            outcome,
        });
        if let Some(wdl) = &mut self.report.wdl {
            let first_wins = match outcome {
                Outcome::Draw => None,
                Outcome::RedWins => Some(job.red == 0),
                Outcome::BlackWins => Some(job.black == 0),
            };
            let score = match first_wins {
                Some(true) => {
                    wdl.wins += 1;
                    1.0
                }
                Some(false) => {
                    wdl.losses += 1;
                    0.0
                }
                None => {
                    wdl.draws += 1;
                    0.5
                }
            };
            // Two engines: rounds 2p+1 and 2p+2 play one opening with the
            // colours swapped (`schedule`).
            let pair = (job.round - 1) / 2;
            if let (Some(pairs), Some(other)) =
                (&mut self.report.pairs, self.half_pairs.remove(&pair))
            {
                pairs.add(other, score);
                let undecided = self.report.sprt_decided_after.is_none();
                if let (Some(sprt), true) = (&self.cfg.sprt, undecided) {
                    let llr = sprt.llr_pairs(pairs);
                    let decision = sprt.decide_llr(llr);
                    self.report.sprt = Some((llr, decision));
                    if decision != SprtDecision::Continue {
                        self.report.sprt_decided_after = Some(self.played.len());
                        if let Ok(mut q) = self.queue.lock() {
                            if !q.is_empty() {
                                self.report.stopped_early = true;
                            }
                            q.clear();
                        }
                    }
                }
            } else {
                self.half_pairs.insert(pair, score);
            }
        }
        self.report.games.push((job, record));
    }

    /// The running score: one line for a match, the table otherwise.
    fn progress(&self, out: &mut dyn Write) -> io::Result<()> {
        let played = self.played.len();
        if let Some(wdl) = &self.report.wdl {
            let mut line = progress_line(self.names, wdl, played, self.total);
            if let Some(pairs) = &self.report.pairs {
                line.push_str(&format!(" pairs {}", pairs_text(pairs)));
            }
            if let (Some(sprt), Some((llr, _))) = (&self.cfg.sprt, self.report.sprt) {
                let (lo, hi) = sprt.bounds();
                line.push_str(&format!(" LLR {llr:.2} [{lo:.2}, {hi:.2}]"));
            }
            writeln!(out, "{line}")?;
        } else {
            let rows = standings::standings(self.names, &self.played, &self.cfg.scale);
            writeln!(out, "After {played} of {} games:", self.total)?;
            write!(out, "{}", standings::format_table(&rows))?;
        }
        out.flush()
    }
}

/// Starts each engine once, through its handshake and options, before the
/// first game: an engine that cannot start would otherwise forfeit every
/// game, and the match would report a result that says nothing about the
/// engines. On the way, `auto` protocols are settled, so that a UCI-only
/// engine does not wait out the `ucci` probe in every game. An engine that
/// fails later (a crash, an overloaded machine) still loses only its game.
fn start_each_engine(
    engines: &mut [EngineSpec],
    settings: &GameSettings,
    stop: &Arc<AtomicBool>,
) -> Result<(), MatchError> {
    let timeout = std::time::Duration::from_millis(settings.init_timeout_ms);
    for spec in engines.iter_mut() {
        match Engine::start(spec, timeout, stop.clone()) {
            Ok(engine) => {
                spec.proto = engine.proto;
                engine.quit();
            }
            // Ctrl-C: the match ends as a stopped one does, not as a failure.
            Err(_) if stop.load(Ordering::Relaxed) => return Ok(()),
            Err(e) => {
                let why = match e {
                    EngineError::Timeout => StartFailure::Timeout(timeout),
                    e => StartFailure::Engine(e),
                };
                let mut command = spec.cmd.clone();
                for a in &spec.args {
                    command.push(' ');
                    command.push_str(a);
                }
                return Err(MatchError::EngineStart {
                    name: spec.name.clone(),
                    command,
                    why,
                });
            }
        }
    }
    Ok(())
}

fn elo_text(wdl: &Wdl) -> String {
    match stats::elo_estimate(wdl) {
        Some(e) => e.to_string(),
        None => "Elo -".to_string(),
    }
}

/// Pair counts by the first engine's points: `[0 1/2 1 3/2 2]`.
fn pairs_text(pairs: &Penta) -> String {
    let c = pairs.counts;
    format!("[{} {} {} {} {}]", c[0], c[1], c[2], c[3], c[4])
}

fn progress_line(names: &[String], wdl: &Wdl, played: usize, total: usize) -> String {
    format!(
        "Games {played}/{total}: {} vs {}: {}-{}-{} [{:.3}] {} LOS {:.1}%",
        names[0],
        names[1],
        wdl.wins,
        wdl.draws,
        wdl.losses,
        wdl.score(),
        elo_text(wdl),
        100.0 * stats::los(wdl)
    )
}

fn write_final(
    cfg: &MatchConfig,
    report: &MatchReport,
    total: usize,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "Finished {} of {} games{}",
        report.games.len(),
        total,
        if report.stopped_early {
            " (stopped early)"
        } else {
            ""
        }
    )?;
    write!(out, "{}", standings::format_table(&report.standings))?;
    if let Some(wdl) = &report.wdl {
        writeln!(
            out,
            "{} vs {}: +{} ={} -{}, score {:.3}, {} (95%), LOS {:.1}%",
            cfg.engines[0].name,
            cfg.engines[1].name,
            wdl.wins,
            wdl.draws,
            wdl.losses,
            if wdl.games() > 0 { wdl.score() } else { 0.5 },
            elo_text(wdl),
            100.0 * stats::los(wdl)
        )?;
    }
    if let Some(pairs) = report.pairs.filter(|p| p.pairs() > 0) {
        writeln!(
            out,
            "{} game pairs by {}'s points (0, 1/2, 1, 3/2, 2): {}, score {:.3}",
            pairs.pairs(),
            cfg.engines[0].name,
            pairs_text(&pairs),
            pairs.score()
        )?;
    }
    if let (Some(sprt), Some((llr, decision))) = (&cfg.sprt, report.sprt) {
        let (lo, hi) = sprt.bounds();
        let mut verdict = match decision {
            SprtDecision::H1 => "H1 accepted",
            SprtDecision::H0 => "H0 accepted",
            SprtDecision::Continue => "no decision",
        }
        .to_string();
        if let Some(n) = report.sprt_decided_after {
            verdict.push_str(&format!(" after {n} games"));
            if n < report.games.len() {
                verdict.push_str(&format!(
                    " (the {} then in flight finished after it)",
                    report.games.len() - n
                ));
            }
        }
        writeln!(
            out,
            "SPRT elo0={} elo1={} alpha={} beta={} over game pairs: LLR {llr:.3} [{lo:.3}, {hi:.3}], {verdict}",
            sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta
        )?;
        // For comparison with runs reported before the test went by pairs.
        if let Some(wdl) = &report.wdl {
            writeln!(
                out,
                "  (counting games as independent: LLR {:.3})",
                sprt.llr(wdl)
            )?;
        }
    }
    let mut reasons: Vec<(String, usize)> = Vec::new();
    for (_, g) in &report.games {
        let key = termination_kind(&g.termination);
        match reasons.iter_mut().find(|(k, _)| *k == key) {
            Some((_, n)) => *n += 1,
            None => reasons.push((key, 1)),
        }
    }
    for (k, n) in reasons {
        writeln!(out, "  {n:>5}  {k}")?;
    }
    let names: Vec<String> = cfg.engines.iter().map(|e| e.name.clone()).collect();
    writeln!(out, "Clock use and depth per move (means), speed (median):")?;
    write!(
        out,
        "{}",
        usage::format_table(&usage::usage(&names, &report.games))
    )?;
    Ok(())
}

/// The termination without its side, for the summary.
fn termination_kind(t: &Termination) -> String {
    use Termination::*;
    match t {
        IllegalMove { .. } => "illegal move".into(),
        BannedMove { .. } => "banned move repeated".into(),
        NoMove { .. } => "no move given".into(),
        NoBestMove { .. } => "nobestmove".into(),
        Crash { .. } => "engine crash".into(),
        NoAnswer { .. } => "no answer".into(),
        TimeForfeit { .. } => "time forfeit".into(),
        Resign { .. } => "resignation".into(),
        AdjudicatedWin { .. } => "adjudicated win".into(),
        StartFailure { .. } => "engine failed to start".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matches::engine::EngineSpec;
    use crate::matches::game::{GameSettings, Termination};
    use crate::matches::openings::Opening;
    use chuhe_core::board::Color;

    fn record(outcome: Outcome) -> GameRecord {
        GameRecord {
            red: String::new(),
            black: String::new(),
            opening: Opening::startpos(),
            moves: Vec::new(),
            outcome: Some(outcome),
            termination: Termination::Resign { side: Color::Black },
        }
    }

    /// The games in flight when the SPRT decides still count in the score,
    /// but a loss among them cannot take the decision back.
    #[test]
    fn an_sprt_decision_stands_whatever_the_games_in_flight_bring() {
        let engines = vec![EngineSpec::new("a", "a"), EngineSpec::new("b", "b")];
        let mut cfg = MatchConfig::new(engines, GameSettings::default());
        cfg.sprt = Some("0,200,0.05,0.05".parse().unwrap());
        let names = vec!["a".to_string(), "b".to_string()];
        let queue = Mutex::new(VecDeque::new());
        let mut tally = Tally {
            cfg: &cfg,
            names: &names,
            total: 1000,
            queue: &queue,
            played: Vec::new(),
            report: MatchReport {
                games: Vec::new(),
                standings: Vec::new(),
                wdl: Some(Wdl::default()),
                pairs: Some(Penta::default()),
                sprt: Some((0.0, SprtDecision::Continue)),
                sprt_decided_after: None,
                stopped_early: false,
            },
            half_pairs: HashMap::new(),
        };
        // Engine a wins both games of each pair until the test decides.
        let game = |tally: &mut Tally, a_wins: bool| {
            let round = tally.played.len() + 1;
            let a_red = round % 2 == 1;
            let job = Job {
                round,
                red: if a_red { 0 } else { 1 },
                black: if a_red { 1 } else { 0 },
                opening: 0,
            };
            let outcome = if a_wins == a_red {
                Outcome::RedWins
            } else {
                Outcome::BlackWins
            };
            tally.add(job, record(outcome));
        };
        while tally.report.sprt_decided_after.is_none() {
            assert!(tally.played.len() < 200, "no decision");
            game(&mut tally, true);
        }
        let decided = tally.report.sprt.unwrap();
        assert_eq!(decided.1, SprtDecision::H1);
        let round = tally.played.len();
        assert_eq!(tally.report.sprt_decided_after, Some(round));
        // Two games in flight, both lost: counted, and the decision stands.
        game(&mut tally, false);
        game(&mut tally, false);
        assert_eq!(tally.report.sprt, Some(decided));
        assert_eq!(tally.report.wdl.unwrap().losses, 2);
        let mut out = Vec::new();
        write_final(&cfg, &tally.report, 1000, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains(&format!(
                "H1 accepted after {round} games (the 2 then in flight finished after it)"
            )),
            "{text}"
        );
    }
}
