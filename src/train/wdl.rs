//! `chuhe wdl-fit`: fits the engine's win/draw/loss model
//! (`chuhe_core::search::wdl`) to self-play results.
//!
//! For each number of pieces on the board, the (a, b) of the model
//! win = σ((x − a) / b), loss = σ((−x − a) / b) that make the recorded game
//! results most likely given the recorded scores x (maximum likelihood, by
//! gradient ascent on counts binned by score); then a cubic in m / 32
//! through each of a and b, weighted by the positions behind each piece
//! count. `plot_svg` draws the observed odds against the model's.

use super::data::{Record, Wdl};
use super::golden_min;

/// Scores are binned this finely for the fit.
const BIN_CP: i32 = 10;
/// Scores beyond this are left out (datagen keeps none past 1500).
const MAX_CP: i32 = 1500;
const BINS: usize = (2 * MAX_CP / BIN_CP + 1) as usize;

/// Result counts by score bin for one piece count: [bin][loss, draw, win].
type Histogram = Vec<[u64; 3]>;

fn bin_centre(i: usize) -> f64 {
    (i as i32 * BIN_CP - MAX_CP) as f64
}

/// The model's (win, draw, loss) probabilities.
pub fn model(x: f64, a: f64, b: f64) -> [f64; 3] {
    let sig = |z: f64| 1.0 / (1.0 + (-z).exp());
    let w = sig((x - a) / b);
    let l = sig((-x - a) / b);
    [w, (1.0 - w - l).max(1e-12), l]
}

/// The fit for one piece count.
#[derive(Clone, Debug, PartialEq)]
pub struct PieceFit {
    pub pieces: u32,
    pub positions: u64,
    pub a: f64,
    pub b: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WdlFit {
    pub per_pieces: Vec<PieceFit>,
    /// Cubic coefficients in t = pieces / 32, constant term first.
    pub a: [f64; 4],
    pub b: [f64; 4],
    pub positions: u64,
}

fn histograms(records: &[Record]) -> Vec<Histogram> {
    let mut h = vec![vec![[0u64; 3]; BINS]; 33];
    for r in records {
        let x = r.score as i32;
        if x.abs() > MAX_CP {
            continue;
        }
        let bin = ((x + MAX_CP + BIN_CP / 2) / BIN_CP) as usize;
        let k = match r.result {
            Wdl::Loss => 0,
            Wdl::Draw => 1,
            Wdl::Win => 2,
        };
        h[(r.count as usize).min(32)][bin.min(BINS - 1)][k] += 1;
    }
    h
}

/// Mean log-likelihood of the counts under (a, b).
fn log_likelihood(h: &Histogram, a: f64, b: f64) -> f64 {
    let mut sum = 0.0;
    let mut n = 0u64;
    for (i, c) in h.iter().enumerate() {
        if c.iter().all(|&k| k == 0) {
            continue;
        }
        let [w, d, l] = model(bin_centre(i), a, b);
        sum += c[0] as f64 * l.max(1e-12).ln()
            + c[1] as f64 * d.ln()
            + c[2] as f64 * w.max(1e-12).ln();
        n += c.iter().sum::<u64>();
    }
    sum / n.max(1) as f64
}

/// The (a, b) of greatest likelihood for one histogram: coordinate-wise
/// golden-section searches, repeated until they settle (the likelihood is
/// smooth and single-peaked in each over the ranges searched).
fn fit_one(h: &Histogram) -> (f64, f64) {
    let (mut a, mut b) = (300.0, 100.0);
    for _ in 0..12 {
        a = golden_min(|a| -log_likelihood(h, a, b), 0.0, 2000.0, 60);
        b = golden_min(|b| -log_likelihood(h, a, b), 5.0, 1500.0, 60);
    }
    (a, b)
}

/// Weighted least-squares cubic through (t, y) with weights w.
fn cubic_fit(points: &[(f64, f64, f64)]) -> [f64; 4] {
    let mut m = [[0.0f64; 5]; 4];
    for &(t, y, w) in points {
        let p = [1.0, t, t * t, t * t * t];
        for (row, pi) in m.iter_mut().zip(p) {
            for (x, pj) in row.iter_mut().zip(p) {
                *x += w * pi * pj;
            }
            row[4] += w * pi * y;
        }
    }
    // Gaussian elimination with partial pivoting.
    for col in 0..4 {
        let piv = (col..4)
            .max_by(|&i, &j| m[i][col].abs().total_cmp(&m[j][col].abs()))
            .unwrap_or(col);
        m.swap(col, piv);
        if m[col][col].abs() < 1e-12 {
            continue;
        }
        let pivot_row = m[col];
        for (row, r) in m.iter_mut().enumerate() {
            if row != col {
                let f = r[col] / pivot_row[col];
                for (x, p) in r.iter_mut().zip(pivot_row).skip(col) {
                    *x -= f * p;
                }
            }
        }
    }
    std::array::from_fn(|i| {
        if m[i][i].abs() < 1e-12 {
            0.0
        } else {
            m[i][4] / m[i][i]
        }
    })
}

fn eval_cubic(c: &[f64; 4], t: f64) -> f64 {
    c[0] + t * (c[1] + t * (c[2] + t * c[3]))
}

/// Piece counts with fewer positions than this get no fit of their own.
const MIN_POSITIONS: u64 = 2000;
/// Nor do those with fewer won or lost positions than this: with nearly
/// every game drawn, the likelihood is flat in a and b and the fit runs to
/// the edge of its range (a few thousand five-piece positions from a
/// handful of games once moved every constant by hundreds).
const MIN_DECISIVE: u64 = 1000;

/// Fits the model to `records`; None without enough data to fit.
pub fn fit(records: &[Record]) -> Option<WdlFit> {
    let hist = histograms(records);
    let mut per_pieces = Vec::new();
    for (pieces, h) in hist.iter().enumerate() {
        let positions: u64 = h.iter().flatten().sum();
        let decisive: u64 = h.iter().map(|c| c[0] + c[2]).sum();
        if positions < MIN_POSITIONS || decisive < MIN_DECISIVE {
            continue;
        }
        let (a, b) = fit_one(h);
        per_pieces.push(PieceFit {
            pieces: pieces as u32,
            positions,
            a,
            b,
        });
    }
    if per_pieces.len() < 4 {
        return None;
    }
    let pts = |f: fn(&PieceFit) -> f64| -> Vec<(f64, f64, f64)> {
        per_pieces
            .iter()
            .map(|p| (p.pieces as f64 / 32.0, f(p), p.positions as f64))
            .collect()
    };
    Some(WdlFit {
        a: cubic_fit(&pts(|p| p.a)),
        b: cubic_fit(&pts(|p| p.b)),
        positions: per_pieces.iter().map(|p| p.positions).sum(),
        per_pieces,
    })
}

impl WdlFit {
    /// The model's (a, b) at `pieces`.
    pub fn at(&self, pieces: u32) -> (f64, f64) {
        let t = pieces as f64 / 32.0;
        (eval_cubic(&self.a, t), eval_cubic(&self.b, t))
    }

    /// The constants for `chuhe_core::search::wdl`, as Rust source.
    pub fn constants(&self) -> String {
        let list = |c: &[f64; 4]| {
            c.iter()
                .map(|x| format!("{x:.3}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "const A: [f64; 4] = [{}];\nconst B: [f64; 4] = [{}];",
            list(&self.a),
            list(&self.b)
        )
    }
}

/// Observed and modelled odds for groups of piece counts, drawn as an SVG:
/// win (solid) and draw (dashed) rates against the score, dots for the data
/// in 50 cp bins, lines for the model at the group's mean piece count.
pub fn plot_svg(fit: &WdlFit, records: &[Record]) -> String {
    const GROUPS: [(u32, u32, &str); 3] =
        [(24, 32, "#c0392b"), (14, 23, "#2471a3"), (2, 13, "#1e8449")];
    let (w, h, pad) = (720.0, 420.0, 50.0);
    let sx = |x: f64| pad + (x + MAX_CP as f64) / (2.0 * MAX_CP as f64) * (w - 2.0 * pad);
    let sy = |p: f64| h - pad - p * (h - 2.0 * pad);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    // Axes and grid.
    for k in 0..=4 {
        let p = k as f64 / 4.0;
        svg += &format!(
            "<line x1=\"{pad}\" x2=\"{}\" y1=\"{y}\" y2=\"{y}\" stroke=\"#ddd\"/>\
             <text x=\"{}\" y=\"{}\" text-anchor=\"end\">{p:.2}</text>\n",
            w - pad,
            pad - 6.0,
            sy(p) + 4.0,
            y = sy(p)
        );
    }
    for cp in (-MAX_CP..=MAX_CP).step_by(500) {
        svg += &format!(
            "<line x1=\"{x}\" x2=\"{x}\" y1=\"{pad}\" y2=\"{}\" stroke=\"#ddd\"/>\
             <text x=\"{x}\" y=\"{}\" text-anchor=\"middle\">{cp}</text>\n",
            h - pad,
            h - pad + 16.0,
            x = sx(cp as f64)
        );
    }
    svg += &format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">score (cp, side to move)</text>\n",
        w / 2.0,
        h - 10.0
    );
    for (i, &(lo, hi, colour)) in GROUPS.iter().enumerate() {
        let group: Vec<&Record> = records
            .iter()
            .filter(|r| (lo..=hi).contains(&(r.count as u32)))
            .collect();
        if group.is_empty() {
            continue;
        }
        let mean = group.iter().map(|r| r.count as f64).sum::<f64>() / group.len() as f64;
        // Observed rates in 50 cp bins with enough positions.
        let n_bins = (2 * MAX_CP / 50 + 1) as usize;
        let mut bins = vec![[0u64; 3]; n_bins];
        for r in &group {
            if (r.score as i32).abs() <= MAX_CP {
                let b = ((r.score as i32 + MAX_CP + 25) / 50) as usize;
                bins[b.min(n_bins - 1)][r.result as usize] += 1;
            }
        }
        for (b, c) in bins.iter().enumerate() {
            let n: u64 = c.iter().sum();
            if n < 50 {
                continue;
            }
            let x = sx((b as i32 * 50 - MAX_CP) as f64);
            let (win, draw) = (c[2] as f64 / n as f64, c[1] as f64 / n as f64);
            svg += &format!(
                "<circle cx=\"{x:.1}\" cy=\"{:.1}\" r=\"2.5\" fill=\"{colour}\"/>\
                 <rect x=\"{:.1}\" y=\"{:.1}\" width=\"4\" height=\"4\" fill=\"none\" stroke=\"{colour}\"/>\n",
                sy(win),
                x - 2.0,
                sy(draw) - 2.0
            );
        }
        let (a, b) = fit.at(mean.round() as u32);
        for (k, dash) in [(0usize, ""), (1, " stroke-dasharray=\"5,4\"")] {
            let pts: Vec<String> = (-MAX_CP..=MAX_CP)
                .step_by(10)
                .map(|x| {
                    let p = model(x as f64, a, b)[k];
                    format!("{:.1},{:.1}", sx(x as f64), sy(p))
                })
                .collect();
            svg += &format!(
                "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.5\"{dash}/>\n",
                pts.join(" ")
            );
        }
        svg += &format!(
            "<text x=\"{}\" y=\"{}\" fill=\"{colour}\">{lo}-{hi} pieces ({} positions)</text>\n",
            pad + 10.0,
            pad + 16.0 + 16.0 * i as f64,
            group.len()
        );
    }
    svg += &format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">win: dots, solid; draw: squares, dashed</text>\n</svg>\n",
        w - pad,
        h - pad - 10.0
    );
    svg
}

#[cfg(test)]
mod tests {
    use super::*;
    use chuhe_core::board::Color;
    use chuhe_core::rng::SplitMix64;

    /// Records drawn from the model itself come back with its parameters.
    #[test]
    fn recovers_the_parameters_it_was_given() {
        let mut rng = SplitMix64::new(3);
        let mut records = Vec::new();
        for pieces in [8u8, 14, 20, 26, 32] {
            let t = pieces as f64 / 32.0;
            let (a, b) = (200.0 + 200.0 * t, 60.0 + 80.0 * t);
            for _ in 0..20000 {
                let x = (rng.next_f64() * 1600.0 - 800.0).round();
                let [w, d, _] = model(x, a, b);
                let u = rng.next_f64();
                let result = if u < w {
                    Wdl::Win
                } else if u < w + d {
                    Wdl::Draw
                } else {
                    Wdl::Loss
                };
                records.push(Record {
                    side: Color::Red,
                    score: x as i16,
                    result,
                    pieces: [(0, 0); 32],
                    count: pieces,
                });
            }
        }
        let f = fit(&records).expect("enough data");
        for p in &f.per_pieces {
            let t = p.pieces as f64 / 32.0;
            assert!((p.a - (200.0 + 200.0 * t)).abs() < 25.0, "{p:?}");
            assert!((p.b - (60.0 + 80.0 * t)).abs() < 15.0, "{p:?}");
        }
        let (a, b) = f.at(20);
        assert!(
            (a - 325.0).abs() < 25.0 && (b - 110.0).abs() < 15.0,
            "{a} {b}"
        );
        let svg = plot_svg(&f, &records);
        assert!(svg.starts_with("<svg") && svg.contains("polyline"));
        assert!(f.constants().starts_with("const A: [f64; 4] = ["));

        // A piece count where (nearly) every game was drawn says nothing
        // about a and b: it gets no fit and moves nothing.
        for i in 0..3000 {
            records.push(Record {
                side: Color::Red,
                score: (i % 200 - 100) as i16,
                result: Wdl::Draw,
                pieces: [(0, 0); 32],
                count: 5,
            });
        }
        let g = fit(&records).expect("enough data");
        assert!(g.per_pieces.iter().all(|p| p.pieces != 5));
        assert_eq!(g.constants(), f.constants());
    }
}
