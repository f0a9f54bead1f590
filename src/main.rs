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
            let max = chuhe::tools::perft::MAX_DEPTH;
            if depth > max {
                eprintln!("error: --depth {depth} is too deep for perft (at most {max})");
                return ExitCode::from(2);
            }
            let threads = threads.clamp(1, chuhe::search::MAX_THREADS);
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
            use chuhe::search::{MAX_DEPTH, MAX_HASH_MB, MAX_THREADS, MIN_HASH_MB};
            if !(1..=MAX_DEPTH).contains(&depth) {
                eprintln!("error: --depth {depth} is out of range (1 to {MAX_DEPTH})");
                return ExitCode::from(2);
            }
            let threads = threads.clamp(1, MAX_THREADS);
            let hash = hash.clamp(MIN_HASH_MB, MAX_HASH_MB);
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
        None => chuhe::protocol::run_stdio(),
    }
}
