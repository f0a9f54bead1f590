//! PGN for finished games: the usual seven tags plus TimeControl, Opening,
//! FEN and Termination; moves in ICCS with the Chinese notation, the engine's
//! score (centipawns, mover's view), depth, time, and nodes and speed when
//! the engine reported them, as a comment: `{炮二平五 +12/9 1.250s nodes
//! 3500000 nps 2800000}`. A runner that starves one engine shows in its nps.

use super::game::{GameRecord, Termination};
use crate::record::pgn::{escape_tag, wrap_tokens};
use chuhe_core::board::{Color, START_FEN};
use chuhe_core::rules::Outcome;
use std::fmt::Write;

/// Tags that describe the event rather than the game.
pub struct PgnHeader<'a> {
    pub event: &'a str,
    pub site: &'a str,
    pub date: &'a str,
    pub round: usize,
    /// Red's and Black's: one `TimeControl` tag when they are the same,
    /// `RedTimeControl` and `BlackTimeControl` under time odds (as
    /// cutechess writes `WhiteTimeControl` and `BlackTimeControl`).
    pub time_control: [&'a str; 2],
}

pub fn result_text(outcome: Option<Outcome>) -> &'static str {
    match outcome {
        Some(Outcome::RedWins) => "1-0",
        Some(Outcome::BlackWins) => "0-1",
        Some(Outcome::Draw) => "1/2-1/2",
        None => "*",
    }
}

/// Today's date as PGN writes it (UTC), from the system clock.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// One game as PGN text, ending with a blank line.
pub fn format_game(game: &GameRecord, header: &PgnHeader) -> String {
    let mut out = String::new();
    let result = result_text(game.outcome);
    let mut tag = |name: &str, value: &str| {
        let _ = writeln!(out, "[{name} \"{}\"]", escape_tag(value));
    };
    tag("Event", header.event);
    tag("Site", header.site);
    tag("Date", header.date);
    tag("Round", &header.round.to_string());
    tag("Red", &game.red);
    tag("Black", &game.black);
    tag("Result", result);
    match header.time_control {
        [red, black] if red == black => tag("TimeControl", red),
        [red, black] => {
            tag("RedTimeControl", red);
            tag("BlackTimeControl", black);
        }
    }
    tag("Opening", &game.opening.name);
    if game.opening.fen != START_FEN {
        tag("FEN", &game.opening.fen);
    }
    tag("Termination", &game.termination.to_string());
    tag("PlyCount", &game.moves.len().to_string());
    out.push('\n');

    let mut fullmove: usize = game
        .opening
        .fen
        .split_whitespace()
        .nth(5)
        .and_then(|n| n.parse().ok())
        .unwrap_or(1)
        .max(1);
    let mut tokens: Vec<String> = Vec::new();
    for (i, m) in game.moves.iter().enumerate() {
        let black = game.side_of_ply(i) == Color::Black;
        if !black {
            tokens.push(format!("{fullmove}."));
        } else if i == 0 {
            tokens.push(format!("{fullmove}..."));
        }
        tokens.push(m.mv.to_string());
        let mut comment = m.chinese.clone();
        if m.book {
            comment.push_str(" book");
        } else {
            if let Some(s) = m.score {
                let _ = write!(comment, " {s}");
                if let Some(d) = m.depth {
                    let _ = write!(comment, "/{d}");
                }
            }
            let _ = write!(comment, " {:.3}s", m.time_ms as f64 / 1000.0);
            if let Some(n) = m.nodes {
                let _ = write!(comment, " nodes {n}");
            }
            if let Some(n) = m.nps {
                let _ = write!(comment, " nps {n}");
            }
            // An offer the next move does not accept was declined.
            if m.draw_offer {
                comment.push_str(" offers a draw");
            }
            if m.pv.len() > 1 {
                comment.push_str(" pv");
                for mv in &m.pv {
                    let _ = write!(comment, " {mv}");
                }
            }
        }
        tokens.push(format!("{{{comment}}}"));
        if black {
            fullmove += 1;
        }
    }
    if game.termination != Termination::Interrupted {
        tokens.push(format!("{{{}}}", game.termination));
    }
    if let Some(details) = game.termination.details() {
        // A comment ends at the first `}`: keep the engine's text from closing it.
        tokens.push(format!("{{{}}}", details.replace(['{', '}'], "")));
    }
    tokens.push(result.to_string());
    out.push_str(&wrap_tokens(&tokens));
    out.push_str("\n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::matches::engine::Score;
    use crate::matches::game::MoveRecord;
    use crate::matches::openings::Opening;
    use chuhe_core::board::Move;

    fn record(fen: &str, moves: &[(&str, &str)]) -> GameRecord {
        GameRecord {
            red: "R \"quoted\"".into(),
            black: "B".into(),
            opening: Opening {
                name: "o".into(),
                fen: fen.into(),
                moves: Vec::new(),
            },
            moves: moves
                .iter()
                .map(|(m, c)| MoveRecord {
                    mv: m.parse::<Move>().unwrap(),
                    chinese: c.to_string(),
                    book: false,
                    score: Some(Score::Cp(-12)),
                    depth: Some(7),
                    time_ms: 1250,
                    nodes: None,
                    nps: None,
                    draw_offer: false,
                    pv: Vec::new(),
                })
                .collect(),
            outcome: Some(Outcome::Draw),
            termination: Termination::DrawAgreed,
        }
    }

    fn header() -> PgnHeader<'static> {
        PgnHeader {
            event: "E",
            site: "S",
            date: "2026.01.02",
            round: 3,
            time_control: ["60+1"; 2],
        }
    }

    #[test]
    fn game_text() {
        let g = record(
            START_FEN,
            &[
                ("h2e2", "炮二平五"),
                ("h9g7", "马8进7"),
                ("h0g2", "马二进三"),
            ],
        );
        let text = format_game(&g, &header());
        assert!(text.contains("[Red \"R \\\"quoted\\\"\"]"), "{text}");
        assert!(text.contains("[Round \"3\"]"));
        assert!(text.contains("[Result \"1/2-1/2\"]"));
        assert!(text.contains("[Termination \"draw agreed\"]"));
        assert!(text.contains("[TimeControl \"60+1\"]"));
        assert!(!text.contains("RedTimeControl"));
        let odds = PgnHeader {
            time_control: ["2m+2", "60+1"],
            ..header()
        };
        let text = format_game(&g, &odds);
        assert!(text.contains("[RedTimeControl \"2m+2\"]\n[BlackTimeControl \"60+1\"]"));
        assert!(!text.contains("[TimeControl"));
        assert!(!text.contains("[FEN"));
        assert!(text.contains(
            "1. h2e2 {炮二平五 -12/7 1.250s} h9g7 {马8进7 -12/7 1.250s} 2. h0g2 {马二进三 -12/7 1.250s}"
        ));
        assert!(text.trim_end().ends_with("{draw agreed} 1/2-1/2"));
    }

    #[test]
    fn nodes_and_speed_when_reported() {
        let mut g = record(START_FEN, &[("h2e2", "炮二平五"), ("h9g7", "马8进7")]);
        g.moves[0].nodes = Some(3_500_000);
        g.moves[0].nps = Some(2_800_000);
        g.moves[1].nps = Some(900_000);
        let text = format_game(&g, &header());
        assert!(
            text.contains("{炮二平五 -12/7 1.250s nodes 3500000 nps 2800000}"),
            "{text}"
        );
        assert!(text.contains("{马8进7 -12/7 1.250s nps 900000}"), "{text}");
    }

    #[test]
    fn draw_offers_are_marked() {
        let mut g = record(START_FEN, &[("h2e2", "炮二平五"), ("h9g7", "马8进7")]);
        g.moves[0].draw_offer = true;
        let text = format_game(&g, &header());
        assert!(
            text.contains("{炮二平五 -12/7 1.250s offers a draw}"),
            "{text}"
        );
        assert!(text.contains("{马8进7 -12/7 1.250s}"), "{text}");
    }

    #[test]
    fn black_to_move_start() {
        let fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1";
        let g = record(fen, &[("h9g7", "马8进7"), ("h0g2", "马二进三")]);
        let text = format_game(&g, &header());
        assert!(text.contains(&format!("[FEN \"{fen}\"]")));
        assert!(
            text.contains("1... h9g7 {马8进7 -12/7 1.250s} 2. h0g2"),
            "{text}"
        );
    }

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(20_513), (2026, 3, 1));
    }
}
