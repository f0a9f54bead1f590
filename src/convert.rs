//! `chuhe convert IN... OUT`: game records between XQF and PGN, keeping
//! variations and comments. One file converts to one file; several files or
//! a directory convert into a directory (or all into one PGN file), each
//! file that cannot be read is listed with the reason and the rest goes on.

use crate::record::{self, pgn, xqf, Format, Game, RecordError};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Why a conversion could not go on at all (a file that cannot be read
/// is not one: it goes to `Summary::failed` and the rest converts).
#[derive(Debug)]
pub enum ConvertError {
    NoInputs,
    /// Several inputs were given with a single `.xqf` file as the output.
    SeveralIntoXqf(PathBuf),
    /// One input, and an output with an extension that is neither.
    BadOutput(PathBuf),
    CreateDir {
        path: PathBuf,
        source: io::Error,
    },
    Write {
        path: PathBuf,
        source: io::Error,
    },
    /// `--to` named neither format: the text given.
    UnknownFormat(String),
}

impl fmt::Display for ConvertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConvertError::NoInputs => write!(f, "no input files"),
            ConvertError::SeveralIntoXqf(out) => write!(
                f,
                "{}: several inputs need an output directory (XQF holds one game)",
                out.display()
            ),
            ConvertError::BadOutput(out) => write!(
                f,
                "{}: output must end in .pgn or .xqf, or be a directory",
                out.display()
            ),
            ConvertError::CreateDir { path, source } => {
                write!(f, "{}: cannot create directory: {source}", path.display())
            }
            ConvertError::Write { path, source } => {
                write!(f, "{}: cannot write: {source}", path.display())
            }
            ConvertError::UnknownFormat(s) => write!(f, "unknown format '{s}' (xqf or pgn)"),
        }
    }
}

impl std::error::Error for ConvertError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConvertError::CreateDir { source, .. } | ConvertError::Write { source, .. } => {
                Some(source)
            }
            _ => None,
        }
    }
}

/// What a conversion did.
#[derive(Debug, Default)]
pub struct Summary {
    /// Files written.
    pub written: Vec<PathBuf>,
    /// Games converted.
    pub games: usize,
    /// Inputs (or outputs) that failed, with the reason.
    pub failed: Vec<String>,
}

fn format_name(f: Format) -> &'static str {
    match f {
        Format::Xqf => "xqf",
        Format::Pgn => "pgn",
    }
}

fn other(f: Format) -> Format {
    match f {
        Format::Xqf => Format::Pgn,
        Format::Pgn => Format::Xqf,
    }
}

/// The record files under `dir`, in name order, walking subdirectories.
fn walk(dir: &Path, out: &mut Vec<PathBuf>, failed: &mut Vec<String>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            failed.push(format!("{}: cannot list: {e}", dir.display()));
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            walk(&p, out, failed);
        } else if Format::from_path(&p).is_some() {
            out.push(p);
        }
    }
}

/// Converts `inputs` to `out`. `to` forces the output format of a
/// directory target (otherwise each file goes to the other format).
pub fn convert(
    inputs: &[PathBuf],
    out: &Path,
    to: Option<Format>,
) -> Result<Summary, ConvertError> {
    if inputs.is_empty() {
        return Err(ConvertError::NoInputs);
    }
    let mut summary = Summary::default();
    // (file, path relative to its input root, for the output name)
    let mut files: Vec<(PathBuf, PathBuf)> = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut found = Vec::new();
            walk(input, &mut found, &mut summary.failed);
            for f in found {
                let rel = f.strip_prefix(input).unwrap_or(&f).to_path_buf();
                files.push((f, rel));
            }
        } else {
            let name = input.file_name().map(PathBuf::from).unwrap_or_default();
            files.push((input.clone(), name));
        }
    }
    let single_target = Format::from_path(out).filter(|_| !out.is_dir());
    let many = files.len() > 1 || inputs.iter().any(|p| p.is_dir());
    match single_target {
        Some(Format::Pgn) => {
            // Everything into one PGN file.
            let mut text = String::new();
            for (f, _) in &files {
                match record::read_file(f) {
                    Ok(games) => {
                        summary.games += games.len();
                        text.push_str(&pgn::write(&games));
                    }
                    Err(e) => summary.failed.push(e.to_string()),
                }
            }
            if summary.games > 0 {
                write_out(out, text.as_bytes(), &mut summary)?;
            }
        }
        Some(Format::Xqf) if !many => {
            let (f, _) = &files[0];
            match record::read_file(f) {
                Ok(games) => write_xqf_games(&games, out, &mut summary),
                Err(e) => summary.failed.push(e.to_string()),
            }
        }
        Some(Format::Xqf) => return Err(ConvertError::SeveralIntoXqf(out.to_path_buf())),
        None => {
            if !many && out.extension().is_some() && !out.is_dir() {
                return Err(ConvertError::BadOutput(out.to_path_buf()));
            }
            std::fs::create_dir_all(out).map_err(|e| ConvertError::CreateDir {
                path: out.to_path_buf(),
                source: e,
            })?;
            for (f, rel) in &files {
                let from = Format::from_path(f).unwrap_or(Format::Pgn);
                let fmt = to.unwrap_or_else(|| other(from));
                let target = out.join(rel).with_extension(format_name(fmt));
                if let Some(parent) = target.parent() {
                    if let Err(e) = std::fs::create_dir_all(parent) {
                        summary
                            .failed
                            .push(format!("{}: cannot create: {e}", parent.display()));
                        continue;
                    }
                }
                match record::read_file(f) {
                    Ok(games) => match fmt {
                        Format::Pgn => {
                            summary.games += games.len();
                            write_out(&target, pgn::write(&games).as_bytes(), &mut summary)?;
                        }
                        Format::Xqf => write_xqf_games(&games, &target, &mut summary),
                    },
                    Err(e) => summary.failed.push(e.to_string()),
                }
            }
        }
    }
    Ok(summary)
}

/// One XQF file per game: `out` itself for one game, `out-1.xqf`, ... for several.
fn write_xqf_games(games: &[Game], out: &Path, summary: &mut Summary) {
    for (i, g) in games.iter().enumerate() {
        let path = if games.len() == 1 {
            out.to_path_buf()
        } else {
            let stem = out.file_stem().unwrap_or_default().to_string_lossy();
            out.with_file_name(format!("{stem}-{}.xqf", i + 1))
        };
        match xqf::write(g) {
            Ok(bytes) => {
                if let Err(e) = write_out(&path, &bytes, summary) {
                    summary.failed.push(e.to_string());
                } else {
                    summary.games += 1;
                }
            }
            Err(RecordError { what, .. }) => {
                summary
                    .failed
                    .push(format!("{}: game {}: {what}", path.display(), i + 1))
            }
        }
    }
}

fn write_out(path: &Path, bytes: &[u8], summary: &mut Summary) -> Result<(), ConvertError> {
    std::fs::write(path, bytes).map_err(|e| ConvertError::Write {
        path: path.to_path_buf(),
        source: e,
    })?;
    summary.written.push(path.to_path_buf());
    Ok(())
}

/// Parses `--to`.
pub fn parse_format(s: &str) -> Result<Format, ConvertError> {
    match s.to_ascii_lowercase().as_str() {
        "xqf" => Ok(Format::Xqf),
        "pgn" => Ok(Format::Pgn),
        _ => Err(ConvertError::UnknownFormat(s.to_string())),
    }
}
