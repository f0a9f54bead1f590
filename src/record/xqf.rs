//! XQF, the record format of XQStudio (象棋演播室).
//!
//! A 1024-byte header (signature `XQ`, version, the 32 pieces' squares,
//! result, game type, and Pascal strings in GBK for title, event, date,
//! site, players, opening, annotator, author) is followed by the move tree
//! in preorder: one record per node (from, to, a tag byte saying whether a
//! continuation and an alternative follow, and a comment), the first record
//! being the empty root that carries the game's opening comment.
//!
//! Versions up to 10 (XQF 1.0) are plain. From version 11 on, XQStudio
//! scrambles the file with keys derived from header bytes 12..16: the
//! piece squares are shifted by one key (and, from version 12, rotated
//! among the 32 slots), move squares by two others, comment lengths by a
//! fourth, and every byte of the move section by a 32-byte key stream made
//! from the header's key bytes and the string `[(C) Copyright Mr. Dong
//! Shiwei.]`. The facts come from XQStudio's published 1.0 description and
//! from public readers of the later versions; the code is ours.

use super::text::{decode_gbk, encode_gbk};
use super::{Game, MoveNode, RecordError};
use chuhe_core::board::{Color, Move, Piece, PieceKind, Position, Square, START_FEN};

/// The header's length; the move tree starts here.
pub const HEADER_LEN: usize = 0x400;

/// The plain version we write, the one XQStudio documents (XQF 1.0).
pub const PLAIN_VERSION: u8 = 10;

/// How deeply variations may nest before a file is taken as damaged (keeps
/// recursion bounded on hostile input).
pub const MAX_NESTING: usize = 200;

/// Piece kinds of the 32 slots of the header's position, Red's 16 then
/// Black's: 车马相仕帅仕相马车炮炮兵兵兵兵兵.
const SLOT_KINDS: [PieceKind; 16] = {
    use PieceKind::*;
    [
        Rook, Knight, Bishop, Advisor, King, Advisor, Bishop, Knight, Rook, Cannon, Cannon, Pawn,
        Pawn, Pawn, Pawn, Pawn,
    ]
};

/// Header text fields: PGN tag, offset of the length byte, room (length
/// byte included).
const FIELDS: [(&str, usize, usize); 11] = [
    ("Title", 0x50, 64),
    ("Event", 0xD0, 64),
    ("Date", 0x110, 16),
    ("Site", 0x120, 16),
    ("Red", 0x130, 16),
    ("Black", 0x140, 16),
    ("Opening", 0x150, 64),
    ("RedTime", 0x190, 16),
    ("BlackTime", 0x1A0, 16),
    ("Annotator", 0x1D0, 16),
    ("Author", 0x1E0, 16),
];

const RESULT_AT: usize = 0x33;
const WHO_PLAYS_AT: usize = 0x32;
const TYPE_AT: usize = 0x40;

const STREAM_MASK: &[u8; 32] = b"[(C) Copyright Mr. Dong Shiwei.]";

/// The scrambling keys of a file (all zero for the plain versions).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Keys {
    version: u8,
    /// Shift of the piece squares (and their rotation from version 12).
    xy: u8,
    /// Shift of move from-squares.
    xyf: u8,
    /// Shift of move to-squares.
    xyt: u8,
    /// Added to comment lengths.
    comment: i32,
    /// Added to each byte of the move section, by offset modulo 32.
    stream: [u8; 32],
}

fn derive(b: u8, seed: u8) -> u8 {
    let b = u32::from(b);
    ((54 * b * b + 221) * u32::from(seed)) as u8
}

impl Keys {
    fn from_header(h: &[u8]) -> Keys {
        let version = h[2];
        if version <= PLAIN_VERSION {
            return Keys {
                version,
                xy: 0,
                xyf: 0,
                xyt: 0,
                comment: 0,
                stream: [0; 32],
            };
        }
        let (mask, or, sum) = (h[3], &h[8..12], h[12]);
        let xy = derive(h[13], h[13]);
        let xyf = derive(h[14], xy);
        let xyt = derive(h[15], xyf);
        let comment = ((i32::from(sum) * 256 + i32::from(h[13])) % 32000) + 767;
        let key_bytes: [u8; 4] = std::array::from_fn(|i| (h[12 + i] & mask) | or[i]);
        let stream = std::array::from_fn(|i| STREAM_MASK[i] & key_bytes[i % 4]);
        Keys {
            version,
            xy,
            xyf,
            xyt,
            comment,
            stream,
        }
    }

    fn scrambled(&self) -> bool {
        self.version > PLAIN_VERSION
    }
}

/// XQF's square byte (`x * 10 + y`, origin at Red's bottom left) to ours.
fn square_of(xy: u8) -> Option<Square> {
    let (x, y) = (xy / 10, xy % 10);
    (xy < 90 && x < 9).then(|| Square::from_index(usize::from(y) * 9 + usize::from(x)))
}

fn xy_of(sq: Square) -> u8 {
    (sq.file().index() * 10 + sq.rank().index()) as u8
}

/// One record of the move tree, as stored.
#[derive(Clone, Debug)]
struct Node {
    from: u8,
    to: u8,
    comment: Option<String>,
    child: Option<usize>,
    sibling: Option<usize>,
    /// Where the record starts in the file, for errors.
    offset: usize,
}

/// The move section, read with the key stream applied.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    keys: &'a Keys,
}

impl Reader<'_> {
    fn take(&mut self, n: usize, what: &str) -> Result<Vec<u8>, RecordError> {
        if self.bytes.len() - self.at < n {
            return Err(RecordError::new(
                self.at,
                format!(
                    "file ends inside {what}: {n} bytes needed, {} left",
                    self.bytes.len() - self.at
                ),
            ));
        }
        let out = self.bytes[self.at..self.at + n]
            .iter()
            .enumerate()
            .map(|(i, &b)| b.wrapping_sub(self.keys.stream[(self.at + i - HEADER_LEN) % 32]))
            .collect();
        self.at += n;
        Ok(out)
    }

    /// One record: squares, whether a continuation and an alternative follow, comment.
    fn record(&mut self) -> Result<(Node, bool, bool), RecordError> {
        let offset = self.at;
        let r = self.take(4, "a move record")?;
        let (has_next, has_alt, has_comment) = if self.keys.scrambled() {
            (r[2] & 0x80 != 0, r[2] & 0x40 != 0, r[2] & 0x20 != 0)
        } else {
            (r[2] & 0xF0 != 0, r[2] & 0x0F != 0, true)
        };
        let mut comment = None;
        if has_comment {
            let at = self.at;
            let l = self.take(4, "a comment length")?;
            let len = i32::from_le_bytes([l[0], l[1], l[2], l[3]]).wrapping_sub(self.keys.comment);
            let left = self.bytes.len() - self.at;
            if len < 0 || len as usize > left {
                return Err(RecordError::new(
                    at,
                    format!("comment length {len} does not fit the {left} bytes left"),
                ));
            }
            let text = decode_gbk(&self.take(len as usize, "a comment")?);
            // Trailing line breaks are layout; full-width indentation is kept.
            let text = text.trim_end_matches(|c: char| c.is_ascii_whitespace());
            if !text.is_empty() {
                comment = Some(text.to_string());
            }
        }
        let node = Node {
            from: r[0].wrapping_sub(0x18).wrapping_sub(self.keys.xyf),
            to: r[1].wrapping_sub(0x20).wrapping_sub(self.keys.xyt),
            comment,
            child: None,
            sibling: None,
            offset,
        };
        Ok((node, has_next, has_alt))
    }
}

/// Reads one XQF file of any version.
pub fn read(bytes: &[u8]) -> Result<Game, RecordError> {
    if !bytes.starts_with(b"XQ") {
        return Err(RecordError::new(0, "not an XQF file (no 'XQ' signature)"));
    }
    if bytes.len() < HEADER_LEN {
        return Err(RecordError::new(
            bytes.len(),
            format!(
                "file ends inside the header: {} of {HEADER_LEN} bytes",
                bytes.len()
            ),
        ));
    }
    let h = &bytes[..HEADER_LEN];
    let keys = Keys::from_header(h);
    let mut game = Game::default();
    for (tag, at, room) in FIELDS {
        let len = usize::from(h[at]).min(room - 1);
        let value = decode_gbk(&h[at + 1..at + 1 + len]);
        let value = value.trim();
        if !value.is_empty() {
            game.set_tag(tag, value);
        }
    }
    let result = match h[RESULT_AT] {
        1 => "1-0",
        2 => "0-1",
        3 => "1/2-1/2",
        _ => "*",
    };
    game.set_tag("Result", result);

    // The tree, read iteratively in preorder: after a record come its
    // continuation's subtree, then its alternative's.
    let mut reader = Reader {
        bytes,
        at: HEADER_LEN,
        keys: &keys,
    };
    let (root, has_next, _) = reader.record()?;
    game.comment = root.comment.clone();
    let mut nodes = vec![root];
    let mut pending: Vec<(usize, bool)> = Vec::new();
    if has_next {
        pending.push((0, true));
    }
    while let Some((parent, as_child)) = pending.pop() {
        let (node, has_next, has_alt) = reader.record()?;
        let id = nodes.len();
        nodes.push(node);
        if as_child {
            nodes[parent].child = Some(id);
        } else {
            nodes[parent].sibling = Some(id);
        }
        if has_alt {
            pending.push((id, false));
        }
        if has_next {
            pending.push((id, true));
        }
    }

    // A whole game (type 0) or opening (1) starts from the standard
    // position whatever the header holds, as XQStudio reads it.
    let mut start = match board(h, &keys) {
        Err(_) if h[TYPE_AT] < 2 => Position::startpos(),
        other => other?,
    };
    // The file does not reliably say who moves first; the first move does.
    let first_mover = nodes[0]
        .child
        .and_then(|c| square_of(nodes[c].from))
        .and_then(|sq| start.piece_at(sq))
        .map(|p| p.color());
    let black_first = match first_mover {
        Some(c) => c == Color::Black,
        None => h[WHO_PLAYS_AT] == 1,
    };
    if black_first {
        let fen = start.fen().replacen(" w ", " b ", 1);
        start = Position::from_fen(&fen)
            .map_err(|e| RecordError::new(0x10, format!("bad starting position: {e}")))?;
    }
    if start.fen() != START_FEN {
        game.start_fen = Some(start.fen());
    }
    if let Some(first) = nodes[0].child {
        game.moves = line(&nodes, first, true, &start, 0)?;
    }
    Ok(game)
}

/// The starting position from the header's 32 piece squares (Red to move).
fn board(h: &[u8], keys: &Keys) -> Result<Position, RecordError> {
    let stored = &h[0x10..0x30];
    let mut squares = [0u8; 32];
    for (i, &b) in stored.iter().enumerate() {
        let slot = if keys.version >= 12 {
            (i + usize::from(keys.xy) + 1) % 32
        } else {
            i
        };
        squares[slot] = b.wrapping_sub(keys.xy);
    }
    let mut grid: [Option<Piece>; 90] = [None; 90];
    for (slot, &xy) in squares.iter().enumerate() {
        let Some(sq) = square_of(xy) else {
            continue; // captured (0xFF) or off the board
        };
        let color = if slot < 16 { Color::Red } else { Color::Black };
        if grid[sq.index()].is_some() {
            return Err(RecordError::new(
                0x10,
                format!("two pieces on square {sq} in the starting position"),
            ));
        }
        grid[sq.index()] = Some(Piece::new(color, SLOT_KINDS[slot % 16]));
    }
    let mut fen = String::new();
    for rank in (0..10).rev() {
        let mut empty = 0;
        for file in 0..9 {
            match grid[rank * 9 + file] {
                Some(p) => {
                    if empty > 0 {
                        fen.push_str(&empty.to_string());
                        empty = 0;
                    }
                    fen.push(p.letter());
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            fen.push_str(&empty.to_string());
        }
        if rank > 0 {
            fen.push('/');
        }
    }
    fen.push_str(" w - - 0 1");
    Position::from_fen(&fen)
        .map_err(|e| RecordError::new(0x10, format!("bad starting position: {e}")))
}

/// The line starting at node `head` (its alternatives become variations
/// when `with_alternatives`; a variation's own alternatives are its
/// parent's), checked move by move against the legal moves.
fn line(
    nodes: &[Node],
    head: usize,
    with_alternatives: bool,
    start: &Position,
    depth: usize,
) -> Result<Vec<MoveNode>, RecordError> {
    if depth > MAX_NESTING {
        return Err(RecordError::new(
            nodes[head].offset,
            format!("variations nested more than {MAX_NESTING} deep"),
        ));
    }
    let mut out = Vec::new();
    let mut pos = start.clone();
    let mut cur = Some(head);
    let mut first = true;
    while let Some(id) = cur {
        let n = &nodes[id];
        let mv = match (square_of(n.from), square_of(n.to)) {
            (Some(f), Some(t)) => Move::new(f, t),
            _ => {
                return Err(RecordError::new(
                    n.offset,
                    format!(
                        "move record has squares {} and {} off the board",
                        n.from, n.to
                    ),
                ))
            }
        };
        if !pos.is_legal(mv) {
            return Err(RecordError::new(
                n.offset,
                format!("illegal move {mv} in position {}", pos.fen()),
            ));
        }
        let mut node = MoveNode::new(mv);
        node.comment = n.comment.clone();
        if with_alternatives || !first {
            let mut alt = n.sibling;
            while let Some(a) = alt {
                node.variations
                    .push(line(nodes, a, false, &pos, depth + 1)?);
                alt = nodes[a].sibling;
            }
        }
        pos.make_move(mv);
        // Only legality matters here; without the history, the clones made
        // for variations stay small however long the game.
        pos.clear_history();
        out.push(node);
        cur = n.child;
        first = false;
    }
    Ok(out)
}

/// How to write a file: the plain version by default; a scrambled version
/// with the given key bytes (header bytes 13..16) reproduces what later
/// XQStudio versions write, for tests.
#[derive(Clone, Debug)]
pub struct WriteOptions {
    pub version: u8,
    /// Header bytes 3 (mask), 8..12 (or-keys) and 13..16 (square keys); byte
    /// 12 is chosen so that bytes 12..16 add up to 0 modulo 256, as XQStudio
    /// checks.
    pub key_mask: u8,
    pub key_or: [u8; 4],
    pub key_xy: [u8; 3],
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            version: PLAIN_VERSION,
            key_mask: 0,
            key_or: [0; 4],
            key_xy: [0; 3],
        }
    }
}

/// Writes a game as a plain XQF file (version 10, which XQStudio opens),
/// with its header fields, position, comments and variations.
pub fn write(game: &Game) -> Result<Vec<u8>, RecordError> {
    write_with(game, &WriteOptions::default())
}

/// Writes a game as XQF of the chosen version and keys.
pub fn write_with(game: &Game, opts: &WriteOptions) -> Result<Vec<u8>, RecordError> {
    let start = game
        .start_position()
        .map_err(|e| RecordError::new(0, format!("bad starting position: {e}")))?;
    let mut h = vec![0u8; HEADER_LEN];
    h[0] = b'X';
    h[1] = b'Q';
    h[2] = opts.version;
    if opts.version > PLAIN_VERSION {
        h[3] = opts.key_mask;
        h[8..12].copy_from_slice(&opts.key_or);
        h[13..16].copy_from_slice(&opts.key_xy);
        h[12] = 0u8.wrapping_sub(opts.key_xy.iter().fold(0u8, |a, &b| a.wrapping_add(b)));
    }
    let keys = Keys::from_header(&h);

    // Pieces into their slots, the rest marked captured.
    let mut squares = [0xFFu8; 32];
    for color in [Color::Red, Color::Black] {
        let base = if color == Color::Red { 0 } else { 16 };
        for kind in PieceKind::ALL {
            let mut slots = (0..16).filter(|&s| SLOT_KINDS[s] == kind);
            for sq in start.pieces(color, kind) {
                let slot = slots.next().ok_or_else(|| {
                    RecordError::new(0, format!("too many {kind:?} pieces for XQF"))
                })?;
                squares[base + slot] = xy_of(sq);
            }
        }
    }
    for (slot, &xy) in squares.iter().enumerate() {
        let i = if keys.version >= 12 {
            (slot + 64 - (usize::from(keys.xy) + 1) % 32) % 32
        } else {
            slot
        };
        h[0x10 + i] = xy.wrapping_add(keys.xy);
    }
    h[WHO_PLAYS_AT] = u8::from(start.side_to_move() == Color::Black);
    h[RESULT_AT] = match game.tag("Result") {
        Some("1-0") => 1,
        Some("0-1") => 2,
        Some("1/2-1/2") => 3,
        _ => 0,
    };
    // 0 = whole game; 2 = middlegame (a set-up position XQStudio reads from the header).
    h[TYPE_AT] = if game.start_fen.is_some() && start.fen() != START_FEN {
        2
    } else {
        0
    };
    for (tag, at, room) in FIELDS {
        if let Some(v) = game.tag(tag) {
            let encoded = encode_gbk(v);
            let b = truncate_gbk(&encoded, room - 1);
            h[at] = b.len() as u8;
            h[at + 1..at + 1 + b.len()].copy_from_slice(b);
        }
    }

    // The tree in preorder, with the key stream over the move section.
    let mut nodes = vec![Node {
        from: 0,
        to: 0,
        comment: game.comment.clone(),
        child: None,
        sibling: None,
        offset: 0,
    }];
    nodes[0].child = tree(&mut nodes, &game.moves);
    let mut body = Vec::new();
    let mut stack = vec![0usize];
    while let Some(id) = stack.pop() {
        let n = &nodes[id];
        let comment = n.comment.as_deref().map(encode_gbk).unwrap_or_default();
        let (from, to) = if id == 0 { (0, 0) } else { (n.from, n.to) };
        body.push(from.wrapping_add(0x18).wrapping_add(keys.xyf));
        body.push(to.wrapping_add(0x20).wrapping_add(keys.xyt));
        if keys.scrambled() {
            let mut tag = 0u8;
            if n.child.is_some() {
                tag |= 0x80;
            }
            if n.sibling.is_some() {
                tag |= 0x40;
            }
            if !comment.is_empty() {
                tag |= 0x20;
            }
            body.extend_from_slice(&[tag, 0]);
            if !comment.is_empty() {
                let len = (comment.len() as i32).wrapping_add(keys.comment);
                body.extend_from_slice(&len.to_le_bytes());
            }
        } else {
            let mut tag = 0u8;
            if n.child.is_some() {
                tag |= 0xF0;
            }
            if n.sibling.is_some() {
                tag |= 0x0F;
            }
            body.extend_from_slice(&[tag, if id == 0 { 0xFF } else { 0 }]);
            body.extend_from_slice(&(comment.len() as u32).to_le_bytes());
        }
        body.extend_from_slice(&comment);
        if let Some(s) = n.sibling {
            stack.push(s);
        }
        if let Some(c) = n.child {
            stack.push(c);
        }
    }
    for (i, b) in body.iter_mut().enumerate() {
        *b = b.wrapping_add(keys.stream[i % 32]);
    }
    h.extend_from_slice(&body);
    Ok(h)
}

/// Adds a line to the tree; returns its first node, whose alternatives (the
/// line's first move's variations) hang on it as siblings.
fn tree(nodes: &mut Vec<Node>, line: &[MoveNode]) -> Option<usize> {
    let mut head = None;
    let mut prev: Option<usize> = None;
    for m in line {
        let id = nodes.len();
        nodes.push(Node {
            from: xy_of(m.mv.from()),
            to: xy_of(m.mv.to()),
            comment: m.comment.clone(),
            child: None,
            sibling: None,
            offset: 0,
        });
        match prev {
            Some(p) => nodes[p].child = Some(id),
            None => head = Some(id),
        }
        let mut tail = id;
        for var in &m.variations {
            if let Some(v) = tree(nodes, var) {
                nodes[tail].sibling = Some(v);
                tail = v;
                while let Some(s) = nodes[tail].sibling {
                    tail = s;
                }
            }
        }
        prev = Some(id);
    }
    head
}

/// At most `max` bytes of GBK text, not cutting a two-byte character.
fn truncate_gbk(b: &[u8], max: usize) -> &[u8] {
    if b.len() <= max {
        return b;
    }
    let mut i = 0;
    while i < b.len() {
        let w = match (b[i], b.get(i + 1)) {
            (0..=0x7F, _) => 1,
            // GB18030's four-byte form: the second byte is a digit.
            (_, Some(0x30..=0x39)) => 4,
            _ => 2,
        };
        if i + w > max {
            break;
        }
        i += w;
    }
    &b[..i]
}
