//! CECP time controls. `level` (a number of moves in a base time, or the
//! whole game with an increment) and `st` (at most so long a move) are the
//! controls, `sd` caps the depth beside either, and `time`/`otim` set the
//! two clocks before each move; together they make one search's limits.

use crate::search::{Limits, MAX_DEPTH};
use std::time::Duration;

/// `level MPS BASE INC`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Level {
    /// Moves per session; 0: the base is for the whole game.
    pub moves: u32,
    pub base: Duration,
    /// Added to the mover's clock after each move.
    pub inc: Duration,
}

/// What the GUIs start with when nothing is said, and the protocol's own
/// example: 40 moves in 5 minutes.
const DEFAULT_LEVEL: Level = Level {
    moves: 40,
    base: Duration::from_secs(300),
    inc: Duration::ZERO,
};

/// Longer than any game; keeps the arithmetic far from overflow.
const MAX_SECONDS: f64 = 1.0e7;

impl Level {
    /// Reads `MPS BASE INC`: BASE in minutes or `min:sec` (text after the
    /// number, which the protocol reserves for later use, is ignored), INC
    /// in seconds; decimals are allowed in both (XBoard sends `0.2`).
    pub fn parse(args: &[&str]) -> Result<Level, String> {
        let [moves, base, inc] = args else {
            return Err(if args.len() > 3 {
                "too many parameters".into()
            } else {
                "level takes moves, base and increment".into()
            });
        };
        let moves = moves
            .parse::<u32>()
            .map_err(|_| "moves per session is not a whole number".to_string())?;
        let base = match base.split_once(':') {
            Some((min, sec)) => number(min).zip(number(sec)).map(|(m, s)| m * 60.0 + s),
            None => number(base).map(|m| m * 60.0),
        }
        .filter(|&s| s < MAX_SECONDS)
        .ok_or("base is not minutes or min:sec")?;
        let inc = inc
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s >= 0.0 && *s < MAX_SECONDS)
            .ok_or("increment is not a number of seconds")?;
        Ok(Level {
            moves,
            base: Duration::from_secs_f64(base),
            inc: Duration::from_secs_f64(inc),
        })
    }
}

/// The leading number of `text` (digits and a decimal point), if any.
fn number(text: &str) -> Option<f64> {
    let end = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    text[..end].parse().ok()
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Control {
    Level(Level),
    /// `st`: each move in at most this long; time not used is not kept.
    PerMove(Duration),
}

#[derive(Debug, Clone)]
pub struct Clock {
    control: Control,
    /// `sd`: the deepest iteration (None: as deep as time allows).
    depth: Option<u32>,
    /// The engine's clock (`time`) and the opponent's (`otim`). The
    /// protocol ties them to the players, not the colours.
    mine: Duration,
    theirs: Duration,
}

impl Default for Clock {
    fn default() -> Self {
        Clock {
            control: Control::Level(DEFAULT_LEVEL),
            depth: None,
            mine: DEFAULT_LEVEL.base,
            theirs: DEFAULT_LEVEL.base,
        }
    }
}

impl Clock {
    /// A new level also sets both clocks to its base: the GUI may not send
    /// `time` before the first move.
    pub fn set_level(&mut self, level: Level) {
        self.control = Control::Level(level);
        self.mine = level.base;
        self.theirs = level.base;
    }

    pub fn set_per_move(&mut self, t: Duration) {
        self.control = Control::PerMove(t);
    }

    /// `sd 0` is taken as 1 and a depth past the search's own limit as that.
    pub fn set_depth(&mut self, d: u32) {
        self.depth = Some(d.clamp(1, MAX_DEPTH));
    }

    pub fn set_mine(&mut self, t: Duration) {
        self.mine = t;
    }

    pub fn set_theirs(&mut self, t: Duration) {
        self.theirs = t;
    }

    /// `new`: the clocks back at the start of the control, no depth limit.
    pub fn new_game(&mut self) {
        self.depth = None;
        if let Control::Level(l) = self.control {
            self.mine = l.base;
            self.theirs = l.base;
        }
    }

    /// The limits of one move for a side that has made `moves_made` moves
    /// in this game (the count tells how many are left before a
    /// conventional control adds time). The caller adds the overhead and
    /// whether it is a ponder search.
    pub fn limits(&self, moves_made: u32) -> Limits {
        let mut limits = Limits {
            depth: self.depth,
            ..Limits::default()
        };
        match self.control {
            Control::PerMove(t) => limits.movetime = Some(t),
            Control::Level(l) => {
                limits.time = Some(self.mine);
                limits.opptime = Some(self.theirs);
                limits.increment = Some(l.inc);
                limits.oppincrement = Some(l.inc);
                limits.movestogo = (l.moves > 0).then(|| l.moves - moves_made % l.moves);
            }
        }
        limits
    }

    /// After the engine moved, having thought `used` and made `moves_made`
    /// moves now: its clock as the GUI will have it. The GUI sends `time`
    /// only before the engine's next move, after the opponent's; a ponder
    /// search must plan with this until then.
    pub fn after_own_move(&mut self, used: Duration, moves_made: u32) {
        if let Control::Level(l) = self.control {
            self.mine = self.mine.saturating_sub(used) + l.inc;
            if l.moves > 0 && moves_made.is_multiple_of(l.moves) {
                self.mine += l.base;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    #[test]
    fn level_forms() {
        let l = Level::parse(&["40", "5", "0"]).unwrap();
        assert_eq!((l.moves, l.base, l.inc), (40, secs(300.0), Duration::ZERO));
        let l = Level::parse(&["0", "0:20", "0.2"]).unwrap();
        assert_eq!((l.moves, l.base, l.inc), (0, secs(20.0), secs(0.2)));
        let l = Level::parse(&["40", "25+5", "0"]).unwrap();
        assert_eq!(l.base, secs(1500.0));
        let l = Level::parse(&["0", "2", "12"]).unwrap();
        assert_eq!((l.base, l.inc), (secs(120.0), secs(12.0)));
        for bad in [
            &["40", "5"][..],
            &["40", "5", "0", "1"],
            &["x", "5", "0"],
            &["40", "soon", "0"],
            &["40", "5", "-1"],
        ] {
            assert!(Level::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn limits_follow_the_control() {
        let mut c = Clock::default();
        c.set_level(Level::parse(&["40", "5", "0"]).unwrap());
        c.set_mine(secs(100.0));
        c.set_theirs(secs(90.0));
        let l = c.limits(38);
        assert_eq!(l.time, Some(secs(100.0)));
        assert_eq!(l.opptime, Some(secs(90.0)));
        assert_eq!(l.movestogo, Some(2));
        assert_eq!(c.limits(40).movestogo, Some(40));
        c.set_level(Level::parse(&["0", "1", "2"]).unwrap());
        let l = c.limits(10);
        assert_eq!(
            (l.time, l.increment, l.movestogo),
            (Some(secs(60.0)), Some(secs(2.0)), None)
        );
        c.set_depth(0);
        assert_eq!(c.limits(0).depth, Some(1));
        c.set_per_move(secs(3.0));
        let l = c.limits(0);
        assert_eq!((l.movetime, l.time), (Some(secs(3.0)), None));
        c.new_game();
        assert_eq!(c.limits(0).depth, None);
    }

    #[test]
    fn own_clock_after_a_move() {
        let mut c = Clock::default();
        c.set_level(Level::parse(&["0", "1", "2"]).unwrap());
        c.after_own_move(secs(5.0), 1);
        assert_eq!(c.limits(1).time, Some(secs(57.0)));
        c.set_level(Level::parse(&["2", "1", "0"]).unwrap());
        c.after_own_move(secs(10.0), 1);
        assert_eq!(c.limits(1).time, Some(secs(50.0)));
        c.after_own_move(secs(10.0), 2);
        assert_eq!(
            c.limits(2).time,
            Some(secs(100.0)),
            "a new session adds the base"
        );
    }
}
