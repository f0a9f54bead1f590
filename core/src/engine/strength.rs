//! Playing below full strength, for human opponents: UCI's `Skill Level`
//! (0-20) and `UCI_LimitStrength` with `UCI_Elo`.
//!
//! A weaker Chuhe should lose the way a weaker player does: by seeing less
//! and by preferring a plausible move to the best one, never by a random
//! blunder. So a level does two things:
//! - it limits the search to a node budget that grows with the level (a
//!   few hundred nodes at level 0, about half a million at 19), so
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

/// The Elo range `UCI_Elo` accepts, and where the levels sit on it (see
/// `Strength::from_elo`; the README says how the scale was measured).
pub const MIN_ELO: u32 = 1000;
pub const MAX_ELO: u32 = 2800;

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
    /// between the calibrated levels.
    pub fn from_elo(elo: u32) -> Strength {
        let elo = elo.clamp(MIN_ELO, MAX_ELO) as f64;
        let level = (elo - MIN_ELO as f64) / (MAX_ELO - MIN_ELO) as f64 * MAX_LEVEL as f64;
        Strength {
            level: level.clamp(0.0, MAX_LEVEL as f64 - 0.5),
        }
    }

    pub fn is_full(&self) -> bool {
        self.level >= MAX_LEVEL as f64
    }

    /// The search's node budget at this level.
    pub fn nodes(&self) -> u64 {
        (300.0 * 1.45f64.powf(self.level)) as u64
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
