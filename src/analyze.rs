//! `chuhe analyze`: the engine's view of every main-line move of a game,
//! the rules verdict at its end, the annotated game and an HTML report.
//!
//! Every position of the main line is searched once, with the game's moves
//! behind it (so the repetition rules see them): position `i`'s score is
//! the best the mover of ply `i` could get ("before"), minus position
//! `i + 1`'s score is what the move played kept ("after"). The difference,
//! with both clamped to ±`LOSS_CLAMP_CP` so that a won game staying won is
//! no mistake, is the score the move lost; a move that is the engine's own
//! choice (or its mirror image in a symmetric position) loses nothing.
//! Lost at least `inaccuracy`, `mistake` or `blunder`
//! centipawns (flags), the move is marked `?!`, `?` or `??`.
//!
//! A position the rules have already ended (mate, stalemate, a judged
//! repetition, the natural limit) is not searched: its score is the rules'.

pub mod report;

pub use report::html;

use crate::record::Game;
use chuhe_core::board::{notation, Color, Move, Position};
use chuhe_core::engine::Engine;
use chuhe_core::rules::{self, How, Outcome, Reason, Verdict};
use chuhe_core::search::{values, Limits, Score, StopHandle};

/// Centipawns that stand for a mate (less the plies to it).
pub const MATE_CP: i32 = 10_000;
/// Centipawns that stand for a win by the repetition rules.
pub const RULE_WIN_CP: i32 = 9_000;
/// Scores beyond this count as this much when measuring what a move lost.
pub const LOSS_CLAMP_CP: i32 = 1000;

/// How many centipawns lost make a move an inaccuracy, mistake, blunder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thresholds {
    pub inaccuracy: i32,
    pub mistake: i32,
    pub blunder: i32,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            inaccuracy: 50,
            mistake: 100,
            blunder: 250,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Mark {
    pub fn symbol(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "?!",
            Mark::Mistake => "?",
            Mark::Blunder => "??",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "inaccuracy",
            Mark::Mistake => "mistake",
            Mark::Blunder => "blunder",
        }
    }
}

impl Thresholds {
    pub fn mark(&self, loss: i32) -> Option<Mark> {
        if loss >= self.blunder {
            Some(Mark::Blunder)
        } else if loss >= self.mistake {
            Some(Mark::Mistake)
        } else if loss >= self.inaccuracy {
            Some(Mark::Inaccuracy)
        } else {
            None
        }
    }
}

/// What to search and how.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Depth or movetime per position.
    pub limits: Limits,
    pub threads: usize,
    pub hash_mb: usize,
    pub thresholds: Thresholds,
}

/// A score from one side's view: centipawns for arithmetic, text for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Eval {
    pub cp: i32,
    pub text: String,
}

impl Eval {
    fn from_score(s: Score) -> Eval {
        match s {
            // The search's "won by the repetition rules" (a forbidden cycle
            // it expects): beyond every evaluation, short of a mate.
            Score::Cp(cp) if cp >= values::WIN_BOUND => Eval {
                cp: RULE_WIN_CP,
                text: "rule win".into(),
            },
            Score::Cp(cp) if cp <= -values::WIN_BOUND => Eval {
                cp: -RULE_WIN_CP,
                text: "rule loss".into(),
            },
            Score::Cp(cp) => Eval {
                cp,
                text: format!("{cp:+}"),
            },
            Score::Mate(n) if n > 0 => Eval {
                cp: MATE_CP - 2 * n,
                text: format!("mate in {n}"),
            },
            Score::Mate(n) => Eval {
                cp: -MATE_CP - 2 * n,
                text: if n == 0 {
                    "mated".into()
                } else {
                    format!("mated in {}", -n)
                },
            },
        }
    }

    /// The score of a position the rules ended, for its side to move.
    fn from_verdict(v: &Verdict, side_to_move: Color) -> Eval {
        match v.outcome {
            Outcome::Draw => Eval {
                cp: 0,
                text: format!("draw ({})", v.reason.as_str()),
            },
            o if o == Outcome::win_for(side_to_move) => Eval {
                cp: MATE_CP,
                text: format!("won ({})", v.reason.as_str()),
            },
            _ => Eval {
                cp: -MATE_CP,
                text: format!("lost ({})", v.reason.as_str()),
            },
        }
    }

    /// The same score from the other side.
    fn negate(&self) -> Eval {
        let text = if let Some(rest) = self.text.strip_prefix("mate in ") {
            format!("mated in {rest}")
        } else if let Some(rest) = self.text.strip_prefix("mated in ") {
            format!("mate in {rest}")
        } else if self.text == "mated" {
            "mates".into()
        } else if let Some(rest) = self.text.strip_prefix("won ") {
            format!("lost {rest}")
        } else if let Some(rest) = self.text.strip_prefix("lost ") {
            format!("won {rest}")
        } else if self.text == "rule win" {
            "rule loss".into()
        } else if self.text == "rule loss" {
            "rule win".into()
        } else if self.text.starts_with("draw") {
            self.text.clone()
        } else {
            format!("{:+}", -self.cp)
        };
        Eval { cp: -self.cp, text }
    }
}

/// One position searched.
#[derive(Debug, Clone)]
struct Searched {
    eval: Eval,
    best: Option<Move>,
    pv: Vec<Move>,
    depth: u32,
}

/// The analysis of one main-line move.
#[derive(Debug, Clone)]
pub struct PlyReport {
    /// 1 for the first move.
    pub ply: usize,
    /// The move's number as records count moves: the full-move number of
    /// the position before it (FEN field 6), so 1 for Red's first move and
    /// Black's reply in a standard game; a set-up position goes on from
    /// its FEN's number, as the annotated PGN does.
    pub move_number: u32,
    pub side: Color,
    pub mv: Move,
    pub chinese: String,
    /// The best the mover could get, from the mover's view.
    pub before: Eval,
    /// What the move played kept, from the mover's view.
    pub after: Eval,
    pub best: Option<Move>,
    pub best_chinese: Option<String>,
    /// The engine's principal variation from the position before the move.
    pub pv: Vec<Move>,
    pub pv_chinese: Vec<String>,
    pub depth: u32,
    /// Centipawns lost (0 when the move is the engine's choice).
    pub loss: i32,
    pub mark: Option<Mark>,
    /// The position before the move (FEN), for the report's boards.
    pub fen_before: String,
}

impl PlyReport {
    /// The move's number as a record writes it: `7.` for Red's move,
    /// `7...` for Black's.
    pub fn number_text(&self) -> String {
        match self.side {
            Color::Red => format!("{}.", self.move_number),
            Color::Black => format!("{}...", self.move_number),
        }
    }

    /// The score after the move from Red's view, for the graph.
    pub fn red_cp_after(&self) -> i32 {
        match self.side {
            Color::Red => self.after.cp,
            Color::Black => -self.after.cp,
        }
    }

    /// `before` and `after` from Red's view, as text.
    pub fn red_texts(&self) -> (String, String) {
        match self.side {
            Color::Red => (self.before.text.clone(), self.after.text.clone()),
            Color::Black => (self.before.negate().text, self.after.negate().text),
        }
    }
}

/// The rules' word on how the game ended.
#[derive(Debug, Clone)]
pub struct Ending {
    pub verdict: Verdict,
    /// A sentence: `0-1: perpetual check by Red`.
    pub summary: String,
    /// The judge's report (`chuhe judge`), cycle moves and all.
    pub detail: String,
}

#[derive(Debug, Clone)]
pub struct Analysis {
    pub plies: Vec<PlyReport>,
    pub ending: Option<Ending>,
    pub settings_text: String,
}

/// Where the analysis is, for a progress line.
pub struct Progress<'a> {
    pub done: usize,
    pub total: usize,
    pub last: Option<&'a PlyReport>,
}

/// Why a game could not be analysed.
#[derive(Debug)]
pub enum AnalyzeError {
    BadStart(chuhe_core::board::FenError),
    /// The main line's move `number` (from 1) is not legal where it stands.
    IllegalMove {
        number: usize,
        mv: Move,
    },
    /// The stop handle was stopped before the last move.
    Stopped,
}

impl std::fmt::Display for AnalyzeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnalyzeError::BadStart(e) => write!(f, "bad start position: {e}"),
            AnalyzeError::IllegalMove { number, mv } => {
                write!(f, "move {number} ({mv}) is not legal")
            }
            AnalyzeError::Stopped => f.write_str("analysis stopped"),
        }
    }
}

impl std::error::Error for AnalyzeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AnalyzeError::BadStart(e) => Some(e),
            _ => None,
        }
    }
}

/// Analyses the main line of `game`.
pub fn analyze(
    game: &Game,
    settings: &Settings,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Analysis, AnalyzeError> {
    analyze_with_stop(game, settings, &StopHandle::new(), progress)
}

/// `analyze`, ended early (an error) when `stop` is stopped: `chuhe gui`
/// stops a review the moment the user wants the engine for something else.
pub fn analyze_with_stop(
    game: &Game,
    settings: &Settings,
    stop: &StopHandle,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Analysis, AnalyzeError> {
    let start = game.start_position().map_err(AnalyzeError::BadStart)?;
    let moves = game.mainline();
    // Check the whole line before spending time on it.
    let mut pos = start.clone();
    for (i, &mv) in moves.iter().enumerate() {
        if !pos.is_legal(mv) {
            return Err(AnalyzeError::IllegalMove { number: i + 1, mv });
        }
        pos.make_move(mv);
    }

    let mut engine = Engine::new();
    engine.set_hash_mb(settings.hash_mb);
    engine.set_threads(settings.threads);
    let mut pos = start;
    let mut searched = Vec::with_capacity(moves.len() + 1);
    let mut plies: Vec<PlyReport> = Vec::with_capacity(moves.len());
    progress(&Progress {
        done: 0,
        total: moves.len(),
        last: None,
    });
    searched.push(search(&mut engine, &pos, &settings.limits, stop));
    for (i, &mv) in moves.iter().enumerate() {
        if stop.is_stopped() {
            return Err(AnalyzeError::Stopped);
        }
        let before_pos = pos.clone();
        pos.make_move(mv);
        searched.push(search(&mut engine, &pos, &settings.limits, stop));
        let s = &searched[i];
        let after = searched[i + 1].eval.negate();
        // In a left-right symmetric position (the start) a move and its
        // mirror image are the same choice.
        let symmetric = chuhe_core::book::chuhe_key(&before_pos, true)
            == chuhe_core::book::chuhe_key(&before_pos, false);
        let same_as_best = s.best == Some(mv)
            || (symmetric && s.best.map(chuhe_core::book::eleeye::mirror_move) == Some(mv));
        let loss = if same_as_best {
            0
        } else {
            let clamp = |cp: i32| cp.clamp(-LOSS_CLAMP_CP, LOSS_CLAMP_CP);
            (clamp(s.eval.cp) - clamp(after.cp)).max(0)
        };
        plies.push(PlyReport {
            ply: i + 1,
            move_number: before_pos.fullmove_number().max(1),
            side: before_pos.side_to_move(),
            mv,
            chinese: notation::chinese(&before_pos, mv).unwrap_or_else(|_| mv.to_string()),
            before: s.eval.clone(),
            after,
            best: s.best,
            best_chinese: s.best.and_then(|b| notation::chinese(&before_pos, b).ok()),
            pv: s.pv.clone(),
            pv_chinese: notation::chinese_line(&before_pos, &s.pv).unwrap_or_default(),
            depth: s.depth,
            loss,
            mark: settings.thresholds.mark(loss),
            fen_before: before_pos.fen(),
        });
        progress(&Progress {
            done: i + 1,
            total: moves.len(),
            last: plies.last(),
        });
    }
    let ending = rules::judge(&pos).map(|verdict| ending(&pos, verdict));
    let limit = match (settings.limits.depth, settings.limits.movetime) {
        (Some(d), _) => format!("depth {d}"),
        (None, Some(t)) => format!("{} ms per position", t.as_millis()),
        _ => "default limits".into(),
    };
    Ok(Analysis {
        plies,
        ending,
        settings_text: format!(
            "Chuhe {} ({limit}, {} thread{})",
            env!("CARGO_PKG_VERSION"),
            settings.threads,
            if settings.threads == 1 { "" } else { "s" }
        ),
    })
}

fn search(engine: &mut Engine, pos: &Position, limits: &Limits, stop: &StopHandle) -> Searched {
    if let Some(v) = rules::judge(pos) {
        return Searched {
            eval: Eval::from_verdict(&v, pos.side_to_move()),
            best: None,
            pv: Vec::new(),
            depth: 0,
        };
    }
    let mut pv = Vec::new();
    let result = engine.go(pos, limits, stop, &mut |info| {
        if !info.pv.is_empty() {
            pv = info.pv.clone();
        }
    });
    if result.best.is_some() && pv.first() != result.best.as_ref() {
        pv = result.best.into_iter().collect();
    }
    Searched {
        eval: Eval::from_score(result.score),
        best: result.best,
        pv,
        depth: result.depth,
    }
}

fn side_word(c: Color) -> &'static str {
    match c {
        Color::Red => "Red",
        Color::Black => "Black",
    }
}

/// The verdict in words, and the judge's report.
pub fn ending(pos: &Position, verdict: Verdict) -> Ending {
    let judged = super::judge::judge_game(pos);
    let detail = super::judge::render_text(pos, &judged);
    let loser = match verdict.outcome {
        Outcome::RedWins => Some(Color::Black),
        Outcome::BlackWins => Some(Color::Red),
        Outcome::Draw => None,
    };
    let what = match (verdict.reason, loser) {
        (Reason::PerpetualCheck, Some(c)) => format!("perpetual check by {}", side_word(c)),
        (Reason::PerpetualAttack, Some(c)) => {
            let targets = chased_by(pos, &judged, c);
            if targets.is_empty() {
                format!("perpetual attack by {}", side_word(c))
            } else {
                format!(
                    "perpetual chase by {} (of the {})",
                    side_word(c),
                    targets.join(", ")
                )
            }
        }
        (Reason::Checkmate, Some(c)) => format!("{} is checkmated", side_word(c)),
        (Reason::Stalemate, Some(c)) => format!("{} has no legal move", side_word(c)),
        (Reason::RepetitionDraw, _) => "repetition, neither side's cycle is forbidden".into(),
        (Reason::NaturalLimit, _) => "the natural move limit (60 moves without a capture)".into(),
        (Reason::NoWinningMaterial, _) => "neither side can win".into(),
        (r, _) => r.as_str().to_string(),
    };
    Ending {
        summary: format!("{}: {what}", verdict.outcome.as_str()),
        verdict,
        detail,
    }
}

/// The pieces `side` chased in the judged cycle, with how when not by a
/// plain capture (`rook a5`, `rook b2 by exchange`, `knight h8 after the
/// check f0e2`).
fn chased_by(pos: &Position, j: &super::judge::Judgement, side: Color) -> Vec<String> {
    let Some(c) = &j.cycle else {
        return Vec::new();
    };
    let n = pos.history().len();
    let mut out: Vec<String> = Vec::new();
    for (k, m) in c.moves.iter().enumerate() {
        let index = c.start_ply + k;
        if index >= n {
            break;
        }
        // The last move was played by the side not to move now.
        let mover = if (n - 1 - index).is_multiple_of(2) {
            !pos.side_to_move()
        } else {
            pos.side_to_move()
        };
        if mover != side {
            continue;
        }
        for t in &m.chases {
            // How a target is won is named unless it is a plain capture.
            let t = match t.how {
                How::Direct => t.to_string(),
                how => format!("{t} {how}"),
            };
            if !out.contains(&t) {
                out.push(t);
            }
        }
    }
    out
}

/// The game with the analysis in its move comments (after any comment the
/// record already had), an `Annotator` tag and the verdict on the last move.
pub fn annotate(game: &Game, a: &Analysis) -> Game {
    let mut out = game.clone();
    // Short: XQF keeps header fields in a few fixed bytes. The depth is in
    // every comment (`Chuhe d8:`).
    out.set_tag("Annotator", &format!("Chuhe {}", env!("CARGO_PKG_VERSION")));
    for (node, p) in out.moves.iter_mut().zip(&a.plies) {
        let text = comment(p);
        node.comment = Some(match node.comment.take() {
            Some(old) if !old.trim().is_empty() => format!("{old}\n{text}"),
            _ => text,
        });
    }
    if let (Some(e), Some(last)) = (&a.ending, out.moves.last_mut()) {
        let c = last.comment.get_or_insert_with(String::new);
        c.push_str(&format!("\nRules verdict: {}", e.summary));
    }
    out
}

/// One move's analysis as a comment (scores from Red's view).
pub fn comment(p: &PlyReport) -> String {
    let (before, after) = p.red_texts();
    let mut s = format!("Chuhe d{}: Red {before} -> {after}", p.depth);
    if let Some(m) = p.mark {
        s.push_str(&format!("; {} {} (lost {})", m.symbol(), m.name(), p.loss));
    }
    if let Some(best) = p.best {
        let cn = p.best_chinese.clone().unwrap_or_default();
        if best == p.mv {
            s.push_str("; best move");
        } else {
            s.push_str(&format!("; best {cn} ({best})"));
        }
        if !p.pv.is_empty() {
            let iccs: Vec<String> = p.pv.iter().map(|m| m.to_string()).collect();
            s.push_str(&format!(
                "; PV {} ({})",
                p.pv_chinese.join(" "),
                iccs.join(" ")
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_by_loss() {
        let t = Thresholds::default();
        assert_eq!(t.mark(10), None);
        assert_eq!(t.mark(50), Some(Mark::Inaccuracy));
        assert_eq!(t.mark(120), Some(Mark::Mistake));
        assert_eq!(t.mark(900), Some(Mark::Blunder));
    }

    #[test]
    fn evals_negate_in_words() {
        let e = Eval::from_score(Score::Mate(3));
        assert_eq!(e.negate().text, "mated in 3");
        assert_eq!(e.negate().cp, -e.cp);
        assert_eq!(Eval::from_score(Score::Cp(35)).negate().text, "-35");
        assert!(Eval::from_score(Score::Mate(2)).cp > Eval::from_score(Score::Mate(5)).cp);
        let rule = Eval::from_score(Score::Cp(-values::RULE_WIN + 1));
        assert_eq!(rule.text, "rule loss");
        assert_eq!(rule.negate().text, "rule win");
        assert!(rule.cp < -LOSS_CLAMP_CP);
    }
}
