//! Parsing one input line into a typed command. Both protocols' forms are
//! accepted in either mode (a GUI that mixes them is still understood); what
//! differs between the modes is how answers are written and the units of
//! UCCI times, which `timecontrol` handles.

use crate::board::Move;
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Ucci,
    Uci,
    IsReady,
    /// UCI `debug on|off`.
    Debug(bool),
    SetOption {
        name: String,
        value: Option<String>,
    },
    Position(PositionSpec),
    /// The moves to leave out of the next search; words that are not moves
    /// are kept apart to be reported (the rest of the line still counts, as
    /// it does past an illegal move).
    BanMoves {
        moves: Vec<Move>,
        unreadable: Vec<String>,
    },
    Go(Box<GoParams>),
    PonderHit {
        draw: bool,
    },
    Stop,
    Probe(PositionSpec),
    /// `d`: show the board, its FEN and key.
    Display,
    /// `eval`: the evaluation of the position taken apart.
    Eval,
    /// `help`: the commands of the protocol in use.
    Help,
    Quit,
    NewGame,
    /// An empty (or all-blank) line: nothing to do.
    Empty,
}

/// A position as sent: a FEN (None for the start position) and moves from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionSpec {
    pub fen: Option<String>,
    pub moves: Vec<Move>,
}

/// The parameters of `go`, as numbers still in the units they were sent in.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GoParams {
    pub ponder: bool,
    /// UCCI `go draw`: the opponent offers a draw.
    pub draw: bool,
    pub infinite: bool,
    pub depth: Option<u64>,
    pub nodes: Option<u64>,
    pub mate: Option<u64>,
    pub movetime: Option<f64>,
    /// UCCI clock of the side to move (seconds, or ms with `usemillisec`).
    pub time: Option<f64>,
    pub increment: Option<f64>,
    pub movestogo: Option<u64>,
    pub opptime: Option<f64>,
    pub oppincrement: Option<f64>,
    pub oppmovestogo: Option<u64>,
    /// UCI clocks, always in milliseconds.
    pub wtime: Option<f64>,
    pub btime: Option<f64>,
    pub winc: Option<f64>,
    pub binc: Option<f64>,
    pub searchmoves: Vec<Move>,
    pub perft: Option<u64>,
    /// Whether any keyword that limits the search was sent (even with a bad
    /// value): a bare `go` searches until `stop`, a `go` whose every limit
    /// was unusable does not.
    pub limit_sent: bool,
    /// What was wrong and has been dropped or corrected; the rest stands.
    pub problems: Vec<String>,
}

/// Why a line is not a command that can be carried out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandError {
    Unknown(String),
    MissingArgument(&'static str),
    /// A word where the command has no place for one, and what may stand there.
    Unexpected {
        word: String,
        hint: &'static str,
    },
    BadMove {
        index: usize,
        text: String,
    },
    BadDebugValue(String),
    /// The arguments of `position` or `probe` could not be read; the
    /// context says so and what became of the command (the previous
    /// position stays).
    Rejected {
        context: &'static str,
        error: Box<CommandError>,
    },
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandError::Unknown(w) => write!(f, "unknown command '{}'", shorten(w)),
            CommandError::MissingArgument(what) => write!(f, "missing {what}"),
            CommandError::Unexpected { word, hint } => {
                write!(f, "unexpected '{}': {hint}", shorten(word))
            }
            CommandError::BadMove { index, text } => {
                write!(f, "move {} '{}' {NOT_ICCS}", index, shorten(text))
            }
            CommandError::BadDebugValue(v) => {
                write!(f, "debug takes 'on' or 'off', not '{}'", shorten(v))
            }
            CommandError::Rejected { context, error } => write!(f, "{context}: {error}"),
        }
    }
}

impl std::error::Error for CommandError {}

/// What is said of a word that should be a move and is not.
pub const NOT_ICCS: &str = "is not a move in ICCS form (like h2e2)";

/// What a `position` that cannot be carried out says: a bad move or FEN
/// leaves the position as it was.
pub const POSITION_REJECTED: &str = "position rejected, keeping the previous one";

impl CommandError {
    fn rejected(self, context: &'static str) -> CommandError {
        CommandError::Rejected {
            context,
            error: Box::new(self),
        }
    }
}

/// User text quoted in a message, made safe to show: control characters
/// (escape sequences would drive the GUI's terminal, a NUL ends C strings in
/// some GUIs) are written as `\xNN`, and the result is cut
/// to a readable length.
pub fn shorten(text: &str) -> String {
    const MAX: usize = 40;
    let mut shown = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == MAX {
            shown.push_str("...");
            break;
        }
        if c.is_control() {
            // Control characters are all below U+00A0. Each escape counts
            // as one character of the budget: what is cut is the sender's
            // text, not our spelling of it.
            shown.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            shown.push(c);
        }
    }
    shown
}

pub fn parse(line: &str) -> Result<Command, CommandError> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let Some(first) = tokens.first() else {
        return Ok(Command::Empty);
    };
    let args = &tokens[1..];
    match first.to_ascii_lowercase().as_str() {
        "ucci" => Ok(Command::Ucci),
        "uci" => Ok(Command::Uci),
        "isready" => Ok(Command::IsReady),
        "debug" => parse_debug(args),
        "setoption" => parse_setoption(args),
        "position" => parse_position(args)
            .map(Command::Position)
            .map_err(|e| e.rejected(POSITION_REJECTED)),
        "probe" => parse_position(args)
            .map(Command::Probe)
            .map_err(|e| e.rejected("probe")),
        "banmoves" => {
            let (mut moves, mut unreadable) = (Vec::new(), Vec::new());
            for t in args {
                match t.parse::<Move>() {
                    Ok(m) => moves.push(m),
                    Err(_) => unreadable.push(t.to_string()),
                }
            }
            Ok(Command::BanMoves { moves, unreadable })
        }
        "go" => Ok(Command::Go(Box::new(parse_go(args)))),
        "ponderhit" => Ok(Command::PonderHit {
            draw: args.first().is_some_and(|a| a.eq_ignore_ascii_case("draw")),
        }),
        "stop" => Ok(Command::Stop),
        "d" => Ok(Command::Display),
        "eval" => Ok(Command::Eval),
        "help" => Ok(Command::Help),
        "quit" | "bye" => Ok(Command::Quit),
        "ucinewgame" | "newgame" => Ok(Command::NewGame),
        _ => Err(CommandError::Unknown(first.to_string())),
    }
}

fn parse_debug(args: &[&str]) -> Result<Command, CommandError> {
    match args.first().map(|a| a.to_ascii_lowercase()) {
        None => Ok(Command::Debug(true)),
        Some(a) if a == "on" || a == "true" => Ok(Command::Debug(true)),
        Some(a) if a == "off" || a == "false" => Ok(Command::Debug(false)),
        Some(a) => Err(CommandError::BadDebugValue(a)),
    }
}

/// UCI `setoption name <N...> [value <V...>]` or UCCI `setoption <n> [<v...>]`.
fn parse_setoption(args: &[&str]) -> Result<Command, CommandError> {
    let Some(first) = args.first() else {
        return Err(CommandError::MissingArgument("option name"));
    };
    let join = |t: &[&str]| {
        let s = t.join(" ");
        (!s.is_empty()).then_some(s)
    };
    if first.eq_ignore_ascii_case("name") {
        let rest = &args[1..];
        let split = rest.iter().position(|t| t.eq_ignore_ascii_case("value"));
        let (name, value) = match split {
            Some(i) => (&rest[..i], join(&rest[i + 1..])),
            None => (rest, None),
        };
        let name = join(name).ok_or(CommandError::MissingArgument("option name"))?;
        Ok(Command::SetOption { name, value })
    } else {
        Ok(Command::SetOption {
            name: first.to_string(),
            value: join(&args[1..]),
        })
    }
}

fn parse_position(args: &[&str]) -> Result<PositionSpec, CommandError> {
    let Some(first) = args.first() else {
        return Err(CommandError::MissingArgument("'startpos' or 'fen <FEN>'"));
    };
    let moves_at = args.iter().position(|t| t.eq_ignore_ascii_case("moves"));
    let head = &args[..moves_at.unwrap_or(args.len())];
    let fen = if first.eq_ignore_ascii_case("startpos") {
        if head.len() > 1 {
            return Err(CommandError::Unexpected {
                word: head[1].to_string(),
                hint: "after startpos, only 'moves ...' may follow",
            });
        }
        None
    } else if first.eq_ignore_ascii_case("fen") {
        if head.len() < 2 {
            return Err(CommandError::MissingArgument("FEN after 'fen'"));
        }
        Some(head[1..].join(" "))
    } else {
        return Err(CommandError::Unexpected {
            word: first.to_string(),
            hint: "'startpos' or 'fen <FEN>' comes first",
        });
    };
    let moves = match moves_at {
        Some(i) => parse_moves(&args[i + 1..])?,
        None => Vec::new(),
    };
    Ok(PositionSpec { fen, moves })
}

fn parse_moves(args: &[&str]) -> Result<Vec<Move>, CommandError> {
    args.iter()
        .enumerate()
        .map(|(i, t)| {
            t.parse::<Move>().map_err(|_| CommandError::BadMove {
                index: i + 1,
                text: t.to_string(),
            })
        })
        .collect()
}

/// Every word `go` knows; a value is never taken from one of these.
pub const GO_WORDS: &[&str] = &[
    "ponder",
    "draw",
    "infinite",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "time",
    "increment",
    "movestogo",
    "opptime",
    "oppincrement",
    "oppmovestogo",
    "wtime",
    "btime",
    "winc",
    "binc",
    "searchmoves",
    "perft",
];

fn is_go_word(t: &str) -> bool {
    GO_WORDS.iter().any(|w| w.eq_ignore_ascii_case(t))
}

fn parse_go(args: &[&str]) -> GoParams {
    let mut go = GoParams::default();
    let mut i = 0;
    while i < args.len() {
        let word = args[i].to_ascii_lowercase();
        i += 1;
        let value = match args.get(i) {
            // `depth infinite` is UCCI's spelling of `infinite`.
            Some(v) if word == "depth" && v.eq_ignore_ascii_case("infinite") => Some(*v),
            Some(v) if !is_go_word(v) => Some(*v),
            _ => None,
        };
        let took_value = value.is_some()
            && !matches!(
                word.as_str(),
                "ponder" | "draw" | "infinite" | "searchmoves"
            );
        match word.as_str() {
            "ponder" => go.ponder = true,
            "draw" => go.draw = true,
            "infinite" => {
                go.infinite = true;
                go.limit_sent = true;
            }
            "depth" if value.is_some_and(|v| v.eq_ignore_ascii_case("infinite")) => {
                go.infinite = true;
                go.limit_sent = true;
            }
            "depth" | "nodes" | "mate" | "movestogo" | "oppmovestogo" | "perft" => {
                let n = count(&word, value, &mut go.problems);
                match word.as_str() {
                    "depth" => go.depth = n,
                    "nodes" => go.nodes = n,
                    "mate" => go.mate = n,
                    "movestogo" => go.movestogo = n,
                    "oppmovestogo" => go.oppmovestogo = n,
                    _ => go.perft = n,
                }
                // A clock detail alone (`go movestogo 5`) still asks for a
                // bounded search, not an endless one.
                go.limit_sent |= word != "perft";
            }
            "movetime" | "time" | "increment" | "opptime" | "oppincrement" | "wtime" | "btime"
            | "winc" | "binc" => {
                let t = time_value(&word, value, &mut go.problems);
                let slot = match word.as_str() {
                    "movetime" => &mut go.movetime,
                    "time" => &mut go.time,
                    "increment" => &mut go.increment,
                    "opptime" => &mut go.opptime,
                    "oppincrement" => &mut go.oppincrement,
                    "wtime" => &mut go.wtime,
                    "btime" => &mut go.btime,
                    "winc" => &mut go.winc,
                    _ => &mut go.binc,
                };
                *slot = t;
                go.limit_sent = true;
            }
            "searchmoves" => {
                while let Some(t) = args.get(i).filter(|t| !is_go_word(t)) {
                    match t.parse::<Move>() {
                        Ok(mv) => go.searchmoves.push(mv),
                        Err(_) => go.problems.push(format!(
                            "searchmoves: '{}' is not a move, ignored",
                            shorten(t)
                        )),
                    }
                    i += 1;
                }
            }
            _ => go.problems.push(format!(
                "unknown go parameter '{}' ignored",
                shorten(args[i - 1])
            )),
        }
        if took_value {
            i += 1;
        }
    }
    go
}

/// A whole number: absurdly large values saturate (the search treats them as
/// "no limit"), negative or non-numeric ones are dropped.
fn count(word: &str, value: Option<&str>, problems: &mut Vec<String>) -> Option<u64> {
    let Some(v) = value else {
        problems.push(format!("{word} needs a number, ignored"));
        return None;
    };
    let digits = v.strip_prefix('+').unwrap_or(v);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return Some(digits.parse::<u64>().unwrap_or(u64::MAX));
    }
    if v.starts_with('-') && v.len() > 1 && v[1..].bytes().all(|b| b.is_ascii_digit()) {
        problems.push(format!("{word} {} is negative, ignored", shorten(v)));
    } else {
        problems.push(format!(
            "{word} '{}' is not a whole number, ignored",
            shorten(v)
        ));
    }
    None
}

/// A time (decimals allowed, for UCCI seconds): a negative clock, which a
/// GUI can send after a lag, counts as zero; non-numbers are dropped.
fn time_value(word: &str, value: Option<&str>, problems: &mut Vec<String>) -> Option<f64> {
    let Some(v) = value else {
        problems.push(format!("{word} needs a number, ignored"));
        return None;
    };
    match v.parse::<f64>() {
        Ok(t) if t.is_finite() && t >= 0.0 => Some(t),
        Ok(t) if t.is_finite() => {
            problems.push(format!("{word} {} is negative, taken as 0", shorten(v)));
            Some(0.0)
        }
        Ok(_) if !v.starts_with('-') && v.bytes().all(|b| b.is_ascii_digit()) => Some(f64::MAX),
        _ => {
            problems.push(format!("{word} '{}' is not a number, ignored", shorten(v)));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go(line: &str) -> GoParams {
        match parse(line) {
            Ok(Command::Go(g)) => *g,
            other => panic!("not a go: {other:?}"),
        }
    }

    #[test]
    fn ucci_go_forms() {
        let g = go("go ponder time 300 increment 2 opptime 280 oppincrement 2");
        assert!(g.ponder && g.limit_sent);
        assert_eq!(g.time, Some(300.0));
        assert_eq!(g.increment, Some(2.0));
        assert_eq!(g.opptime, Some(280.0));
        assert!(g.problems.is_empty());
        let g = go("go draw depth infinite");
        assert!(g.draw && g.infinite);
        let g = go("go depth 7");
        assert_eq!(g.depth, Some(7));
    }

    #[test]
    fn uci_go_forms() {
        let g = go("go wtime 1000 btime 2000 winc 10 binc 20 movestogo 5 searchmoves h2e2 b0c2");
        assert_eq!(g.wtime, Some(1000.0));
        assert_eq!(g.binc, Some(20.0));
        assert_eq!(g.movestogo, Some(5));
        assert_eq!(g.searchmoves.len(), 2);
        assert!(go("go").problems.is_empty() && !go("go").limit_sent);
    }

    #[test]
    fn bad_go_numbers_are_reported_not_fatal() {
        let g = go("go depth -3 nodes abc time -5 movetime");
        assert_eq!(g.depth, None);
        assert_eq!(g.nodes, None);
        assert_eq!(g.time, Some(0.0));
        assert_eq!(g.movetime, None);
        assert_eq!(g.problems.len(), 4);
        assert!(g.limit_sent);
        let g = go("go depth 99999999999999999999999 nodes depth 3");
        assert_eq!(g.depth, Some(3));
        assert_eq!(g.problems.len(), 1);
        let g = go("go depth 99999999999999999999999");
        assert_eq!(g.depth, Some(u64::MAX));
        let g = go("go frobnicate 3 depth 2");
        assert_eq!(g.depth, Some(2));
        assert_eq!(g.problems.len(), 1);
    }

    #[test]
    fn setoption_both_forms() {
        assert_eq!(
            parse("setoption name Move Overhead value 40"),
            Ok(Command::SetOption {
                name: "Move Overhead".into(),
                value: Some("40".into())
            })
        );
        assert_eq!(
            parse("setoption bookfiles a.obk;b.obk"),
            Ok(Command::SetOption {
                name: "bookfiles".into(),
                value: Some("a.obk;b.obk".into())
            })
        );
        assert_eq!(
            parse("setoption newgame"),
            Ok(Command::SetOption {
                name: "newgame".into(),
                value: None
            })
        );
        assert!(parse("setoption").is_err());
    }

    #[test]
    fn positions() {
        let p = parse("position fen 9/9/3k5/9/9/9/9/9/9/4K4 w - - 0 1 moves e0e1");
        match p {
            Ok(Command::Position(spec)) => {
                assert_eq!(
                    spec.fen.as_deref(),
                    Some("9/9/3k5/9/9/9/9/9/9/4K4 w - - 0 1")
                );
                assert_eq!(spec.moves.len(), 1);
            }
            other => panic!("{other:?}"),
        }
        let e = parse("position startpos moves h2e2 zz").unwrap_err();
        assert!(
            matches!(&e, CommandError::Rejected { error, .. }
                if matches!(**error, CommandError::BadMove { index: 2, .. })),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "position rejected, keeping the previous one: \
             move 2 'zz' is not a move in ICCS form (like h2e2)"
        );
        assert!(parse("position").is_err());
        assert!(parse("position fen").is_err());
        assert!(parse("position nonsense").is_err());
    }

    #[test]
    fn quoted_text_is_escaped_and_cut() {
        assert_eq!(shorten("plain"), "plain");
        assert_eq!(shorten("a\u{1b}[31mb\0c"), "a\\x1b[31mb\\x00c");
        assert_eq!(shorten("\u{9b}"), "\\x9b");
        let long = "x".repeat(100);
        assert_eq!(shorten(&long), format!("{}...", "x".repeat(40)));
        match parse("fro\u{1b}b\u{7}\0") {
            Err(e) => assert_eq!(e.to_string(), "unknown command 'fro\\x1bb\\x07\\x00'"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn others() {
        assert_eq!(parse("  \t "), Ok(Command::Empty));
        assert_eq!(
            parse("ponderhit draw"),
            Ok(Command::PonderHit { draw: true })
        );
        assert_eq!(parse("bye"), Ok(Command::Quit));
        assert!(matches!(parse("xyzzy"), Err(CommandError::Unknown(_))));
    }
}
