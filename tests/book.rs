//! Opening books: BOOK.DAT files written here by the format's rules
//! (8-byte records sorted by ElephantEye's lock1), Chuhe books built from
//! games, the choice's filters, damaged files, and the protocol options.

use chuhe::book::build::{to_bytes, AddGameError, BuildOptions, Builder};
use chuhe::record::{Game, MoveNode};
use chuhe_core::board::{Move, Position};
use chuhe_core::book::{self, eleeye, Book, BookMove, Variety};
use chuhe_core::rng::SplitMix64;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;

fn mv(s: &str) -> Move {
    s.parse().unwrap()
}

fn after(fen: Option<&str>, moves: &str) -> Position {
    let mut p = match fen {
        Some(f) => Position::from_fen(f).unwrap(),
        None => Position::startpos(),
    };
    for m in moves.split_whitespace() {
        assert!(p.is_legal(mv(m)), "{m}");
        p.make_move(mv(m));
    }
    p
}

/// A BOOK.DAT image: (position, move, weight) records keyed by lock1,
/// sorted as ElephantEye's binary search needs them. `mirror` files the
/// position under its mirror image's key with the move mirrored, as
/// ElephantEye's book keeps one of each mirrored pair.
fn bookdat(records: &[(&Position, &str, u16, bool)]) -> Vec<u8> {
    let mut rows: Vec<(u32, u16, u16)> = records
        .iter()
        .map(|&(pos, m, w, mirror)| {
            let m = if mirror {
                eleeye::mirror_move(mv(m))
            } else {
                mv(m)
            };
            (eleeye::book_key(pos, mirror), eleeye::encode_move(m), w)
        })
        .collect();
    rows.sort();
    let mut out = Vec::new();
    for (k, m, w) in rows {
        out.extend(k.to_le_bytes());
        out.extend(m.to_le_bytes());
        out.extend(w.to_le_bytes());
    }
    out
}

fn temp_file(name: &str, bytes: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("chuhe-book-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_string_lossy().into_owned()
}

fn moves_of(found: &[BookMove]) -> Vec<String> {
    found
        .iter()
        .map(|b| format!("{}:{}", b.mv, b.weight))
        .collect()
}

#[test]
fn bookdat_reader_finds_moves_and_mirror_images() {
    let start = Position::startpos();
    let after_h2e2 = after(None, "h2e2");
    let after_b2e2 = after(None, "b2e2");
    // After 炮八平五 the position is filed as its mirror image (after 炮二平五).
    let image = bookdat(&[
        (&start, "h2e2", 50, false),
        (&start, "b0c2", 10, false),
        (&start, "a0a4", 5, false),
        (&after_b2e2, "b9c7", 30, true),
        (&after_b2e2, "h9g7", 20, true),
    ]);
    let book = Book::from_bytes("test.dat", &image).unwrap();
    assert_eq!(book.format(), book::Format::ElephantEye);
    // Heaviest first; a0a4 (blocked by the pawn) is not legal and is dropped.
    assert_eq!(
        moves_of(&book.probe(&start).unwrap()),
        ["h2e2:50", "b0c2:10"]
    );
    // Filed mirrored, found mirrored back.
    assert_eq!(
        moves_of(&book.probe(&after_b2e2).unwrap()),
        ["b9c7:30", "h9g7:20"]
    );
    // ... and its image finds the records directly, as stored.
    assert_eq!(
        moves_of(&book.probe(&after_h2e2).unwrap()),
        ["h9g7:30", "b9c7:20"]
    );
    assert_eq!(book.probe(&after(None, "c3c4")), None);
}

#[test]
fn choice_honours_bans_weights_and_absence() {
    let start = Position::startpos();
    let image = bookdat(&[
        (&start, "h2e2", 90, false),
        (&start, "b0c2", 10, false),
        (&start, "g3g4", 0, false),
    ]);
    let books = vec![Book::from_bytes("t", &image).unwrap()];
    let all: Vec<Move> = start.legal_moves().to_vec();
    let mut rng = SplitMix64::new(1);
    let mut counts = std::collections::HashMap::new();
    for _ in 0..2000 {
        let (b, i) = book::choose(&books, &start, &all, Variety::Medium, &mut rng).unwrap();
        assert_eq!(i, 0);
        *counts.entry(b.mv.to_string()).or_insert(0) += 1;
    }
    // In proportion to the weights (90:10); weight 0 is never played.
    let h = counts["h2e2"];
    assert!((1700..1900).contains(&h), "{counts:?}");
    assert!(!counts.contains_key("g3g4"));
    // Sharper: none always takes the heaviest; small favours it more than medium.
    for _ in 0..50 {
        let (b, _) = book::choose(&books, &start, &all, Variety::None, &mut rng).unwrap();
        assert_eq!(b.mv, mv("h2e2"));
    }
    let small = (0..2000)
        .filter(|_| {
            book::choose(&books, &start, &all, Variety::Small, &mut rng)
                .unwrap()
                .0
                .mv
                == mv("h2e2")
        })
        .count();
    assert!(small > 1900, "{small}");
    // banmoves h2e2: only the other move is left.
    let allowed: Vec<Move> = all.iter().copied().filter(|&m| m != mv("h2e2")).collect();
    for _ in 0..50 {
        let (b, _) = book::choose(&books, &start, &allowed, Variety::Medium, &mut rng).unwrap();
        assert_eq!(b.mv, mv("b0c2"));
    }
    // Both book moves banned: no book move, the engine searches.
    let allowed: Vec<Move> = allowed.into_iter().filter(|&m| m != mv("b0c2")).collect();
    assert!(book::choose(&books, &start, &allowed, Variety::Medium, &mut rng).is_none());
    // A position the book lacks.
    let other = after(None, "c3c4");
    let all: Vec<Move> = other.legal_moves().to_vec();
    assert!(book::choose(&books, &other, &all, Variety::Medium, &mut rng).is_none());
}

#[test]
fn choice_avoids_a_repetition_the_rules_lose() {
    // Red's rook checks from i9 and i8 while Black's king steps d9/d8:
    // repeating i8i9 is a perpetual check, which loses for Red.
    let fen = "3k5/9/9/9/9/9/9/9/9/4K3R w - - 0 1";
    let pos = after(Some(fen), "i0i9 d9d8 i9i8 d8d9");
    assert!(book::loses_by_rule(&pos, mv("i8i9")));
    assert!(!book::loses_by_rule(&pos, mv("i8i7")));
    let image = bookdat(&[(&pos, "i8i9", 100, false), (&pos, "i8i7", 1, false)]);
    let books = vec![Book::from_bytes("t", &image).unwrap()];
    let all: Vec<Move> = pos.legal_moves().to_vec();
    let mut rng = SplitMix64::new(3);
    for _ in 0..50 {
        let (b, _) = book::choose(&books, &pos, &all, Variety::Medium, &mut rng).unwrap();
        assert_eq!(b.mv, mv("i8i7"));
    }
    // Only the losing move in the book: no book move.
    let image = bookdat(&[(&pos, "i8i9", 100, false)]);
    let books = vec![Book::from_bytes("t", &image).unwrap()];
    assert!(book::choose(&books, &pos, &all, Variety::Medium, &mut rng).is_none());
    // The same move without the history is no repetition.
    let fresh = Position::from_fen(&pos.fen()).unwrap();
    assert!(!book::loses_by_rule(&fresh, mv("i8i9")));
}

#[test]
fn truncated_and_foreign_files_are_errors() {
    let start = Position::startpos();
    let image = bookdat(&[(&start, "h2e2", 50, false), (&start, "b2e2", 50, false)]);
    let e = Book::from_bytes("cut.dat", &image[..image.len() - 3]).unwrap_err();
    assert_eq!(e.offset, Some(8));
    assert!(e.to_string().contains("cut.dat"), "{e}");
    assert!(Book::open("/nonexistent/book.dat").is_err());
    // A text file is not a sorted BOOK.DAT.
    let text = b"this is a PGN file, not a book at all!!!";
    assert!(text.len().is_multiple_of(8));
    assert!(Book::from_bytes("x.pgn", text).is_err());
    // A Chuhe book cut short anywhere is refused.
    let games = [
        game(&["h2e2", "h9g7"], "1-0"),
        game(&["h2e2", "h9g7"], "1-0"),
    ];
    let bytes = chuhe_book(&games, BuildOptions::default());
    for cut in [0, 9, 16, 17, bytes.len() - 1] {
        assert!(Book::from_bytes("c", &bytes[..cut]).is_err(), "cut {cut}");
    }
    assert!(Book::from_bytes("c", &bytes).is_ok());
}

fn game(moves: &[&str], result: &str) -> Game {
    Game {
        tags: vec![("Result".into(), result.into())],
        moves: moves.iter().map(|m| MoveNode::new(mv(m))).collect(),
        ..Default::default()
    }
}

fn chuhe_book(games: &[Game], opts: BuildOptions) -> Vec<u8> {
    let mut b = Builder::new();
    for g in games {
        b.add_game(g, opts.max_ply).unwrap();
    }
    to_bytes(&b.records(opts.min_games))
}

#[test]
fn chuhe_books_weigh_frequency_and_score() {
    let games = [
        game(&["h2e2", "h9g7", "h0g2"], "1-0"),
        game(&["h2e2", "h9g7", "h0g2"], "1-0"),
        game(&["h2e2", "b9c7"], "0-1"),
        game(&["h2e2", "b9c7"], "1/2-1/2"),
        // Mirror image of the first: merged with it.
        game(&["b2e2", "b9c7", "b0c2"], "1-0"),
        game(&["c3c4", "g6g5"], "1-0"),
    ];
    let opts = BuildOptions {
        min_games: 2,
        max_ply: 2,
    };
    let book = Book::from_bytes("b", &chuhe_book(&games, opts)).unwrap();
    assert_eq!(book.format(), book::Format::Chuhe);
    let start = Position::startpos();
    // The start is symmetric: h2e2 and its image b2e2 share their 5 games
    // (3 won, 1 drawn, 1 lost) and are both offered.
    let w = chuhe::book::build::weight(5, 7);
    let mut found = moves_of(&book.probe(&start).unwrap());
    found.sort();
    // c3c4 was played once: below --min-games 2.
    assert_eq!(found, [format!("b2e2:{w}"), format!("h2e2:{w}")]);
    // After h2e2: h9g7 three times (with the image b2e2 b9c7) and lost each
    // time; b9c7 twice, a black win and a draw: fewer games, heavier.
    let reply = book.probe(&after(None, "h2e2")).unwrap();
    assert_eq!(
        moves_of(&reply),
        [
            format!("b9c7:{}", chuhe::book::build::weight(2, 3)),
            format!("h9g7:{}", chuhe::book::build::weight(3, 0)),
        ]
    );
    assert!(reply[0].weight > reply[1].weight);
    // The mirrored side is answered with mirrored moves.
    let reply = book.probe(&after(None, "b2e2")).unwrap();
    assert_eq!(moves_of(&reply)[0], format!("h9g7:{}", reply[0].weight));
    // --max-ply 2: the third ply is not in the book.
    assert_eq!(book.probe(&after(None, "h2e2 h9g7")), None);
}

#[test]
fn builder_rejects_bad_games() {
    let mut b = Builder::new();
    let bad = game(&["h2e2", "h2e2"], "1-0");
    let e = b.add_game(&bad, 10).unwrap_err();
    assert!(matches!(e, AddGameError::Illegal { ply: 2, .. }), "{e}");
    assert!(e.to_string().contains("move 2"), "{e}");
    let mut setup = game(&["h2e2"], "*");
    setup.start_fen = Some("not a fen".into());
    assert!(matches!(
        b.add_game(&setup, 10),
        Err(AddGameError::StartPosition(_))
    ));
}

/// Runs the engine on a whole script (input then closed) and returns its output.
fn run_engine(script: &str) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start chuhe");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(script.as_bytes()).unwrap();
    drop(stdin);
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        let _ = tx.send(s);
    });
    let out = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the engine hung");
    let _ = child.wait();
    out.lines().map(String::from).collect()
}

fn bestmoves(out: &[String]) -> Vec<String> {
    out.iter()
        .filter(|l| l.starts_with("bestmove") || l.starts_with("nobestmove"))
        .cloned()
        .collect()
}

#[test]
fn ucci_usebook_and_bookfiles() {
    let start = Position::startpos();
    let path = temp_file(
        "ucci.dat",
        &bookdat(&[
            (&start, "h2e2", 10, false),
            (&after(None, "h2e2"), "h9g7", 10, false),
        ]),
    );
    let out = run_engine(&format!(
        "ucci\nsetoption bookfiles {path}\nsetoption usebook true\n\
         position startpos\ngo depth 2\n\
         position startpos\nbanmoves h2e2\ngo depth 2\n\
         position startpos moves c3c4\ngo depth 2\n\
         setoption usebook false\nposition startpos\ngo depth 1\n"
    ));
    let best = bestmoves(&out);
    assert_eq!(best.len(), 4, "{out:#?}");
    // From the book, with the expected reply as the ponder move.
    assert_eq!(best[0], "bestmove h2e2 ponder h9g7", "{out:#?}");
    assert!(out
        .iter()
        .any(|l| l.starts_with("info string book move h2e2")));
    // Banned: not played from the book (the search chose something else).
    assert_ne!(best[1].split_whitespace().nth(1), Some("h2e2"));
    assert_eq!(
        out.iter()
            .filter(|l| l.starts_with("info string book move"))
            .count(),
        1,
        "{out:#?}"
    );
    // Out of book, and book off: searched (info depth lines come).
    assert!(out.iter().any(|l| l.starts_with("info depth 2")));
}

#[test]
fn uci_ownbook_and_bookfile_with_a_chuhe_book() {
    let games = [
        game(&["c3c4", "g6g5"], "1-0"),
        game(&["c3c4", "g6g5"], "1/2-1/2"),
    ];
    let path = temp_file("uci.bin", &chuhe_book(&games, BuildOptions::default()));
    let out = run_engine(&format!(
        "uci\nsetoption name OwnBook value true\nsetoption name BookFile value {path}\n\
         setoption name Book Randomness value none\n\
         position startpos\ngo movetime 50\nposition startpos moves c3c4\ngo movetime 50\n"
    ));
    let best = bestmoves(&out);
    assert_eq!(best[0], "bestmove c3c4 ponder g6g5", "{out:#?}");
    assert!(best[1].starts_with("bestmove g6g5"), "{out:#?}");
    assert!(out
        .iter()
        .any(|l| l.starts_with("option name Book Randomness type combo default medium")));
}

#[test]
fn damaged_or_missing_books_are_reported_and_play_goes_on() {
    let start = Position::startpos();
    let image = bookdat(&[(&start, "h2e2", 10, false), (&start, "b2e2", 10, false)]);
    let cut = temp_file("cut.dat", &image[..11]);
    let out = run_engine(&format!(
        "ucci\nsetoption usebook true\nsetoption bookfiles {cut}\nposition startpos\ngo depth 1\n\
         setoption bookfiles /nonexistent/BOOK.DAT\ngo depth 1\n"
    ));
    let errors: Vec<&String> = out
        .iter()
        .filter(|l| l.starts_with("info string error: book"))
        .collect();
    assert_eq!(errors.len(), 2, "{out:#?}");
    assert!(errors[0].contains("truncated"), "{out:#?}");
    assert_eq!(bestmoves(&out).len(), 2, "{out:#?}");
    assert!(!out.iter().any(|l| l.starts_with("info string book move")));
}

#[test]
fn book_build_command_reads_pgn_collections() {
    let dir = std::env::temp_dir().join(format!("chuhe-book-build-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let a = dir.join("a.pgn");
    let b = dir.join("b.pgn");
    let games_a = [
        game(&["h2e2", "h9g7", "h0g2"], "1-0"),
        game(&["h2e2", "b9c7"], "0-1"),
    ];
    let games_b = [game(&["h2e2", "h9g7", "h0g2"], "1/2-1/2")];
    std::fs::write(&a, chuhe::record::pgn::write(&games_a)).unwrap();
    std::fs::write(&b, chuhe::record::pgn::write(&games_b)).unwrap();
    let out = dir.join("built.bin");
    let run = Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args([
            "book",
            "build",
            "--min-games",
            "2",
            "--max-ply",
            "2",
            "--out",
        ])
        .arg(&out)
        .arg(&a)
        .arg(&b)
        .arg(dir.join("missing.pgn"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stdout}{stderr}");
    assert!(stderr.contains("missing.pgn"), "{stderr}");
    assert!(stdout.contains("from 3 games"), "{stdout}");
    let book = Book::open(out.to_str().unwrap()).unwrap();
    // h2e2 (and its image): 3 games; after it h9g7 twice; b9c7 once is out.
    let found = book.probe(&Position::startpos()).unwrap();
    assert_eq!(found.len(), 2);
    assert_eq!(
        moves_of(&book.probe(&after(None, "h2e2")).unwrap()),
        [format!("h9g7:{}", chuhe::book::build::weight(2, 1))]
    );
    // --max-ply 2: nothing after the second ply.
    assert_eq!(book.probe(&after(None, "h2e2 h9g7")), None);
    // No readable game at all is an error.
    let none = Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args(["book", "build", "--out"])
        .arg(dir.join("none.bin"))
        .arg(dir.join("missing.pgn"))
        .output()
        .unwrap();
    assert!(!none.status.success());
}

#[test]
fn ponder_waits_for_ponderhit_and_analysis_searches() {
    use std::io::{BufRead, BufReader};
    let start = Position::startpos();
    let path = temp_file("ponder.dat", &bookdat(&[(&start, "h2e2", 10, false)]));
    let mut child = Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start chuhe");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let mut say = |t: &str| {
        stdin.write_all(format!("{t}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
    };
    // The line starting with `prefix`; none starting with `not` before it.
    let wait_for = |prefix: &str, not: &str| loop {
        let l = rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no '{prefix}'"));
        if l.starts_with(prefix) {
            return l;
        }
        assert!(!l.starts_with(not), "before '{prefix}': {l}");
    };
    say("ucci");
    say(&format!(
        "setoption usebook true\nsetoption bookfiles {path}"
    ));
    say("position startpos\ngo ponder time 10000");
    wait_for("info string book move h2e2", "bestmove");
    // Pondering: the answer waits for ponderhit.
    assert!(rx.recv_timeout(Duration::from_millis(300)).is_err());
    say("ponderhit");
    assert!(wait_for("bestmove", "info depth").starts_with("bestmove h2e2"));
    // `go infinite` (analysis) searches instead of answering from the book.
    say("position startpos\ngo infinite");
    wait_for("info depth", "info string book move");
    say("stop");
    wait_for("bestmove", "info string book move");
    say("quit");
    let _ = child.wait();
}

/// `quit` loses nothing owed to the commands before it (issue 50): the book
/// move of a `go` still running, its `bestmove`, and the error of a book
/// set while it ran; `isready` is answered at once, `bye` comes last.
#[test]
fn quit_keeps_what_the_commands_before_it_are_owed() {
    let start = Position::startpos();
    let path = temp_file("quit.dat", &bookdat(&[(&start, "h2e2", 10, false)]));
    let out = run_engine(&format!(
        "ucci\nsetoption bookfiles {path}\nsetoption usebook true\nposition startpos\n\
         go depth 5\nsetoption bookfiles /nonexistent/BOOK.DAT\nisready\nquit\n"
    ));
    let at = |prefix: &str| {
        out.iter()
            .position(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix:?} in {out:#?}"))
    };
    let book = at("info string book move h2e2");
    let best = at("bestmove h2e2");
    let error = at("info string error: book /nonexistent/BOOK.DAT");
    assert!(at("readyok") < error, "{out:#?}");
    assert!(book < best && best < error, "{out:#?}");
    assert_eq!(out.last().map(String::as_str), Some("bye"), "{out:#?}");
}
