//! Opening books as a tool: `chuhe book build` (writing Chuhe's format,
//! `build`) and `chuhe book probe`. Reading books in play is the engine's
//! (`chuhe_core::book`).

pub mod build;

use crate::book::build::{to_bytes, BuildOptions, Builder};
use crate::judge;
use crate::record::Game;
use chuhe_core::board::notation;
use chuhe_core::book::Book;

/// Builds a book from game files read by `read` (the record readers in
/// the program; tests may pass their own); returns a summary line. Files that cannot
/// be read and games with bad moves are reported through `warn` and skipped.
pub fn build(
    out: &str,
    files: &[String],
    opts: BuildOptions,
    read: &dyn Fn(&str) -> Result<Vec<Game>, String>,
    warn: &mut dyn FnMut(&str),
) -> Result<String, String> {
    if files.is_empty() {
        return Err("no game files given".into());
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
        return Err("no games could be read".into());
    }
    let records = builder.records(opts.min_games);
    std::fs::write(out, to_bytes(&records)).map_err(|e| format!("cannot write {out}: {e}"))?;
    Ok(format!(
        "book {out}: {} moves from {} games ({} files, {failed_files} unreadable)",
        records.len(),
        builder.games(),
        files.len()
    ))
}

/// The book moves of one position, one line each (ICCS, Chinese, weight).
pub fn probe(book: &str, fen: Option<&str>, moves: &str) -> Result<Vec<String>, String> {
    let book = Book::open(book).map_err(|e| e.to_string())?;
    let pos = judge::replay(fen, moves).map_err(|e| e.to_string())?;
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
