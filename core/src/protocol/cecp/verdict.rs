//! Game ends the engine announces: the rules judge's verdict (Chinese
//! rules, `crate::rules`) worded as a CECP result line, and whether to
//! send it.
//!
//! A result line is "an unconditional refusal to play on". XBoard and
//! WinBoard test such claims in engine-engine games (`-testClaims`, on in
//! Debian's xboard.conf): a claimed win is accepted only if XBoard's own
//! rules see a mate or stalemate, a draw only if they see a repetition,
//! its 50-move count or dead material, and anything else forfeits the
//! claimer. Their xiangqi rules are not the Chinese rules (perpetual
//! chases are judged differently and only after six repetitions, pawn
//! moves restart the move count), so in such a game the engine claims only
//! what XBoard confirms: mates, stalemates and its own losses, and plays
//! on otherwise, leaving the verdict to XBoard's adjudication. Against a
//! person, whose claims no GUI tests, every verdict is claimed. XBoard
//! says which case it is: it sends `computer` when, and only when, the
//! opponent is an engine.

use crate::board::Color;
use crate::rules::{Outcome, Reason, Verdict};

/// `1-0 {Red mates}` and the like. XBoard calls Red "White"; the comment
/// names the sides as xiangqi does.
pub fn result_line(v: &Verdict) -> String {
    let loser = match v.outcome {
        Outcome::RedWins => "Black",
        Outcome::BlackWins => "Red",
        Outcome::Draw => "",
    };
    let comment = match v.reason {
        Reason::Checkmate if v.outcome == Outcome::RedWins => "Red mates".to_string(),
        Reason::Checkmate => "Black mates".to_string(),
        Reason::Stalemate => format!("{loser} is stalemated and loses"),
        Reason::PerpetualCheck => format!("{loser} loses by perpetual check"),
        Reason::PerpetualAttack => format!("{loser} loses by perpetual chase"),
        Reason::RepetitionDraw => "Draw by repetition".to_string(),
        Reason::NaturalLimit => "Draw by the 60-move rule".to_string(),
        Reason::NoWinningMaterial => "Draw, neither side can win".to_string(),
    };
    format!("{} {{{comment}}}", v.outcome.as_str())
}

/// The engine playing `us` resigns. The protocol allows a bare `resign`
/// too, but XBoard 4.9.1's check of engine output flags that one as not
/// CECP (it only knows `resign` followed by more), and a result line says
/// who resigned.
pub fn resignation(us: Color) -> String {
    match us {
        Color::Red => "0-1 {Red resigns}".to_string(),
        Color::Black => "1-0 {Black resigns}".to_string(),
    }
}

/// Whether the engine playing `us` claims `v`; `claims_tested`: the GUI
/// tests claims (see the module notes).
pub fn claim(v: &Verdict, us: Color, claims_tested: bool) -> bool {
    !claims_tested
        || matches!(v.reason, Reason::Checkmate | Reason::Stalemate)
        || v.outcome == Outcome::win_for(!us)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(outcome: Outcome, reason: Reason) -> Verdict {
        Verdict { outcome, reason }
    }

    #[test]
    fn wording() {
        let v = verdict(Outcome::RedWins, Reason::Checkmate);
        assert_eq!(result_line(&v), "1-0 {Red mates}");
        let v = verdict(Outcome::RedWins, Reason::PerpetualCheck);
        assert_eq!(result_line(&v), "1-0 {Black loses by perpetual check}");
        let v = verdict(Outcome::BlackWins, Reason::Stalemate);
        assert_eq!(result_line(&v), "0-1 {Red is stalemated and loses}");
        let v = verdict(Outcome::Draw, Reason::RepetitionDraw);
        assert_eq!(result_line(&v), "1/2-1/2 {Draw by repetition}");
    }

    #[test]
    fn what_is_claimed_where_claims_are_tested() {
        let check_win = verdict(Outcome::RedWins, Reason::PerpetualCheck);
        assert!(claim(&check_win, Color::Red, false));
        assert!(
            !claim(&check_win, Color::Red, true),
            "XBoard would call it false"
        );
        assert!(
            claim(&check_win, Color::Black, true),
            "a loss is always accepted"
        );
        let mate = verdict(Outcome::BlackWins, Reason::Checkmate);
        assert!(claim(&mate, Color::Black, true));
        let draw = verdict(Outcome::Draw, Reason::NaturalLimit);
        assert!(claim(&draw, Color::Red, false));
        assert!(!claim(&draw, Color::Red, true));
    }
}
