//! The HTML report of an analysis: one self-contained file (inline CSS and
//! SVG, no scripts, no fonts or images fetched) with the game's header, a
//! score graph, a board at each marked move and the move list.

use super::{comment, Analysis, Mark, PlyReport, LOSS_CLAMP_CP};
use crate::record::Game;
use chuhe_core::board::{Color, Move, PieceKind, Position, Square};
use std::fmt::Write;

/// Escapes text for HTML and SVG.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn mark_colour(m: Option<Mark>) -> &'static str {
    match m {
        None => "#555",
        Some(Mark::Inaccuracy) => "#d4a017",
        Some(Mark::Mistake) => "#e07000",
        Some(Mark::Blunder) => "#c00000",
    }
}

const CSS: &str = "body{font-family:sans-serif;margin:24px;color:#222;max-width:980px}\
h1{font-size:22px;margin:0 0 8px}h2{font-size:18px;margin:24px 0 8px}\
table.hdr td{padding:1px 12px 1px 0}table.moves{border-collapse:collapse;width:100%}\
table.moves td,table.moves th{border-bottom:1px solid #ddd;padding:3px 6px;text-align:left;font-size:14px}\
.mk{font-weight:bold}.verdict{background:#f4f0e0;border:1px solid #cbb;padding:8px;margin:12px 0}\
.board{display:inline-block;margin:0 18px 18px 0;vertical-align:top;font-size:14px}\
pre{background:#f6f6f6;padding:8px;font-size:13px}.small{color:#666;font-size:13px}";

/// The whole report.
pub fn html(game: &Game, a: &Analysis) -> String {
    let mut h = String::new();
    let red = game.tag("Red").unwrap_or("Red");
    let black = game.tag("Black").unwrap_or("Black");
    let title = format!("{red} – {black}");
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"zh\"><head><meta charset=\"utf-8\">\
         <title>{}</title><style>{CSS}</style></head><body>\n",
        esc(&title)
    );
    let _ = writeln!(h, "<h1>{}</h1>", esc(&title));
    h.push_str("<table class=\"hdr\">\n");
    for (k, v) in &game.tags {
        let _ = writeln!(h, "<tr><td>{}</td><td>{}</td></tr>", esc(k), esc(v));
    }
    let _ = writeln!(
        h,
        "<tr><td>Analysis</td><td>{}</td></tr>\n</table>",
        esc(&a.settings_text)
    );
    if let Some(e) = &a.ending {
        let _ = writeln!(
            h,
            "<div class=\"verdict\"><b>Rules verdict:</b> {}</div>",
            esc(&e.summary)
        );
    }

    h.push_str("<h2>Score (Red's view, centipawns)</h2>\n");
    h.push_str(&graph(a));

    let marked: Vec<&PlyReport> = a.plies.iter().filter(|p| p.mark.is_some()).collect();
    if !marked.is_empty() {
        h.push_str("<h2 id=\"marked\">Marked moves</h2>\n<p class=\"small\">Red arrow: the move played; green: the engine's choice.</p>\n");
        for p in &marked {
            let mark = p.mark.expect("marked");
            let best = p.best.filter(|&b| b != p.mv);
            let _ = write!(
                h,
                "<div class=\"board\">{}",
                board(&p.fen_before, p.mv, best, &format!("m{}", p.ply))
            );
            let _ = write!(
                h,
                "<br><b>{} {}{}</b> {} (lost {})",
                p.number_text(),
                esc(&p.chinese),
                mark.symbol(),
                mark.name(),
                p.loss
            );
            if let (Some(b), Some(cn)) = (best, &p.best_chinese) {
                let _ = write!(h, "<br>better: {} ({b})", esc(cn));
            }
            h.push_str("</div>\n");
        }
    }

    h.push_str("<h2 id=\"moves\">Moves</h2>\n<table class=\"moves\"><tr><th>#</th><th>Move</th><th>Red: before → after</th><th>Mark</th><th>Engine</th></tr>\n");
    for p in &a.plies {
        let (before, after) = p.red_texts();
        let mark = p
            .mark
            .map(|m| format!("{} {}", m.symbol(), m.name()))
            .unwrap_or_default();
        let engine = match p.best {
            Some(b) if b == p.mv => "best move".to_string(),
            Some(b) => format!(
                "{} ({b}) · PV {}",
                p.best_chinese.clone().unwrap_or_default(),
                p.pv_chinese.join(" ")
            ),
            None => String::new(),
        };
        let _ = writeln!(
            h,
            "<tr title=\"{}\"><td>{}</td><td>{} <span class=\"small\">{}</span></td><td>{} → {}</td><td class=\"mk\" style=\"color:{}\">{}</td><td>{}</td></tr>",
            esc(&comment(p)),
            p.number_text(),
            esc(&p.chinese),
            p.mv,
            esc(&before),
            esc(&after),
            mark_colour(p.mark),
            esc(&mark),
            esc(&engine)
        );
    }
    h.push_str("</table>\n");
    if let Some(e) = &a.ending {
        let _ = writeln!(
            h,
            "<h2 id=\"judgement\">Rules judgement</h2>\n<pre>{}</pre>",
            esc(&e.detail)
        );
    }
    h.push_str("</body></html>\n");
    h
}

/// The score graph: one point per ply, the score after it from Red's view,
/// clamped to ±LOSS_CLAMP_CP; marked plies in their mark's colour; the axis
/// counts moves, as the record does.
pub fn graph(a: &Analysis) -> String {
    const W: f64 = 900.0;
    const H: f64 = 260.0;
    const PAD: f64 = 36.0;
    let n = a.plies.len();
    let mid = H / 2.0;
    let half = H / 2.0 - 16.0;
    let x = |i: usize| PAD + (W - 2.0 * PAD) * (i as f64 + 0.5) / n.max(1) as f64;
    let y = |cp: i32| {
        mid - half * cp.clamp(-LOSS_CLAMP_CP, LOSS_CLAMP_CP) as f64 / LOSS_CLAMP_CP as f64
    };
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"graph\" width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\">\
         <rect width=\"{W}\" height=\"{H}\" fill=\"#fbfbf8\" stroke=\"#ccc\"/>\
         <rect x=\"{PAD}\" y=\"0\" width=\"{}\" height=\"{mid}\" fill=\"#fff0f0\"/>\
         <line x1=\"{PAD}\" y1=\"{mid}\" x2=\"{}\" y2=\"{mid}\" stroke=\"#999\"/>",
        W - 2.0 * PAD,
        W - PAD
    );
    for (cp, label) in [
        (LOSS_CLAMP_CP, "+1000"),
        (0, "0"),
        (-LOSS_CLAMP_CP, "-1000"),
    ] {
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"end\" fill=\"#666\">{label}</text>",
            PAD - 4.0,
            y(cp) + 3.0
        );
    }
    // Move numbers along the bottom, about ten of them, each under the
    // first ply of its move (two points a move: Red's and Black's).
    let first = a.plies.first().map_or(1, |p| p.move_number);
    let last = a.plies.last().map_or(1, |p| p.move_number);
    let step = ((last - first + 1) / 10).max(1);
    let mut labelled = None;
    for (i, p) in a.plies.iter().enumerate() {
        if labelled == Some(p.move_number) || !(p.move_number - first).is_multiple_of(step) {
            continue;
        }
        labelled = Some(p.move_number);
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\" fill=\"#666\">{}</text>",
            x(i),
            H - 3.0,
            p.move_number
        );
    }
    let _ = write!(
        s,
        "<text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"end\" fill=\"#666\">move</text>",
        PAD - 4.0,
        H - 3.0
    );
    if n > 0 {
        let points: Vec<String> = a
            .plies
            .iter()
            .enumerate()
            .map(|(i, p)| format!("{:.1},{:.1}", x(i), y(p.red_cp_after())))
            .collect();
        let _ = write!(
            s,
            "<polyline fill=\"none\" stroke=\"#446\" stroke-width=\"1.5\" points=\"{}\"/>",
            points.join(" ")
        );
    }
    for (i, p) in a.plies.iter().enumerate() {
        let r = if p.mark.is_some() { 4.5 } else { 2.5 };
        let _ = write!(
            s,
            "<circle class=\"pt\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"{r}\" fill=\"{}\"><title>{} {} {:+}</title></circle>",
            x(i),
            y(p.red_cp_after()),
            mark_colour(p.mark),
            p.number_text(),
            esc(&p.chinese),
            p.red_cp_after()
        );
    }
    s.push_str("</svg>\n");
    s
}

const PLAYED: &str = "#d00000";
const BETTER: &str = "#00a000";

/// An arrowhead marker.
fn head(id: &str, colour: &str) -> String {
    format!(
        "<marker id=\"{id}\" viewBox=\"0 0 10 10\" refX=\"7\" refY=\"5\" markerWidth=\"4\" markerHeight=\"4\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"{colour}\"/></marker>"
    )
}

fn piece_char(color: Color, kind: PieceKind) -> char {
    let (red, black) = match kind {
        PieceKind::King => ('帥', '將'),
        PieceKind::Advisor => ('仕', '士'),
        PieceKind::Bishop => ('相', '象'),
        PieceKind::Knight => ('傌', '馬'),
        PieceKind::Rook => ('俥', '車'),
        PieceKind::Cannon => ('炮', '砲'),
        PieceKind::Pawn => ('兵', '卒'),
    };
    match color {
        Color::Red => red,
        Color::Black => black,
    }
}

/// A board (Red at the bottom) with the move played and a better one drawn.
/// `id` makes the arrowheads' ids unique in the page.
pub fn board(fen: &str, played: Move, better: Option<Move>, id: &str) -> String {
    const C: f64 = 34.0;
    const M: f64 = 24.0;
    let px = |sq: Square| M + C * sq.file().index() as f64;
    let py = |sq: Square| M + C * (9 - sq.rank().index()) as f64;
    let w = 2.0 * M + 8.0 * C;
    let h = 2.0 * M + 9.0 * C;
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"bd\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">\
         <defs>{}{}</defs>\
         <rect width=\"{w}\" height=\"{h}\" fill=\"#eed9a8\"/>",
        head(&format!("{id}p"), PLAYED),
        head(&format!("{id}b"), BETTER)
    );
    let line = |s: &mut String, x1: f64, y1: f64, x2: f64, y2: f64| {
        let _ = write!(
            s,
            "<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" stroke=\"#704214\" stroke-width=\"1\"/>"
        );
    };
    for r in 0..10 {
        let yy = M + C * r as f64;
        line(&mut s, M, yy, M + 8.0 * C, yy);
    }
    for f in 0..9 {
        let xx = M + C * f as f64;
        if f == 0 || f == 8 {
            line(&mut s, xx, M, xx, M + 9.0 * C);
        } else {
            // Files stop at the river.
            line(&mut s, xx, M, xx, M + 4.0 * C);
            line(&mut s, xx, M + 5.0 * C, xx, M + 9.0 * C);
        }
    }
    for top in [0.0, 7.0] {
        line(
            &mut s,
            M + 3.0 * C,
            M + top * C,
            M + 5.0 * C,
            M + (top + 2.0) * C,
        );
        line(
            &mut s,
            M + 5.0 * C,
            M + top * C,
            M + 3.0 * C,
            M + (top + 2.0) * C,
        );
    }
    let _ = write!(
        s,
        "<text x=\"{}\" y=\"{}\" font-size=\"18\" fill=\"#704214\" text-anchor=\"middle\">楚 河　　　漢 界</text>",
        M + 4.0 * C,
        M + 4.5 * C + 6.0
    );
    if let Ok(pos) = Position::from_fen(fen) {
        for sq in Square::all() {
            if let Some(p) = pos.piece_at(sq) {
                let colour = if p.color() == Color::Red {
                    "#b00000"
                } else {
                    "#111"
                };
                let _ = write!(
                    s,
                    "<circle cx=\"{}\" cy=\"{}\" r=\"15\" fill=\"#fdf3dc\" stroke=\"{colour}\" stroke-width=\"1.5\"/>\
                     <text x=\"{}\" y=\"{}\" font-size=\"17\" text-anchor=\"middle\" fill=\"{colour}\">{}</text>",
                    px(sq),
                    py(sq),
                    px(sq),
                    py(sq) + 6.0,
                    piece_char(p.color(), p.kind())
                );
            }
        }
    }
    let mut arrow = |mv: Move, colour: &str, class: &str, head: String| {
        let _ = write!(
            s,
            "<line class=\"{class}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{colour}\" stroke-width=\"4\" stroke-opacity=\"0.75\" marker-end=\"url(#{head})\"/>",
            px(mv.from()),
            py(mv.from()),
            px(mv.to()),
            py(mv.to())
        );
    };
    arrow(played, PLAYED, "played", format!("{id}p"));
    if let Some(b) = better {
        arrow(b, BETTER, "better", format!("{id}b"));
    }
    s.push_str("</svg>");
    s
}
