//! The quantised network the engine runs, its file format and its
//! accumulator arithmetic.
//!
//! Architecture: `FEATURES` sparse inputs per perspective (a piece of a
//! colour relative to the perspective, of one of 7 kinds, on one of 90
//! squares, Black's view rank-mirrored so one weight set serves both sides),
//! an accumulator of `HIDDEN` i16 units per perspective, squared clipped ReLU
//! (SCReLU) on both, and one output from the concatenation (side to move
//! first).
//!
//! File format (all little-endian):
//! - header, 40 bytes: magic `CHUHENN\0`, format version (u32), feature
//!   count (u32), hidden size (u32), activation (u32, 1 = SCReLU), QA (u32),
//!   QB (u32), eval scale (u32, centipawns per unit of network output),
//!   payload length in bytes (u32);
//! - payload: input weights i16 `[FEATURES][HIDDEN]`, input biases i16
//!   `[HIDDEN]`, output weights i16 `[2 * HIDDEN]`, output bias i32;
//! - FNV-1a 64 checksum (u64) of the header and payload.

use crate::board::{Color, Piece, Square};
use std::fmt;

pub const FEATURES: usize = 2 * 7 * 90;
pub const HIDDEN: usize = 256;
pub const QA: i32 = 255;
pub const QB: i32 = 64;
pub const FORMAT_VERSION: u32 = 1;
pub const ACTIVATION_SCRELU: u32 = 1;
const MAGIC: &[u8; 8] = b"CHUHENN\0";
const HEADER_LEN: usize = 40;
const PAYLOAD_LEN: usize = (FEATURES * HIDDEN + HIDDEN + 2 * HIDDEN) * 2 + 4;

/// The input feature of `piece` on `sq` seen from `persp`'s side.
#[inline]
pub fn feature(persp: Color, piece: Piece, sq: Square) -> usize {
    let (rel_color, rel_sq) = match persp {
        Color::Red => (piece.color().index(), sq.index()),
        Color::Black => (piece.color().flip().index(), sq.flip_rank().index()),
    };
    (rel_color * 7 + piece.kind().index()) * 90 + rel_sq
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
    },
    Quantisation {
        qa: u32,
        qb: u32,
    },
    Checksum,
    Io(String),
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetError::Truncated { len, expected } => {
                write!(
                    f,
                    "network file truncated: {len} bytes, expected {expected}"
                )
            }
            NetError::BadMagic => write!(f, "not a Chuhe network file (bad magic)"),
            NetError::Version(v) => write!(
                f,
                "network format version {v}, this build reads {FORMAT_VERSION}"
            ),
            NetError::Architecture {
                features,
                hidden,
                activation,
            } => write!(
                f,
                "network architecture {features}x{hidden} (activation {activation}), \
                 this build runs {FEATURES}x{HIDDEN} (activation {ACTIVATION_SCRELU})"
            ),
            NetError::Quantisation { qa, qb } => write!(
                f,
                "network quantised with QA={qa} QB={qb}, this build expects QA={QA} QB={QB}"
            ),
            NetError::Checksum => write!(f, "network checksum mismatch (damaged file)"),
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
pub struct Network {
    /// `[FEATURES][HIDDEN]`, row per feature.
    pub input_weights: Vec<i16>,
    pub input_bias: Vec<i16>,
    /// Side-to-move half first, then the opponent's.
    pub output_weights: Vec<i16>,
    pub output_bias: i32,
    /// Centipawns per unit of output.
    pub scale: i32,
}

impl fmt::Debug for Network {
    // The weights are too many to print: the shape and a fingerprint.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Network({FEATURES}x{HIDDEN}, scale {}, checksum {:016x})",
            self.scale,
            fnv1a(&self.to_bytes())
        )
    }
}

impl Network {
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetError> {
        let expected = HEADER_LEN + PAYLOAD_LEN + 8;
        if bytes.len() < HEADER_LEN {
            return Err(NetError::Truncated {
                len: bytes.len(),
                expected,
            });
        }
        if &bytes[..8] != MAGIC {
            return Err(NetError::BadMagic);
        }
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
        let version = u32_at(8);
        if version != FORMAT_VERSION {
            return Err(NetError::Version(version));
        }
        let (features, hidden, activation) = (u32_at(12), u32_at(16), u32_at(20));
        if features as usize != FEATURES
            || hidden as usize != HIDDEN
            || activation != ACTIVATION_SCRELU
        {
            return Err(NetError::Architecture {
                features,
                hidden,
                activation,
            });
        }
        let (qa, qb) = (u32_at(24), u32_at(28));
        if qa as i32 != QA || qb as i32 != QB {
            return Err(NetError::Quantisation { qa, qb });
        }
        let scale = u32_at(32) as i32;
        if bytes.len() != expected || u32_at(36) as usize != PAYLOAD_LEN {
            return Err(NetError::Truncated {
                len: bytes.len(),
                expected,
            });
        }
        let body = &bytes[..HEADER_LEN + PAYLOAD_LEN];
        let sum = u64::from_le_bytes(bytes[HEADER_LEN + PAYLOAD_LEN..].try_into().unwrap());
        if fnv1a(body) != sum {
            return Err(NetError::Checksum);
        }
        let mut at = HEADER_LEN;
        let mut take = |n: usize| {
            let v: Vec<i16> = bytes[at..at + 2 * n]
                .chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]]))
                .collect();
            at += 2 * n;
            v
        };
        let input_weights = take(FEATURES * HIDDEN);
        let input_bias = take(HIDDEN);
        let output_weights = take(2 * HIDDEN);
        let output_bias = i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        Ok(Network {
            input_weights,
            input_bias,
            output_weights,
            output_bias,
            scale: scale.max(1),
        })
    }

    pub fn load(path: &std::path::Path) -> Result<Network, NetError> {
        let bytes =
            std::fs::read(path).map_err(|e| NetError::Io(format!("{}: {e}", path.display())))?;
        Network::from_bytes(&bytes)
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(HEADER_LEN + PAYLOAD_LEN + 8);
        b.extend_from_slice(MAGIC);
        for v in [
            FORMAT_VERSION,
            FEATURES as u32,
            HIDDEN as u32,
            ACTIVATION_SCRELU,
            QA as u32,
            QB as u32,
            self.scale as u32,
            PAYLOAD_LEN as u32,
        ] {
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
        b.extend_from_slice(&self.output_bias.to_le_bytes());
        let sum = fnv1a(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        b
    }

    #[inline]
    fn row(&self, f: usize) -> &[i16; HIDDEN] {
        self.input_weights[f * HIDDEN..(f + 1) * HIDDEN]
            .try_into()
            .unwrap()
    }

    /// Both perspectives' accumulators computed from scratch.
    pub fn refresh(&self, pieces: impl Iterator<Item = (Square, Piece)>, acc: &mut Accumulator) {
        for c in Color::ALL {
            acc.v[c.index()].copy_from_slice(&self.input_bias);
        }
        for (sq, p) in pieces {
            for c in Color::ALL {
                add(&mut acc.v[c.index()], self.row(feature(c, p, sq)));
            }
        }
    }

    /// `dst` = `src` with the changes of one move applied.
    pub fn update(&self, src: &Accumulator, dst: &mut Accumulator, changes: &Changes) {
        for c in Color::ALL {
            let i = c.index();
            let (s, d) = (&src.v[i], &mut dst.v[i]);
            let f = |(sq, p): (Square, Piece)| feature(c, p, sq);
            match (changes.removed.as_slice(), changes.added.as_slice()) {
                ([r1], [a1]) => sub_add(s, d, self.row(f(*r1)), self.row(f(*a1))),
                ([r1, r2], [a1]) => {
                    sub_add(s, d, self.row(f(*r1)), self.row(f(*a1)));
                    sub(d, self.row(f(*r2)));
                }
                (rs, adds) => {
                    d.copy_from_slice(s);
                    for &r in rs {
                        sub(d, self.row(f(r)));
                    }
                    for &a in adds {
                        add(d, self.row(f(a)));
                    }
                }
            }
        }
    }

    /// The evaluation in centipawns for `stm` to move.
    #[inline]
    pub fn evaluate(&self, acc: &Accumulator, stm: Color) -> i32 {
        let (us, them) = (&acc.v[stm.index()], &acc.v[stm.flip().index()]);
        let (w_us, w_them) = self.output_weights.split_at(HIDDEN);
        let sum =
            screlu_dot(us, w_us.try_into().unwrap()) + screlu_dot(them, w_them.try_into().unwrap());
        // sum is in units QA*QA*QB; one division by QA brings it to the
        // bias's units QA*QB.
        let out = sum / QA as i64 + self.output_bias as i64;
        (out * self.scale as i64 / (QA as i64 * QB as i64)) as i32
    }
}

/// The features one move removes and adds (a moved piece, a captured one).
#[derive(Clone, Debug, Default)]
pub struct Changes {
    pub removed: arrayvec::ArrayVec<(Square, Piece), 2>,
    pub added: arrayvec::ArrayVec<(Square, Piece), 1>,
}

/// One accumulator per perspective, indexed by `Color::index`.
#[derive(Clone)]
#[repr(C, align(64))]
pub struct Accumulator {
    pub v: [[i16; HIDDEN]; 2],
}

impl Default for Accumulator {
    fn default() -> Self {
        Accumulator {
            v: [[0; HIDDEN]; 2],
        }
    }
}

// The accumulator arithmetic is plain loops over fixed-size arrays, which
// the compiler turns into vector code on every target (wrapping, as the
// integer SIMD instructions do; a trained network stays far from the
// i16 range).
#[inline]
fn add(d: &mut [i16; HIDDEN], w: &[i16; HIDDEN]) {
    for (x, y) in d.iter_mut().zip(w) {
        *x = x.wrapping_add(*y);
    }
}

#[inline]
fn sub(d: &mut [i16; HIDDEN], w: &[i16; HIDDEN]) {
    for (x, y) in d.iter_mut().zip(w) {
        *x = x.wrapping_sub(*y);
    }
}

#[inline]
fn sub_add(s: &[i16; HIDDEN], d: &mut [i16; HIDDEN], r: &[i16; HIDDEN], a: &[i16; HIDDEN]) {
    for i in 0..HIDDEN {
        d[i] = s[i].wrapping_sub(r[i]).wrapping_add(a[i]);
    }
}

/// Σ clamp(x, 0, QA)² · w, exactly, on the best path the CPU has.
#[inline]
pub fn screlu_dot(x: &[i16; HIDDEN], w: &[i16; HIDDEN]) -> i64 {
    #[cfg(target_arch = "x86_64")]
    {
        if avx2_available() {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { screlu_dot_avx2(x, w) };
        }
    }
    screlu_dot_portable(x, w)
}

#[cfg(target_arch = "x86_64")]
#[inline]
fn avx2_available() -> bool {
    use std::sync::atomic::{AtomicU8, Ordering};
    // 0 unknown, 1 no, 2 yes: the feature test is cached, it sits on the
    // evaluation's path.
    static AVX2: AtomicU8 = AtomicU8::new(0);
    match AVX2.load(Ordering::Relaxed) {
        0 => {
            let yes = std::is_x86_feature_detected!("avx2");
            AVX2.store(if yes { 2 } else { 1 }, Ordering::Relaxed);
            yes
        }
        v => v == 2,
    }
}

/// The reference arithmetic, the same products as the vector path: `x·w`
/// taken in i16 (exact for the weights the trainer exports, |w| ≤ 127, and
/// wrapping alike on both paths otherwise), then `·x` in i32.
pub fn screlu_dot_portable(x: &[i16; HIDDEN], w: &[i16; HIDDEN]) -> i64 {
    let mut sum = 0i32;
    for (xi, wi) in x.iter().zip(w) {
        let v = (*xi).clamp(0, QA as i16);
        sum = sum.wrapping_add((v.wrapping_mul(*wi) as i32).wrapping_mul(v as i32));
    }
    sum as i64
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn screlu_dot_avx2(x: &[i16; HIDDEN], w: &[i16; HIDDEN]) -> i64 {
    use std::arch::x86_64::*;
    let zero = _mm256_setzero_si256();
    let qa = _mm256_set1_epi16(QA as i16);
    let mut acc = _mm256_setzero_si256();
    for i in (0..HIDDEN).step_by(16) {
        // SAFETY: i + 16 <= HIDDEN; unaligned loads.
        let xv = _mm256_loadu_si256(x.as_ptr().add(i) as *const __m256i);
        let wv = _mm256_loadu_si256(w.as_ptr().add(i) as *const __m256i);
        let c = _mm256_min_epi16(_mm256_max_epi16(xv, zero), qa);
        let cw = _mm256_mullo_epi16(c, wv);
        acc = _mm256_add_epi32(acc, _mm256_madd_epi16(cw, c));
    }
    let mut lanes = [0i32; 8];
    _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, acc);
    lanes.iter().fold(0i32, |a, &l| a.wrapping_add(l)) as i64
}
