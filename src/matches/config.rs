//! Match settings from the command line and from a TOML file.
//!
//! `--engine` takes comma-separated `key=value` fields: `cmd` (the program
//! and any arguments, split at spaces), `name`, `proto` (ucci, uci, auto),
//! `coords` (0, 1, auto: whether the engine's moves number ranks 0-9 or 1-10,
//! see `engine::Coords`), `dir`, `arg` (one more argument, repeatable),
//! `ponder` (true/false, on/off: think on the opponent's time), `tc` (its
//! own time control in place of `--tc`: time odds) and `option.NAME`. A
//! time control of several periods has commas of its own
//! (`tc=40/90m,10/15m`): the fields after `tc` that are not `key=value`
//! continue it.
//!
//! The TOML file holds the same settings as the long options (with `_` for
//! `-`) and the engines as `[[engine]]` tables:
//!
//! ```toml
//! tc = "40/90m,10/15m"
//! concurrency = 2
//! [[engine]]
//! name = "chuhe"
//! cmd = "target/release/chuhe"
//! proto = "ucci"
//! coords = "auto"   # or "0" / "1" (a number works too)
//! ponder = true     # default false
//! tc = "2m+2"       # its own time control (default: the match's)
//! [engine.options]
//! hashsize = 64
//! ```

use super::engine::{Coords, EngineSpec, Protocol};
use super::timecontrol::TimeControl;
use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

fn default_name(cmd: &str) -> String {
    Path::new(cmd)
        .file_stem()
        .map_or_else(|| cmd.to_string(), |s| s.to_string_lossy().into_owned())
}

/// An on/off field of `--engine`: true/false, on/off, yes/no, 1/0.
fn parse_flag(key: &str, value: &str) -> Result<bool, String> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "on" | "yes" | "1" => Ok(true),
        "false" | "off" | "no" | "0" => Ok(false),
        _ => Err(format!("{key} '{value}' must be true or false (on/off)")),
    }
}

/// An engine's own time control.
fn parse_tc(text: &str) -> Result<TimeControl, String> {
    text.parse::<TimeControl>()
        .map_err(|e| format!("tc '{text}': {e}"))
}

/// Parses one `--engine` value.
pub fn parse_engine_arg(text: &str) -> Result<EngineSpec, ConfigError> {
    let bad = |m: String| ConfigError(format!("--engine '{text}': {m}"));
    let mut spec = EngineSpec::new("", "");
    let mut name = None;
    // The periods of `tc=40/90m,10/15m`, gathered until the next key=value.
    let mut tc: Option<String> = None;
    let mut in_tc = false;
    for field in text.split(',').map(str::trim).filter(|f| !f.is_empty()) {
        let Some((key, value)) = field.split_once('=') else {
            match tc.as_mut() {
                Some(t) if in_tc => {
                    t.push(',');
                    t.push_str(field);
                    continue;
                }
                _ => return Err(bad(format!("'{field}' is not key=value"))),
            }
        };
        in_tc = key == "tc";
        match key {
            "tc" => tc = Some(value.to_string()),
            "cmd" => {
                let mut words = value.split_whitespace();
                spec.cmd = words.next().unwrap_or("").to_string();
                spec.args.extend(words.map(str::to_string));
            }
            "arg" => spec.args.push(value.to_string()),
            "name" => name = Some(value.to_string()),
            "proto" => spec.proto = value.parse::<Protocol>().map_err(bad)?,
            "coords" => spec.coords = value.parse::<Coords>().map_err(bad)?,
            "dir" => spec.dir = Some(PathBuf::from(value)),
            "ponder" => spec.ponder = parse_flag(key, value).map_err(bad)?,
            k if k.starts_with("option.") && k.len() > 7 => {
                spec.options.push((k[7..].to_string(), value.to_string()))
            }
            _ => return Err(bad(format!("unknown field '{key}'"))),
        }
    }
    if spec.cmd.is_empty() {
        return Err(bad("no cmd=".into()));
    }
    if let Some(t) = tc {
        spec.tc = Some(parse_tc(&t).map_err(bad)?);
    }
    spec.name = name.unwrap_or_else(|| default_name(&spec.cmd));
    Ok(spec)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileEngine {
    name: Option<String>,
    cmd: String,
    #[serde(default)]
    args: Vec<String>,
    dir: Option<PathBuf>,
    proto: Option<String>,
    /// "0", "1", "auto" or the number 0 or 1.
    coords: Option<toml::Value>,
    #[serde(default)]
    ponder: bool,
    tc: Option<String>,
    #[serde(default)]
    options: toml::Table,
}

/// The settings a file may give; everything is optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    #[serde(default)]
    engine: Vec<FileEngine>,
    pub tc: Option<String>,
    pub margin_ms: Option<u64>,
    pub timeout_ms: Option<u64>,
    pub openings: Option<PathBuf>,
    pub shuffle: Option<bool>,
    pub seed: Option<u64>,
    pub random_plies: Option<u32>,
    pub games: Option<usize>,
    pub concurrency: Option<usize>,
    pub pgn: Option<PathBuf>,
    pub resume: Option<bool>,
    pub gauntlet: Option<bool>,
    pub scale: Option<String>,
    pub sprt: Option<String>,
    pub event: Option<String>,
    pub site: Option<String>,
    pub resign_score: Option<i32>,
    pub resign_moves: Option<usize>,
    pub draw_score: Option<i32>,
    pub draw_moves: Option<usize>,
    pub draw_from_move: Option<usize>,
    pub max_moves: Option<usize>,
    pub ucci_full_history: Option<bool>,
}

impl FileConfig {
    pub fn parse(text: &str) -> Result<FileConfig, ConfigError> {
        toml::from_str(text).map_err(|e| ConfigError(format!("config: {e}")))
    }

    pub fn load(path: &Path) -> Result<FileConfig, ConfigError> {
        let text = chuhe_core::files::read_text_capped(path, 16 << 20)
            .map_err(|e| ConfigError(format!("cannot read {}: {e}", path.display())))?;
        FileConfig::parse(&text).map_err(|e| ConfigError(format!("{}: {}", path.display(), e.0)))
    }

    /// The engines the file names.
    pub fn engines(&self) -> Result<Vec<EngineSpec>, ConfigError> {
        self.engine
            .iter()
            .map(|e| {
                let proto = match &e.proto {
                    Some(p) => p.parse::<Protocol>().map_err(ConfigError)?,
                    None => Protocol::Auto,
                };
                let coords = match &e.coords {
                    None => Coords::Auto,
                    Some(toml::Value::String(s)) => s.parse::<Coords>().map_err(ConfigError)?,
                    Some(toml::Value::Integer(n)) => {
                        n.to_string().parse::<Coords>().map_err(ConfigError)?
                    }
                    Some(other) => {
                        return Err(ConfigError(format!(
                            "coords {other} must be 0, 1 or \"auto\""
                        )))
                    }
                };
                let options = e
                    .options
                    .iter()
                    .map(|(k, v)| {
                        let text = match v {
                            toml::Value::String(s) => s.clone(),
                            other => other.to_string(),
                        };
                        (k.clone(), text)
                    })
                    .collect();
                Ok(EngineSpec {
                    name: e.name.clone().unwrap_or_else(|| default_name(&e.cmd)),
                    cmd: e.cmd.clone(),
                    args: e.args.clone(),
                    dir: e.dir.clone(),
                    proto,
                    options,
                    coords,
                    ponder: e.ponder,
                    tc: e
                        .tc
                        .as_deref()
                        .map(parse_tc)
                        .transpose()
                        .map_err(ConfigError)?,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_arg() {
        let e = parse_engine_arg(
            "cmd=./eng --fast,name=Fast,proto=ucci,dir=/tmp,option.Hash=64,arg=-v",
        )
        .unwrap();
        assert_eq!(e.cmd, "./eng");
        assert_eq!(e.args, ["--fast", "-v"]);
        assert_eq!(e.name, "Fast");
        assert_eq!(e.proto, Protocol::Ucci);
        assert_eq!(e.dir, Some(PathBuf::from("/tmp")));
        assert_eq!(e.options, [("Hash".to_string(), "64".to_string())]);
        assert_eq!(
            parse_engine_arg("cmd=/usr/bin/pikafish").unwrap().name,
            "pikafish"
        );
        assert!(parse_engine_arg("name=x").is_err());
        assert!(parse_engine_arg("cmd=x,proto=xboard").is_err());
        assert!(parse_engine_arg("cmd=x,colour=red").is_err());
        assert_eq!(parse_engine_arg("cmd=x").unwrap().coords, Coords::Auto);
        assert_eq!(
            parse_engine_arg("cmd=x,coords=1").unwrap().coords,
            Coords::One
        );
        assert_eq!(
            parse_engine_arg("cmd=x,coords=0").unwrap().coords,
            Coords::Zero
        );
        assert!(parse_engine_arg("cmd=x,coords=2").is_err());
    }

    #[test]
    fn ponder_setting() {
        assert!(!parse_engine_arg("cmd=x").unwrap().ponder);
        for on in ["true", "on", "ON", "yes", "1"] {
            assert!(
                parse_engine_arg(&format!("cmd=x,ponder={on}"))
                    .unwrap()
                    .ponder
            );
        }
        for off in ["false", "off", "no", "0"] {
            assert!(
                !parse_engine_arg(&format!("cmd=x,ponder={off}"))
                    .unwrap()
                    .ponder
            );
        }
        let err = parse_engine_arg("cmd=x,ponder=maybe").unwrap_err();
        assert!(
            err.0.contains("ponder 'maybe' must be true or false"),
            "{err}"
        );
        let c =
            FileConfig::parse("[[engine]]\ncmd = \"a\"\nponder = true\n[[engine]]\ncmd = \"b\"\n")
                .unwrap();
        let e = c.engines().unwrap();
        assert!(e[0].ponder && !e[1].ponder);
        let err = FileConfig::parse("[[engine]]\ncmd = \"a\"\nponder = \"maybe\"\n").unwrap_err();
        assert!(err.0.contains("ponder"), "{err}");
    }

    #[test]
    fn own_time_control() {
        assert_eq!(parse_engine_arg("cmd=x").unwrap().tc, None);
        let e = parse_engine_arg("cmd=x,tc=20+0.2,name=double").unwrap();
        assert_eq!(e.tc, Some("20+0.2".parse().unwrap()));
        assert_eq!(e.name, "double");
        // A control of several periods keeps its commas.
        let e = parse_engine_arg("cmd=x,tc=40/90m,10/15m,name=slow").unwrap();
        assert_eq!(e.tc, Some("40/90m,10/15m".parse().unwrap()));
        assert_eq!(e.name, "slow");
        let e = parse_engine_arg("cmd=x,tc=nodes=5000").unwrap();
        assert_eq!(e.tc, Some("nodes=5000".parse().unwrap()));
        // A field without `=` that follows no `tc` is still an error, and a
        // bad control names the field.
        assert!(parse_engine_arg("cmd=x,10/15m").is_err());
        assert!(parse_engine_arg("cmd=x,name=y,10/15m").is_err());
        let err = parse_engine_arg("cmd=x,tc=fast").unwrap_err();
        assert!(err.0.contains("tc 'fast'"), "{err}");
        let c =
            FileConfig::parse("[[engine]]\ncmd = \"a\"\ntc = \"1m+1\"\n[[engine]]\ncmd = \"b\"\n")
                .unwrap();
        let e = c.engines().unwrap();
        assert_eq!(e[0].tc, Some("1m+1".parse().unwrap()));
        assert_eq!(e[1].tc, None);
        let c = FileConfig::parse("[[engine]]\ncmd = \"a\"\ntc = \"soon\"\n").unwrap();
        assert!(c.engines().unwrap_err().0.contains("tc 'soon'"));
    }

    #[test]
    fn toml_file() {
        let c = FileConfig::parse(
            r#"
            tc = "40/90m,10/15m"
            concurrency = 2
            sprt = "0,10,0.05,0.05"
            [[engine]]
            name = "a"
            cmd = "./a"
            proto = "uci"
            coords = 1
            [engine.options]
            Hash = 64
            Ponder = false
            [[engine]]
            cmd = "bin/b"
            args = ["--x"]
            coords = "auto"
            "#,
        )
        .unwrap();
        assert_eq!(c.tc.as_deref(), Some("40/90m,10/15m"));
        assert_eq!(c.concurrency, Some(2));
        let e = c.engines().unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].proto, Protocol::Uci);
        assert!(e[0].options.contains(&("Hash".into(), "64".into())));
        assert!(e[0].options.contains(&("Ponder".into(), "false".into())));
        assert_eq!(e[1].name, "b");
        assert_eq!(e[1].args, ["--x"]);
        assert_eq!((e[0].coords, e[1].coords), (Coords::One, Coords::Auto));
        assert!(FileConfig::parse("bogus = 1").is_err());
        for bad in ["coords = 2", "coords = \"x\"", "coords = true"] {
            let text = format!("[[engine]]\ncmd = \"a\"\n{bad}\n");
            assert!(
                FileConfig::parse(&text).unwrap().engines().is_err(),
                "{bad}"
            );
        }
    }
}
