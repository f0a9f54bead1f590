//! Natural limit, lack of material, the search's view of a cycle, and the
//! `judge` command's input errors and JSON.

use chuhe::judge::replay;
use chuhe_core::board::{Color, GenType, MoveList, Position, Square};
use chuhe_core::rules::{self, Outcome, Reason, RepetitionScore};
use std::collections::HashSet;

#[path = "support/cli.rs"]
mod cli;
use cli::chuhe;

/// Whether Red's `i`-th move of the test line must check (else it must not):
/// two checks, then a quiet move, so that the rook can reposition.
fn red_checks(i: usize) -> bool {
    i % 3 != 2
}

/// Extends `pos` by `plies` capture-free plies, Red checking or not as
/// `red_checks` says and Black (a lone king) answering, no position repeating.
fn test_line(pos: &mut Position, plies: usize, seen: &mut HashSet<u64>) -> bool {
    if plies == 0 {
        return true;
    }
    let mut moves = MoveList::new();
    pos.generate(GenType::Quiets, &mut moves);
    let red = pos.side_to_move() == Color::Red;
    let must_check = red_checks(pos.history().len() / 2);
    for mv in moves {
        if red && pos.gives_check(mv) != must_check {
            continue;
        }
        pos.make_move(mv);
        if pos.has_legal_move() && seen.insert(pos.key()) {
            if test_line(pos, plies - 1, seen) {
                return true;
            }
            seen.remove(&pos.key());
        }
        pos.unmake_move();
    }
    false
}

/// 40 plies: Red's 20 moves hold 14 checks and 6 quiet moves, Black's 20 are quiet.
fn test_game(halfmove: u32) -> Position {
    let mut pos = Position::from_fen(&format!("9/4k4/9/9/9/9/9/9/9/3K4R w - - {halfmove} 1"))
        .expect("valid FEN");
    let mut seen = HashSet::from([pos.key()]);
    assert!(test_line(&mut pos, 40, &mut seen), "a 40-ply line exists");
    pos
}

/// After 80 quiet plies, those 40 make 120. Red's 14 checks would count
/// only 10 in a claim of Red's, but Black, who gave none, claims with all
/// 120 counted (23.3 caps the claimant's checks only): a draw. One ply
/// fewer is not.
#[test]
fn natural_limit_caps_only_the_claimants_checks() {
    let pos = test_game(80);
    assert_eq!(pos.halfmove_clock(), 120);
    assert_eq!(rules::effective_quiet_plies(&pos), 120);
    assert!(rules::natural_limit_reached(&pos));
    let v = rules::judge(&pos).expect("drawn");
    assert_eq!((v.outcome, v.reason), (Outcome::Draw, Reason::NaturalLimit));

    let pos = test_game(79);
    assert_eq!(rules::effective_quiet_plies(&pos), 119);
    assert!(!rules::natural_limit_reached(&pos));
    assert_eq!(rules::judge(&pos), None);
}

/// Mate on the ply that reaches the limit still wins.
#[test]
fn mate_on_the_last_ply_beats_the_natural_limit() {
    // The rook h0 goes to h9; the rook i8 holds rank 8 and the red king the e-file.
    let pos = replay(Some("3k5/8R/9/9/9/9/9/9/9/4K2R1 w - - 119 80"), "h0h9").expect("legal");
    assert_eq!(pos.halfmove_clock(), 120);
    let v = rules::judge(&pos).expect("over");
    assert_eq!((v.outcome, v.reason), (Outcome::RedWins, Reason::Checkmate));
}

#[test]
fn no_winning_material_only_without_attackers() {
    for fen in [
        "3k5/9/9/9/9/9/9/9/4A4/4K4 w - - 0 1",
        "2bk1ab2/4a4/9/9/9/9/9/9/9/2BAKAB2 w - - 0 1",
        "4k4/9/9/9/9/9/9/9/9/3K5 b - - 0 1",
    ] {
        let pos = Position::from_fen(fen).expect("valid");
        assert!(rules::no_winning_material(&pos), "{fen}");
        let v = rules::judge(&pos).expect("drawn");
        assert_eq!(v.reason, Reason::NoWinningMaterial, "{fen}");
    }
    // Any attacker, even a lone uncrossed pawn, keeps the game going.
    for fen in [
        "3k5/9/9/9/9/9/4P4/9/4A4/4K4 w - - 0 1",
        "4k4/9/9/9/9/9/9/9/9/3K1N3 w - - 0 1",
        "3k1c3/9/9/9/9/9/9/9/9/4K4 w - - 0 1",
    ] {
        let pos = Position::from_fen(fen).expect("valid");
        assert!(!rules::no_winning_material(&pos), "{fen}");
        assert_eq!(rules::judge(&pos), None, "{fen}");
    }
}

fn palace(c: Color) -> Vec<Square> {
    let ranks: [u8; 3] = if c == Color::Red {
        [0, 1, 2]
    } else {
        [7, 8, 9]
    };
    ranks
        .iter()
        .flat_map(|&r| (3..6u8).map(move |f| Square::new(r * 9 + f).expect("on board")))
        .collect()
}

fn points(c: Color, red_points: &[&str]) -> Vec<Square> {
    red_points
        .iter()
        .map(|s| {
            let sq: Square = s.parse().expect("square");
            if c == Color::Red {
                sq
            } else {
                sq.flip_rank()
            }
        })
        .collect()
}

/// Subsets of `pts` with at most two members.
fn up_to_two(pts: &[Square]) -> Vec<Vec<Square>> {
    let mut out = vec![vec![]];
    for (i, &a) in pts.iter().enumerate() {
        out.push(vec![a]);
        for &b in &pts[i + 1..] {
            out.push(vec![a, b]);
        }
    }
    out
}

fn fen_of(pieces: &[(Square, char)], side: Color) -> String {
    let mut board = [None; 90];
    for &(sq, c) in pieces {
        board[sq.index()] = Some(c);
    }
    let mut s = String::new();
    for r in (0..10).rev() {
        let mut empty = 0;
        for f in 0..9 {
            match board[r * 9 + f] {
                Some(c) => {
                    if empty > 0 {
                        s.push_str(&empty.to_string());
                        empty = 0;
                    }
                    s.push(c);
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            s.push_str(&empty.to_string());
        }
        if r > 0 {
            s.push('/');
        }
    }
    format!("{s} {side} - - 0 1")
}

/// The ground for `no_winning_material`: with kings, advisors and elephants
/// only, the side to move always has a legal move. Its own pieces are tried
/// in every arrangement; of the other side only what can touch its moves:
/// the king (the facing rule) and at most one piece that can stand between
/// the kings; the other side's advisors and elephants never reach its half.
#[test]
fn kings_advisors_elephants_never_stalemate() {
    let mut tried = 0;
    for us in Color::ALL {
        let them = !us;
        let (ka, kb, ba) = if us == Color::Red {
            ('K', 'A', 'B')
        } else {
            ('k', 'a', 'b')
        };
        let (oka, oa, ob) = if us == Color::Red {
            ('k', 'a', 'b')
        } else {
            ('K', 'A', 'B')
        };
        let adv = |c| points(c, &["d0", "f0", "e1", "d2", "f2"]);
        let ele = |c| points(c, &["c0", "g0", "a2", "e2", "i2", "c4", "g4"]);
        let mut others: Vec<Option<(Square, char)>> = vec![None];
        others.extend(adv(them).into_iter().map(|s| Some((s, oa))));
        others.extend(ele(them).into_iter().map(|s| Some((s, ob))));
        for k in palace(us) {
            for a in up_to_two(&adv(us)) {
                for b in up_to_two(&ele(us)) {
                    for ok in palace(them) {
                        for other in &others {
                            let mut pieces = vec![(k, ka), (ok, oka)];
                            pieces.extend(a.iter().map(|&s| (s, kb)));
                            pieces.extend(b.iter().map(|&s| (s, ba)));
                            pieces.extend(other.iter().copied());
                            let mut squares: Vec<Square> = pieces.iter().map(|p| p.0).collect();
                            squares.sort();
                            squares.dedup();
                            if squares.len() != pieces.len() {
                                continue;
                            }
                            let Ok(pos) = Position::from_fen(&fen_of(&pieces, us)) else {
                                continue; // kings facing
                            };
                            tried += 1;
                            assert!(pos.has_legal_move(), "stalemate: {}", pos.fen());
                        }
                    }
                }
            }
        }
    }
    assert!(tried > 500_000, "tried {tried}");
}

/// The search's view: a perpetual checker meeting its cycle loses; the
/// checked side meeting it wins; a cycle of idle moves is a draw.
#[test]
fn repetition_in_search_scores_perpetual_check() {
    let fen = "3k5/8R/9/9/9/9/9/9/9/4K4 w - - 0 1";
    let pos = replay(Some(fen), "i8i9 d9d8 i9i8 d8d9").expect("legal");
    assert_eq!(pos.key(), pos.history()[0].key);
    assert_eq!(rules::repetition_in_search(&pos, 4), RepetitionScore::Loss);

    let pos = replay(Some(fen), "i8i9 d9d8 i9i8 d8d9 i8i9").expect("legal");
    assert_eq!(pos.side_to_move(), Color::Black);
    assert_eq!(rules::repetition_in_search(&pos, 4), RepetitionScore::Win);

    let pos = replay(
        Some("3k5/9/1r7/9/7R1/9/9/9/4K4/9 w - - 0 1"),
        "h5h7 b7b5 h7h5 b5b7",
    )
    .expect("legal");
    assert_eq!(rules::repetition_in_search(&pos, 4), RepetitionScore::Draw);
    // Out-of-range requests are harmless.
    assert_eq!(rules::repetition_in_search(&pos, 0), RepetitionScore::Draw);
    assert_eq!(rules::repetition_in_search(&pos, 99), RepetitionScore::Draw);
}

/// The search's view of a forbidden chase, including through null moves:
/// the chaser meeting its cycle must vary (it does not lose yet); the chased
/// side meeting it, after the chaser repeated anyway, wins.
#[test]
fn repetition_in_search_scores_perpetual_chase() {
    let fen = "4k4/9/1c7/9/7R1/9/9/9/9/3K5 w - - 0 1";
    let pos = replay(Some(fen), "h5h7 b7b5 h7h5 b5b7").expect("legal");
    assert_eq!(rules::repetition_in_search(&pos, 4), RepetitionScore::Vary);
    let mut pos = replay(Some(fen), "h5h7 b7b5 h7h5").expect("legal");
    pos.make_move("b5b7".parse().expect("move"));
    pos.make_move("h5h7".parse().expect("move"));
    assert_eq!(rules::repetition_in_search(&pos, 4), RepetitionScore::Win);
}

#[test]
fn judge_rejects_illegal_and_malformed_moves() {
    let (ok, _, err) = chuhe(&["judge", "--moves", "h2e2 h9g7 e2e9"]);
    assert!(!ok);
    assert!(
        err.contains("move 3 'e2e9'") && err.contains("illegal"),
        "{err}"
    );
    let (ok, _, err) = chuhe(&["judge", "--moves", "h2e2 xx"]);
    assert!(!ok);
    assert!(err.contains("move 2 'xx'"), "{err}");
    let (ok, _, err) = chuhe(&["judge", "--fen", "not a fen"]);
    assert!(!ok);
    assert!(err.contains("--fen"), "{err}");
}

#[test]
fn judge_start_position_and_json() {
    let (ok, out, _) = chuhe(&["judge", "--moves", "h2e2 h9g7"]);
    assert!(ok);
    assert_eq!(out, "result * none\n");
    let (ok, out, _) = chuhe(&[
        "judge",
        "--fen",
        "4k4/9/1c7/9/7R1/9/9/9/9/3K5 w - - 0 1",
        "--moves",
        "h5h7 b7b5 h7h5 b5b7 h5h7 b7b5 h7h5 b5b7",
        "--json",
    ]);
    assert!(ok);
    assert!(
        out.starts_with("{\"fen\":\"4k4/9/1c7/9/7R1/9/9/9/9/3K5 w - - 8 5\""),
        "{out}"
    );
    assert!(
        out.contains("{\"move\":\"h5h7\",\"side\":\"red\",\"class\":\"chase\""),
        "{out}"
    );
    assert!(
        out.contains("\"chases\":[{\"piece\":\"cannon\",\"square\":\"b7\",\"pawn_only\":false,\"by\":\"direct\"}]"),
        "{out}"
    );
    assert!(
        out.contains("\"must_vary\":{\"side\":\"red\",\"move\":\"h5h7\"}"),
        "{out}"
    );
    assert!(out
        .trim_end()
        .ends_with("\"result\":\"0-1\",\"reason\":\"perpetual-attack\"}"));
    assert_eq!(out.matches('{').count(), out.matches('}').count());
}

/// Two different cycles back to one position: Red's king steps the first
/// time, checks with the knight the second. (Black's advisor chases the
/// knight, guarded by the rook; back on e0 the red king makes Nf9-g7+, a
/// discovered check, win the advisor e8 whether it blocks on f9 or the
/// king steps to d8, where it cannot take back facing the red king.) Red's
/// first king step is idle, and the verdict weighs both cycles
/// (Red allowed: a draw), so the report shows both, not just the last four
/// moves, which alone would read as a perpetual check.
#[test]
fn judge_shows_both_cycles_when_they_differ() {
    let fen = "3k1N1R1/9/5a3/3P5/9/9/9/9/9/4K4 w - - 0 1";
    let moves = "e0f0 f7e8 f0e0 e8f7 f9g7 d9d8 g7f9 d8d9";
    let (ok, out, _) = chuhe(&["judge", "--fen", fen, "--moves", moves]);
    assert!(ok);
    assert_eq!(
        out,
        "repetition occurrence 3 cycle from ply 1\n\
         e0f0 idle\n\
         f7e8 chase knight f9 (by exchange)\n\
         f0e0 chase advisor e8 (after the check f9g7)\n\
         e8f7 idle\n\
         f9g7 check\n\
         d9d8 idle\n\
         g7f9 check\n\
         d8d9 idle\n\
         red allowed\n\
         black allowed\n\
         result 1/2-1/2 repetition-draw\n"
    );
}

/// Issue 24: each rook move chases a knight whose direct capture allows
/// mate, because the quiet check Nf0-e2 first wins it; the report says so,
/// in text and in JSON (`"by":"check","check":"f0e2"`), where a plain
/// capture is `"by":"direct"` and nothing more.
#[test]
fn judge_names_the_check_that_wins_a_chased_piece() {
    let fen = "2b1k4/7n1/8n/2r6/9/9/9/8R/3K5/4CN3 w - - 0 1";
    let moves = "i2h2 c9a7 h2i2 a7c9 i2h2 c9a7 h2i2 a7c9";
    let (ok, out, _) = chuhe(&["judge", "--fen", fen, "--moves", moves]);
    assert!(ok);
    assert_eq!(
        out,
        "repetition occurrence 3 cycle from ply 5\n\
         i2h2 chase knight h8 (after the check f0e2)\n\
         c9a7 idle\n\
         h2i2 chase knight i7 (after the check f0e2)\n\
         a7c9 idle\n\
         red forbidden\n\
         black allowed\n\
         must-vary red i2h2\n\
         result 0-1 perpetual-attack\n"
    );
    let (ok, out, _) = chuhe(&["judge", "--fen", fen, "--moves", moves, "--json"]);
    assert!(ok);
    let chase = |mv: &str, sq: &str| {
        format!(
            "{{\"move\":\"{mv}\",\"side\":\"red\",\"class\":\"chase\",\"class_with_pawns\":\"chase\",\"mate_move\":null,\
             \"chases\":[{{\"piece\":\"knight\",\"square\":\"{sq}\",\"pawn_only\":false,\"by\":\"check\",\"check\":\"f0e2\"}}]}}"
        )
    };
    let idle = |mv: &str| {
        format!(
            "{{\"move\":\"{mv}\",\"side\":\"black\",\"class\":\"idle\",\"class_with_pawns\":\"idle\",\"mate_move\":null,\"chases\":[]}}"
        )
    };
    let want = format!(
        "{{\"fen\":\"2b1k4/7n1/8n/2r6/9/9/9/8R/3K5/4CN3 w - - 8 5\",\"plies\":8,\
         \"cycle\":{{\"occurrence\":3,\"start_ply\":5,\"moves\":[{},{},{},{}],\
         \"red\":\"forbidden\",\"black\":\"allowed\",\"must_vary\":{{\"side\":\"red\",\"move\":\"i2h2\"}}}},\
         \"result\":\"0-1\",\"reason\":\"perpetual-attack\"}}\n",
        chase("i2h2", "h8"),
        idle("c9a7"),
        chase("h2i2", "i7"),
        idle("a7c9")
    );
    assert_eq!(out, want);
}

/// A knight attacking a protected rook wins it by exchange (NxR RxN: a rook
/// for a knight); the report says `by exchange`, the JSON `"by":"exchange"`.
#[test]
fn judge_names_a_chase_by_exchange() {
    let fen = "5k3/1N7/r5r2/9/9/9/9/9/9/2BAKAB2 w - - 0 1";
    let moves = "b8c6 a7d7 c6b8 d7a7 b8c6 a7d7 c6b8 d7a7";
    let (ok, out, _) = chuhe(&["judge", "--fen", fen, "--moves", moves]);
    assert!(ok);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[1], "b8c6 chase rook a7 (by exchange)", "{out}");
    assert_eq!(lines[3], "c6b8 chase rook d7 (by exchange)", "{out}");
    let (ok, out, _) = chuhe(&["judge", "--fen", fen, "--moves", moves, "--json"]);
    assert!(ok);
    assert!(
        out.contains("\"chases\":[{\"piece\":\"rook\",\"square\":\"a7\",\"pawn_only\":false,\"by\":\"exchange\"}]"),
        "{out}"
    );
}

#[test]
fn json_strings_are_escaped() {
    use chuhe::judge::json_str;
    assert_eq!(json_str("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"");
}
