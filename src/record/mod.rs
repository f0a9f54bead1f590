//! Game records: one in-memory game that the file formats (XQF, PGN) read
//! into and write from, and that the analysis and the book builder consume.
//!
//! The move tree is kept the way PGN writes it: the main line is a list of
//! nodes, and each node may carry variations, each an alternative line played
//! *instead of* that node's move, from the same position.

use chuhe_core::board::{Move, Position};
use std::fmt;
use std::path::{Path, PathBuf};

pub mod pgn;
pub mod text;
pub mod xqf;

/// Why a record file could not be read: the file, the byte offset in it and
/// what was wrong there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    /// The file, when the bytes came from one.
    pub file: Option<PathBuf>,
    /// Byte offset in the file (in the file's own encoding).
    pub offset: usize,
    pub what: String,
}

impl RecordError {
    pub fn new(offset: usize, what: impl Into<String>) -> Self {
        RecordError {
            file: None,
            offset,
            what: what.into(),
        }
    }

    /// The same error, naming the file it came from.
    pub fn in_file(mut self, path: &Path) -> Self {
        self.file = Some(path.to_path_buf());
        self
    }
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some(p) => write!(f, "{}: offset {}: {}", p.display(), self.offset, self.what),
            None => write!(f, "offset {}: {}", self.offset, self.what),
        }
    }
}

impl std::error::Error for RecordError {}

/// The record formats we read and write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Xqf,
    Pgn,
}

impl Format {
    /// The format a file name's extension names (`.xqf`, `.pgn`), if any.
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "xqf" => Some(Format::Xqf),
            "pgn" => Some(Format::Pgn),
            _ => None,
        }
    }
}

/// Reads the games of a record held in memory, choosing the format by the
/// content (`XQ` opens an XQF file), then by `hint`.
pub fn read_bytes(bytes: &[u8], hint: Option<Format>) -> Result<Vec<Game>, RecordError> {
    let is_xqf = bytes.starts_with(b"XQ") || (hint == Some(Format::Xqf) && !looks_like_text(bytes));
    if is_xqf {
        xqf::read(bytes).map(|g| vec![g])
    } else {
        pgn::read_bytes(bytes)
    }
}

/// Whether the bytes start like a PGN text (tags, a comment or a move number).
fn looks_like_text(bytes: &[u8]) -> bool {
    let first = bytes
        .iter()
        .find(|b| !(b.is_ascii_whitespace() || matches!(b, 0xEF | 0xBB | 0xBF)));
    matches!(first, Some(b'[' | b'{' | b'1'..=b'9'))
}

/// The largest record file read: a big PGN collection is tens of MB, and
/// the reader holds several times the file while it works.
pub const MAX_FILE_BYTES: u64 = 512 << 20;

/// Reads the games of a record file: XQF or PGN, chosen by content and
/// extension. Errors name the file.
pub fn read_file(path: &Path) -> Result<Vec<Game>, RecordError> {
    let bytes = chuhe_core::files::read_capped(path, MAX_FILE_BYTES)
        .map_err(|e| RecordError::new(0, format!("cannot read: {e}")).in_file(path))?;
    read_bytes(&bytes, Format::from_path(path)).map_err(|e| e.in_file(path))
}

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
    pub fn start_position(&self) -> Result<Position, chuhe_core::board::FenError> {
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
