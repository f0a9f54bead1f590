//! Time management: turns the clock limits into a soft limit (do not start
//! or continue iterating past it, stretched when the best move is unstable,
//! the score falls or the best move took a small share of the nodes) and a
//! hard limit (abort the search at once).

use super::limits::Limits;
use super::params;
use std::time::{Duration, Instant};

/// Moves we assume are left in a sudden-death game.
const SUDDEN_DEATH_MOVES: u32 = 32;
/// The least time we ever plan for, so that a tiny clock still gets a move.
const MIN_THINK: Duration = Duration::from_millis(1);

pub struct TimeManager {
    start: Instant,
    /// (soft, hard) once the clock runs; None while pondering or infinite.
    limits: Option<(Duration, Duration)>,
    /// The budget a ponder search gets when `ponderhit` arrives.
    on_ponderhit: Option<(Duration, Duration)>,
    /// A fixed `movetime` rather than a clock.
    fixed: bool,
    /// The root score of this side's previous search in the game: what the
    /// engine expected when it moved last.
    previous: Option<i32>,
    /// Recent changes of the best move, each counting less an iteration on.
    instability: f64,
    /// The root score of each finished iteration of this search.
    scores: Vec<i32>,
}

/// How much one change of best move raises the soft limit's factor...
const INSTABILITY_WEIGHT: f64 = 0.45;
/// ...and how much of that is left an iteration later.
const INSTABILITY_DECAY: f64 = 0.55;

/// The soft limit's scale after an iteration: `TmSoft` percent of the
/// move's share for a settled search, more for each recent change of best
/// move (`instability`), times the falling-score and node-effort scales.
fn soft_factor(instability: f64, falling: f64, effort: f64) -> f64 {
    (params::tm_soft() as f64 / 100.0 + instability * INSTABILITY_WEIGHT) * falling * effort
}

/// Score differences count for the time factor up to this much (mates and
/// rule wins would swamp it).
const MAX_DROP: i32 = 300;

/// How the soft limit scales with a falling score: `drop_since_move`, how
/// far the score fell since this side's previous search (the opponent's
/// reply was stronger than expected), and `drop_in_search`, how far it fell
/// over the last few iterations of this one. A falling score is a
/// critical move: spend more, up to 1.7 times the share; a rising one,
/// down to 0.8 times (Stockfish's "falling eval", with its weights: the
/// fall since the last move counts twice).
fn falling_scale(drop_since_move: i32, drop_in_search: i32) -> f64 {
    let d =
        2 * drop_since_move.clamp(-MAX_DROP, MAX_DROP) + drop_in_search.clamp(-MAX_DROP, MAX_DROP);
    (1.0 + d as f64 / 100.0).clamp(0.8, 1.7)
}

/// Soft and hard limits for one move from the clock, or None if untimed.
fn budget(limits: &Limits) -> Option<(Duration, Duration)> {
    let overhead = limits.move_overhead;
    if let Some(mt) = limits.movetime {
        let t = mt.saturating_sub(overhead).max(MIN_THINK);
        return Some((t, t));
    }
    let time = limits.time?;
    let inc = limits.increment.unwrap_or_default();
    // Keep the overhead for every move still to come before the control, at
    // least for a few: the clock must never run out.
    let mtg = limits
        .movestogo
        .map_or(SUDDEN_DEATH_MOVES, |m| m.clamp(1, SUDDEN_DEATH_MOVES));
    let left = time.saturating_sub(overhead * mtg.min(4)).max(MIN_THINK);
    let share = left / mtg + inc * 3 / 4;
    let hard_cap = if mtg == 1 { left * 9 / 10 } else { left / 2 };
    // Pikafish-HCE spent up to seven shares on a critical move at 1 min +
    // 1 s, Chuhe at most three (issue 52): `TmHard` allows seven now.
    let hard = (share * params::tm_hard() as u32)
        .min(hard_cap)
        .max(MIN_THINK);
    let soft = share.min(hard);
    Some((soft, hard))
}

/// How the soft limit scales with the share of the search's nodes spent
/// below the best root move. A move that took nearly all the effort was
/// never seriously challenged: stop sooner. One that took little of it
/// had close rivals the search is still sorting out: go on longer. About
/// 1 at a share of three quarters, the usual share in a settled search.
fn effort_scale(best_share: f64) -> f64 {
    ((1.5 - best_share.clamp(0.0, 1.0)) * 1.35).clamp(0.6, 1.8)
}

impl TimeManager {
    pub fn new(limits: &Limits) -> Self {
        let b = budget(limits);
        let (now, later) = if limits.infinite {
            (None, None)
        } else if limits.ponder {
            (None, b)
        } else {
            (b, None)
        };
        TimeManager {
            start: Instant::now(),
            limits: now,
            on_ponderhit: later,
            fixed: limits.movetime.is_some(),
            previous: None,
            instability: 0.0,
            scores: Vec::new(),
        }
    }

    /// Gives the root score of this side's previous search in the game.
    pub fn set_previous_score(&mut self, score: Option<i32>) {
        self.previous = score;
    }

    /// The soft limit's scale for a root score of `score`; `last` is the
    /// previous iteration's score and `earlier` the one three iterations
    /// back (None: no comparison to make).
    fn falling(&self, score: i32, last: Option<i32>, earlier: Option<i32>) -> f64 {
        if params::tm_falling() == 0 {
            return match last {
                Some(p) if score < p - 40 => 1.4,
                Some(p) if score < p - 15 => 1.15,
                _ => 1.0,
            };
        }
        let since_move = self.previous.map_or(0, |p| p - score);
        let in_search = earlier.map_or(0, |e| e - score);
        falling_scale(since_move, in_search)
    }

    /// After each finished iteration of the main search: whether to stop
    /// iterating. `best_changed`: the iteration changed the best move;
    /// `score`: its root score; `best_share`: the share of the nodes spent
    /// below the best move (None where it means little yet, in the first
    /// few iterations).
    pub fn iteration_done(
        &mut self,
        best_changed: bool,
        score: i32,
        best_share: Option<f64>,
    ) -> bool {
        if best_changed {
            self.instability += 1.0;
        }
        // A falling score is judged against the last iteration and the one
        // three back: one iteration's swing is partly the odd-even effect.
        let back = |n: usize| self.scores.len().checked_sub(n).map(|i| self.scores[i]);
        let falling = self.falling(score, back(1), back(3));
        self.scores.push(score);
        let effort = best_share.map_or(1.0, effort_scale);
        let factor = soft_factor(self.instability, falling, effort);
        self.instability *= INSTABILITY_DECAY;
        self.soft_exceeded(factor)
    }

    /// The opponent played the expected move: the clock starts now.
    pub fn ponderhit(&mut self) {
        if let Some(b) = self.on_ponderhit.take() {
            self.start = Instant::now();
            self.limits = Some(b);
        }
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    pub fn is_timed(&self) -> bool {
        self.limits.is_some()
    }

    /// Timed by the game clock (not a fixed `movetime`).
    pub fn on_clock(&self) -> bool {
        self.is_timed() && !self.fixed
    }

    pub fn hard_exceeded(&self) -> bool {
        self.limits.is_some_and(|(_, h)| self.elapsed() >= h)
    }

    /// Whether to stop iterating, with the soft limit scaled by `factor`
    /// (more than 1 when the search is unsettled), never past the hard one.
    fn soft_exceeded(&self, factor: f64) -> bool {
        if self.fixed {
            // `movetime` means think exactly that long: only the hard limit ends it.
            return self.hard_exceeded();
        }
        self.limits.is_some_and(|(s, h)| {
            let s = s.mul_f64(factor.clamp(0.3, 4.0)).min(h);
            self.elapsed() >= s
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn budgets_stay_inside_the_clock() {
        let mut l = Limits {
            time: Some(ms(60_000)),
            move_overhead: ms(50),
            ..Limits::default()
        };
        let (s, h) = budget(&l).unwrap();
        assert!(s <= h && h < ms(30_000) && s > ms(1000), "{s:?} {h:?}");
        l.movestogo = Some(1);
        let (s, h) = budget(&l).unwrap();
        assert!(h < ms(60_000) && s <= h, "{s:?} {h:?}");
        l.time = Some(ms(30));
        let (s, h) = budget(&l).unwrap();
        assert!(h <= ms(30) && s <= h);
        l = Limits {
            movetime: Some(ms(500)),
            move_overhead: ms(20),
            ..Limits::default()
        };
        assert_eq!(budget(&l), Some((ms(480), ms(480))));
    }

    #[test]
    fn a_dominant_move_stops_sooner() {
        let shares = [0.0, 0.2, 0.5, 0.75, 0.9, 1.0];
        let scales: Vec<f64> = shares.iter().map(|&s| effort_scale(s)).collect();
        assert!(scales.windows(2).all(|w| w[0] >= w[1]), "{scales:?}");
        assert!(effort_scale(1.0) < 0.75 && effort_scale(0.2) > 1.5);
        assert!((effort_scale(0.75) - 1.0).abs() < 0.02);
        // Shares outside [0, 1] (none should arise) still give a bounded scale.
        assert_eq!(effort_scale(-3.0), effort_scale(0.0));
        assert_eq!(effort_scale(7.0), effort_scale(1.0));
    }

    #[test]
    fn a_falling_score_buys_time() {
        assert_eq!(falling_scale(0, 0), 1.0);
        // The fall since the last move counts twice the fall in this search.
        assert!(falling_scale(20, 0) > falling_scale(0, 20));
        assert!(falling_scale(20, 0) > 1.3 && falling_scale(0, 20) > 1.1);
        // Bounded both ways, mates and rule wins included.
        assert_eq!(falling_scale(29_000, 29_000), 1.7);
        assert_eq!(falling_scale(-29_000, 0), 0.8);
        let mut tm = TimeManager::new(&Limits::default());
        assert_eq!(tm.falling(50, None, None), 1.0);
        tm.set_previous_score(Some(80));
        if params::tm_falling() == 0 {
            // The last iteration alone counts, by steps.
            assert_eq!(tm.falling(50, Some(50), Some(50)), 1.0);
            assert_eq!(tm.falling(50, Some(70), Some(50)), 1.15);
            assert_eq!(tm.falling(50, Some(91), Some(50)), 1.4);
        } else {
            assert!(tm.falling(50, Some(50), Some(50)) > 1.5);
            assert!(tm.falling(120, Some(120), Some(120)) < 1.0);
        }
    }

    #[test]
    fn an_unstable_best_move_buys_time() {
        let settled = soft_factor(0.0, 1.0, 1.0);
        assert_eq!(settled, params::tm_soft() as f64 / 100.0);
        assert!(soft_factor(1.0, 1.0, 1.0) > settled + 0.4);
        assert_eq!(soft_factor(0.0, 1.5, 1.0), settled * 1.5);
        // Changes of best move are remembered for a few iterations, less
        // each time: with a clock of 10 s a move (share 1 s, nothing spent
        // yet) nothing stops, whatever the instability.
        let mut tm = TimeManager::new(&Limits {
            movestogo: Some(10),
            time: Some(ms(10_000)),
            ..Limits::default()
        });
        assert!(!tm.iteration_done(true, 0, None));
        assert_eq!(tm.instability, INSTABILITY_DECAY);
        assert!(!tm.iteration_done(false, 0, Some(0.9)));
        assert_eq!(tm.scores, [0, 0]);
        assert_eq!(tm.instability, INSTABILITY_DECAY * INSTABILITY_DECAY);
        // A clock of 30 ms gives a share of about 1 ms and a hard limit
        // under 5: past that, even the most unsettled search stops.
        let mut tm = TimeManager::new(&Limits {
            time: Some(ms(30)),
            ..Limits::default()
        });
        std::thread::sleep(ms(10));
        assert!(tm.iteration_done(true, 0, None));
        assert!(tm.iteration_done(true, -200, Some(0.0)));
    }

    #[test]
    fn ponder_has_no_clock_until_ponderhit() {
        let l = Limits {
            movetime: Some(ms(100)),
            ponder: true,
            ..Limits::default()
        };
        let mut tm = TimeManager::new(&l);
        assert!(!tm.is_timed());
        tm.ponderhit();
        assert!(tm.is_timed());
    }
}
