//! Engine options, declared once: the `options!` table gives each its name
//! in UCCI, UCI and CECP, its type, range and default, and its effect (what
//! happens when it is set). `OptionMap` holds the values; in a tuning build
//! (feature `tune`) the search parameters join it as spin options whose
//! effect sets the parameter. The controller (`super::controller`) looks
//! options up, stores a value and carries out its effect; the sessions only
//! announce the table (`announce`) in their dialect.
//!
//! Adding an option: one row in `options!` (and, if the protocol reads it,
//! an accessor on `OptionMap`).

use super::command::shorten;
use super::worker::Job;
use super::Mode;
use crate::book::Variety;
use crate::engine::{Strength, MAX_ELO, MAX_LEVEL, MIN_ELO};
use crate::search::{self, params::Param};
use std::fmt;
use std::time::Duration;

/// Which protocol names an option (and is told about it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Ucci,
    Uci,
    Cecp,
}

impl From<Mode> for Dialect {
    fn from(m: Mode) -> Dialect {
        match m {
            Mode::Ucci => Dialect::Ucci,
            Mode::Uci => Dialect::Uci,
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub enum Kind {
    Check(bool),
    /// `auto_zero`: 0 means "the engine's choice" (UCCI's convention for
    /// hash and threads); UCI, which has no such convention, is told the
    /// range starts at 1, and 0 is still accepted.
    Spin {
        min: i64,
        max: i64,
        default: i64,
        auto_zero: bool,
    },
    Combo(&'static str, &'static [&'static str]),
    Str(&'static str),
    /// A file name (CECP shows a browse button).
    File(&'static str),
    Button,
}

/// What setting an option does, beyond storing its value (the on-change
/// action of Pikafish's option map). The controller carries it out.
#[derive(Clone, Copy)]
pub enum Effect {
    /// The protocol reads the value when it needs it (`OptionMap`'s
    /// accessors), from the next command on.
    Read,
    /// The engine follows the value: this job, made from the options, goes
    /// to the search thread.
    Engine(fn(&OptionMap) -> Job),
    /// The books are read again (and a note says when the book is on but no
    /// file is set).
    Books,
    /// A new game: the engine forgets what it learnt, and the draw and
    /// resign tracking starts afresh.
    NewGame,
    /// A standard UCCI option this engine has no such setting for: accepted
    /// (GUIs send them by default), not announced, and, with `debug` on,
    /// noted as doing nothing. The text says why.
    Inert,
    /// `promotion`: standard xiangqi is all this engine plays.
    Refuse(&'static str),
    /// A search parameter (tuning builds only).
    Tune(&'static Param),
}

/// One option: its names, type and effect.
#[derive(Clone, Copy)]
pub struct Spec {
    /// Name in UCCI, UCI and CECP; None: not listed in that dialect (CECP
    /// has commands of its own for hash, threads and pondering: `memory`,
    /// `cores`, `hard`/`easy`). Any of the names is understood in any
    /// dialect.
    pub ucci: Option<&'static str>,
    pub uci: Option<&'static str>,
    pub cecp: Option<&'static str>,
    pub kind: Kind,
    pub effect: Effect,
}

impl Spec {
    /// The option's name in `dialect`, or in another one if it has none
    /// there (CECP's `memory` sets `Hash`).
    pub fn name(&self, dialect: Dialect) -> &'static str {
        let own = match dialect {
            Dialect::Ucci => self.ucci,
            Dialect::Uci => self.uci,
            Dialect::Cecp => self.cecp,
        };
        own.or(self.uci).or(self.ucci).unwrap_or("?")
    }

    fn listed_in(&self, dialect: Dialect) -> Option<&'static str> {
        if matches!(self.effect, Effect::Inert | Effect::Refuse(_)) {
            return None;
        }
        match dialect {
            Dialect::Ucci => self.ucci,
            Dialect::Uci => self.uci,
            Dialect::Cecp => self.cecp,
        }
    }

    fn default(&self) -> Value {
        match self.kind {
            Kind::Check(d) => Value::Bool(d),
            Kind::Spin { default, .. } => Value::Int(default),
            Kind::Combo(d, _) | Kind::Str(d) | Kind::File(d) => Value::Text(d.to_string()),
            Kind::Button => Value::Pressed,
        }
    }

    /// The range `dialect` is told.
    fn range(&self, dialect: Dialect) -> Option<(i64, i64)> {
        match self.kind {
            Kind::Spin {
                min,
                max,
                auto_zero,
                ..
            } => Some((
                if auto_zero && dialect == Dialect::Uci {
                    min.max(1)
                } else {
                    min
                },
                max,
            )),
            _ => None,
        }
    }
}

/// Declares the options: the `Id` enum and the table, in one order.
macro_rules! options {
    ($($(#[$doc:meta])* $id:ident: $ucci:expr, $uci:expr, $cecp:expr, $kind:expr, $effect:expr;)+) => {
        /// Which option a table row is (its index in `SPECS`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Id {
            $($(#[$doc])* $id,)+
        }

        const SPECS: &[Spec] = &[
            $(Spec { ucci: $ucci, uci: $uci, cecp: $cecp, kind: $kind, effect: $effect },)+
        ];

        /// `Id`s in table order, for turning an index back into one.
        const ID_ORDER: &[Id] = &[$(Id::$id,)+];
    };
}

const LEVELS: &[&str] = &["none", "small", "medium", "large"];
// The limits come from the search, which enforces them: what the GUI is told
// is what the engine does.
const MAX_HASH_MB: i64 = search::MAX_HASH_MB as i64;
const MAX_THREADS: i64 = search::MAX_THREADS as i64;
pub const DEFAULT_HASH_MB: usize = search::DEFAULT_HASH_MB;
pub const DEFAULT_OVERHEAD_MS: i64 = 30;

/// The `evalfile` value that names the network built into the binary.
pub use crate::engine::EMBEDDED_NET;

const fn spin(min: i64, max: i64, default: i64) -> Kind {
    Kind::Spin {
        min,
        max,
        default,
        auto_zero: false,
    }
}

fn strength_job(o: &OptionMap) -> Job {
    Job::SetStrength(o.strength())
}

options! {
    /// UCCI clocks in milliseconds instead of seconds.
    UseMillisec: Some("usemillisec"), None, None, Kind::Check(false), Effect::Read;
    /// UCCI batch mode: every command waits for the running search.
    Batch: Some("batch"), None, None, Kind::Check(false), Effect::Read;
    /// Chinese-notation PVs and notes on the limits (also UCI `debug on`).
    Debug: Some("debug"), None, None, Kind::Check(false), Effect::Read;
    /// Tells the engine the GUI may ask it to ponder (UCI's convention: the
    /// GUI decides, with `go ponder`); nothing to do on this side.
    Ponder: Some("ponder"), Some("Ponder"), None, Kind::Check(false), Effect::Read;
    Hash: Some("hashsize"), Some("Hash"), None,
        Kind::Spin { min: 0, max: MAX_HASH_MB, default: DEFAULT_HASH_MB as i64, auto_zero: true },
        Effect::Engine(|o| Job::SetHash(o.hash_mb()));
    Threads: Some("threads"), Some("Threads"), None,
        Kind::Spin { min: 0, max: MAX_THREADS, default: 1, auto_zero: true },
        Effect::Engine(|o| Job::SetThreads(o.threads()));
    NewGame: Some("newgame"), Some("Clear Hash"), Some("Clear Hash"), Kind::Button, Effect::NewGame;
    UseBook: Some("usebook"), Some("OwnBook"), Some("OwnBook"), Kind::Check(false), Effect::Books;
    BookFiles: Some("bookfiles"), Some("BookFile"), Some("BookFile"), Kind::File(""), Effect::Books;
    /// How sharply book moves favour their weights (see `crate::book`):
    /// medium draws in proportion to them, as ElephantEye does.
    BookRandomness: Some("bookrandomness"), Some("Book Randomness"), Some("Book Randomness"),
        Kind::Combo("medium", LEVELS), Effect::Read;
    // UCCI's standard search settings, which this search has no knobs for.
    Randomness: Some("randomness"), None, None, Kind::Combo("none", LEVELS), Effect::Inert;
    Pruning: Some("pruning"), None, None, Kind::Combo("large", LEVELS), Effect::Inert;
    Knowledge: Some("knowledge"), None, None, Kind::Combo("large", LEVELS), Effect::Inert;
    Style: Some("style"), None, None, Kind::Combo("normal", &["solid", "normal", "risky"]), Effect::Inert;
    Idle: Some("idle"), None, None, Kind::Combo("none", LEVELS), Effect::Inert;
    Promotion: Some("promotion"), None, None, Kind::Check(false),
        Effect::Refuse("the promotion variant is not supported: playing standard xiangqi");
    MoveOverhead: Some("moveoverhead"), Some("Move Overhead"), Some("Move Overhead"),
        spin(0, 5000, DEFAULT_OVERHEAD_MS), Effect::Read;
    /// Resign when our score stays at or below minus this for `ResignMoves`
    /// searches in a row (0: never). UCI has no words for resigning.
    ResignScore: Some("resignscore"), None, Some("Resign Score"), spin(0, 30000, 1500), Effect::Read;
    ResignMoves: Some("resignmoves"), None, Some("Resign Moves"), spin(0, 100, 5), Effect::Read;
    /// Offer a draw after this many drawish searches in a row (0: never).
    DrawOfferMoves: Some("drawoffermoves"), None, Some("Draw Offer Moves"), spin(0, 100, 10), Effect::Read;
    EvalFile: Some("evalfile"), Some("EvalFile"), Some("EvalFile"), Kind::File(EMBEDDED_NET),
        Effect::Engine(|o| Job::LoadNetwork(o.text(Id::EvalFile).to_string()));
    /// The network evaluates; false: the hand-crafted evaluation.
    UseNnue: Some("usennue"), Some("Use NNUE"), Some("Use NNUE"), Kind::Check(true),
        Effect::Engine(|o| Job::UseNnue(o.flag(Id::UseNnue)));
    /// Principal variations reported (the best `multipv` moves).
    MultiPv: Some("multipv"), Some("MultiPV"), Some("MultiPV"),
        spin(1, search::MAX_MULTIPV as i64, 1), Effect::Read;
    /// Playing strength (`engine::Strength`): `Skill Level` unless
    /// `UCI_LimitStrength` asks for an Elo. UCCI has no such options; its
    /// names follow its lower-case style.
    SkillLevel: Some("skilllevel"), Some("Skill Level"), Some("Skill Level"),
        spin(0, MAX_LEVEL as i64, MAX_LEVEL as i64), Effect::Engine(strength_job);
    LimitStrength: Some("limitstrength"), Some("UCI_LimitStrength"), Some("UCI_LimitStrength"),
        Kind::Check(false), Effect::Engine(strength_job);
    Elo: Some("elo"), Some("UCI_Elo"), Some("UCI_Elo"),
        spin(MIN_ELO as i64, MAX_ELO as i64, MAX_ELO as i64), Effect::Engine(strength_job);
    /// `wdl W D L` on info lines; CECP's thinking lines have no place for it.
    ShowWdl: Some("showwdl"), Some("UCI_ShowWDL"), None, Kind::Check(false), Effect::Read;
}

/// Names are matched ignoring case, spaces and underscores, so
/// `Move Overhead`, `moveoverhead` and `move_overhead` are one option.
fn normalise(name: &str) -> String {
    name.chars()
        .filter(|c| !c.is_whitespace() && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// A `setoption` that could not be applied; options are named as the
/// dialect in use names them.
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

/// An option value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Bool(bool),
    Int(i64),
    Text(String),
    Pressed,
}

/// What a `setoption` did: the value is stored; the caller carries out
/// `effect` and says `clamped` (accepted, brought into range) if set.
pub struct Change {
    pub id: Option<Id>,
    pub name: &'static str,
    pub effect: Effect,
    pub value: Value,
    /// The value as sent and the one used, when it had to be brought into
    /// range.
    pub clamped: Option<(String, i64, (i64, i64))>,
}

impl Change {
    /// The note for a clamped value: accepted, not an error.
    pub fn clamp_note(&self) -> Option<String> {
        let (sent, used, (min, max)) = self.clamped.as_ref()?;
        Some(format!(
            "option {} {} is outside {min}..{max}: clamped to {used}",
            self.name,
            shorten(sent)
        ))
    }
}

/// Every option with its current value: the table's, then (tuning builds)
/// the search parameters.
pub struct OptionMap {
    specs: Vec<Spec>,
    values: Vec<Value>,
}

impl Default for OptionMap {
    fn default() -> Self {
        let mut specs = SPECS.to_vec();
        if search::params::TUNABLE {
            for p in search::params::PARAMS {
                specs.push(Spec {
                    ucci: Some(p.name),
                    uci: Some(p.name),
                    cecp: Some(p.name),
                    kind: spin(p.min.into(), p.max.into(), p.default.into()),
                    effect: Effect::Tune(p),
                });
            }
        }
        let values = specs.iter().map(Spec::default).collect();
        OptionMap { specs, values }
    }
}

impl OptionMap {
    fn find(&self, name: &str) -> Option<usize> {
        let want = normalise(name);
        self.specs.iter().position(|s| {
            [s.ucci, s.uci, s.cecp]
                .iter()
                .flatten()
                .any(|n| normalise(n) == want)
        })
    }

    /// Looks an option up, checks the value and stores it; the caller
    /// carries out the returned effect. Errors name the option as `dialect`
    /// does.
    pub fn set(
        &mut self,
        name: &str,
        value: Option<&str>,
        dialect: Dialect,
    ) -> Result<Change, OptionError> {
        let index = self
            .find(name)
            .ok_or_else(|| OptionError::Unknown(name.to_string()))?;
        let spec = self.specs[index];
        let shown = spec.name(dialect);
        let mut clamped = None;
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
                let n = parse_int(v.trim()).ok_or_else(|| OptionError::NotNumber {
                    name: shown,
                    value: v.to_string(),
                })?;
                let used = n.clamp(min, max);
                if used != n {
                    let told = spec.range(dialect).unwrap_or((min, max));
                    clamped = Some((v.to_string(), used, told));
                }
                Value::Int(used)
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
            Kind::Str(_) | Kind::File(_) => {
                let v = value.unwrap_or("");
                Value::Text(if v == "<empty>" {
                    String::new()
                } else {
                    v.to_string()
                })
            }
        };
        self.values[index] = value.clone();
        Ok(Change {
            id: (index < SPECS.len()).then(|| ID_ORDER[index]),
            name: shown,
            effect: spec.effect,
            value,
            clamped,
        })
    }

    /// Sets a check option directly (UCI's `debug on|off` is the `debug`
    /// option).
    pub fn set_flag(&mut self, id: Id, on: bool) {
        self.values[id as usize] = Value::Bool(on);
    }

    pub fn flag(&self, id: Id) -> bool {
        matches!(self.values[id as usize], Value::Bool(true))
    }

    pub fn int(&self, id: Id) -> i64 {
        match self.values[id as usize] {
            Value::Int(n) => n,
            _ => 0,
        }
    }

    pub fn text(&self, id: Id) -> &str {
        match &self.values[id as usize] {
            Value::Text(t) => t,
            _ => "",
        }
    }

    fn count(&self, id: Id) -> usize {
        self.int(id).max(0) as usize
    }

    pub fn hash_mb(&self) -> usize {
        match self.count(Id::Hash) {
            0 => DEFAULT_HASH_MB,
            mb => mb,
        }
    }

    /// UCCI's "0 = engine's choice" for threads: every core.
    pub fn threads(&self) -> usize {
        match self.count(Id::Threads) {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
    }

    pub fn move_overhead(&self) -> Duration {
        Duration::from_millis(self.count(Id::MoveOverhead) as u64)
    }

    pub fn multipv(&self) -> usize {
        self.count(Id::MultiPv).max(1)
    }

    pub fn resign_score(&self) -> i32 {
        self.int(Id::ResignScore) as i32
    }

    pub fn resign_moves(&self) -> usize {
        self.count(Id::ResignMoves)
    }

    pub fn draw_offer_moves(&self) -> usize {
        self.count(Id::DrawOfferMoves)
    }

    /// The playing strength the options ask for: the Elo when
    /// `UCI_LimitStrength` is on, else the skill level.
    pub fn strength(&self) -> Strength {
        if self.flag(Id::LimitStrength) {
            Strength::from_elo(self.count(Id::Elo) as u32)
        } else {
            Strength::level(self.count(Id::SkillLevel) as u32)
        }
    }

    /// The book files to read: those `bookfiles` lists while `usebook` is
    /// on; none (the book off) otherwise.
    pub fn book_files(&self) -> Vec<String> {
        if !self.flag(Id::UseBook) {
            return Vec::new();
        }
        self.text(Id::BookFiles)
            .split(';')
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .map(String::from)
            .collect()
    }

    /// How a `go` answers from the book: None with the book off.
    pub fn book_variety(&self) -> Option<Variety> {
        self.flag(Id::UseBook)
            .then(|| Variety::from_level(self.text(Id::BookRandomness)))
    }

    /// Why the book stays empty although it is on, if it does.
    pub fn book_note(&self) -> Option<&'static str> {
        (self.flag(Id::UseBook) && self.book_files().is_empty())
            .then_some("usebook is on but no bookfiles are set: no book yet")
    }

    /// The `option ...` lines announced after `ucci` or `uci`, or the
    /// `feature option="..."` lines of CECP, which fill XBoard's engine
    /// settings dialog: checks as 0/1, spins as `value min max`, combos
    /// with the value starred, file names with a browse button.
    pub fn announce(&self, dialect: Dialect) -> Vec<String> {
        self.specs
            .iter()
            .filter_map(|s| {
                let name = s.listed_in(dialect)?;
                Some(match dialect {
                    Dialect::Cecp => cecp_line(s, name),
                    _ => ucci_line(s, name, dialect),
                })
            })
            .collect()
    }
}

fn ucci_line(s: &Spec, name: &str, dialect: Dialect) -> String {
    let lead = match dialect {
        Dialect::Ucci => format!("option {name} type"),
        _ => format!("option name {name} type"),
    };
    match s.kind {
        Kind::Check(d) => format!("{lead} check default {d}"),
        Kind::Spin { default, .. } => {
            let (min, max) = s.range(dialect).unwrap_or_default();
            format!("{lead} spin min {min} max {max} default {default}")
        }
        Kind::Combo(d, vars) => {
            let vars: Vec<String> = vars.iter().map(|v| format!("var {v}")).collect();
            format!("{lead} combo default {d} {}", vars.join(" "))
        }
        Kind::Str(d) | Kind::File(d) => {
            let d = if d.is_empty() && dialect == Dialect::Uci {
                "<empty>"
            } else {
                d
            };
            format!("{lead} string default {d}").trim_end().to_string()
        }
        Kind::Button => format!("{lead} button"),
    }
}

fn cecp_line(s: &Spec, name: &str) -> String {
    let kind = match s.kind {
        Kind::Check(d) => format!("-check {}", u8::from(d)),
        Kind::Spin {
            min, max, default, ..
        } => format!("-spin {default} {min} {max}"),
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
        Kind::File(d) => format!("-file {d}"),
        Kind::Str(d) => format!("-string {d}"),
        Kind::Button => "-button".to_string(),
    };
    format!("feature option=\"{name} {kind}\"")
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

#[cfg(test)]
mod tests {
    use super::*;

    fn set(name: &str, value: Option<&str>) -> Result<(Option<Id>, Value), OptionError> {
        OptionMap::default()
            .set(name, value, Dialect::Ucci)
            .map(|c| (c.id, c.value))
    }

    fn id(name: &str, value: Option<&str>) -> Option<Id> {
        set(name, value).ok().and_then(|c| c.0)
    }

    #[test]
    fn every_spelling_finds_one_option() {
        assert_eq!(id("hashsize", Some("16")), Some(Id::Hash));
        assert_eq!(id("Hash", Some("16")), Some(Id::Hash));
        assert_eq!(id("Move Overhead", Some("5")), Some(Id::MoveOverhead));
        assert_eq!(id("moveoverhead", Some("5")), Some(Id::MoveOverhead));
        assert_eq!(id("move_overhead", Some("5")), Some(Id::MoveOverhead));
        assert_eq!(id("Clear Hash", None), Some(Id::NewGame));
        assert_eq!(id("Resign Score", Some("900")), Some(Id::ResignScore));
        // The table and the enum are one declaration, in one order.
        assert_eq!(SPECS.len(), ID_ORDER.len());
        for (i, id) in ID_ORDER.iter().enumerate() {
            assert_eq!(*id as usize, i);
        }
    }

    #[test]
    fn values_are_checked_and_errors_name_the_option_as_the_dialect_does() {
        assert!(matches!(
            set("nosuch", Some("1")),
            Err(OptionError::Unknown(_))
        ));
        assert!(matches!(
            set("ponder", Some("maybe")),
            Err(OptionError::NotBool { .. })
        ));
        assert!(matches!(
            set("hashsize", None),
            Err(OptionError::MissingValue("hashsize"))
        ));
        assert!(matches!(
            set("style", Some("wild")),
            Err(OptionError::NotChoice { .. })
        ));
        assert_eq!(
            set("style", Some("Risky")).map(|x| x.1),
            Ok(Value::Text("risky".into()))
        );
        assert_eq!(set("usemillisec", None).map(|x| x.1), Ok(Value::Bool(true)));
        let mut map = OptionMap::default();
        let err = map
            .set("hashsize", Some("lots"), Dialect::Uci)
            .err()
            .unwrap();
        assert_eq!(
            err.to_string(),
            "option Hash takes a whole number, not 'lots'"
        );
        let err = map.set("Hash", Some("lots"), Dialect::Ucci).err().unwrap();
        assert_eq!(
            err.to_string(),
            "option hashsize takes a whole number, not 'lots'"
        );
    }

    #[test]
    fn out_of_range_numbers_are_clamped_and_said_so() {
        let mut map = OptionMap::default();
        let c = map
            .set("Hash", Some("99999999999999999999999"), Dialect::Uci)
            .unwrap();
        assert_eq!(c.value, Value::Int(MAX_HASH_MB));
        assert_eq!(
            c.clamp_note().unwrap(),
            format!("option Hash 99999999999999999999999 is outside 1..{MAX_HASH_MB}: clamped to {MAX_HASH_MB}")
        );
        let c = map.set("threads", Some("-4"), Dialect::Ucci).unwrap();
        assert_eq!(c.value, Value::Int(0));
        assert!(c
            .clamp_note()
            .unwrap()
            .contains("option threads -4 is outside 0.."));
        let c = map.set("threads", Some("1024"), Dialect::Ucci).unwrap();
        assert_eq!(c.value, Value::Int(MAX_THREADS));
        assert!(map
            .set("Threads", Some("3"), Dialect::Uci)
            .unwrap()
            .clamp_note()
            .is_none());
        assert_eq!(map.threads(), 3);
    }

    #[test]
    fn announced_in_each_dialect() {
        let map = OptionMap::default();
        let ucci = map.announce(Dialect::Ucci);
        assert!(ucci.contains(&"option hashsize type spin min 0 max 65536 default 64".to_string()));
        assert!(ucci.contains(&"option usemillisec type check default false".to_string()));
        let uci = map.announce(Dialect::Uci);
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
        // Options with no effect are not announced, though still accepted.
        for (dead, value) in [
            ("randomness", "none"),
            ("pruning", "small"),
            ("knowledge", "large"),
            ("style", "risky"),
            ("idle", "none"),
            ("promotion", "true"),
        ] {
            let lead = format!("option {dead} ");
            assert!(!ucci.iter().any(|l| l.starts_with(&lead)), "{dead}");
            assert!(set(dead, Some(value)).is_ok(), "{dead}");
        }
        let cecp = map.announce(Dialect::Cecp);
        for line in [
            "feature option=\"Clear Hash -button\"",
            "feature option=\"Move Overhead -spin 30 0 5000\"",
            "feature option=\"Use NNUE -check 1\"",
            "feature option=\"EvalFile -file <embedded>\"",
            "feature option=\"Book Randomness -combo none /// small /// *medium /// large\"",
        ] {
            assert!(cecp.iter().any(|l| l == line), "{line} in {cecp:?}");
        }
        // Hash, threads and pondering have CECP commands of their own.
        assert!(!cecp
            .iter()
            .any(|l| l.contains("Hash -spin") || l.contains("Ponder")));
    }
}
