//! The float network the trainer optimises, its forward and backward pass,
//! and its export to the engine's integer network.
//!
//! The pass over a slice of records is a `simd::Kernel`, generic over the
//! hidden width like the engine's arithmetic and run through the same
//! dispatcher: compiled portable and with AVX2, the instance chosen once
//! per configuration (`TrainConfig::simd`). Both instances do the same
//! float operations in the same order (nothing is reassociated or fused),
//! so they give the same results bit for bit; AVX2 only does eight at a
//! time instead of four.

use super::data::Record;
use super::TrainConfig;
use chuhe_core::nnue::net::{
    output_bucket, views_of, Network, FEATURES, KING_BUCKETS, MAX_BUCKETS, QA, QB, WIDTHS,
};
use chuhe_core::nnue::simd::Kernel;
use chuhe_core::rng::SplitMix64;
use std::fmt;

/// The largest weight the export keeps exact: output weights are i16 with
/// |w·QB| ≤ 127 so that the inference's i16 product cannot overflow.
pub const WEIGHT_CLIP: f32 = 127.0 / QB as f32;

/// The shape of a network: hidden units per perspective, output buckets
/// and king buckets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub hidden: usize,
    pub buckets: usize,
    /// King buckets: 1 (none) or `KING_BUCKETS`.
    pub kings: usize,
}

/// A shape the engine does not run: which dimension, and the value asked
/// for (so a caller can name the flag or the checkpoint field at fault).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// A hidden width not in `WIDTHS`.
    Hidden(usize),
    /// Output buckets outside 1..=`MAX_BUCKETS`.
    Buckets(usize),
    /// King buckets other than 1 or `KING_BUCKETS`.
    Kings(usize),
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LayoutError::Hidden(hidden) => {
                write!(f, "hidden width {hidden}: the engine runs {WIDTHS:?}")
            }
            LayoutError::Buckets(buckets) => {
                write!(
                    f,
                    "{buckets} output buckets: the engine runs 1 to {MAX_BUCKETS}"
                )
            }
            LayoutError::Kings(kings) => write!(
                f,
                "{kings} king buckets: the engine runs 1 (none) or {KING_BUCKETS}"
            ),
        }
    }
}

impl std::error::Error for LayoutError {}

impl Layout {
    /// The shape of chuhe-1 and chuhe-2, the default.
    pub const SHIPPED: Layout = Layout {
        hidden: 256,
        buckets: 1,
        kings: 1,
    };

    /// A shape the engine runs, or why not.
    pub fn new(hidden: usize, buckets: usize) -> Result<Layout, LayoutError> {
        if !WIDTHS.contains(&hidden) {
            return Err(LayoutError::Hidden(hidden));
        }
        if !(1..=MAX_BUCKETS).contains(&buckets) {
            return Err(LayoutError::Buckets(buckets));
        }
        Ok(Layout {
            hidden,
            buckets,
            kings: 1,
        })
    }

    /// The same shape with `kings` king buckets (1 or `KING_BUCKETS`).
    pub fn with_kings(self, kings: usize) -> Result<Layout, LayoutError> {
        if ![1, KING_BUCKETS].contains(&kings) {
            return Err(LayoutError::Kings(kings));
        }
        Ok(Layout { kings, ..self })
    }

    /// Rows of input weights the trainer keeps: one block of `FEATURES`
    /// per king bucket and, with king buckets, one more block that every
    /// bucket shares (a factoriser: every position trains it, so a bucket
    /// seen in few positions still starts from what the others learnt;
    /// the export adds it into each bucket's block).
    pub fn input_rows(self) -> usize {
        if self.kings > 1 {
            (self.kings + 1) * FEATURES
        } else {
            FEATURES
        }
    }

    /// Where the input biases start in the flat parameter vector (after
    /// the input weights `[input_rows][hidden]`).
    pub fn b1(self) -> usize {
        self.input_rows() * self.hidden
    }

    /// Where the output weights `[buckets][2 * hidden]` start.
    pub fn w2(self) -> usize {
        self.b1() + self.hidden
    }

    /// Where the output biases `[buckets]` start.
    pub fn b2(self) -> usize {
        self.w2() + self.buckets * 2 * self.hidden
    }

    /// The number of parameters.
    pub fn params(self) -> usize {
        self.b2() + self.buckets
    }

    /// Whether the parameter at `i` is a weight (decayed) rather than a bias.
    pub fn is_weight(self, i: usize) -> bool {
        i < self.b1() || (self.w2()..self.b2()).contains(&i)
    }
}

impl std::fmt::Display for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} hidden, {} output bucket{}",
            self.hidden,
            self.buckets,
            if self.buckets == 1 { "" } else { "s" }
        )?;
        if self.kings > 1 {
            write!(f, ", {} king buckets", self.kings)?;
        }
        Ok(())
    }
}

/// Float parameters in one flat vector, in the file format's order: input
/// weights `[input_rows][hidden]` (with king buckets the shared block
/// last), input biases, output weights
/// `[buckets][2 * hidden]` (side to move's half first), output biases.
#[derive(Clone)]
pub struct FloatNet {
    pub layout: Layout,
    pub p: Vec<f32>,
}

impl FloatNet {
    pub fn random(layout: Layout, seed: u64) -> FloatNet {
        let mut rng = SplitMix64::new(seed);
        let mut uniform =
            |a: f32| ((rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * a;
        let mut p = vec![0f32; layout.params()];
        let (b1, w2, b2) = (layout.b1(), layout.w2(), layout.b2());
        // About 32 active inputs per perspective: small input weights keep
        // the accumulator inside the SCReLU's live range at the start. With
        // king buckets the buckets' own blocks start at zero, so that each
        // input's weight starts as the shared block's alone.
        let own = if layout.kings > 1 {
            layout.kings * FEATURES * layout.hidden
        } else {
            0
        };
        for w in &mut p[own..b1] {
            *w = uniform(0.1);
        }
        for w in &mut p[b1..w2] {
            *w = 0.1 + uniform(0.05);
        }
        // The output sums 2 * hidden terms: the same spread of outputs at
        // every width (at 256, the original ±0.1).
        let a = 0.1 * (256.0 / layout.hidden as f32).sqrt();
        for w in &mut p[w2..b2] {
            *w = uniform(a);
        }
        FloatNet { layout, p }
    }

    /// The integer network the engine runs.
    pub fn quantise(&self, scale: f32) -> Network {
        let q = |x: f32, m: i32| {
            (x * m as f32)
                .round()
                .clamp(i16::MIN as f32, i16::MAX as f32) as i16
        };
        let l = self.layout;
        let (b1, w2, b2) = (l.b1(), l.w2(), l.b2());
        // With king buckets each bucket's block plus the shared one.
        let block = FEATURES * l.hidden;
        let input: Vec<i16> = if l.kings > 1 {
            let shared = &self.p[l.kings * block..b1];
            self.p[..l.kings * block]
                .chunks_exact(block)
                .flat_map(|own| own.iter().zip(shared).map(|(&a, &b)| q(a + b, QA)))
                .collect()
        } else {
            self.p[..b1].iter().map(|&x| q(x, QA)).collect()
        };
        Network::new(
            l.hidden,
            l.buckets,
            l.kings,
            input,
            self.p[b1..w2].iter().map(|&x| q(x, QA)).collect(),
            self.p[w2..b2]
                .iter()
                .map(|&x| q(x.clamp(-WEIGHT_CLIP, WEIGHT_CLIP), QB))
                .collect(),
            self.p[b2..]
                .iter()
                .map(|&x| (x * (QA * QB) as f32).round() as i32)
                .collect(),
            scale.round() as i32,
        )
        .expect("a Layout is a shape the engine runs")
    }
}

/// The most input rows one perspective of a position touches: 32 pieces,
/// each twice with king buckets (its bucket's row and the shared one).
pub const MAX_ACTIVE: usize = 64;

/// Input rows of both perspectives, side to move first, and how many each
/// has; `mirror` flips the board left-right (xiangqi is symmetric, so this
/// doubles the data).
pub fn features(r: &Record, mirror: bool, layout: Layout) -> ([[u16; MAX_ACTIVE]; 2], usize) {
    let mut f = [[0u16; MAX_ACTIVE]; 2];
    let persp = [r.side, r.side.flip()];
    let board: arrayvec::ArrayVec<_, 32> = r
        .pieces()
        .map(|(sq, p)| (if mirror { sq.flip_file() } else { sq }, p))
        .collect();
    let views = views_of(&board, layout.kings);
    let shared = layout.kings * FEATURES;
    let mut n = 0;
    for &(sq, p) in &board {
        for (k, &c) in persp.iter().enumerate() {
            let v = views[c.index()];
            let own = v.feature(c, p, sq);
            f[k][n] = own as u16;
            if layout.kings > 1 {
                // The shared block reads the board as the bucket does.
                f[k][n + 1] = (shared + own - v.bucket() * FEATURES) as u16;
            }
        }
        n += if layout.kings > 1 { 2 } else { 1 };
    }
    (f, n)
}

pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

fn target(r: &Record, cfg: &TrainConfig) -> f32 {
    let s = sigmoid(r.score as f32 / cfg.scale);
    cfg.wdl * r.result.as_f32() + (1.0 - cfg.wdl) * s
}

/// Sum of the losses over `records` and, if `grad` is given, the gradient
/// added to it (`mirror_seed`: mirror each record with probability 1/2,
/// seeded).
pub fn batch_pass(
    net: &FloatNet,
    records: &[Record],
    cfg: &TrainConfig,
    mirror_seed: Option<u64>,
    grad: Option<&mut [f32]>,
) -> f64 {
    cfg.simd.run(
        net.layout.hidden,
        Pass {
            net,
            records,
            cfg,
            mirror_seed,
            grad,
        },
    )
}

/// The network's output (units of `scale`) for one record.
pub fn forward(net: &FloatNet, r: &Record) -> f32 {
    struct One<'a>(&'a FloatNet, &'a Record);
    impl Kernel for One<'_> {
        type Output = f32;
        #[inline(always)]
        fn run<const H: usize, const AVX2: bool>(self) -> f32 {
            let (feats, n) = features(self.1, false, self.0.layout);
            let mut acc = [[0f32; H]; 2];
            forward_at::<H>(self.0, &feats, n, self.1.count as usize, &mut acc)
        }
    }
    chuhe_core::nnue::simd::Simd::Portable.run(net.layout.hidden, One(net, r))
}

struct Pass<'a> {
    net: &'a FloatNet,
    records: &'a [Record],
    cfg: &'a TrainConfig,
    mirror_seed: Option<u64>,
    grad: Option<&'a mut [f32]>,
}

impl Kernel for Pass<'_> {
    type Output = f64;

    #[inline(always)]
    fn run<const H: usize, const AVX2: bool>(self) -> f64 {
        let Pass {
            net,
            records,
            cfg,
            mirror_seed,
            mut grad,
        } = self;
        let l = net.layout;
        let mut acc = [[0f32; H]; 2];
        let mut dacc = [0f32; H];
        let mut loss = 0f64;
        for (i, r) in records.iter().enumerate() {
            let mirror = mirror_seed.is_some_and(|s| {
                (s.wrapping_add(i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 63) == 1
            });
            let (feats, n) = features(r, mirror, l);
            let pieces = r.count as usize;
            let out = forward_at::<H>(net, &feats, n, pieces, &mut acc);
            let pred = sigmoid(out);
            let err = pred - target(r, cfg);
            loss += (err * err) as f64;
            let Some(g) = grad.as_deref_mut() else {
                continue;
            };
            let dout = 2.0 * err * pred * (1.0 - pred);
            let bucket = output_bucket(pieces, l.buckets);
            g[l.b2() + bucket] += dout;
            for (side, a) in acc.iter().enumerate() {
                let at = l.w2() + bucket * 2 * H + side * H;
                let w2: &[f32; H] = net.p[at..at + H].try_into().unwrap();
                let g2: &mut [f32; H] = (&mut g[at..at + H]).try_into().unwrap();
                for h in 0..H {
                    let x = a[h];
                    let c = x.clamp(0.0, 1.0);
                    g2[h] += dout * c * c;
                    dacc[h] = if x > 0.0 && x < 1.0 {
                        dout * w2[h] * 2.0 * x
                    } else {
                        0.0
                    };
                }
                add_row(&mut g[l.b1()..l.w2()], &dacc);
                for &f in &feats[side][..n] {
                    add_row(&mut g[f as usize * H..(f as usize + 1) * H], &dacc);
                }
            }
        }
        loss
    }
}

#[inline(always)]
fn add_row<const H: usize>(row: &mut [f32], d: &[f32; H]) {
    let row: &mut [f32; H] = row.try_into().unwrap();
    for (x, y) in row.iter_mut().zip(d) {
        *x += y;
    }
}

/// The output (units of `scale`) of a record with `pieces` pieces whose
/// features are `feats`, the pre-activation accumulators of both
/// perspectives written to `acc`.
#[inline(always)]
fn forward_at<const H: usize>(
    net: &FloatNet,
    feats: &[[u16; MAX_ACTIVE]; 2],
    n: usize,
    pieces: usize,
    acc: &mut [[f32; H]; 2],
) -> f32 {
    let l = net.layout;
    let bucket = output_bucket(pieces, l.buckets);
    let mut out = net.p[l.b2() + bucket];
    let bias: &[f32; H] = net.p[l.b1()..l.w2()].try_into().unwrap();
    for (side, a) in acc.iter_mut().enumerate() {
        accumulate(a, bias, &net.p, &feats[side][..n]);
        let at = l.w2() + bucket * 2 * H + side * H;
        out += screlu_dot(a, net.p[at..at + H].try_into().unwrap());
    }
    out
}

/// `acc` = `bias` + the rows of `feats`, each unit summed in that order.
/// Row by row: summing a block of units over all the rows first would keep
/// the sums in registers, but at 1024 units the rows are 4 KB apart, so a
/// block's lines in ~30 rows all fall in one set of the L1 cache and evict
/// each other (measured: 3x slower epochs at 1024).
#[inline(always)]
fn accumulate<const H: usize>(acc: &mut [f32; H], bias: &[f32; H], p: &[f32], feats: &[u16]) {
    acc.copy_from_slice(bias);
    for &f in feats {
        let row: &[f32; H] = p[f as usize * H..(f as usize + 1) * H].try_into().unwrap();
        for (s, w) in acc.iter_mut().zip(row) {
            *s += w;
        }
    }
}

/// Σ clamp(x, 0, 1)² · w in 16 partial sums (a single running sum would be
/// one long chain of dependent additions, which no compiler may reorder).
#[inline(always)]
fn screlu_dot<const H: usize>(x: &[f32; H], w: &[f32; H]) -> f32 {
    const LANES: usize = 16;
    let mut s = [0f32; LANES];
    for k in (0..H / LANES).map(|b| b * LANES) {
        for j in 0..LANES {
            let c = x[k + j].clamp(0.0, 1.0);
            s[j] += c * c * w[k + j];
        }
    }
    s.iter().sum()
}
