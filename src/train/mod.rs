//! `chuhe train`: trains the network on `chuhe datagen` records.
//!
//! Float training of the architecture in `chuhe_core::nnue::net` (sparse
//! inputs → `hidden` ×2 perspectives → SCReLU → one of `buckets` outputs,
//! chosen by the piece count), then export with integer weights (format 2).
//! The loss is the squared error between sigmoid(output) and a blend of the
//! game result and sigmoid(score / scale); the network's output times
//! `scale` is its evaluation in centipawns. Mini-batch AdamW, the batch
//! split over threads with rayon; the input layer's gradient only touches
//! the rows of the features present (about 32 of 1260 per perspective),
//! never a dense multiply. Weights are clipped to what the integer format
//! can hold. The learning rate follows a schedule (`LrSchedule`) with an
//! optional linear warm-up. `float` holds the network and its passes,
//! `mix` the de-duplicating shuffle of `chuhe datamix`.

pub mod chain;
pub mod data;
pub mod float;
pub mod mix;
pub mod wdl;

pub use float::{FloatNet, Layout, LayoutError, WEIGHT_CLIP};

use chuhe_core::nnue::net::{Network, FEATURES};
use chuhe_core::nnue::simd::Simd;
use chuhe_core::rng::SplitMix64;
use data::Record;
use float::batch_pass;
use rayon::prelude::*;
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// How the learning rate moves over the run (on top of `TrainConfig::lr`,
/// the starting rate, and the optional warm-up).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LrSchedule {
    /// lr × decay^e in epoch e (from 0): the original schedule.
    Exponential { decay: f32 },
    /// lr × gamma^⌊e / every⌋: drops by `gamma` every `every` epochs.
    Step { every: usize, gamma: f32 },
    /// Half a cosine from lr down to `final_lr` over the whole run, moved
    /// after every batch.
    Cosine { final_lr: f32 },
}

#[derive(Clone, Debug)]
pub struct TrainConfig {
    pub epochs: usize,
    pub batch: usize,
    /// The starting learning rate.
    pub lr: f32,
    pub schedule: LrSchedule,
    /// Batches over which the rate rises linearly from lr / warmup to the
    /// schedule's (0: none).
    pub warmup: u64,
    pub weight_decay: f32,
    /// Weight of the game result in the target (0: score only, 1: result only).
    pub wdl: f32,
    /// Centipawns per unit of network output (and of the score's sigmoid).
    pub scale: f32,
    pub val_fraction: f64,
    pub seed: u64,
    pub checkpoint: Option<PathBuf>,
    /// The instruction set of the passes (the same results on either).
    pub simd: Simd,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            epochs: 20,
            batch: 16384,
            lr: 0.001,
            schedule: LrSchedule::Exponential { decay: 0.92 },
            warmup: 0,
            weight_decay: 0.01,
            wdl: 0.3,
            scale: 300.0,
            val_fraction: 0.05,
            seed: 1,
            checkpoint: None,
            simd: Simd::detect(),
        }
    }
}

impl TrainConfig {
    /// The learning rate for batch `batch` of `batches` in epoch `epoch`
    /// (both from 0), `step` batches into the whole run.
    pub fn lr_at(&self, epoch: usize, batch: usize, batches: usize, step: u64) -> f32 {
        let lr = match self.schedule {
            LrSchedule::Exponential { decay } => self.lr * decay.powi(epoch as i32),
            LrSchedule::Step { every, gamma } => {
                self.lr * gamma.powi((epoch / every.max(1)) as i32)
            }
            LrSchedule::Cosine { final_lr } => {
                let done = (epoch as f64 + batch as f64 / batches.max(1) as f64)
                    / self.epochs.max(1) as f64;
                let c = 0.5 * (1.0 + (std::f64::consts::PI * done.min(1.0)).cos());
                (final_lr as f64 + (self.lr - final_lr) as f64 * c) as f32
            }
        };
        if step < self.warmup {
            lr * (step + 1) as f32 / self.warmup as f32
        } else {
            lr
        }
    }
}

/// AdamW state.
pub struct Trainer {
    pub net: FloatNet,
    m: Vec<f32>,
    v: Vec<f32>,
    step: u64,
    pub epoch: usize,
}

/// Checkpoint files: magic, then (format 3) hidden, buckets, king buckets,
/// parameter count, AdamW step, epoch (u64 each), then the parameters and
/// AdamW's two moments (f32 each). Format 2 (`CHECKPOINT_MAGIC_V2`, before
/// king buckets) lacks the king buckets: 1. Format 1 (`CHECKPOINT_MAGIC_V1`,
/// before output buckets and other widths) lacks hidden and buckets too:
/// 256 and 1.
const CHECKPOINT_MAGIC: &[u8; 8] = b"CHUHECK3";
const CHECKPOINT_MAGIC_V2: &[u8; 8] = b"CHUHECK2";
const CHECKPOINT_MAGIC_V1: &[u8; 8] = b"CHUHECK1";

impl Trainer {
    pub fn new(net: FloatNet) -> Trainer {
        let n = net.layout.params();
        Trainer {
            net,
            m: vec![0.0; n],
            v: vec![0.0; n],
            step: 0,
            epoch: 0,
        }
    }

    pub fn layout(&self) -> Layout {
        self.net.layout
    }

    fn apply(&mut self, grad: &[f32], lr: f32, cfg: &TrainConfig, n: usize) {
        const B1_: f32 = 0.9;
        const B2_: f32 = 0.999;
        const CHUNK: usize = 4096;
        self.step += 1;
        let bc1 = 1.0 - B1_.powi(self.step as i32);
        let bc2 = 1.0 - B2_.powi(self.step as i32);
        let inv_n = 1.0 / n as f32;
        let wd = 1.0 - lr * cfg.weight_decay;
        let layout = self.net.layout;
        self.net
            .p
            .par_chunks_mut(CHUNK)
            .zip(self.m.par_chunks_mut(CHUNK))
            .zip(self.v.par_chunks_mut(CHUNK))
            .zip(grad.par_chunks(CHUNK))
            .enumerate()
            .for_each(|(ci, (((p, m), v), g))| {
                for i in 0..p.len() {
                    let gi = g[i] * inv_n;
                    m[i] = B1_ * m[i] + (1.0 - B1_) * gi;
                    v[i] = B2_ * v[i] + (1.0 - B2_) * gi * gi;
                    let upd = (m[i] / bc1) / ((v[i] / bc2).sqrt() + 1e-8);
                    let mut x = p[i];
                    if layout.is_weight(ci * CHUNK + i) {
                        x *= wd;
                    }
                    x -= lr * upd;
                    p[i] = x.clamp(-WEIGHT_CLIP, WEIGHT_CLIP);
                }
            });
    }

    /// One epoch over `train` (shuffled first), the learning rate from
    /// `cfg`'s schedule; returns the mean training loss.
    pub fn epoch(&mut self, train: &mut [Record], cfg: &TrainConfig) -> f64 {
        let mut rng =
            SplitMix64::new(cfg.seed ^ (self.epoch as u64 + 1).wrapping_mul(0xA076_1D64_78BD_642F));
        for i in (1..train.len()).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize;
            train.swap(i, j);
        }
        let threads = rayon::current_num_threads().max(1);
        let params = self.net.layout.params();
        let mut total = 0f64;
        let mut grads: Vec<Vec<f32>> = (0..threads).map(|_| vec![0f32; params]).collect();
        let batches = train.len().div_ceil(cfg.batch.max(1));
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
            let lr = cfg.lr_at(self.epoch, bi, batches, self.step);
            self.apply(&g, lr, cfg, batch.len());
            grads[0] = g;
            total += loss;
        }
        self.epoch += 1;
        total / train.len().max(1) as f64
    }

    pub fn save_checkpoint(&self, path: &Path) -> std::io::Result<()> {
        let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
        let l = self.net.layout;
        f.write_all(CHECKPOINT_MAGIC)?;
        for v in [
            l.hidden as u64,
            l.buckets as u64,
            l.kings as u64,
            l.params() as u64,
            self.step,
            self.epoch as u64,
        ] {
            f.write_all(&v.to_le_bytes())?;
        }
        for x in self.net.p.iter().chain(&self.m).chain(&self.v) {
            f.write_all(&x.to_le_bytes())?;
        }
        f.flush()
    }

    /// The checkpoint at `path`, which must hold a network of `layout`
    /// (the one the command line asks for).
    pub fn resume(path: &Path, layout: Layout) -> Result<Trainer, TrainError> {
        let t = Trainer::load_checkpoint(path)?;
        let held = t.layout();
        if held != layout {
            return Err(TrainError::OtherLayout {
                path: path.to_path_buf(),
                held,
                asked: layout,
            });
        }
        Ok(t)
    }

    pub fn load_checkpoint(path: &Path) -> Result<Trainer, TrainError> {
        let b = std::fs::read(path).map_err(|e| TrainError::io(path, e))?;
        let bad = |why: CheckpointFlaw| TrainError::BadCheckpoint {
            path: path.to_path_buf(),
            why,
        };
        let u = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        let (layout, header) = match b.get(..8) {
            Some(m) if (m == CHECKPOINT_MAGIC && b.len() >= 56) || m == CHECKPOINT_MAGIC_V2 => {
                let v3 = m == CHECKPOINT_MAGIC;
                if b.len() < 48 {
                    return Err(bad(CheckpointFlaw::TooShort(b.len())));
                }
                let kings = if v3 { u(24) as usize } else { 1 };
                let layout = Layout::new(u(8) as usize, u(16) as usize)
                    .and_then(|l| l.with_kings(kings))
                    .map_err(|e| bad(CheckpointFlaw::Layout(e)))?;
                let at = if v3 { 32 } else { 24 };
                if u(at) as usize != layout.params() {
                    return Err(bad(CheckpointFlaw::Parameters {
                        found: u(at),
                        layout,
                    }));
                }
                (layout, at + 8)
            }
            Some(m) if m == CHECKPOINT_MAGIC_V1 && b.len() >= 32 => {
                let layout = Layout::SHIPPED;
                if u(8) as usize != layout.params() {
                    return Err(bad(CheckpointFlaw::Format1Parameters(u(8))));
                }
                (layout, 16)
            }
            _ => return Err(bad(CheckpointFlaw::Magic)),
        };
        // `header`: where step and epoch are.
        let n = layout.params();
        let floats_at = header + 16;
        if b.len() != floats_at + 12 * n {
            return Err(bad(CheckpointFlaw::Length {
                found: b.len(),
                expected: floats_at + 12 * n,
            }));
        }
        let floats: Vec<f32> = b[floats_at..]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        Ok(Trainer {
            net: FloatNet {
                layout,
                p: floats[..n].to_vec(),
            },
            m: floats[n..2 * n].to_vec(),
            v: floats[2 * n..].to_vec(),
            step: u(header),
            epoch: u(header + 8) as usize,
        })
    }
}

/// Why a checkpoint could not be read or used, or a training run's file
/// could not be written: each names the file.
#[derive(Debug)]
pub enum TrainError {
    /// Reading or writing `path` failed.
    Io { path: PathBuf, source: io::Error },
    /// `path` was read but does not hold a checkpoint this trainer loads.
    BadCheckpoint { path: PathBuf, why: CheckpointFlaw },
    /// The checkpoint at `path` holds a network of `held`; the run asked
    /// for `asked`.
    OtherLayout {
        path: PathBuf,
        held: Layout,
        asked: Layout,
    },
}

impl TrainError {
    fn io(path: &Path, source: io::Error) -> TrainError {
        TrainError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

impl fmt::Display for TrainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrainError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            TrainError::BadCheckpoint { path, why } => {
                write!(f, "{}: not a usable checkpoint: {why}", path.display())
            }
            TrainError::OtherLayout { path, held, asked } => write!(
                f,
                "{}: the checkpoint holds a network of {held} (--hidden {} --buckets {} \
                 --king-buckets {}), this run asks for {asked} (--hidden {} --buckets {} \
                 --king-buckets {}); resume with the checkpoint's shape, or start without \
                 --resume",
                path.display(),
                held.hidden,
                held.buckets,
                held.kings,
                asked.hidden,
                asked.buckets,
                asked.kings,
            ),
        }
    }
}

impl std::error::Error for TrainError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TrainError::Io { source, .. } => Some(source),
            TrainError::BadCheckpoint {
                why: CheckpointFlaw::Layout(e),
                ..
            } => Some(e),
            _ => None,
        }
    }
}

/// What is wrong inside a checkpoint file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckpointFlaw {
    /// A current-format header cut short: the file's length.
    TooShort(usize),
    /// A header naming a shape the engine does not run.
    Layout(LayoutError),
    /// A parameter count that does not match the header's shape.
    Parameters { found: u64, layout: Layout },
    /// A format-1 file whose parameter count is not the shipped shape's.
    Format1Parameters(u64),
    /// No checkpoint magic at the start.
    Magic,
    /// A file whose length does not match its header.
    Length { found: usize, expected: usize },
}

impl fmt::Display for CheckpointFlaw {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckpointFlaw::TooShort(len) => write!(f, "{len} bytes, too short"),
            CheckpointFlaw::Layout(e) => write!(f, "{e}"),
            CheckpointFlaw::Parameters { found, layout } => {
                write!(f, "{found} parameters for a network of {layout}")
            }
            CheckpointFlaw::Format1Parameters(found) => {
                write!(f, "{found} parameters (format 1 holds {})", Layout::SHIPPED)
            }
            CheckpointFlaw::Magic => write!(f, "bad magic"),
            CheckpointFlaw::Length { found, expected } => {
                write!(f, "{found} bytes, expected {expected}")
            }
        }
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
/// The validation positions are `validation` if given (other games: all of
/// `records` then trains), else a `cfg.val_fraction` share of `records`.
pub fn run(
    mut trainer: Trainer,
    records: Vec<Record>,
    validation: Option<Vec<Record>>,
    cfg: &TrainConfig,
    out: &Path,
    log: &mut dyn FnMut(&str),
) -> Result<(), TrainError> {
    let (mut train, val) = match validation {
        Some(val) => (records, val),
        None => split(records, cfg),
    };
    log(&format!(
        "train {} positions, validation {}, network {}, epochs {}..{}, {:?} arithmetic",
        train.len(),
        val.len(),
        trainer.layout(),
        trainer.epoch + 1,
        cfg.epochs,
        cfg.simd
    ));
    if let Some(dir) = &cfg.checkpoint {
        std::fs::create_dir_all(dir).map_err(|e| TrainError::io(dir, e))?;
    }
    let batches = train.len().div_ceil(cfg.batch.max(1));
    while trainer.epoch < cfg.epochs {
        let first_lr = cfg.lr_at(trainer.epoch, 0, batches, trainer.step);
        let t = std::time::Instant::now();
        let tl = trainer.epoch(&mut train, cfg);
        let secs = t.elapsed().as_secs_f64();
        let last_lr = cfg.lr_at(trainer.epoch - 1, batches - 1, batches, trainer.step - 1);
        let vl = validation_loss(&trainer.net, &val, cfg);
        let lr = if first_lr == last_lr {
            format!("{first_lr:.6}")
        } else {
            format!("{first_lr:.6}..{last_lr:.6}")
        };
        log(&format!(
            "epoch {} lr {lr} train loss {tl:.6} validation loss {vl:.6} ({secs:.1} s, {:.0} positions/s)",
            trainer.epoch,
            train.len() as f64 / secs.max(1e-9),
        ));
        if let Some(dir) = &cfg.checkpoint {
            let p = dir.join(format!("epoch-{}.ckpt", trainer.epoch));
            trainer
                .save_checkpoint(&p)
                .map_err(|e| TrainError::io(&p, e))?;
        }
        let bytes = trainer.net.quantise(cfg.scale).to_bytes();
        std::fs::write(out, bytes).map_err(|e| TrainError::io(out, e))?;
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
    golden_min(f, 20f64.ln(), 2000f64.ln(), 40).exp() as f32
}

/// The x in [lo, hi] minimising `f`, which must have a single minimum
/// there: golden-section search, narrowing the interval `iterations` times.
pub(crate) fn golden_min(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64, iterations: u32) -> f64 {
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut c, mut d) = (hi - g * (hi - lo), lo + g * (hi - lo));
    let (mut fc, mut fd) = (f(c), f(d));
    for _ in 0..iterations {
        if fc < fd {
            hi = d;
            d = c;
            fd = fc;
            c = hi - g * (hi - lo);
            fc = f(c);
        } else {
            lo = c;
            c = d;
            fc = fd;
            d = lo + g * (hi - lo);
            fd = f(d);
        }
    }
    (lo + hi) / 2.0
}

/// The float network's evaluation of a record in centipawns (side to move's
/// view): for comparing with the exported integer network.
pub fn float_eval(net: &FloatNet, r: &Record, scale: f32) -> f32 {
    float::forward(net, r) * scale
}

/// A network of the given shape with random weights of about a trained
/// network's size (for tests and benchmarks: every feature matters, so any
/// slip in the arithmetic shows).
pub fn random_network(hidden: usize, buckets: usize, seed: u64) -> Network {
    random_network_with_kings(hidden, buckets, 1, seed)
}

/// `random_network` with `kings` king buckets.
pub fn random_network_with_kings(
    hidden: usize,
    buckets: usize,
    kings: usize,
    seed: u64,
) -> Network {
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
        kings,
        to16(draw(kings * FEATURES * hidden, -40, 40)),
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
