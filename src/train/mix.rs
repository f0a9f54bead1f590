//! `chuhe datamix`: one training file from several, every position once,
//! in a seeded random order.
//!
//! Self-play repeats itself (openings, common middlegames, the same
//! endgame reached by different games), and a position met a hundred times
//! weighs a hundred times in training. Records of the same position (the
//! same pieces on the same squares and the same side to move) become one,
//! with the mean of their scores (rounded) and the mean of their results
//! rounded to a loss, draw or win (a mean exactly between two goes to the
//! draw: win + loss → draw, win + draw → draw, two wins + a draw → win).
//! The distinct positions are then shuffled, so that the file's first N
//! records (`chuhe train --max-positions N`) are a fair sample.
//!
//! Memory: 32 bytes per record read (30 million records: about 1 GB), the
//! records being kept encoded until they are written.

use super::data::{self, DataError, DataWriter, Record, Wdl, RECORD_SIZE};
use chuhe_core::rng::SplitMix64;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// What a mix did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MixStats {
    /// Records read.
    pub read: u64,
    /// Distinct positions among them (records written).
    pub distinct: u64,
}

/// A record re-ordered for sorting: the position (occupancy and pieces,
/// bytes 4..32 of the encoding, then the side to move) first, so that the
/// records of one position sort next to each other; then the result and
/// the score.
type Keyed = [u8; RECORD_SIZE];

fn keyed(r: &Record) -> Keyed {
    let b = r.encode();
    let mut k = [0u8; RECORD_SIZE];
    k[..28].copy_from_slice(&b[4..]);
    k[28] = b[0] & 1;
    k[29] = r.result as u8;
    k[30..].copy_from_slice(&r.score.to_le_bytes());
    k
}

fn same_position(a: &Keyed, b: &Keyed) -> bool {
    a[..29] == b[..29]
}

/// The encoded record of a run of keyed records of one position: their
/// mean score and result.
fn merged(run: &[Keyed]) -> [u8; RECORD_SIZE] {
    let n = run.len() as i64;
    let score: i64 = run
        .iter()
        .map(|k| i16::from_le_bytes([k[30], k[31]]) as i64)
        .sum();
    // Results in half points (0 loss, 1 draw, 2 win); the mean rounded to
    // the nearest, a tie to the draw.
    let halves: i64 = run.iter().map(|k| k[29] as i64).sum();
    let result = if 2 * halves < n {
        Wdl::Loss
    } else if 2 * halves > 3 * n {
        Wdl::Win
    } else {
        Wdl::Draw
    };
    let mut b = [0u8; RECORD_SIZE];
    b[4..].copy_from_slice(&run[0][..28]);
    b[0] = run[0][28] | (result as u8) << 1;
    let occupancy: u32 = b[4..16].iter().map(|x| x.count_ones()).sum();
    b[1] = occupancy as u8;
    let mean = (score as f64 / n as f64).round() as i16;
    b[2..4].copy_from_slice(&mean.to_le_bytes());
    b
}

/// The distinct positions of `blocks` (keyed records, sorted here),
/// merged in place into encoded records, then shuffled with `seed`.
fn dedup_shuffle(blocks: &mut Vec<Keyed>, seed: u64) {
    blocks.sort_unstable();
    let (mut kept, mut i) = (0, 0);
    while i < blocks.len() {
        let run = blocks[i..]
            .iter()
            .take_while(|k| same_position(k, &blocks[i]))
            .count();
        blocks[kept] = merged(&blocks[i..i + run]);
        kept += 1;
        i += run;
    }
    blocks.truncate(kept);
    let mut rng = SplitMix64::new(seed);
    for i in (1..blocks.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        blocks.swap(i, j);
    }
}

fn decoded(blocks: &[[u8; RECORD_SIZE]]) -> Vec<Record> {
    blocks
        .iter()
        .map(|b| Record::decode(b, 0).expect("a merged record decodes"))
        .collect()
}

/// `records` with every position once (mean score and result), shuffled
/// with `seed`.
pub fn mix(records: &[Record], seed: u64) -> Vec<Record> {
    let mut blocks = records.iter().map(keyed).collect();
    dedup_shuffle(&mut blocks, seed);
    decoded(&blocks)
}

/// Mixes the records of `inputs` into the new file `out`.
pub fn mix_files(
    inputs: &[PathBuf],
    out: &Path,
    seed: u64,
    log: &mut dyn FnMut(&str),
) -> Result<MixStats, MixError> {
    if out.exists() {
        return Err(MixError::Exists(out.to_path_buf()));
    }
    let mut all: Vec<Keyed> = Vec::new();
    for p in inputs {
        let len = std::fs::metadata(p)
            .map_err(|e| MixError::Io {
                path: p.clone(),
                source: e,
            })?
            .len();
        all.reserve((len / RECORD_SIZE as u64) as usize);
        let before = all.len();
        data::visit(p, |r| all.push(keyed(&r))).map_err(|e| MixError::data(p, e))?;
        log(&format!(
            "{}: {} positions",
            p.display(),
            all.len() - before
        ));
    }
    let read = all.len() as u64;
    dedup_shuffle(&mut all, seed);
    let mut w = DataWriter::append(out).map_err(|e| MixError::data(out, e))?;
    for chunk in all.chunks(1 << 16) {
        w.write(&decoded(chunk))
            .map_err(|e| MixError::data(out, e))?;
    }
    Ok(MixStats {
        read,
        distinct: all.len() as u64,
    })
}

/// Why `mix_files` stopped; each names the file.
#[derive(Debug)]
pub enum MixError {
    /// The output already exists: datamix only writes new files, so that
    /// a slip of `--out` cannot append to (or clobber) a data set.
    Exists(PathBuf),
    /// An input's size could not be read.
    Io { path: PathBuf, source: io::Error },
    /// Reading an input or writing the output failed.
    Data { path: PathBuf, source: DataError },
}

impl MixError {
    fn data(path: &Path, source: DataError) -> MixError {
        MixError::Data {
            path: path.to_path_buf(),
            source,
        }
    }
}

impl fmt::Display for MixError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MixError::Exists(out) => write!(
                f,
                "{}: exists; datamix writes a new file (remove it, or choose another --out)",
                out.display()
            ),
            MixError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            MixError::Data { path, source } => write!(f, "{}: {source}", path.display()),
        }
    }
}

impl std::error::Error for MixError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MixError::Exists(_) => None,
            MixError::Io { source, .. } => Some(source),
            MixError::Data { source, .. } => Some(source),
        }
    }
}
