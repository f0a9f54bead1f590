//! Engine options: one table with the UCCI and the UCI name of each, how
//! they are listed after `ucci`/`uci`, and how a `setoption` value is checked.

use super::command::shorten;
use super::Mode;
use crate::engine::{Strength, MAX_ELO, MAX_LEVEL, MIN_ELO};
use crate::search;
use std::fmt;

/// Which option a table row is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Id {
    UseMillisec,
    Batch,
    Debug,
    Ponder,
    Hash,
    Threads,
    NewGame,
    UseBook,
    BookFiles,
    BookRandomness,
    Randomness,
    Pruning,
    Knowledge,
    Style,
    Promotion,
    MoveOverhead,
    Idle,
    ResignScore,
    ResignMoves,
    DrawOfferMoves,
    EvalFile,
    UseNnue,
    MultiPv,
    SkillLevel,
    LimitStrength,
    Elo,
    ShowWdl,
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    Check(bool),
    Spin { min: i64, max: i64, default: i64 },
    Combo(&'static str, &'static [&'static str]),
    Str(&'static str),
    Button,
}

struct Spec {
    id: Id,
    /// Name in UCCI (None: not listed in UCCI mode).
    ucci: Option<&'static str>,
    /// Name in UCI (None: not listed in UCI mode).
    uci: Option<&'static str>,
    /// Name in CECP (None: not listed there; hash, threads and pondering
    /// have commands of their own: `memory`, `cores`, `hard`/`easy`).
    cecp: Option<&'static str>,
    kind: Kind,
}

const LEVELS: &[&str] = &["none", "small", "medium", "large"];
const STYLES: &[&str] = &["solid", "normal", "risky"];
// The limits come from the search, which enforces them: what the GUI is told
// is what the engine does.
const MAX_HASH_MB: i64 = search::MAX_HASH_MB as i64;
const MAX_THREADS: i64 = search::MAX_THREADS as i64;
pub const DEFAULT_HASH_MB: usize = search::DEFAULT_HASH_MB;
pub const DEFAULT_OVERHEAD_MS: i64 = 30;

const SPECS: &[Spec] = &[
    spec(
        Id::UseMillisec,
        Some("usemillisec"),
        None,
        None,
        Kind::Check(false),
    ),
    spec(Id::Batch, Some("batch"), None, None, Kind::Check(false)),
    spec(Id::Debug, Some("debug"), None, None, Kind::Check(false)),
    spec(
        Id::Ponder,
        Some("ponder"),
        Some("Ponder"),
        None,
        Kind::Check(false),
    ),
    spec(
        Id::Hash,
        Some("hashsize"),
        Some("Hash"),
        None,
        Kind::Spin {
            min: 0,
            max: MAX_HASH_MB,
            default: DEFAULT_HASH_MB as i64,
        },
    ),
    spec(
        Id::Threads,
        Some("threads"),
        Some("Threads"),
        None,
        Kind::Spin {
            min: 0,
            max: MAX_THREADS,
            default: 1,
        },
    ),
    spec(
        Id::NewGame,
        Some("newgame"),
        Some("Clear Hash"),
        Some("Clear Hash"),
        Kind::Button,
    ),
    spec(
        Id::UseBook,
        Some("usebook"),
        Some("OwnBook"),
        Some("OwnBook"),
        Kind::Check(false),
    ),
    spec(
        Id::BookFiles,
        Some("bookfiles"),
        Some("BookFile"),
        Some("BookFile"),
        Kind::Str(""),
    ),
    // How sharply book moves favour their weights (see `crate::book`):
    // medium draws in proportion to them, as ElephantEye does.
    spec(
        Id::BookRandomness,
        Some("bookrandomness"),
        Some("Book Randomness"),
        Some("Book Randomness"),
        Kind::Combo("medium", LEVELS),
    ),
    spec(
        Id::Randomness,
        Some("randomness"),
        Some("Randomness"),
        Some("Randomness"),
        Kind::Combo("none", LEVELS),
    ),
    spec(
        Id::Pruning,
        Some("pruning"),
        Some("Pruning"),
        Some("Pruning"),
        Kind::Combo("large", LEVELS),
    ),
    spec(
        Id::Knowledge,
        Some("knowledge"),
        Some("Knowledge"),
        Some("Knowledge"),
        Kind::Combo("large", LEVELS),
    ),
    spec(
        Id::Style,
        Some("style"),
        Some("Style"),
        Some("Style"),
        Kind::Combo("normal", STYLES),
    ),
    spec(
        Id::Promotion,
        Some("promotion"),
        None,
        None,
        Kind::Check(false),
    ),
    spec(
        Id::MoveOverhead,
        Some("moveoverhead"),
        Some("Move Overhead"),
        Some("Move Overhead"),
        Kind::Spin {
            min: 0,
            max: 5000,
            default: DEFAULT_OVERHEAD_MS,
        },
    ),
    spec(
        Id::Idle,
        Some("idle"),
        None,
        None,
        Kind::Combo("none", LEVELS),
    ),
    spec(
        Id::ResignScore,
        Some("resignscore"),
        None,
        Some("Resign Score"),
        Kind::Spin {
            min: 0,
            max: 30000,
            default: 1500,
        },
    ),
    spec(
        Id::ResignMoves,
        Some("resignmoves"),
        None,
        Some("Resign Moves"),
        Kind::Spin {
            min: 0,
            max: 100,
            default: 5,
        },
    ),
    spec(
        Id::DrawOfferMoves,
        Some("drawoffermoves"),
        None,
        Some("Draw Offer Moves"),
        Kind::Spin {
            min: 0,
            max: 100,
            default: 10,
        },
    ),
    spec(
        Id::EvalFile,
        Some("evalfile"),
        Some("EvalFile"),
        Some("EvalFile"),
        Kind::Str(EMBEDDED_NET),
    ),
    spec(
        Id::UseNnue,
        Some("usennue"),
        Some("Use NNUE"),
        Some("Use NNUE"),
        Kind::Check(true),
    ),
    spec(
        Id::MultiPv,
        Some("multipv"),
        Some("MultiPV"),
        Some("MultiPV"),
        Kind::Spin {
            min: 1,
            max: search::MAX_MULTIPV as i64,
            default: 1,
        },
    ),
    // Playing strength (`engine::Strength`): `Skill Level` unless
    // `UCI_LimitStrength` asks for an Elo. UCCI has no such options; its
    // names follow its lower-case style.
    spec(
        Id::SkillLevel,
        Some("skilllevel"),
        Some("Skill Level"),
        Some("Skill Level"),
        Kind::Spin {
            min: 0,
            max: MAX_LEVEL as i64,
            default: MAX_LEVEL as i64,
        },
    ),
    spec(
        Id::LimitStrength,
        Some("limitstrength"),
        Some("UCI_LimitStrength"),
        Some("UCI_LimitStrength"),
        Kind::Check(false),
    ),
    spec(
        Id::Elo,
        Some("elo"),
        Some("UCI_Elo"),
        Some("UCI_Elo"),
        Kind::Spin {
            min: MIN_ELO as i64,
            max: MAX_ELO as i64,
            default: MAX_ELO as i64,
        },
    ),
    // `wdl W D L` on info lines; CECP's thinking lines have no place for it.
    spec(
        Id::ShowWdl,
        Some("showwdl"),
        Some("UCI_ShowWDL"),
        None,
        Kind::Check(false),
    ),
];

/// The `evalfile` value that names the network built into the binary.
pub use crate::engine::EMBEDDED_NET;

const fn spec(
    id: Id,
    ucci: Option<&'static str>,
    uci: Option<&'static str>,
    cecp: Option<&'static str>,
    kind: Kind,
) -> Spec {
    Spec {
        id,
        ucci,
        uci,
        cecp,
        kind,
    }
}

/// Names are matched ignoring case, spaces and underscores, so
/// `Move Overhead`, `moveoverhead` and `move_overhead` are one option.
fn normalise(name: &str) -> String {
    name.chars()
        .filter(|c| !c.is_whitespace() && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

fn find(name: &str) -> Option<&'static Spec> {
    let want = normalise(name);
    SPECS.iter().find(|s| {
        [s.ucci, s.uci, s.cecp]
            .iter()
            .flatten()
            .any(|n| normalise(n) == want)
    })
}

/// The `option ...` lines announced after `ucci` or `uci`.
pub fn announce(mode: Mode) -> Vec<String> {
    SPECS
        .iter()
        .filter_map(|s| {
            let name = match mode {
                Mode::Ucci => s.ucci?,
                Mode::Uci => s.uci?,
            };
            let lead = match mode {
                Mode::Ucci => format!("option {name} type"),
                Mode::Uci => format!("option name {name} type"),
            };
            let uci_min = |min: i64| if mode == Mode::Uci { min.max(1) } else { min };
            Some(match s.kind {
                Kind::Check(d) => format!("{lead} check default {d}"),
                Kind::Spin { min, max, default } if matches!(s.id, Id::Hash | Id::Threads) => {
                    format!(
                        "{lead} spin min {} max {max} default {default}",
                        uci_min(min)
                    )
                }
                Kind::Spin { min, max, default } => {
                    format!("{lead} spin min {min} max {max} default {default}")
                }
                Kind::Combo(d, vars) => {
                    let vars: Vec<String> = vars.iter().map(|v| format!("var {v}")).collect();
                    format!("{lead} combo default {d} {}", vars.join(" "))
                }
                Kind::Str(d) => {
                    let d = if d.is_empty() && mode == Mode::Uci {
                        "<empty>"
                    } else {
                        d
                    };
                    format!("{lead} string default {d}").trim_end().to_string()
                }
                Kind::Button => format!("{lead} button"),
            })
        })
        .collect()
}

/// The `feature option="..."` lines of CECP, which fill XBoard's engine
/// settings dialog: checks as 0/1, spins as `value min max`, combos with
/// the value starred, file names with a browse button.
pub fn announce_cecp() -> Vec<String> {
    SPECS
        .iter()
        .filter_map(|s| {
            let name = s.cecp?;
            let kind = match s.kind {
                Kind::Check(d) => format!("-check {}", u8::from(d)),
                Kind::Spin { min, max, default } => format!("-spin {default} {min} {max}"),
                Kind::Combo(d, vars) => {
                    let vars: Vec<String> = vars
                        .iter()
                        .map(|v| {
                            if *v == d {
                                format!("*{v}")
                            } else {
                                v.to_string()
                            }
                        })
                        .collect();
                    format!("-combo {}", vars.join(" /// "))
                }
                Kind::Str(d) if matches!(s.id, Id::EvalFile | Id::BookFiles) => {
                    format!("-file {d}")
                }
                Kind::Str(d) => format!("-string {d}"),
                Kind::Button => "-button".to_string(),
            };
            Some(format!("feature option=\"{name} {kind}\""))
        })
        .collect()
}

/// A `setoption` that could not be applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionError {
    Unknown(String),
    MissingValue(&'static str),
    NotBool {
        name: &'static str,
        value: String,
    },
    NotNumber {
        name: &'static str,
        value: String,
    },
    NotChoice {
        name: &'static str,
        value: String,
        vars: &'static [&'static str],
    },
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionError::Unknown(n) => write!(f, "unknown option '{}' ignored", shorten(n)),
            OptionError::MissingValue(n) => write!(f, "option {n} needs a value"),
            OptionError::NotBool { name, value } => {
                write!(
                    f,
                    "option {name} takes true or false, not '{}'",
                    shorten(value)
                )
            }
            OptionError::NotNumber { name, value } => {
                write!(
                    f,
                    "option {name} takes a whole number, not '{}'",
                    shorten(value)
                )
            }
            OptionError::NotChoice { name, value, vars } => write!(
                f,
                "option {name} takes one of {}, not '{}'",
                vars.join("/"),
                shorten(value)
            ),
        }
    }
}

impl std::error::Error for OptionError {}

/// A checked option value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Bool(bool),
    /// With a note when the number was brought into range.
    Int(i64, Option<String>),
    Text(String),
    Pressed,
}

/// Looks an option up and checks its value; the caller applies it.
pub fn check(name: &str, value: Option<&str>) -> Result<(Id, Value), OptionError> {
    let spec = find(name).ok_or_else(|| OptionError::Unknown(name.to_string()))?;
    let shown = spec.ucci.or(spec.uci).unwrap_or("?");
    let value = match spec.kind {
        Kind::Button => Value::Pressed,
        // A bare check option (`setoption usemillisec`) switches it on.
        Kind::Check(_) => match value.map(|v| v.to_ascii_lowercase()).as_deref() {
            None | Some("true") | Some("on") | Some("1") | Some("yes") => Value::Bool(true),
            Some("false") | Some("off") | Some("0") | Some("no") => Value::Bool(false),
            Some(v) => {
                return Err(OptionError::NotBool {
                    name: shown,
                    value: v.to_string(),
                })
            }
        },
        Kind::Spin { min, max, .. } => {
            let v = value.ok_or(OptionError::MissingValue(shown))?;
            let n = parse_int(v).ok_or_else(|| OptionError::NotNumber {
                name: shown,
                value: v.to_string(),
            })?;
            let clamped = n.clamp(min, max);
            let note = (clamped != n).then(|| {
                format!(
                    "option {shown} {} is out of range {min}..{max}, using {clamped}",
                    shorten(v)
                )
            });
            Value::Int(clamped, note)
        }
        Kind::Combo(_, vars) => {
            let v = value.ok_or(OptionError::MissingValue(shown))?;
            match vars.iter().find(|x| x.eq_ignore_ascii_case(v)) {
                Some(x) => Value::Text(x.to_string()),
                None => {
                    return Err(OptionError::NotChoice {
                        name: shown,
                        value: v.to_string(),
                        vars,
                    })
                }
            }
        }
        Kind::Str(_) => {
            let v = value.unwrap_or("");
            Value::Text(if v == "<empty>" {
                String::new()
            } else {
                v.to_string()
            })
        }
    };
    Ok((spec.id, value))
}

/// Whole numbers, saturating at the i64 range so `99999999999999999999`
/// clamps to the maximum instead of failing.
fn parse_int(v: &str) -> Option<i64> {
    let (neg, digits) = match v.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, v.strip_prefix('+').unwrap_or(v)),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(match digits.parse::<i64>() {
        Ok(n) if neg => -n,
        Ok(n) => n,
        Err(_) if neg => i64::MIN,
        Err(_) => i64::MAX,
    })
}

/// The option values the protocol itself reads.
#[derive(Debug, Clone)]
pub struct Options {
    pub usemillisec: bool,
    pub batch: bool,
    pub debug: bool,
    pub ponder: bool,
    pub hash_mb: usize,
    pub threads: usize,
    pub usebook: bool,
    pub bookfiles: String,
    pub book_randomness: String,
    pub randomness: String,
    pub pruning: String,
    pub knowledge: String,
    pub style: String,
    pub promotion: bool,
    pub move_overhead_ms: u64,
    pub idle: String,
    /// Resign when our score stays at or below minus this for
    /// `resign_moves` searches in a row (0: never).
    pub resign_score: i32,
    pub resign_moves: usize,
    /// Offer a draw after this many drawish searches in a row (0: never).
    pub draw_offer_moves: usize,
    /// The network evaluates; false: the hand-crafted evaluation.
    pub use_nnue: bool,
    /// Principal variations reported (the best `multipv` moves).
    pub multipv: usize,
    pub skill_level: u32,
    pub limit_strength: bool,
    pub elo: u32,
    /// Info lines carry `wdl W D L`.
    pub show_wdl: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            usemillisec: false,
            batch: false,
            debug: false,
            ponder: false,
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            usebook: false,
            bookfiles: String::new(),
            book_randomness: "medium".into(),
            randomness: "none".into(),
            pruning: "large".into(),
            knowledge: "large".into(),
            style: "normal".into(),
            promotion: false,
            move_overhead_ms: DEFAULT_OVERHEAD_MS as u64,
            idle: "none".into(),
            resign_score: 1500,
            resign_moves: 5,
            draw_offer_moves: 10,
            use_nnue: true,
            multipv: 1,
            skill_level: MAX_LEVEL,
            limit_strength: false,
            elo: MAX_ELO,
            show_wdl: false,
        }
    }
}

impl Options {
    /// Stores a checked value. Hash, threads and new game also need the
    /// engine; the caller passes those on.
    pub fn store(&mut self, id: Id, value: &Value) {
        let int = |v: &Value| match v {
            Value::Int(n, _) => (*n).max(0) as u64,
            _ => 0,
        };
        let flag = |v: &Value| matches!(v, Value::Bool(true));
        let text = |v: &Value| match v {
            Value::Text(t) => t.clone(),
            _ => String::new(),
        };
        match id {
            Id::UseMillisec => self.usemillisec = flag(value),
            Id::Batch => self.batch = flag(value),
            Id::Debug => self.debug = flag(value),
            Id::Ponder => self.ponder = flag(value),
            Id::Hash => {
                let mb = int(value) as usize;
                self.hash_mb = if mb == 0 { DEFAULT_HASH_MB } else { mb };
            }
            Id::Threads => {
                let n = int(value) as usize;
                self.threads = if n == 0 { default_threads() } else { n };
            }
            Id::NewGame => {}
            Id::UseBook => self.usebook = flag(value),
            Id::BookFiles => self.bookfiles = text(value),
            Id::BookRandomness => self.book_randomness = text(value),
            Id::Randomness => self.randomness = text(value),
            Id::Pruning => self.pruning = text(value),
            Id::Knowledge => self.knowledge = text(value),
            Id::Style => self.style = text(value),
            Id::Promotion => self.promotion = flag(value),
            Id::MoveOverhead => self.move_overhead_ms = int(value),
            Id::Idle => self.idle = text(value),
            Id::ResignScore => self.resign_score = int(value) as i32,
            Id::ResignMoves => self.resign_moves = int(value) as usize,
            Id::DrawOfferMoves => self.draw_offer_moves = int(value) as usize,
            // The engine object keeps the network it loaded.
            Id::EvalFile => {}
            Id::UseNnue => self.use_nnue = flag(value),
            Id::MultiPv => self.multipv = (int(value) as usize).max(1),
            Id::SkillLevel => self.skill_level = int(value) as u32,
            Id::LimitStrength => self.limit_strength = flag(value),
            Id::Elo => self.elo = int(value) as u32,
            Id::ShowWdl => self.show_wdl = flag(value),
        }
    }

    /// The playing strength the options ask for: the Elo when
    /// `UCI_LimitStrength` is on, else the skill level.
    pub fn strength(&self) -> Strength {
        if self.limit_strength {
            Strength::from_elo(self.elo)
        } else {
            Strength::level(self.skill_level)
        }
    }
}

impl Options {
    /// The book files to read: those `bookfiles` lists while `usebook` is
    /// on; none (the book off) otherwise.
    pub fn book_files(&self) -> Vec<String> {
        if !self.usebook {
            return Vec::new();
        }
        self.bookfiles
            .split(';')
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .map(String::from)
            .collect()
    }

    /// Why the book stays empty although it is on, if it does.
    pub fn book_note(&self) -> Option<&'static str> {
        (self.usebook && self.book_files().is_empty())
            .then_some("usebook is on but no bookfiles are set: no book yet")
    }
}

/// UCCI's "0 = engine's choice" for threads: every core.
fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings_find_one_option() {
        assert_eq!(check("hashsize", Some("16")).map(|x| x.0), Ok(Id::Hash));
        assert_eq!(check("Hash", Some("16")).map(|x| x.0), Ok(Id::Hash));
        assert_eq!(
            check("Move Overhead", Some("5")).map(|x| x.0),
            Ok(Id::MoveOverhead)
        );
        assert_eq!(
            check("moveoverhead", Some("5")).map(|x| x.0),
            Ok(Id::MoveOverhead)
        );
        assert_eq!(check("Clear Hash", None).map(|x| x.0), Ok(Id::NewGame));
    }

    #[test]
    fn values_are_checked() {
        assert!(matches!(
            check("nosuch", Some("1")),
            Err(OptionError::Unknown(_))
        ));
        assert!(matches!(
            check("ponder", Some("maybe")),
            Err(OptionError::NotBool { .. })
        ));
        assert!(matches!(
            check("hashsize", Some("lots")),
            Err(OptionError::NotNumber { .. })
        ));
        assert!(matches!(
            check("hashsize", None),
            Err(OptionError::MissingValue(_))
        ));
        assert!(matches!(
            check("style", Some("wild")),
            Err(OptionError::NotChoice { .. })
        ));
        assert_eq!(
            check("style", Some("Risky")).map(|x| x.1),
            Ok(Value::Text("risky".into()))
        );
        match check("threads", Some("-4")) {
            Ok((Id::Threads, Value::Int(0, Some(_)))) => {}
            other => panic!("{other:?}"),
        }
        match check("hashsize", Some("999999999999999999999999")) {
            Ok((Id::Hash, Value::Int(n, Some(_)))) => assert_eq!(n, MAX_HASH_MB),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            check("usemillisec", None).map(|x| x.1),
            Ok(Value::Bool(true))
        );
    }

    #[test]
    fn announced_in_each_spelling() {
        let ucci = announce(Mode::Ucci);
        assert!(ucci.contains(&"option hashsize type spin min 0 max 65536 default 64".to_string()));
        assert!(ucci.contains(&"option usemillisec type check default false".to_string()));
        let uci = announce(Mode::Uci);
        assert!(uci.contains(&"option name Hash type spin min 1 max 65536 default 64".to_string()));
        assert!(uci.contains(
            &"option name Move Overhead type spin min 0 max 5000 default 30".to_string()
        ));
        assert!(!uci.iter().any(|l| l.contains("usemillisec")));
        // What the GUI is told is what the engine enforces.
        let threads = format!(
            "option name Threads type spin min 1 max {} default 1",
            search::MAX_THREADS
        );
        assert!(uci.contains(&threads), "{uci:?}");
        let cecp = announce_cecp();
        for line in [
            "feature option=\"Clear Hash -button\"",
            "feature option=\"Move Overhead -spin 30 0 5000\"",
            "feature option=\"Use NNUE -check 1\"",
            "feature option=\"EvalFile -file <embedded>\"",
            "feature option=\"Style -combo solid /// *normal /// risky\"",
        ] {
            assert!(cecp.iter().any(|l| l == line), "{line} in {cecp:?}");
        }
        // Hash, threads and pondering have CECP commands of their own.
        assert!(!cecp
            .iter()
            .any(|l| l.contains("Hash -spin") || l.contains("Ponder")));
        assert_eq!(
            check("Resign Score", Some("900")).map(|x| x.0),
            Ok(Id::ResignScore)
        );
        match check("threads", Some("1024")) {
            Ok((Id::Threads, Value::Int(n, Some(_)))) => {
                assert_eq!(n as usize, search::MAX_THREADS)
            }
            other => panic!("{other:?}"),
        }
    }
}
