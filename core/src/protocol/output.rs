//! Everything the engine writes: one shared, line-at-a-time writer (the main
//! thread and the search thread both print) and the text forms of `info`
//! lines and scores in each protocol.

use super::Mode;
use crate::search::{Score, SearchInfo};
use std::io::Write;
use std::sync::{Arc, Mutex, MutexGuard};

/// UCCI mate scores: a large value minus the distance in plies, as the
/// common UCCI engines print them.
pub const UCCI_MATE: i32 = 30000;

/// The shared output. Every line is written whole and flushed at once, so the
/// GUI never sees half a line or a line held in a buffer.
#[derive(Clone)]
pub struct Out {
    sink: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl Out {
    pub fn new(sink: Box<dyn Write + Send>) -> Out {
        Out {
            sink: Arc::new(Mutex::new(sink)),
        }
    }

    pub fn line(&self, text: &str) {
        let mut sink = self.lock();
        write_line(&mut **sink, text);
    }

    /// Writes a last line and ends the process while still holding the
    /// writer, so the search thread cannot print anything after it.
    pub fn last_line_and_exit(&self, text: Option<&str>) -> ! {
        let mut sink = self.lock();
        if let Some(text) = text {
            write_line(&mut **sink, text);
        }
        std::process::exit(0)
    }

    fn lock(&self) -> MutexGuard<'_, Box<dyn Write + Send>> {
        // A poisoned lock only means another thread panicked mid-write; the
        // writer itself is still usable.
        self.sink.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn write_line(sink: &mut dyn Write, text: &str) {
    let ok = sink
        .write_all(text.as_bytes())
        .and_then(|_| sink.write_all(b"\n"))
        .and_then(|_| sink.flush());
    if ok.is_err() {
        // The GUI closed our output: nobody is left to talk to.
        std::process::exit(0);
    }
}

/// The `score ...` part of an info line.
pub fn score_text(mode: Mode, score: Score) -> String {
    match (mode, score) {
        (Mode::Uci, Score::Cp(cp)) => format!("score cp {cp}"),
        (Mode::Uci, Score::Mate(n)) => format!("score mate {n}"),
        (Mode::Ucci, s) => format!("score {}", ucci_score(s)),
    }
}

/// A score as one UCCI number: mate in n moves is 2n-1 plies away, mated in
/// n moves 2n plies.
pub fn ucci_score(score: Score) -> i32 {
    match score {
        Score::Cp(cp) => cp.clamp(-(UCCI_MATE - 1000), UCCI_MATE - 1000),
        Score::Mate(n) if n > 0 => UCCI_MATE - (2 * n.min(5000) - 1),
        Score::Mate(n) => -UCCI_MATE + 2 * n.saturating_neg().min(5000),
    }
}

/// One `info` line for a search report, or None for a report not worth
/// printing (the current move early in a search, where it only floods the GUI).
pub fn info_line(mode: Mode, info: &SearchInfo) -> Option<String> {
    if let Some((mv, number)) = info.currmove {
        if info.time_ms < CURRMOVE_AFTER_MS {
            return None;
        }
        return Some(match mode {
            Mode::Uci => format!(
                "info depth {} currmove {mv} currmovenumber {number}",
                info.depth
            ),
            Mode::Ucci => format!("info currmove {mv}"),
        });
    }
    let mut s = format!("info depth {} seldepth {}", info.depth, info.seldepth);
    if let Some(n) = info.multipv {
        s.push_str(&format!(" multipv {n}"));
    }
    if let Some(score) = info.score {
        s.push(' ');
        s.push_str(&score_text(mode, score));
    }
    s.push_str(&format!(
        " nodes {} time {} nps {} hashfull {}",
        info.nodes, info.time_ms, info.nps, info.hashfull
    ));
    if !info.pv.is_empty() {
        s.push_str(" pv");
        for mv in &info.pv {
            s.push(' ');
            s.push_str(&mv.to_string());
        }
    }
    Some(s)
}

/// `currmove` lines only help on long searches.
const CURRMOVE_AFTER_MS: u64 = 1000;

/// An `info string` line: free text the GUI shows as it is.
pub fn info_string(text: &str) -> String {
    format!("info string {text}")
}

/// An error report. UCCI GUIs read `info string error: ...`; UCI GUIs show
/// any `info string`, so the same form serves both.
pub fn error_line(text: &str) -> String {
    format!("info string error: {text}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ucci_mate_scores_count_plies() {
        assert_eq!(ucci_score(Score::Mate(1)), 29999);
        assert_eq!(ucci_score(Score::Mate(3)), 29995);
        assert_eq!(ucci_score(Score::Mate(-2)), -29996);
        assert_eq!(ucci_score(Score::Mate(0)), -30000);
        assert_eq!(ucci_score(Score::Cp(-35)), -35);
    }

    #[test]
    fn uci_scores() {
        assert_eq!(score_text(Mode::Uci, Score::Mate(-3)), "score mate -3");
        assert_eq!(score_text(Mode::Uci, Score::Cp(12)), "score cp 12");
        assert_eq!(score_text(Mode::Ucci, Score::Cp(12)), "score 12");
    }
}
