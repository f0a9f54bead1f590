//! The quantised network the engine runs, its file format and its
//! accumulator arithmetic.
//!
//! Architecture: `FEATURES` sparse inputs per perspective (a piece of a
//! colour relative to the perspective, of one of 7 kinds, on one of 90
//! squares, Black's view rank-mirrored so one weight set serves both sides),
//! optionally one such set per king bucket (`kings`: 1, or `KING_BUCKETS`
//! by the perspective's own king's palace square, `View`), an accumulator
//! of `hidden` i16 units per perspective (256, 512, 768 or 1024: `WIDTHS`),
//! squared clipped ReLU (SCReLU) on both, and one output
//! from the concatenation (side to move first) through one of `buckets`
//! output layers (1 to `MAX_BUCKETS`), chosen by the number of pieces on the
//! board (`output_bucket`).
//!
//! The arithmetic is written once, generic over the width (a const
//! generic), as `simd::Kernel`s, compiled twice: portable (SSE2 on x86-64)
//! and inside a `#[target_feature(enable = "avx2")]` function, where the
//! same loops become 256-bit vector code (the output's dot product uses
//! AVX2 intrinsics there). Which of the eight instances a network uses is
//! decided when it is made (`Simd::detect`, the width from the file) and
//! kept in the `Network`; a call then goes through one `match`, with no
//! feature test. The search's `Evaluator` runs its whole lazy catch-up and
//! the output as one kernel. Both paths compute exactly the same integers.
//!
//! File format (all little-endian), version 2 (written for networks
//! without king buckets, so that older builds read them):
//! - header, 48 bytes: magic `CHUHENN\0`, format version (u32, 2), feature
//!   count (u32), hidden size (u32), activation (u32, 1 = SCReLU), QA (u32),
//!   QB (u32), eval scale (u32, centipawns per unit of network output),
//!   output bucket count (u32, 1..=16), bucket scheme (u32, 1 = by piece
//!   count, `output_bucket`), payload length in bytes (u32);
//! - payload: input weights i16 `[FEATURES][hidden]`, input biases i16
//!   `[hidden]`, output weights i16 `[buckets][2 * hidden]` (per bucket the
//!   side to move's half first), output biases i32 `[buckets]`;
//! - FNV-1a 64 checksum (u64) of the header and payload.
//!
//! Version 3, written for networks with king buckets: a 52-byte header,
//! version 2's with the king bucket count (u32, `KING_BUCKETS`) before the
//! payload length; the input weights are `[kings][FEATURES][hidden]`.
//!
//! Version 1 (chuhe-1, chuhe-2) is read too: a 40-byte header without the
//! two bucket fields (payload length at byte 36), hidden size 256, one
//! output.

use super::aligned::AlignedI16;
use super::simd::Kernel;
pub use super::simd::{Simd, MAX_HIDDEN, WIDTHS};
use crate::board::{Color, Piece, Square};
use arrayvec::ArrayVec;
use std::fmt;

pub const FEATURES: usize = 2 * 7 * 90;
/// King buckets of a network that has them: the perspective's king on one
/// of the palace's nine points, the f-file mirrored onto the d-file.
pub const KING_BUCKETS: usize = 6;
pub const MAX_BUCKETS: usize = 16;
pub const QA: i32 = 255;
pub const QB: i32 = 64;
/// The newest format version (`to_bytes` writes it for networks with king
/// buckets, 2 for the others); `from_bytes` reads 1 to 3.
pub const FORMAT_VERSION: u32 = 3;
pub const ACTIVATION_SCRELU: u32 = 1;
/// Bucket scheme 1: `output_bucket` (piece count split evenly).
pub const BUCKETS_BY_PIECES: u32 = 1;
const MAGIC: &[u8; 8] = b"CHUHENN\0";
const HEADER_LEN_V1: usize = 40;
const HEADER_LEN_V2: usize = 48;
const HEADER_LEN_V3: usize = 52;

/// The payload's size for a shape.
const fn payload_len(hidden: usize, buckets: usize, kings: usize) -> usize {
    (kings * FEATURES * hidden + hidden + buckets * 2 * hidden) * 2 + 4 * buckets
}

/// The input feature of `piece` on `sq` seen from `persp`'s side.
#[inline]
pub fn feature(persp: Color, piece: Piece, sq: Square) -> usize {
    let (rel_color, rel_sq) = match persp {
        Color::Red => (piece.color().index(), sq.index()),
        Color::Black => (piece.color().flip().index(), sq.flip_rank().index()),
    };
    (rel_color * 7 + piece.kind().index()) * 90 + rel_sq
}

/// How one perspective reads the board in a network with king buckets:
/// the block of input weights of its king's bucket, and whether the board
/// is mirrored left-right (its king on the f-file; xiangqi is symmetric, so
/// the d-file's weights serve). Without king buckets, the one block and
/// no mirror.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct View {
    /// The first feature of the bucket's block (bucket × `FEATURES`).
    offset: u16,
    mirror: bool,
}

impl View {
    /// `persp`'s view with its own king on `king`, in a network of `kings`
    /// king buckets (1 or `KING_BUCKETS`). The buckets: the palace's
    /// ranks 0-2 (from `persp`'s side) times the d- and e-files, the
    /// f-file mirrored onto the d-file. A king outside the palace (only in
    /// a position set up by hand) takes the nearest palace point's bucket.
    #[inline]
    pub fn new(persp: Color, king: Square, kings: usize) -> View {
        if kings == 1 {
            return View::default();
        }
        let rel = match persp {
            Color::Red => king,
            Color::Black => king.flip_rank(),
        };
        let (file, rank) = (rel.index() % 9, rel.index() / 9);
        let mirror = file > 4;
        let file = if mirror { 8 - file } else { file }.clamp(3, 4) - 3;
        let bucket = rank.min(2) * 2 + file;
        View {
            offset: (bucket * FEATURES) as u16,
            mirror,
        }
    }

    /// The king bucket (0..`KING_BUCKETS`, 0 without buckets).
    pub fn bucket(self) -> usize {
        self.offset as usize / FEATURES
    }

    pub fn mirrored(self) -> bool {
        self.mirror
    }

    /// The input feature of `piece` on `sq` for `persp` seeing the board
    /// this way.
    #[inline]
    pub fn feature(self, persp: Color, piece: Piece, sq: Square) -> usize {
        let sq = if self.mirror { sq.flip_file() } else { sq };
        self.offset as usize + feature(persp, piece, sq)
    }
}

/// Both perspectives' views (Red's, Black's) of a board of `pieces` in a
/// network of `kings` king buckets.
pub fn views_of(pieces: &[(Square, Piece)], kings: usize) -> [View; 2] {
    let mut views = [View::default(); 2];
    if kings > 1 {
        for &(sq, p) in pieces {
            if p.kind() == crate::board::PieceKind::King {
                views[p.color().index()] = View::new(p.color(), sq, kings);
            }
        }
    }
    views
}

/// The output bucket for a position with `pieces` pieces on the board (both
/// kings included, so 2..=32) in a network of `buckets` buckets: the 31
/// possible counts split into `buckets` runs of (nearly) equal length,
/// fewest pieces in bucket 0. With 8 buckets: 2-5 pieces → 0, 6-9 → 1,
/// 10-13 → 2, 14-17 → 3, 18-21 → 4, 22-25 → 5, 26-29 → 6, 30-32 → 7.
/// Shared by the engine and the trainer.
#[inline]
pub fn output_bucket(pieces: usize, buckets: usize) -> usize {
    ((pieces.clamp(2, 32) - 2) * buckets / 31).min(buckets.max(1) - 1)
}

/// Why a network file was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetError {
    Truncated {
        len: usize,
        expected: usize,
    },
    BadMagic,
    Version(u32),
    Architecture {
        features: u32,
        hidden: u32,
        activation: u32,
        buckets: u32,
        scheme: u32,
        kings: u32,
    },
    Quantisation {
        qa: u32,
        qb: u32,
    },
    Checksum,
    /// Weights given to `Network::new` of the wrong length.
    Shape {
        what: &'static str,
        len: usize,
        expected: usize,
    },
    Io(String),
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetError::Truncated { len, expected } => {
                write!(
                    f,
                    "network file truncated or too long: {len} bytes, expected {expected}"
                )
            }
            NetError::BadMagic => write!(f, "not a Chuhe network file (bad magic)"),
            NetError::Version(v) => write!(
                f,
                "network format version {v}, this build reads 1 and {FORMAT_VERSION}"
            ),
            NetError::Architecture {
                features,
                hidden,
                activation,
                buckets,
                scheme,
                kings,
            } => write!(
                f,
                "network architecture {features}x{hidden} (activation {activation}), \
                 {buckets} output bucket(s) (scheme {scheme}), {kings} king bucket(s); this \
                 build runs {FEATURES} inputs, hidden {WIDTHS:?}, activation \
                 {ACTIVATION_SCRELU}, 1-{MAX_BUCKETS} buckets by scheme {BUCKETS_BY_PIECES}, \
                 1 or {KING_BUCKETS} king buckets (format 1: hidden 256, one output)"
            ),
            NetError::Quantisation { qa, qb } => write!(
                f,
                "network quantised with QA={qa} QB={qb}, this build expects QA={QA} QB={QB}"
            ),
            NetError::Checksum => write!(f, "network checksum mismatch (damaged file)"),
            NetError::Shape {
                what,
                len,
                expected,
            } => write!(f, "network {what}: {len} values, expected {expected}"),
            NetError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for NetError {}

pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The quantised network.
#[derive(Clone)]
pub struct Network {
    hidden: usize,
    buckets: usize,
    /// King buckets: 1 (none) or `KING_BUCKETS`.
    kings: usize,
    /// `[kings][FEATURES][hidden]`, row per feature, each starting a cache
    /// line.
    input_weights: AlignedI16,
    input_bias: Vec<i16>,
    /// `[buckets][2 * hidden]`, per bucket the side-to-move half first.
    output_weights: Vec<i16>,
    output_bias: Vec<i32>,
    /// Centipawns per unit of output.
    scale: i32,
    simd: Simd,
}

impl fmt::Debug for Network {
    // The weights are too many to print: the shape and a fingerprint.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Network({}x{FEATURES}x{}x{} buckets, scale {}, {:?}, checksum {:016x})",
            self.kings,
            self.hidden,
            self.buckets,
            self.scale,
            self.simd,
            fnv1a(&self.to_bytes())
        )
    }
}

impl Network {
    /// A network from its weights (shapes as in the file format), running
    /// on the best arithmetic this CPU has.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        hidden: usize,
        buckets: usize,
        kings: usize,
        input_weights: Vec<i16>,
        input_bias: Vec<i16>,
        output_weights: Vec<i16>,
        output_bias: Vec<i32>,
        scale: i32,
    ) -> Result<Network, NetError> {
        if !WIDTHS.contains(&hidden)
            || !(1..=MAX_BUCKETS).contains(&buckets)
            || ![1, KING_BUCKETS].contains(&kings)
        {
            return Err(NetError::Architecture {
                features: FEATURES as u32,
                hidden: hidden as u32,
                activation: ACTIVATION_SCRELU,
                buckets: buckets as u32,
                scheme: BUCKETS_BY_PIECES,
                kings: kings as u32,
            });
        }
        for (what, len, expected) in [
            (
                "input weights",
                input_weights.len(),
                kings * FEATURES * hidden,
            ),
            ("input biases", input_bias.len(), hidden),
            ("output weights", output_weights.len(), buckets * 2 * hidden),
            ("output biases", output_bias.len(), buckets),
        ] {
            if len != expected {
                return Err(NetError::Shape {
                    what,
                    len,
                    expected,
                });
            }
        }
        Ok(Network {
            hidden,
            buckets,
            kings,
            input_weights: AlignedI16::from(&input_weights[..]),
            input_bias,
            output_weights,
            output_bias,
            scale: scale.max(1),
            simd: Simd::detect(),
        })
    }

    pub fn hidden(&self) -> usize {
        self.hidden
    }

    pub fn buckets(&self) -> usize {
        self.buckets
    }

    /// King buckets: 1 (none) or `KING_BUCKETS`.
    pub fn kings(&self) -> usize {
        self.kings
    }

    pub fn scale(&self) -> i32 {
        self.scale
    }

    pub fn input_weights(&self) -> &[i16] {
        &self.input_weights[..]
    }

    pub fn input_bias(&self) -> &[i16] {
        &self.input_bias
    }

    pub fn output_weights(&self) -> &[i16] {
        &self.output_weights
    }

    pub fn output_bias(&self) -> &[i32] {
        &self.output_bias
    }

    /// The arithmetic in use.
    pub fn simd(&self) -> Simd {
        self.simd
    }

    /// The same network on another arithmetic (for tests and benchmarks);
    /// None if this CPU cannot run it.
    pub fn with_simd(mut self, simd: Simd) -> Option<Network> {
        simd.available().then(|| {
            self.simd = simd;
            self
        })
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetError> {
        if bytes.len() < 12 {
            return Err(NetError::Truncated {
                len: bytes.len(),
                expected: HEADER_LEN_V2,
            });
        }
        if &bytes[..8] != MAGIC {
            return Err(NetError::BadMagic);
        }
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
        let version = u32_at(8);
        let header_len = match version {
            1 => HEADER_LEN_V1,
            2 => HEADER_LEN_V2,
            3 => HEADER_LEN_V3,
            v => return Err(NetError::Version(v)),
        };
        if bytes.len() < header_len {
            return Err(NetError::Truncated {
                len: bytes.len(),
                expected: header_len,
            });
        }
        let (features, hidden, activation) = (u32_at(12), u32_at(16), u32_at(20));
        let (buckets, scheme) = match version {
            1 => (1, BUCKETS_BY_PIECES),
            _ => (u32_at(36), u32_at(40)),
        };
        let kings = if version >= 3 { u32_at(44) } else { 1 };
        if features as usize != FEATURES
            || !WIDTHS.contains(&(hidden as usize))
            || (version == 1 && hidden != 256)
            || activation != ACTIVATION_SCRELU
            || !(1..=MAX_BUCKETS as u32).contains(&buckets)
            || scheme != BUCKETS_BY_PIECES
            || ![1, KING_BUCKETS as u32].contains(&kings)
        {
            return Err(NetError::Architecture {
                features,
                hidden,
                activation,
                buckets,
                scheme,
                kings,
            });
        }
        let (hidden, buckets, kings) = (hidden as usize, buckets as usize, kings as usize);
        let (qa, qb) = (u32_at(24), u32_at(28));
        if qa as i32 != QA || qb as i32 != QB {
            return Err(NetError::Quantisation { qa, qb });
        }
        let scale = u32_at(32) as i32;
        let payload = payload_len(hidden, buckets, kings);
        let expected = header_len + payload + 8;
        if bytes.len() != expected || u32_at(header_len - 4) as usize != payload {
            return Err(NetError::Truncated {
                len: bytes.len(),
                expected,
            });
        }
        let body = &bytes[..header_len + payload];
        let sum = u64::from_le_bytes(bytes[header_len + payload..].try_into().unwrap());
        if fnv1a(body) != sum {
            return Err(NetError::Checksum);
        }
        let mut at = header_len;
        let mut take = |n: usize, size: usize| {
            let chunk = &bytes[at..at + size * n];
            at += size * n;
            chunk.chunks_exact(size)
        };
        let input_weights = take(kings * FEATURES * hidden, 2).map(i16_le).collect();
        let input_bias = take(hidden, 2).map(i16_le).collect();
        let output_weights = take(buckets * 2 * hidden, 2).map(i16_le).collect();
        let output_bias = take(buckets, 4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        Network::new(
            hidden,
            buckets,
            kings,
            input_weights,
            input_bias,
            output_weights,
            output_bias,
            scale,
        )
    }

    pub fn load(path: &std::path::Path) -> Result<Network, NetError> {
        // No file of the format is longer than the largest shape's.
        let max = HEADER_LEN_V3 + payload_len(MAX_HIDDEN, MAX_BUCKETS, KING_BUCKETS) + 8;
        let bytes = crate::files::read_capped(path, max as u64)
            .map_err(|e| NetError::Io(format!("{}: {e}", path.display())))?;
        Network::from_bytes(&bytes)
    }

    /// The file: format version 3 with king buckets, 2 without.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.write(if self.kings > 1 { 3 } else { 2 })
    }

    /// The file in format version 1, which only holds 256 hidden units and
    /// one output: None for any other shape.
    pub fn to_v1_bytes(&self) -> Option<Vec<u8>> {
        (self.hidden == 256 && self.buckets == 1 && self.kings == 1).then(|| self.write(1))
    }

    fn write(&self, version: u32) -> Vec<u8> {
        let payload = payload_len(self.hidden, self.buckets, self.kings);
        let mut b = Vec::with_capacity(HEADER_LEN_V3 + payload + 8);
        b.extend_from_slice(MAGIC);
        let mut header = vec![
            version,
            FEATURES as u32,
            self.hidden as u32,
            ACTIVATION_SCRELU,
            QA as u32,
            QB as u32,
            self.scale as u32,
        ];
        if version >= 2 {
            header.extend([self.buckets as u32, BUCKETS_BY_PIECES]);
        }
        if version >= 3 {
            header.push(self.kings as u32);
        }
        header.push(payload as u32);
        for v in header {
            b.extend_from_slice(&v.to_le_bytes());
        }
        for w in self
            .input_weights
            .iter()
            .chain(&self.input_bias)
            .chain(&self.output_weights)
        {
            b.extend_from_slice(&w.to_le_bytes());
        }
        for w in &self.output_bias {
            b.extend_from_slice(&w.to_le_bytes());
        }
        let sum = fnv1a(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        b
    }

    /// Both perspectives' accumulators computed from scratch: Red's in
    /// `acc[..hidden]`, Black's in `acc[hidden..2 * hidden]` (an
    /// `Accumulator`, or any slice at least that long).
    pub fn refresh<A: AsMut<[i16]> + ?Sized>(
        &self,
        pieces: impl Iterator<Item = (Square, Piece)>,
        acc: &mut A,
    ) {
        let board: ArrayVec<(Square, Piece), 90> = pieces.collect();
        let views = views_of(&board, self.kings);
        self.run(Refresh(self, acc.as_mut(), &board, views, [true; 2]));
    }

    /// The output bucket for `pieces` pieces on the board.
    #[inline]
    pub fn output_bucket(&self, pieces: usize) -> usize {
        output_bucket(pieces, self.buckets)
    }

    /// The evaluation in centipawns for `stm` to move with `pieces` pieces
    /// on the board (which choose the output bucket).
    #[inline]
    pub fn evaluate<A: AsRef<[i16]> + ?Sized>(&self, acc: &A, stm: Color, pieces: usize) -> i32 {
        self.run(Evaluate(self, acc.as_ref(), stm, pieces))
    }

    /// Runs a kernel on the network's width and instruction set (the
    /// evaluator runs its whole catch-up and evaluation as one kernel).
    #[inline(always)]
    pub(crate) fn run<K: Kernel>(&self, kernel: K) -> K::Output {
        self.simd.run(self.hidden, kernel)
    }

    /// The accumulators after one move, for kernels (at width `H`,
    /// compiled into the caller): `dst` = `src` with `changes` applied, or,
    /// for the perspective whose king moved (`changes.refresh`), computed
    /// afresh from `board`, the pieces after the move.
    #[inline(always)]
    pub(crate) fn update_at<const H: usize>(
        &self,
        src: &[i16],
        dst: &mut [i16],
        changes: &Changes,
        board: &[(Square, Piece)],
    ) {
        kernels::update::<H>(self, src, dst, changes);
        if let Some(c) = changes.refresh {
            let mut only = [false; 2];
            only[c.index()] = true;
            kernels::refresh::<H>(self, dst, board, changes.views, only);
        }
    }

    /// `evaluate` for kernels: at width `H`, compiled into the caller.
    #[inline(always)]
    pub(crate) fn evaluate_at<const H: usize, const AVX2: bool>(
        &self,
        acc: &[i16],
        stm: Color,
        pieces: usize,
    ) -> i32 {
        let bucket = self.output_bucket(pieces);
        let sum = kernels::output_sum::<H, AVX2>(self, acc, stm, bucket);
        // sum is in units QA*QA*QB; one division by QA brings it to the
        // bias's units QA*QB.
        let out = sum / QA as i64 + self.output_bias[bucket] as i64;
        (out * self.scale as i64 / (QA as i64 * QB as i64)) as i32
    }

    #[inline(always)]
    fn row<const H: usize>(&self, f: usize) -> &[i16; H] {
        self.input_weights[f * H..(f + 1) * H].try_into().unwrap()
    }
}

fn i16_le(c: &[u8]) -> i16 {
    i16::from_le_bytes([c[0], c[1]])
}

/// Σ clamp(x, 0, QA)² · w on the given arithmetic (both compute the same
/// value): `x·w` taken in i16 (exact for the weights the trainer exports,
/// |w| ≤ 127, and wrapping alike on both paths otherwise), then `·x` in
/// i32, summed exactly.
///
/// # Panics
/// If `simd` is not available on this CPU, the slices differ in length or
/// their length is not one of `WIDTHS`.
pub fn screlu_dot(x: &[i16], w: &[i16], simd: Simd) -> i64 {
    assert!(simd.available());
    assert_eq!(x.len(), w.len());
    simd.run(x.len(), Dot(x, w))
}

// The kernels: each a call of the generic arithmetic in `kernels`.

struct Refresh<'a>(
    &'a Network,
    &'a mut [i16],
    &'a [(Square, Piece)],
    [View; 2],
    [bool; 2],
);

impl Kernel for Refresh<'_> {
    type Output = ();
    #[inline(always)]
    fn run<const H: usize, const AVX2: bool>(self) {
        kernels::refresh::<H>(self.0, self.1, self.2, self.3, self.4)
    }
}

struct Evaluate<'a>(&'a Network, &'a [i16], Color, usize);

impl Kernel for Evaluate<'_> {
    type Output = i32;
    #[inline(always)]
    fn run<const H: usize, const AVX2: bool>(self) -> i32 {
        self.0.evaluate_at::<H, AVX2>(self.1, self.2, self.3)
    }
}

/// The dot product alone, for `screlu_dot` (the slices are `H` long:
/// `Simd::run` is only asked for the width of the slices).
struct Dot<'a>(&'a [i16], &'a [i16]);

impl Kernel for Dot<'_> {
    type Output = i64;
    #[inline(always)]
    fn run<const H: usize, const AVX2: bool>(self) -> i64 {
        kernels::screlu_dot::<H, AVX2>(
            self.0[..].try_into().unwrap(),
            self.1[..].try_into().unwrap(),
        )
    }
}

/// The arithmetic, generic over the width `H`; always inlined into the
/// entry points of `portable` and `avx2`. Plain loops over fixed-size
/// arrays, which the compiler turns into vector code of the width the
/// entry point allows (wrapping, as the integer SIMD instructions do; a
/// trained network stays far from the i16 range).
mod kernels {
    use super::{feature, Changes, Color, Network, Piece, Square, View, QA};

    /// Red's and Black's accumulators in `acc`.
    #[inline(always)]
    fn halves<const H: usize>(acc: &[i16]) -> [&[i16; H]; 2] {
        let (a, b) = acc.split_at(H);
        [a.try_into().unwrap(), b[..H].try_into().unwrap()]
    }

    #[inline(always)]
    fn halves_mut<const H: usize>(acc: &mut [i16]) -> [&mut [i16; H]; 2] {
        let (a, b) = acc.split_at_mut(H);
        [a.try_into().unwrap(), (&mut b[..H]).try_into().unwrap()]
    }

    /// The perspectives marked in `which` computed from scratch: the bias
    /// plus the rows of `board`'s features seen through `views`, 64 units
    /// at a time: the running sums of a block stay in vector registers
    /// while the rows stream past, and each unit is stored once.
    #[inline(always)]
    pub fn refresh<const H: usize>(
        net: &Network,
        acc: &mut [i16],
        board: &[(Square, Piece)],
        views: [View; 2],
        which: [bool; 2],
    ) {
        const BLOCK: usize = 64;
        for (c, d) in halves_mut::<H>(acc).into_iter().enumerate() {
            if !which[c] {
                continue;
            }
            let persp = Color::ALL[c];
            let feats: arrayvec::ArrayVec<usize, 90> = board
                .iter()
                .map(|&(sq, p)| views[c].feature(persp, p, sq))
                .collect();
            for k in (0..H / BLOCK).map(|b| b * BLOCK) {
                let mut sums: [i16; BLOCK] = net.input_bias[k..k + BLOCK].try_into().unwrap();
                for &f in &feats {
                    let row: &[i16; BLOCK] = net.row::<H>(f)[k..k + BLOCK].try_into().unwrap();
                    for (x, w) in sums.iter_mut().zip(row) {
                        *x = x.wrapping_add(*w);
                    }
                }
                d[k..k + BLOCK].copy_from_slice(&sums);
            }
        }
    }

    #[inline(always)]
    pub fn update<const H: usize>(net: &Network, src: &[i16], dst: &mut [i16], changes: &Changes) {
        let srcs = halves::<H>(src);
        for (c, (s, d)) in Color::ALL
            .into_iter()
            .zip(srcs.into_iter().zip(halves_mut::<H>(dst)))
        {
            // Without king buckets the features as they always were, with
            // no view to consult (the search's hottest loop).
            if net.kings == 1 {
                apply(s, d, changes, |sq, p| net.row::<H>(feature(c, p, sq)));
            } else if changes.refresh != Some(c) {
                let view = changes.views[c.index()];
                apply(s, d, changes, |sq, p| net.row::<H>(view.feature(c, p, sq)));
            }
        }
    }

    /// `d` = `s` with the rows of `changes`' removed features subtracted
    /// and its added ones added, `row` giving a piece's row.
    #[inline(always)]
    fn apply<'n, const H: usize>(
        s: &[i16; H],
        d: &mut [i16; H],
        changes: &Changes,
        row: impl Fn(Square, Piece) -> &'n [i16; H],
    ) {
        let row = |&(sq, p): &(Square, Piece)| row(sq, p);
        match (changes.removed.as_slice(), changes.added.as_slice()) {
            ([r1], [a1]) => sub_add(s, d, row(r1), row(a1)),
            ([r1, r2], [a1]) => sub_sub_add(s, d, row(r1), row(r2), row(a1)),
            (rs, adds) => {
                d.copy_from_slice(s);
                for r in rs {
                    sub(d, row(r));
                }
                for a in adds {
                    add(d, row(a));
                }
            }
        }
    }

    #[inline(always)]
    pub fn output_sum<const H: usize, const AVX2: bool>(
        net: &Network,
        acc: &[i16],
        stm: Color,
        bucket: usize,
    ) -> i64 {
        let [red, black] = halves::<H>(acc);
        let (us, them) = match stm {
            Color::Red => (red, black),
            Color::Black => (black, red),
        };
        let w = &net.output_weights[bucket * 2 * H..(bucket + 1) * 2 * H];
        let (w_us, w_them) = w.split_at(H);
        screlu_dot::<H, AVX2>(us, w_us.try_into().unwrap())
            + screlu_dot::<H, AVX2>(them, w_them.try_into().unwrap())
    }

    #[inline(always)]
    fn add<const H: usize>(d: &mut [i16; H], w: &[i16; H]) {
        for (x, y) in d.iter_mut().zip(w) {
            *x = x.wrapping_add(*y);
        }
    }

    #[inline(always)]
    fn sub<const H: usize>(d: &mut [i16; H], w: &[i16; H]) {
        for (x, y) in d.iter_mut().zip(w) {
            *x = x.wrapping_sub(*y);
        }
    }

    #[inline(always)]
    fn sub_add<const H: usize>(s: &[i16; H], d: &mut [i16; H], r: &[i16; H], a: &[i16; H]) {
        for i in 0..H {
            d[i] = s[i].wrapping_sub(r[i]).wrapping_add(a[i]);
        }
    }

    /// A capture: the moved piece's old square and the captured piece off,
    /// the moved piece's new square on, in one pass.
    #[inline(always)]
    fn sub_sub_add<const H: usize>(
        s: &[i16; H],
        d: &mut [i16; H],
        r1: &[i16; H],
        r2: &[i16; H],
        a: &[i16; H],
    ) {
        for i in 0..H {
            d[i] = s[i]
                .wrapping_sub(r1[i])
                .wrapping_sub(r2[i])
                .wrapping_add(a[i]);
        }
    }

    /// See `super::screlu_dot`: with AVX2 (only true in the instance
    /// compiled with it) the intrinsics below, otherwise the plain loop.
    #[inline(always)]
    pub fn screlu_dot<const H: usize, const AVX2: bool>(x: &[i16; H], w: &[i16; H]) -> i64 {
        #[cfg(target_arch = "x86_64")]
        if AVX2 {
            // SAFETY: AVX2 is only true in `Simd::run`'s AVX2 instance.
            return unsafe { screlu_dot_avx2(x, w) };
        }
        screlu_dot_plain(x, w)
    }

    /// Summed in i32 over blocks of 256 (a block cannot overflow: 256 ·
    /// 255 · 32768 < 2³¹), the blocks in i64.
    #[inline(always)]
    fn screlu_dot_plain<const H: usize>(x: &[i16; H], w: &[i16; H]) -> i64 {
        const BLOCK: usize = 256;
        let mut sum = 0i64;
        for b in 0..H / BLOCK {
            let xs: &[i16; BLOCK] = x[b * BLOCK..(b + 1) * BLOCK].try_into().unwrap();
            let ws: &[i16; BLOCK] = w[b * BLOCK..(b + 1) * BLOCK].try_into().unwrap();
            let mut s = 0i32;
            for (xi, wi) in xs.iter().zip(ws) {
                let v = (*xi).clamp(0, QA as i16);
                s = s.wrapping_add((v.wrapping_mul(*wi) as i32) * v as i32);
            }
            sum += s as i64;
        }
        sum
    }

    /// `screlu_dot` written with AVX2 intrinsics: the compiler does not
    /// find this shape (`pmullw`, then `pmaddwd` of the product with the
    /// activation, 16 units a step) from the loop above. The same value: a
    /// 32-bit lane sums H/8 products (< 2³¹ for H ≤ 1024), the lanes are
    /// added in i64.
    ///
    /// # Safety
    /// Only for code compiled with AVX2 enabled (the AVX2 instance of a
    /// `Kernel`), into which it is inlined: the intrinsics are then plain
    /// instructions.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn screlu_dot_avx2<const H: usize>(x: &[i16; H], w: &[i16; H]) -> i64 {
        use std::arch::x86_64::*;
        let zero = _mm256_setzero_si256();
        let qa = _mm256_set1_epi16(QA as i16);
        let mut acc = _mm256_setzero_si256();
        for i in (0..H).step_by(16) {
            // SAFETY: i + 16 <= H; unaligned loads.
            let (xv, wv) = unsafe {
                (
                    _mm256_loadu_si256(x.as_ptr().add(i) as *const __m256i),
                    _mm256_loadu_si256(w.as_ptr().add(i) as *const __m256i),
                )
            };
            let c = _mm256_min_epi16(_mm256_max_epi16(xv, zero), qa);
            let cw = _mm256_mullo_epi16(c, wv);
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(cw, c));
        }
        let mut lanes = [0i32; 8];
        // SAFETY: 8 i32 make 32 bytes; unaligned store.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, acc) };
        lanes.iter().map(|&l| l as i64).sum()
    }
}

/// The features one move removes and adds (a moved piece, a captured one),
/// and how each perspective sees the board after it.
#[derive(Clone, Debug, Default)]
pub struct Changes {
    pub removed: arrayvec::ArrayVec<(Square, Piece), 2>,
    pub added: arrayvec::ArrayVec<(Square, Piece), 1>,
    /// Red's and Black's views after the move (king buckets).
    pub views: [View; 2],
    /// The side whose king moved into another bucket: its accumulator is
    /// computed afresh instead of updated.
    pub refresh: Option<Color>,
}

/// The accumulators of both perspectives, sized for the widest network:
/// a network of `hidden` units keeps Red's in `v[..hidden]` and Black's in
/// `v[hidden..2 * hidden]`, and touches nothing beyond. For one-off
/// evaluations; the search's `Evaluator` keeps its accumulators sized to
/// its network.
#[derive(Clone)]
#[repr(C, align(64))]
pub struct Accumulator {
    pub v: [i16; 2 * MAX_HIDDEN],
}

impl AsRef<[i16]> for Accumulator {
    fn as_ref(&self) -> &[i16] {
        &self.v
    }
}

impl AsMut<[i16]> for Accumulator {
    fn as_mut(&mut self) -> &mut [i16] {
        &mut self.v
    }
}

impl Default for Accumulator {
    fn default() -> Self {
        Accumulator {
            v: [0; 2 * MAX_HIDDEN],
        }
    }
}
