//! Building a book in Chuhe's format (see the parent module) from games.
//!
//! Every main-line move of every game, up to `max_ply` plies, is counted
//! once per game under its position (or the mirror image, whichever has
//! the smaller key), with the points its mover scored in that game: win 2
//! half-points, draw 1, loss 0; a game with no result (`*` or none) counts
//! as a draw. Moves played in fewer than `min_games` games are left out. In
//! a left-right symmetric position (the start) a move and its mirror image
//! are one choice: each is credited with the games of both.
//!
//! A move's weight is `100 × games × s`, where `s = (points + 1) / (games +
//! 2)` is its score share, in points, with one won and one lost game added
//! so that a move played once is not judged on that game alone. Often
//! played moves weigh more; among moves played as often, the better scoring
//! ones. The weight is at least 1.

use crate::record::Game;
use chuhe_core::board::{Color, FenError, Move, Position};
use chuhe_core::book::{chuhe_key, eleeye, HEADER_BYTES, MAGIC, RECORD_BYTES};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// Why a game was not (wholly) added to a book.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AddGameError {
    /// The game's FEN tag does not give a position.
    StartPosition(FenError),
    /// The main line's move at `ply` (1-based) is illegal; the moves
    /// before it were counted.
    Illegal { ply: usize, mv: Move },
}

impl fmt::Display for AddGameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AddGameError::StartPosition(e) => write!(f, "bad start position: {e}"),
            AddGameError::Illegal { ply, mv } => write!(f, "move {ply} ({mv}) is illegal"),
        }
    }
}

impl std::error::Error for AddGameError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AddGameError::StartPosition(e) => Some(e),
            AddGameError::Illegal { .. } => None,
        }
    }
}

/// One book record, as the file stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    pub key: u64,
    pub mv: Move,
    pub games: u32,
    pub half_points: u32,
    pub weight: u32,
}

#[derive(Debug, Clone, Copy)]
pub struct BuildOptions {
    pub min_games: u32,
    pub max_ply: usize,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            min_games: 2,
            max_ply: 40,
        }
    }
}

/// The weight of a move played in `games` games scoring `half_points`.
pub fn weight(games: u32, half_points: u32) -> u32 {
    let g = games as f64;
    let share = (half_points as f64 / 2.0 + 1.0) / (g + 2.0);
    (100.0 * g * share).round().clamp(1.0, u32::MAX as f64) as u32
}

/// Counts moves game by game, then writes the records.
#[derive(Debug, Default)]
pub struct Builder {
    counts: HashMap<(u64, Move), (u32, u32)>,
    games: usize,
}

impl Builder {
    pub fn new() -> Builder {
        Builder::default()
    }

    /// Games added so far.
    pub fn games(&self) -> usize {
        self.games
    }

    /// Adds the main line of a game, up to `max_ply` plies. A bad start
    /// position or an illegal move is an error; the moves before an illegal
    /// one are still counted.
    pub fn add_game(&mut self, game: &Game, max_ply: usize) -> Result<(), AddGameError> {
        let mut pos = game.start_position().map_err(AddGameError::StartPosition)?;
        let red_half_points = match game.tag("Result") {
            Some("1-0") => 2,
            Some("0-1") => 0,
            _ => 1,
        };
        self.games += 1;
        let mut seen = HashSet::new();
        for (ply, node) in game.moves.iter().enumerate().take(max_ply) {
            let mv = node.mv;
            if !pos.is_legal(mv) {
                return Err(AddGameError::Illegal { ply: ply + 1, mv });
            }
            let points = match pos.side_to_move() {
                Color::Red => red_half_points,
                Color::Black => 2 - red_half_points,
            };
            for (key, stored) in canonical(&pos, mv) {
                if seen.insert((key, stored)) {
                    let slot = self.counts.entry((key, stored)).or_insert((0, 0));
                    slot.0 += 1;
                    slot.1 += points;
                }
            }
            pos.make_move(mv);
        }
        Ok(())
    }

    /// The records of moves played in at least `min_games` games, in file order.
    pub fn records(&self, min_games: u32) -> Vec<Record> {
        let mut out: Vec<Record> = self
            .counts
            .iter()
            .filter(|(_, &(games, _))| games >= min_games.max(1))
            .map(|(&(key, mv), &(games, half_points))| Record {
                key,
                mv,
                games,
                half_points,
                weight: weight(games, half_points),
            })
            .collect();
        out.sort_by_key(|r| (r.key, r.mv.raw()));
        out
    }
}

/// The key a position is stored under and the move(s) stored with it: the
/// position itself or its mirror image, whichever key is smaller. A
/// symmetric position is its own image: a move there is counted for itself
/// and for its mirror image, which is the same move seen from the other
/// wing, so both are offered alike.
fn canonical(pos: &Position, mv: Move) -> Vec<(u64, Move)> {
    let plain = chuhe_key(pos, false);
    let mirror = chuhe_key(pos, true);
    let image = eleeye::mirror_move(mv);
    match mirror.cmp(&plain) {
        std::cmp::Ordering::Less => vec![(mirror, image)],
        std::cmp::Ordering::Greater => vec![(plain, mv)],
        std::cmp::Ordering::Equal if image == mv => vec![(plain, mv)],
        std::cmp::Ordering::Equal => vec![(plain, mv), (plain, image)],
    }
}

/// The file's bytes for sorted records.
pub fn to_bytes(records: &[Record]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_BYTES + records.len() * RECORD_BYTES);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(records.len() as u32).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    for r in records {
        out.extend_from_slice(&r.key.to_le_bytes());
        out.extend_from_slice(&r.mv.raw().to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&r.games.to_le_bytes());
        out.extend_from_slice(&r.half_points.to_le_bytes());
        out.extend_from_slice(&r.weight.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_favour_frequent_and_winning_moves() {
        assert!(weight(10, 10) > weight(2, 2));
        assert!(weight(10, 20) > weight(10, 10));
        assert!(weight(10, 0) < weight(10, 10));
        assert!(weight(1, 0) >= 1);
        assert_eq!(weight(2, 2), 100); // two draws: 2 games × 1/2 × 100
    }
}
