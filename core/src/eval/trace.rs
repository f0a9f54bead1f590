//! The evaluation taken apart, for the protocols' `eval` command: the
//! network's and the hand-crafted evaluation of a position, and what each
//! piece is worth to the network (the evaluation with the piece on the
//! board minus the evaluation without it, as Stockfish's `eval` derives
//! piece values from its network).

use super::{evaluate_with, hce_evaluate, piece_count, pieces_of, EVAL_LIMIT};
use crate::board::{Color, Piece, PieceKind, Position, Square};
use crate::nnue::net::{Accumulator, Network};

/// One position's evaluations, all in centipawns from Red's view (so that
/// a board of piece values reads the same whoever is to move).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalTrace {
    /// The network's evaluation (None without a network).
    pub network: Option<i32>,
    pub hand_crafted: i32,
    /// Each piece but the kings with its value to the network: positive
    /// helps Red. Empty without a network.
    pub pieces: Vec<(Square, Piece, i32)>,
}

/// `v` (side to move's view) from Red's.
fn red_view(pos: &Position, v: i32) -> i32 {
    match pos.side_to_move() {
        Color::Red => v,
        Color::Black => -v,
    }
}

pub fn trace(net: Option<&Network>, pos: &Position) -> EvalTrace {
    let hand_crafted = red_view(pos, hce_evaluate(pos));
    let Some(net) = net else {
        return EvalTrace {
            network: None,
            hand_crafted,
            pieces: Vec::new(),
        };
    };
    let whole = red_view(pos, evaluate_with(Some(net), pos));
    let mut acc = Accumulator::default();
    let pieces = pos
        .occupied()
        .filter_map(|sq| {
            let piece = pos.piece_at(sq)?;
            if piece.kind() == PieceKind::King {
                return None;
            }
            net.refresh(pieces_of(pos).filter(|&(s, _)| s != sq), &mut acc);
            // One piece fewer: the output bucket of the board without it.
            let v = net.evaluate(&acc, pos.side_to_move(), piece_count(pos) - 1);
            let without = red_view(pos, v.clamp(-EVAL_LIMIT, EVAL_LIMIT));
            Some((sq, piece, whole - without))
        })
        .collect();
    EvalTrace {
        network: Some(whole),
        hand_crafted,
        pieces,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piece_values_have_the_signs_of_their_owners() {
        let net = crate::nnue::default_network().expect("built-in network");
        let pos = Position::startpos();
        let t = trace(Some(&net), &pos);
        assert_eq!(t.pieces.len(), 30);
        for &(sq, p, v) in &t.pieces {
            // Rooks, knights and cannons are worth something to their side.
            if matches!(
                p.kind(),
                PieceKind::Rook | PieceKind::Knight | PieceKind::Cannon
            ) {
                let ours = if p.color() == Color::Red { v } else { -v };
                assert!(ours > 0, "{p} on {sq}: {v}");
            }
        }
        // The same position with Black to move reads the same from Red's view.
        let twin = trace(Some(&net), &pos.colour_flipped());
        assert_eq!(twin.pieces.len(), 30);
        assert!(trace(None, &pos).pieces.is_empty());
    }
}
