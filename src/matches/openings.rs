//! Opening suites. One opening a line, in any of these forms:
//! - `name | FEN | moves` (tests/data/openings.txt): the moves are played
//!   from the start position and must lead to the FEN's board;
//! - a FEN alone (a field with `/` in it), optionally `FEN | moves`;
//! - a list of ICCS moves from the start position.
//!
//! Blank lines and lines starting with `#` are skipped.

use chuhe_core::board::{Move, Position, START_FEN};
use chuhe_core::rng::SplitMix64;
use chuhe_core::rules;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    pub name: String,
    /// Where the game starts; `moves` are played from it as book moves.
    pub fen: String,
    pub moves: Vec<Move>,
}

impl Opening {
    pub fn startpos() -> Opening {
        Opening {
            name: "start".to_string(),
            fen: START_FEN.to_string(),
            moves: Vec::new(),
        }
    }

    /// The position after the book moves.
    pub fn position(&self) -> Result<Position, OpeningError> {
        let mut pos = Position::from_fen(&self.fen)
            .map_err(|e| OpeningError::new(0, format!("bad FEN: {e}")))?;
        for &mv in &self.moves {
            if !pos.legal_moves().contains(&mv) {
                return Err(OpeningError::new(0, format!("illegal book move {mv}")));
            }
            pos.make_move(mv);
        }
        Ok(pos)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningError {
    pub line: usize,
    pub message: String,
}

impl OpeningError {
    fn new(line: usize, message: String) -> Self {
        OpeningError { line, message }
    }
}

impl fmt::Display for OpeningError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            f.write_str(&self.message)
        } else {
            write!(f, "openings line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for OpeningError {}

fn parse_moves(text: &str) -> Result<Vec<Move>, String> {
    text.split_whitespace()
        .map(|m| m.parse::<Move>().map_err(|e| e.to_string()))
        .collect()
}

/// The board field of a FEN, for comparing positions.
fn board_and_side(fen: &str) -> String {
    fen.split_whitespace().take(2).collect::<Vec<_>>().join(" ")
}

fn parse_line(line: &str, number: usize) -> Result<Opening, String> {
    let fields: Vec<&str> = line.split('|').map(str::trim).collect();
    let (name, fen, moves) = match fields.as_slice() {
        [name, fen, moves] => (name.to_string(), Some(*fen), *moves),
        [a, b] if a.contains('/') => (format!("opening {number}"), Some(*a), *b),
        [a] if a.contains('/') => (format!("opening {number}"), Some(*a), ""),
        [a] => (format!("opening {number}"), None, *a),
        _ => return Err("expected `name | FEN | moves`, a FEN or a move list".into()),
    };
    let moves = parse_moves(moves)?;
    let fen = fen.filter(|f| !f.is_empty());
    let opening = match (fen, moves.is_empty() || fields.len() == 2) {
        // openings.txt: the FEN is where the moves from the start lead.
        (Some(target), false) => {
            let o = Opening {
                name,
                fen: START_FEN.to_string(),
                moves,
            };
            let reached = o.position().map_err(|e| e.message)?.fen();
            let target_pos = Position::from_fen(target).map_err(|e| format!("bad FEN: {e}"))?;
            if board_and_side(&reached) != board_and_side(&target_pos.fen()) {
                return Err(format!(
                    "the moves lead to {reached}, not to the FEN given ({target})"
                ));
            }
            o
        }
        (Some(fen), true) => Opening {
            name,
            fen: Position::from_fen(fen)
                .map_err(|e| format!("bad FEN: {e}"))?
                .fen(),
            moves,
        },
        (None, _) => Opening {
            name,
            fen: START_FEN.to_string(),
            moves,
        },
    };
    opening.position().map_err(|e| e.message)?;
    Ok(opening)
}

/// Reads an opening suite from text.
pub fn parse(text: &str) -> Result<Vec<Opening>, OpeningError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        out.push(parse_line(line, i + 1).map_err(|m| OpeningError::new(i + 1, m))?);
    }
    Ok(out)
}

/// Reads an opening suite from a file.
pub fn load(path: &std::path::Path) -> Result<Vec<Opening>, OpeningError> {
    // Far above any suite (a line is under 100 bytes), far below trouble.
    let text = chuhe_core::files::read_text_capped(path, 256 << 20)
        .map_err(|e| OpeningError::new(0, format!("cannot read {}: {e}", path.display())))?;
    let openings = parse(&text)?;
    if openings.is_empty() {
        return Err(OpeningError::new(
            0,
            format!("{} has no openings", path.display()),
        ));
    }
    Ok(openings)
}

/// Fisher-Yates shuffle with the given seed.
pub fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut rng = SplitMix64::new(seed);
    for i in (1..items.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

/// Plays `plies` random legal plies on `pos` and returns them, or None if
/// the line ends the game (no legal move on the way, or a rules verdict at
/// its end). The start of a match opening or a datagen game.
pub fn random_line(pos: &mut Position, plies: u32, rng: &mut SplitMix64) -> Option<Vec<Move>> {
    let mut line = Vec::with_capacity(plies as usize);
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return None;
        }
        let mv = moves[(rng.next_u64() % moves.len() as u64) as usize];
        pos.make_move(mv);
        line.push(mv);
    }
    rules::judge(pos).is_none().then_some(line)
}

/// Openings for `pairs` game pairs, one each: the suite's openings in turn,
/// each followed by `plies` random legal plies drawn from `seed` and the
/// pair's number. At a fixed node or depth limit an engine plays the same
/// moves from the same position, so without this a match repeats the same
/// 2 × suite games over and over and its statistics count copies. A line
/// that ends the game (no legal move, a rules verdict) is drawn again.
pub fn randomized(suite: &[Opening], pairs: usize, plies: u32, seed: u64) -> Vec<Opening> {
    let fallback = [Opening::startpos()];
    let suite = if suite.is_empty() {
        &fallback[..]
    } else {
        suite
    };
    (0..pairs)
        .map(|i| {
            let base = &suite[i % suite.len()];
            let start = base
                .position()
                .expect("a suite's openings were checked when read");
            let mut rng =
                SplitMix64::new(seed ^ (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            // Redraw a line that ends the game; after many tries keep the
            // opening as it is rather than loop (a suite position with
            // almost no play).
            let extra = (0..100)
                .find_map(|_| random_line(&mut start.clone(), plies, &mut rng))
                .unwrap_or_default();
            let mut moves = base.moves.clone();
            moves.extend(&extra);
            Opening {
                name: format!("{} r{}", base.name, i + 1),
                fen: base.fen.clone(),
                moves,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn randomized_openings_differ_by_pair_and_repeat_by_seed() {
        let suite = parse(
            "a | r1bakabr1/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKABR1 w - - 6 4 | h2e2 h9g7 h0g2 i9h9 i0h0 b9c7\n\
             b | rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1 |\n",
        )
        .unwrap();
        let a = randomized(&suite, 40, 4, 9);
        assert_eq!(
            a,
            randomized(&suite, 40, 4, 9),
            "the same seed, the same openings"
        );
        assert_ne!(a, randomized(&suite, 40, 4, 10));
        assert_eq!(a.len(), 40);
        for (i, o) in a.iter().enumerate() {
            let base = &suite[i % 2];
            assert_eq!(o.fen, base.fen);
            assert!(o.moves.starts_with(&base.moves));
            assert_eq!(o.moves.len(), base.moves.len() + 4);
            // Playable: the moves are legal and the game goes on.
            let pos = o.position().unwrap();
            assert!(!pos.legal_moves().is_empty());
        }
        let distinct: std::collections::HashSet<_> = a.iter().map(|o| o.moves.clone()).collect();
        assert!(distinct.len() >= 38, "{} distinct of 40", distinct.len());
        let names: std::collections::HashSet<_> = a.iter().map(|o| o.name.clone()).collect();
        assert_eq!(names.len(), 40, "each pair's opening has its own name");
        // No plies: the suite in turn, renamed.
        let plain = randomized(&suite, 3, 0, 9);
        assert_eq!(plain[2].moves, suite[0].moves);
    }

    #[test]
    fn reads_the_shared_suite_format() {
        let text = "# comment\n\
            central-cannon | r1bakabr1/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKABR1 w - - 6 4 | h2e2 h9g7 h0g2 i9h9 i0h0 b9c7\n\
            \n\
            rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1\n\
            h2e2 h9g7\n";
        let o = parse(text).unwrap();
        assert_eq!(o.len(), 3);
        assert_eq!(o[0].name, "central-cannon");
        assert_eq!(o[0].fen, START_FEN);
        assert_eq!(o[0].moves.len(), 6);
        assert!(o[1].moves.is_empty());
        assert!(o[1].fen.contains(" b "));
        assert_eq!(o[2].moves.len(), 2);
    }

    #[test]
    fn refuses_bad_lines() {
        assert!(parse("h2e2 h2e2\n").is_err());
        assert!(parse(
            "x | rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w | h2e2\n"
        )
        .is_err());
        let e = parse("\nnot a move\n").unwrap_err();
        assert_eq!(e.line, 2);
    }

    #[test]
    fn shuffle_is_a_seeded_permutation() {
        let mut a: Vec<u32> = (0..20).collect();
        let mut b = a.clone();
        shuffle(&mut a, 7);
        shuffle(&mut b, 7);
        assert_eq!(a, b);
        assert_ne!(a, (0..20).collect::<Vec<_>>());
        a.sort();
        assert_eq!(a, (0..20).collect::<Vec<_>>());
    }
}
