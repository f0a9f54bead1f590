//! `chuhe analyze`: runs the analysis with a progress line on stderr and
//! writes what was asked for.

use super::args::AnalyzeArgs;
use crate::analyze::{analyze, annotate, comment, html, Progress, Settings, Thresholds};
use crate::record::{self, Format, Game};
use chuhe_core::search::Limits;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Duration;

const DEFAULT_DEPTH: u32 = 10;

pub fn run(args: AnalyzeArgs) -> Result<(), String> {
    let thresholds = Thresholds {
        inaccuracy: args.inaccuracy,
        mistake: args.mistake,
        blunder: args.blunder,
    };
    if !(0 < thresholds.inaccuracy
        && thresholds.inaccuracy <= thresholds.mistake
        && thresholds.mistake <= thresholds.blunder)
    {
        return Err(
            "thresholds must be positive and --inaccuracy <= --mistake <= --blunder".into(),
        );
    }
    let limits = match (args.movetime, args.depth) {
        (Some(ms), _) if ms == 0 || ms > 3_600_000 => {
            return Err(format!("--movetime {ms} is out of range (1 to 3600000)"))
        }
        (Some(ms), _) => Limits {
            movetime: Some(Duration::from_millis(ms)),
            ..Default::default()
        },
        (None, Some(d)) if !(1..=64).contains(&d) => {
            return Err(format!("--depth {d} is out of range (1 to 64)"))
        }
        (None, d) => Limits {
            depth: Some(d.unwrap_or(DEFAULT_DEPTH)),
            ..Default::default()
        },
    };
    // Check where the results go before spending time on the analysis.
    let out_format = match &args.out {
        Some(out) => Some(
            Format::from_path(Path::new(out))
                .ok_or_else(|| format!("--out {out}: name a .pgn or .xqf file"))?,
        ),
        None => None,
    };
    if out_format == Some(Format::Xqf) {
        // Said before the analysis, not after it (see write_game).
        write_game(
            args.out.as_deref().unwrap_or(""),
            Format::Xqf,
            &Game::default(),
        )?;
    }
    let games = record::read_file(Path::new(&args.game)).map_err(|e| e.to_string())?;
    let game = games.get(args.game_number.wrapping_sub(1)).ok_or_else(|| {
        format!(
            "{} holds {} game(s); there is no game {}",
            args.game,
            games.len(),
            args.game_number
        )
    })?;
    let settings = Settings {
        limits,
        threads: args.threads.clamp(1, 256),
        hash_mb: args.hash.clamp(1, 65536),
        thresholds,
    };
    let mut err = std::io::stderr();
    // On a terminal one line is rewritten in place; in a log, a line each.
    let tty = err.is_terminal();
    let analysis = analyze(game, &settings, &mut |p: &Progress| {
        let _ = if tty {
            write!(err, "\r\x1b[K{}", progress_line(p))
        } else {
            writeln!(err, "{}", progress_line(p))
        };
        let _ = err.flush();
    })
    .map_err(|e| e.to_string())?;
    if tty {
        let _ = writeln!(err);
    }
    for p in &analysis.plies {
        println!("{} {} {}: {}", p.number_text(), p.chinese, p.mv, comment(p));
    }
    if let Some(e) = &analysis.ending {
        println!("rules verdict: {}", e.summary);
    }
    let annotated = annotate(game, &analysis);
    if let (Some(out), Some(format)) = (&args.out, out_format) {
        write_game(out, format, &annotated)?;
        println!("annotated game written to {out}");
    }
    if let Some(path) = &args.html {
        std::fs::write(path, html(game, &analysis))
            .map_err(|e| format!("cannot write {path}: {e}"))?;
        println!("report written to {path}");
    }
    Ok(())
}

/// `ply 12/80 炮二平五 -35 ?` : where the analysis is and the last move's mark.
pub fn progress_line(p: &Progress) -> String {
    let mut s = format!("analyze: ply {}/{}", p.done, p.total);
    if let Some(last) = p.last {
        let (_, after) = last.red_texts();
        s.push_str(&format!(" {} {after}", last.chinese));
        if let Some(m) = last.mark {
            s.push(' ');
            s.push_str(m.symbol());
        }
    }
    s
}

fn write_game(path: &str, format: Format, game: &Game) -> Result<(), String> {
    let bytes = match format {
        Format::Pgn => record::pgn::write(std::slice::from_ref(game)).into_bytes(),
        Format::Xqf => record::xqf::write(game).map_err(|e| format!("{path}: {e}"))?,
    };
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {path}: {e}"))
}
