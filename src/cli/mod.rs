//! The command line: the arguments of every subcommand (`args`) and what
//! each does with them. The top of the house: it imports the tools and the
//! engine core, and nothing imports it but `main.rs`.

mod analyze;
pub mod args;
mod matches;

pub use args::*;
use chuhe_core::board::Position;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

impl Command {
    /// Whether the tool writes to pipes or sockets whose reader may go
    /// away at any time (engines it started, a browser): those must see a
    /// failed write, not die of SIGPIPE.
    pub fn talks_to_other_processes(&self) -> bool {
        matches!(
            self,
            Command::Match(_) | Command::Tune(_) | Command::Gui { .. }
        )
    }

    /// Whether the tool watches for Ctrl-C itself (finishing what it can)
    /// rather than dying at once.
    pub fn stops_on_ctrl_c(&self) -> bool {
        matches!(
            self,
            Command::Match(_) | Command::Datagen(_) | Command::Tune(_)
        )
    }
}

/// Runs a tool (or, with no subcommand, the engine). `stop` is set when the
/// user presses Ctrl-C: the long-running tools (match, datagen) end early
/// and keep what they finished.
pub fn run(command: Option<Command>, stop: Arc<AtomicBool>) -> Result<ExitCode, String> {
    match command {
        None => chuhe_core::protocol::run_stdio(),
        Some(Command::Perft {
            fen,
            depth,
            divide,
            threads,
        }) => {
            let pos = start_position(fen.as_deref())?;
            let max = chuhe_core::board::perft::MAX_DEPTH;
            if depth > max {
                return Err(format!(
                    "--depth {depth} is too deep for perft (at most {max})"
                ));
            }
            let threads = threads.clamp(1, chuhe_core::search::MAX_THREADS);
            chuhe_core::board::perft::run(&pos, depth, divide, threads, &mut |l| println!("{l}"));
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Bench {
            depth,
            threads,
            hash,
            fen,
            movetime,
            suite,
            nodes,
            eval,
        }) => {
            use chuhe_core::search::{MAX_DEPTH, MAX_HASH_MB, MAX_THREADS, MIN_HASH_MB};
            let net = eval_choice(&eval)?;
            if !(1..=MAX_DEPTH).contains(&depth) {
                return Err(format!(
                    "--depth {depth} is out of range (1 to {MAX_DEPTH})"
                ));
            }
            let threads = threads.clamp(1, MAX_THREADS);
            let hash = hash.clamp(MIN_HASH_MB, MAX_HASH_MB);
            let mut print = |l: &str| println!("{l}");
            if let Some(path) = suite {
                // A measurement: the exit status does not depend on the
                // count, only on the suite file being readable.
                let cases = crate::bench::read_suite_file(&path).map_err(|e| e.to_string())?;
                let budget = match nodes {
                    Some(0) => return Err("--nodes must be at least 1".to_string()),
                    Some(n) => crate::bench::SuiteBudget::Nodes(n),
                    None => crate::bench::SuiteBudget::Movetime(movetime.unwrap_or(1000)),
                };
                crate::bench::run_suite(net, &cases, budget, threads, hash, &mut print);
                return Ok(ExitCode::SUCCESS);
            }
            match fen {
                None => {
                    crate::bench::run(net, depth, threads, hash, &mut print);
                }
                Some(fen) => {
                    let pos = start_position(Some(&fen))?;
                    let limits = chuhe_core::search::Limits {
                        depth: movetime.is_none().then_some(depth),
                        movetime: movetime.map(std::time::Duration::from_millis),
                        ..Default::default()
                    };
                    crate::bench::analyse(net, &pos, &limits, threads, hash, &mut print);
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Judge { fen, moves, json }) => {
            use crate::judge;
            let pos = judge::replay(fen.as_deref(), &moves).map_err(|e| e.to_string())?;
            let j = judge::judge_game(&pos);
            if json {
                println!("{}", judge::render_json(&pos, &j));
            } else {
                print!("{}", judge::render_text(&pos, &j));
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Match(args)) => matches::run(*args, stop)
            .map(|()| ExitCode::SUCCESS)
            .map_err(|e| e.to_string()),
        Some(Command::Datagen(args)) => datagen(args, stop),
        Some(Command::Data(cmd)) => data(cmd),
        Some(Command::Train(args)) => train(*args),
        Some(Command::Tune(args)) => tune(*args, stop),
        Some(Command::WdlFit { data, plot }) => wdl_fit(&data, plot.as_deref()),
        Some(Command::Datamix { data, out, seed }) => {
            let stats = crate::train::mix::mix_files(&data, &out, seed, &mut |l| eprintln!("{l}"))
                .map_err(|e| e.to_string())?;
            println!(
                "read {} positions, wrote {} distinct ({} duplicates merged) to {}",
                stats.read,
                stats.distinct,
                stats.read - stats.distinct,
                out.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Book(cmd)) => book(cmd).map(|()| ExitCode::SUCCESS),
        Some(Command::Analyze(args)) => analyze::run(*args)
            .map(|()| ExitCode::SUCCESS)
            .map_err(|e| e.to_string()),
        Some(Command::Gui {
            port,
            no_browser,
            threads,
            hash,
        }) => {
            let options = crate::gui::Options {
                port,
                threads: threads.clamp(1, chuhe_core::search::MAX_THREADS),
                hash_mb: hash.clamp(chuhe_core::search::MIN_HASH_MB, 4096),
            };
            crate::gui::run(&options, !no_browser)
                .map(|()| ExitCode::SUCCESS)
                .map_err(|e| e.to_string())
        }
        Some(Command::Convert { mut paths, to }) => {
            let out = paths.pop().unwrap_or_default();
            let summary = crate::convert::convert(&paths, &out, to).map_err(|e| e.to_string())?;
            println!(
                "converted {} game(s) into {} file(s)",
                summary.games,
                summary.written.len()
            );
            if summary.failed.is_empty() {
                return Ok(ExitCode::SUCCESS);
            }
            eprintln!("could not convert {}:", summary.failed.len());
            for f in &summary.failed {
                eprintln!("  {f}");
            }
            Ok(ExitCode::from(1))
        }
    }
}

/// `--fen`, or the start position when absent.
fn start_position(fen: Option<&str>) -> Result<Position, String> {
    match fen {
        None => Ok(Position::startpos()),
        Some(f) => Position::from_fen(f).map_err(|e| format!("bad --fen: {e}")),
    }
}

fn datagen(a: DatagenArgs, stop: Arc<AtomicBool>) -> Result<ExitCode, String> {
    use crate::datagen;
    let net = eval_choice(&a.eval)?;
    let openings = match &a.openings {
        None => Vec::new(),
        Some(p) => crate::matches::openings::load(p).map_err(|e| e.to_string())?,
    };
    if a.nodes == 0 || a.random_plies > 200 {
        return Err("--nodes must be positive and --random-plies at most 200".into());
    }
    if a.soft_nodes.is_some_and(|s| s == 0 || s > a.nodes) {
        return Err("--soft-nodes must be positive and at most --nodes (the hard cap)".into());
    }
    let threads = a
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, 256);
    let out = if a.format == "records" {
        datagen::Output::Records(a.out)
    } else {
        let network = match a.eval.as_str() {
            "nnue" => format!("{}(built-in)", chuhe_core::nnue::EMBEDDED_NAME),
            other => other.to_string(),
        };
        let openings = a
            .openings
            .as_ref()
            .map_or("-".to_string(), |p| p.display().to_string());
        let soft = a.soft_nodes.map_or("-".to_string(), |n| n.to_string());
        let recipe = [
            // The commit this binary was built from (build.rs).
            ("commit", env!("CHUHE_COMMIT").to_string()),
            ("network", network),
            ("nodes", a.nodes.to_string()),
            ("soft-nodes", soft),
            ("hash", a.hash.to_string()),
            ("openings", openings),
            ("random-plies", a.random_plies.to_string()),
        ];
        datagen::Output::Chain(datagen::ShardConfig {
            dir: a.out,
            seed: a.seed,
            shard_games: a.shard_games,
            recipe: recipe
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.replace(char::is_whitespace, "_")))
                .collect(),
        })
    };
    if a.shard_games == 0 {
        return Err("--shard-games must be positive".into());
    }
    let cfg = datagen::DatagenConfig {
        games: a.games,
        first_game: a.first_game,
        nodes: a.nodes,
        soft_nodes: a.soft_nodes,
        threads,
        out,
        openings,
        random_plies: a.random_plies,
        seed: a.seed,
        hash_mb: a.hash.clamp(1, 4096),
        net,
    };
    let n = datagen::run(&cfg, stop, &mut |l| eprintln!("{l}")).map_err(|e| e.to_string())?;
    println!("positions {n}");
    Ok(ExitCode::SUCCESS)
}

fn data(cmd: DataCommand) -> Result<ExitCode, String> {
    use crate::train::chain;
    match cmd {
        DataCommand::Info { files } => {
            let mut total = chain::Summary::default();
            for f in &files {
                let s = chain::summarise(f).map_err(|e| format!("{}: {e}", f.display()))?;
                let range = match (s.first_game, s.last_game) {
                    (Some(a), Some(b)) => format!("games {a}..={b}, "),
                    _ => String::new(),
                };
                println!(
                    "{}: {range}{:.2} bytes/position games {} positions {} bytes {}",
                    f.display(),
                    s.bytes as f64 / s.positions.max(1) as f64,
                    s.games,
                    s.positions,
                    s.bytes
                );
                total.games += s.games;
                total.positions += s.positions;
                total.bytes += s.bytes;
            }
            println!(
                "total: {} files, {:.2} bytes/position games {} positions {} bytes {}",
                files.len(),
                total.bytes as f64 / total.positions.max(1) as f64,
                total.games,
                total.positions,
                total.bytes
            );
        }
        DataCommand::Unpack { files, out } => {
            use crate::train::data::{self, DataWriter};
            if out.exists() {
                return Err(format!("{} exists already", out.display()));
            }
            let mut w = DataWriter::append(&out).map_err(|e| format!("{}: {e}", out.display()))?;
            let mut buffer = Vec::with_capacity(1 << 16);
            let mut failed = None;
            for f in &files {
                let r = data::visit(f, |r| {
                    buffer.push(r);
                    if buffer.len() == buffer.capacity() && failed.is_none() {
                        failed = w.write(&buffer).err();
                        buffer.clear();
                    }
                });
                if let Some(e) = failed.take() {
                    return Err(format!("{}: {e}", out.display()));
                }
                // Whatever was read before damage is written, then the error.
                w.write(&buffer)
                    .map_err(|e| format!("{}: {e}", out.display()))?;
                buffer.clear();
                r.map_err(|e| format!("{}: {e}", f.display()))?;
            }
            println!("positions {}", w.written());
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn tune(a: TuneArgs, stop: Arc<AtomicBool>) -> Result<ExitCode, String> {
    use crate::matches::config::parse_engine_arg;
    use crate::tune::{self, TuneConfig};
    let engine = parse_engine_arg(&a.engine).map_err(|e| e.to_string())?;
    let options = tune::spin_options(&engine).map_err(|e| e.to_string())?;
    let params = tune::select_params(&options, &a.params).map_err(|e| e.to_string())?;
    let tc = a.tc.parse().map_err(|e| format!("--tc {}: {e}", a.tc))?;
    let openings = match &a.openings {
        Some(p) => crate::matches::openings::load(p).map_err(|e| e.to_string())?,
        None => Vec::new(),
    };
    let cfg = TuneConfig {
        engine,
        params,
        iterations: a.iterations.max(1),
        pairs: a.pairs.max(1),
        settings: crate::matches::game::GameSettings {
            tc,
            max_plies: 1000,
            ..Default::default()
        },
        openings,
        concurrency: a.concurrency.clamp(1, 64),
        state: a.state,
        seed: a.seed,
    };
    let done = tune::run(&cfg, stop, &mut |l| eprintln!("{l}")).map_err(|e| e.to_string())?;
    for p in &done {
        println!("{} {:.2}", p.name, p.value);
    }
    Ok(ExitCode::SUCCESS)
}

fn wdl_fit(data: &[PathBuf], plot: Option<&Path>) -> Result<ExitCode, String> {
    use crate::train::wdl;
    let mut records = Vec::new();
    for p in data {
        let r = crate::train::data::read_all(p).map_err(|e| format!("{}: {e}", p.display()))?;
        records.extend(r);
    }
    let fit = wdl::fit(&records).ok_or_else(|| {
        format!(
            "{} positions are too few to fit (a few thousand at each of four piece counts at least)",
            records.len()
        )
    })?;
    println!("pieces positions      a       b");
    for p in &fit.per_pieces {
        println!(
            "{:>6} {:>9} {:>7.1} {:>7.1}",
            p.pieces, p.positions, p.a, p.b
        );
    }
    println!("{}", fit.constants());
    if let Some(path) = plot {
        std::fs::write(path, wdl::plot_svg(&fit, &records))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        println!("plot written to {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn train(a: TrainArgs) -> Result<ExitCode, String> {
    use crate::train;
    // Written as ranges so that NaN fails every test.
    let lr_final = a.lr_final.unwrap_or(a.lr / 100.0);
    if !(0.0..=1.0).contains(&a.wdl)
        || !(f32::MIN_POSITIVE..=1e6).contains(&a.scale)
        || !(0.0..0.5).contains(&a.val_fraction)
        || a.batch == 0
        || !(f32::MIN_POSITIVE..=1.0).contains(&a.lr)
        || !(0.0..=1.0).contains(&a.lr_decay)
        || a.lr_step == 0
        || !(0.0..=a.lr).contains(&lr_final)
    {
        return Err(
            "need 0 <= --wdl <= 1, --scale > 0, 0 <= --val-fraction < 0.5, --batch > 0, \
             --lr > 0, 0 <= --lr-decay <= 1, --lr-step > 0, 0 <= --lr-final <= --lr"
                .into(),
        );
    }
    let layout = train::Layout::new(a.hidden, a.buckets)
        .and_then(|l| l.with_kings(a.king_buckets))
        .map_err(|e| e.to_string())?;
    let schedule = match a.lr_schedule.as_str() {
        "step" => train::LrSchedule::Step {
            every: a.lr_step,
            gamma: a.lr_decay,
        },
        "cosine" => train::LrSchedule::Cosine { final_lr: lr_final },
        _ => train::LrSchedule::Exponential { decay: a.lr_decay },
    };
    if let Some(t) = a.threads {
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(t.clamp(1, 256))
            .build_global();
    }
    let mut records = Vec::new();
    for p in &a.data {
        crate::train::data::read_into(p, &mut records)
            .map_err(|e| format!("{}: {e}", p.display()))?;
    }
    if let Some(m) = a.max_positions {
        records.truncate(m);
    }
    if records.len() < 2 {
        return Err(format!(
            "not enough positions to train on ({})",
            records.len()
        ));
    }
    let cfg = train::TrainConfig {
        epochs: a.epochs,
        batch: a.batch,
        lr: a.lr,
        schedule,
        warmup: a.warmup,
        wdl: a.wdl,
        scale: a.scale,
        val_fraction: a.val_fraction,
        seed: a.seed,
        checkpoint: a.checkpoint,
        ..Default::default()
    };
    let trainer = match a.resume {
        Some(p) => train::Trainer::resume(&p, layout).map_err(|e| e.to_string())?,
        None => train::Trainer::new(train::FloatNet::random(layout, a.seed)),
    };
    let summary = train::summarise(&records);
    eprintln!(
        "data {} positions: wins {:.1}%, draws {:.1}%, losses {:.1}%; \
         the results fit sigmoid(score / {:.0}) best (--scale {})",
        summary.positions,
        summary.wdl[0] * 100.0,
        summary.wdl[1] * 100.0,
        summary.wdl[2] * 100.0,
        summary.fitted_scale,
        a.scale
    );
    let validation = if a.validation.is_empty() {
        None
    } else {
        let mut val = Vec::new();
        for p in &a.validation {
            crate::train::data::read_into(p, &mut val)
                .map_err(|e| format!("{}: {e}", p.display()))?;
        }
        if val.is_empty() {
            return Err("no positions in the --validation files".into());
        }
        Some(val)
    };
    train::run(trainer, records, validation, &cfg, &a.out, &mut |l| {
        eprintln!("{l}")
    })
    .map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}

fn book(cmd: BookCommand) -> Result<(), String> {
    use crate::book;
    match cmd {
        BookCommand::Build {
            out,
            min_games,
            max_ply,
            games,
        } => {
            let opts = crate::book::build::BuildOptions { min_games, max_ply };
            let summary = book::build(&out, &games, opts, &read_games, &mut |w| {
                eprintln!("warning: {w}")
            })
            .map_err(|e| e.to_string())?;
            println!("{summary}");
        }
        BookCommand::Probe { book, fen, moves } => {
            for l in book::probe(&book, fen.as_deref(), &moves).map_err(|e| e.to_string())? {
                println!("{l}");
            }
        }
    }
    Ok(())
}

/// `--eval`: `nnue` (the built-in network), `hce` (None: hand-crafted), or
/// a network file.
fn eval_choice(eval: &str) -> Result<Option<Arc<chuhe_core::nnue::net::Network>>, String> {
    match eval {
        "hce" => Ok(None),
        "nnue" => Ok(chuhe_core::nnue::default_network()),
        path => chuhe_core::nnue::net::Network::load(std::path::Path::new(path))
            .map(|n| Some(Arc::new(n)))
            .map_err(|e| format!("--eval {path}: {e}")),
    }
}

/// Reads a record file (PGN or XQF) for the tools.
fn read_games(path: &str) -> Result<Vec<crate::record::Game>, String> {
    crate::record::read_file(std::path::Path::new(path)).map_err(|e| e.to_string())
}
