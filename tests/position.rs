//! FEN parsing and printing, FEN errors, make/unmake, and legal generation
//! checked against a slow definition of legality.

use chuhe_core::board::attacks::between;
use chuhe_core::board::{Color, FenError, Move, PieceKind, Position, Square};

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

/// A small deterministic generator so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn suite_fens() -> Vec<String> {
    let mut fens = Vec::new();
    for file in ["perft-classic.epd", "perft-random.epd"] {
        let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(path).unwrap();
        for line in text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        {
            fens.push(line.split(';').next().unwrap().trim().to_string());
        }
    }
    fens
}

#[test]
fn fen_round_trips() {
    for fen in suite_fens() {
        let pos: Position = fen.parse().unwrap();
        assert_eq!(pos.fen(), fen, "round trip");
        assert_eq!(
            pos.to_string().parse::<Position>().unwrap().key(),
            pos.key()
        );
    }
}

#[test]
fn fen_variants_are_accepted() {
    let base = Position::startpos();
    // `r` for Red, E/H spellings, missing trailing fields.
    let alt: Position = "rhbakabhr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR r"
        .parse()
        .unwrap();
    assert_eq!(alt.key(), base.key());
    assert_eq!(alt.fen(), base.fen());
    let bare: Position = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR"
        .parse()
        .unwrap();
    assert_eq!(bare.side_to_move(), Color::Red);
    let b: Position = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 7 12"
        .parse()
        .unwrap();
    assert_eq!(b.side_to_move(), Color::Black);
    assert_eq!(b.halfmove_clock(), 7);
    assert_eq!(b.fullmove_number(), 12);
    assert_ne!(b.key(), base.key());
    // XBoard's spelling: H/E letters and no castling or en-passant fields.
    let xb: Position = "rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR b 7 12"
        .parse()
        .unwrap();
    assert_eq!(xb.fen(), b.fen());
    let one_dash: Position = "rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR b - 7 12"
        .parse()
        .unwrap();
    assert_eq!(one_dash.fen(), b.fen());
}

#[test]
fn fen_errors_name_the_problem() {
    type Check = fn(&FenError) -> bool;
    let cases: &[(&str, Check)] = &[
        ("", |e| *e == FenError::Empty),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR w",
            |e| *e == FenError::RankCount(9),
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w",
            |e| matches!(e, FenError::FileCount { rank: 0, files: 8 }),
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C2/9/RNBAKABNR w",
            |e| matches!(e, FenError::FileCount { rank: 2, files: 10 }),
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5X1/9/RNBAKABNR w",
            |e| *e == FenError::UnknownPiece('X'),
        ),
        (
            "rnba1abnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
            |e| *e == FenError::MissingKing(Color::Black),
        ),
        (
            "rnbakabnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
            |e| *e == FenError::TooManyKings(Color::Black),
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/R8/RNBAKABNR w",
            |e| matches!(e, FenError::TooMany { count: 3, .. }),
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBA1ABNR w",
            |e| matches!(e, FenError::MissingKing(Color::Red)),
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/K8/RNBA1ABNR w",
            |e| matches!(e, FenError::OutOfPlace { piece, .. } if piece.kind() == PieceKind::King),
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/A8/RNB1KABNR w",
            |e| matches!(e, FenError::OutOfPlace { piece, .. } if piece.kind() == PieceKind::Advisor),
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/1B7/RN1AKABNR w",
            |e| matches!(e, FenError::OutOfPlace { piece, .. } if piece.kind() == PieceKind::Bishop),
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/2P1P1P1P/PC5C1/9/RNBAKABNR w",
            |e| matches!(e, FenError::OutOfPlace { piece, .. } if piece.kind() == PieceKind::Pawn),
        ),
        ("4k4/9/9/9/9/9/9/9/9/4K4 w", |e| *e == FenError::KingsFacing),
        // Red to move while Black's king stands attacked by Red's rook.
        ("3k5/9/9/9/9/9/9/9/9/3RK4 w", |e| {
            *e == FenError::OpponentInCheck
        }),
        ("3k5/9/9/9/9/9/9/9/9/4K4 x", |e| {
            matches!(e, FenError::BadSide(_))
        }),
        ("3k5/9/9/9/9/9/9/9/9/4K4 w - - abc 1", |e| {
            matches!(e, FenError::BadCounter(_))
        }),
    ];
    for (fen, check) in cases {
        match Position::from_fen(fen) {
            Ok(_) => panic!("accepted bad FEN {fen:?}"),
            Err(e) => {
                assert!(check(&e), "{fen:?} gave {e:?}");
                assert!(!e.to_string().is_empty());
            }
        }
    }
}

/// Plays random games; after each move checks the key against a freshly parsed
/// FEN, then unmakes everything and checks the start is restored exactly.
#[test]
fn make_unmake_restores_key_and_board() {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    for fen in suite_fens() {
        let start: Position = fen.parse().unwrap();
        let mut pos = start.clone();
        for _ in 0..60 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let mv = moves[(rng.next() % moves.len() as u64) as usize];
            pos.make_move(mv);
            let fresh: Position = pos.fen().parse().unwrap();
            assert_eq!(
                pos.key(),
                fresh.key(),
                "incremental key after {mv} in {fen}"
            );
        }
        while pos.ply() > 0 {
            pos.unmake_move();
        }
        assert_eq!(pos.fen(), start.fen());
        assert_eq!(pos.key(), start.key());
        for s in Square::all() {
            assert_eq!(pos.piece_at(s), start.piece_at(s));
        }
    }
}

/// Slow legality: make the move and look at the king directly.
fn slow_legal(pos: &Position, mv: Move) -> bool {
    let mut p = pos.clone();
    let us = p.side_to_move();
    p.make_move(mv);
    let ks = p.king(us);
    let ek = p.king(!us);
    let attacked = p.attackers_to(ks, !us, p.occupied()).any();
    // Kings on one file with nothing between them "see" each other.
    let facing = ks.file() == ek.file() && (between(ks, ek) & p.occupied()).is_empty();
    !attacked && !facing
}

/// The generator's legal moves and the pseudo-legal ones `slow_legal`
/// keeps, both sorted.
fn legal_and_filtered(pos: &Position) -> (Vec<Move>, Vec<Move>) {
    let mut legal: Vec<Move> = pos.legal_moves().to_vec();
    let mut want: Vec<Move> = pos
        .pseudo_legal_moves()
        .into_iter()
        .filter(|&m| slow_legal(pos, m))
        .collect();
    legal.sort_by_key(|m| m.raw());
    want.sort_by_key(|m| m.raw());
    (legal, want)
}

#[test]
fn legal_moves_equal_filtered_pseudo_legal_moves() {
    let mut rng = Rng(0x2545f4914f6cdd1d);
    let mut positions = 0;
    for fen in suite_fens() {
        let mut pos: Position = fen.parse().unwrap();
        for _ in 0..80 {
            let (legal, want) = legal_and_filtered(&pos);
            assert_eq!(legal, want, "in {}", pos.fen());
            assert_eq!(pos.has_legal_move(), !want.is_empty(), "in {}", pos.fen());
            assert_eq!(
                pos.count_legal(),
                want.len(),
                "count_legal in {}",
                pos.fen()
            );
            for &m in &want {
                assert!(pos.is_legal(m), "is_legal({m}) in {}", pos.fen());
                let mut after = pos.clone();
                after.make_move(m);
                assert_eq!(
                    pos.gives_check(m),
                    after.in_check(),
                    "gives_check({m}) in {}",
                    pos.fen()
                );
            }
            positions += 1;
            if legal.is_empty() {
                break;
            }
            pos.make_move(legal[(rng.next() % legal.len() as u64) as usize]);
        }
    }
    assert!(positions > 1000);
}

#[test]
fn is_legal_rejects_garbage() {
    let pos = Position::startpos();
    for text in [
        "h2h8", "a0a4", "e0e2", "h7e7", "b0b2", "c0c2", "a3b3", "d0e0",
    ] {
        assert!(!pos.is_legal(text.parse().unwrap()), "{text} accepted");
    }
    // The h2 cannon captures over the h7 cannon.
    for text in [
        "e0e1", "a0a1", "c0e2", "h2e2", "h2h9", "b0c2", "a3a4", "d0e1",
    ] {
        assert!(pos.is_legal(text.parse().unwrap()), "{text} refused");
    }
    assert!(!pos.is_legal(Move::NONE));
}

#[test]
fn flying_general_pins_the_blocker() {
    // The pawn on e5 is the only piece between the kings: it may only go forward.
    let pos: Position = "4k4/9/9/9/4P4/9/9/9/9/4K4 w".parse().unwrap();
    let pawn: Vec<Move> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| m.from() == sq("e5"))
        .collect();
    assert_eq!(pawn, vec!["e5e6".parse::<Move>().unwrap()]);
    // A cannon screen is pinned too: moving the screen off the line exposes the king.
    let pos: Position = "3k5/9/9/9/4c4/9/9/4N4/4A4/4K4 w".parse().unwrap();
    assert!(pos
        .legal_moves()
        .iter()
        .all(|m| m.from() != sq("e1") && m.from() != sq("e2")));
    assert!(!pos.legal_moves().is_empty());
    // And stepping into an empty cannon line makes a screen: not allowed.
    let pos: Position = "3k5/9/9/9/4c4/9/9/9/9/R3K4 w".parse().unwrap();
    assert!(pos.is_legal("a0a4".parse().unwrap()));
    let pos: Position = "3k5/9/9/9/4c4/9/9/9/R8/4K4 w".parse().unwrap();
    assert!(
        !pos.is_legal("a1e1".parse().unwrap()),
        "rook would become the cannon's screen"
    );
}

/// `generate` on a list that already holds moves replaces them: calling it
/// again and again on one list (which once appended, passing the list's
/// capacity after three calls) gives the same moves each time, of every kind.
#[test]
fn generate_repeatedly_into_one_list() {
    use chuhe_core::board::{GenType, MoveList};
    for fen in suite_fens() {
        let pos = Position::from_fen(&fen).unwrap();
        let mut list = MoveList::new();
        for gen in [GenType::All, GenType::Captures, GenType::Quiets] {
            let mut fresh = MoveList::new();
            pos.generate(gen, &mut fresh);
            for _ in 0..5 {
                pos.generate(gen, &mut list);
                assert_eq!(list, fresh, "{fen} {gen:?}");
            }
        }
        pos.generate(GenType::All, &mut list);
        assert_eq!(list, pos.legal_moves(), "{fen}");
    }
}

/// The move list's capacity covers any position the API can reach: FEN
/// validation caps each kind's count and moves never add pieces, so the most
/// moves are the per-piece maxima over every square times those counts.
#[test]
fn move_list_capacity_covers_every_position() {
    use chuhe_core::board::attacks::*;
    use chuhe_core::board::{Bitboard, MAX_MOVES};
    let most = |f: &dyn Fn(Square) -> u32| (0..90).map(|i| f(Square::from_index(i))).max().unwrap();
    let empty = Bitboard::EMPTY;
    // A cannon's moves never outnumber the empty-board lines either: each
    // capture lies beyond a screen it cannot move to.
    let line = most(&|s| rook_attacks(s, empty).count());
    let per_kind = [
        (PieceKind::Rook, line),
        (PieceKind::Cannon, line),
        (
            PieceKind::Knight,
            most(&|s| knight_attacks(s, empty).count()),
        ),
        (
            PieceKind::Pawn,
            most(&|s| {
                pawn_attacks(Color::Red, s)
                    .count()
                    .max(pawn_attacks(Color::Black, s).count())
            }),
        ),
        (
            PieceKind::Bishop,
            most(&|s| bishop_attacks(s, empty).count()),
        ),
        (PieceKind::Advisor, most(&|s| advisor_attacks(s).count())),
        (PieceKind::King, most(&|s| king_attacks(s).count())),
    ];
    let total: u32 = per_kind.iter().map(|(k, n)| k.max_count() * n).sum();
    assert!(total as usize <= MAX_MOVES, "{total} moves possible");
}

/// From a FEN's largest move number (65535) a Black move saturates the
/// counter; unmaking it must give back that number, not one lower.
#[test]
fn unmake_restores_the_largest_move_number() {
    let fen = "4kab2/9/1c5c1/p5p2/2p6/9/4P1P1P/9/9/RN2K3R b - - 3 65535";
    let mut pos = chuhe_core::board::Position::from_fen(fen).unwrap();
    for mv in pos.legal_moves() {
        pos.make_move(mv);
        pos.unmake_move();
        assert_eq!(pos.fen(), fen, "after {mv}");
    }
}

/// `gives_check` works from what it knows of the enemy king before the move
/// (discoverers, cannon screen points); the cases where that is easy to get
/// wrong, each checked against playing the move.
#[test]
fn gives_check_sees_screens_and_discoveries() {
    let cases: [(&str, &[&str], &[&str]); 3] = [
        // A cannon with a clear file to the king: a rook stepping in becomes
        // its screen; the cannon walking up its own file checks nothing.
        (
            "4k4/9/9/9/R8/9/9/4C4/9/3K5 w - - 0 1",
            &["a5e5"],
            &["e2e5", "e2e8", "a5a6"],
        ),
        // A cannon behind two screens: either leaving the file checks, a
        // screen moving along it does not.
        (
            "4k4/9/9/4P4/9/4N4/9/4C4/9/3K5 w - - 0 1",
            &["e6d6", "e4d6", "e4f2"],
            &["e6e7", "e2e3"],
        ),
        // A rook behind one piece of ours, a knight behind its own leg.
        (
            "3k5/2P6/2N6/3P5/9/3R5/9/9/9/4K4 w - - 0 1",
            &["d6c6", "d6e6", "c8b8", "c8c9"],
            &["d6d7", "d4d5", "e0f0"],
        ),
    ];
    for (fen, checks, quiet) in cases {
        let pos: Position = fen.parse().unwrap();
        for &m in pos.legal_moves().iter() {
            let mut after = pos.clone();
            after.make_move(m);
            assert_eq!(pos.gives_check(m), after.in_check(), "{m} in {fen}");
        }
        for (text, want) in checks
            .iter()
            .map(|m| (m, true))
            .chain(quiet.iter().map(|m| (m, false)))
        {
            let m: Move = text.parse().unwrap();
            assert!(pos.is_legal(m), "{text} in {fen}");
            assert_eq!(pos.gives_check(m), want, "{text} in {fen}");
        }
    }
}

/// In check, only moves that can answer every checker are tested; these are
/// the answers that are easy to leave out.
#[test]
fn evasions_include_every_kind_of_answer() {
    let cases: [(&str, &[&str], &[&str]); 3] = [
        // A cannon checks over our own knight: the knight steps off the file.
        (
            "3k5/9/4c4/9/9/9/4N4/9/9/4K4 w - - 0 1",
            &["e3c4", "e3g2", "e0f0"],
            &["e3e4"],
        ),
        // A knight checks: the rook blocks its leg.
        (
            "3k5/9/9/9/9/9/9/5n3/R8/4K4 w - - 0 1",
            &["a1f1", "e0f0"],
            &["a1a2"],
        ),
        // Rook and cannon check along one file: a block answers both, taking
        // the rook leaves our piece as the cannon's screen.
        (
            "3k5/4c4/9/9/R3r4/9/R8/9/9/4K4 w - - 0 1",
            &["a3e3", "e0f0"],
            &["a5e5"],
        ),
    ];
    for (fen, legal, illegal) in cases {
        let pos: Position = fen.parse().unwrap();
        assert!(pos.in_check(), "{fen}");
        let (got, want) = legal_and_filtered(&pos);
        assert_eq!(got, want, "{fen}");
        for text in legal.iter() {
            assert!(got.contains(&text.parse().unwrap()), "{text} in {fen}");
        }
        for text in illegal.iter() {
            assert!(!got.contains(&text.parse().unwrap()), "{text} in {fen}");
        }
    }
}
