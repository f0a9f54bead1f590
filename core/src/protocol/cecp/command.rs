//! Parsing one CECP line into a typed command. Only the form is checked
//! here (numbers are numbers, a move is a move); whether a command makes
//! sense now is the session's business.

use super::clock::Level;
use crate::board::Move;
use crate::protocol::command::shorten;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Xboard,
    Protover,
    /// `rejected FEATURE`: the GUI cannot honour a feature we asked for.
    Rejected(String),
    New,
    Variant(String),
    Force,
    Go,
    PlayOther,
    /// `usermove MOVE`, or a bare move as protocol 1 sends them.
    Move(Move),
    Undo,
    Remove,
    Level(Level),
    /// `st`: at most this long for every move.
    St(Duration),
    /// `sd`: the deepest iteration.
    Sd(u32),
    /// `time`: the engine's clock.
    Time(Duration),
    /// `otim`: the opponent's clock.
    Otim(Duration),
    /// `?`: move now.
    MoveNow,
    /// `ping N`, with N as sent (it goes back unchanged in `pong N`).
    Ping(String),
    /// `post` (true) or `nopost`.
    Post(bool),
    /// `hard` (true) or `easy`: pondering on or off.
    Ponder(bool),
    Analyze,
    Exit,
    /// `.`: a status line in analyze mode.
    Status,
    Hint,
    /// `result RESULT {COMMENT}`: the game is over.
    Result,
    /// `memory N`: megabytes for the tables.
    Memory(u64),
    /// `cores N`: search threads.
    Cores(u64),
    /// `option NAME[=VALUE]`.
    Option {
        name: String,
        value: Option<String>,
    },
    /// `draw`: the opponent offers a draw.
    Draw,
    SetBoard(String),
    /// `computer`: the opponent is an engine.
    Computer,
    /// Commands that need no action: `accepted`, `random` (we have no
    /// random mode), `name`, `rating`, `ics`.
    Noted,
    Quit,
    /// `help`: the commands, for a person at a terminal.
    Help,
    /// An empty (or all-blank) line.
    Empty,
}

/// Why a line is refused, worded as the protocol's error replies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandError {
    /// `Error (unknown command): LINE`.
    Unknown,
    /// `Error (REASON): LINE`.
    Bad(String),
    /// `Illegal move (REASON): TEXT`, for move text that is no move.
    NotAMove(String),
}

impl CommandError {
    /// The reply to `line`. XBoard reads more into an error than its form:
    /// one that mentions `draw` stops it sending draw offers, one that
    /// mentions `analyze` turns analysis off; the reasons here avoid both.
    pub fn reply(&self, line: &str) -> String {
        let line = shorten(line.trim());
        match self {
            CommandError::Unknown => format!("Error (unknown command): {line}"),
            CommandError::Bad(reason) => format!("Error ({reason}): {line}"),
            CommandError::NotAMove(text) => {
                format!("Illegal move (not a move like h2e2): {}", shorten(text))
            }
        }
    }
}

pub fn parse(line: &str) -> Result<Command, CommandError> {
    let line = line.trim();
    let (word, rest) = match line.split_once(char::is_whitespace) {
        Some((w, r)) => (w, r.trim()),
        None => (line, ""),
    };
    let args: Vec<&str> = rest.split_whitespace().collect();
    let bad = |reason: &str| Err(CommandError::Bad(reason.to_string()));
    Ok(match word {
        "" => Command::Empty,
        "xboard" => Command::Xboard,
        "help" => Command::Help,
        "protover" => Command::Protover,
        "accepted" | "random" | "name" | "rating" | "ics" => Command::Noted,
        "rejected" => Command::Rejected(rest.to_string()),
        "new" => Command::New,
        "variant" if rest.is_empty() => return bad("no variant named"),
        "variant" => Command::Variant(rest.to_string()),
        "force" => Command::Force,
        "go" => Command::Go,
        "playother" => Command::PlayOther,
        "usermove" => match args.as_slice() {
            [mv] => Command::Move(parse_move(mv)?),
            [] => return bad("no move given"),
            _ => return bad("one move expected"),
        },
        "undo" => Command::Undo,
        "remove" => Command::Remove,
        "level" => Command::Level(Level::parse(&args).map_err(CommandError::Bad)?),
        "st" => Command::St(Duration::from_secs_f64(seconds(&args)?)),
        "sd" => match one(&args)?.parse::<u32>() {
            Ok(d) => Command::Sd(d),
            Err(_) => return bad("depth is not a whole number"),
        },
        "time" => Command::Time(centiseconds(&args)?),
        "otim" => Command::Otim(centiseconds(&args)?),
        "?" => Command::MoveNow,
        "ping" => match one(&args)? {
            n if n.parse::<i64>().is_ok() => Command::Ping(n.to_string()),
            _ => return bad("ping takes a number"),
        },
        "post" => Command::Post(true),
        "nopost" => Command::Post(false),
        "hard" => Command::Ponder(true),
        "easy" => Command::Ponder(false),
        "analyze" => Command::Analyze,
        "exit" => Command::Exit,
        "." => Command::Status,
        "hint" => Command::Hint,
        "result" => Command::Result,
        "memory" => Command::Memory(count(&args)?),
        "cores" => Command::Cores(count(&args)?),
        "option" => {
            if rest.is_empty() {
                return bad("no option named");
            }
            match rest.split_once('=') {
                Some((name, value)) => Command::Option {
                    name: name.trim().to_string(),
                    value: Some(value.trim().to_string()),
                },
                None => Command::Option {
                    name: rest.to_string(),
                    value: None,
                },
            }
        }
        "draw" => Command::Draw,
        "setboard" if rest.is_empty() => return bad("no position given"),
        "setboard" => Command::SetBoard(rest.to_string()),
        "computer" => Command::Computer,
        "quit" => Command::Quit,
        // Protocol 1 sends moves bare: a line of one move-shaped word is one.
        _ if args.is_empty() => word
            .parse()
            .map(Command::Move)
            .map_err(|_| CommandError::Unknown)?,
        _ => return Err(CommandError::Unknown),
    })
}

fn parse_move(text: &str) -> Result<Move, CommandError> {
    text.parse()
        .map_err(|_| CommandError::NotAMove(text.to_string()))
}

/// The single argument of a command that takes one.
fn one<'a>(args: &[&'a str]) -> Result<&'a str, CommandError> {
    match args {
        [a] => Ok(a),
        [] => Err(CommandError::Bad("argument missing".into())),
        _ => Err(CommandError::Bad("too many parameters".into())),
    }
}

fn count(args: &[&str]) -> Result<u64, CommandError> {
    one(args)?
        .parse()
        .map_err(|_| CommandError::Bad("not a whole number".into()))
}

/// `st` seconds: positive, decimals allowed.
fn seconds(args: &[&str]) -> Result<f64, CommandError> {
    match one(args)?.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s < 1.0e7 => Ok(s),
        _ => Err(CommandError::Bad(
            "seconds per move must be a positive number".into(),
        )),
    }
}

/// `time`/`otim` centiseconds. A clock can be negative once a flag has
/// fallen (the increment may bring it back): that counts as empty.
fn centiseconds(args: &[&str]) -> Result<Duration, CommandError> {
    match one(args)?.parse::<i64>() {
        Ok(cs) => Ok(Duration::from_millis(cs.clamp(0, 1 << 40) as u64 * 10)),
        Err(_) => Err(CommandError::Bad(
            "clock is not a whole number of centiseconds".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_with_and_without_usermove() {
        let mv: Move = "h2e2".parse().unwrap();
        assert_eq!(parse("usermove h2e2"), Ok(Command::Move(mv)));
        assert_eq!(parse("h2e2"), Ok(Command::Move(mv)));
        assert_eq!(
            parse("usermove z9z9"),
            Err(CommandError::NotAMove("z9z9".into()))
        );
        assert!(matches!(parse("usermove"), Err(CommandError::Bad(_))));
        assert_eq!(parse("frobnicate"), Err(CommandError::Unknown));
    }

    #[test]
    fn clocks_and_limits() {
        assert_eq!(
            parse("time 1234"),
            Ok(Command::Time(Duration::from_millis(12_340)))
        );
        assert_eq!(parse("otim -50"), Ok(Command::Otim(Duration::ZERO)));
        assert!(matches!(parse("time soon"), Err(CommandError::Bad(_))));
        assert_eq!(
            parse("st 2.5"),
            Ok(Command::St(Duration::from_millis(2500)))
        );
        assert!(matches!(parse("st 0"), Err(CommandError::Bad(_))));
        assert_eq!(parse("sd 7"), Ok(Command::Sd(7)));
        assert!(matches!(parse("sd 1 2"), Err(CommandError::Bad(_))));
    }

    #[test]
    fn options_and_others() {
        assert_eq!(
            parse("option Move Overhead=100"),
            Ok(Command::Option {
                name: "Move Overhead".into(),
                value: Some("100".into())
            })
        );
        assert_eq!(
            parse("option Clear Hash"),
            Ok(Command::Option {
                name: "Clear Hash".into(),
                value: None
            })
        );
        assert_eq!(parse("ping 17"), Ok(Command::Ping("17".into())));
        assert!(parse("ping x").is_err());
        assert_eq!(parse("  "), Ok(Command::Empty));
        assert_eq!(parse("result 1-0 {Red mates}"), Ok(Command::Result));
        assert_eq!(
            parse("setboard 4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1"),
            Ok(Command::SetBoard(
                "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1".into()
            ))
        );
    }

    #[test]
    fn error_replies_follow_the_protocol() {
        assert_eq!(
            CommandError::Unknown.reply("bogus 1 2"),
            "Error (unknown command): bogus 1 2"
        );
        assert_eq!(
            CommandError::Bad("too many parameters".into()).reply("sd 1 2"),
            "Error (too many parameters): sd 1 2"
        );
        for line in ["sd x", "level 1", "ping x", "time x", "st -1", "usermove"] {
            let e = parse(line).unwrap_err().reply(line);
            assert!(!e.contains("draw") && !e.contains("analyze"), "{e}");
        }
    }
}
