//! Opening books as a tool: `chuhe book build` (writing Chuhe's format,
//! `build`) and `chuhe book probe`. Reading books in play is the engine's
//! (`chuhe_core::book`).

pub mod build;

use crate::book::build::{to_bytes, BuildOptions, Builder};
use crate::judge::{self, JudgeError};
use crate::record::Game;
use chuhe_core::board::notation;
use chuhe_core::book::{Book, BookError};
use std::fmt;
use std::io;

/// Why `build` or `probe` failed as a whole (unreadable files and bad
/// games only warn).
#[derive(Debug)]
pub enum BookToolError {
    NoFiles,
    /// None of the files held a game that could be added.
    NoGames,
    /// The book could not be written to `path`.
    Write {
        path: String,
        source: io::Error,
    },
    /// The book to probe could not be opened.
    Open(BookError),
    /// The position to probe could not be set up.
    Position(JudgeError),
}

impl fmt::Display for BookToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookToolError::NoFiles => write!(f, "no game files given"),
            BookToolError::NoGames => write!(f, "no games could be read"),
            BookToolError::Write { path, source } => write!(f, "cannot write {path}: {source}"),
            BookToolError::Open(e) => write!(f, "{e}"),
            BookToolError::Position(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for BookToolError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BookToolError::Write { source, .. } => Some(source),
            BookToolError::Open(e) => Some(e),
            BookToolError::Position(e) => Some(e),
            BookToolError::NoFiles | BookToolError::NoGames => None,
        }
    }
}

/// Builds a book from game files read by `read` (the record readers in
/// the program; tests may pass their own); returns a summary line. Files that cannot
/// be read and games with bad moves are reported through `warn` and skipped.
pub fn build<E: fmt::Display>(
    out: &str,
    files: &[String],
    opts: BuildOptions,
    read: &dyn Fn(&str) -> Result<Vec<Game>, E>,
    warn: &mut dyn FnMut(&str),
) -> Result<String, BookToolError> {
    if files.is_empty() {
        return Err(BookToolError::NoFiles);
    }
    let mut builder = Builder::new();
    let mut failed_files = 0;
    for file in files {
        let games = match read(file) {
            Ok(g) => g,
            Err(e) => {
                warn(&format!("skipped {file}: {e}"));
                failed_files += 1;
                continue;
            }
        };
        for (i, game) in games.iter().enumerate() {
            if let Err(e) = builder.add_game(game, opts.max_ply) {
                warn(&format!("{file}: game {}: {e}", i + 1));
            }
        }
    }
    if builder.games() == 0 {
        return Err(BookToolError::NoGames);
    }
    let records = builder.records(opts.min_games);
    std::fs::write(out, to_bytes(&records)).map_err(|e| BookToolError::Write {
        path: out.to_string(),
        source: e,
    })?;
    Ok(format!(
        "book {out}: {} moves from {} games ({} files, {failed_files} unreadable)",
        records.len(),
        builder.games(),
        files.len()
    ))
}

/// The book moves of one position, one line each (ICCS, Chinese, weight).
pub fn probe(book: &str, fen: Option<&str>, moves: &str) -> Result<Vec<String>, BookToolError> {
    let book = Book::open(book).map_err(BookToolError::Open)?;
    let pos = judge::replay(fen, moves).map_err(BookToolError::Position)?;
    let Some(found) = book.probe(&pos) else {
        return Ok(vec!["position not in book".to_string()]);
    };
    let total: u64 = found.iter().map(|b| b.weight as u64).sum();
    Ok(found
        .iter()
        .map(|b| {
            let cn = notation::chinese(&pos, b.mv).unwrap_or_default();
            let share = if total > 0 {
                100.0 * b.weight as f64 / total as f64
            } else {
                0.0
            };
            format!("{} {cn} weight {} ({share:.1}%)", b.mv, b.weight)
        })
        .collect())
}
