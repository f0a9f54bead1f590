//! Datagen's chain output: shards of a fixed range of games each, and the
//! manifest that says how each was made.
//!
//! A shard holds the games `first..=last` of one seed, and is named for
//! them: `s{seed}-{first:07}-{last:07}.chain`. Game ranges are cut at
//! multiples of `shard_games`, so two runs of the same seed that start
//! anywhere fill the same shards. While a shard is written it is
//! `….chain.part`; it gets its name when it is closed (its range done, or
//! the run stopped). A closed shard is never written again: committed to
//! git, a file that changed would be stored twice. So a run refuses games
//! that a shard in the directory already holds, and a run that was killed
//! hard leaves a `.part` file that the next run of the same seed cuts back
//! to its last whole frame and closes.
//!
//! Every closed shard gets a line in `MANIFEST` beside it: the commit and
//! the settings that played it, and what it holds. A game is a function of
//! its number, the seed, the settings and the search's code, and the games
//! are written in order of their numbers, so the line's settings remake
//! the shard byte for byte at its commit (any number of threads).

use super::DatagenError;
use crate::train::chain::{self, ChainGame, ChainWriter};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

pub const MANIFEST: &str = "MANIFEST";

/// The manifest's first lines, written when it is created.
const MANIFEST_HEAD: &str = "\
# Chuhe datagen shards (chain format, src/train/chain.rs), one line each.
# To make a shard again, check out its commit and run, with its values:
#   chuhe datagen --out DIR --seed SEED --first-game FIRST --games GAMES \\
#     --nodes NODES [--soft-nodes SOFT] --hash HASH --openings OPENINGS \\
#     --random-plies PLIES --eval NETWORK --shard-games SHARD
# (NETWORK `nnue` is the network built into that commit; OPENINGS `-` is
# the start position.) The threads do not matter: games are written in
# order of their numbers and each is a function of its number.
";

/// What a run's shards are and where they go.
#[derive(Clone, Debug)]
pub struct ShardConfig {
    pub dir: PathBuf,
    pub seed: u64,
    /// Games per shard (ranges cut at multiples of it).
    pub shard_games: u64,
    /// The settings recorded in the manifest, as `key=value` words in the
    /// order given (the commit, the network, nodes and so on).
    pub recipe: Vec<(String, String)>,
}

/// The shard being written.
struct Open {
    writer: ChainWriter<File>,
    part: PathBuf,
    first: u64,
    /// The last game this shard may take.
    end: u64,
    last: Option<u64>,
    positions: u64,
}

/// The shards of one run.
pub struct ShardSet {
    cfg: ShardConfig,
    open: Option<Open>,
    /// Kept positions pushed this run (written or in the frame being filled).
    positions: u64,
}

/// `s{seed}-{first}-{last}.chain` → (seed, first, last).
fn parse_name(name: &str) -> Option<(u64, u64, u64)> {
    let rest = name.strip_prefix('s')?.strip_suffix(".chain")?;
    let mut it = rest.split('-');
    let (s, f, l) = (it.next()?, it.next()?, it.next()?);
    if it.next().is_some() {
        return None;
    }
    Some((s.parse().ok()?, f.parse().ok()?, l.parse().ok()?))
}

pub fn shard_name(seed: u64, first: u64, last: u64) -> String {
    format!("s{seed}-{first:07}-{last:07}.chain")
}

impl ShardSet {
    /// Opens the run's directory (made if missing) and closes any shard a
    /// killed run of this seed left open.
    pub fn open(
        cfg: ShardConfig,
        progress: &mut dyn FnMut(&str),
    ) -> Result<ShardSet, DatagenError> {
        if cfg.shard_games == 0 {
            return Err(DatagenError::ZeroShardGames);
        }
        std::fs::create_dir_all(&cfg.dir)
            .map_err(|e| DatagenError::io("cannot make", &cfg.dir, e))?;
        let set = ShardSet {
            cfg,
            open: None,
            positions: 0,
        };
        let prefix = format!("s{}-", set.cfg.seed);
        for entry in set.read_dir()? {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with(&prefix) && name.ends_with(".chain.part") {
                set.recover(&entry.path(), progress)?;
            }
        }
        Ok(set)
    }

    fn read_dir(&self) -> Result<Vec<std::fs::DirEntry>, DatagenError> {
        let dir = &self.cfg.dir;
        let mut v: Vec<_> = std::fs::read_dir(dir)
            .map_err(|e| DatagenError::io("cannot read", dir, e))?
            .filter_map(Result::ok)
            .collect();
        v.sort_by_key(|e| e.file_name());
        Ok(v)
    }

    /// Cuts a killed run's `.part` back to its whole frames and closes it.
    fn recover(&self, part: &Path, progress: &mut dyn FnMut(&str)) -> Result<(), DatagenError> {
        let s = chain::salvage(part).map_err(|e| DatagenError::chain(part, e))?;
        match (s.first_game, s.last_game) {
            (Some(first), Some(last)) => {
                let name = shard_name(self.cfg.seed, first, last);
                self.close_file(part, &name, &s)?;
                progress(&format!(
                    "recovered {name} from a stopped run: games {first} to {last}, {} positions",
                    s.positions
                ));
            }
            _ => {
                std::fs::remove_file(part).map_err(|e| DatagenError::io("", part, e))?;
                progress(&format!("removed {} (no whole frame)", part.display()));
            }
        }
        Ok(())
    }

    /// The closed shard of this seed holding game `g`, if any.
    fn holder(&self, g: u64) -> Result<Option<String>, DatagenError> {
        for entry in self.read_dir()? {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some((seed, first, last)) = parse_name(&name) {
                if seed == self.cfg.seed && (first..=last).contains(&g) {
                    return Ok(Some(name));
                }
            }
        }
        Ok(None)
    }

    pub fn push(&mut self, game: &ChainGame) -> Result<(), DatagenError> {
        let g = game.number;
        if self.open.as_ref().is_some_and(|o| g > o.end) {
            self.close()?;
        }
        if self.open.is_none() {
            if let Some(shard) = self.holder(g)? {
                return Err(DatagenError::Taken {
                    game: g,
                    seed: self.cfg.seed,
                    shard,
                });
            }
            let n = self.cfg.shard_games;
            let end = (g / n).saturating_add(1).saturating_mul(n) - 1;
            let part = self
                .cfg
                .dir
                .join(format!("s{}-{g:07}.chain.part", self.cfg.seed));
            let writer = ChainWriter::create(&part)
                .map_err(|e| DatagenError::io("cannot create", &part, e))?;
            self.open = Some(Open {
                writer,
                part,
                first: g,
                end,
                last: None,
                positions: 0,
            });
        }
        let o = self.open.as_mut().expect("opened above");
        o.writer
            .push(game)
            .map_err(|e| DatagenError::chain(&o.part, e))?;
        o.last = Some(g);
        o.positions += game.kept() as u64;
        self.positions += game.kept() as u64;
        Ok(())
    }

    /// Writes the frame in progress.
    pub fn flush(&mut self) -> Result<(), DatagenError> {
        if let Some(o) = &mut self.open {
            o.writer
                .flush()
                .map_err(|e| DatagenError::io("", &o.part, e))?;
        }
        Ok(())
    }

    pub fn positions(&self) -> u64 {
        self.positions
    }

    /// Closes the shard being written: names it for its games and adds its
    /// manifest line.
    pub fn close(&mut self) -> Result<(), DatagenError> {
        let Some(o) = self.open.take() else {
            return Ok(());
        };
        let part = o.part.clone();
        o.writer
            .finish()
            .and_then(|f| f.sync_all())
            .map_err(|e| DatagenError::io("", &part, e))?;
        let Some(last) = o.last else {
            return std::fs::remove_file(&part).map_err(|e| DatagenError::io("", &part, e));
        };
        let s = chain::summarise(&part).map_err(|e| DatagenError::chain(&part, e))?;
        debug_assert_eq!(s.positions, o.positions);
        self.close_file(&part, &shard_name(self.cfg.seed, o.first, last), &s)
    }

    fn close_file(&self, part: &Path, name: &str, s: &chain::Summary) -> Result<(), DatagenError> {
        let path = self.cfg.dir.join(name);
        if path.exists() {
            return Err(DatagenError::Exists(path));
        }
        std::fs::rename(part, &path).map_err(|e| DatagenError::io("", &path, e))?;
        let manifest = self.cfg.dir.join(MANIFEST);
        let new = !manifest.exists();
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&manifest)
            .map_err(|e| DatagenError::io("", &manifest, e))?;
        let mut line = String::new();
        if new {
            line.push_str(MANIFEST_HEAD);
        }
        line.push_str(name);
        for (k, v) in &self.cfg.recipe {
            line.push_str(&format!(" {k}={v}"));
        }
        let first = s.first_game.unwrap_or(0);
        line.push_str(&format!(
            " seed={} shard-games={} first-game={first} games={} positions={} bytes={}\n",
            self.cfg.seed, self.cfg.shard_games, s.games, s.positions, s.bytes
        ));
        f.write_all(line.as_bytes())
            .map_err(|e| DatagenError::io("", &manifest, e))
    }
}
