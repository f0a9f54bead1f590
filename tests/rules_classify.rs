//! The 棋例 rules one by one, each on a position built for it. Every cycle
//! is played twice so that the start position occurs a third time; each
//! position was checked by hand with `chuhe judge` (the reasoning is in the
//! comments).

use chuhe::judge::target;
use chuhe_core::board::Position;
use chuhe_core::rules::{judge_repetition, How, MoveClass, Outcome, Reason};
use MoveClass::*;

mod common;
use common::check;

fn chased(pos: &Position, ply: usize) -> Vec<String> {
    let report = judge_repetition(pos).expect("a repetition");
    report.moves[ply]
        .chases
        .iter()
        .map(|t| t.to_string())
        .collect()
}

/// 长杀: each red rook move threatens Rf1/Rf2 mate (the black king on f9 has
/// e9 taken by the facing red king and f8 on the checked file); black's rook
/// parries by blocking the rank. Forbidden against allowed: red loses.
#[test]
fn perpetual_mate_threat_loses() {
    let pos = check(
        "5k3/9/9/9/9/9/9/9/6r1R/4K4 w - - 0 1",
        "i1i2 g1g2 i2i1 g2g1",
        &[MateThreat, Idle, MateThreat, Idle],
        Outcome::BlackWins,
        Reason::PerpetualAttack,
    );
    let report = judge_repetition(&pos).expect("a repetition");
    assert_eq!(
        report.moves[0].mate_move.map(|m| m.to_string()),
        Some("i2f2".into())
    );
}

/// A mate the mover could already play is not a threat its move makes: in
/// the shared case king-attacks-cannon-is-idle red has Rf0 mate (in two)
/// all along, so its king moves stay idle.
#[test]
fn standing_mate_is_not_a_new_threat() {
    check(
        "5k2r/9/9/9/9/9/9/4K4/3c5/R8 w - - 0 1",
        "e2e1 d1d2 e1e2 d2d1",
        &[Idle, Idle, Idle, Idle],
        Outcome::Draw,
        Reason::RepetitionDraw,
    );
}

/// 数将一闲: two checks and two idle advisor moves by red is allowed.
#[test]
fn checks_with_an_idle_move_are_allowed() {
    check(
        "3k5/8R/b8/9/9/9/9/9/9/4KA3 w - - 0 1",
        "f0e1 a7c5 i8i9 d9d8 i9i8 d8d9 e1f0 c5a7",
        &[Idle, Idle, Check, Idle, Check, Idle, Idle, Idle],
        Outcome::Draw,
        Reason::RepetitionDraw,
    );
}

/// Both sides chase in every move: red's rook the black cannon, the black
/// cannon (escaping) the unprotected red knights behind the black pawns. Draw.
#[test]
fn mutual_chases_draw() {
    let pos = check(
        "4k4/2R6/9/9/1c7/1pp6/1NN6/9/9/3K5 w - - 0 1",
        "c8b8 b5c5 b8c8 c5b5",
        &[Chase, Chase, Chase, Chase],
        Outcome::Draw,
        Reason::RepetitionDraw,
    );
    assert_eq!(chased(&pos, 0), ["cannon b5"]);
    assert_eq!(chased(&pos, 1), ["knight c3"]);
    let report = judge_repetition(&pos).expect("a repetition");
    assert_eq!(target(&report.moves[0].chases[0]), "cannon b5 (direct)");
}

/// A knight attacking a rook chases it even though the other black rook
/// protects it (knight for rook wins material).
#[test]
fn knight_chases_protected_rook() {
    let pos = check(
        "5k3/1N7/r5r2/9/9/9/9/9/9/2BAKAB2 w - - 0 1",
        "b8c6 a7d7 c6b8 d7a7",
        &[Chase, Idle, Chase, Idle],
        Outcome::BlackWins,
        Reason::PerpetualAttack,
    );
    assert_eq!(chased(&pos, 0), ["rook a7"]);
    assert_eq!(chased(&pos, 2), ["rook d7"]);
    // Won by the exchange NxR RxN, not kept.
    let report = judge_repetition(&pos).expect("a repetition");
    assert_eq!(report.moves[0].chases[0].how, How::Exchange);
    assert_eq!(target(&report.moves[2].chases[0]), "rook d7 (by exchange)");
}

/// 假根: the black rook b9 that would protect the cannon is pinned along
/// rank 9 by the red rook a9 (it cannot leave the rank without exposing its
/// king), so the cannon counts as unprotected. Without the pin the same
/// cycle is the shared case rook-attacks-protected-cannon, a draw.
#[test]
fn pinned_protector_is_fake_protection() {
    let pos = check(
        "Rr2k4/9/1c7/9/7R1/9/9/9/9/3K5 w - - 0 1",
        "h5h7 b7b5 h7h5 b5b7",
        &[Chase, Idle, Chase, Idle],
        Outcome::BlackWins,
        Reason::PerpetualAttack,
    );
    assert_eq!(chased(&pos, 0), ["cannon b7"]);
}

/// Discovered chase: the red cannon steps off a rook's rank and so uncovers
/// the rook's attack on the unprotected black knight, which flees to the
/// other rank; the cannon steps back and uncovers the other rook.
#[test]
fn discovered_attack_is_a_chase() {
    let pos = check(
        "4ka3/4a4/R1C1n4/R8/9/9/9/9/9/4K4 w - - 0 1",
        "c7c6 e7g6 c6c7 g6e7",
        &[Chase, Idle, Chase, Idle],
        Outcome::BlackWins,
        Reason::PerpetualAttack,
    );
    assert_eq!(chased(&pos, 0), ["knight e7"]);
    assert_eq!(chased(&pos, 2), ["knight g6"]);
}

/// A pawn alone attacking (27.2) is idle: the red pawn follows the black
/// rook sideways, attacking it each time. Draw. The report still names the
/// pawn's target.
#[test]
fn pawn_attack_is_idle() {
    let pos = check(
        "3k5/9/9/4r4/3P5/9/9/9/9/5K3 w - - 0 1",
        "d5e5 e6d6 e5d5 d6e6",
        &[Idle, Idle, Idle, Idle],
        Outcome::Draw,
        Reason::RepetitionDraw,
    );
    let report = judge_repetition(&pos).expect("a repetition");
    assert_eq!(report.moves[0].class_with_pawns, Chase);
    assert!(report.moves[0].chases[0].pawn_only);
    assert_eq!(report.moves[0].chases[0].how, How::Direct);
}

/// 兑: the red rook attacks the unprotected black rook, which can take it
/// back: an exchange offer, idle. Draw. (The same with a black cannon on b7
/// is the shared case rook-chases-unprotected-cannon, a loss.)
#[test]
fn exchange_offer_is_idle() {
    check(
        "3k5/9/1r7/9/7R1/9/9/9/4K4/9 w - - 0 1",
        "h5h7 b7b5 h7h5 b5b7",
        &[Idle, Idle, Idle, Idle],
        Outcome::Draw,
        Reason::RepetitionDraw,
    );
    check(
        "3k5/9/1c7/9/7R1/9/9/9/4K4/9 w - - 0 1",
        "h5h7 b7b5 h7h5 b5b7",
        &[Chase, Idle, Chase, Idle],
        Outcome::BlackWins,
        Reason::PerpetualAttack,
    );
}

/// 29.4: the red rook on the i-file blocks Ri0, which mates (the black rook
/// a1 covers d1). Taking the cannon would leave the file and allow that
/// mate, so the attack is idle; remove the a1 rook and it is a chase.
#[test]
fn attack_whose_capture_allows_mate_is_idle() {
    check(
        "4k3r/9/1c7/9/8R/9/9/9/r8/3K5 w - - 0 1",
        "i5i7 b7b5 i7i5 b5b7",
        &[Idle, Idle, Idle, Idle],
        Outcome::Draw,
        Reason::RepetitionDraw,
    );
    check(
        "4k3r/9/1c7/9/8R/9/9/9/9/3K5 w - - 0 1",
        "i5i7 b7b5 i7i5 b5b7",
        &[Chase, Idle, Chase, Idle],
        Outcome::BlackWins,
        Reason::PerpetualAttack,
    );
}

/// Chasing two different pieces in turn (the cannon b7 from h7, the knight
/// b5 from h5), both standing still, is forbidden.
#[test]
fn chasing_two_pieces_in_turn_is_forbidden() {
    let pos = check(
        "4k4/9/1c7/9/1n5R1/9/9/9/9/3K5 w - - 0 1",
        "h5h7 e9e8 h7h5 e8e9",
        &[Chase, Idle, Chase, Idle],
        Outcome::BlackWins,
        Reason::PerpetualAttack,
    );
    assert_eq!(chased(&pos, 0), ["cannon b7"]);
    assert_eq!(chased(&pos, 2), ["knight b5"]);
}

/// One check and one chase (一将一捉) is forbidden; the returning rook move
/// here is also a mate threat (Rd5, the black king on d8 has d9, d7 on the
/// file and e8 facing the red king), which outranks its chase of the cannon.
#[test]
fn one_check_one_chase_classes() {
    let pos = check(
        "3k5/9/9/9/c7R/9/9/9/9/4K4 w - - 0 1",
        "i5i9 d9d8 i9i5 d8d9",
        &[Check, Idle, MateThreat, Idle],
        Outcome::BlackWins,
        Reason::PerpetualAttack,
    );
    assert_eq!(chased(&pos, 2), ["cannon a5"]);
}

/// 27.2: when both sides attack in every move, a pawn's attack is a chase.
/// The red pawn follows the black rook (idle alone); the rook, fleeing,
/// chases the unprotected red knights d2 and e3 in turn. Without the
/// mutual-attack rule black would lose; with it both are forbidden: draw.
#[test]
fn pawn_attacks_count_in_mutual_perpetual_attack() {
    let pos = check(
        "3k5/9/9/4r4/3P5/9/4N4/3N5/9/5K3 w - - 0 1",
        "d5e5 e6d6 e5d5 d6e6",
        &[Idle, Chase, Idle, Chase],
        Outcome::Draw,
        Reason::RepetitionDraw,
    );
    let report = judge_repetition(&pos).expect("a repetition");
    let with_pawns: Vec<MoveClass> = report.moves.iter().map(|m| m.class_with_pawns).collect();
    assert!(with_pawns.iter().all(|&c| c == Chase), "{with_pawns:?}");
    assert!(report.red.forbidden_with_pawns && !report.red.forbidden);
    assert_eq!(chased(&pos, 1), ["knight d2"]);
    assert_eq!(chased(&pos, 3), ["knight e3"]);
}

/// 29.1: a threat to win material through a check is a chase. From g5 the
/// red knight threatens Nf7+ (the black king cannot go to d9, facing the red
/// king; the rook h6 cannot cover the knight's leg f8) and then Nxh6. The
/// rook steps to h5, attacking the knight; the knight goes back.
#[test]
fn threat_through_a_check_is_a_chase() {
    let pos = check(
        "4k4/9/9/7r1/9/4N4/9/9/9/3K5 w - - 0 1",
        "e4g5 h6h5 g5e4 h5h6",
        &[Chase, Chase, Idle, Idle],
        Outcome::Draw,
        Reason::RepetitionDraw,
    );
    assert_eq!(chased(&pos, 0), ["rook h6"]);
    assert_eq!(chased(&pos, 1), ["knight g5"]);
}

/// 一将一捉 without the mate threat of the shared case: with the red king on
/// f0 the black king can step to e8 or e9, so the returning rook move is a
/// plain chase of the cannon. Still forbidden (the seeds, unlike the Asian
/// rules, make a check-and-chase cycle lose).
#[test]
fn one_check_one_chase_is_forbidden() {
    let pos = check(
        "3k5/9/9/9/c7R/9/9/9/9/5K3 w - - 0 1",
        "i5i9 d9d8 i9i5 d8d9",
        &[Check, Idle, Chase, Idle],
        Outcome::BlackWins,
        Reason::PerpetualAttack,
    );
    assert_eq!(chased(&pos, 2), ["cannon a5"]);
}
