//! `chuhe-fake-engine`: a scripted UCCI/UCI engine for the match runner's
//! tests. It never searches; each `go` takes the next action of its script.
//!
//! Options:
//!   --proto ucci|uci|both   which handshake it answers (default both)
//!   --script "A B C"        actions, one per `go`:
//!       MOVE (ICCS, played even if illegal), first (first legal move),
//!       none (nobestmove), crash (exit at once), hang (never answer);
//!       `+draw` / `+resign` add that word to bestmove, `@MS` waits first
//!   --cycle                 repeat the script (otherwise `first` after it)
//!   --no-millis             do not offer the UCCI option usemillisec
//!   --accept-draw           answer `go draw` with a draw
//!   --obey-ban              replace a banned (or non-searchmoves) scripted move
//!   --resign-as-black       resign every move when playing Black
//!   --score N, --depth D    what `info` reports (default 0, 1)
//!   --nodes N               also report `info time T nodes N` (ElephantEye's
//!                           form: nodes and its own time, no nps)
//!   --ranks-from-one        read and write moves with ranks 1-10 (b1c3), as
//!                           Fairy-Stockfish does in UCI; scripted moves are
//!                           then written in that convention too
//!   --variant-option        list the UCI option UCI_Variant in the handshake
//!   --ponder-option         list the option `ponder` (UCCI) / `Ponder` (UCI)
//!   --deaf-to-stop          never answer a `stop` that ends a ponder search
//!   --log FILE              append every line received to FILE
//!
//! `go ponder` is answered only after `ponderhit` (with the next action of
//! the script, as a `go` would be; `ponderhit draw` is a draw offer) or
//! `stop` (with the last legal move, which the runner must throw away). While
//! it ponders it prints `info depth 99 score 999`, which must never reach a
//! record unless the search is used.

use chuhe::matches::engine::{move_from_engine, move_to_engine};
use chuhe_core::board::{Color, Move, Position};
use std::io::{BufRead, Write};
use std::time::Duration;

#[derive(Default)]
struct Options {
    proto: String,
    script: Vec<String>,
    cycle: bool,
    accept_draw: bool,
    no_millis: bool,
    obey_ban: bool,
    resign_as_black: bool,
    score: i32,
    depth: u32,
    nodes: Option<u64>,
    /// The first rank number of moves on the wire: 0 or 1.
    base: u8,
    variant_option: bool,
    ponder_option: bool,
    deaf_to_stop: bool,
    log: Option<std::fs::File>,
}

fn parse_args() -> Options {
    let mut o = Options {
        proto: "both".into(),
        depth: 1,
        ..Options::default()
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--proto" => o.proto = args.next().unwrap_or_default(),
            "--script" => {
                o.script = args
                    .next()
                    .unwrap_or_default()
                    .split_whitespace()
                    .map(str::to_string)
                    .collect()
            }
            "--cycle" => o.cycle = true,
            "--accept-draw" => o.accept_draw = true,
            "--no-millis" => o.no_millis = true,
            "--obey-ban" => o.obey_ban = true,
            "--resign-as-black" => o.resign_as_black = true,
            "--ranks-from-one" => o.base = 1,
            "--variant-option" => o.variant_option = true,
            "--ponder-option" => o.ponder_option = true,
            "--deaf-to-stop" => o.deaf_to_stop = true,
            "--score" => o.score = args.next().and_then(|s| s.parse().ok()).unwrap_or(0),
            "--depth" => o.depth = args.next().and_then(|s| s.parse().ok()).unwrap_or(1),
            "--nodes" => o.nodes = args.next().and_then(|s| s.parse().ok()),
            "--log" => {
                o.log = args.next().and_then(|p| {
                    std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(p)
                        .ok()
                })
            }
            other => {
                eprintln!("chuhe-fake-engine: unknown argument {other}");
                std::process::exit(2);
            }
        }
    }
    o
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn parse_position(words: &[&str], base: u8) -> Option<Position> {
    let moves_at = words.iter().position(|&w| w == "moves");
    let head = &words[..moves_at.unwrap_or(words.len())];
    let mut pos = match head.first() {
        Some(&"startpos") => Position::startpos(),
        Some(&"fen") => Position::from_fen(&head[1..].join(" ")).ok()?,
        _ => return None,
    };
    if let Some(i) = moves_at {
        for m in &words[i + 1..] {
            let mv = move_from_engine(m, base)?;
            pos.make_move(mv);
        }
    }
    Some(pos)
}

fn main() {
    let mut o = parse_args();
    let mut ucci = false;
    let mut pos = Position::startpos();
    let mut banned: Vec<Move> = Vec::new();
    let mut turn = 0usize;
    let mut pondering = false;
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        if let Some(f) = o.log.as_mut() {
            let _ = writeln!(f, "{line}");
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first().copied() {
            Some("ucci") if o.proto != "uci" => {
                ucci = true;
                say("id name FakeEngine");
                if !o.no_millis {
                    say("option usemillisec type check default false");
                }
                if o.ponder_option {
                    say("option ponder type check default false");
                }
                say("ucciok");
            }
            Some("uci") if o.proto != "ucci" => {
                say("id name FakeEngine");
                if o.variant_option {
                    say("option name UCI_Variant type combo default xiangqi var xiangqi");
                }
                if o.ponder_option {
                    say("option name Ponder type check default false");
                }
                say("uciok");
            }
            Some("isready") => say("readyok"),
            Some("position") => {
                if let Some(p) = parse_position(&words[1..], o.base) {
                    pos = p;
                }
                banned.clear();
            }
            Some("banmoves") => {
                banned = words[1..]
                    .iter()
                    .filter_map(|m| move_from_engine(m, o.base))
                    .collect()
            }
            Some("go") if words.get(1) == Some(&"ponder") => {
                pondering = true;
                if let Some(&m) = pos.legal_moves().first() {
                    say(&format!(
                        "info depth 99 score 999 pv {}",
                        move_to_engine(m, o.base)
                    ));
                }
            }
            Some("ponderhit") if pondering => {
                pondering = false;
                let action = next_action(&o, &mut turn);
                answer(
                    &o,
                    &pos,
                    &banned,
                    &action,
                    words.get(1) == Some(&"draw"),
                    ucci,
                );
            }
            Some("stop") if pondering && o.deaf_to_stop => {}
            Some("stop") if pondering => {
                pondering = false;
                match pos.legal_moves().last() {
                    Some(&m) => say(&format!("bestmove {}", move_to_engine(m, o.base))),
                    None => say("nobestmove"),
                }
            }
            Some("go") => {
                let draw_offered = words.get(1) == Some(&"draw");
                if let Some(i) = words.iter().position(|&w| w == "searchmoves") {
                    let allowed: Vec<Move> = words[i + 1..]
                        .iter()
                        .filter_map(|m| move_from_engine(m, o.base))
                        .collect();
                    banned = pos
                        .legal_moves()
                        .iter()
                        .copied()
                        .filter(|m| !allowed.contains(m))
                        .collect();
                }
                let action = next_action(&o, &mut turn);
                answer(&o, &pos, &banned, &action, draw_offered, ucci);
            }
            Some("quit") => {
                say("bye");
                return;
            }
            _ => {}
        }
    }
}

/// The script's action for the next search.
fn next_action(o: &Options, turn: &mut usize) -> String {
    let action = if o.script.is_empty() {
        "first".to_string()
    } else if *turn < o.script.len() {
        o.script[*turn].clone()
    } else if o.cycle {
        o.script[*turn % o.script.len()].clone()
    } else {
        "first".to_string()
    };
    *turn += 1;
    action
}

fn answer(
    o: &Options,
    pos: &Position,
    banned: &[Move],
    action: &str,
    draw_offered: bool,
    ucci: bool,
) {
    let (action, delay) = match action.split_once('@') {
        Some((a, ms)) => (a, ms.parse().unwrap_or(0)),
        None => (action, 0),
    };
    let mut parts = action.split('+');
    let base = parts.next().unwrap_or("first");
    let flags: Vec<&str> = parts.collect();
    std::thread::sleep(Duration::from_millis(delay));
    let first_allowed = || {
        pos.legal_moves()
            .iter()
            .copied()
            .find(|m| !banned.contains(m))
    };
    let mv = match base {
        "crash" => std::process::exit(3),
        "hang" => return,
        "none" => {
            say("info string giving up");
            say("nobestmove");
            return;
        }
        "first" => first_allowed().map(|m| move_to_engine(m, o.base)),
        text => match move_from_engine(text, o.base) {
            Some(m) if o.obey_ban && banned.contains(&m) => {
                first_allowed().map(|m| move_to_engine(m, o.base))
            }
            _ => Some(text.to_string()),
        },
    };
    let Some(mv) = mv else {
        say("nobestmove");
        return;
    };
    let score = if ucci {
        format!("{}", o.score)
    } else {
        format!("cp {}", o.score)
    };
    // A two-move PV (and ponder move) when the move is legal: the first reply.
    let reply = move_from_engine(&mv, o.base)
        .filter(|m| pos.legal_moves().contains(m))
        .and_then(|m| {
            let mut after = pos.clone();
            after.make_move(m);
            after
                .legal_moves()
                .first()
                .map(|&r| move_to_engine(r, o.base))
        });
    let pv = match &reply {
        Some(r) => format!("{mv} {r}"),
        None => mv.clone(),
    };
    if let Some(n) = o.nodes {
        say(&format!("info time {} nodes {n}", delay.max(1)));
    }
    say(&format!("info depth {} score {score} pv {pv}", o.depth));
    let mut line = format!("bestmove {mv}");
    if let Some(r) = &reply {
        line.push_str(&format!(" ponder {r}"));
    }
    if flags.contains(&"resign") || (o.resign_as_black && pos.side_to_move() == Color::Black) {
        line.push_str(" resign");
    } else if flags.contains(&"draw") || (draw_offered && o.accept_draw) {
        line.push_str(" draw");
    }
    say(&line);
}
