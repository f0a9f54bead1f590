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

/// Why a written move could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveTextError {
    /// The text is not a move in any notation we read.
    Unreadable(String),
    /// The text reads as a move, but no legal move of the position fits it.
    NoMatch(String),
    /// Several legal moves fit the text.
    Ambiguous(String, Vec<Move>),
}

impl fmt::Display for MoveTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveTextError::Unreadable(t) => write!(
                f,
                "'{t}' is not a move (Chinese notation, WXF or ICCS expected)"
            ),
            MoveTextError::NoMatch(t) => write!(f, "'{t}' fits no legal move of the position"),
            MoveTextError::Ambiguous(t, moves) => {
                write!(f, "'{t}' fits several legal moves:")?;
                for m in moves {
                    write!(f, " {m}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for MoveTextError {}

/// Which of several like pieces on one file is meant, counted from the front.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    Front,
    Middle,
    Back,
    /// 0-based from the front (一兵 / 二兵 ..., WXF `a`, `b` ...).
    Nth(usize),
}

/// A move as written, before it is matched against the legal moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Spec {
    kind: Option<PieceKind>,
    /// The side's own file number (1..=9) of the moving piece.
    file: Option<usize>,
    order: Option<Order>,
    /// +1 forward, -1 back, 0 along the rank.
    dir: i8,
    /// Ranks moved, or the file number landed on.
    target: usize,
}

/// Reads one move in Chinese notation (`炮二平五`, `马２进３`, `前炮进一`,
/// `中兵平六`, `二兵进一`, `前三平四`), WXF (`C2.5`, `H8+7`, `+C.5`, `C+.5`,
/// `Pa.4`) or ICCS (`h2e2`, `H2-E2`), and finds the legal move of `pos` it
/// names. Digits may be ASCII, full-width or Chinese for either side; the
/// text is resolved against the legal moves, so anything that fits none, or
/// more than one, is an error.
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, MoveTextError> {
    let t = text.trim();
    let legal = pos.legal_moves();
    if let Some(mv) = iccs(t) {
        return if legal.contains(&mv) {
            Ok(mv)
        } else {
            Err(MoveTextError::NoMatch(t.to_string()))
        };
    }
    let spec = chinese_spec(t)
        .or_else(|| wxf_spec(t))
        .ok_or_else(|| MoveTextError::Unreadable(t.to_string()))?;
    let found: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|&mv| fits(pos, mv, &spec))
        .collect();
    match found.len() {
        0 => Err(MoveTextError::NoMatch(t.to_string())),
        1 => Ok(found[0]),
        _ => Err(MoveTextError::Ambiguous(t.to_string(), found)),
    }
}

/// `h2e2`, `H2-E2`: two squares, files a..i, ranks 0..9.
fn iccs(t: &str) -> Option<Move> {
    let b: Vec<u8> = t.bytes().filter(|&c| c != b'-').collect();
    let ok = b.len() == 4
        && t.len() <= 5
        && matches!(b[0].to_ascii_lowercase(), b'a'..=b'i')
        && b[1].is_ascii_digit()
        && matches!(b[2].to_ascii_lowercase(), b'a'..=b'i')
        && b[3].is_ascii_digit();
    if !ok {
        return None;
    }
    t.parse().ok()
}

/// One character of Chinese notation.
#[derive(Clone, Copy)]
enum Glyph {
    Piece(PieceKind),
    Order(Order),
    Num(usize),
    Dir(i8),
}

fn glyph(c: char) -> Option<Glyph> {
    use PieceKind::*;
    Some(match c {
        '帅' | '帥' | '将' | '將' => Glyph::Piece(King),
        '仕' | '士' => Glyph::Piece(Advisor),
        '相' | '象' => Glyph::Piece(Bishop),
        '马' | '馬' | '傌' | '碼' => Glyph::Piece(Knight),
        '车' | '車' | '俥' | '伡' => Glyph::Piece(Rook),
        '炮' | '砲' | '包' => Glyph::Piece(Cannon),
        '兵' | '卒' => Glyph::Piece(Pawn),
        '前' => Glyph::Order(Order::Front),
        '中' => Glyph::Order(Order::Middle),
        '后' | '後' => Glyph::Order(Order::Back),
        '进' | '進' => Glyph::Dir(1),
        '退' => Glyph::Dir(-1),
        '平' => Glyph::Dir(0),
        '1'..='9' => Glyph::Num(c as usize - '0' as usize),
        '１'..='９' => Glyph::Num(c as usize - '１' as usize + 1),
        _ => {
            let n = RED_NUMERALS.iter().position(|s| s.starts_with(c))?;
            Glyph::Num(n + 1)
        }
    })
}

fn chinese_spec(t: &str) -> Option<Spec> {
    // Trailing marks some programs add (`!`, `?`, `+` for check) are not part of the move.
    let t = t.trim_end_matches(['!', '?', '+', '#']);
    let g: Vec<Glyph> = t.chars().map(glyph).collect::<Option<_>>()?;
    let [a, b, Glyph::Dir(dir), Glyph::Num(target)] = g[..] else {
        return None;
    };
    let (kind, file, order) = match (a, b) {
        (Glyph::Piece(k), Glyph::Num(f)) => (Some(k), Some(f), None),
        (Glyph::Order(o), Glyph::Piece(k)) | (Glyph::Piece(k), Glyph::Order(o)) => {
            (Some(k), None, Some(o))
        }
        (Glyph::Num(n), Glyph::Piece(k)) => (Some(k), None, Some(Order::Nth(n - 1))),
        // Pawns doubled on two files: the file number stands for the piece.
        (Glyph::Order(o), Glyph::Num(f)) => (Some(PieceKind::Pawn), Some(f), Some(o)),
        (Glyph::Num(n), Glyph::Num(f)) => (Some(PieceKind::Pawn), Some(f), Some(Order::Nth(n - 1))),
        _ => return None,
    };
    Some(Spec {
        kind,
        file,
        order,
        dir,
        target,
    })
}

/// WXF: piece letter, file digit (or `+`/`-`/`a`..`e` for one of several on
/// a file, before or after the letter), direction `+`, `-`, `.` or `=`, number.
fn wxf_spec(t: &str) -> Option<Spec> {
    let t = t.trim_end_matches(['!', '?', '#']);
    let c: Vec<char> = t.chars().collect();
    if !c.iter().all(|ch| ch.is_ascii()) {
        return None;
    }
    let order_of = |ch: char| match ch {
        '+' => Some(Order::Front),
        '-' => Some(Order::Back),
        'a'..='e' => Some(Order::Nth(ch as usize - 'a' as usize)),
        _ => None,
    };
    let dir_of = |ch: char| match ch {
        '+' => Some(1),
        '-' => Some(-1),
        '.' | '=' => Some(0),
        _ => None,
    };
    let digit = |ch: char| ch.to_digit(10).filter(|&d| d >= 1).map(|d| d as usize);
    let (kind, file, order, rest) = match c[..] {
        // +C.5, -P+1: the order sign before the piece.
        [o @ ('+' | '-'), p, ..] if p.is_ascii_alphabetic() => {
            (PieceKind::from_letter(p)?, None, order_of(o), &c[2..])
        }
        // +3.4: front pawn of file 3 when pawns are doubled on two files.
        [o @ ('+' | '-'), f, ..] if f.is_ascii_digit() => {
            (PieceKind::Pawn, Some(digit(f)?), order_of(o), &c[2..])
        }
        [p, f, ..] if f.is_ascii_digit() => {
            (PieceKind::from_letter(p)?, Some(digit(f)?), None, &c[2..])
        }
        [p, o, ..] => (
            PieceKind::from_letter(p)?,
            None,
            Some(order_of(o)?),
            &c[2..],
        ),
        _ => return None,
    };
    let [d, n] = rest[..] else {
        return None;
    };
    Some(Spec {
        kind: Some(kind),
        file,
        order,
        dir: dir_of(d)?,
        target: digit(n)?,
    })
}

/// Whether legal move `mv` of `pos` is the one `spec` describes.
fn fits(pos: &Position, mv: Move, spec: &Spec) -> bool {
    let Some(piece) = pos.piece_at(mv.from()) else {
        return false;
    };
    let (color, kind) = (piece.color(), piece.kind());
    if spec.kind.is_some_and(|k| k != kind) {
        return false;
    }
    let (from, to) = (mv.from(), mv.to());
    let file = from.file().index();
    if spec.file.is_some_and(|f| f != file_number(color, file)) {
        return false;
    }
    if let Some(order) = spec.order {
        let mut same_file: Vec<Square> = pos
            .pieces(color, kind)
            .filter(|sq| sq.file().index() == file)
            .collect();
        let count = same_file.len();
        if count < 2 {
            return false;
        }
        same_file.sort_by_key(|&sq| std::cmp::Reverse(advance(color, sq)));
        let index = same_file.iter().position(|&sq| sq == from).unwrap_or(0);
        let ok = match order {
            Order::Front => index == 0,
            Order::Back => index + 1 == count,
            Order::Middle => count % 2 == 1 && index == count / 2,
            Order::Nth(n) => index == n,
        };
        if !ok {
            return false;
        }
    }
    let (a_from, a_to) = (advance(color, from), advance(color, to));
    let dir = (a_to as i8 - a_from as i8).signum();
    if dir != spec.dir {
        return false;
    }
    let diagonal = matches!(
        kind,
        PieceKind::Knight | PieceKind::Bishop | PieceKind::Advisor
    );
    let target = if dir == 0 || diagonal {
        file_number(color, to.file().index())
    } else {
        a_to.abs_diff(a_from)
    };
    target == spec.target
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
    fn parsed(fen: &str, text: &str) -> Result<String, MoveTextError> {
        let pos = Position::from_fen(fen).unwrap();
        parse_move(&pos, text).map(|m| m.to_string())
    }

    #[test]
    fn parse_chinese_wxf_iccs() {
        let s = crate::board::START_FEN;
        assert_eq!(parsed(s, "炮二平五").unwrap(), "h2e2");
        assert_eq!(parsed(s, "炮２平５").unwrap(), "h2e2");
        assert_eq!(parsed(s, "炮8平5").unwrap(), "b2e2");
        assert_eq!(parsed(s, "傌八進七").unwrap(), "b0c2");
        assert_eq!(parsed(s, "相三进五").unwrap(), "g0e2");
        assert_eq!(parsed(s, "C2.5").unwrap(), "h2e2");
        assert_eq!(parsed(s, "H8+7").unwrap(), "b0c2");
        assert_eq!(parsed(s, "E3+5").unwrap(), "g0e2");
        assert_eq!(parsed(s, "h2e2").unwrap(), "h2e2");
        assert_eq!(parsed(s, "H2-E2").unwrap(), "h2e2");
        let b = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1";
        assert_eq!(parsed(b, "马８进７").unwrap(), "h9g7");
        assert_eq!(parsed(b, "马8进7").unwrap(), "h9g7");
        assert_eq!(parsed(b, "h8+7").unwrap(), "h9g7");
        assert_eq!(parsed(b, "炮8平5").unwrap(), "h7e7");
    }

    #[test]
    fn parse_tandem_pieces() {
        let fen = "rnbakabnr/9/4c4/p1p3p1p/4c4/4C4/P1P3P1P/4C4/9/RNBAKABNR w - - 0 1";
        assert_eq!(parsed(fen, "前炮退一").unwrap(), "e4e3");
        assert_eq!(parsed(fen, "后炮进一").unwrap(), "e2e3");
        assert_eq!(parsed(fen, "+C-1").unwrap(), "e4e3");
        assert_eq!(parsed(fen, "C-+1").unwrap(), "e2e3");
        let fen = "3k5/4P4/4P4/4P4/9/9/9/9/9/5K3 w - - 0 1";
        assert_eq!(parsed(fen, "中兵平六").unwrap(), "e7d7");
        assert_eq!(parsed(fen, "二兵平六").unwrap(), "e7d7");
        assert_eq!(parsed(fen, "三兵平六").unwrap(), "e6d6");
        assert_eq!(parsed(fen, "后兵平六").unwrap(), "e6d6");
        assert_eq!(parsed(fen, "Pb.6").unwrap(), "e7d7");
        let fen2 = "3k5/9/2P1P4/2P1P4/9/9/9/9/9/5K3 w - - 0 1";
        assert_eq!(parsed(fen2, "前五进一").unwrap(), "e7e8");
        assert_eq!(parsed(fen2, "后七平八").unwrap(), "c6b6");
        // 前兵 alone names two pawns; the move then decides.
        assert_eq!(parsed(fen2, "前兵平八").unwrap(), "c7b7");
    }

    #[test]
    fn parse_round_trips_every_legal_move() {
        // Whatever the writer produces, the reader takes back, in positions
        // with doubled pieces and pawns.
        for fen in [
            crate::board::START_FEN,
            "rnbakabnr/9/4c4/p1p3p1p/4c4/4C4/P1P3P1P/4C4/9/RNBAKABNR w - - 0 1",
            "3k5/4P4/4P4/4P4/9/9/9/9/9/5K3 w - - 0 1",
            "3k5/9/2P1P4/2P1P4/9/9/9/9/9/5K3 w - - 0 1",
            "4k4/9/9/2p1p4/2p1p4/2p6/9/9/9/3K5 b - - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            for mv in pos.legal_moves() {
                let text = chinese(&pos, mv).unwrap();
                assert_eq!(parse_move(&pos, &text), Ok(mv), "{fen} {text}");
            }
        }
    }

    #[test]
    fn parse_errors() {
        let s = crate::board::START_FEN;
        assert!(matches!(
            parsed(s, "炮二平九"),
            Err(MoveTextError::NoMatch(_))
        ));
        assert!(matches!(parsed(s, "e4e5"), Err(MoveTextError::NoMatch(_))));
        assert!(matches!(
            parsed(s, "hello"),
            Err(MoveTextError::Unreadable(_))
        ));
        assert!(matches!(parsed(s, ""), Err(MoveTextError::Unreadable(_))));
        assert!(matches!(
            parsed(s, "马进七"),
            Err(MoveTextError::Unreadable(_))
        ));
        // Both rooks can go forward one: 车进一 with no file is ambiguous.
        assert!(matches!(
            parsed(s, "R+1"),
            Err(MoveTextError::Unreadable(_))
        ));
        // Two advisors on file 六: the direction tells which one moves.
        let fen = "4k4/9/9/9/9/9/9/3A5/5K3/3A5 w - - 0 1";
        assert_eq!(parsed(fen, "仕六进五").unwrap(), "d0e1");
        assert_eq!(parsed(fen, "仕六退五").unwrap(), "d2e1");
    }
}
