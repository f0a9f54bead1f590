//! `chuhe train`: trains the network on `chuhe datagen` records.
//!
//! Float training of the architecture in `net` (sparse inputs → HIDDEN ×2
//! perspectives → SCReLU → 1), then export with integer weights. The loss is
//! the squared error between sigmoid(output) and a blend of the game result
//! and sigmoid(score / scale); the network's output times `scale` is its
//! evaluation in centipawns. Mini-batch AdamW, the batch split over threads
//! with rayon; the input layer's gradient only touches the rows of the
//! features present (about 32 of 1260 per perspective), never a dense
//! multiply. Weights are clipped to what the integer format can hold.

pub mod data;

use chuhe_core::nnue::net::{feature, Network, FEATURES, QA, QB};

const HIDDEN: usize = 256;
use data::Record;

use chuhe_core::rng::SplitMix64;
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The largest weight the export keeps exact: output weights are i16 with
/// |w·QB| ≤ 127 so that the inference's i16 product cannot overflow.
const WEIGHT_CLIP: f32 = 127.0 / QB as f32;

#[derive(Clone, Debug)]
pub struct TrainConfig {
    pub epochs: usize,
    pub batch: usize,
    pub lr: f32,
    /// The learning rate is multiplied by this after each epoch.
    pub lr_decay: f32,
    pub weight_decay: f32,
    /// Weight of the game result in the target (0: score only, 1: result only).
    pub wdl: f32,
    /// Centipawns per unit of network output (and of the score's sigmoid).
    pub scale: f32,
    pub val_fraction: f64,
    pub seed: u64,
    pub checkpoint: Option<PathBuf>,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            epochs: 20,
            batch: 16384,
            lr: 0.001,
            lr_decay: 0.92,
            weight_decay: 0.01,
            wdl: 0.3,
            scale: 300.0,
            val_fraction: 0.05,
            seed: 1,
            checkpoint: None,
        }
    }
}

const N_PARAMS: usize = FEATURES * HIDDEN + HIDDEN + 2 * HIDDEN + 1;
const B1: usize = FEATURES * HIDDEN;
const W2: usize = B1 + HIDDEN;
const B2: usize = W2 + 2 * HIDDEN;

/// Float parameters in one flat vector: input weights `[FEATURES][HIDDEN]`,
/// input bias, output weights (side to move's half first), output bias.
#[derive(Clone)]
pub struct FloatNet {
    pub p: Vec<f32>,
}

impl FloatNet {
    pub fn random(seed: u64) -> FloatNet {
        let mut rng = SplitMix64::new(seed);
        let mut uniform =
            |a: f32| ((rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * a;
        let mut p = vec![0f32; N_PARAMS];
        // About 32 active inputs per perspective: small input weights keep
        // the accumulator inside the SCReLU's live range at the start.
        for w in &mut p[..B1] {
            *w = uniform(0.1);
        }
        for w in &mut p[B1..W2] {
            *w = 0.1 + uniform(0.05);
        }
        for w in &mut p[W2..B2] {
            *w = uniform(0.1);
        }
        FloatNet { p }
    }

    /// The network's output (units of `scale`) for one record, with the
    /// accumulators (pre-activation) of both perspectives written to `acc`.
    fn forward(&self, feats: &[[u16; 32]; 2], n: usize, acc: &mut [[f32; HIDDEN]; 2]) -> f32 {
        let mut out = self.p[B2];
        for side in 0..2 {
            let a = &mut acc[side];
            a.copy_from_slice(&self.p[B1..W2]);
            for &f in &feats[side][..n] {
                let row = &self.p[f as usize * HIDDEN..(f as usize + 1) * HIDDEN];
                for (x, w) in a.iter_mut().zip(row) {
                    *x += w;
                }
            }
            let w2 = &self.p[W2 + side * HIDDEN..W2 + (side + 1) * HIDDEN];
            for (x, w) in a.iter().zip(w2) {
                let c = x.clamp(0.0, 1.0);
                out += c * c * w;
            }
        }
        out
    }

    /// The integer network the engine runs.
    pub fn quantise(&self, scale: f32) -> Network {
        let q = |x: f32, m: i32| {
            (x * m as f32)
                .round()
                .clamp(i16::MIN as f32, i16::MAX as f32) as i16
        };
        Network::new(
            HIDDEN,
            1,
            self.p[..B1].iter().map(|&x| q(x, QA)).collect(),
            self.p[B1..W2].iter().map(|&x| q(x, QA)).collect(),
            self.p[W2..B2]
                .iter()
                .map(|&x| q(x.clamp(-WEIGHT_CLIP, WEIGHT_CLIP), QB))
                .collect(),
            vec![(self.p[B2] * (QA * QB) as f32).round() as i32],
            scale.round() as i32,
        )
        .expect("the trainer's shape is one the engine runs")
    }
}

/// Features of both perspectives, side to move first; `mirror` flips the
/// board left-right (xiangqi is symmetric, so this doubles the data).
fn features(r: &Record, mirror: bool) -> ([[u16; 32]; 2], usize) {
    let mut f = [[0u16; 32]; 2];
    let persp = [r.side, r.side.flip()];
    let mut n = 0;
    for (sq, p) in r.pieces() {
        let sq = if mirror { sq.flip_file() } else { sq };
        for (k, &c) in persp.iter().enumerate() {
            f[k][n] = feature(c, p, sq) as u16;
        }
        n += 1;
    }
    (f, n)
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

fn target(r: &Record, cfg: &TrainConfig) -> f32 {
    let s = sigmoid(r.score as f32 / cfg.scale);
    cfg.wdl * r.result.as_f32() + (1.0 - cfg.wdl) * s
}

/// Sum of the losses over `records` and, if `grad` is given, the gradient
/// added to it.
fn batch_pass(
    net: &FloatNet,
    records: &[Record],
    cfg: &TrainConfig,
    mirror_seed: Option<u64>,
    mut grad: Option<&mut [f32]>,
) -> f64 {
    let mut acc = [[0f32; HIDDEN]; 2];
    let mut loss = 0f64;
    let mut dacc = [0f32; HIDDEN];
    for (i, r) in records.iter().enumerate() {
        let mirror = mirror_seed.is_some_and(|s| {
            (s.wrapping_add(i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 63) == 1
        });
        let (feats, n) = features(r, mirror);
        let out = net.forward(&feats, n, &mut acc);
        let pred = sigmoid(out);
        let err = pred - target(r, cfg);
        loss += (err * err) as f64;
        let Some(g) = grad.as_deref_mut() else {
            continue;
        };
        let dout = 2.0 * err * pred * (1.0 - pred);
        g[B2] += dout;
        for side in 0..2 {
            let w2 = W2 + side * HIDDEN;
            for h in 0..HIDDEN {
                let x = acc[side][h];
                let c = x.clamp(0.0, 1.0);
                g[w2 + h] += dout * c * c;
                dacc[h] = if x > 0.0 && x < 1.0 {
                    dout * net.p[w2 + h] * 2.0 * x
                } else {
                    0.0
                };
            }
            for (gb, d) in g[B1..W2].iter_mut().zip(&dacc) {
                *gb += d;
            }
            for &f in &feats[side][..n] {
                let row = &mut g[f as usize * HIDDEN..(f as usize + 1) * HIDDEN];
                for (gw, d) in row.iter_mut().zip(&dacc) {
                    *gw += d;
                }
            }
        }
    }
    loss
}

/// AdamW state.
pub struct Trainer {
    pub net: FloatNet,
    m: Vec<f32>,
    v: Vec<f32>,
    step: u64,
    pub epoch: usize,
}

const CHECKPOINT_MAGIC: &[u8; 8] = b"CHUHECK1";

impl Trainer {
    pub fn new(net: FloatNet) -> Trainer {
        Trainer {
            net,
            m: vec![0.0; N_PARAMS],
            v: vec![0.0; N_PARAMS],
            step: 0,
            epoch: 0,
        }
    }

    fn apply(&mut self, grad: &[f32], lr: f32, cfg: &TrainConfig, n: usize) {
        const B1_: f32 = 0.9;
        const B2_: f32 = 0.999;
        self.step += 1;
        let bc1 = 1.0 - B1_.powi(self.step as i32);
        let bc2 = 1.0 - B2_.powi(self.step as i32);
        let inv_n = 1.0 / n as f32;
        let wd = 1.0 - lr * cfg.weight_decay;
        self.net
            .p
            .par_chunks_mut(4096)
            .zip(self.m.par_chunks_mut(4096))
            .zip(self.v.par_chunks_mut(4096))
            .zip(grad.par_chunks(4096))
            .enumerate()
            .for_each(|(ci, (((p, m), v), g))| {
                for i in 0..p.len() {
                    let gi = g[i] * inv_n;
                    m[i] = B1_ * m[i] + (1.0 - B1_) * gi;
                    v[i] = B2_ * v[i] + (1.0 - B2_) * gi * gi;
                    let upd = (m[i] / bc1) / ((v[i] / bc2).sqrt() + 1e-8);
                    let idx = ci * 4096 + i;
                    let mut x = p[i];
                    if idx < B1 || (W2..B2).contains(&idx) {
                        x *= wd;
                    }
                    x -= lr * upd;
                    p[i] = x.clamp(-WEIGHT_CLIP, WEIGHT_CLIP);
                }
            });
    }

    /// One epoch over `train`; returns the mean training loss.
    pub fn epoch(&mut self, train: &mut [Record], cfg: &TrainConfig, lr: f32) -> f64 {
        let mut rng =
            SplitMix64::new(cfg.seed ^ (self.epoch as u64 + 1).wrapping_mul(0xA076_1D64_78BD_642F));
        for i in (1..train.len()).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize;
            train.swap(i, j);
        }
        let threads = rayon::current_num_threads().max(1);
        let mut total = 0f64;
        let mut grads: Vec<Vec<f32>> = (0..threads).map(|_| vec![0f32; N_PARAMS]).collect();
        for (bi, batch) in train.chunks(cfg.batch).enumerate() {
            let per = batch.len().div_ceil(threads);
            let net = &self.net;
            let seed = rng.next_u64() ^ bi as u64;
            let loss: f64 = grads
                .par_iter_mut()
                .zip(batch.par_chunks(per.max(1)))
                .map(|(g, part)| {
                    g.iter_mut().for_each(|x| *x = 0.0);
                    batch_pass(net, part, cfg, Some(seed), Some(g))
                })
                .sum();
            // Sum the threads' gradients into the first buffer.
            let (first, rest) = grads.split_first_mut().unwrap();
            for other in rest
                .iter()
                .take(batch.len().div_ceil(per.max(1)).saturating_sub(1))
            {
                first
                    .par_chunks_mut(4096)
                    .zip(other.par_chunks(4096))
                    .for_each(|(a, b)| a.iter_mut().zip(b).for_each(|(x, y)| *x += y));
            }
            let g = std::mem::take(&mut grads[0]);
            self.apply(&g, lr, cfg, batch.len());
            grads[0] = g;
            total += loss;
        }
        self.epoch += 1;
        total / train.len().max(1) as f64
    }

    pub fn save_checkpoint(&self, path: &Path) -> std::io::Result<()> {
        let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
        f.write_all(CHECKPOINT_MAGIC)?;
        f.write_all(&(N_PARAMS as u64).to_le_bytes())?;
        f.write_all(&self.step.to_le_bytes())?;
        f.write_all(&(self.epoch as u64).to_le_bytes())?;
        for x in self.net.p.iter().chain(&self.m).chain(&self.v) {
            f.write_all(&x.to_le_bytes())?;
        }
        f.flush()
    }

    pub fn load_checkpoint(path: &Path) -> Result<Trainer, String> {
        let b = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let bad = |why: &str| format!("{}: not a usable checkpoint: {why}", path.display());
        if b.len() < 32 || &b[..8] != CHECKPOINT_MAGIC {
            return Err(bad("bad magic"));
        }
        let u = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        if u(8) as usize != N_PARAMS {
            return Err(bad("different architecture"));
        }
        if b.len() != 32 + 12 * N_PARAMS {
            return Err(bad("truncated"));
        }
        let floats: Vec<f32> = b[32..]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        Ok(Trainer {
            net: FloatNet {
                p: floats[..N_PARAMS].to_vec(),
            },
            m: floats[N_PARAMS..2 * N_PARAMS].to_vec(),
            v: floats[2 * N_PARAMS..].to_vec(),
            step: u(16),
            epoch: u(24) as usize,
        })
    }
}

/// Mean loss of `net` over `records` (no gradient), in parallel.
pub fn validation_loss(net: &FloatNet, records: &[Record], cfg: &TrainConfig) -> f64 {
    let sum: f64 = records
        .par_chunks(4096)
        .map(|c| batch_pass(net, c, cfg, None, None))
        .sum();
    sum / records.len().max(1) as f64
}

/// Splits the data (after a seeded shuffle) into training and validation.
pub fn split(mut records: Vec<Record>, cfg: &TrainConfig) -> (Vec<Record>, Vec<Record>) {
    let mut rng = SplitMix64::new(cfg.seed);
    for i in (1..records.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        records.swap(i, j);
    }
    let n_val = ((records.len() as f64 * cfg.val_fraction) as usize).min(records.len() / 2);
    let val = records.split_off(records.len() - n_val);
    (records, val)
}

/// The whole run: epochs with per-epoch reports, checkpoints, the export.
pub fn run(
    mut trainer: Trainer,
    records: Vec<Record>,
    cfg: &TrainConfig,
    out: &Path,
    log: &mut dyn FnMut(&str),
) -> Result<(), String> {
    let (mut train, val) = split(records, cfg);
    log(&format!(
        "train {} positions, validation {}, epochs {}..{}",
        train.len(),
        val.len(),
        trainer.epoch + 1,
        cfg.epochs
    ));
    if let Some(dir) = &cfg.checkpoint {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    while trainer.epoch < cfg.epochs {
        let lr = cfg.lr * cfg.lr_decay.powi(trainer.epoch as i32);
        let t = std::time::Instant::now();
        let tl = trainer.epoch(&mut train, cfg, lr);
        let vl = validation_loss(&trainer.net, &val, cfg);
        log(&format!(
            "epoch {} lr {:.6} train loss {:.6} validation loss {:.6} ({:.1} s)",
            trainer.epoch,
            lr,
            tl,
            vl,
            t.elapsed().as_secs_f64()
        ));
        if let Some(dir) = &cfg.checkpoint {
            let p = dir.join(format!("epoch-{}.ckpt", trainer.epoch));
            trainer
                .save_checkpoint(&p)
                .map_err(|e| format!("{}: {e}", p.display()))?;
        }
        let bytes = trainer.net.quantise(cfg.scale).to_bytes();
        std::fs::write(out, bytes).map_err(|e| format!("{}: {e}", out.display()))?;
    }
    Ok(())
}

/// What the data says about itself before training: its result shares and
/// the score scale that best predicts the results (the `--scale` to start
/// from: the K minimising the cross-entropy of sigmoid(score / K) against
/// the game results).
#[derive(Clone, Debug, PartialEq)]
pub struct DataSummary {
    pub positions: usize,
    /// Shares of wins, draws and losses (side to move's view).
    pub wdl: [f64; 3],
    pub fitted_scale: f32,
}

pub fn summarise(records: &[Record]) -> DataSummary {
    let mut counts = [0usize; 3];
    for r in records {
        counts[2 - r.result as usize] += 1;
    }
    let n = records.len().max(1) as f64;
    DataSummary {
        positions: records.len(),
        wdl: counts.map(|c| c as f64 / n),
        fitted_scale: fit_scale(records),
    }
}

/// Mean cross-entropy of sigmoid(score / k) against the results.
fn result_cross_entropy(records: &[Record], k: f32) -> f64 {
    let sum: f64 = records
        .par_chunks(8192)
        .map(|c| {
            c.iter()
                .map(|r| {
                    let p = (1.0 / (1.0 + (-(r.score as f64) / k as f64).exp()))
                        .clamp(1e-9, 1.0 - 1e-9);
                    let t = r.result.as_f32() as f64;
                    -(t * p.ln() + (1.0 - t) * (1.0 - p).ln())
                })
                .sum::<f64>()
        })
        .sum();
    sum / records.len().max(1) as f64
}

/// The K in [20, 2000] minimising `result_cross_entropy` (golden-section
/// search on log K: the loss is unimodal in K for any data with both wins
/// and losses).
pub fn fit_scale(records: &[Record]) -> f32 {
    let f = |x: f64| result_cross_entropy(records, x.exp() as f32);
    let (mut a, mut b) = (20f64.ln(), 2000f64.ln());
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut c, mut d) = (b - g * (b - a), a + g * (b - a));
    let (mut fc, mut fd) = (f(c), f(d));
    for _ in 0..40 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - g * (b - a);
            fc = f(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + g * (b - a);
            fd = f(d);
        }
    }
    ((a + b) / 2.0).exp() as f32
}

/// The float network's evaluation of a record in centipawns (side to move's
/// view): for comparing with the exported integer network.
pub fn float_eval(net: &FloatNet, r: &Record, scale: f32) -> f32 {
    let (feats, n) = features(r, false);
    let mut acc = [[0f32; HIDDEN]; 2];
    net.forward(&feats, n, &mut acc) * scale
}

/// A network of the given shape with random weights of about a trained
/// network's size (for tests and benchmarks: every feature matters, so any
/// slip in the arithmetic shows).
pub fn random_network(hidden: usize, buckets: usize, seed: u64) -> Network {
    let mut rng = SplitMix64::new(seed);
    let mut draw = |n: usize, lo: i64, hi: i64| -> Vec<i64> {
        (0..n)
            .map(|_| lo + (rng.next_u64() % (hi - lo + 1) as u64) as i64)
            .collect()
    };
    let to16 = |v: Vec<i64>| v.into_iter().map(|x| x as i16).collect();
    Network::new(
        hidden,
        buckets,
        to16(draw(FEATURES * hidden, -40, 40)),
        to16(draw(hidden, -20, 80)),
        to16(draw(buckets * 2 * hidden, -127, 127)),
        draw(buckets, -5000, 5000)
            .into_iter()
            .map(|x| x as i32)
            .collect(),
        300,
    )
    .expect("a shape the engine runs")
}
