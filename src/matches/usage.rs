//! How each engine spent its clock over a match: the moves it chose, seconds
//! per move, depth and speed. Printed under the standings so that an engine
//! the runner or the machine starves (a speed far below its usual one, moves
//! far shorter than its clock allows) shows up in the match's own report, not
//! only in the PGN comments. Two runners can be compared on these figures:
//! ElephantEye's league runner logs the same ones.

use super::game::{GameRecord, MoveRecord};
use super::schedule::Job;
use super::standings;
use chuhe_core::board::Color;
use std::fmt::Write;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Usage {
    pub name: String,
    /// Moves the engine chose (the opening's moves are not its own).
    pub moves: u32,
    pub total_ms: u64,
    pub max_ms: u64,
    depth_sum: u64,
    depth_count: u32,
    speeds: Vec<u64>,
}

impl Usage {
    pub fn mean_seconds(&self) -> Option<f64> {
        (self.moves > 0).then(|| self.total_ms as f64 / 1000.0 / self.moves as f64)
    }

    /// Over the moves the engine reported a depth for (not its book moves).
    pub fn mean_depth(&self) -> Option<f64> {
        (self.depth_count > 0).then(|| self.depth_sum as f64 / self.depth_count as f64)
    }

    /// The median rather than the mean: a book move or an instant reply
    /// reports a speed from a few nodes over a millisecond or two.
    pub fn median_nps(&self) -> Option<u64> {
        let mut v = self.speeds.clone();
        v.sort_unstable();
        v.get(v.len() / 2).copied()
    }

    fn add(&mut self, m: &MoveRecord) {
        self.moves += 1;
        self.total_ms += m.time_ms;
        self.max_ms = self.max_ms.max(m.time_ms);
        if let Some(d) = m.depth {
            self.depth_sum += u64::from(d);
            self.depth_count += 1;
        }
        if let Some(s) = m.nps {
            self.speeds.push(s);
        }
    }
}

/// One row per engine, in the order of `names` (engine indices of the jobs).
pub fn usage(names: &[String], games: &[(Job, GameRecord)]) -> Vec<Usage> {
    let mut rows: Vec<Usage> = names
        .iter()
        .map(|n| Usage {
            name: n.clone(),
            ..Usage::default()
        })
        .collect();
    for (job, game) in games {
        for (ply, m) in game.moves.iter().enumerate().filter(|(_, m)| !m.book) {
            let engine = match game.side_of_ply(ply) {
                Color::Red => job.red,
                Color::Black => job.black,
            };
            if let Some(row) = rows.get_mut(engine) {
                row.add(m);
            }
        }
    }
    rows
}

/// The table as text; `-` where an engine reported nothing to average.
pub fn format_table(rows: &[Usage]) -> String {
    let width = standings::name_width(rows.iter().map(|r| r.name.as_str()));
    let mut out = format!(
        "{:<width$}  {:>6}  {:>7}  {:>7}  {:>6}  {:>8}\n",
        "Engine", "Moves", "s/move", "max s", "Depth", "knps"
    );
    let or_dash = |v: Option<String>| v.unwrap_or_else(|| "-".to_string());
    for r in rows {
        let _ = writeln!(
            out,
            "{:<width$}  {:>6}  {:>7}  {:>7.2}  {:>6}  {:>8}",
            r.name,
            r.moves,
            or_dash(r.mean_seconds().map(|s| format!("{s:.2}"))),
            r.max_ms as f64 / 1000.0,
            or_dash(r.mean_depth().map(|d| format!("{d:.1}"))),
            or_dash(r.median_nps().map(|n| (n / 1000).to_string())),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matches::game::Termination;
    use crate::matches::openings::Opening;
    use chuhe_core::board::Move;

    fn mv(time_ms: u64, depth: Option<u32>, nps: Option<u64>, book: bool) -> MoveRecord {
        MoveRecord {
            mv: Move::NONE,
            chinese: String::new(),
            book,
            score: None,
            depth,
            time_ms,
            nodes: None,
            nps,
            draw_offer: false,
            pv: Vec::new(),
        }
    }

    fn game(fen: &str, moves: Vec<MoveRecord>) -> GameRecord {
        GameRecord {
            red: String::new(),
            black: String::new(),
            opening: Opening {
                name: String::new(),
                fen: fen.to_string(),
                moves: Vec::new(),
            },
            moves,
            outcome: None,
            termination: Termination::Interrupted,
        }
    }

    #[test]
    fn moves_go_to_the_engine_that_made_them() {
        let names = vec!["a".to_string(), "b".to_string()];
        let red_first = chuhe_core::board::START_FEN;
        let black_first = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1";
        let games = vec![
            // a is Red and moves first; the book move (Red's) is nobody's, then b, a, b.
            (
                Job {
                    round: 1,
                    red: 0,
                    black: 1,
                    opening: 0,
                },
                game(
                    red_first,
                    vec![
                        mv(0, None, None, true),
                        mv(1000, Some(10), Some(1_000_000), false),
                        mv(3000, Some(8), Some(4_000_000), false),
                        mv(2000, Some(12), Some(2_000_000), false),
                    ],
                ),
            ),
            // a is Black but moves first; b answers an instant book move.
            (
                Job {
                    round: 2,
                    red: 1,
                    black: 0,
                    opening: 0,
                },
                game(
                    black_first,
                    vec![
                        mv(3000, Some(14), Some(3_000_000), false),
                        mv(5, None, None, false),
                    ],
                ),
            ),
        ];
        let rows = usage(&names, &games);
        // a: 3000 ms at depth 8 (game 1), 3000 ms at depth 14 (game 2).
        let a = &rows[0];
        assert_eq!((a.moves, a.total_ms, a.max_ms), (2, 6000, 3000));
        assert_eq!(a.mean_seconds(), Some(3.0));
        assert_eq!(a.mean_depth(), Some(11.0));
        assert_eq!(a.median_nps(), Some(4_000_000));
        // b: 1000 and 2000 ms (game 1) and the instant reply (game 2).
        let b = &rows[1];
        assert_eq!((b.moves, b.total_ms, b.max_ms), (3, 3005, 2000));
        assert_eq!(b.mean_depth(), Some(11.0));
        assert_eq!(b.median_nps(), Some(2_000_000));
        let table = format_table(&rows);
        let cells: Vec<Vec<&str>> = table
            .lines()
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(
            cells[0],
            ["Engine", "Moves", "s/move", "max", "s", "Depth", "knps"]
        );
        assert_eq!(cells[1], ["a", "2", "3.00", "3.00", "11.0", "4000"]);
        assert_eq!(cells[2], ["b", "3", "1.00", "2.00", "11.0", "2000"]);
    }

    #[test]
    fn an_engine_that_reports_nothing_gets_dashes() {
        let rows = usage(&["quiet".to_string()], &[]);
        assert_eq!(rows[0].moves, 0);
        let table = format_table(&rows);
        let row: Vec<&str> = table.lines().nth(1).unwrap().split_whitespace().collect();
        assert_eq!(row, ["quiet", "0", "-", "0.00", "-", "-"]);
    }
}
