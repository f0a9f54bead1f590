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
    let report = judge_repetition(&pos).expect("a repetition");
    assert_eq!(report.occurrence, 3);
    let got: Vec<MoveClass> = report.moves.iter().map(|m| m.class).collect();
    let want: Vec<MoveClass> = classes.iter().chain(classes).copied().collect();
    assert_eq!(got, want, "classes of {cycle} from {fen}");
    let v = rules::judge(&pos).expect("judged at the third occurrence");
    assert_eq!(
        (v.outcome, v.reason),
        (outcome, reason),
        "verdict of {cycle} from {fen}"
    );
    let want = match outcome {
        Outcome::Draw => RepetitionScore::Draw,
        Outcome::RedWins => RepetitionScore::Win,
        Outcome::BlackWins => RepetitionScore::Loss,
    };
    let plies = cycle.split_whitespace().count();
    assert_eq!(
        rules::repetition_in_search(&pos, plies),
        want,
        "search view of {cycle} from {fen}"
    );
    pos
}
