//! The debugging commands `d` (the board, its FEN and key) and `eval` (the
//! evaluation taken apart), in the plain text other engines print for them:
//! they are for a person at a terminal, not for a GUI.

use crate::board::{Position, Square};
use crate::eval::EvalTrace;

/// `d`: the board with rank 9 on top, then the FEN, the hash key, the
/// checkers and the number of legal moves.
pub fn display(pos: &Position) -> Vec<String> {
    let mut lines = vec![String::from("   +-------------------+")];
    for (rank, row) in pos.diagram_rows() {
        lines.push(format!(" {rank} | {row} |"));
        if rank == 5 {
            lines.push("   |  ~~~~~ 楚河 ~~~~  |".to_string());
        }
    }
    lines.push("   +-------------------+".to_string());
    lines.push("     a b c d e f g h i".to_string());
    lines.push(format!("Fen: {}", pos.fen()));
    lines.push(format!("Key: {:016X}", pos.key()));
    let checkers: Vec<String> = pos.checkers().map(|sq| sq.to_string()).collect();
    lines.push(format!(
        "Checkers: {}",
        if checkers.is_empty() {
            "none".to_string()
        } else {
            checkers.join(" ")
        }
    ));
    lines.push(format!("Legal moves: {}", pos.count_legal()));
    lines
}

/// `eval`: what each piece is worth to the network, as a board, then both
/// evaluations, all in centipawns from Red's view. `in_use` says which of
/// the two the search is using.
pub fn eval(pos: &Position, trace: &EvalTrace, network_in_use: bool) -> Vec<String> {
    let mut lines = Vec::new();
    if !trace.pieces.is_empty() {
        lines.push(
            "Each piece's worth to the network (centipawns, + for Red; \
             the evaluation with the piece minus without it):"
                .to_string(),
        );
        lines.push(format!("   {}", "+------".repeat(9) + "+"));
        for rank in (0..10).rev() {
            let mut letters = format!(" {rank} ");
            let mut values = "   ".to_string();
            for file in 0..9 {
                let sq = Square::from_index(rank * 9 + file);
                let letter = pos.piece_at(sq).map_or(' ', |p| p.letter());
                letters.push_str(&format!("|  {letter}   "));
                let value = trace
                    .pieces
                    .iter()
                    .find(|&&(s, _, _)| s == sq)
                    .map_or(String::new(), |&(_, _, v)| format!("{v:+}"));
                values.push_str(&format!("|{value:^6}"));
            }
            lines.push(letters + "|");
            lines.push(values + "|");
            lines.push(format!("   {}", "+------".repeat(9) + "+"));
        }
        lines.push(format!(
            "   {}",
            ('a'..='i')
                .map(|f| format!("   {f}   "))
                .collect::<String>()
        ));
    }
    let mark = |on: bool| if on { "  (in use)" } else { "" };
    match trace.network {
        Some(v) => lines.push(format!(
            "Network evaluation:      {v:+} centipawns (Red's view){}",
            mark(network_in_use)
        )),
        None => lines.push("Network evaluation:      none (no network loaded)".to_string()),
    }
    lines.push(format!(
        "Hand-crafted evaluation: {:+} centipawns (Red's view){}",
        trace.hand_crafted,
        mark(!network_in_use || trace.network.is_none())
    ));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::trace;

    #[test]
    fn the_display_shows_the_fen_key_and_checkers() {
        let pos: Position = "4k4/9/9/9/9/9/9/9/4R4/3K5 b - - 0 1".parse().unwrap();
        let lines = display(&pos);
        assert!(lines.iter().any(|l| l == &format!("Fen: {}", pos.fen())));
        assert!(lines.contains(&format!("Key: {:016X}", pos.key())));
        assert!(lines.contains(&"Checkers: e1".to_string()));
        assert!(lines.contains(&" 9 | . . . . k . . . . |".to_string()));
        assert!(lines.contains(&" 1 | . . . . R . . . . |".to_string()));
    }

    #[test]
    fn eval_shows_each_piece_and_both_evaluations() {
        let net = crate::nnue::default_network().expect("built-in network");
        let pos = Position::startpos();
        let t = trace(Some(&net), &pos);
        let lines = eval(&pos, &t, true);
        let text = lines.join("\n");
        assert!(text.contains("(in use)"));
        assert!(text.contains(&format!(
            "Network evaluation:      {:+}",
            t.network.unwrap()
        )));
        // The red rook on a0 and its value are in the bottom row of cells.
        let a0 = t.pieces.iter().find(|p| p.0.to_string() == "a0").unwrap().2;
        let rank0 = lines.iter().position(|l| l.starts_with(" 0 |")).unwrap();
        assert!(lines[rank0].starts_with(" 0 |  R   |"));
        assert!(lines[rank0 + 1].starts_with(&format!("   |{:^6}|", format!("{a0:+}"))));
        let without = eval(&pos, &trace(None, &pos), false);
        assert!(without.join("\n").contains("none (no network loaded)"));
    }
}
