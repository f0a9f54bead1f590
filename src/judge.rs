//! `chuhe judge`: replay a game and say whether and how it ended, with the
//! classification of the last repetition cycle (棋例).

use chuhe_core::board::{Color, FenError, Move, Position};
use chuhe_core::rules::{self, ClassifiedMove, CycleReport, MoveClass, SideCycle, Target, Verdict};
use std::fmt;

/// Why a game could not be replayed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JudgeError {
    BadFen(FenError),
    /// Move text that is not a move; `index` counts from 1.
    BadMove {
        index: usize,
        text: String,
    },
    /// A move that is not legal in the position reached; `index` counts from 1.
    IllegalMove {
        index: usize,
        mv: Move,
    },
}

impl fmt::Display for JudgeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JudgeError::BadFen(e) => write!(f, "bad --fen: {e}"),
            JudgeError::BadMove { index, text } => {
                write!(
                    f,
                    "move {index} '{text}' is not a move in ICCS coordinates (like h2e2)"
                )
            }
            JudgeError::IllegalMove { index, mv } => {
                write!(f, "move {index} '{mv}' is illegal in the position reached")
            }
        }
    }
}

impl std::error::Error for JudgeError {}

/// Sets up `fen` (the start position when `None`) and plays `moves`
/// (whitespace-separated), checking each for legality.
pub fn replay(fen: Option<&str>, moves: &str) -> Result<Position, JudgeError> {
    let mut pos = match fen {
        Some(f) => Position::from_fen(f).map_err(JudgeError::BadFen)?,
        None => Position::startpos(),
    };
    for (i, text) in moves.split_whitespace().enumerate() {
        let index = i + 1;
        let mv: Move = text.parse().map_err(|_| JudgeError::BadMove {
            index,
            text: text.to_string(),
        })?;
        if !pos.is_legal(mv) {
            return Err(JudgeError::IllegalMove { index, mv });
        }
        pos.make_move(mv);
    }
    Ok(pos)
}

/// Everything the tool reports about a replayed game.
pub struct Judgement {
    pub verdict: Option<Verdict>,
    pub cycle: Option<CycleReport>,
}

pub fn judge_game(pos: &Position) -> Judgement {
    Judgement {
        verdict: rules::judge(pos),
        cycle: rules::judge_repetition(pos),
    }
}

impl Judgement {
    pub fn result(&self) -> &'static str {
        self.verdict.as_ref().map_or("*", |v| v.outcome.as_str())
    }

    pub fn reason(&self) -> &'static str {
        self.verdict.as_ref().map_or("none", |v| v.reason.as_str())
    }
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::Red => "red",
        Color::Black => "black",
    }
}

fn side_summary(s: &SideCycle) -> &'static str {
    if s.perpetual_check {
        "perpetual-check"
    } else if s.forbidden {
        "forbidden"
    } else {
        "allowed"
    }
}

/// One cycle move as text, each target with how it is won (see `target`):
/// `i9i5 chase cannon a5 (direct)`, `h5h7 mate-threat by h7h9, chase cannon
/// b7 (direct)`, `e5e6 idle, pawn-chase knight d6 (direct)`, `i2h2 chase
/// knight h8 (after the check f0e2)`.
fn move_line(m: &ClassifiedMove) -> String {
    let mut s = format!("{} {}", m.mv, m.class);
    if let Some(mate) = m.mate_move {
        s.push_str(&format!(" by {mate}"));
    }
    if m.class != MoveClass::Check {
        let (pieces, pawns): (Vec<&Target>, Vec<&Target>) =
            m.chases.iter().partition(|t| !t.pawn_only);
        let mut first = m.class == MoveClass::Chase;
        for (word, list) in [("chase", pieces), ("pawn-chase", pawns)] {
            if list.is_empty() {
                continue;
            }
            let names: Vec<String> = list.iter().map(|t| target(t)).collect();
            if first {
                s.push_str(&format!(" {}", names.join(", ")));
            } else {
                s.push_str(&format!(", {word} {}", names.join(", ")));
            }
            first = false;
        }
    }
    s
}

/// A chased piece and how the chase wins it: `knight h8 (direct)`, `rook
/// b2 (by exchange)`, `knight i7 (after the check f0e2)`.
pub fn target(t: &Target) -> String {
    format!("{t} ({})", t.how)
}

/// The moves a report shows: the last cycle (from the previous occurrence
/// of the final position to the end) when the cycle before it was the same
/// moves, as it almost always is; otherwise the whole judged stretch, since
/// the verdict weighs every move of it (two cycles from the third
/// occurrence on) and a side idle only in the earlier cycle is allowed.
fn shown_moves<'a>(pos: &Position, c: &'a CycleReport) -> (usize, &'a [ClassifiedMove]) {
    let history = pos.history();
    let from = (c.start_ply..history.len())
        .rev()
        .find(|&i| history[i].key == pos.key())
        .unwrap_or(c.start_ply);
    let (earlier, last) = c.moves.split_at(from - c.start_ply);
    let same_moves = |a: &[ClassifiedMove], b: &[ClassifiedMove]| {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.mv == y.mv)
    };
    if earlier.is_empty() || same_moves(earlier, last) {
        (from, last)
    } else {
        (c.start_ply, &c.moves)
    }
}

/// The text report: the last cycle's moves, side summaries, must-vary
/// advice, and the `result` line last.
pub fn render_text(pos: &Position, j: &Judgement) -> String {
    let mut out = String::new();
    if let Some(c) = &j.cycle {
        let (from, moves) = shown_moves(pos, c);
        out.push_str(&format!(
            "repetition occurrence {} cycle from ply {}\n",
            c.occurrence,
            from + 1
        ));
        for m in moves {
            out.push_str(&move_line(m));
            out.push('\n');
        }
        out.push_str(&format!("red {}\n", side_summary(&c.red)));
        out.push_str(&format!("black {}\n", side_summary(&c.black)));
        if c.red.forbidden_with_pawns
            && c.black.forbidden_with_pawns
            && !(c.red.forbidden && c.black.forbidden)
        {
            // 27.2: in a mutual perpetual attack a pawn's attack is a chase.
            out.push_str("mutual-attack pawn-chases-count\n");
        }
        if let Some(mv) = &c.must_vary {
            out.push_str(&format!("must-vary {} {}\n", side_name(mv.side), mv.banned));
        }
    }
    out.push_str(&format!("result {} {}\n", j.result(), j.reason()));
    out
}

/// A JSON string literal.
pub fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn move_json(m: &ClassifiedMove) -> String {
    let chases: Vec<String> = m
        .chases
        .iter()
        .map(|t| {
            format!(
                "{{\"piece\":{},\"square\":{},\"pawn_only\":{},\"by\":{}{}}}",
                json_str(chuhe_core::rules::kind_name(t.piece.kind())),
                json_str(&t.square.to_string()),
                t.pawn_only,
                json_str(t.how.as_str()),
                t.how.check_move().map_or(String::new(), |mv| format!(
                    ",\"check\":{}",
                    json_str(&mv.to_string())
                ))
            )
        })
        .collect();
    format!(
        "{{\"move\":{},\"side\":{},\"class\":{},\"class_with_pawns\":{},\"mate_move\":{},\"chases\":[{}]}}",
        json_str(&m.mv.to_string()),
        json_str(side_name(m.side)),
        json_str(m.class.as_str()),
        json_str(m.class_with_pawns.as_str()),
        m.mate_move
            .map_or("null".to_string(), |mv| json_str(&mv.to_string())),
        chases.join(",")
    )
}

/// The same report as one JSON object.
pub fn render_json(pos: &Position, j: &Judgement) -> String {
    let cycle = match &j.cycle {
        None => "null".to_string(),
        Some(c) => {
            let (from, moves) = shown_moves(pos, c);
            let moves: Vec<String> = moves.iter().map(move_json).collect();
            let must_vary = c.must_vary.as_ref().map_or("null".to_string(), |mv| {
                format!(
                    "{{\"side\":{},\"move\":{}}}",
                    json_str(side_name(mv.side)),
                    json_str(&mv.banned.to_string())
                )
            });
            format!(
                "{{\"occurrence\":{},\"start_ply\":{},\"moves\":[{}],\"red\":{},\"black\":{},\"must_vary\":{}}}",
                c.occurrence,
                from + 1,
                moves.join(","),
                json_str(side_summary(&c.red)),
                json_str(side_summary(&c.black)),
                must_vary
            )
        }
    };
    format!(
        "{{\"fen\":{},\"plies\":{},\"cycle\":{},\"result\":{},\"reason\":{}}}",
        json_str(&pos.fen()),
        pos.history().len(),
        cycle,
        json_str(j.result()),
        json_str(j.reason())
    )
}
