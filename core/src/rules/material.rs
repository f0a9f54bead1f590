//! Draw by lack of material (seeds 4.2.1: 双方均无可能取胜的简单局势).
//!
//! Declared only where a win is certain to be impossible: neither side has a
//! rook, knight, cannon or pawn. Kings, advisors and elephants never leave
//! their own half, so nothing can check (a king cannot step onto the open
//! file of the other, which is the only "check" left), so no mate; no
//! stalemate either (an exhaustive enumeration of such positions, in the
//! tests, finds none with no legal move); and no forbidden cycle, since
//! nothing can attack material across the river and king attacks are idle.
//! Anything more (lone pawns that cannot reach the palace, fortress
//! endings) depends on play, so it is left to the game.

use crate::board::{PieceKind, Position};

pub fn no_winning_material(pos: &Position) -> bool {
    use PieceKind::*;
    [Rook, Knight, Cannon, Pawn]
        .iter()
        .all(|&k| pos.kind_bb(k).is_empty())
}
