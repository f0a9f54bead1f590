//! `chuhe tune`: SPSA tuning of an engine's numeric options by games.
//!
//! Simultaneous perturbation stochastic approximation, as Fishtest runs it:
//! each iteration moves every parameter by ±c_k at random, plays game pairs
//! (same opening, colours swapped) between the engine with θ + c_k·Δ and
//! with θ − c_k·Δ, and steps θ by a_k · result / (c_k · Δ) toward the side
//! that scored. With N iterations, c_k = c_end · (N / k)^γ and a_k =
//! r_end · c_end² · ((A + N) / (A + k))^α, A = N / 10, γ = 0.101, α =
//! 0.602: each parameter's perturbation shrinks to `c_end` and its step
//! to `r_end`·c_end² by the last iteration.
//!
//! The parameters are the engine's own spin options (a Chuhe built with the
//! `tune` feature lists its search parameters that way), read from its
//! option list with their ranges. The state (iteration and θ) is written
//! after every iteration, so a stopped run resumes where it was.

use crate::matches::engine::{EngineSpec, Protocol};
use crate::matches::game::{GameSettings, RulesReferee};
use crate::matches::openings::Opening;
use crate::matches::runner;
use crate::matches::schedule::MatchConfig;
use chuhe_core::rng::SplitMix64;
use chuhe_core::rules::Outcome;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const GAMMA: f64 = 0.101;
const ALPHA: f64 = 0.602;

/// One tuned parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneParam {
    pub name: String,
    pub value: f64,
    pub min: f64,
    pub max: f64,
    /// The perturbation at the last iteration.
    pub c_end: f64,
    /// The learning rate at the last iteration.
    pub r_end: f64,
}

#[derive(Clone, Debug)]
pub struct TuneConfig {
    /// The engine; both sides of every game run it with different values.
    pub engine: EngineSpec,
    pub params: Vec<TuneParam>,
    pub iterations: u64,
    /// Game pairs per iteration (two games each, colours swapped).
    pub pairs: usize,
    pub settings: GameSettings,
    pub openings: Vec<Opening>,
    pub concurrency: usize,
    /// Where the state is kept (and resumed from).
    pub state: PathBuf,
    pub seed: u64,
}

/// Why tuning could not start or go on.
#[derive(Debug)]
pub enum TuneError {
    /// The engine could not be started to list its options.
    Start { cmd: String, source: std::io::Error },
    /// Talking to the engine while it listed its options failed.
    Engine(std::io::Error),
    /// `--params` names an option the engine does not have.
    NoOption(String),
    /// A `NAME:c_end:r_end` value is not a number.
    BadNumber {
        spec: String,
        what: &'static str,
        text: String,
    },
    /// The state file could not be written.
    StateWrite {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A line of the state file is not `NAME VALUE`.
    StateLine { path: PathBuf, line: String },
    /// One iteration's match.
    Match(runner::MatchError),
}

impl std::fmt::Display for TuneError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TuneError::Start { cmd, source } => write!(f, "cannot start {cmd}: {source}"),
            TuneError::Engine(e) => write!(f, "{e}"),
            TuneError::NoOption(name) => write!(f, "the engine has no spin option '{name}'"),
            TuneError::BadNumber { spec, what, text } => write!(f, "{spec}: bad {what} '{text}'"),
            TuneError::StateWrite { path, source } => write!(f, "{}: {source}", path.display()),
            TuneError::StateLine { path, line } => {
                write!(f, "{}: cannot read '{line}'", path.display())
            }
            TuneError::Match(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for TuneError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TuneError::Start { source, .. } | TuneError::StateWrite { source, .. } => Some(source),
            TuneError::Engine(e) => Some(e),
            TuneError::Match(e) => Some(e),
            _ => None,
        }
    }
}

impl From<runner::MatchError> for TuneError {
    fn from(e: runner::MatchError) -> Self {
        TuneError::Match(e)
    }
}

/// A spin option as the engine lists it: (name, default, min, max).
pub type SpinOption = (String, i64, i64, i64);

/// The engine's spin options, from its `uci` (or `ucci`) answer.
pub fn spin_options(engine: &EngineSpec) -> Result<Vec<SpinOption>, TuneError> {
    let hello = match engine.proto {
        Protocol::Ucci => "ucci",
        _ => "uci",
    };
    let mut cmd = Command::new(&engine.cmd);
    cmd.args(&engine.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some(dir) = &engine.dir {
        cmd.current_dir(dir);
    }
    let mut child = cmd.spawn().map_err(|source| TuneError::Start {
        cmd: engine.cmd.clone(),
        source,
    })?;
    let no_pipe = || TuneError::Engine(std::io::Error::other("no pipe to the engine"));
    let mut stdin = child.stdin.take().ok_or_else(no_pipe)?;
    writeln!(stdin, "{hello}\nquit").map_err(TuneError::Engine)?;
    let out = BufReader::new(child.stdout.take().ok_or_else(no_pipe)?);
    let mut found = Vec::new();
    for line in out.lines() {
        let line = line.map_err(TuneError::Engine)?;
        if line == "uciok" || line == "ucciok" {
            break;
        }
        if let Some(o) = parse_spin(&line) {
            found.push(o);
        }
    }
    let _ = child.wait();
    Ok(found)
}

/// `option [name] NAME type spin default D min A max B` (UCI or UCCI).
fn parse_spin(line: &str) -> Option<SpinOption> {
    let rest = line.strip_prefix("option ")?;
    let rest = rest.strip_prefix("name ").unwrap_or(rest);
    let (name, rest) = rest.split_once(" type spin ")?;
    let words: Vec<&str> = rest.split_whitespace().collect();
    let field = |key: &str| {
        let i = words.iter().position(|w| *w == key)?;
        words.get(i + 1)?.parse::<i64>().ok()
    };
    Some((
        name.to_string(),
        field("default")?,
        field("min")?,
        field("max")?,
    ))
}

/// The parameters to tune: each `NAME[:c_end[:r_end]]` of `wanted` found
/// among the engine's spin options, starting from its default.
pub fn select_params(
    options: &[SpinOption],
    wanted: &[String],
) -> Result<Vec<TuneParam>, TuneError> {
    wanted
        .iter()
        .map(|w| {
            let mut parts = w.split(':');
            let name = parts.next().unwrap_or_default();
            let (_, default, min, max) = options
                .iter()
                .find(|o| o.0.eq_ignore_ascii_case(name))
                .ok_or_else(|| TuneError::NoOption(name.to_string()))?;
            let num = |p: Option<&str>, what: &'static str| -> Result<Option<f64>, TuneError> {
                p.map(|t| {
                    t.parse::<f64>().map_err(|_| TuneError::BadNumber {
                        spec: w.clone(),
                        what,
                        text: t.to_string(),
                    })
                })
                .transpose()
            };
            let span = (*max - *min) as f64;
            Ok(TuneParam {
                name: name.to_string(),
                value: *default as f64,
                min: *min as f64,
                max: *max as f64,
                c_end: num(parts.next(), "c_end")?.unwrap_or((span / 20.0).max(0.5)),
                r_end: num(parts.next(), "r_end")?.unwrap_or(0.002),
            })
        })
        .collect()
}

/// The perturbation and step size of iteration `k` (1-based) of `n`.
fn schedule(p: &TuneParam, k: u64, n: u64) -> (f64, f64) {
    let (k, n) = (k as f64, n as f64);
    let big_a = n / 10.0;
    let c = p.c_end * (n / k).powf(GAMMA);
    let a = p.r_end * p.c_end * p.c_end * ((big_a + n) / (big_a + k)).powf(ALPHA);
    (c, a)
}

/// The state file: `iteration K`, then `NAME VALUE` per parameter.
fn save_state(path: &Path, k: u64, params: &[TuneParam]) -> Result<(), TuneError> {
    let mut text = format!("iteration {k}\n");
    for p in params {
        text += &format!("{} {:.4}\n", p.name, p.value);
    }
    let tmp = path.with_extension("tmp");
    let failed = |path: &Path| {
        let path = path.to_path_buf();
        move |source| TuneError::StateWrite { path, source }
    };
    std::fs::write(&tmp, text).map_err(failed(&tmp))?;
    std::fs::rename(&tmp, path).map_err(failed(path))
}

/// Reads a state back into `params`; returns the iterations done (0 when
/// there is no state yet).
pub fn load_state(path: &Path, params: &mut [TuneParam]) -> Result<u64, TuneError> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(0);
    };
    let bad = |l: &str| TuneError::StateLine {
        path: path.to_path_buf(),
        line: l.to_string(),
    };
    let mut k = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (key, value) = line.rsplit_once(' ').ok_or_else(|| bad(line))?;
        if key == "iteration" {
            k = value.parse().map_err(|_| bad(line))?;
        } else if let Some(p) = params.iter_mut().find(|p| p.name == key) {
            p.value = value
                .parse::<f64>()
                .map_err(|_| bad(line))?
                .clamp(p.min, p.max);
        }
    }
    Ok(k)
}

fn with_values(base: &EngineSpec, name: &str, values: &[(String, i64)]) -> EngineSpec {
    let mut e = base.clone();
    e.name = name.to_string();
    for (n, v) in values {
        e.options.push((n.clone(), v.to_string()));
    }
    e
}

/// Moves each parameter by a_k · result / (c_k · Δ): toward θ+ when it
/// scored more than θ−, away from it when it scored less, within its range.
fn step(params: &mut [TuneParam], steps: &[(f64, f64)], delta: &[f64], result: f64) {
    for ((p, (c, a)), d) in params.iter_mut().zip(steps).zip(delta) {
        p.value = (p.value + a * result / (c * d)).clamp(p.min, p.max);
    }
}

/// Runs the tuning from where the state file left it until `iterations`
/// or `stop`; `log` gets a line per iteration. Returns the final values.
pub fn run(
    cfg: &TuneConfig,
    stop: Arc<AtomicBool>,
    log: &mut dyn FnMut(&str),
) -> Result<Vec<TuneParam>, TuneError> {
    let mut params = cfg.params.clone();
    let done = load_state(&cfg.state, &mut params)?;
    let mut rng = SplitMix64::new(cfg.seed ^ done.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    for k in done + 1..=cfg.iterations {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let steps: Vec<(f64, f64)> = params
            .iter()
            .map(|p| schedule(p, k, cfg.iterations))
            .collect();
        let delta: Vec<f64> = params
            .iter()
            .map(|_| if rng.next_u64() & 1 == 0 { 1.0 } else { -1.0 })
            .collect();
        let side = |sign: f64| -> Vec<(String, i64)> {
            params
                .iter()
                .zip(&steps)
                .zip(&delta)
                .map(|((p, (c, _)), d)| {
                    let v = (p.value + sign * c * d).clamp(p.min, p.max);
                    (p.name.clone(), v.round() as i64)
                })
                .collect()
        };
        let plus = with_values(&cfg.engine, "plus", &side(1.0));
        let minus = with_values(&cfg.engine, "minus", &side(-1.0));
        let opening = if cfg.openings.is_empty() {
            Opening::startpos()
        } else {
            cfg.openings[(rng.next_u64() % cfg.openings.len() as u64) as usize].clone()
        };
        let mut m = MatchConfig::new(vec![plus, minus], cfg.settings.clone());
        m.openings = vec![opening];
        m.games_per_pair = 2 * cfg.pairs.max(1);
        m.concurrency = cfg.concurrency.max(1);
        let report = runner::run(
            &m,
            Arc::new(RulesReferee),
            stop.clone(),
            &mut std::io::sink(),
        )?;
        if report.stopped_early {
            break;
        }
        // Wins minus losses of θ+.
        let result: f64 = report
            .games
            .iter()
            .map(|(job, g)| match g.outcome {
                Some(Outcome::RedWins) if job.red == 0 => 1.0,
                Some(Outcome::BlackWins) if job.black == 0 => 1.0,
                Some(Outcome::RedWins | Outcome::BlackWins) => -1.0,
                _ => 0.0,
            })
            .sum();
        step(&mut params, &steps, &delta, result);
        save_state(&cfg.state, k, &params)?;
        let values: Vec<String> = params
            .iter()
            .map(|p| format!("{}={:.2}", p.name, p.value))
            .collect();
        log(&format!(
            "iteration {k}/{} result {result:+} {}",
            cfg.iterations,
            values.join(" ")
        ));
    }
    Ok(params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spin_options_are_read_from_both_protocols() {
        assert_eq!(
            parse_spin("option name RfpMargin type spin default 85 min 40 max 150"),
            Some(("RfpMargin".into(), 85, 40, 150))
        );
        assert_eq!(
            parse_spin("option hashsize type spin min 0 max 65536 default 64"),
            Some(("hashsize".into(), 64, 0, 65536))
        );
        assert_eq!(
            parse_spin("option name Ponder type check default false"),
            None
        );
        let opts = vec![("RfpMargin".to_string(), 85, 40, 150)];
        let p = select_params(&opts, &["rfpmargin:5".into()]).unwrap();
        assert_eq!((p[0].value, p[0].c_end, p[0].r_end), (85.0, 5.0, 0.002));
        assert!(select_params(&opts, &["Nothing".into()]).is_err());
        assert!(select_params(&opts, &["RfpMargin:x".into()]).is_err());
    }

    #[test]
    fn the_schedule_ends_at_c_end_and_r_end() {
        let p = TuneParam {
            name: "x".into(),
            value: 0.0,
            min: -100.0,
            max: 100.0,
            c_end: 4.0,
            r_end: 0.002,
        };
        let (c, a) = schedule(&p, 1000, 1000);
        assert!((c - 4.0).abs() < 1e-9 && (a / (c * c) - 0.002).abs() < 1e-12);
        let (c1, a1) = schedule(&p, 1, 1000);
        assert!(c1 > c && a1 > a, "larger steps early");
    }

    #[test]
    fn a_step_goes_toward_the_side_that_scored() {
        let param = |value| TuneParam {
            name: "P".into(),
            value,
            min: 0.0,
            max: 100.0,
            c_end: 2.0,
            r_end: 0.002,
        };
        // c = 2, a = 4: a pair won by θ+ (result +2) moves θ by 4 toward
        // the side perturbed up (Δ = +1) or down (Δ = -1).
        let mut ps = vec![param(50.0), param(50.0)];
        step(&mut ps, &[(2.0, 4.0), (2.0, 4.0)], &[1.0, -1.0], 2.0);
        assert_eq!((ps[0].value, ps[1].value), (54.0, 46.0));
        // Lost by θ+: the other way.
        step(&mut ps, &[(2.0, 4.0), (2.0, 4.0)], &[1.0, -1.0], -2.0);
        assert_eq!((ps[0].value, ps[1].value), (50.0, 50.0));
        // A draw leaves it; the range bounds it.
        step(&mut ps, &[(2.0, 4.0), (2.0, 4.0)], &[1.0, -1.0], 0.0);
        assert_eq!(ps[0].value, 50.0);
        step(&mut ps, &[(2.0, 400.0), (2.0, 400.0)], &[1.0, -1.0], 2.0);
        assert_eq!((ps[0].value, ps[1].value), (100.0, 0.0));
    }

    #[test]
    fn state_round_trips() {
        let dir = std::env::temp_dir().join(format!("chuhe-tune-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("state.txt");
        let mut params = select_params(&[("A".into(), 10, 0, 20)], &["A".into()]).unwrap();
        assert_eq!(load_state(&path, &mut params).unwrap(), 0);
        params[0].value = 12.5;
        save_state(&path, 7, &params).unwrap();
        params[0].value = 0.0;
        assert_eq!(load_state(&path, &mut params).unwrap(), 7);
        assert_eq!(params[0].value, 12.5);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
