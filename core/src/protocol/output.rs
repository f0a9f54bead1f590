//! Everything the engine writes: one shared, line-at-a-time writer (the main
//! thread and the search thread both print) and the text forms of `info`
//! lines, CECP thinking lines and scores in each protocol.

use super::Words;
use crate::board::Move;
use crate::search::wdl::wdl;
use crate::search::{Score, SearchInfo};
use std::io::Write;
use std::sync::{Arc, Mutex, MutexGuard};

/// UCCI mate scores: a large value minus the distance in plies, as the
/// common UCCI engines print them.
pub const UCCI_MATE: i32 = 30000;

/// CECP mate scores: 100000 + N for mate in N moves (the protocol's own
/// convention, section 10 of the specification).
pub const CECP_MATE: i32 = 100_000;

/// The shared output. Every line is written whole and flushed at once, so the
/// GUI never sees half a line or a line held in a buffer.
#[derive(Clone)]
pub struct Out {
    sink: Arc<Mutex<Sink>>,
}

struct Sink {
    writer: Box<dyn Write + Send>,
    notes: Notes,
}

/// How free-text notes and errors reach the GUI. They come from both
/// threads (a book that cannot be read, a table cut down), so the writer
/// words them for the protocol in use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notes {
    /// UCCI and UCI: `info string ...`.
    InfoString,
    /// CECP: `# ...` comment lines, which XBoard only logs (`feature debug=1`).
    Comment,
    /// CECP with the debug feature rejected: the GUI would take a comment for
    /// a command, so notes are dropped.
    Dropped,
}

impl Out {
    pub fn new(writer: Box<dyn Write + Send>) -> Out {
        Out {
            sink: Arc::new(Mutex::new(Sink {
                writer,
                notes: Notes::InfoString,
            })),
        }
    }

    pub fn line(&self, text: &str) {
        let mut sink = self.lock();
        write_line(&mut *sink.writer, text);
    }

    /// Writes `text` only if `live()` still holds once the writer is held.
    /// A line checked so cannot come after one the other thread writes
    /// once `live()` has turned false (a search stopped, then a reply).
    pub fn line_while(&self, text: &str, live: impl Fn() -> bool) {
        let mut sink = self.lock();
        if live() {
            write_line(&mut *sink.writer, text);
        }
    }

    /// Sets how notes are worded from now on (the protocol was chosen).
    pub fn set_notes(&self, notes: Notes) {
        self.lock().notes = notes;
    }

    /// Free text for the GUI to show or log.
    pub fn note(&self, text: &str) {
        let mut sink = self.lock();
        let line = match sink.notes {
            Notes::InfoString => info_string(text),
            Notes::Comment => format!("# {text}"),
            Notes::Dropped => return,
        };
        write_line(&mut *sink.writer, &line);
    }

    /// Something went wrong that the GUI did not cause by one command (a
    /// file that cannot be read, a command refused in UCCI/UCI).
    pub fn error(&self, text: &str) {
        self.note(&format!("error: {text}"));
    }

    /// Writes a last line and ends the process while still holding the
    /// writer, so the search thread cannot print anything after it.
    pub fn last_line_and_exit(&self, text: Option<&str>) -> ! {
        let mut sink = self.lock();
        if let Some(text) = text {
            write_line(&mut *sink.writer, text);
        }
        std::process::exit(0)
    }

    fn lock(&self) -> MutexGuard<'_, Sink> {
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

/// The `score ...` part of an info line, in the dialect's words.
pub fn score_text(words: &Words, score: Score) -> String {
    (words.score)(score)
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
/// With `wdl_pieces` (the pieces on the root's board) the score is followed
/// by its win/draw/loss odds, `wdl W D L` per mille, as UCI_ShowWDL asks.
pub fn info_line(words: &Words, info: &SearchInfo, wdl_pieces: Option<u32>) -> Option<String> {
    if let Some((mv, number)) = info.currmove {
        if info.time_ms < CURRMOVE_AFTER_MS {
            return None;
        }
        return Some((words.currmove)(info.depth, mv, number));
    }
    let mut s = format!("info depth {} seldepth {}", info.depth, info.seldepth);
    if let Some(n) = info.multipv {
        s.push_str(&format!(" multipv {n}"));
    }
    if let Some(score) = info.score {
        s.push(' ');
        s.push_str(&score_text(words, score));
        if let Some(pieces) = wdl_pieces {
            let (w, d, l) = wdl(score, pieces);
            s.push_str(&format!(" wdl {w} {d} {l}"));
        }
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

/// A score as one CECP number, from the engine's point of view:
/// centipawns, or 100000 + N for mate in N moves and -100000 - N for mated
/// in N.
pub fn cecp_score(score: Score) -> i32 {
    match score {
        Score::Cp(cp) => cp.clamp(-(CECP_MATE - 1000), CECP_MATE - 1000),
        Score::Mate(n) => {
            let n = n.clamp(-5000, 5000);
            if n > 0 {
                CECP_MATE + n
            } else {
                -CECP_MATE + n
            }
        }
    }
}

/// One CECP thinking line, `ply score time nodes seldepth nps tbhits<TAB>pv`
/// with the time in centiseconds (the tab tells XBoard where the optional
/// numbers end and the PV starts). `lead`, the guessed reply a ponder
/// search assumes, goes in front of the PV, so that the line reads from the
/// position the GUI shows. None for a report without a score (none is made
/// in CECP for the current move).
pub fn thinking_line(info: &SearchInfo, lead: Option<Move>) -> Option<String> {
    if info.currmove.is_some() {
        return None;
    }
    let score = cecp_score(info.score?);
    let mut s = format!(
        "{} {score} {} {} {} {} 0\t",
        info.depth,
        info.time_ms / 10,
        info.nodes,
        info.seldepth,
        info.nps
    );
    let moves: Vec<String> = lead.iter().chain(&info.pv).map(|m| m.to_string()).collect();
    s.push_str(&moves.join(" "));
    Some(s)
}

/// An `info string` line: free text the GUI shows as it is.
fn info_string(text: &str) -> String {
    format!("info string {text}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Mode;

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
        let (uci, ucci) = (Mode::Uci.words(), Mode::Ucci.words());
        assert_eq!(score_text(uci, Score::Mate(-3)), "score mate -3");
        assert_eq!(score_text(uci, Score::Cp(12)), "score cp 12");
        assert_eq!(score_text(ucci, Score::Cp(12)), "score 12");
        assert_eq!(score_text(ucci, Score::Mate(2)), "score 29997");
    }

    #[test]
    fn currmove_lines_in_each_dialect() {
        let info = SearchInfo {
            depth: 12,
            time_ms: CURRMOVE_AFTER_MS,
            currmove: Some(("h2e2".parse().unwrap(), 3)),
            ..SearchInfo::default()
        };
        assert_eq!(
            info_line(Mode::Uci.words(), &info, None).as_deref(),
            Some("info depth 12 currmove h2e2 currmovenumber 3")
        );
        assert_eq!(
            info_line(Mode::Ucci.words(), &info, None).as_deref(),
            Some("info currmove h2e2")
        );
        let early = SearchInfo { time_ms: 0, ..info };
        assert_eq!(info_line(Mode::Uci.words(), &early, None), None);
    }

    #[test]
    fn cecp_scores_and_thinking_lines() {
        assert_eq!(cecp_score(Score::Mate(3)), 100_003);
        assert_eq!(cecp_score(Score::Mate(-2)), -100_002);
        assert_eq!(cecp_score(Score::Mate(0)), -100_000);
        assert_eq!(cecp_score(Score::Cp(-35)), -35);
        let info = SearchInfo {
            depth: 9,
            seldepth: 14,
            score: Some(Score::Cp(156)),
            nodes: 48000,
            time_ms: 10_849,
            nps: 4424,
            pv: vec!["h2e2".parse().unwrap(), "h9g7".parse().unwrap()],
            ..SearchInfo::default()
        };
        assert_eq!(
            thinking_line(&info, None).as_deref(),
            Some("9 156 1084 48000 14 4424 0\th2e2 h9g7")
        );
        let lead = "b0c2".parse().ok();
        assert_eq!(
            thinking_line(&info, lead).as_deref(),
            Some("9 156 1084 48000 14 4424 0\tb0c2 h2e2 h9g7")
        );
    }
}
