//! Helpers shared by the rules test files.
// Each test file is its own crate and uses a part of these.
#![allow(dead_code)]

use chuhe::judge::replay;
use chuhe_core::board::{flip_colours_fen, Move, Position};
use chuhe_core::rules::{self, judge_repetition, MoveClass, Outcome, Reason, RepetitionScore};

/// Plays `cycle` twice from `fen`, so the start position occurs a third time.
pub fn twice(fen: &str, cycle: &str) -> Position {
    replay(Some(fen), &format!("{cycle} {cycle}")).expect("the cycle is legal")
}

/// Asserts the classes of one cycle's moves (the report covers two cycles,
/// which must agree), the verdict at the third occurrence, and the search's
/// view of one cycle (Red is to move at the end of every cycle in these tests).
pub fn check(
    fen: &str,
    cycle: &str,
    classes: &[MoveClass],
    outcome: Outcome,
    reason: Reason,
) -> Position {
    let pos = twice(fen, cycle);
    assert_judged(
        &pos,
        fen,
        cycle,
        classes,
        (outcome, reason),
        search_view(outcome, reason),
    );
    pos
}

/// The search's view of a cycle that ends with Red to move, given the
/// verdict: a win for Red is a win for the side to move; a loss for Red is
/// a loss when Red checks perpetually, and otherwise Red must vary.
pub fn search_view(outcome: Outcome, reason: Reason) -> RepetitionScore {
    match (outcome, reason) {
        (Outcome::Draw, _) => RepetitionScore::Draw,
        (Outcome::RedWins, _) => RepetitionScore::Win,
        (Outcome::BlackWins, Reason::PerpetualCheck) => RepetitionScore::Loss,
        (Outcome::BlackWins, _) => RepetitionScore::Vary,
    }
}

/// Asserts what the judge and the search make of `pos`, where `cycle` from
/// `fen` has just been played a second time: the classes of the cycle's
/// moves (both times alike), the verdict at the third occurrence, and the
/// search's view of one cycle.
pub fn assert_judged(
    pos: &Position,
    fen: &str,
    cycle: &str,
    classes: &[MoveClass],
    verdict: (Outcome, Reason),
    search: RepetitionScore,
) {
    let report = judge_repetition(pos).expect("a repetition");
    assert_eq!(report.occurrence, 3);
    let got: Vec<MoveClass> = report.moves.iter().map(|m| m.class).collect();
    let want: Vec<MoveClass> = classes.iter().chain(classes).copied().collect();
    assert_eq!(got, want, "classes of {cycle} from {fen}");
    let v = rules::judge(pos).expect("judged at the third occurrence");
    assert_eq!(
        (v.outcome, v.reason),
        verdict,
        "verdict of {cycle} from {fen}"
    );
    let plies = cycle.split_whitespace().count();
    assert_eq!(
        rules::repetition_in_search(pos, plies),
        search,
        "search view of {cycle} from {fen}"
    );
}

/// `fen` and `moves` (UCCI coordinates) with the colours swapped: ranks
/// mirrored top to bottom, Red's pieces Black's and the other way round.
/// A verdict for Red becomes the same verdict for Black.
pub fn flip_colours(fen: &str, moves: &str) -> (String, String) {
    let flip = |mv: Move| Move::new(mv.from().flip_rank(), mv.to().flip_rank());
    (flip_colours_fen(fen), map_moves(moves, flip))
}

/// `fen` and `moves` mirrored left to right (file a to i): xiangqi is
/// symmetric, so nothing about the game may change.
pub fn mirror_files(fen: &str, moves: &str) -> (String, String) {
    let (board, rest) = fen.split_once(' ').expect("a FEN with a side to move");
    let expand = |rank: &str| -> String {
        rank.chars()
            .map(|c| match c.to_digit(10) {
                Some(n) => "1".repeat(n as usize),
                None => c.to_string(),
            })
            .collect()
    };
    let mirrored: Vec<String> = board
        .split('/')
        .map(|rank| expand(rank).chars().rev().collect())
        .collect();
    let flip = |mv: Move| Move::new(mv.from().flip_file(), mv.to().flip_file());
    (
        format!("{} {rest}", mirrored.join("/")),
        map_moves(moves, flip),
    )
}

fn map_moves(moves: &str, f: impl Fn(Move) -> Move) -> String {
    let mapped: Vec<String> = moves
        .split_whitespace()
        .map(|text| f(text.parse().expect("a move")).to_string())
        .collect();
    mapped.join(" ")
}

/// The same outcome with the colours swapped.
pub fn swap_colours(outcome: Outcome) -> Outcome {
    match outcome {
        Outcome::RedWins => Outcome::BlackWins,
        Outcome::BlackWins => Outcome::RedWins,
        Outcome::Draw => Outcome::Draw,
    }
}
