//! Time controls and the clocks the runner keeps from its own measurements.
//!
//! Text forms (also used in config files):
//! - `1+0.01`: 1 s base, 0.01 s increment (sudden death with increment);
//! - `40/90m,10/15m`: 40 moves in 90 minutes, then 10 moves every 15 minutes
//!   (the last period repeats while it has a move count; seeds 6.1);
//! - `40/10m,5m`: 40 moves in 10 minutes, then 5 minutes for the rest;
//! - `movetime=0.5`, `depth=2`, `nodes=10000`.
//!
//! Times are seconds unless suffixed `ms`, `s`, `m` or `h`.

use std::fmt;
use std::str::FromStr;

/// One period of a clock: `moves` moves (all the rest when `None`) in `time_ms`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Period {
    pub moves: Option<u32>,
    pub time_ms: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// Periods played in order; the last one repeats while it counts moves.
    Clock {
        periods: Vec<Period>,
        increment_ms: u64,
    },
    MoveTime(u64),
    Depth(u32),
    Nodes(u64),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeControlError(pub String);

impl fmt::Display for TimeControlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad time control: {}", self.0)
    }
}

impl std::error::Error for TimeControlError {}

fn err(msg: impl Into<String>) -> TimeControlError {
    TimeControlError(msg.into())
}

/// Reads `90m`, `1.5`, `250ms`, `2h` as milliseconds.
pub fn parse_duration_ms(text: &str) -> Result<u64, TimeControlError> {
    let t = text.trim();
    let (num, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1000.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60_000.0)
    } else if let Some(n) = t.strip_suffix('h') {
        (n, 3_600_000.0)
    } else {
        (t, 1000.0)
    };
    let value: f64 = num
        .parse()
        .map_err(|_| err(format!("'{text}' is not a duration")))?;
    if !value.is_finite() || value < 0.0 {
        return Err(err(format!("'{text}' is not a duration")));
    }
    Ok((value * scale).round() as u64)
}

fn parse_period(text: &str) -> Result<Period, TimeControlError> {
    match text.split_once('/') {
        Some((moves, time)) => {
            let moves: u32 = moves
                .trim()
                .parse()
                .map_err(|_| err(format!("'{moves}' is not a move count")))?;
            if moves == 0 {
                return Err(err("a period needs at least one move"));
            }
            Ok(Period {
                moves: Some(moves),
                time_ms: parse_duration_ms(time)?,
            })
        }
        None => Ok(Period {
            moves: None,
            time_ms: parse_duration_ms(text)?,
        }),
    }
}

impl FromStr for TimeControl {
    type Err = TimeControlError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if let Some(v) = s.strip_prefix("movetime=") {
            let ms = parse_duration_ms(v)?;
            return if ms == 0 {
                Err(err("movetime must be positive"))
            } else {
                Ok(TimeControl::MoveTime(ms))
            };
        }
        if let Some(v) = s.strip_prefix("depth=") {
            let d: u32 = v
                .parse()
                .map_err(|_| err(format!("'{v}' is not a depth")))?;
            return Ok(TimeControl::Depth(d.max(1)));
        }
        if let Some(v) = s.strip_prefix("nodes=") {
            let n: u64 = v
                .parse()
                .map_err(|_| err(format!("'{v}' is not a node count")))?;
            return Ok(TimeControl::Nodes(n.max(1)));
        }
        let (periods_text, increment_ms) = match s.rsplit_once('+') {
            Some((p, inc)) => (p, parse_duration_ms(inc)?),
            None => (s, 0),
        };
        let periods = periods_text
            .split(',')
            .map(parse_period)
            .collect::<Result<Vec<_>, _>>()?;
        if periods.is_empty() {
            return Err(err("no period"));
        }
        if periods[..periods.len() - 1]
            .iter()
            .any(|p| p.moves.is_none())
        {
            return Err(err("only the last period may be without a move count"));
        }
        if periods[0].time_ms == 0 && increment_ms == 0 {
            return Err(err("no time at all"));
        }
        Ok(TimeControl::Clock {
            periods,
            increment_ms,
        })
    }
}

fn seconds(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}", ms / 1000)
    } else {
        format!("{}", ms as f64 / 1000.0)
    }
}

impl fmt::Display for TimeControl {
    /// The PGN `TimeControl` form (`40/5400:900`, `60+0.6`), with `depth=`,
    /// `nodes=` and `movetime=` for the fixed-effort controls.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::Clock {
                periods,
                increment_ms,
            } => {
                let parts: Vec<String> = periods
                    .iter()
                    .map(|p| match p.moves {
                        Some(m) => format!("{m}/{}", seconds(p.time_ms)),
                        None => seconds(p.time_ms),
                    })
                    .collect();
                write!(f, "{}", parts.join(":"))?;
                if *increment_ms > 0 {
                    write!(f, "+{}", seconds(*increment_ms))?;
                }
                Ok(())
            }
            TimeControl::MoveTime(ms) => write!(f, "movetime={}", seconds(*ms)),
            TimeControl::Depth(d) => write!(f, "depth={d}"),
            TimeControl::Nodes(n) => write!(f, "nodes={n}"),
        }
    }
}

/// One side's clock under a `TimeControl::Clock`.
#[derive(Clone, Debug)]
pub struct Clock {
    periods: Vec<Period>,
    increment_ms: u64,
    period: usize,
    moves_in_period: u32,
    remaining_ms: i64,
}

impl Clock {
    /// A clock for `tc`, or `None` when `tc` is not a clock control.
    pub fn new(tc: &TimeControl) -> Option<Clock> {
        match tc {
            TimeControl::Clock {
                periods,
                increment_ms,
            } => Some(Clock {
                periods: periods.clone(),
                increment_ms: *increment_ms,
                period: 0,
                moves_in_period: 0,
                remaining_ms: periods[0].time_ms as i64,
            }),
            _ => None,
        }
    }

    /// Time left as told to an engine: never below 1 ms, so that an engine
    /// inside the margin is not told something meaningless.
    pub fn remaining_ms(&self) -> u64 {
        self.remaining_ms.max(1) as u64
    }

    pub fn increment_ms(&self) -> u64 {
        self.increment_ms
    }

    /// Moves left in the current period, when it counts moves.
    pub fn moves_to_go(&self) -> Option<u32> {
        self.periods[self.period]
            .moves
            .map(|m| m - self.moves_in_period)
    }

    /// Charges a move that took `elapsed_ms`. Returns false when the flag
    /// fell: more than the time left plus `margin_ms` was used.
    pub fn charge(&mut self, elapsed_ms: u64, margin_ms: u64) -> bool {
        self.remaining_ms -= elapsed_ms as i64;
        if self.remaining_ms < -(margin_ms as i64) {
            return false;
        }
        self.remaining_ms = self.remaining_ms.max(0) + self.increment_ms as i64;
        self.moves_in_period += 1;
        if self.periods[self.period].moves == Some(self.moves_in_period) {
            self.period = (self.period + 1).min(self.periods.len() - 1);
            self.moves_in_period = 0;
            self.remaining_ms += self.periods[self.period].time_ms as i64;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_forms() {
        assert_eq!(
            "1+0.01".parse::<TimeControl>().unwrap(),
            TimeControl::Clock {
                periods: vec![Period {
                    moves: None,
                    time_ms: 1000
                }],
                increment_ms: 10
            }
        );
        let seeds = "40/90m,10/15m".parse::<TimeControl>().unwrap();
        assert_eq!(seeds.to_string(), "40/5400:10/900");
        assert_eq!("5m+3".parse::<TimeControl>().unwrap().to_string(), "300+3");
        assert_eq!(
            "movetime=250ms".parse::<TimeControl>().unwrap(),
            TimeControl::MoveTime(250)
        );
        assert_eq!(
            "depth=2".parse::<TimeControl>().unwrap(),
            TimeControl::Depth(2)
        );
        assert_eq!(
            "nodes=1000".parse::<TimeControl>().unwrap(),
            TimeControl::Nodes(1000)
        );
        for bad in [
            "",
            "x",
            "40/",
            "0",
            "5m,40/1m",
            "0/10",
            "-1",
            "depth=x",
            "movetime=0",
        ] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
        }
    }

    #[test]
    fn seeds_6_1_periods_repeat() {
        let tc: TimeControl = "40/90m,10/15m".parse().unwrap();
        let mut c = Clock::new(&tc).unwrap();
        assert_eq!(c.moves_to_go(), Some(40));
        for _ in 0..40 {
            assert!(c.charge(60_000, 0));
        }
        // 90 min - 40 min used + 15 min for the next 10 moves.
        assert_eq!(c.remaining_ms(), 65 * 60_000);
        assert_eq!(c.moves_to_go(), Some(10));
        for _ in 0..10 {
            assert!(c.charge(60_000, 0));
        }
        assert_eq!(c.remaining_ms(), 70 * 60_000);
        assert_eq!(c.moves_to_go(), Some(10));
    }

    #[test]
    fn increment_margin_and_flag() {
        let tc: TimeControl = "1+0.1".parse().unwrap();
        let mut c = Clock::new(&tc).unwrap();
        assert!(c.charge(400, 50));
        assert_eq!(c.remaining_ms(), 700);
        assert_eq!(c.moves_to_go(), None);
        // Inside the margin: not flagged, clock floors at zero before the increment.
        assert!(c.charge(740, 50));
        assert_eq!(c.remaining_ms(), 100);
        assert!(!c.charge(151, 50));
    }

    #[test]
    fn sudden_death_after_moves() {
        let tc: TimeControl = "2/1,5".parse().unwrap();
        let mut c = Clock::new(&tc).unwrap();
        assert!(c.charge(100, 0));
        assert!(c.charge(100, 0));
        assert_eq!(c.remaining_ms(), 5800);
        assert_eq!(c.moves_to_go(), None);
    }
}
