//! Helpers shared by the rules test files.

use chuhe::judge::replay;
use chuhe_core::board::Position;
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
        search_view(outcome),
    );
    pos
}

/// The search's view of a cycle that ends with Red to move, given the
/// verdict: a win for Red is a win for the side to move.
pub fn search_view(outcome: Outcome) -> RepetitionScore {
    match outcome {
        Outcome::Draw => RepetitionScore::Draw,
        Outcome::RedWins => RepetitionScore::Win,
        Outcome::BlackWins => RepetitionScore::Loss,
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
