//! The chain format: self-play games stored as games, not as positions.
//!
//! A 32-byte record (`super::data`) repeats the whole board for every
//! position, although each position of a game is the one before it plus one
//! move. A chain stores each game once: where it started, then for every
//! ply the move played (its index in the position's legal moves, one byte),
//! the search score and whether the position is kept for training, and the
//! game's result once. Readers replay the moves to rebuild the positions, so
//! the result is the same records, for about a tenth of the bytes: the idea
//! behind Stockfish's binpack, written here for xiangqi.
//!
//! # Layout
//!
//! A file is a 16-byte header, `CHUHECHN`, the format version (u16 LE) and
//! six zero bytes, followed by frames. A frame is a 32-byte frame header
//! and a zstd frame (with zstd's content checksum) holding a run of games:
//!
//! | bytes  | frame header field                                          |
//! |--------|-------------------------------------------------------------|
//! | 0..4   | `CHFR`                                                      |
//! | 4..8   | compressed length (u32 LE), at most `MAX_FRAME`             |
//! | 8..12  | decompressed length (u32 LE), at most `MAX_FRAME`           |
//! | 12..20 | the number of the frame's first game (u64 LE)               |
//! | 20..24 | the games in the frame (u32 LE)                             |
//! | 24..28 | the kept positions in the frame (u32 LE)                    |
//! | 28..32 | FNV-1a of bytes 0..28 (u32 LE), so a damaged header is seen |
//!
//! The decompressed frame is its games one after the other, each:
//! the game's number, the start position's FEN (length, bytes), the number
//! of prefix plies (the opening's book moves and the random plies: played,
//! not searched), the number of searched plies (all unsigned LEB128), the
//! result (one byte: 0 draw, 1 Red won, 2 Black won); then one byte per ply
//! (prefix and searched), the move's index among the legal moves sorted by
//! their 16-bit code; then the searched plies' scores (from Red's view,
//! each the zigzag LEB128 of its difference from the ply before's, the
//! first from 0); then the searched plies' keep bits, eight to a byte, low
//! bit first. A kept position's record has the score from the side to
//! move's view and the game's result from that side's view.
//!
//! Indices into the moves sorted by code do not depend on the order in
//! which the move generator happens to list them, so a change there never
//! changes what an old file means.
//!
//! Moves are grouped apart from scores inside a game because each column
//! compresses better alone. zstd (the `zstd` crate, bindings to the
//! reference library) is used for its ratio at high levels, its speed when
//! reading, and the checksum it carries; it is a dependency of the tools
//! package only.
//!
//! # Damage
//!
//! A reader stops at the first damaged or cut-short frame and says which
//! game it was in; every game of the frames before it has been delivered.
//! No length read from a file is trusted for an allocation before it has
//! been checked against `MAX_FRAME`.

use super::data::{Record, Wdl};
use chuhe_core::board::{Color, FenError, Move, MoveList, Position};
use chuhe_core::rules::Outcome;
use std::fmt;
use std::io::{self, Read, Write};
use std::path::Path;

pub const MAGIC: &[u8; 8] = b"CHUHECHN";
pub const VERSION: u16 = 1;
const FILE_HEADER: usize = 16;
const FRAME_MAGIC: &[u8; 4] = b"CHFR";
const FRAME_HEADER: usize = 32;
/// The largest frame, either side of compression. Writers close a frame
/// long before (`FRAME_TARGET`); a reader refuses anything larger.
pub const MAX_FRAME: usize = 16 << 20;
/// A writer closes its frame once the games in it take this much.
const FRAME_TARGET: usize = 512 << 10;
/// zstd's level: 19 packs these columns about a fifth smaller than the
/// default 3, and writing is still a fraction of a percent of datagen's time.
const LEVEL: i32 = 19;
/// Bounds of a sane game, checked when reading.
const MAX_FEN: usize = 256;
const MAX_PLIES: usize = 4096;

/// One searched ply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChainPly {
    pub mv: Move,
    /// The search's score from the side to move's view, centipawns (mates
    /// as ±30000).
    pub score: i16,
    /// Whether the position before the move is a training position.
    pub keep: bool,
}

/// One self-play game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainGame {
    /// The game's number in its run (it seeds the game).
    pub number: u64,
    /// Where the game started: the opening's position before its moves.
    pub root_fen: String,
    /// Moves played without a search: the opening's and the random plies.
    pub prefix: Vec<Move>,
    pub plies: Vec<ChainPly>,
    pub outcome: Outcome,
}

impl ChainGame {
    /// The kept positions.
    pub fn kept(&self) -> usize {
        self.plies.iter().filter(|p| p.keep).count()
    }

    /// The training records of the kept positions, by replaying the game.
    pub fn records(&self) -> Result<Vec<Record>, GameError> {
        let mut out = Vec::with_capacity(self.kept());
        self.replay(|pos, ply| {
            if let Some(p) = ply.filter(|p| p.keep) {
                let result = result_for(self.outcome, pos.side_to_move());
                out.push(Record::from_position(pos, p.score, result));
            }
        })?;
        Ok(out)
    }

    /// Calls `f` with each position before its move (and the searched
    /// ply, for searched ones), checking every move is legal.
    fn replay(&self, mut f: impl FnMut(&Position, Option<&ChainPly>)) -> Result<(), GameError> {
        let mut pos = Position::from_fen(&self.root_fen).map_err(GameError::StartPosition)?;
        let prefix = self.prefix.iter().map(|m| (*m, None));
        let searched = self.plies.iter().map(|p| (p.mv, Some(p)));
        for (i, (mv, ply)) in prefix.chain(searched).enumerate() {
            if !pos.legal_moves().contains(&mv) {
                return Err(GameError::Illegal { ply: i + 1, mv });
            }
            f(&pos, ply);
            pos.make_move(mv);
        }
        Ok(())
    }
}

/// Why a game cannot be written to, or replayed from, the format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameError {
    /// The root FEN does not give a position.
    StartPosition(FenError),
    /// The move at `ply` (1-based, counting the prefix) is not legal there.
    Illegal { ply: usize, mv: Move },
    /// More FEN or plies than the format's fields hold.
    TooLong,
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameError::StartPosition(e) => write!(f, "bad start position: {e}"),
            GameError::Illegal { ply, mv } => write!(f, "ply {ply}: {mv} is not a legal move"),
            GameError::TooLong => write!(f, "game too long for the format"),
        }
    }
}

impl std::error::Error for GameError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GameError::StartPosition(e) => Some(e),
            _ => None,
        }
    }
}

/// The game's result from `side`'s view.
pub fn result_for(outcome: Outcome, side: Color) -> Wdl {
    match (outcome, side) {
        (Outcome::Draw, _) => Wdl::Draw,
        (Outcome::RedWins, Color::Red) | (Outcome::BlackWins, Color::Black) => Wdl::Win,
        _ => Wdl::Loss,
    }
}

/// The legal moves in the order the indices count them.
fn sorted_moves(pos: &Position) -> MoveList {
    let mut moves = pos.legal_moves();
    moves.sort_unstable_by_key(|m| m.raw());
    moves
}

#[derive(Debug)]
pub enum ChainError {
    Io(io::Error),
    /// Not a chain file, or one of a version this build cannot read.
    Header(&'static str),
    /// A damaged or cut-short frame. `game` is the game being read when
    /// the damage was found, or the frame's first game when the frame as a
    /// whole was unreadable (None when even its header was).
    Frame {
        offset: u64,
        game: Option<u64>,
        why: String,
    },
}

impl fmt::Display for ChainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChainError::Io(e) => write!(f, "{e}"),
            ChainError::Header(why) => write!(f, "not a readable chain file: {why}"),
            ChainError::Frame {
                offset,
                game: Some(g),
                why,
            } => write!(
                f,
                "game {g}: {why} (frame at byte {offset}); the games before it are intact"
            ),
            ChainError::Frame {
                offset,
                game: None,
                why,
            } => write!(
                f,
                "frame at byte {offset}: {why}; the games before it are intact"
            ),
        }
    }
}

impl std::error::Error for ChainError {}

impl From<io::Error> for ChainError {
    fn from(e: io::Error) -> Self {
        ChainError::Io(e)
    }
}

/// True when `bytes` (a file's first bytes) start a chain file.
pub fn is_chain(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |h, &b| {
        (h ^ b as u32).wrapping_mul(0x0100_0193)
    })
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    (v >> 1) as i64 ^ -((v & 1) as i64)
}

/// Appends one game's bytes to `out`; fails (writing nothing) if a move is
/// not legal where it is played, which would make the game unreadable.
pub fn encode_game(game: &ChainGame, out: &mut Vec<u8>) -> Result<(), GameError> {
    if game.root_fen.len() > MAX_FEN || game.prefix.len() + game.plies.len() > MAX_PLIES {
        return Err(GameError::TooLong);
    }
    let mut indices = Vec::with_capacity(game.prefix.len() + game.plies.len());
    let mut pos = Position::from_fen(&game.root_fen).map_err(GameError::StartPosition)?;
    let root_side = pos.side_to_move();
    let moves = game.prefix.iter().chain(game.plies.iter().map(|p| &p.mv));
    for (i, &mv) in moves.enumerate() {
        let legal = sorted_moves(&pos);
        let idx = legal
            .iter()
            .position(|&m| m == mv)
            .ok_or(GameError::Illegal { ply: i + 1, mv })?;
        indices.push(idx as u8);
        pos.make_move(mv);
    }
    put_varint(out, game.number);
    put_varint(out, game.root_fen.len() as u64);
    out.extend_from_slice(game.root_fen.as_bytes());
    put_varint(out, game.prefix.len() as u64);
    put_varint(out, game.plies.len() as u64);
    out.push(match game.outcome {
        Outcome::Draw => 0,
        Outcome::RedWins => 1,
        Outcome::BlackWins => 2,
    });
    out.extend_from_slice(&indices);
    // Red's view: the scores of consecutive plies then differ by little,
    // where from the mover's view they flip sign every ply.
    let mut prev = 0i64;
    for (i, p) in game.plies.iter().enumerate() {
        let score = p.score as i64 * red_sign(root_side, game.prefix.len() + i);
        put_varint(out, zigzag(score - prev));
        prev = score;
    }
    let mut flags = vec![0u8; game.plies.len().div_ceil(8)];
    for (i, p) in game.plies.iter().enumerate() {
        if p.keep {
            flags[i / 8] |= 1 << (i % 8);
        }
    }
    out.extend_from_slice(&flags);
    Ok(())
}

/// +1 when Red is to move `ply` plies after a root with `root` to move,
/// else -1: turns a mover's-view score into Red's view and back.
fn red_sign(root: Color, ply: usize) -> i64 {
    let red_at_root = root == Color::Red;
    if red_at_root == ply.is_multiple_of(2) {
        1
    } else {
        -1
    }
}

/// A cursor over a decompressed frame; every read is bounds-checked.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], &'static str> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or("the game runs past the end of its frame")?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn byte(&mut self) -> Result<u8, &'static str> {
        Ok(self.take(1)?[0])
    }

    fn varint(&mut self) -> Result<u64, &'static str> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("a number longer than 64 bits")
    }

    fn len(&mut self, max: usize) -> Result<usize, &'static str> {
        match self.varint()? {
            n if n as usize <= max => Ok(n as usize),
            _ => Err("a length beyond the format's bounds"),
        }
    }
}

/// Reads one game from the cursor: the structure only (the moves are
/// checked by the replay that turns their indices into moves).
fn decode_game(c: &mut Cursor) -> Result<(u64, RawGame), (Option<u64>, String)> {
    let number = c.varint().map_err(|e| (None, e.to_string()))?;
    let game = (|| -> Result<RawGame, String> {
        let fen_len = c.len(MAX_FEN)?;
        let fen = std::str::from_utf8(c.take(fen_len)?)
            .map_err(|_| "the start position is not text")?
            .to_string();
        let prefix = c.len(MAX_PLIES)?;
        let searched = c.len(MAX_PLIES)?;
        if prefix + searched > MAX_PLIES {
            return Err("a game longer than the format's bounds".into());
        }
        let outcome = match c.byte()? {
            0 => Outcome::Draw,
            1 => Outcome::RedWins,
            2 => Outcome::BlackWins,
            _ => return Err("an unknown result".into()),
        };
        let indices = c.take(prefix + searched)?.to_vec();
        let mut scores = Vec::with_capacity(searched);
        let mut prev = 0i64;
        for _ in 0..searched {
            prev = prev.wrapping_add(unzigzag(c.varint()?));
            scores.push(prev);
        }
        let flags = c.take(searched.div_ceil(8))?.to_vec();
        Ok(RawGame {
            fen,
            prefix,
            outcome,
            indices,
            scores,
            flags,
        })
    })()
    .map_err(|e| (Some(number), e))?;
    Ok((number, game))
}

/// A game as stored: move indices, not yet moves.
struct RawGame {
    fen: String,
    prefix: usize,
    outcome: Outcome,
    indices: Vec<u8>,
    /// Red's view.
    scores: Vec<i64>,
    flags: Vec<u8>,
}

impl RawGame {
    /// Replays the indices into moves.
    fn into_game(self, number: u64) -> Result<ChainGame, String> {
        let mut pos =
            Position::from_fen(&self.fen).map_err(|e| format!("bad start position: {e}"))?;
        let root_side = pos.side_to_move();
        let mut prefix = Vec::with_capacity(self.prefix);
        let mut plies = Vec::with_capacity(self.scores.len());
        for (i, &idx) in self.indices.iter().enumerate() {
            let legal = sorted_moves(&pos);
            let mv = *legal.get(idx as usize).ok_or_else(|| {
                format!(
                    "ply {}: move {idx} of a position with {} legal moves",
                    i + 1,
                    legal.len()
                )
            })?;
            if i < self.prefix {
                prefix.push(mv);
            } else {
                let j = i - self.prefix;
                let score = self.scores[j] * red_sign(root_side, i);
                let score = i16::try_from(score)
                    .map_err(|_| format!("ply {}: score {score} out of range", i + 1))?;
                plies.push(ChainPly {
                    mv,
                    score,
                    keep: self.flags[j / 8] >> (j % 8) & 1 != 0,
                });
            }
            pos.make_move(mv);
        }
        Ok(ChainGame {
            number,
            root_fen: self.fen,
            prefix,
            plies,
            outcome: self.outcome,
        })
    }
}

/// Writes games into frames. Frames are written whole: a writer stopped
/// between two leaves a readable file, one stopped in the middle of a frame
/// a file whose last frame is reported cut short.
pub struct ChainWriter<W: Write> {
    out: W,
    raw: Vec<u8>,
    first_game: u64,
    games: u32,
    positions: u32,
    /// Totals over the frames written so far.
    written_games: u64,
    written_positions: u64,
    written_bytes: u64,
}

impl ChainWriter<std::fs::File> {
    /// Creates `path`, which must not exist: a chain file, once closed, is
    /// never appended to (a committed shard stays as it was).
    pub fn create(path: &Path) -> io::Result<Self> {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)?;
        ChainWriter::new(file)
    }
}

impl<W: Write> ChainWriter<W> {
    pub fn new(mut out: W) -> io::Result<Self> {
        let mut header = [0u8; FILE_HEADER];
        header[..8].copy_from_slice(MAGIC);
        header[8..10].copy_from_slice(&VERSION.to_le_bytes());
        out.write_all(&header)?;
        Ok(ChainWriter {
            out,
            raw: Vec::with_capacity(FRAME_TARGET + (64 << 10)),
            first_game: 0,
            games: 0,
            positions: 0,
            written_games: 0,
            written_positions: 0,
            written_bytes: FILE_HEADER as u64,
        })
    }

    /// Adds a game; closes the frame when it is full.
    pub fn push(&mut self, game: &ChainGame) -> Result<(), ChainError> {
        let before = self.raw.len();
        encode_game(game, &mut self.raw).map_err(|why| ChainError::Frame {
            offset: self.written_bytes,
            game: Some(game.number),
            why: why.to_string(),
        })?;
        if self.raw.len() > MAX_FRAME / 2 {
            // One game never comes near this; refuse rather than write a
            // frame no reader accepts.
            self.raw.truncate(before);
            return Err(ChainError::Frame {
                offset: self.written_bytes,
                game: Some(game.number),
                why: "game too large for a frame".into(),
            });
        }
        if self.games == 0 {
            self.first_game = game.number;
        }
        self.games += 1;
        self.positions += game.kept() as u32;
        if self.raw.len() >= FRAME_TARGET {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes the games pushed so far as a frame (nothing if there are none).
    pub fn flush(&mut self) -> io::Result<()> {
        if self.games == 0 {
            return Ok(());
        }
        let mut enc = zstd::bulk::Compressor::new(LEVEL)?;
        enc.include_checksum(true)?;
        let packed = enc.compress(&self.raw)?;
        let mut h = [0u8; FRAME_HEADER];
        h[..4].copy_from_slice(FRAME_MAGIC);
        h[4..8].copy_from_slice(&(packed.len() as u32).to_le_bytes());
        h[8..12].copy_from_slice(&(self.raw.len() as u32).to_le_bytes());
        h[12..20].copy_from_slice(&self.first_game.to_le_bytes());
        h[20..24].copy_from_slice(&self.games.to_le_bytes());
        h[24..28].copy_from_slice(&self.positions.to_le_bytes());
        let sum = fnv1a(&h[..28]);
        h[28..].copy_from_slice(&sum.to_le_bytes());
        self.out.write_all(&h)?;
        self.out.write_all(&packed)?;
        self.out.flush()?;
        self.written_games += self.games as u64;
        self.written_positions += self.positions as u64;
        self.written_bytes += (FRAME_HEADER + packed.len()) as u64;
        self.raw.clear();
        self.games = 0;
        self.positions = 0;
        Ok(())
    }

    /// Flushes the last frame and hands back the output.
    pub fn finish(mut self) -> io::Result<W> {
        self.flush()?;
        Ok(self.out)
    }

    /// Games, kept positions and bytes written out so far (whole frames).
    pub fn written(&self) -> (u64, u64, u64) {
        (
            self.written_games,
            self.written_positions,
            self.written_bytes,
        )
    }
}

/// What a frame header says.
#[derive(Clone, Copy, Debug)]
pub struct FrameInfo {
    pub offset: u64,
    pub first_game: u64,
    pub games: u32,
    pub positions: u32,
    pub packed: u32,
    raw: u32,
}

/// Reads a chain file frame by frame.
pub struct ChainReader<R: Read> {
    input: R,
    offset: u64,
    /// Set after an error: a reader never goes past damage.
    done: bool,
}

impl ChainReader<io::BufReader<std::fs::File>> {
    pub fn open(path: &Path) -> Result<Self, ChainError> {
        ChainReader::new(io::BufReader::new(std::fs::File::open(path)?))
    }
}

/// Reads as much of `buf` as the input has; returns how much that was.
fn read_full(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

impl<R: Read> ChainReader<R> {
    pub fn new(mut input: R) -> Result<Self, ChainError> {
        let mut h = [0u8; FILE_HEADER];
        if read_full(&mut input, &mut h)? < FILE_HEADER || &h[..8] != MAGIC {
            return Err(ChainError::Header("it does not start with CHUHECHN"));
        }
        if u16::from_le_bytes([h[8], h[9]]) != VERSION {
            return Err(ChainError::Header(
                "a format version this build cannot read",
            ));
        }
        Ok(ChainReader {
            input,
            offset: FILE_HEADER as u64,
            done: false,
        })
    }

    /// The next frame's header and its decompressed games; None at the end
    /// of the file.
    fn next_raw(&mut self) -> Result<Option<(FrameInfo, Vec<u8>)>, ChainError> {
        if self.done {
            return Ok(None);
        }
        let offset = self.offset;
        let fail = |game, why: String| ChainError::Frame { offset, game, why };
        let mut h = [0u8; FRAME_HEADER];
        let got = read_full(&mut self.input, &mut h)?;
        if got == 0 {
            self.done = true;
            return Ok(None);
        }
        self.done = true; // until the frame proves whole
        if got < FRAME_HEADER {
            return Err(fail(None, "the file is cut short in a frame header".into()));
        }
        if &h[..4] != FRAME_MAGIC
            || fnv1a(&h[..28]) != u32::from_le_bytes(h[28..].try_into().unwrap())
        {
            return Err(fail(None, "damaged frame header".into()));
        }
        let word = |i: usize| u32::from_le_bytes(h[i..i + 4].try_into().unwrap());
        let info = FrameInfo {
            offset,
            first_game: u64::from_le_bytes(h[12..20].try_into().unwrap()),
            games: word(20),
            positions: word(24),
            packed: word(4),
            raw: word(8),
        };
        let first = Some(info.first_game);
        if info.packed as usize > MAX_FRAME || info.raw as usize > MAX_FRAME {
            return Err(fail(first, "frame larger than the format allows".into()));
        }
        // Read through `take`, so a length that claims more than the file
        // holds costs no more memory than the file does.
        let mut packed = Vec::new();
        (&mut self.input)
            .take(info.packed as u64)
            .read_to_end(&mut packed)?;
        if packed.len() < info.packed as usize {
            return Err(fail(
                first,
                format!(
                    "the file is cut short in this frame (games {} to {})",
                    info.first_game,
                    info.first_game + info.games.max(1) as u64 - 1
                ),
            ));
        }
        let raw = zstd::bulk::decompress(&packed, info.raw as usize)
            .map_err(|e| fail(first, format!("damaged frame ({e})")))?;
        if raw.len() != info.raw as usize {
            return Err(fail(first, "damaged frame (length differs)".into()));
        }
        self.offset += (FRAME_HEADER + packed.len()) as u64;
        self.done = false;
        Ok(Some((info, raw)))
    }

    /// The next frame's games, checked against its header; None at the end.
    pub fn next_frame(&mut self) -> Result<Option<(FrameInfo, Vec<ChainGame>)>, ChainError> {
        let Some((info, raw)) = self.next_raw()? else {
            return Ok(None);
        };
        let fail = |game, why: String| ChainError::Frame {
            offset: info.offset,
            game,
            why,
        };
        let mut c = Cursor { bytes: &raw, at: 0 };
        let mut games = Vec::new();
        let mut positions = 0u64;
        while c.at < raw.len() {
            let last = games.last().map(|g: &ChainGame| g.number);
            let (number, game) = decode_game(&mut c).map_err(|(g, why)| {
                self.done = true;
                fail(g.or(last.map(|n| n + 1)).or(Some(info.first_game)), why)
            })?;
            let game = game.into_game(number).map_err(|why| {
                self.done = true;
                fail(Some(number), why)
            })?;
            positions += game.kept() as u64;
            games.push(game);
        }
        if games.len() != info.games as usize || positions != info.positions as u64 {
            self.done = true;
            return Err(fail(
                Some(info.first_game),
                "the frame's games do not match its header".into(),
            ));
        }
        Ok(Some((info, games)))
    }

    /// Bytes read so far (whole frames).
    pub fn offset(&self) -> u64 {
        self.offset
    }
}

/// Calls `f` with every kept position of a chain file, in game order.
/// On damage, the positions of every frame before it have been delivered.
pub fn visit(input: impl Read, mut f: impl FnMut(Record)) -> Result<(), ChainError> {
    let mut reader = ChainReader::new(input)?;
    while let Some((info, games)) = reader.next_frame()? {
        for g in games {
            let records = g.records().map_err(|why| ChainError::Frame {
                offset: info.offset,
                game: Some(g.number),
                why: why.to_string(),
            })?;
            records.into_iter().for_each(&mut f);
        }
    }
    Ok(())
}

/// What `chuhe data info` says of a file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub games: u64,
    pub positions: u64,
    pub bytes: u64,
    /// The lowest and highest game numbers (None for no games).
    pub first_game: Option<u64>,
    pub last_game: Option<u64>,
}

impl Summary {
    /// Adds a frame's games.
    fn count(&mut self, games: &[ChainGame]) {
        for g in games {
            self.games += 1;
            self.positions += g.kept() as u64;
            self.first_game = Some(self.first_game.map_or(g.number, |f| f.min(g.number)));
            self.last_game = Some(self.last_game.map_or(g.number, |l| l.max(g.number)));
        }
    }
}

/// Reads a whole chain file, checking every game, and sums it up.
pub fn summarise(path: &Path) -> Result<Summary, ChainError> {
    let mut reader = ChainReader::open(path)?;
    let mut s = Summary::default();
    while let Some((_, games)) = reader.next_frame()? {
        s.count(&games);
    }
    s.bytes = reader.offset();
    Ok(s)
}

/// Cuts a file back to its last whole, readable frame (a writer killed in
/// the middle of one leaves a piece of it behind) and sums up what is left.
pub fn salvage(path: &Path) -> Result<Summary, ChainError> {
    let mut reader = ChainReader::open(path)?;
    let mut s = Summary::default();
    loop {
        match reader.next_frame() {
            Ok(Some((_, games))) => {
                s.count(&games);
            }
            Ok(None) | Err(ChainError::Frame { .. }) => break,
            Err(e) => return Err(e),
        }
    }
    s.bytes = reader.offset();
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)?
        .set_len(s.bytes)?;
    Ok(s)
}
