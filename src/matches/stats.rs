//! Match statistics for two engines: Elo difference with a 95% interval, the
//! likelihood of superiority, and the sequential probability ratio test with
//! the usual normal (GSPRT) approximation of the log-likelihood ratio, taken
//! over game pairs (pentanomial) where the games come in pairs.

/// Wins, draws and losses from the first engine's view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Wdl {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Mean score per game (win 1, draw 1/2); an even 0.5 before any game,
    /// rather than the NaN of 0/0 reaching a printed line.
    pub fn score(&self) -> f64 {
        if self.games() == 0 {
            return 0.5;
        }
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games() as f64
    }

    /// Variance of one game's score.
    fn variance(&self) -> f64 {
        let n = self.games() as f64;
        let s = self.score();
        (self.wins as f64 * (1.0 - s).powi(2)
            + self.draws as f64 * (0.5 - s).powi(2)
            + self.losses as f64 * s.powi(2))
            / n
    }
}

/// Results of game pairs (one opening played twice, colours swapped) from
/// the first engine's view: `counts[k]` pairs in which it scored k half
/// points of two games (0, 1/2, 1, 3/2 or 2 points).
///
/// Games of a pair are not independent: an opening that favours one side
/// helps each engine in one of the two, so the results tend to cancel.
/// Counting games as independent misstates the noise (usually overstates
/// it); pairs are independent, so the SPRT is taken over them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Penta {
    pub counts: [u32; 5],
}

impl Penta {
    /// Counts one pair from the first engine's two results (1, 1/2 or 0
    /// each).
    pub fn add(&mut self, a: f64, b: f64) {
        let half_points = ((a + b) * 2.0).round().clamp(0.0, 4.0) as usize;
        self.counts[half_points] += 1;
    }

    pub fn pairs(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// Mean score per game and the variance of a pair's mean score, with
    /// each empty bin counted as half a pair. Without that, pairs that all
    /// ended alike would have no variance: the normal approximation would
    /// then call one pair certain proof, or never decide at all. Once every
    /// bin has pairs in it, as in any real run, nothing is added.
    fn score_and_variance(&self) -> (f64, f64) {
        moments(self.counts.map(|c| if c == 0 { 0.5 } else { c as f64 }))
    }

    /// Mean score per game over the pairs, as counted.
    pub fn score(&self) -> f64 {
        moments(self.counts.map(f64::from)).0
    }
}

/// Mean and variance of a pair's mean score (k/4 for bin k) over pairs
/// weighted `w`.
fn moments(w: [f64; 5]) -> (f64, f64) {
    let n: f64 = w.iter().sum();
    let value = |k: usize| k as f64 / 4.0;
    let s = (0..5).map(|k| w[k] * value(k)).sum::<f64>() / n;
    let var = (0..5).map(|k| w[k] * (value(k) - s).powi(2)).sum::<f64>() / n;
    (s, var)
}

/// Elo difference for an expected score `s` (0 < s < 1), logistic model.
pub fn elo_from_score(s: f64) -> f64 {
    -400.0 * (1.0 / s - 1.0).log10()
}

/// Expected score for an Elo difference.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Elo estimate with its 95% interval, all of it finite: a match that went
/// one way has no estimate (the score's Elo is infinite), only a bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EloEstimate {
    /// A score strictly between 0 and 1. An end of the interval is None
    /// where the normal approximation puts it outside (0, 1): the games say
    /// nothing about that side yet.
    Estimate {
        elo: f64,
        low: Option<f64>,
        high: Option<f64>,
    },
    /// Every game lost: the difference is below `bound` (95%).
    AllLost { games: u32, bound: f64 },
    /// Every game won: the difference is above `bound` (95%).
    AllWon { games: u32, bound: f64 },
}

/// The score per game above which losing all `n` games has a chance under
/// 2.5% (one side of a 95% interval). Each game lost has a chance of at
/// most 1 - s for a score s (draws only lower it), so the bound holds
/// whatever the draw rate.
fn one_way_bound(n: u32) -> f64 {
    1.0 - 0.025f64.powf(1.0 / f64::from(n.max(1)))
}

pub fn elo_estimate(wdl: &Wdl) -> Option<EloEstimate> {
    let n = wdl.games();
    if n == 0 {
        return None;
    }
    if wdl.losses == n {
        let bound = elo_from_score(one_way_bound(n));
        return Some(EloEstimate::AllLost { games: n, bound });
    }
    if wdl.wins == n {
        let bound = -elo_from_score(one_way_bound(n));
        return Some(EloEstimate::AllWon { games: n, bound });
    }
    let s = wdl.score();
    let se = (wdl.variance() / n as f64).sqrt();
    let z = 1.959_963_984_540_054;
    let inside = |x: f64| (x > 0.0 && x < 1.0).then(|| elo_from_score(x));
    Some(EloEstimate::Estimate {
        elo: elo_from_score(s),
        low: inside(s - z * se),
        high: inside(s + z * se),
    })
}

impl std::fmt::Display for EloEstimate {
    /// `Elo +147.2 [+77.7, +226.9]`, with words where a number would be
    /// infinite.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `+ 0.0` turns -0.0 into 0.0 so an even score does not print as "-0.0".
        let num = |x: f64| format!("{:+.1}", x + 0.0);
        match *self {
            EloEstimate::Estimate { elo, low, high } => {
                write!(f, "Elo {} ", num(elo))?;
                match (low, high) {
                    (Some(l), Some(h)) => write!(f, "[{}, {}]", num(l), num(h)),
                    (Some(l), None) => write!(f, "[{}, no upper bound yet]", num(l)),
                    (None, Some(h)) => write!(f, "[no lower bound yet, {}]", num(h)),
                    (None, None) => write!(f, "[no bounds yet]"),
                }
            }
            EloEstimate::AllLost { games, bound } => write!(
                f,
                "Elo below {} (all {games} games lost: too lopsided to estimate)",
                num(bound)
            ),
            EloEstimate::AllWon { games, bound } => write!(
                f,
                "Elo above {} (all {games} games won: too lopsided to estimate)",
                num(bound)
            ),
        }
    }
}

/// Error function (Abramowitz and Stegun 7.1.26, |error| < 1.5e-7).
pub fn erf(x: f64) -> f64 {
    let sign = if x < 0.0 { -1.0 } else { 1.0 };
    let x = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    sign * (1.0 - poly * (-x * x).exp())
}

/// Likelihood of superiority: the chance the first engine is the stronger,
/// from wins and losses (draws carry no information here).
pub fn los(wdl: &Wdl) -> f64 {
    let (w, l) = (wdl.wins as f64, wdl.losses as f64);
    if w + l == 0.0 {
        return 0.5;
    }
    0.5 * (1.0 + erf((w - l) / (2.0 * (w + l)).sqrt()))
}

/// A comma-separated list of finite numbers (`2,1,0`, `0,10,0.05,0.05`).
pub fn parse_numbers(s: &str) -> Option<Vec<f64>> {
    s.split(',')
        .map(|x| x.trim().parse::<f64>().ok().filter(|v| v.is_finite()))
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtDecision {
    /// H1 (elo >= elo1) accepted.
    H1,
    /// H0 (elo <= elo0) accepted.
    H0,
    Continue,
}

impl std::str::FromStr for Sprt {
    type Err = String;
    /// `elo0,elo1,alpha,beta`, e.g. `0,10,0.05,0.05`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let v = parse_numbers(s)
            .ok_or_else(|| format!("--sprt '{s}': expected elo0,elo1,alpha,beta"))?;
        let [elo0, elo1, alpha, beta] = v[..] else {
            return Err(format!("--sprt '{s}': expected four numbers"));
        };
        let valid = elo0 < elo1 && 0.0 < alpha && alpha < 0.5 && 0.0 < beta && beta < 0.5;
        if !valid {
            return Err(format!(
                "--sprt '{s}': need elo0 < elo1 and 0 < alpha, beta < 0.5"
            ));
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }
}

impl Sprt {
    /// (lower, upper) LLR bounds: ln(beta/(1-alpha)), ln((1-beta)/alpha).
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// Log-likelihood ratio of H1 against H0 for the results so far:
    /// N (s1 - s0)(2 s - s0 - s1) / (2 var), with s the mean score and var
    /// the per-game variance.
    pub fn llr(&self, wdl: &Wdl) -> f64 {
        let n = wdl.games() as f64;
        if n == 0.0 {
            return 0.0;
        }
        self.normal_llr(n, wdl.score(), wdl.variance())
    }

    /// The same over game pairs: N pairs, s the mean score per game, var
    /// the variance of a pair's mean score.
    pub fn llr_pairs(&self, pairs: &Penta) -> f64 {
        if pairs.pairs() == 0 {
            return 0.0;
        }
        let (s, var) = pairs.score_and_variance();
        self.normal_llr(pairs.pairs() as f64, s, var)
    }

    fn normal_llr(&self, n: f64, s: f64, var: f64) -> f64 {
        if var <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
        n * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var)
    }

    /// H1, H0 or go on, for a log-likelihood ratio.
    pub fn decide_llr(&self, llr: f64) -> SprtDecision {
        let (lo, hi) = self.bounds();
        if llr >= hi {
            SprtDecision::H1
        } else if llr <= lo {
            SprtDecision::H0
        } else {
            SprtDecision::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() < eps
    }

    #[test]
    fn elo_of_known_scores() {
        assert!(close(elo_from_score(0.5), 0.0, 1e-12));
        assert!(close(elo_from_score(0.75), 190.848, 1e-3));
        assert!(close(elo_from_score(0.64), 99.951, 1e-3));
        assert!(close(score_from_elo(100.0), 0.640_065, 1e-6));
    }

    #[test]
    fn interval() {
        // 60 wins, 20 draws, 20 losses: s = 0.7, per-game var = 0.16
        let wdl = Wdl {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        let Some(EloEstimate::Estimate {
            elo,
            low: Some(low),
            high: Some(high),
        }) = elo_estimate(&wdl)
        else {
            panic!("an estimate with both ends");
        };
        assert!(close(elo, 147.19, 0.01));
        // se = sqrt(0.16/100) = 0.04
        assert!(close(low, elo_from_score(0.7 - 1.959964 * 0.04), 0.01));
        assert!(close(high, elo_from_score(0.7 + 1.959964 * 0.04), 0.01));
        assert!(elo_estimate(&Wdl::default()).is_none());
    }

    /// Issue 50: a short match that went one way printed `Elo -inf [-inf,
    /// -inf]`. Every number is finite now, and a one-way match gives a bound.
    #[test]
    fn lopsided_scores_give_bounds_not_infinities() {
        let wdl = |wins, draws, losses| Wdl {
            wins,
            draws,
            losses,
        };
        // 0-2: losing both is 2.5% likely at a score of 1 - sqrt(0.025).
        let Some(EloEstimate::AllLost { games: 2, bound }) = elo_estimate(&wdl(0, 0, 2)) else {
            panic!("all lost");
        };
        assert!(close(bound, elo_from_score(1.0 - 0.025f64.sqrt()), 1e-9));
        assert_eq!(
            elo_estimate(&wdl(0, 0, 2)).unwrap().to_string(),
            "Elo below +290.5 (all 2 games lost: too lopsided to estimate)"
        );
        assert_eq!(
            elo_estimate(&wdl(3, 0, 0)).unwrap().to_string(),
            "Elo above -153.5 (all 3 games won: too lopsided to estimate)"
        );
        // The more games, the tighter: 100 losses put it far below.
        let Some(EloEstimate::AllLost { bound, .. }) = elo_estimate(&wdl(0, 0, 100)) else {
            panic!("all lost");
        };
        assert!(bound < -400.0, "{bound}");
        // Interval ends outside (0, 1) are said in words.
        assert_eq!(
            elo_estimate(&wdl(1, 0, 1)).unwrap().to_string(),
            "Elo +0.0 [no bounds yet]"
        );
        let t = elo_estimate(&wdl(9, 1, 0)).unwrap().to_string();
        assert!(t.ends_with(", no upper bound yet]"), "{t}");
        let t = elo_estimate(&wdl(0, 1, 9)).unwrap().to_string();
        assert!(t.contains("[no lower bound yet, "), "{t}");
        // No infinity or NaN in any text from small matches.
        for w in 0..12 {
            for d in 0..12 {
                for l in 0..12 {
                    if let Some(e) = elo_estimate(&wdl(w, d, l)) {
                        let t = e.to_string().to_lowercase();
                        assert!(!t.contains("inf") && !t.contains("nan"), "{w}-{d}-{l}: {t}");
                    }
                }
            }
        }
    }

    #[test]
    fn erf_and_los() {
        assert!(close(erf(0.5), 0.520_499_877_8, 2e-7));
        assert!(close(erf(-1.0), -0.842_700_792_9, 2e-7));
        // 10 wins, 5 losses: Phi(5 / sqrt(15)) = Phi(1.29099) = 0.90164
        let wdl = Wdl {
            wins: 10,
            draws: 7,
            losses: 5,
        };
        assert!(close(los(&wdl), 0.901_64, 1e-4));
        assert_eq!(
            los(&Wdl {
                wins: 0,
                draws: 4,
                losses: 0
            }),
            0.5
        );
    }

    #[test]
    fn sprt_bounds_and_llr() {
        let sprt: Sprt = "0,10,0.05,0.05".parse().unwrap();
        let (lo, hi) = sprt.bounds();
        assert!(close(lo, -2.944_439, 1e-6));
        assert!(close(hi, 2.944_439, 1e-6));
        // 1000 games: 300 W, 450 D, 250 L: s = 0.525, var = 0.136875.
        let wdl = Wdl {
            wins: 300,
            draws: 450,
            losses: 250,
        };
        let s0 = 0.5;
        let s1 = score_from_elo(10.0);
        let expected = 1000.0 * (s1 - s0) * (2.0 * 0.525 - s0 - s1) / (2.0 * 0.136_875);
        assert!(close(sprt.llr(&wdl), expected, 1e-9));
        assert!(close(expected, 1.8717, 1e-3));
        assert_eq!(sprt.decide_llr(sprt.llr(&wdl)), SprtDecision::Continue);
        let strong = Wdl {
            wins: 600,
            draws: 300,
            losses: 100,
        };
        assert_eq!(sprt.decide_llr(sprt.llr(&strong)), SprtDecision::H1);
        let weak = Wdl {
            wins: 100,
            draws: 300,
            losses: 600,
        };
        assert_eq!(sprt.decide_llr(sprt.llr(&weak)), SprtDecision::H0);
        assert!("1,0,0.05,0.05".parse::<Sprt>().is_err());
        assert!("0,5,0.05".parse::<Sprt>().is_err());
    }

    #[test]
    fn sprt_over_pairs() {
        let sprt: Sprt = "0,10,0.05,0.05".parse().unwrap();
        let mut p = Penta::default();
        p.add(1.0, 0.5);
        p.add(0.5, 1.0);
        p.add(0.0, 0.0);
        p.add(1.0, 1.0);
        p.add(0.5, 0.0);
        assert_eq!(p.counts, [1, 1, 0, 2, 1]);
        assert_eq!(p.pairs(), 5);
        assert!(close(p.score(), 0.55, 1e-12));

        // Every bin filled: the plain normal approximation over pairs.
        // 100 pairs [5 20 45 20 10]: s = 0.525, pair variance
        // (5 x 0.525^2 + 20 x 0.275^2 + 45 x 0.025^2 + 20 x 0.225^2
        // + 10 x 0.475^2) / 100 = 0.061875.
        let p = Penta {
            counts: [5, 20, 45, 20, 10],
        };
        assert!(close(p.score(), 0.525, 1e-12));
        let (s0, s1) = (0.5, score_from_elo(10.0));
        let expected = 100.0 * (s1 - s0) * (2.0 * 0.525 - s0 - s1) / (2.0 * 0.061_875);
        assert!(close(sprt.llr_pairs(&p), expected, 1e-9));

        // Say the 45 even pairs were each a win and a loss (Red won both
        // games): counted one by one, the 200 games are 85 wins, 40 draws
        // and 75 losses, and look noisier than they are. The pairs see
        // that those results cancel and give the stronger verdict.
        let games = Wdl {
            wins: 85,
            draws: 40,
            losses: 75,
        };
        assert!(close(games.score(), p.score(), 1e-12));
        assert!(sprt.llr_pairs(&p) > 1.5 * sprt.llr(&games));

        // One pair alone, however one-sided, proves nothing.
        let mut one = Penta::default();
        one.add(1.0, 1.0);
        assert_eq!(
            sprt.decide_llr(sprt.llr_pairs(&one)),
            SprtDecision::Continue
        );
        assert_eq!(sprt.llr_pairs(&Penta::default()), 0.0);
        // Many pairs all alike still reach a verdict.
        let same = Penta {
            counts: [0, 0, 0, 300, 0],
        };
        assert_eq!(sprt.decide_llr(sprt.llr_pairs(&same)), SprtDecision::H1);
    }
}
