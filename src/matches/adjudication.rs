//! Optional score adjudication, from the scores the engines report (each from
//! its own side's view). Both parts are off unless set.

use chuhe_core::board::Color;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Adjudication {
    pub resign: Option<ResignRule>,
    pub draw: Option<DrawRule>,
}

/// A side loses when, for its last `moves` moves and its opponent's, its own
/// score was at most `-score_cp` and the opponent's at least `score_cp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResignRule {
    pub score_cp: i32,
    pub moves: usize,
}

/// Drawn when, from full move `from_move` on, both sides' last `moves`
/// scores stayed within `score_cp` of zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRule {
    pub score_cp: i32,
    pub moves: usize,
    pub from_move: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Adjudicated {
    Win(Color),
    Draw,
}

/// The last `n` scores of one side, if it has that many and all were given.
fn last(scores: &[Option<i32>], n: usize) -> Option<Vec<i32>> {
    if n == 0 || scores.len() < n {
        return None;
    }
    scores[scores.len() - n..].iter().copied().collect()
}

/// Whether the game is adjudicated, given each side's scores (indexed by
/// `Color::index`) and the plies played so far.
pub fn verdict(
    adj: &Adjudication,
    scores: &[Vec<Option<i32>>; 2],
    plies: usize,
) -> Option<Adjudicated> {
    if let Some(r) = adj.resign {
        for side in Color::ALL {
            let own = last(&scores[side.index()], r.moves);
            let opp = last(&scores[side.flip().index()], r.moves);
            if let (Some(own), Some(opp)) = (own, opp) {
                if own.iter().all(|&s| s <= -r.score_cp) && opp.iter().all(|&s| s >= r.score_cp) {
                    return Some(Adjudicated::Win(side.flip()));
                }
            }
        }
    }
    if let Some(d) = adj.draw {
        let quiet = |c: Color| {
            last(&scores[c.index()], d.moves)
                .is_some_and(|v| v.iter().all(|s| s.abs() <= d.score_cp))
        };
        if plies / 2 >= d.from_move && Color::ALL.into_iter().all(quiet) {
            return Some(Adjudicated::Draw);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adj() -> Adjudication {
        Adjudication {
            resign: Some(ResignRule {
                score_cp: 500,
                moves: 2,
            }),
            draw: Some(DrawRule {
                score_cp: 10,
                moves: 3,
                from_move: 4,
            }),
        }
    }

    #[test]
    fn off_by_default() {
        let scores = [vec![Some(-900); 9], vec![Some(900); 9]];
        assert_eq!(verdict(&Adjudication::default(), &scores, 18), None);
    }

    #[test]
    fn resign_needs_both_engines_to_agree() {
        let a = adj();
        let win = [
            vec![Some(0), Some(-600), Some(-700)],
            vec![Some(550), Some(800)],
        ];
        assert_eq!(verdict(&a, &win, 5), Some(Adjudicated::Win(Color::Black)));
        let disagree = [vec![Some(-600), Some(-700)], vec![Some(550), Some(300)]];
        assert_eq!(verdict(&a, &disagree, 4), None);
        let missing = [vec![Some(-600), None], vec![Some(550), Some(600)]];
        assert_eq!(verdict(&a, &missing, 4), None);
        let red_wins = [vec![Some(600), Some(600)], vec![Some(-600), Some(-600)]];
        assert_eq!(
            verdict(&a, &red_wins, 4),
            Some(Adjudicated::Win(Color::Red))
        );
    }

    #[test]
    fn draw_from_a_move_on() {
        let a = adj();
        let flat = [
            vec![Some(5), Some(-3), Some(0)],
            vec![Some(0), Some(10), Some(-10)],
        ];
        assert_eq!(verdict(&a, &flat, 6), None, "before move 4");
        assert_eq!(verdict(&a, &flat, 8), Some(Adjudicated::Draw));
        let lively = [
            vec![Some(5), Some(-3), Some(11)],
            vec![Some(0), Some(10), Some(-10)],
        ];
        assert_eq!(verdict(&a, &lively, 8), None);
    }
}
