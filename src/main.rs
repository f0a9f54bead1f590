//! The `chuhe` command line. With no subcommand it speaks UCCI/UCI on
//! stdin/stdout; subcommands run the tools.

use chuhe::board::Position;
use clap::{Args, Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "chuhe", version, about = "Chuhe (楚河), a xiangqi engine")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the legal move tree (move generator check and speed).
    Perft {
        /// Position to start from (start position when absent).
        #[arg(long)]
        fen: Option<String>,
        #[arg(long, default_value_t = 5)]
        depth: u32,
        /// Print the count below each root move.
        #[arg(long)]
        divide: bool,
        /// Split the root moves over this many threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
    /// Search a fixed list of positions to a fixed depth: the node count is
    /// the search's signature, the speed its nps figure.
    Bench {
        #[arg(long, default_value_t = chuhe::tools::bench::DEFAULT_DEPTH)]
        depth: u32,
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Transposition table size in MB.
        #[arg(long, default_value_t = 16)]
        hash: usize,
        /// Analyse only this position, printing every depth.
        #[arg(long)]
        fen: Option<String>,
        /// With --fen: think this many milliseconds instead of searching to --depth.
        #[arg(long)]
        movetime: Option<u64>,
        /// Evaluation: `nnue` (the built-in network), `hce` (hand-crafted),
        /// or a network file.
        #[arg(long, default_value = "nnue")]
        eval: String,
    },
    /// Replay a game and judge its end: mate, stalemate, natural limit,
    /// material, and repetition (棋例) with each cycle move classified.
    Judge {
        /// Position the moves start from (start position when absent).
        #[arg(long)]
        fen: Option<String>,
        /// Moves in ICCS coordinates, separated by spaces.
        #[arg(long, default_value = "")]
        moves: String,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Play engines against each other (match, round robin or gauntlet).
    Match(Box<chuhe::tools::matches::MatchArgs>),
    /// Generate training positions for the network by self-play at a fixed
    /// node budget per move (appends to --out; Ctrl-C keeps what was written).
    Datagen(DatagenArgs),
    /// Train the network on datagen files; writes the quantised network to
    /// --out after every epoch.
    Train(Box<TrainArgs>),
    /// Analyse a game: scores, best moves, marked mistakes, the rules
    /// verdict; writes the annotated game and an HTML report.
    Analyze(Box<chuhe::tools::analyze::cli::AnalyzeArgs>),
    /// Opening books: build one from games, or look a position up.
    #[command(subcommand)]
    Book(BookCommand),
    /// Convert game records between XQF and PGN (variations and comments kept).
    /// `chuhe convert IN OUT` for one file; several files or directories go
    /// into an output directory (or all into one .pgn file).
    Convert {
        /// Input files or directories, then the output (file or directory).
        #[arg(required = true, num_args = 2..)]
        paths: Vec<std::path::PathBuf>,
        /// Output format for a directory target (default: the other one).
        #[arg(long, value_parser = chuhe::tools::convert::parse_format)]
        to: Option<chuhe::record::Format>,
    },
}

#[derive(Args)]
struct DatagenArgs {
    /// Number of games to play.
    #[arg(long, default_value_t = 1000)]
    games: u64,
    /// Nodes searched per move.
    #[arg(long, default_value_t = 6000)]
    nodes: u64,
    /// Games played at once (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// Output file (created, or appended to).
    #[arg(long)]
    out: std::path::PathBuf,
    /// Opening suite to start from (one chosen at random per game);
    /// the start position when absent.
    #[arg(long)]
    openings: Option<std::path::PathBuf>,
    /// Random legal plies played after the opening.
    #[arg(long, default_value_t = 6)]
    random_plies: u32,
    /// Seed: the same seed and settings replay the same games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Transposition table per game thread, MB.
    #[arg(long, default_value_t = 16)]
    hash: usize,
    /// Evaluation the games are played with: `nnue` (the built-in
    /// network), `hce` (hand-crafted), or a network file.
    #[arg(long, default_value = "nnue")]
    eval: String,
}

#[derive(Args)]
struct TrainArgs {
    /// Training data files (chuhe datagen output).
    #[arg(required = true)]
    data: Vec<std::path::PathBuf>,
    /// The quantised network written after each epoch.
    #[arg(long)]
    out: std::path::PathBuf,
    #[arg(long, default_value_t = 20)]
    epochs: usize,
    #[arg(long, default_value_t = 16384)]
    batch: usize,
    #[arg(long, default_value_t = 0.001)]
    lr: f32,
    /// Learning-rate factor applied after each epoch.
    #[arg(long, default_value_t = 0.92)]
    lr_decay: f32,
    /// Weight of the game result in the target (0..1; the rest is the search score).
    #[arg(long, default_value_t = 0.3)]
    wdl: f32,
    /// Centipawns per unit of network output (the score's sigmoid scale).
    #[arg(long, default_value_t = 300.0)]
    scale: f32,
    /// Fraction of the positions held back for validation.
    #[arg(long, default_value_t = 0.05)]
    val_fraction: f64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// Directory for a checkpoint after each epoch.
    #[arg(long)]
    checkpoint: Option<std::path::PathBuf>,
    /// Resume from a checkpoint file.
    #[arg(long)]
    resume: Option<std::path::PathBuf>,
    /// Use at most this many positions (the first ones read).
    #[arg(long)]
    max_positions: Option<usize>,
}

#[derive(Subcommand)]
enum BookCommand {
    /// Build a book in Chuhe's format from PGN and XQF game files.
    Build {
        /// The book file to write.
        #[arg(long)]
        out: String,
        /// Leave out moves played in fewer games than this.
        #[arg(long, default_value_t = chuhe::book::build::BuildOptions::default().min_games)]
        min_games: u32,
        /// Count only this many plies of each game.
        #[arg(long, default_value_t = chuhe::book::build::BuildOptions::default().max_ply)]
        max_ply: usize,
        /// Game files (PGN or XQF).
        #[arg(required = true)]
        games: Vec<String>,
    },
    /// List a book's moves for a position (Chuhe's format or BOOK.DAT).
    Probe {
        #[arg(long)]
        book: String,
        /// Position the moves start from (start position when absent).
        #[arg(long)]
        fen: Option<String>,
        /// Moves in ICCS coordinates, separated by spaces.
        #[arg(long, default_value = "")]
        moves: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Every tool reports a failure the same way: `error: ...` on stderr and
    // exit status 2 (1 is left for "ran, but some inputs failed").
    match run(cli.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(command: Option<Command>) -> Result<ExitCode, String> {
    match command {
        None => chuhe::protocol::run_stdio(),
        Some(Command::Perft {
            fen,
            depth,
            divide,
            threads,
        }) => {
            let pos = start_position(fen.as_deref())?;
            let max = chuhe::tools::perft::MAX_DEPTH;
            if depth > max {
                return Err(format!(
                    "--depth {depth} is too deep for perft (at most {max})"
                ));
            }
            let threads = threads.clamp(1, chuhe::search::MAX_THREADS);
            chuhe::tools::perft::run(&pos, depth, divide, threads, &mut |l| println!("{l}"));
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Bench {
            depth,
            threads,
            hash,
            fen,
            movetime,
            eval,
        }) => {
            use chuhe::search::{MAX_DEPTH, MAX_HASH_MB, MAX_THREADS, MIN_HASH_MB};
            let net = eval_choice(&eval)?;
            if !(1..=MAX_DEPTH).contains(&depth) {
                return Err(format!(
                    "--depth {depth} is out of range (1 to {MAX_DEPTH})"
                ));
            }
            let threads = threads.clamp(1, MAX_THREADS);
            let hash = hash.clamp(MIN_HASH_MB, MAX_HASH_MB);
            let mut print = |l: &str| println!("{l}");
            match fen {
                None => {
                    chuhe::tools::bench::run(net, depth, threads, hash, &mut print);
                }
                Some(fen) => {
                    let pos = start_position(Some(&fen))?;
                    let limits = chuhe::search::Limits {
                        depth: movetime.is_none().then_some(depth),
                        movetime: movetime.map(std::time::Duration::from_millis),
                        ..Default::default()
                    };
                    chuhe::tools::bench::analyse(net, &pos, &limits, threads, hash, &mut print);
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Judge { fen, moves, json }) => {
            use chuhe::tools::judge;
            let pos = judge::replay(fen.as_deref(), &moves).map_err(|e| e.to_string())?;
            let j = judge::judge_game(&pos);
            if json {
                println!("{}", judge::render_json(&pos, &j));
            } else {
                print!("{}", judge::render_text(&pos, &j));
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Match(args)) => chuhe::tools::matches::cli::run(*args)
            .map(|()| ExitCode::SUCCESS)
            .map_err(|e| e.to_string()),
        Some(Command::Datagen(args)) => datagen(args),
        Some(Command::Train(args)) => train(*args),
        Some(Command::Book(cmd)) => book(cmd).map(|()| ExitCode::SUCCESS),
        Some(Command::Analyze(args)) => chuhe::tools::analyze::cli::run(*args)
            .map(|()| ExitCode::SUCCESS)
            .map_err(|e| e.to_string()),
        Some(Command::Convert { mut paths, to }) => {
            let out = paths.pop().unwrap_or_default();
            let summary = chuhe::tools::convert::convert(&paths, &out, to)?;
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

fn datagen(a: DatagenArgs) -> Result<ExitCode, String> {
    use chuhe::tools::datagen;
    let net = eval_choice(&a.eval)?;
    let openings = match a.openings {
        None => Vec::new(),
        Some(p) => chuhe::tools::matches::openings::load(&p).map_err(|e| e.to_string())?,
    };
    if a.nodes == 0 || a.random_plies > 200 {
        return Err("--nodes must be positive and --random-plies at most 200".into());
    }
    let threads = a
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, 256);
    let cfg = datagen::DatagenConfig {
        games: a.games,
        nodes: a.nodes,
        threads,
        out: a.out,
        openings,
        random_plies: a.random_plies,
        seed: a.seed,
        hash_mb: a.hash.clamp(1, 4096),
        net,
    };
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = stop.clone();
    let _ = ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::Relaxed));
    let n = datagen::run(&cfg, stop, &mut |l| eprintln!("{l}")).map_err(|e| e.to_string())?;
    println!("positions {n}");
    Ok(ExitCode::SUCCESS)
}

fn train(a: TrainArgs) -> Result<ExitCode, String> {
    use chuhe::nnue::train;
    // Written as ranges so that NaN fails every test.
    if !(0.0..=1.0).contains(&a.wdl)
        || !(f32::MIN_POSITIVE..=1e6).contains(&a.scale)
        || !(0.0..0.5).contains(&a.val_fraction)
        || a.batch == 0
        || !(f32::MIN_POSITIVE..=1.0).contains(&a.lr)
    {
        return Err(
            "need 0 <= --wdl <= 1, --scale > 0, 0 <= --val-fraction < 0.5, --batch > 0, --lr > 0"
                .into(),
        );
    }
    if let Some(t) = a.threads {
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(t.clamp(1, 256))
            .build_global();
    }
    let mut records = Vec::new();
    for p in &a.data {
        let r = chuhe::nnue::data::read_all(p).map_err(|e| format!("{}: {e}", p.display()))?;
        records.extend(r);
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
        lr_decay: a.lr_decay,
        wdl: a.wdl,
        scale: a.scale,
        val_fraction: a.val_fraction,
        seed: a.seed,
        checkpoint: a.checkpoint,
        ..Default::default()
    };
    let trainer = match a.resume {
        Some(p) => train::Trainer::load_checkpoint(&p).map_err(|e| e.to_string())?,
        None => train::Trainer::new(train::FloatNet::random(a.seed)),
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
    train::run(trainer, records, &cfg, &a.out, &mut |l| eprintln!("{l}"))
        .map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}

fn book(cmd: BookCommand) -> Result<(), String> {
    use chuhe::tools::book;
    match cmd {
        BookCommand::Build {
            out,
            min_games,
            max_ply,
            games,
        } => {
            let opts = chuhe::book::build::BuildOptions { min_games, max_ply };
            let summary = book::build(&out, &games, opts, &read_games, &mut |w| {
                eprintln!("warning: {w}")
            })?;
            println!("{summary}");
        }
        BookCommand::Probe { book, fen, moves } => {
            for l in book::probe(&book, fen.as_deref(), &moves)? {
                println!("{l}");
            }
        }
    }
    Ok(())
}

/// `--eval`: `nnue` (the built-in network), `hce` (None: hand-crafted), or
/// a network file.
fn eval_choice(eval: &str) -> Result<Option<std::sync::Arc<chuhe::nnue::net::Network>>, String> {
    match eval {
        "hce" => Ok(None),
        "nnue" => Ok(chuhe::nnue::default_network()),
        path => chuhe::nnue::net::Network::load(std::path::Path::new(path))
            .map(|n| Some(std::sync::Arc::new(n)))
            .map_err(|e| format!("--eval {path}: {e}")),
    }
}

/// Reads a record file (PGN or XQF) for the tools.
fn read_games(path: &str) -> Result<Vec<chuhe::record::Game>, String> {
    chuhe::record::read_file(std::path::Path::new(path)).map_err(|e| e.to_string())
}
