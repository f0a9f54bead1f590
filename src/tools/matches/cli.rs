//! The `chuhe match` command line: options, merged over a TOML config file.

use super::adjudication::{Adjudication, DrawRule, ResignRule};
use super::config::{parse_engine_arg, ConfigError, FileConfig};
use super::game::{GameSettings, RulesReferee};
use super::openings;
use super::runner::{self, MatchConfig};
use super::standings::Scale;
use super::stats::Sprt;
use super::timecontrol::TimeControl;
use clap::Args;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Options of `chuhe match`. Each overrides the same setting in `--config`.
#[derive(Args, Debug, Default)]
pub struct MatchArgs {
    /// An engine: `cmd=PROGRAM [ARGS],name=NAME,proto=ucci|uci|auto,coords=0|1|auto,dir=DIR,ponder=true|false,option.NAME=VALUE`
    /// (repeat for each engine; two play a match, more a round robin; `ponder=true` lets it think on the opponent's time).
    #[arg(long = "engine", value_name = "SPEC")]
    pub engines: Vec<String>,
    /// TOML file with engines and settings.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Time control: `1+0.01`, `40/90m,10/15m`, `5m`, `movetime=0.5`, `depth=2`, `nodes=N`.
    #[arg(long)]
    pub tc: Option<String>,
    /// Milliseconds an engine may overrun its clock before its flag falls [default: 100].
    #[arg(long)]
    pub margin_ms: Option<u64>,
    /// Milliseconds to wait for a move under depth or node limits [default: 60000].
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// Opening suite (`name | FEN | moves`, FEN or move-list lines).
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Play the openings in a shuffled order.
    #[arg(long)]
    pub shuffle: bool,
    /// Seed for --shuffle [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Games per pairing [default: two per opening, colours swapped].
    #[arg(long)]
    pub games: Option<usize>,
    /// Games played at once [default: 1].
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// Append finished games to this PGN file.
    #[arg(long)]
    pub pgn: Option<PathBuf>,
    /// Go on with a stopped match: the games of this schedule already in the
    /// --pgn file count, and only the other rounds are played (same engines,
    /// openings, --shuffle/--seed and --games as the first run).
    #[arg(long)]
    pub resume: bool,
    /// With three or more engines: the first plays each of the others.
    #[arg(long)]
    pub gauntlet: bool,
    /// Points for win,draw,loss [default: 2,1,0].
    #[arg(long)]
    pub scale: Option<String>,
    /// Sequential test: elo0,elo1,alpha,beta (two engines); stops when decided.
    #[arg(long)]
    pub sprt: Option<String>,
    #[arg(long)]
    pub event: Option<String>,
    #[arg(long)]
    pub site: Option<String>,
    /// Resign adjudication: score (centipawns) both engines agree on...
    #[arg(long)]
    pub resign_score: Option<i32>,
    /// ...for this many moves each.
    #[arg(long)]
    pub resign_moves: Option<usize>,
    /// Draw adjudication: both scores within this many centipawns of zero...
    #[arg(long)]
    pub draw_score: Option<i32>,
    /// ...for this many moves each...
    #[arg(long)]
    pub draw_moves: Option<usize>,
    /// ...from this move number on [default: 0].
    #[arg(long)]
    pub draw_from_move: Option<usize>,
    /// Draw a game after this many moves by each side (a guard) [default: 500].
    #[arg(long)]
    pub max_moves: Option<usize>,
    /// Send UCCI engines the start FEN and every move, not the FEN after the last capture.
    #[arg(long)]
    pub ucci_full_history: bool,
}

fn parsed<T: std::str::FromStr>(text: Option<String>, what: &str) -> Result<Option<T>, ConfigError>
where
    T::Err: std::fmt::Display,
{
    text.map(|t| {
        t.parse::<T>()
            .map_err(|e| ConfigError(format!("--{what} '{t}': {e}")))
    })
    .transpose()
}

/// Builds the match from the options and the config file.
pub fn build(args: MatchArgs) -> Result<MatchConfig, ConfigError> {
    let file = match &args.config {
        Some(path) => FileConfig::load(path)?,
        None => FileConfig::default(),
    };
    let mut engines = file.engines()?;
    for e in &args.engines {
        engines.push(parse_engine_arg(e)?);
    }
    if engines.len() < 2 {
        return Err(ConfigError(
            "a match needs at least two engines (--engine or [[engine]] in --config)".into(),
        ));
    }
    let tc: TimeControl = parsed(args.tc.or(file.tc), "tc")?.unwrap_or(TimeControl::Clock {
        periods: vec![super::timecontrol::Period {
            moves: None,
            time_ms: 10_000,
        }],
        increment_ms: 100,
    });
    let resign = match (
        args.resign_score.or(file.resign_score),
        args.resign_moves.or(file.resign_moves),
    ) {
        (Some(score_cp), Some(moves)) if moves > 0 => Some(ResignRule { score_cp, moves }),
        (None, None) => None,
        _ => {
            return Err(ConfigError(
                "resign adjudication needs both --resign-score and --resign-moves".into(),
            ))
        }
    };
    let draw = match (
        args.draw_score.or(file.draw_score),
        args.draw_moves.or(file.draw_moves),
    ) {
        (Some(score_cp), Some(moves)) if moves > 0 => Some(DrawRule {
            score_cp,
            moves,
            from_move: args.draw_from_move.or(file.draw_from_move).unwrap_or(0),
        }),
        (None, None) => None,
        _ => {
            return Err(ConfigError(
                "draw adjudication needs both --draw-score and --draw-moves".into(),
            ))
        }
    };
    let settings = GameSettings {
        tc,
        margin_ms: args.margin_ms.or(file.margin_ms).unwrap_or(100),
        no_answer_ms: args.timeout_ms.or(file.timeout_ms).unwrap_or(60_000),
        init_timeout_ms: 10_000,
        adjudication: Adjudication { resign, draw },
        max_plies: 2 * args.max_moves.or(file.max_moves).unwrap_or(500),
        ucci_full_history: args.ucci_full_history || file.ucci_full_history.unwrap_or(false),
    };
    let mut cfg = MatchConfig::new(engines, settings);
    if let Some(path) = args.openings.or(file.openings) {
        cfg.openings =
            openings::load(&path).map_err(|e| ConfigError(format!("--openings: {e}")))?;
    }
    if args.shuffle || file.shuffle.unwrap_or(false) {
        openings::shuffle(&mut cfg.openings, args.seed.or(file.seed).unwrap_or(1));
    }
    cfg.games_per_pair = args.games.or(file.games).unwrap_or(0);
    cfg.concurrency = args.concurrency.or(file.concurrency).unwrap_or(1).max(1);
    cfg.pgn = args.pgn.or(file.pgn);
    cfg.resume = args.resume || file.resume.unwrap_or(false);
    if cfg.resume && cfg.pgn.is_none() {
        return Err(ConfigError(
            "--resume needs the match's --pgn file to resume from".into(),
        ));
    }
    cfg.gauntlet = args.gauntlet || file.gauntlet.unwrap_or(false);
    if let Some(scale) = parsed::<Scale>(args.scale.or(file.scale), "scale")? {
        cfg.scale = scale;
    }
    cfg.sprt = parsed::<Sprt>(args.sprt.or(file.sprt), "sprt")?;
    if cfg.sprt.is_some() && cfg.engines.len() != 2 {
        return Err(ConfigError("--sprt needs exactly two engines".into()));
    }
    if let Some(event) = args.event.or(file.event) {
        cfg.event = event;
    }
    if let Some(site) = args.site.or(file.site) {
        cfg.site = site;
    }
    Ok(cfg)
}

/// Runs `chuhe match`; Ctrl-C stops it, keeping the games already finished.
pub fn run(args: MatchArgs) -> Result<(), ConfigError> {
    let cfg = build(args)?;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed))
        .map_err(|e| ConfigError(format!("cannot catch Ctrl-C: {e}")))?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    runner::run(&cfg, Arc::new(RulesReferee), stop, &mut out)
        .map(|_| ())
        .map_err(ConfigError)
}
