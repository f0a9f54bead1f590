//! Chinese move notation (seeds 7.5): `炮二平五`, `马8进7`, `前炮进一`.
//!
//! Red numbers its files 一..九 from its own right (file `i` is 一), Black
//! 1..9 from its own right (file `a` is 1). A straight move forward or back
//! gives the number of ranks; a knight, elephant or advisor gives the file it
//! lands on. Identical pieces on one file are told apart by 前/后 (and 前中后,
//! 前二三..后 for three or more pawns); when pawns stand two or more on each of
//! two files, the file number replaces the piece name (`前三平四`), as
//! Chinese records do.

use super::position::Position;
use super::types::{Color, Move, PieceKind, Square};
use std::fmt;

/// Why a move could not be written down.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotationError {
    /// No piece of the side to move stands on the move's from-square.
    NoPiece(Move),
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotationError::NoPiece(mv) => {
                write!(
                    f,
                    "move {mv}: no piece of the side to move on its from-square"
                )
            }
        }
    }
}

impl std::error::Error for NotationError {}

const RED_NUMERALS: [&str; 9] = ["一", "二", "三", "四", "五", "六", "七", "八", "九"];
const BLACK_NUMERALS: [&str; 9] = ["1", "2", "3", "4", "5", "6", "7", "8", "9"];

fn piece_name(color: Color, kind: PieceKind) -> &'static str {
    use PieceKind::*;
    match (color, kind) {
        (Color::Red, King) => "帅",
        (Color::Black, King) => "将",
        (Color::Red, Advisor) => "仕",
        (Color::Black, Advisor) => "士",
        (Color::Red, Bishop) => "相",
        (Color::Black, Bishop) => "象",
        (_, Knight) => "马",
        (_, Rook) => "车",
        (_, Cannon) => "炮",
        (Color::Red, Pawn) => "兵",
        (Color::Black, Pawn) => "卒",
    }
}

/// The side's own number (1..=9) for a board file index (0 = `a`).
fn file_number(color: Color, file: usize) -> usize {
    match color {
        Color::Red => 9 - file,
        Color::Black => file + 1,
    }
}

/// A number as the side writes it (Red in Chinese numerals, Black in digits).
fn numeral(color: Color, n: usize) -> &'static str {
    let table = match color {
        Color::Red => &RED_NUMERALS,
        Color::Black => &BLACK_NUMERALS,
    };
    table[n.clamp(1, 9) - 1]
}

/// How far forward a square is for `color` (0 = own back rank).
fn advance(color: Color, sq: Square) -> usize {
    match color {
        Color::Red => sq.rank().index(),
        Color::Black => 9 - sq.rank().index(),
    }
}

/// 前/中/后 (or 前二三..后) for the piece at `index` among `count`, counted from the front.
fn order_label(index: usize, count: usize) -> &'static str {
    if index == 0 {
        "前"
    } else if index + 1 == count {
        "后"
    } else if count == 3 {
        "中"
    } else {
        RED_NUMERALS[index]
    }
}

/// Writes `mv`, to be played in `pos`, in Chinese notation.
pub fn chinese(pos: &Position, mv: Move) -> Result<String, NotationError> {
    let from = mv.from();
    let to = mv.to();
    let piece = pos
        .piece_at(from)
        .filter(|p| p.color() == pos.side_to_move())
        .ok_or(NotationError::NoPiece(mv))?;
    let (color, kind) = (piece.color(), piece.kind());

    let mut text = String::with_capacity(16);
    text.push_str(&prefix(pos, color, kind, from));

    let (a_from, a_to) = (advance(color, from), advance(color, to));
    let direction = if a_to > a_from {
        "进"
    } else if a_to < a_from {
        "退"
    } else {
        "平"
    };
    text.push_str(direction);

    let diagonal = matches!(
        kind,
        PieceKind::Knight | PieceKind::Bishop | PieceKind::Advisor
    );
    let target = if direction == "平" || diagonal {
        file_number(color, to.file().index())
    } else {
        a_to.abs_diff(a_from)
    };
    text.push_str(numeral(color, target));
    Ok(text)
}

/// The part before the direction: piece and file (`炮二`), or the order on a
/// shared file (`前炮`, `中兵`, `前三`).
fn prefix(pos: &Position, color: Color, kind: PieceKind, from: Square) -> String {
    let file = from.file().index();
    let mut same_file: Vec<Square> = pos
        .pieces(color, kind)
        .filter(|sq| sq.file().index() == file)
        .collect();
    if same_file.len() < 2 {
        return format!(
            "{}{}",
            piece_name(color, kind),
            numeral(color, file_number(color, file))
        );
    }
    same_file.sort_by_key(|&sq| std::cmp::Reverse(advance(color, sq)));
    let index = same_file.iter().position(|&sq| sq == from).unwrap_or(0);
    let label = order_label(index, same_file.len());

    if kind == PieceKind::Pawn && another_file_has_pawns(pos, color, file) {
        format!("{label}{}", numeral(color, file_number(color, file)))
    } else {
        format!("{label}{}", piece_name(color, kind))
    }
}

/// Whether some other file holds two or more of `color`'s pawns.
fn another_file_has_pawns(pos: &Position, color: Color, file: usize) -> bool {
    let mut per_file = [0u8; 9];
    for sq in pos.pieces(color, PieceKind::Pawn) {
        per_file[sq.file().index()] += 1;
    }
    per_file
        .iter()
        .enumerate()
        .any(|(f, &n)| f != file && n >= 2)
}

/// Writes a whole line of moves from `pos` (which is left unchanged),
/// stopping at the first move that cannot be written.
pub fn chinese_line(pos: &Position, moves: &[Move]) -> Result<Vec<String>, NotationError> {
    let mut p = pos.clone();
    let mut out = Vec::with_capacity(moves.len());
    for &mv in moves {
        out.push(chinese(&p, mv)?);
        p.make_move(mv);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(s: &str) -> Move {
        s.parse().unwrap()
    }

    fn line(fen: &str, moves: &str) -> Vec<String> {
        let pos = Position::from_fen(fen).unwrap();
        let moves: Vec<Move> = moves.split_whitespace().map(mv).collect();
        chinese_line(&pos, &moves).unwrap()
    }

    #[test]
    fn seeds_record() {
        // The record printed in seeds 7.5.
        let got = line(crate::board::START_FEN, "h2e2 h9g7 h0g2 i9h9 i0h0 h7h3");
        assert_eq!(
            got,
            [
                "炮二平五",
                "马8进7",
                "马二进三",
                "车9平8",
                "车一平二",
                "炮8进4"
            ]
        );
    }

    #[test]
    fn common_openings() {
        let got = line(crate::board::START_FEN, "b0c2 b9c7 c3c4 g6g5 g0e2 c9e7");
        assert_eq!(
            got,
            [
                "马八进七",
                "马2进3",
                "兵七进一",
                "卒7进1",
                "相三进五",
                "象3进5"
            ]
        );
        let got = line(crate::board::START_FEN, "f0e1 d9e8 e0f0 e9d9");
        assert_eq!(got, ["仕四进五", "士4进5", "帅五平四", "将5平4"]);
    }

    #[test]
    fn backward_moves() {
        let got = line(crate::board::START_FEN, "h2h6 b7b3 h6h2 b3b7");
        assert_eq!(got, ["炮二进四", "炮2进4", "炮二退四", "炮2退4"]);
    }

    #[test]
    fn front_and_back_cannons() {
        // Red cannons on e2 and e4 (e4 is the front one); Black's on e7 and e5.
        let fen = "rnbakabnr/9/4c4/p1p3p1p/4c4/4C4/P1P3P1P/4C4/9/RNBAKABNR w - - 0 1";
        assert_eq!(line(fen, "e4e5"), ["前炮进一"]);
        assert_eq!(line(fen, "e2d2"), ["后炮平六"]);
        let fen_b = "rnbakabnr/9/4c4/p1p3p1p/4c4/4C4/P1P3P1P/4C4/9/RNBAKABNR b - - 0 1";
        assert_eq!(line(fen_b, "e5e4"), ["前炮进1"]);
        assert_eq!(line(fen_b, "e7f7"), ["后炮平6"]);
    }

    #[test]
    fn three_pawns_and_tandem_files() {
        // Red pawns e8, e7, e6 on one file and nothing else doubled.
        let fen = "3k5/4P4/4P4/4P4/9/9/9/9/9/5K3 w - - 0 1";
        assert_eq!(line(fen, "e8d8"), ["前兵平六"]);
        assert_eq!(line(fen, "e7d7"), ["中兵平六"]);
        assert_eq!(line(fen, "e6d6"), ["后兵平六"]);
        // Two Red pawns on e and two on c: the file number replaces the piece.
        let fen2 = "3k5/9/2P1P4/2P1P4/9/9/9/9/9/5K3 w - - 0 1";
        assert_eq!(line(fen2, "e7e8"), ["前五进一"]);
        assert_eq!(line(fen2, "c6b6"), ["后七平八"]);
    }

    #[test]
    fn no_piece_is_an_error() {
        let pos = Position::startpos();
        assert!(chinese(&pos, mv("e4e5")).is_err());
        assert!(chinese(&pos, mv("h7e7")).is_err());
    }
}
