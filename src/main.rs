//! The `chuhe` command line. With no subcommand it speaks UCCI/UCI on
//! stdin/stdout; subcommands run the tools.

use chuhe::board::Position;
use clap::{Parser, Subcommand};
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
    match cli.command {
        Some(Command::Perft {
            fen,
            depth,
            divide,
            threads,
        }) => {
            let pos = match fen.as_deref().map(Position::from_fen) {
                None => Position::startpos(),
                Some(Ok(p)) => p,
                Some(Err(e)) => {
                    eprintln!("error: bad --fen: {e}");
                    return ExitCode::from(2);
                }
            };
            if depth > 12 {
                eprintln!("error: --depth {depth} is too deep for perft (at most 12)");
                return ExitCode::from(2);
            }
            let threads = threads.clamp(1, 1024);
            chuhe::tools::perft::run(&pos, depth, divide, threads, &mut |l| println!("{l}"));
            ExitCode::SUCCESS
        }
        Some(Command::Bench {
            depth,
            threads,
            hash,
            fen,
            movetime,
        }) => {
            if !(1..=64).contains(&depth) {
                eprintln!("error: --depth {depth} is out of range (1 to 64)");
                return ExitCode::from(2);
            }
            let threads = threads.clamp(1, 256);
            let hash = hash.clamp(1, 65536);
            let mut print = |l: &str| println!("{l}");
            match fen {
                None => {
                    chuhe::tools::bench::run(depth, threads, hash, &mut print);
                }
                Some(fen) => {
                    let pos = match Position::from_fen(&fen) {
                        Ok(p) => p,
                        Err(e) => {
                            eprintln!("error: bad --fen: {e}");
                            return ExitCode::from(2);
                        }
                    };
                    let limits = chuhe::search::Limits {
                        depth: movetime.is_none().then_some(depth),
                        movetime: movetime.map(std::time::Duration::from_millis),
                        ..Default::default()
                    };
                    chuhe::tools::bench::analyse(&pos, &limits, threads, hash, &mut print);
                }
            }
            ExitCode::SUCCESS
        }
        Some(Command::Judge { fen, moves, json }) => {
            use chuhe::tools::judge;
            let pos = match judge::replay(fen.as_deref(), &moves) {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let j = judge::judge_game(&pos);
            if json {
                println!("{}", judge::render_json(&pos, &j));
            } else {
                print!("{}", judge::render_text(&pos, &j));
            }
            ExitCode::SUCCESS
        }
        Some(Command::Match(args)) => match chuhe::tools::matches::cli::run(*args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        },
        Some(Command::Book(cmd)) => book(cmd),
        Some(Command::Analyze(args)) => match chuhe::tools::analyze::cli::run(*args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        },
        Some(Command::Convert { mut paths, to }) => {
            let out = paths.pop().unwrap_or_default();
            match chuhe::tools::convert::convert(&paths, &out, to) {
                Ok(summary) => {
                    println!(
                        "converted {} game(s) into {} file(s)",
                        summary.games,
                        summary.written.len()
                    );
                    if summary.failed.is_empty() {
                        ExitCode::SUCCESS
                    } else {
                        eprintln!("could not convert {}:", summary.failed.len());
                        for f in &summary.failed {
                            eprintln!("  {f}");
                        }
                        ExitCode::from(1)
                    }
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(2)
                }
            }
        }
        None => chuhe::protocol::run_stdio(),
    }
}

fn book(cmd: BookCommand) -> ExitCode {
    use chuhe::tools::book;
    let result = match cmd {
        BookCommand::Build {
            out,
            min_games,
            max_ply,
            games,
        } => {
            let opts = chuhe::book::build::BuildOptions { min_games, max_ply };
            book::build(&out, &games, opts, &read_games, &mut |w| {
                eprintln!("warning: {w}")
            })
            .map(|summary| println!("{summary}"))
        }
        BookCommand::Probe { book, fen, moves } => {
            book::probe(&book, fen.as_deref(), &moves).map(|lines| {
                for l in lines {
                    println!("{l}");
                }
            })
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Reads a record file (PGN or XQF) for the tools.
fn read_games(path: &str) -> Result<Vec<chuhe::record::Game>, String> {
    chuhe::record::read_file(std::path::Path::new(path)).map_err(|e| e.to_string())
}
