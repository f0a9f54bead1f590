//! Playing below full strength, for human opponents: UCI's `Skill Level`
//! (0-20) and `UCI_LimitStrength` with `UCI_Elo`.
//!
//! A weaker Chuhe should lose the way a weaker player does: by seeing less
//! and by preferring a plausible move to the best one, never by a random
//! blunder. So a level does two things:
//! - it limits the search to a node budget that grows with the level (a
//!   few hundred nodes at level 0, about 800 thousand at 19), so
//!   tactics beyond its horizon go unseen;
//! - it searches several lines (at least `LINES`) and draws the move among
//!   those whose score is within the level's margin of the best, the better
//!   ones more likely. A line outside the margin is never played, so no
//!   level gives away more than its margin by choice, and a forced mate the
//!   search has seen is never passed over for a slower or losing line.
//!
//! Level 20 is full strength: no limit, no choice.

use crate::rng::SplitMix64;
use crate::search::{Limits, PvLine, Score};

/// The strongest level, which plays at full strength.
pub const MAX_LEVEL: u32 = 20;
/// Lines searched at a reduced level: the candidates of the choice.
const LINES: usize = 4;
/// The budget of level 0. With less, four lines do not get past the first
/// ply, and one-ply play measured stronger than two-ply play, so the levels
/// would not rise with the budget at the bottom (docs/RESULTS.md, "Playing
/// strength levels").
const LEVEL_0_NODES: f64 = 630.0;

/// The levels' ratings as measured (docs/RESULTS.md, "Playing strength
/// levels"): (level, Elo), levels rising. The ladder up to level 12 is
/// self-play between levels two apart; levels 12, 14 and 16 were played
/// against ElephantEye 3.31 at 5 s + 0.05 s, which the scale places at
/// 2500; full strength (20) is its result against ElephantEye at
/// 10 s + 0.1 s. Only the differences were measured: the anchor is a choice.
const SCALE: [(u32, u32); 10] = [
    (0, 532),
    (2, 669),
    (4, 849),
    (6, 1104),
    (8, 1423),
    (10, 1987),
    (12, 2272),
    (14, 2535),
    (16, 2691),
    (20, 3180),
];

/// The Elo range `UCI_Elo` accepts: level 0's rating up to level 19's.
pub const MIN_ELO: u32 = SCALE[0].1;
pub const MAX_ELO: u32 = 3058;

/// A playing strength: a level between 0 and `MAX_LEVEL`, fractional so
/// that an Elo setting falls between two levels smoothly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Strength {
    level: f64,
}

impl Default for Strength {
    fn default() -> Self {
        Strength::full()
    }
}

impl Strength {
    pub fn full() -> Strength {
        Strength {
            level: MAX_LEVEL as f64,
        }
    }

    /// `Skill Level`: 0 (weakest) to 20 (full strength).
    pub fn level(level: u32) -> Strength {
        Strength {
            level: level.min(MAX_LEVEL) as f64,
        }
    }

    /// `UCI_Elo`: the level whose measured rating is `elo`, interpolated
    /// between the measured levels; never full strength.
    pub fn from_elo(elo: u32) -> Strength {
        let elo = elo.clamp(MIN_ELO, MAX_ELO) as f64;
        let level = on_scale(elo, |(level, elo)| (elo as f64, level as f64));
        Strength {
            level: level.min(MAX_LEVEL as f64 - 1.0),
        }
    }

    /// The rating of this strength on the scale `UCI_Elo` uses.
    pub fn elo(&self) -> u32 {
        on_scale(self.level, |(level, elo)| (level as f64, elo as f64)).round() as u32
    }

    pub fn is_full(&self) -> bool {
        self.level >= MAX_LEVEL as f64
    }

    /// The search's node budget at this level.
    pub fn nodes(&self) -> u64 {
        (LEVEL_0_NODES * 1.45f64.powf(self.level)) as u64
    }

    /// How far below the best line (centipawns) a line may score and still
    /// be played: wide at the bottom, a few centipawns near the top.
    pub fn margin(&self) -> i32 {
        (10.0 + 290.0 * (1.0 - self.level / MAX_LEVEL as f64).powi(2)) as i32
    }

    /// Adds this level's limits to a search's: the node budget, and the
    /// lines the choice is made from.
    pub fn restrict(&self, limits: &mut Limits) {
        if self.is_full() {
            return;
        }
        let budget = self.nodes();
        limits.nodes = Some(limits.nodes.map_or(budget, |n| n.min(budget)));
        limits.multipv = limits.multipv.max(LINES);
    }

    /// The line to play among a search's lines (best first): the first
    /// line's at full strength; otherwise one within the margin, drawn with
    /// odds falling off with its distance from the best.
    pub fn choose<'a>(&self, lines: &'a [PvLine], rng: &mut SplitMix64) -> Option<&'a PvLine> {
        let best = lines.first()?;
        if self.is_full() || lines.len() == 1 {
            return Some(best);
        }
        let top = centipawns(best.score);
        let margin = self.margin();
        let fit: Vec<(&PvLine, f64)> = lines
            .iter()
            .filter(|l| !l.pv.is_empty())
            .map(|l| (l, (top - centipawns(l.score)) as f64))
            .filter(|&(_, loss)| loss <= margin as f64)
            .map(|(l, loss)| (l, (-loss / (margin as f64 / 3.0)).exp()))
            .collect();
        let total: f64 = fit.iter().map(|(_, w)| w).sum();
        let mut x = rng.next_f64() * total;
        for (l, w) in &fit {
            x -= w;
            if x < 0.0 {
                return Some(l);
            }
        }
        Some(best)
    }
}

/// The scale read one way or the other: `axes` turns a (level, Elo) point
/// into (x, y), and the answer is y at `x` on the line through the points,
/// held at the ends. Both ways read the same line, so `from_elo` and `elo`
/// are each other's inverse between the points.
fn on_scale(x: f64, axes: impl Fn((u32, u32)) -> (f64, f64)) -> f64 {
    let mut y = axes(SCALE[0]).1;
    for w in SCALE.windows(2) {
        let ((x0, y0), (x1, y1)) = (axes(w[0]), axes(w[1]));
        if x >= x0 {
            y = y0 + ((x - x0) / (x1 - x0)).min(1.0) * (y1 - y0);
        }
    }
    y
}

/// A score as centipawns for comparing lines: mates far beyond any
/// evaluation, sooner ones better.
fn centipawns(s: Score) -> i32 {
    match s {
        Score::Cp(c) => c,
        Score::Mate(n) if n > 0 => 100_000 - n,
        Score::Mate(n) => -100_000 - n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Move;

    fn line(score: Score, mv: &str) -> PvLine {
        PvLine {
            score,
            pv: vec![mv.parse::<Move>().unwrap()],
        }
    }

    #[test]
    fn levels_grow_stronger() {
        for l in 0..MAX_LEVEL {
            let (a, b) = (Strength::level(l), Strength::level(l + 1));
            assert!(a.margin() >= b.margin() && a.nodes() < b.nodes());
        }
        assert!(Strength::level(20).is_full() && !Strength::level(19).is_full());
        assert!(
            !Strength::from_elo(MAX_ELO).is_full(),
            "UCI_Elo always limits"
        );
        assert!(Strength::from_elo(MIN_ELO).nodes() <= Strength::level(0).nodes());
        assert!(SCALE.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
        assert_eq!(Strength::level(MAX_LEVEL - 1).elo(), MAX_ELO);
        // UCI_Elo finds the level with that rating.
        for l in 0..MAX_LEVEL {
            let elo = Strength::level(l).elo();
            let back = Strength::from_elo(elo);
            // Within the rounding of the rating to a whole number.
            assert!((back.level - l as f64).abs() < 0.02, "{l} {elo} {back:?}");
            if l + 1 < MAX_LEVEL {
                assert!(Strength::from_elo(elo + 1).nodes() > Strength::level(l).nodes());
            }
        }
        let mut l = Limits::default();
        Strength::level(5).restrict(&mut l);
        assert_eq!(l.multipv, LINES);
        assert_eq!(l.nodes, Some(Strength::level(5).nodes()));
    }

    #[test]
    fn only_lines_within_the_margin_are_played() {
        let lines = [
            line(Score::Cp(50), "h2e2"),
            line(Score::Cp(40), "b2e2"),
            line(Score::Cp(-400), "a3a4"),
            line(Score::Mate(-3), "i0i1"),
        ];
        let mut rng = SplitMix64::new(1);
        let s = Strength::level(10);
        let mut seen = [0; 4];
        for _ in 0..2000 {
            let l = s.choose(&lines, &mut rng).unwrap();
            seen[lines.iter().position(|x| x == l).unwrap()] += 1;
        }
        assert!(seen[0] > seen[1] && seen[1] > 0, "{seen:?}");
        assert_eq!((seen[2], seen[3]), (0, 0), "{seen:?}");
        // A seen mate is always played, at any level.
        let mates = [line(Score::Mate(2), "h2e2"), line(Score::Cp(900), "b2e2")];
        for _ in 0..200 {
            let l = Strength::level(0).choose(&mates, &mut rng).unwrap();
            assert_eq!(l.score, Score::Mate(2));
        }
        // Full strength plays the best line.
        assert_eq!(Strength::full().choose(&lines, &mut rng), Some(&lines[0]));
    }
}
