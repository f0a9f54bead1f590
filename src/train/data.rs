//! The training-data format written by `chuhe datagen` and read by
//! `chuhe train`: fixed-size 32-byte records, so a file can be split,
//! sampled and shuffled by index, and files can be concatenated or appended
//! to (each run appends a header block of its own).
//!
//! A file is a sequence of 32-byte blocks. A block whose first byte is 0xFF
//! is a header; any other block is a position record. Record layout (all
//! little-endian):
//!
//! | bytes  | field                                                          |
//! |--------|----------------------------------------------------------------|
//! | 0      | side to move (bit 0: 0 Red, 1 Black) + 2 × result (bits 1-2), the game's result from the side to move's view: 0 loss, 1 draw, 2 win |
//! | 1      | number of pieces on the board (2..=32)                         |
//! | 2..4   | search score, i16 centipawns from the side to move's view      |
//! | 4..16  | occupancy: bit `sq` (a0 = 0, i0 = 8, a1 = 9 ... i9 = 89) set for each occupied square |
//! | 16..32 | the pieces in increasing square order, one nibble each (low nibble first), `color × 7 + kind` (kind: K A B N R C P = 0..6) |
//!
//! Header layout: byte 0 = 0xFF, bytes 1..8 = `CHUHEDG`, bytes 8..10 format
//! version (u16), bytes 10..12 record size (u16, 32), bytes 12..20 the
//! number of records the run that wrote this header had flushed after it
//! (u64; informational: a run stopped hard may have written more or fewer),
//! bytes 20..32 zero. Readers count records by the file size and skip headers.

use chuhe_core::board::{Bitboard, Color, Piece, Position, Square};
use std::fmt;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

pub const RECORD_SIZE: usize = 32;
pub const FORMAT_VERSION: u16 = 1;
const HEADER_MARK: u8 = 0xFF;
const HEADER_MAGIC: &[u8; 7] = b"CHUHEDG";

/// The game's result from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wdl {
    Loss = 0,
    Draw = 1,
    Win = 2,
}

impl Wdl {
    /// The target value for training: 0, 0.5, 1.
    pub fn as_f32(self) -> f32 {
        self as u8 as f32 / 2.0
    }
}

/// One training position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    pub side: Color,
    pub score: i16,
    pub result: Wdl,
    /// (square, piece) for every piece, in increasing square order.
    pub pieces: [(u8, u8); 32],
    pub count: u8,
}

#[derive(Debug)]
pub enum DataError {
    Io(io::Error),
    BadHeader {
        offset: u64,
        why: &'static str,
    },
    BadRecord {
        offset: u64,
        why: &'static str,
    },
    /// A chain file (`super::chain`) that could not be read whole.
    Chain(super::chain::ChainError),
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataError::Io(e) => write!(f, "{e}"),
            DataError::BadHeader { offset, why } => {
                write!(f, "bad header at byte {offset}: {why}")
            }
            DataError::BadRecord { offset, why } => {
                write!(f, "bad record at byte {offset}: {why}")
            }
            DataError::Chain(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for DataError {}

impl From<io::Error> for DataError {
    fn from(e: io::Error) -> Self {
        DataError::Io(e)
    }
}

impl Record {
    pub fn from_position(pos: &Position, score: i16, result: Wdl) -> Record {
        let mut pieces = [(0u8, 0u8); 32];
        let mut count = 0;
        for sq in pos.occupied() {
            let p = pos.piece_at(sq).expect("occupied square has a piece");
            pieces[count] = (sq.index() as u8, p.index() as u8);
            count += 1;
        }
        Record {
            side: pos.side_to_move(),
            score,
            result,
            pieces,
            count: count as u8,
        }
    }

    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.pieces[..self.count as usize].iter().map(|&(s, p)| {
            (
                Square::from_index(s as usize),
                Piece::from_index(p as usize),
            )
        })
    }

    pub fn encode(&self) -> [u8; RECORD_SIZE] {
        let mut b = [0u8; RECORD_SIZE];
        b[0] = self.side.index() as u8 | (self.result as u8) << 1;
        b[1] = self.count;
        b[2..4].copy_from_slice(&self.score.to_le_bytes());
        let mut occ = 0u128;
        for &(s, p) in &self.pieces[..self.count as usize] {
            occ |= 1 << s;
            let i = occ.count_ones() as usize - 1;
            b[16 + i / 2] |= p << (4 * (i % 2));
        }
        b[4..16].copy_from_slice(&occ.to_le_bytes()[..12]);
        b
    }

    /// Decodes a record block; `offset` is only for the error message.
    pub fn decode(b: &[u8; RECORD_SIZE], offset: u64) -> Result<Record, DataError> {
        let bad = |why| DataError::BadRecord { offset, why };
        if b[0] > 5 {
            return Err(bad("flags byte out of range"));
        }
        let side = if b[0] & 1 == 0 {
            Color::Red
        } else {
            Color::Black
        };
        let result = match b[0] >> 1 {
            0 => Wdl::Loss,
            1 => Wdl::Draw,
            _ => Wdl::Win,
        };
        let mut occ_bytes = [0u8; 16];
        occ_bytes[..12].copy_from_slice(&b[4..16]);
        let occ = u128::from_le_bytes(occ_bytes);
        if occ >> 90 != 0 {
            return Err(bad("occupancy beyond square 89"));
        }
        let count = occ.count_ones() as usize;
        if count != b[1] as usize || !(2..=32).contains(&count) {
            return Err(bad("piece count does not match the occupancy"));
        }
        let mut pieces = [(0u8, 0u8); 32];
        for (i, sq) in Bitboard(occ).into_iter().enumerate() {
            let p = (b[16 + i / 2] >> (4 * (i % 2))) & 15;
            if p as usize >= Piece::COUNT {
                return Err(bad("piece code out of range"));
            }
            pieces[i] = (sq.index() as u8, p);
        }
        Ok(Record {
            side,
            score: i16::from_le_bytes([b[2], b[3]]),
            result,
            pieces,
            count: count as u8,
        })
    }

    /// The position (without history); for tests and tools.
    pub fn to_position(&self) -> Result<Position, chuhe_core::board::FenError> {
        let mut board = [None; 90];
        for (sq, p) in self.pieces() {
            board[sq.index()] = Some(p);
        }
        let mut fen = String::new();
        for rank in (0..10).rev() {
            let mut empty = 0;
            for file in 0..9 {
                match board[rank * 9 + file] {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            fen.push_str(&empty.to_string());
                            empty = 0;
                        }
                        fen.push(p.letter());
                    }
                }
            }
            if empty > 0 {
                fen.push_str(&empty.to_string());
            }
            if rank > 0 {
                fen.push('/');
            }
        }
        fen.push_str(if self.side == Color::Red { " w" } else { " b" });
        Position::from_fen(&fen)
    }
}

fn header_block(count: u64) -> [u8; RECORD_SIZE] {
    let mut b = [0u8; RECORD_SIZE];
    b[0] = HEADER_MARK;
    b[1..8].copy_from_slice(HEADER_MAGIC);
    b[8..10].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    b[10..12].copy_from_slice(&(RECORD_SIZE as u16).to_le_bytes());
    b[12..20].copy_from_slice(&count.to_le_bytes());
    b
}

fn check_header(b: &[u8; RECORD_SIZE], offset: u64) -> Result<u64, DataError> {
    let bad = |why| DataError::BadHeader { offset, why };
    if &b[1..8] != HEADER_MAGIC {
        return Err(bad("not a Chuhe training-data header"));
    }
    if u16::from_le_bytes([b[8], b[9]]) != FORMAT_VERSION {
        return Err(bad("unsupported format version"));
    }
    if u16::from_le_bytes([b[10], b[11]]) as usize != RECORD_SIZE {
        return Err(bad("unexpected record size"));
    }
    Ok(u64::from_le_bytes(b[12..20].try_into().unwrap()))
}

/// Appends records to a file: a new header block first, whose count is
/// rewritten at every flush so an interrupted run leaves a valid file.
pub struct DataWriter {
    file: std::fs::File,
    header_at: u64,
    written: u64,
}

impl DataWriter {
    pub fn append(path: &Path) -> Result<DataWriter, DataError> {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .read(true)
            .write(true)
            .truncate(false)
            .open(path)?;
        let len = file.seek(SeekFrom::End(0))?;
        // A run killed mid-write may have left a partial block: drop it, so
        // the blocks stay aligned.
        let header_at = len - len % RECORD_SIZE as u64;
        file.set_len(header_at)?;
        file.seek(SeekFrom::Start(header_at))?;
        file.write_all(&header_block(0))?;
        Ok(DataWriter {
            file,
            header_at,
            written: 0,
        })
    }

    pub fn write(&mut self, records: &[Record]) -> Result<(), DataError> {
        let mut buf = Vec::with_capacity(records.len() * RECORD_SIZE);
        for r in records {
            buf.extend_from_slice(&r.encode());
        }
        self.file.write_all(&buf)?;
        self.written += records.len() as u64;
        self.flush()
    }

    /// Rewrites this run's header count and syncs the data to disk.
    pub fn flush(&mut self) -> Result<(), DataError> {
        let end = self.file.stream_position()?;
        self.file.seek(SeekFrom::Start(self.header_at))?;
        self.file.write_all(&header_block(self.written))?;
        self.file.seek(SeekFrom::Start(end))?;
        self.file.flush()?;
        Ok(())
    }

    pub fn written(&self) -> u64 {
        self.written
    }
}

/// Reads every record of a file (or of several concatenated files).
pub fn read_all(path: &Path) -> Result<Vec<Record>, DataError> {
    let mut out = Vec::new();
    read_into(path, &mut out)?;
    Ok(out)
}

/// Appends every record of a file to `out` (for 32-byte records, room
/// reserved from the file's size, read in pieces: the memory needed is the
/// records', not twice).
pub fn read_into(path: &Path, out: &mut Vec<Record>) -> Result<(), DataError> {
    let len = std::fs::metadata(path)?.len();
    out.reserve((len / RECORD_SIZE as u64) as usize);
    visit(path, |r| out.push(r))
}

/// Calls `f` with every record of a file in order: a file of 32-byte
/// records, or a chain file (`super::chain`), whose games are replayed as
/// they are read, never expanded on disk.
pub fn visit(path: &Path, f: impl FnMut(Record)) -> Result<(), DataError> {
    let mut file = std::io::BufReader::new(std::fs::File::open(path)?);
    let mut magic = [0u8; 8];
    let n = file.read(&mut magic)?;
    file.seek(SeekFrom::Start(0))?;
    if super::chain::is_chain(&magic[..n]) {
        super::chain::visit(file, f).map_err(DataError::Chain)
    } else {
        visit_records(file, f)
    }
}

/// A file of 32-byte records, read a megabyte at a time; a trailing partial
/// block (a run killed mid-write) is ignored.
fn visit_records(mut file: impl Read, mut f: impl FnMut(Record)) -> Result<(), DataError> {
    let mut buf = vec![0u8; RECORD_SIZE << 15];
    let (mut offset, mut seen_header) = (0u64, false);
    loop {
        // Fill the buffer as far as the file goes.
        let mut filled = 0;
        while filled < buf.len() {
            match file.read(&mut buf[filled..])? {
                0 => break,
                n => filled += n,
            }
        }
        let whole = filled - filled % RECORD_SIZE;
        for chunk in buf[..whole].chunks_exact(RECORD_SIZE) {
            if let Some(r) = decode_block(chunk.try_into().unwrap(), offset, &mut seen_header)? {
                f(r);
            }
            offset += RECORD_SIZE as u64;
        }
        if filled < buf.len() {
            return Ok(());
        }
    }
}

/// One block: a header (None, after checking it) or a record.
fn decode_block(
    block: &[u8; RECORD_SIZE],
    offset: u64,
    seen_header: &mut bool,
) -> Result<Option<Record>, DataError> {
    if block[0] == HEADER_MARK {
        check_header(block, offset)?;
        *seen_header = true;
        Ok(None)
    } else if !*seen_header {
        Err(DataError::BadHeader {
            offset: 0,
            why: "the file does not start with a header",
        })
    } else {
        Record::decode(block, offset).map(Some)
    }
}

/// Decodes a byte buffer of blocks; a trailing partial block (a run killed
/// mid-write) is ignored.
pub fn decode_all(bytes: &[u8]) -> Result<Vec<Record>, DataError> {
    let mut out = Vec::with_capacity(bytes.len() / RECORD_SIZE);
    let mut seen_header = false;
    for (i, chunk) in bytes.chunks_exact(RECORD_SIZE).enumerate() {
        let offset = (i * RECORD_SIZE) as u64;
        if let Some(r) = decode_block(chunk.try_into().unwrap(), offset, &mut seen_header)? {
            out.push(r);
        }
    }
    Ok(out)
}

/// `n` positions of random games from the start position (restarted
/// after 120 plies or at the end of a game), scored by the hand-crafted
/// evaluation, with random results: data for tests and benchmarks.
pub fn random_game_records(n: usize, seed: u64) -> Vec<Record> {
    let mut rng = chuhe_core::rng::SplitMix64::new(seed);
    let mut out = Vec::with_capacity(n);
    let mut pos = Position::startpos();
    while out.len() < n {
        let moves = pos.legal_moves();
        if moves.is_empty() || pos.ply() > 120 {
            pos = Position::startpos();
            continue;
        }
        pos.make_move(moves[rng.next_u64() as usize % moves.len()]);
        let result = [Wdl::Loss, Wdl::Draw, Wdl::Win][rng.next_u64() as usize % 3];
        let score = chuhe_core::eval::hce_evaluate(&pos) as i16;
        out.push(Record::from_position(&pos, score, result));
    }
    out
}
