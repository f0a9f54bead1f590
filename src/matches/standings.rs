//! The standings table: points on a configurable scale (2011 rules: win 2,
//! draw 1, loss 0) and the round-robin tie-breaks of seeds 2011 第14.1条:
//! 小分 (sum of the points of the opponents beaten plus half of those drawn,
//! game by game), then wins, then direct encounter, then games as Black.

use chuhe_core::rules::Outcome;
use std::cmp::Ordering;
use std::fmt::Write;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scale {
    pub win: f64,
    pub draw: f64,
    pub loss: f64,
}

impl Default for Scale {
    fn default() -> Self {
        Scale {
            win: 2.0,
            draw: 1.0,
            loss: 0.0,
        }
    }
}

impl std::str::FromStr for Scale {
    type Err = String;
    /// `win,draw,loss`, e.g. `2,1,0` or `3,1,0`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let v = super::stats::parse_numbers(s)
            .ok_or_else(|| format!("scale '{s}': expected win,draw,loss"))?;
        match v[..] {
            [win, draw, loss] => Ok(Scale { win, draw, loss }),
            _ => Err(format!("scale '{s}': expected three numbers win,draw,loss")),
        }
    }
}

/// One finished game by engine index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    pub red: usize,
    pub black: usize,
    pub outcome: Outcome,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row {
    pub rank: usize,
    pub engine: usize,
    pub name: String,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub points: f64,
    /// 小分.
    pub small_points: f64,
    /// Points against the other engines of its tie group.
    pub direct: f64,
    pub black_games: u32,
}

/// (own points, opponent) for each game of `engine`, with the game's result for it.
fn results_of(engine: usize, games: &[Played]) -> impl Iterator<Item = (usize, i8)> + '_ {
    games.iter().filter_map(move |g| {
        let (opp, sign) = if g.red == engine {
            (g.black, 1)
        } else if g.black == engine {
            (g.red, -1)
        } else {
            return None;
        };
        let r = match g.outcome {
            Outcome::RedWins => sign,
            Outcome::BlackWins => -sign,
            Outcome::Draw => 0,
        };
        Some((opp, r))
    })
}

fn points(r: i8, scale: &Scale) -> f64 {
    match r {
        1 => scale.win,
        0 => scale.draw,
        _ => scale.loss,
    }
}

fn primary(a: &Row, b: &Row) -> Ordering {
    b.points
        .total_cmp(&a.points)
        .then(b.small_points.total_cmp(&a.small_points))
        .then(b.wins.cmp(&a.wins))
}

fn full(a: &Row, b: &Row) -> Ordering {
    primary(a, b)
        .then(b.direct.total_cmp(&a.direct))
        .then(b.black_games.cmp(&a.black_games))
}

/// Ranks the engines.
pub fn standings(names: &[String], games: &[Played], scale: &Scale) -> Vec<Row> {
    let mut rows: Vec<Row> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let mut row = Row {
                engine: i,
                name: name.clone(),
                ..Row::default()
            };
            for (_, r) in results_of(i, games) {
                row.games += 1;
                match r {
                    1 => row.wins += 1,
                    0 => row.draws += 1,
                    _ => row.losses += 1,
                }
                row.points += points(r, scale);
            }
            row.black_games = games.iter().filter(|g| g.black == i).count() as u32;
            row
        })
        .collect();
    let totals: Vec<f64> = rows.iter().map(|r| r.points).collect();
    for row in &mut rows {
        row.small_points = results_of(row.engine, games)
            .map(|(opp, r)| match r {
                1 => totals[opp],
                0 => totals[opp] / 2.0,
                _ => 0.0,
            })
            .sum();
    }
    rows.sort_by(primary);
    // Direct encounter inside each group still tied.
    let mut start = 0;
    while start < rows.len() {
        let mut end = start + 1;
        while end < rows.len() && primary(&rows[start], &rows[end]) == Ordering::Equal {
            end += 1;
        }
        let group: Vec<usize> = rows[start..end].iter().map(|r| r.engine).collect();
        for row in &mut rows[start..end] {
            row.direct = results_of(row.engine, games)
                .filter(|(opp, _)| group.contains(opp))
                .map(|(_, r)| points(r, scale))
                .sum();
        }
        rows[start..end].sort_by(full);
        start = end;
    }
    for i in 0..rows.len() {
        rows[i].rank = if i > 0 && full(&rows[i - 1], &rows[i]) == Ordering::Equal {
            rows[i - 1].rank
        } else {
            i + 1
        };
    }
    rows
}

fn num(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

/// Width of an engine-name column: the longest name, and at least the
/// heading's. Shared with the usage table so the two line up alike.
pub(super) fn name_width<'a>(names: impl Iterator<Item = &'a str>) -> usize {
    names
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .max("Engine".len())
}

/// The table as text.
pub fn format_table(rows: &[Row]) -> String {
    let width = name_width(rows.iter().map(|r| r.name.as_str()));
    let mut out = format!(
        "{:>4}  {:<width$}  {:>5}  {:>6}  {:>4}  {:>4}  {:>4}  {:>6}  {:>5}\n",
        "Rank", "Engine", "Games", "Points", "W", "D", "L", "SB", "Black"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:>4}  {:<width$}  {:>5}  {:>6}  {:>4}  {:>4}  {:>4}  {:>6}  {:>5}",
            r.rank,
            r.name,
            r.games,
            num(r.points),
            r.wins,
            r.draws,
            r.losses,
            num(r.small_points),
            r.black_games
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(red: usize, black: usize, outcome: Outcome) -> Played {
        Played {
            red,
            black,
            outcome,
        }
    }
    use Outcome::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("E{i}")).collect()
    }

    #[test]
    fn points_and_small_points() {
        // E0 beats E1, draws E2; E1 beats E2; E2 beats... nobody.
        let g = [game(0, 1, RedWins), game(2, 0, Draw), game(1, 2, RedWins)];
        let rows = standings(&names(3), &g, &Scale::default());
        assert_eq!(rows[0].name, "E0");
        assert_eq!(rows[0].points, 3.0);
        // Beat E1 (2 points), drew E2 (1 point / 2).
        assert_eq!(rows[0].small_points, 2.5);
        assert_eq!(rows[1].name, "E1");
        assert_eq!(rows[1].small_points, 1.0);
        assert_eq!(rows[2].points, 1.0);
        assert_eq!(rows.iter().map(|r| r.rank).collect::<Vec<_>>(), [1, 2, 3]);
    }

    #[test]
    fn tie_breaks_in_order() {
        // A cycle: E0>E1, E1>E2, E2>E0, all equal on points, 小分 and wins.
        // Then every pair plays a drawn game; direct encounter is level too,
        // so the one with more games as Black ranks first.
        let g = [
            game(0, 1, RedWins),
            game(1, 2, RedWins),
            game(2, 0, RedWins),
            game(0, 2, Draw),
            game(1, 2, Draw),
            game(1, 0, Draw),
        ];
        let rows = standings(&names(3), &g, &Scale::default());
        assert!(rows.iter().all(|r| r.points == 4.0 && r.wins == 1));
        assert_eq!(rows[0].name, "E2");
        assert_eq!(rows[0].black_games, 3);
        assert_eq!(rows[1].name, "E0");
        assert_eq!(rows[2].name, "E1");
    }

    #[test]
    fn direct_encounter_breaks_a_two_way_tie() {
        // E1 and E3 end level on points (3), 小分 (3.5) and wins (1); E1 won their game.
        let g = [
            game(0, 1, RedWins),
            game(0, 2, RedWins),
            game(0, 3, Draw),
            game(1, 2, Draw),
            game(1, 3, RedWins),
            game(2, 3, BlackWins),
        ];
        let rows = standings(&names(4), &g, &Scale::default());
        let order: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(order, ["E0", "E1", "E3", "E2"]);
        assert_eq!((rows[1].points, rows[1].small_points), (3.0, 3.5));
        assert_eq!((rows[2].points, rows[2].small_points), (3.0, 3.5));
        assert_eq!((rows[1].direct, rows[2].direct), (2.0, 0.0));
        // Black games would have favoured E3 (3 against 1): direct comes first.
        assert_eq!((rows[1].black_games, rows[2].black_games), (1, 3));
        assert_eq!(
            rows.iter().map(|r| r.rank).collect::<Vec<_>>(),
            [1, 2, 3, 4]
        );
        let table = format_table(&rows);
        assert_eq!(table.lines().count(), 5);
    }

    #[test]
    fn scale_parses() {
        assert_eq!("3,1,0".parse::<Scale>().unwrap().win, 3.0);
        assert!("3,1".parse::<Scale>().is_err());
    }
}
