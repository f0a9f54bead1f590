//! Game records: PGN and XQF reading and writing, conversion between them,
//! and errors on damaged files.

use chuhe::board::{Move, Position};
use chuhe::record::{self, pgn, Game, MoveNode};

fn mv(s: &str) -> Move {
    s.parse().unwrap()
}

fn iccs_line(nodes: &[MoveNode]) -> String {
    nodes
        .iter()
        .map(|n| n.mv.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

const CHINESE_PGN: &str = r#"[Game "Chinese Chess"]
[Event "全国象棋个人赛"]
[Red "柳大华"]
[Black "吕钦"]
[Result "0-1"]
[Format "Chinese"]

{开局前的评论}
 1. 兵七进一 马８进７ {起马应仙人指路}
 2. 兵三进一 炮２平３
 ( 2... 卒７进１ {另一种下法} 3. 马八进七 )
 3. 相七进五 马２进１
 4. 马八进七 车１平２ 0-1

[Event "第二局"]
[Red "甲"]
[Black "乙"]

1. 炮二平五 马8进7 2. 马二进三 车9平8 *
"#;

#[test]
fn pgn_chinese_notation_with_variation_and_comments() {
    let games = pgn::read_str(CHINESE_PGN).unwrap();
    assert_eq!(games.len(), 2);
    let g = &games[0];
    assert_eq!(g.tag("Red"), Some("柳大华"));
    assert_eq!(g.tag("Result"), Some("0-1"));
    assert_eq!(g.comment.as_deref(), Some("开局前的评论"));
    assert_eq!(
        iccs_line(&g.moves),
        "c3c4 h9g7 g3g4 b7c7 c0e2 b9a7 b0c2 a9b9"
    );
    assert_eq!(g.moves[1].comment.as_deref(), Some("起马应仙人指路"));
    // The variation replaces Black's second move 炮２平３.
    assert_eq!(g.moves[3].variations.len(), 1);
    let var = &g.moves[3].variations[0];
    assert_eq!(iccs_line(var), "g6g5 b0c2");
    assert_eq!(var[0].comment.as_deref(), Some("另一种下法"));
    let g2 = &games[1];
    assert_eq!(g2.tag("Event"), Some("第二局"));
    assert_eq!(g2.tag("Result"), Some("*"));
    assert_eq!(iccs_line(&g2.moves), "h2e2 h9g7 h0g2 i9h9");
}

#[test]
fn pgn_gbk_is_detected() {
    let (gbk, _, _) = encoding_rs::GBK.encode(CHINESE_PGN);
    assert!(std::str::from_utf8(&gbk).is_err());
    let games = record::read_bytes(&gbk, None).unwrap();
    assert_eq!(games, pgn::read_str(CHINESE_PGN).unwrap());
}

#[test]
fn pgn_wxf_and_iccs() {
    let wxf = "[Format \"WXF\"]\n1. C2.5 H8+7 2. H2+3 R9.8 3. R1.2 C8+4 *\n";
    let iccs = "1. h2e2 h9g7 2. H0-G2 I9-H9 3. i0h0 h7h3 *\n";
    let a = pgn::read_str(wxf).unwrap();
    let b = pgn::read_str(iccs).unwrap();
    assert_eq!(iccs_line(&a[0].moves), "h2e2 h9g7 h0g2 i9h9 i0h0 h7h3");
    assert_eq!(a[0].mainline(), b[0].mainline());
}

#[test]
fn pgn_fen_tag_sets_up_the_position() {
    let fen = "5k3/9/9/4P4/4P4/4P4/9/9/9/3K5 w - - 0 1";
    let text = format!("[FEN \"{fen}\"]\n\n1. 中兵平六 将6进1 2. 前兵进一 *\n");
    let g = &pgn::read_str(&text).unwrap()[0];
    assert_eq!(g.start_fen.as_deref(), Some(fen));
    assert_eq!(iccs_line(&g.moves), "e5d5 f9f8 e6e7");
}

fn sample_game() -> Game {
    let mut g = Game::default();
    g.set_tag("Event", "测试赛");
    g.set_tag("Red", "红方");
    g.set_tag("Black", "Black \"B\"");
    g.set_tag("Result", "1-0");
    g.comment = Some("赛前评论".into());
    let mut moves: Vec<MoveNode> = ["h2e2", "h9g7", "h0g2", "i9h9"]
        .iter()
        .map(|s| MoveNode::new(mv(s)))
        .collect();
    moves[0].comment = Some("中炮 {开局}".into());
    let mut var = vec![MoveNode::new(mv("b7e7")), MoveNode::new(mv("b0c2"))];
    var[0].comment = Some("顺炮".into());
    var[1].variations.push(vec![MoveNode::new(mv("h0g2"))]);
    moves[1].variations.push(var);
    moves[1].variations.push(vec![MoveNode::new(mv("b9c7"))]);
    moves[3].comment = Some("end".into());
    g.moves = moves;
    g
}

#[test]
fn pgn_round_trip() {
    let g = sample_game();
    let text = pgn::write(std::slice::from_ref(&g));
    assert!(text.contains("1. h2e2 {炮二平五 中炮 {开局｝}"), "{text}");
    let back = pgn::read_str(&text).unwrap();
    let mut expected = g.clone();
    // A '}' cannot stand inside a brace comment: it is written full-width.
    expected.moves[0].comment = Some("中炮 {开局｝".into());
    assert_eq!(back, vec![expected], "{text}");
}

#[test]
fn pgn_round_trip_from_black_to_move() {
    let mut g = sample_game();
    g.start_fen =
        Some("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1".into());
    g.moves = ["h9g7", "h0g2", "i9h9"]
        .iter()
        .map(|s| MoveNode::new(mv(s)))
        .collect();
    g.moves[0].variations.push(vec![MoveNode::new(mv("b9c7"))]);
    let text = pgn::write(std::slice::from_ref(&g));
    assert!(
        text.contains("1... h9g7 {马8进7} (1... b9c7 {马2进3}) 2. h0g2"),
        "{text}"
    );
    assert_eq!(pgn::read_str(&text).unwrap(), vec![g]);
}

#[test]
fn pgn_errors_have_offsets() {
    let text = "[Event \"x\"]\n1. 炮二平五 马8进7 2. 炮五进九 *\n";
    let e = pgn::read_str(text).unwrap_err();
    assert_eq!(e.offset, text.find("炮五进九").unwrap(), "{e}");
    assert!(e.to_string().contains("炮五进九"), "{e}");
    // Offsets count the file's own bytes: two per Chinese character in GBK.
    let (gbk, _, _) = encoding_rs::GBK.encode(text);
    let e = record::read_bytes(&gbk, None).unwrap_err();
    assert_eq!(e.offset, 12 + 3 + 8 + 1 + 6 + 1 + 3);
    for bad in [
        "1. h2e2 (",
        "1. h2e2 {cut",
        "[Event \"cut",
        "1. h2e2 ) *",
        "( h2e2 )",
        "",
        "1. 炮二平",
    ] {
        assert!(pgn::read_str(bad).is_err(), "{bad:?} should not read");
    }
    // Binary garbage is an error, not a panic.
    let garbage: Vec<u8> = (0..2000u32).map(|i| (i * 7919 % 251) as u8).collect();
    assert!(record::read_bytes(&garbage, None).is_err());
}

#[test]
fn pgn_start_position_fen_tag_is_dropped() {
    let text = format!("[FEN \"{}\"]\n1. h2e2 *\n", chuhe::board::START_FEN);
    let g = &pgn::read_str(&text).unwrap()[0];
    assert_eq!(g.start_fen, None);
    assert_eq!(
        g.start_position().unwrap().fen(),
        Position::startpos().fen()
    );
}
