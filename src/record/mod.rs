//! Game records: one in-memory game that the file formats (XQF, PGN) read
//! into and write from, and that the analysis and the book builder consume.
//!
//! The move tree is kept the way PGN writes it: the main line is a list of
//! nodes, and each node may carry variations, each an alternative line played
//! *instead of* that node's move, from the same position.

use crate::board::{Move, Position};

/// One game, as read from or written to a record file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Game {
    /// Header fields under PGN tag names, in file order: `Event`, `Site`,
    /// `Date`, `Round`, `Red`, `Black`, `Result` (`1-0`, `0-1`, `1/2-1/2`,
    /// `*`), `Opening`, `ECCO`, `Title`, ... Values are UTF-8.
    pub tags: Vec<(String, String)>,
    /// The starting position when it is not the standard one.
    pub start_fen: Option<String>,
    /// A comment before the first move.
    pub comment: Option<String>,
    /// The main line.
    pub moves: Vec<MoveNode>,
}

/// One move of a line, with its comment and the lines played instead of it.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveNode {
    pub mv: Move,
    pub comment: Option<String>,
    /// Alternatives to `mv`, each starting from the position before `mv`.
    pub variations: Vec<Vec<MoveNode>>,
}

impl MoveNode {
    pub fn new(mv: Move) -> Self {
        MoveNode {
            mv,
            comment: None,
            variations: Vec::new(),
        }
    }
}

impl Game {
    /// The value of a tag, if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets a tag, replacing an existing one of the same name.
    pub fn set_tag(&mut self, name: &str, value: &str) {
        match self.tags.iter_mut().find(|(k, _)| k == name) {
            Some(slot) => slot.1 = value.to_string(),
            None => self.tags.push((name.to_string(), value.to_string())),
        }
    }

    /// The starting position (a bad `start_fen` is an error, never a panic).
    pub fn start_position(&self) -> Result<Position, crate::board::FenError> {
        match &self.start_fen {
            Some(fen) => Position::from_fen(fen),
            None => Ok(Position::startpos()),
        }
    }

    /// The main line's moves.
    pub fn mainline(&self) -> Vec<Move> {
        self.moves.iter().map(|n| n.mv).collect()
    }
}
