//! Win, draw and loss odds for a score: what `UCI_ShowWDL` reports.
//!
//! The model is Stockfish's: with x the score in centipawns (side to move's
//! view) and m the pieces left on the board,
//! win = 1 / (1 + e^((a(m) - x) / b(m))), loss = 1 / (1 + e^((a(m) + x) / b(m))),
//! draw = the rest; a(m) is the score at which a win is as likely as not,
//! b(m) how fast the odds turn. Both are cubics in m / 32, fitted by
//! `chuhe wdl-fit` to self-play results (the games of `chuhe datagen`); the
//! fit and its plot are in nnue/README.md. Refit them when the network or
//! the search changes what its scores mean.

use super::Score;

/// Coefficients of a(m) and b(m), constant term first, in t = m / 32.
const A: [f64; 4] = [150.738, 797.414, -2193.861, 1346.484];
const B: [f64; 4] = [-7.552, 310.700, -396.083, 199.870];

fn cubic(c: &[f64; 4], t: f64) -> f64 {
    c[0] + t * (c[1] + t * (c[2] + t * c[3]))
}

/// (win, draw, loss) per mille for `score` with `pieces` on the board; they
/// add up to 1000. A mate is sure: (1000, 0, 0) or (0, 0, 1000).
pub fn wdl(score: Score, pieces: u32) -> (u32, u32, u32) {
    let x = match score {
        Score::Mate(n) if n > 0 => return (1000, 0, 0),
        Score::Mate(_) => return (0, 0, 1000),
        Score::Cp(c) => c as f64,
    };
    let t = pieces.clamp(2, 32) as f64 / 32.0;
    let (a, b) = (cubic(&A, t), cubic(&B, t).max(1.0));
    let win = 1.0 / (1.0 + ((a - x) / b).exp());
    let loss = 1.0 / (1.0 + ((a + x) / b).exp());
    let w = (win * 1000.0).round() as u32;
    let l = (loss * 1000.0).round() as u32;
    let l = l.min(1000 - w);
    (w, 1000 - w - l, l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odds_add_up_and_follow_the_score() {
        let mut last_win = 0;
        for cp in (-2000..=2000).step_by(50) {
            for pieces in [2, 10, 20, 32] {
                let (w, d, l) = wdl(Score::Cp(cp), pieces);
                assert_eq!(w + d + l, 1000);
                // The colours swapped: the odds swap.
                assert_eq!(wdl(Score::Cp(-cp), pieces), (l, d, w));
            }
            let (w, _, _) = wdl(Score::Cp(cp), 20);
            assert!(w >= last_win);
            last_win = w;
        }
        assert_eq!(wdl(Score::Mate(3), 10), (1000, 0, 0));
        assert_eq!(wdl(Score::Mate(-1), 10), (0, 0, 1000));
        let (w, d, l) = wdl(Score::Cp(0), 32);
        assert!(d > w && w == l, "an even position is mostly a draw");
    }
}
