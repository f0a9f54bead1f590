//! Every subcommand's arguments, in one place: `chuhe --help` and
//! `chuhe <tool> --help` are generated from these definitions. What each
//! tool does with them is in the module beside this one of the same name
//! (or in `super`, for the short ones).

use crate::analyze::Thresholds;
use crate::bench::DEFAULT_DEPTH as BENCH_DEPTH;
use crate::book::build::BuildOptions;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "chuhe",
    version,
    about = "Chuhe (楚河), a xiangqi engine",
    after_help = "With no subcommand, `chuhe` is the engine: it prints nothing until spoken \
        to, then speaks UCCI, UCI or CECP (xboard) on stdin/stdout, whichever the first \
        command (`ucci`, `uci` or `xboard`) names. That is how a GUI or `chuhe match` runs it."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand)]
pub enum Command {
    /// Count the leaves of the legal move tree (move generator check and speed).
    Perft {
        /// Position to start from (start position when absent).
        #[arg(long)]
        fen: Option<String>,
        /// Plies deep to count (at most 12).
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
    /// the search's signature, the speed its nps figure. With --suite: count
    /// the mates of a mate suite proved in --movetime (or --nodes) per
    /// position.
    Bench {
        /// Depth each bench position (or --fen) is searched to.
        #[arg(long, default_value_t = BENCH_DEPTH)]
        depth: u32,
        /// Search threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Transposition table size in MB.
        #[arg(long, default_value_t = 16)]
        hash: usize,
        /// Analyse only this position, printing every depth.
        #[arg(long)]
        fen: Option<String>,
        /// With --fen: think this many milliseconds instead of searching to
        /// --depth. With --suite: per position [default: 1000].
        #[arg(long)]
        movetime: Option<u64>,
        /// Search each position of a mate suite (`FEN ; mate N ; source`
        /// lines, e.g. tests/data/mates.txt) for --movetime ms (or --nodes)
        /// from a fresh table; report the mates proved and the time to each
        /// proof.
        #[arg(long, conflicts_with = "fen")]
        suite: Option<PathBuf>,
        /// With --suite: search each position for this many nodes instead
        /// of --movetime, the same work however busy the machine is.
        #[arg(long, requires = "suite", conflicts_with = "movetime")]
        nodes: Option<u64>,
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
    Match(Box<MatchArgs>),
    /// Generate training positions for the network by self-play at a fixed
    /// node budget per move (appends to --out; Ctrl-C keeps what was written).
    Datagen(DatagenArgs),
    /// Train the network on datagen files; writes the quantised network to
    /// --out after every epoch.
    Train(Box<TrainArgs>),
    /// Tune an engine's numeric options by SPSA over fast games (resumable).
    Tune(Box<TuneArgs>),
    /// Fit the win/draw/loss model (UCI_ShowWDL) to datagen files: prints
    /// the constants for core/src/search/wdl.rs.
    WdlFit {
        /// Training data files (chuhe datagen output).
        #[arg(required = true)]
        data: Vec<PathBuf>,
        /// Also draw the observed odds against the model's as an SVG.
        #[arg(long)]
        plot: Option<PathBuf>,
    },
    /// Datagen's chain files: count what they hold, or expand them to
    /// 32-byte records.
    #[command(subcommand)]
    Data(DataCommand),
    /// Merge datagen files into one new file with every position once (the
    /// mean of its scores and results) in a seeded random order.
    Datamix {
        /// Training data files (chuhe datagen output).
        #[arg(required = true)]
        data: Vec<PathBuf>,
        /// The file to write (must not exist).
        #[arg(long)]
        out: PathBuf,
        /// Seed of the shuffle.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Analyse a game: scores, best moves, marked mistakes, the rules
    /// verdict; writes the annotated game and an HTML report.
    Analyze(Box<AnalyzeArgs>),
    /// Opening books: build one from games, or look a position up.
    #[command(subcommand)]
    Book(BookCommand),
    /// A board in the browser, served by this program on 127.0.0.1: play
    /// the engine, analyse, load and save XQF and PGN. Prints the page's
    /// URL (with this run's token) as its first line and opens it.
    Gui {
        /// Port to listen on (0: any free port).
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// Only print the URL; do not open a browser.
        #[arg(long)]
        no_browser: bool,
        /// Search threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Transposition table size in MB.
        #[arg(long, default_value_t = 64)]
        hash: usize,
    },
    /// Convert game records between XQF and PGN (variations and comments kept).
    /// `chuhe convert IN OUT` for one file; several files or directories go
    /// into an output directory (or all into one .pgn file).
    Convert {
        /// Input files or directories, then the output (file or directory).
        #[arg(required = true, num_args = 2..)]
        paths: Vec<PathBuf>,
        /// Output format for a directory target (default: the other one).
        #[arg(long, value_parser = crate::convert::parse_format)]
        to: Option<crate::record::Format>,
    },
}

/// `chuhe data ...`.
#[derive(Subcommand, Debug)]
pub enum DataCommand {
    /// Read chain files whole (checking every game) and print a line for
    /// each and a total: `FILE: ... games G positions N bytes B`.
    Info {
        /// Chain files (datagen output).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Write the kept positions of chain files as 32-byte records, in game
    /// order, for tools that want them.
    Unpack {
        /// Chain files (datagen output).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The records file to write (must not exist).
        #[arg(long)]
        out: PathBuf,
    },
}

/// Options of `chuhe tune`.
#[derive(Args, Debug)]
pub struct TuneArgs {
    /// The engine to tune (a Chuhe built with `make tune` lists its search
    /// parameters as options): `cmd=PROGRAM,option.NAME=VALUE,...` as for
    /// `chuhe match --engine`.
    #[arg(long)]
    pub engine: String,
    /// Parameters to tune, comma-separated: `NAME[:c_end[:r_end]]`
    /// (defaults: a twentieth of the option's range, and 0.002).
    #[arg(long, value_delimiter = ',', required = true)]
    pub params: Vec<String>,
    /// SPSA iterations (each plays --pairs game pairs).
    #[arg(long, default_value_t = 2000)]
    pub iterations: u64,
    /// Game pairs per iteration.
    #[arg(long, default_value_t = 1)]
    pub pairs: usize,
    /// Time control per game (as for `chuhe match`).
    #[arg(long, default_value = "2+0.02")]
    pub tc: String,
    /// Opening suite to draw each pair's opening from at random (as for `chuhe
    /// match`); the start position when absent.
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Games played at once.
    #[arg(long, default_value_t = 2)]
    pub concurrency: usize,
    /// State file: written after every iteration, resumed from if present.
    #[arg(long)]
    pub state: PathBuf,
    /// Seed of the perturbations and of each pair's opening.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(Args)]
pub struct DatagenArgs {
    /// Number of games to play.
    #[arg(long, default_value_t = 1000)]
    pub games: u64,
    /// Number of the first game (games are numbered from 0 and seeded by
    /// their number): go on with a stopped run from the games it played.
    #[arg(long, default_value_t = 0)]
    pub first_game: u64,
    /// Nodes searched per move: a hard limit, the search stopped where it
    /// stands.
    #[arg(long, default_value_t = 6000)]
    pub nodes: u64,
    /// Start no new iteration past this many nodes (each move then ends on
    /// a finished iteration; --nodes stays the hard cap).
    #[arg(long)]
    pub soft_nodes: Option<u64>,
    /// Games played at once (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Where the games go: with --format chain (the default) a directory of
    /// shards (`s{seed}-{first}-{last}.chain`) and their MANIFEST, made if
    /// missing; with --format records a file, created or appended to.
    #[arg(long)]
    pub out: PathBuf,
    /// `chain`: whole games, about 2.5 bytes a kept position, in shards of
    /// --shard-games games; `records`: 32-byte position records in one
    /// file (what older tools read; `chuhe data unpack` makes them from
    /// chain files too).
    #[arg(long, default_value = "chain", value_parser = ["chain", "records"])]
    pub format: String,
    /// Games per chain shard: shards hold the games from one multiple of
    /// this to the next, so runs of one seed fill the same shards.
    #[arg(long, default_value_t = 5000)]
    pub shard_games: u64,
    /// Opening suite to start from (one chosen at random per game);
    /// the start position when absent.
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Random legal plies played after the opening.
    #[arg(long, default_value_t = 6)]
    pub random_plies: u32,
    /// Seed: the same seed and settings replay the same games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Transposition table per game thread, MB.
    #[arg(long, default_value_t = 16)]
    pub hash: usize,
    /// Evaluation the games are played with: `nnue` (the built-in
    /// network), `hce` (hand-crafted), or a network file.
    #[arg(long, default_value = "nnue")]
    pub eval: String,
}

#[derive(Args)]
pub struct TrainArgs {
    /// Training data files (chuhe datagen output).
    #[arg(required = true)]
    pub data: Vec<PathBuf>,
    /// The quantised network written after each epoch.
    #[arg(long)]
    pub out: PathBuf,
    /// Passes over the training data.
    #[arg(long, default_value_t = 20)]
    pub epochs: usize,
    /// Hidden units per perspective: 256, 512, 768 or 1024.
    #[arg(long, default_value_t = 256)]
    pub hidden: usize,
    /// Output buckets, chosen by the number of pieces on the board (1-16).
    #[arg(long, default_value_t = 1)]
    pub buckets: usize,
    /// Input buckets by the side's own king's palace square: 1 (none) or 6
    /// (the f-file mirrored onto the d-file; trained with a shared block).
    #[arg(long, default_value_t = 1)]
    pub king_buckets: usize,
    /// Positions per optimiser step.
    #[arg(long, default_value_t = 16384)]
    pub batch: usize,
    /// The starting learning rate.
    #[arg(long, default_value_t = 0.001)]
    pub lr: f32,
    /// How the learning rate moves: `exp` (times --lr-decay after each
    /// epoch), `step` (times --lr-decay every --lr-step epochs) or `cosine`
    /// (half a cosine from --lr to --lr-final over the run, every batch).
    #[arg(long, default_value = "exp", value_parser = ["exp", "step", "cosine"])]
    pub lr_schedule: String,
    /// Learning-rate factor applied after each epoch (exp) or step (step).
    #[arg(long, default_value_t = 0.92)]
    pub lr_decay: f32,
    /// Epochs between the drops of the step schedule.
    #[arg(long, default_value_t = 5)]
    pub lr_step: usize,
    /// The cosine schedule's last learning rate (default: --lr / 100).
    #[arg(long)]
    pub lr_final: Option<f32>,
    /// Batches of linear warm-up at the start (any schedule).
    #[arg(long, default_value_t = 0)]
    pub warmup: u64,
    /// Weight of the game result in the target (0..1; the rest is the search score).
    #[arg(long, default_value_t = 0.3)]
    pub wdl: f32,
    /// Centipawns per unit of network output (the score's sigmoid scale).
    #[arg(long, default_value_t = 300.0)]
    pub scale: f32,
    /// Fraction of the positions held back for validation.
    #[arg(long, default_value_t = 0.05)]
    pub val_fraction: f64,
    /// Validation positions from these files instead of a share of the
    /// training data (repeat for several): positions of other games, so
    /// that the loss shows what the network learnt rather than what it
    /// remembers of the games it trained on. Every DATA position trains.
    #[arg(long, value_name = "FILE")]
    pub validation: Vec<PathBuf>,
    /// Seed of the initial weights, the validation split and the order of
    /// the positions.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Threads (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Directory for a checkpoint after each epoch.
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    /// Resume from a checkpoint file.
    #[arg(long)]
    pub resume: Option<PathBuf>,
    /// Use at most this many positions (the first ones read).
    #[arg(long)]
    pub max_positions: Option<usize>,
}

#[derive(Subcommand)]
pub enum BookCommand {
    /// Build a book in Chuhe's format from PGN and XQF game files.
    Build {
        /// The book file to write.
        #[arg(long)]
        out: String,
        /// Leave out moves played in fewer games than this.
        #[arg(long, default_value_t = BuildOptions::default().min_games)]
        min_games: u32,
        /// Count only this many plies of each game.
        #[arg(long, default_value_t = BuildOptions::default().max_ply)]
        max_ply: usize,
        /// Game files (PGN or XQF).
        #[arg(required = true)]
        games: Vec<String>,
    },
    /// List a book's moves for a position (Chuhe's format or BOOK.DAT).
    Probe {
        /// The book file: Chuhe's format or ElephantEye's BOOK.DAT.
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

/// Options of `chuhe match`. Each overrides the same setting in `--config`.
#[derive(Args, Debug, Default)]
pub struct MatchArgs {
    /// An engine: `cmd=PROGRAM [ARGS],name=NAME,proto=ucci|uci|auto,coords=0|1|auto,dir=DIR,ponder=true|false,tc=TC,option.NAME=VALUE`
    /// (repeat for each engine; two play a match, more a round robin; `ponder=true` lets it think on the opponent's time;
    /// `tc` gives it its own time control in place of --tc: time odds).
    #[arg(long = "engine", value_name = "SPEC")]
    pub engines: Vec<String>,
    /// TOML file with engines and settings.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Time control: `1+0.01`, `40/90m,10/15m`, `5m`, `movetime=0.5`, `depth=2`, `nodes=N`.
    #[arg(long)]
    pub tc: Option<String>,
    /// Milliseconds an engine may overrun its clock before its flag falls [default: 100].
    #[arg(long)]
    pub margin_ms: Option<u64>,
    /// Milliseconds to wait for a move under depth or node limits [default: 60000].
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// Opening suite (`name | FEN | moves`, FEN or move-list lines).
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Play the openings in a shuffled order.
    #[arg(long)]
    pub shuffle: bool,
    /// Seed for --shuffle and --random-plies [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Give each game pair its own opening: the suite's next one plus this
    /// many random legal plies (both games of a pair play it). Needed at a
    /// fixed node or depth limit, where the same opening replays the same game.
    #[arg(long)]
    pub random_plies: Option<u32>,
    /// Games per pairing [default: two per opening, colours swapped].
    #[arg(long)]
    pub games: Option<usize>,
    /// Games played at once [default: 1].
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// Append finished games to this PGN file.
    #[arg(long)]
    pub pgn: Option<PathBuf>,
    /// Go on with a stopped match: the games of this schedule already in the
    /// --pgn file count, and only the other rounds are played (same engines,
    /// openings, --shuffle/--seed and --games as the first run).
    #[arg(long)]
    pub resume: bool,
    /// With three or more engines: the first plays each of the others.
    #[arg(long)]
    pub gauntlet: bool,
    /// Points for win,draw,loss [default: 2,1,0].
    #[arg(long)]
    pub scale: Option<String>,
    /// Sequential test: elo0,elo1,alpha,beta (two engines); stops when decided.
    #[arg(long)]
    pub sprt: Option<String>,
    /// The PGN `Event` tag of the games [default: Chuhe match].
    #[arg(long)]
    pub event: Option<String>,
    /// The PGN `Site` tag of the games [default: local].
    #[arg(long)]
    pub site: Option<String>,
    /// Resign adjudication: score (centipawns) both engines agree on...
    #[arg(long)]
    pub resign_score: Option<i32>,
    /// ...for this many moves each.
    #[arg(long)]
    pub resign_moves: Option<usize>,
    /// Draw adjudication: both scores within this many centipawns of zero...
    #[arg(long)]
    pub draw_score: Option<i32>,
    /// ...for this many moves each...
    #[arg(long)]
    pub draw_moves: Option<usize>,
    /// ...from this move number on [default: 0].
    #[arg(long)]
    pub draw_from_move: Option<usize>,
    /// Draw a game after this many moves by each side (a guard) [default: 500].
    #[arg(long)]
    pub max_moves: Option<usize>,
    /// Send UCCI engines the start FEN and every move, not the FEN after the last capture.
    #[arg(long)]
    pub ucci_full_history: bool,
}

#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    /// The game: a PGN or XQF file (the first game of a PGN collection,
    /// unless --game-number says which).
    pub game: String,
    /// Which game of the file, counting from 1.
    #[arg(long, default_value_t = 1)]
    pub game_number: usize,
    /// Think this many milliseconds per position.
    #[arg(long, conflicts_with = "depth")]
    pub movetime: Option<u64>,
    /// Search each position to this depth (default 10 when no --movetime).
    #[arg(long)]
    pub depth: Option<u32>,
    /// Search threads.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Transposition table size in MB.
    #[arg(long, default_value_t = 64)]
    pub hash: usize,
    /// Write the annotated game here (.pgn or .xqf).
    #[arg(long)]
    pub out: Option<String>,
    /// Write the HTML report here.
    #[arg(long)]
    pub html: Option<String>,
    /// Centipawns lost that make a move an inaccuracy (?!).
    #[arg(long, default_value_t = Thresholds::default().inaccuracy)]
    pub inaccuracy: i32,
    /// Centipawns lost that make a move a mistake (?).
    #[arg(long, default_value_t = Thresholds::default().mistake)]
    pub mistake: i32,
    /// Centipawns lost that make a move a blunder (??).
    #[arg(long, default_value_t = Thresholds::default().blunder)]
    pub blunder: i32,
}
