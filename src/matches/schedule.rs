//! The match to play: its settings (`MatchConfig`) and its games in playing
//! order (`Job`, `schedule`). Below `runner`, which plays them, and `resume`
//! and `usage`, which read played games back against them.

use super::engine::EngineSpec;
use super::game::GameSettings;
use super::openings::Opening;
use super::standings::Scale;
use super::stats::Sprt;
use std::path::PathBuf;

#[derive(Clone, Debug)]
pub struct MatchConfig {
    pub engines: Vec<EngineSpec>,
    /// With three or more engines: the first plays each other one (gauntlet)
    /// instead of everyone playing everyone (round robin).
    pub gauntlet: bool,
    pub openings: Vec<Opening>,
    /// Games per pairing; 0 plays each opening twice, colours swapped.
    pub games_per_pair: usize,
    pub concurrency: usize,
    pub settings: GameSettings,
    pub pgn: Option<PathBuf>,
    /// Go on from `pgn`: its games of this schedule count as played.
    pub resume: bool,
    pub scale: Scale,
    pub sprt: Option<Sprt>,
    pub event: String,
    pub site: String,
}

impl MatchConfig {
    pub fn new(engines: Vec<EngineSpec>, settings: GameSettings) -> Self {
        MatchConfig {
            engines,
            gauntlet: false,
            openings: vec![Opening::startpos()],
            games_per_pair: 0,
            concurrency: 1,
            settings,
            pgn: None,
            resume: false,
            scale: Scale::default(),
            sprt: None,
            event: "Chuhe match".to_string(),
            site: "local".to_string(),
        }
    }
}

/// One scheduled game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Job {
    pub round: usize,
    pub red: usize,
    pub black: usize,
    pub opening: usize,
}

/// Every game of the match in playing order: each opening twice with the
/// colours swapped, pairings interleaved so that all progress together.
pub fn schedule(cfg: &MatchConfig) -> Vec<Job> {
    let n = cfg.engines.len();
    let pairs: Vec<(usize, usize)> = if cfg.gauntlet {
        (1..n).map(|j| (0, j)).collect()
    } else {
        (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .collect()
    };
    let openings = cfg.openings.len().max(1);
    let per_pair = if cfg.games_per_pair == 0 {
        2 * openings
    } else {
        cfg.games_per_pair
    };
    let mut jobs = Vec::with_capacity(per_pair * pairs.len());
    for k in 0..per_pair {
        for &(i, j) in &pairs {
            let (red, black) = if k % 2 == 0 { (i, j) } else { (j, i) };
            jobs.push(Job {
                round: jobs.len() + 1,
                red,
                black,
                opening: (k / 2) % openings,
            });
        }
    }
    jobs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules() {
        let e = |n: &str| EngineSpec::new(n, "x");
        let mut cfg = MatchConfig::new(vec![e("a"), e("b")], GameSettings::default());
        cfg.openings = vec![
            Opening::startpos(),
            Opening::startpos(),
            Opening::startpos(),
        ];
        let jobs = schedule(&cfg);
        assert_eq!(jobs.len(), 6);
        assert_eq!((jobs[0].red, jobs[0].black, jobs[0].opening), (0, 1, 0));
        assert_eq!((jobs[1].red, jobs[1].black, jobs[1].opening), (1, 0, 0));
        assert_eq!(jobs[5].opening, 2);
        cfg.engines.push(e("c"));
        cfg.engines.push(e("d"));
        cfg.games_per_pair = 2;
        assert_eq!(schedule(&cfg).len(), 12);
        cfg.gauntlet = true;
        let g = schedule(&cfg);
        assert_eq!(g.len(), 6);
        assert!(g.iter().all(|j| j.red == 0 || j.black == 0));
    }
}
