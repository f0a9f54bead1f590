//! `--resume`: a long match that was stopped (Ctrl-C, a reboot, the end of
//! a working session) goes on from its PGN file instead of starting again.
//!
//! A game in the file counts as played when it is the game the schedule has
//! in that round: the same `Round`, the same engines on the same sides, the
//! same opening (name, start position and book moves) and a result. Its
//! record is rebuilt from the PGN (moves, the per-move comments the runner
//! writes, the `Termination` tag), so the final report, its endings and the
//! clock/depth/speed table cover the whole match. Every other game in the
//! file (another match, a round past the schedule, a round already counted,
//! an unfinished or unreadable game) is left alone and its round is played.

use super::engine::Score;
use super::game::{GameRecord, MoveRecord, Termination};
use super::openings::Opening;
use super::schedule::{Job, MatchConfig};
use crate::record::{self, Game, RecordError};
use chuhe_core::board::notation::chinese;
use chuhe_core::board::{Move, Position};
use chuhe_core::rules::Outcome;
use std::collections::HashSet;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Why a PGN file could not be resumed from; nothing was played or
/// overwritten, so the file can be fixed or moved and the match rerun.
#[derive(Debug)]
pub enum ResumeError {
    /// The file exists but could not be read (or is too large).
    Read { path: PathBuf, source: io::Error },
    /// The file is not PGN the record reader accepts.
    Parse { path: PathBuf, source: RecordError },
}

impl fmt::Display for ResumeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResumeError::Read { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            ResumeError::Parse { path, source } => {
                write!(f, "cannot resume from {}: {source}", path.display())
            }
        }
    }
}

impl std::error::Error for ResumeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ResumeError::Read { source, .. } => Some(source),
            ResumeError::Parse { source, .. } => Some(source),
        }
    }
}

/// What a PGN file holds of a match.
#[derive(Debug, Default)]
pub struct Resumed {
    /// Games of the schedule already played, in file order.
    pub games: Vec<(Job, GameRecord)>,
    /// Games in the file that do not count (see the module comment).
    pub ignored: usize,
}

/// Reads `path` against the schedule `jobs` of `cfg`. A missing or empty
/// file is a match not started yet; a file that cannot be read or parsed is
/// an error (fix or move it: nothing is overwritten).
pub fn load(path: &Path, cfg: &MatchConfig, jobs: &[Job]) -> Result<Resumed, ResumeError> {
    let bytes = match chuhe_core::files::read_capped(path, record::MAX_FILE_BYTES) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Resumed::default()),
        Err(e) => {
            return Err(ResumeError::Read {
                path: path.to_path_buf(),
                source: e,
            })
        }
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Resumed::default());
    }
    let games =
        record::read_bytes(&bytes, Some(record::Format::Pgn)).map_err(|e| ResumeError::Parse {
            path: path.to_path_buf(),
            source: e,
        })?;
    Ok(match_games(&games, cfg, jobs))
}

/// Pairs the games with the schedule.
pub fn match_games(games: &[Game], cfg: &MatchConfig, jobs: &[Job]) -> Resumed {
    let mut out = Resumed::default();
    let mut seen = HashSet::new();
    for game in games {
        let job = game
            .tag("Round")
            .and_then(|r| r.trim().parse::<usize>().ok())
            .and_then(|r| jobs.iter().find(|j| j.round == r));
        let rebuilt = job
            .filter(|j| !seen.contains(&j.round))
            .and_then(|j| Some((*j, rebuild(game, cfg, j)?)));
        match rebuilt {
            Some((job, rec)) => {
                seen.insert(job.round);
                out.games.push((job, rec));
            }
            None => out.ignored += 1,
        }
    }
    out
}

/// The record of `game` if it is the finished game `job`.
fn rebuild(game: &Game, cfg: &MatchConfig, job: &Job) -> Option<GameRecord> {
    let red = &cfg.engines[job.red].name;
    let black = &cfg.engines[job.black].name;
    let opening: &Opening = &cfg.openings[job.opening];
    if game.tag("Red") != Some(red.as_str())
        || game.tag("Black") != Some(black.as_str())
        || game.tag("Opening") != Some(opening.name.as_str())
    {
        return None;
    }
    let outcome = match game.tag("Result")? {
        "1-0" => Outcome::RedWins,
        "0-1" => Outcome::BlackWins,
        "1/2-1/2" => Outcome::Draw,
        _ => return None,
    };
    let termination: Termination = game.tag("Termination")?.parse().ok()?;
    let start = game.start_position().ok()?;
    if start.fen() != Position::from_fen(&opening.fen).ok()?.fen() {
        return None;
    }
    let line = game.mainline();
    if !line.starts_with(&opening.moves) {
        return None;
    }
    let mut pos = start;
    let mut moves = Vec::with_capacity(line.len());
    for node in &game.moves {
        let mut m = move_record(node.mv, node.comment.as_deref().unwrap_or(""));
        m.chinese = chinese(&pos, node.mv).ok()?;
        moves.push(m);
        pos.make_move(node.mv);
    }
    Some(GameRecord {
        red: red.clone(),
        black: black.clone(),
        opening: opening.clone(),
        moves,
        outcome: Some(outcome),
        termination,
    })
}

/// A move and what its comment says, as `pgn::format_game` writes it
/// (without the Chinese notation, which the PGN reader drops):
/// `book`, or `+12/9 1.250s nodes 3500000 nps 2800000 offers a draw pv ...`.
/// Reading stops at the first word it does not know: the game's last
/// comment, the termination, follows the last move's.
fn move_record(mv: Move, comment: &str) -> MoveRecord {
    let mut m = MoveRecord {
        mv,
        chinese: String::new(),
        book: false,
        score: None,
        depth: None,
        time_ms: 0,
        nodes: None,
        nps: None,
        draw_offer: false,
        pv: Vec::new(),
    };
    let words: Vec<&str> = comment.split_whitespace().collect();
    let mut i = 0;
    while let Some(&w) = words.get(i) {
        i += 1;
        let number = |at: usize| words.get(at).and_then(|n| n.parse::<u64>().ok());
        if w == "book" {
            m.book = true;
        } else if let Some((score, depth)) = score_word(w) {
            m.score = Some(score);
            m.depth = depth;
        } else if let Some(secs) = w.strip_suffix('s').and_then(|t| t.parse::<f64>().ok()) {
            m.time_ms = (secs * 1000.0).round() as u64;
        } else if w == "nodes" && number(i).is_some() {
            m.nodes = number(i);
            i += 1;
        } else if w == "nps" && number(i).is_some() {
            m.nps = number(i);
            i += 1;
        } else if w == "offers" && words.get(i..i + 2) == Some(&["a", "draw"]) {
            m.draw_offer = true;
            i += 2;
        } else if w == "pv" {
            while let Some(mv) = words.get(i).and_then(|t| t.parse::<Move>().ok()) {
                m.pv.push(mv);
                i += 1;
            }
        } else {
            break;
        }
    }
    m
}

/// `+12`, `-7/9`, `M5/11`, `M-3`: the score and the depth after `/`.
fn score_word(w: &str) -> Option<(Score, Option<u32>)> {
    let (score, depth) = match w.split_once('/') {
        Some((s, d)) => (s, Some(d.parse::<u32>().ok()?)),
        None => (w, None),
    };
    let score = if let Some(mate) = score.strip_prefix('M') {
        Score::Mate(mate.parse().ok()?)
    } else if score.starts_with(['+', '-']) {
        Score::Cp(score.parse().ok()?)
    } else {
        return None;
    };
    Some((score, depth))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matches::engine::EngineSpec;
    use crate::matches::game::GameSettings;
    use crate::matches::pgn::{format_game, PgnHeader};
    use crate::matches::schedule::schedule;
    use chuhe_core::board::Color;
    use chuhe_core::board::START_FEN;

    fn cfg() -> MatchConfig {
        let mut cfg = MatchConfig::new(
            vec![EngineSpec::new("new", "x"), EngineSpec::new("old", "y")],
            GameSettings::default(),
        );
        cfg.openings = vec![
            Opening {
                name: "central cannon".into(),
                fen: START_FEN.into(),
                moves: vec!["h2e2".parse().unwrap()],
            },
            Opening {
                name: "from a FEN".into(),
                fen: "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1".into(),
                moves: Vec::new(),
            },
        ];
        cfg
    }

    /// The game `job` with `plies` moves after the book, as the runner records it.
    fn played(
        cfg: &MatchConfig,
        job: &Job,
        plies: &[&str],
        termination: Termination,
    ) -> GameRecord {
        let opening = cfg.openings[job.opening].clone();
        let mut pos = opening.position().unwrap();
        let mut moves = Vec::new();
        let mut book = Position::from_fen(&opening.fen).unwrap();
        for &mv in &opening.moves {
            let mut r = move_record(mv, "book");
            r.chinese = chinese(&book, mv).unwrap();
            book.make_move(mv);
            moves.push(r);
        }
        for (k, text) in plies.iter().enumerate() {
            let mv: Move = text.parse().unwrap();
            moves.push(MoveRecord {
                mv,
                chinese: chinese(&pos, mv).unwrap(),
                book: false,
                score: Some(if k == 1 {
                    Score::Mate(-3)
                } else {
                    Score::Cp(k as i32 * 7 - 5)
                }),
                depth: Some(10 + k as u32),
                time_ms: 250 + k as u64,
                nodes: (k % 2 == 0).then_some(12_345),
                nps: Some(1_500_000),
                draw_offer: k == 2,
                pv: vec![mv, mv], // one move alone is not written
            });
            pos.make_move(mv);
        }
        GameRecord {
            red: cfg.engines[job.red].name.clone(),
            black: cfg.engines[job.black].name.clone(),
            opening,
            moves,
            outcome: Some(Outcome::BlackWins),
            termination,
        }
    }

    fn pgn_of(games: &[(Job, GameRecord)]) -> String {
        games
            .iter()
            .map(|(job, g)| {
                format_game(
                    g,
                    &PgnHeader {
                        event: "E",
                        site: "S",
                        date: "2026.12.01",
                        round: job.round,
                        time_control: ["10+0.1"; 2],
                    },
                )
            })
            .collect()
    }

    fn same(a: &GameRecord, b: &GameRecord) {
        assert_eq!(
            (&a.red, &a.black, &a.opening),
            (&b.red, &b.black, &b.opening)
        );
        assert_eq!((a.outcome, &a.termination), (b.outcome, &b.termination));
        assert_eq!(a.moves.len(), b.moves.len());
        for (x, y) in a.moves.iter().zip(&b.moves) {
            assert_eq!(
                (x.mv, &x.chinese, x.book, x.score, x.depth, x.time_ms),
                (y.mv, &y.chinese, y.book, y.score, y.depth, y.time_ms)
            );
            assert_eq!(
                (x.nodes, x.nps, x.draw_offer, &x.pv),
                (y.nodes, y.nps, y.draw_offer, &y.pv)
            );
        }
    }

    #[test]
    fn games_come_back_from_the_pgn_as_they_were_played() {
        let cfg = cfg();
        let jobs = schedule(&cfg);
        let done = vec![
            (
                jobs[0],
                played(
                    &cfg,
                    &jobs[0],
                    &["h9g7", "h0g2", "i9h9"],
                    Termination::Resign { side: Color::Red },
                ),
            ),
            (
                jobs[2],
                played(
                    &cfg,
                    &jobs[2],
                    &["h9g7", "h0g2"],
                    Termination::NoBestMove {
                        side: Color::Red,
                        fen: String::new(),
                        last_lines: Vec::new(),
                    },
                ),
            ),
        ];
        let games = record::pgn::read_str(&pgn_of(&done)).unwrap();
        let back = match_games(&games, &cfg, &jobs);
        assert_eq!(back.ignored, 0);
        assert_eq!(back.games.len(), 2);
        for ((j1, g1), (j2, g2)) in done.iter().zip(&back.games) {
            assert_eq!(j1, j2);
            same(g1, g2);
        }
    }

    #[test]
    fn games_of_another_schedule_do_not_count() {
        let cfg = cfg();
        let jobs = schedule(&cfg);
        let good = played(&cfg, &jobs[1], &["c6c5"], Termination::DrawAgreed);
        // The colours of round 1 swapped, and a round past the schedule.
        let mut swapped = good.clone();
        std::mem::swap(&mut swapped.red, &mut swapped.black);
        let past = Job {
            round: 99,
            ..jobs[1]
        };
        // Another opening under round 2's number.
        let other = played(&cfg, &jobs[3], &["h9g7"], Termination::DrawAgreed);
        let mut unfinished = good.clone();
        unfinished.outcome = None;
        let text = pgn_of(&[
            (jobs[1], swapped),
            (past, good.clone()),
            (jobs[1], other),
            (jobs[1], unfinished),
            (jobs[1], good.clone()),
            (jobs[1], good.clone()), // the same round twice: the first counts
        ]);
        let games = record::pgn::read_str(&text).unwrap();
        let back = match_games(&games, &cfg, &jobs);
        assert_eq!(back.ignored, 5);
        assert_eq!(back.games.len(), 1);
        assert_eq!(back.games[0].0, jobs[1]);
        same(&back.games[0].1, &good);
    }

    #[test]
    fn missing_or_empty_file_is_a_fresh_match_and_garbage_is_an_error() {
        let cfg = cfg();
        let jobs = schedule(&cfg);
        let dir = std::env::temp_dir().join(format!("chuhe-resume-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = load(&dir.join("none.pgn"), &cfg, &jobs).unwrap();
        assert!(missing.games.is_empty() && missing.ignored == 0);
        let empty = dir.join("empty.pgn");
        std::fs::write(&empty, "\n\n").unwrap();
        assert!(load(&empty, &cfg, &jobs).unwrap().games.is_empty());
        let bad = dir.join("bad.pgn");
        std::fs::write(&bad, "[Round \"1\"]\n\n1. h2e2 z9z9 *\n").unwrap();
        let err = load(&bad, &cfg, &jobs).unwrap_err();
        assert!(
            matches!(&err, ResumeError::Parse { path, .. } if *path == bad),
            "{err}"
        );
        assert!(err.to_string().contains("cannot resume from"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn every_termination_reads_back() {
        use chuhe_core::rules::Reason;
        let mut all = vec![
            Termination::DrawAgreed,
            Termination::AdjudicatedDraw,
            Termination::MaxPlies,
            Termination::Interrupted,
        ];
        all.extend(Reason::ALL.map(Termination::Rules));
        for side in [Color::Red, Color::Black] {
            all.extend([
                Termination::IllegalMove {
                    side,
                    text: "z9z9 x".into(),
                },
                Termination::BannedMove {
                    side,
                    mv: "h2e2".parse().unwrap(),
                },
                Termination::NoMove { side },
                Termination::NoBestMove {
                    side,
                    fen: String::new(),
                    last_lines: Vec::new(),
                },
                Termination::Crash { side },
                Termination::NoAnswer { side },
                Termination::TimeForfeit { side },
                Termination::Resign { side },
                Termination::AdjudicatedWin { winner: side },
                Termination::StartFailure {
                    side,
                    error: "no such file: x".into(),
                },
            ]);
        }
        for t in all {
            assert_eq!(t.to_string().parse::<Termination>(), Ok(t.clone()), "{t}");
        }
        assert!("Green resigned".parse::<Termination>().is_err());
        assert!("Red repeated the banned move zz (must vary)"
            .parse::<Termination>()
            .is_err());
    }

    #[test]
    fn comments_stop_at_the_first_unknown_word() {
        let mv: Move = "h2e2".parse().unwrap();
        let m = move_record(mv, "+12/9 1.250s pv h2e2 h9g7 Black resigned pv h0g2");
        assert_eq!(
            (m.score, m.depth, m.time_ms),
            (Some(Score::Cp(12)), Some(9), 1250)
        );
        assert_eq!(m.pv.len(), 2);
        let m = move_record(mv, "M-3 0.010s nodes x");
        assert_eq!(
            (m.score, m.depth, m.time_ms, m.nodes),
            (Some(Score::Mate(-3)), None, 10, None)
        );
    }
}
