//! `chuhe match`: the options, merged over a TOML config file, into the
//! match's `MatchConfig`.

use super::args::MatchArgs;
use crate::matches::adjudication::{Adjudication, DrawRule, ResignRule};
use crate::matches::config::{parse_engine_arg, ConfigError, FileConfig};
use crate::matches::game::{GameSettings, RulesReferee};
use crate::matches::openings;
use crate::matches::runner;
use crate::matches::schedule::MatchConfig;
use crate::matches::standings::Scale;
use crate::matches::stats::Sprt;
use crate::matches::timecontrol::{Period, TimeControl};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

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
        periods: vec![Period {
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
    // 0 stands for the default (two per opening) inside MatchConfig; asked
    // for by name it would silently mean something else.
    cfg.games_per_pair = match args.games.or(file.games) {
        Some(0) => {
            return Err(ConfigError(
                "--games (or `games` in --config) is 0: a pairing needs at least one game \
                 (leave it out for two per opening, colours swapped)"
                    .into(),
            ))
        }
        games => games.unwrap_or(0),
    };
    let random_plies = args.random_plies.or(file.random_plies).unwrap_or(0);
    if random_plies > 40 {
        return Err(ConfigError(format!(
            "--random-plies {random_plies}: at most 40 (an opening, not a game)"
        )));
    }
    if random_plies > 0 {
        let pairs = match cfg.games_per_pair {
            0 => cfg.openings.len(),
            games => games.div_ceil(2),
        };
        let seed = args.seed.or(file.seed).unwrap_or(1);
        cfg.openings = openings::randomized(&cfg.openings, pairs, random_plies, seed);
    } else if cfg
        .engines
        .iter()
        .map(|e| e.tc.as_ref().unwrap_or(&cfg.settings.tc))
        .all(|tc| matches!(tc, TimeControl::Nodes(_) | TimeControl::Depth(_)))
        && cfg.games_per_pair > 2 * cfg.openings.len()
    {
        // Nothing varies a game at a fixed limit: the statistics would count
        // copies as if they were new games.
        eprintln!(
            "warning: at --tc {} each opening replays the same two games, so only {} of the {} \
             games differ; give --random-plies N for an opening per game pair",
            cfg.settings.tc,
            2 * cfg.openings.len(),
            cfg.games_per_pair
        );
    }
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

/// Runs `chuhe match`; `stop` (Ctrl-C) ends it, keeping the games already
/// finished.
pub fn run(args: MatchArgs, stop: Arc<AtomicBool>) -> Result<(), ConfigError> {
    let cfg = build(args)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    runner::run(&cfg, Arc::new(RulesReferee), stop, &mut out)
        .map(|_| ())
        .map_err(|e| ConfigError(e.to_string()))
}
