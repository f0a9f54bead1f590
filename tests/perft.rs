//! Perft counts from tests/data (agreed by two independent engines), at
//! every depth whose count is at most 5,000,000.

use chuhe_core::board::perft::{divide, perft};
use chuhe_core::board::Position;

const LIMIT: u64 = 5_000_000;

/// (FEN, [(depth, count)]) for each line of the EPD files.
fn suite() -> Vec<(String, Vec<(u32, u64)>)> {
    let mut out = Vec::new();
    for file in ["perft-classic.epd", "perft-random.epd"] {
        let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        for line in text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        {
            let mut parts = line.split(';');
            let fen = parts.next().unwrap().trim().to_string();
            let counts = parts
                .map(|p| {
                    let mut w = p.split_whitespace();
                    let d = w.next().unwrap().trim_start_matches('D').parse().unwrap();
                    let n = w.next().unwrap().parse().unwrap();
                    (d, n)
                })
                .collect();
            out.push((fen, counts));
        }
    }
    assert!(
        out.len() >= 30,
        "perft suite looks truncated: {} lines",
        out.len()
    );
    out
}

#[test]
fn perft_suite_matches_reference_counts() {
    let mut checked = 0;
    for (fen, counts) in suite() {
        let mut pos: Position = fen.parse().unwrap_or_else(|e| panic!("{fen}: {e}"));
        for (depth, want) in counts {
            if want > LIMIT {
                continue;
            }
            assert_eq!(perft(&mut pos, depth), want, "{fen} depth {depth}");
            checked += 1;
        }
        // perft must leave the position as it found it.
        assert_eq!(pos.fen(), Position::from_fen(&fen).unwrap().fen());
    }
    assert!(checked > 100, "only {checked} counts checked");
}

#[test]
fn divide_sums_to_perft_and_threads_agree() {
    let pos = Position::startpos();
    let one = divide(&pos, 3, 1);
    let two = divide(&pos, 3, 2);
    assert_eq!(one.len(), 44);
    assert_eq!(one.iter().map(|x| x.1).sum::<u64>(), 79666);
    let mut a = one.clone();
    let mut b = two;
    a.sort_by_key(|x| x.0.raw());
    b.sort_by_key(|x| x.0.raw());
    assert_eq!(a, b);
}
