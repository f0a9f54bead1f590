//! Opening books: ElephantEye's `BOOK.DAT` (see `eleeye`) and Chuhe's own
//! format, built from game collections by `chuhe book build` (the `chuhe`
//! package's `book::build`).
//!
//! # Chuhe's book format
//!
//! A file is a 16-byte header and then 24-byte records, all little-endian:
//!
//! | bytes | header field                                   |
//! |-------|------------------------------------------------|
//! | 0-7   | magic `CHUHEBK1`                               |
//! | 8-11  | `u32` number of records                        |
//! | 12-15 | `u32` reserved, 0                              |
//!
//! | bytes | record field                                               |
//! |-------|------------------------------------------------------------|
//! | 0-7   | `u64` position key: ElephantEye's `lock1 << 32 \| lock0`    |
//! | 8-9   | `u16` move: `from + 128 * to`, square = `rank * 9 + file`, a0 = 0, i9 = 89 (Chuhe's own `Move` bits) |
//! | 10-11 | `u16` reserved, 0                                          |
//! | 12-15 | `u32` games in which the move was played                   |
//! | 16-19 | `u32` half-points the mover scored in them (win 2, draw 1) |
//! | 20-23 | `u32` weight (see `book::build` in `chuhe`): the odds of choosing the move |
//!
//! Records are sorted by key, then move. A position and its left-right
//! mirror image are stored once, under the smaller of the two keys (moves
//! mirrored with it), and looked up the way ElephantEye looks up BOOK.DAT:
//! the position's key first, then its mirror's, mirroring the moves back.
//! The key is ElephantEye's (64 bits of it rather than BOOK.DAT's 32) so that
//! it is fixed by a published procedure, not by the engine's own hashing,
//! which may change.
//!
//! # Choosing a move
//!
//! A book is used only in a position it contains. Its moves are filtered:
//! not banned (`banmoves`), not excluded by `searchmoves`, legal, weight
//! above 0, and not walking into a repetition or other end the rules make
//! us lose (`crate::rules`). One of the rest is drawn at random with odds
//! `weight ^ k`: `bookrandomness` none picks the heaviest move, small k = 2,
//! medium k = 1 (odds in proportion to the weights, as ElephantEye draws),
//! large k = 1/2. With several book files the first that contains the
//! position answers.

pub mod eleeye;

use crate::board::{Move, Position};
use crate::rng::SplitMix64;
use crate::rules::{self, Outcome, RepetitionScore};
use std::fmt;

/// The Chuhe format's magic bytes.
pub const MAGIC: &[u8; 8] = b"CHUHEBK1";
pub const HEADER_BYTES: usize = 16;
pub const RECORD_BYTES: usize = 24;
const EE_RECORD_BYTES: usize = 8;
/// Larger files are refused rather than read into memory: ElephantEye's
/// own book is under 100 KB, a big collection's a few MB.
const MAX_BOOK_BYTES: u64 = 512 << 20;

/// Why a book could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookError {
    pub path: String,
    /// The byte offset of the damage, when there is one place to point at.
    pub offset: Option<u64>,
    pub what: String,
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "book {}", self.path)?;
        if let Some(o) = self.offset {
            write!(f, " at byte {o}")?;
        }
        write!(f, ": {}", self.what)
    }
}

impl std::error::Error for BookError {}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    ElephantEye,
    Chuhe,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    key: u64,
    /// None for a BOOK.DAT move naming a square off the board: it can never
    /// be legal, but it still tells ElephantEye that the position is there.
    mv: Option<Move>,
    weight: u32,
}

/// A book move offered in a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BookMove {
    pub mv: Move,
    pub weight: u32,
}

/// One book file, read into memory.
#[derive(Debug, Clone)]
pub struct Book {
    path: String,
    format: Format,
    entries: Vec<Entry>,
}

impl Book {
    /// Reads a book file of either format (told apart by the magic bytes).
    pub fn open(path: &str) -> Result<Book, BookError> {
        let err = |offset, what: String| BookError {
            path: path.to_string(),
            offset,
            what,
        };
        let meta = std::fs::metadata(path).map_err(|e| err(None, e.to_string()))?;
        if meta.is_dir() {
            return Err(err(None, "is a directory".into()));
        }
        let bytes = crate::files::read_capped(std::path::Path::new(path), MAX_BOOK_BYTES)
            .map_err(|e| err(None, e.to_string()))?;
        Book::from_bytes(path, &bytes)
    }

    /// Reads a book from its bytes; `path` only names it in errors.
    pub fn from_bytes(path: &str, bytes: &[u8]) -> Result<Book, BookError> {
        let entries = if bytes.starts_with(MAGIC) {
            read_chuhe(bytes)
        } else {
            read_eleeye(bytes)
        }
        .map_err(|(offset, what)| BookError {
            path: path.to_string(),
            offset,
            what,
        })?;
        let format = if bytes.starts_with(MAGIC) {
            Format::Chuhe
        } else {
            Format::ElephantEye
        };
        Ok(Book {
            path: path.to_string(),
            format,
            entries,
        })
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    pub fn format(&self) -> Format {
        self.format
    }

    /// How many records the book has.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn key(&self, pos: &Position, mirrored: bool) -> u64 {
        match self.format {
            Format::ElephantEye => eleeye::book_key(pos, mirrored) as u64,
            Format::Chuhe => chuhe_key(pos, mirrored),
        }
    }

    fn records(&self, key: u64) -> &[Entry] {
        let lo = self.entries.partition_point(|e| e.key < key);
        let hi = self.entries.partition_point(|e| e.key <= key);
        &self.entries[lo..hi]
    }

    /// The legal book moves of `pos`, heaviest first; None when the book
    /// does not contain the position (nor its mirror image).
    pub fn probe(&self, pos: &Position) -> Option<Vec<BookMove>> {
        for mirrored in [false, true] {
            let found = self.records(self.key(pos, mirrored));
            if found.is_empty() {
                continue;
            }
            let mut moves: Vec<BookMove> = found
                .iter()
                .filter_map(|e| {
                    let m = e.mv?;
                    let mv = if mirrored { eleeye::mirror_move(m) } else { m };
                    pos.is_legal(mv).then_some(BookMove {
                        mv,
                        weight: e.weight,
                    })
                })
                .collect();
            // A symmetric position finds its records on the first scan.
            moves.sort_by_key(|b| std::cmp::Reverse(b.weight));
            return Some(moves);
        }
        None
    }
}

/// The Chuhe format's key of the position or of its mirror image.
pub fn chuhe_key(pos: &Position, mirrored: bool) -> u64 {
    let l = eleeye::locks(pos, mirrored);
    (l.lock1 as u64) << 32 | l.lock0 as u64
}

type ReadError = (Option<u64>, String);

fn read_eleeye(bytes: &[u8]) -> Result<Vec<Entry>, ReadError> {
    if bytes.is_empty() {
        return Err((None, "empty file".into()));
    }
    if !bytes.len().is_multiple_of(EE_RECORD_BYTES) {
        let whole = bytes.len() / EE_RECORD_BYTES * EE_RECORD_BYTES;
        return Err((
            Some(whole as u64),
            format!(
                "truncated BOOK.DAT: {} bytes is not a whole number of {EE_RECORD_BYTES}-byte records",
                bytes.len()
            ),
        ));
    }
    let mut entries = Vec::with_capacity(bytes.len() / EE_RECORD_BYTES);
    for (i, r) in bytes.chunks_exact(EE_RECORD_BYTES).enumerate() {
        let key = u32::from_le_bytes([r[0], r[1], r[2], r[3]]) as u64;
        let mv = eleeye::decode_move(u16::from_le_bytes([r[4], r[5]]));
        let weight = u16::from_le_bytes([r[6], r[7]]) as u32;
        if entries.last().is_some_and(|p: &Entry| p.key > key) {
            return Err((
                Some((i * EE_RECORD_BYTES) as u64),
                "BOOK.DAT records are not sorted by key (not a BOOK.DAT file?)".into(),
            ));
        }
        entries.push(Entry { key, mv, weight });
    }
    Ok(entries)
}

fn read_chuhe(bytes: &[u8]) -> Result<Vec<Entry>, ReadError> {
    if bytes.len() < HEADER_BYTES {
        return Err((Some(bytes.len() as u64), "truncated header".into()));
    }
    let u32_at =
        |o: usize| u32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
    let count = u32_at(8) as u64;
    let want = HEADER_BYTES as u64 + count * RECORD_BYTES as u64;
    if bytes.len() as u64 != want {
        let what = if (bytes.len() as u64) < want {
            "truncated"
        } else {
            "trailing bytes after the records"
        };
        return Err((
            Some(bytes.len().min(want as usize) as u64),
            format!(
                "{what}: the header promises {count} records ({want} bytes), the file has {}",
                bytes.len()
            ),
        ));
    }
    let mut entries = Vec::with_capacity(count as usize);
    let mut last: Option<(u64, u16)> = None;
    for i in 0..count as usize {
        let o = HEADER_BYTES + i * RECORD_BYTES;
        let r = &bytes[o..o + RECORD_BYTES];
        let key = u64::from_le_bytes(r[0..8].try_into().expect("8 bytes"));
        let raw = u16::from_le_bytes([r[8], r[9]]);
        let mv = Move::from_raw(raw)
            .filter(|m| !m.is_none() && m.from() != m.to())
            .ok_or((Some(o as u64 + 8), format!("bad move code {raw:#06x}")))?;
        if last.is_some_and(|l| l >= (key, raw)) {
            return Err((Some(o as u64), "records not sorted by key and move".into()));
        }
        last = Some((key, raw));
        let weight = u32::from_le_bytes(r[20..24].try_into().expect("4 bytes"));
        entries.push(Entry {
            key,
            mv: Some(mv),
            weight,
        });
    }
    Ok(entries)
}

/// How sharply the book prefers its heavier moves (option `bookrandomness`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variety {
    /// Always the heaviest move.
    None,
    /// Odds weight².
    Small,
    /// Odds in proportion to the weights.
    Medium,
    /// Odds √weight: lighter moves come up more often.
    Large,
}

impl Variety {
    pub fn from_level(level: &str) -> Variety {
        match level {
            "none" => Variety::None,
            "small" => Variety::Small,
            "large" => Variety::Large,
            _ => Variety::Medium,
        }
    }

    fn odds(self, weight: u32) -> f64 {
        let w = weight as f64;
        match self {
            Variety::None | Variety::Medium => w,
            Variety::Small => w * w,
            Variety::Large => w.sqrt(),
        }
    }
}

/// Whether playing `mv` ends the game, now or by the cycle it closes, with
/// a loss for the side playing it under the rules (`crate::rules`).
pub fn loses_by_rule(pos: &Position, mv: Move) -> bool {
    let us = pos.side_to_move();
    let mut after = pos.clone();
    after.make_move(mv);
    if let Some(v) = rules::judge(&after) {
        return v.outcome == Outcome::win_for(!us);
    }
    // A cycle that is not yet at its third occurrence: judged as the search
    // judges it, from the opponent's side (their win is our loss).
    let hist = after.history();
    let reach = (after.halfmove_clock() as usize).min(hist.len());
    let key = after.key();
    let mut k = 4;
    while k <= reach {
        if hist[hist.len() - k].key == key {
            return rules::repetition_in_search(&after, k) == RepetitionScore::Win;
        }
        k += 2;
    }
    false
}

/// The book's answer in `pos`: the first book that contains the position
/// offers its moves; one is drawn among those in `allowed` that survive the
/// filters of the module doc. None: no book move (the engine searches).
pub fn choose(
    books: &[Book],
    pos: &Position,
    allowed: &[Move],
    variety: Variety,
    rng: &mut SplitMix64,
) -> Option<(BookMove, usize)> {
    let (index, offered) = books
        .iter()
        .enumerate()
        .find_map(|(i, b)| b.probe(pos).map(|m| (i, m)))?;
    let fit: Vec<BookMove> = offered
        .into_iter()
        .filter(|b| b.weight > 0 && allowed.contains(&b.mv) && !loses_by_rule(pos, b.mv))
        .collect();
    if fit.is_empty() {
        return None;
    }
    if variety == Variety::None {
        // Heaviest first (probe sorts them), first listed on a tie.
        return Some((fit[0], index));
    }
    let total: f64 = fit.iter().map(|b| variety.odds(b.weight)).sum();
    let mut x = rng.next_f64() * total;
    for b in &fit {
        x -= variety.odds(b.weight);
        if x < 0.0 {
            return Some((*b, index));
        }
    }
    // Rounding left a sliver past the last move.
    fit.last().map(|b| (*b, index))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ee_record(key: u32, mv: &str, weight: u16) -> Vec<u8> {
        let mut r = key.to_le_bytes().to_vec();
        r.extend(eleeye::encode_move(mv.parse().unwrap()).to_le_bytes());
        r.extend(weight.to_le_bytes());
        r
    }

    #[test]
    fn rejects_damaged_files() {
        let start = Position::startpos();
        let key = eleeye::book_key(&start, false);
        let good = ee_record(key, "h2e2", 10);
        assert!(Book::from_bytes("t", &good).is_ok());
        let e = Book::from_bytes("t", &good[..5]).unwrap_err();
        assert!(e.what.contains("truncated"), "{e}");
        assert_eq!(e.offset, Some(0));
        assert!(Book::from_bytes("t", &[]).is_err());
        let mut unsorted = ee_record(key, "h2e2", 10);
        unsorted.extend(ee_record(key.wrapping_sub(1), "b2e2", 10));
        if key > 0 {
            let e = Book::from_bytes("t", &unsorted).unwrap_err();
            assert_eq!(e.offset, Some(8));
        }
        let mut chuhe = MAGIC.to_vec();
        chuhe.extend(3u32.to_le_bytes());
        chuhe.extend(0u32.to_le_bytes());
        let e = Book::from_bytes("t", &chuhe).unwrap_err();
        assert!(e.to_string().contains("promises 3 records"), "{e}");
        assert!(Book::from_bytes("t", &chuhe[..10]).is_err());
    }

    #[test]
    fn variety_orders_the_odds() {
        assert!(Variety::Small.odds(4) > Variety::Medium.odds(4));
        assert!(Variety::Large.odds(4) < Variety::Medium.odds(4));
        assert_eq!(Variety::from_level("none"), Variety::None);
    }

    #[test]
    fn rng_is_uniform_enough() {
        let mut r = SplitMix64::new(7);
        let n = 10_000;
        let below: usize = (0..n).filter(|_| r.next_f64() < 0.25).count();
        assert!((2200..2800).contains(&below), "{below}");
    }
}
