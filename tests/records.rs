//! Game records: PGN and XQF reading and writing, conversion between them,
//! and errors on damaged files.

use chuhe::record::{self, pgn, Game, MoveNode};
use chuhe_core::board::{Move, Position};
use std::path::Path;

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
    let text = format!("[FEN \"{}\"]\n1. h2e2 *\n", chuhe_core::board::START_FEN);
    let g = &pgn::read_str(&text).unwrap()[0];
    assert_eq!(g.start_fen, None);
    assert_eq!(
        g.start_position().unwrap().fen(),
        Position::startpos().fen()
    );
}

// ---------------------------------------------------------------- XQF

use chuhe::record::xqf::{self, WriteOptions};

/// A set-up game with Black to move, every header field, comments on the
/// root and on moves, and nested variations.
fn setup_game() -> Game {
    let mut g = Game::default();
    for (k, v) in [
        ("Title", "七星聚会"),
        ("Event", "全国赛"),
        ("Date", "2006.08.03"),
        ("Site", "北京"),
        ("Red", "柳大华"),
        ("Black", "吕钦"),
        ("Opening", "残局"),
        ("RedTime", "10分"),
        ("BlackTime", "9分"),
        ("Annotator", "评注人"),
        ("Author", "过河象"),
        ("Result", "1/2-1/2"),
    ] {
        g.set_tag(k, v);
    }
    g.start_fen = Some("4k4/9/9/2P6/9/9/9/9/9/3K5 b - - 0 1".into());
    g.comment = Some("　　开局评论".into());
    let mut moves = vec![MoveNode::new(mv("e9f9")), MoveNode::new(mv("c6c7"))];
    moves[0].comment = Some("将5平6".into());
    moves[0].variations.push(vec![MoveNode::new(mv("e9e8"))]);
    let mut alt = vec![MoveNode::new(mv("d0e0")), MoveNode::new(mv("f9f8"))];
    alt[1].comment = Some("变着中的注释".into());
    moves[1].variations.push(alt);
    g.moves = moves;
    g
}

#[test]
fn xqf_round_trip_plain() {
    for g in [sample_game(), setup_game()] {
        let bytes = xqf::write(&g).unwrap();
        assert_eq!(&bytes[..3], b"XQ\x0a");
        let back = xqf::read(&bytes).unwrap();
        assert_eq!(back, g);
        // Versions before 10 are plain too.
        let mut early = bytes.clone();
        early[2] = 8;
        assert_eq!(xqf::read(&early).unwrap(), g);
        // read_file's content sniffing takes it as XQF too.
        assert_eq!(record::read_bytes(&bytes, None).unwrap(), vec![g]);
    }
}

#[test]
fn xqf_plain_layout_follows_the_published_format() {
    // XQF 1.0: the root record 18 20 F0 FF, then 8 bytes per move plus its
    // comment; squares are x*10+y plus 24 (from) and 32 (to); the header
    // holds the pieces in the order 车马相仕帅仕相马车炮炮兵×5 per side.
    let g = Game {
        moves: vec![MoveNode::new(mv("h2e2"))],
        ..Default::default()
    };
    let b = xqf::write(&g).unwrap();
    assert_eq!(
        &b[0x10..0x30],
        &[
            0, 10, 20, 30, 40, 50, 60, 70, 80, 12, 72, 3, 23, 43, 63, 83, 9, 19, 29, 39, 49, 59,
            69, 79, 89, 17, 77, 6, 26, 46, 66, 86
        ]
    );
    assert_eq!(&b[0x400..0x408], &[0x18, 0x20, 0xF0, 0xFF, 0, 0, 0, 0]);
    // h2 is x=7,y=2 -> 72+24; e2 is 42+32; last move: tag 0.
    assert_eq!(&b[0x408..0x410], &[72 + 24, 42 + 32, 0, 0, 0, 0, 0, 0]);
    assert_eq!(b.len(), 0x410);
}

/// Turns a plain (version 10) file into a scrambled one of `version` by the
/// format's rules, independently of the library's writer: keys from header
/// bytes 12..16, piece squares shifted (and rotated from version 12), move
/// squares shifted, flags 0x80/0x40/0x20, comment lengths offset, and the
/// move section added to a 32-byte key stream.
fn scramble(plain: &[u8], version: u8, mask: u8, or: [u8; 4], xy: [u8; 3]) -> Vec<u8> {
    fn key(b: u8, seed: u8) -> u8 {
        let b = b as u32;
        ((((((b * b) * 3 + 9) * 3 + 8) * 2 + 1) * 3 + 8) * seed as u32) as u8
    }
    let mut h = plain[..0x400].to_vec();
    h[2] = version;
    h[3] = mask;
    h[8..12].copy_from_slice(&or);
    h[13..16].copy_from_slice(&xy);
    h[12] = 0u8
        .wrapping_sub(xy[0])
        .wrapping_sub(xy[1])
        .wrapping_sub(xy[2]);
    let kxy = key(xy[0], xy[0]);
    let kf = key(xy[1], kxy);
    let kt = key(xy[2], kf);
    let krmk = (h[12] as i32 * 256 + xy[0] as i32) % 32000 + 767;
    let pieces: Vec<u8> = plain[0x10..0x30].to_vec();
    for (slot, &piece) in pieces.iter().enumerate() {
        let stored = if version >= 12 {
            // The reader puts stored byte i into slot (i + kxy + 1) % 32.
            (0..32)
                .find(|i| (i + kxy as usize + 1) % 32 == slot)
                .unwrap()
        } else {
            slot
        };
        h[0x10 + stored] = piece.wrapping_add(kxy);
    }
    let mut body = Vec::new();
    let mut at = 0x400;
    while at < plain.len() {
        let (f, t, tag) = (plain[at], plain[at + 1], plain[at + 2]);
        let len = u32::from_le_bytes(plain[at + 4..at + 8].try_into().unwrap()) as usize;
        let mut ntag = 0u8;
        if tag & 0xF0 != 0 {
            ntag |= 0x80;
        }
        if tag & 0x0F != 0 {
            ntag |= 0x40;
        }
        if len > 0 {
            ntag |= 0x20;
        }
        body.extend_from_slice(&[f.wrapping_add(kf), t.wrapping_add(kt), ntag, 0]);
        if len > 0 {
            body.extend_from_slice(&(len as i32 + krmk).to_le_bytes());
            body.extend_from_slice(&plain[at + 8..at + 8 + len]);
        }
        at += 8 + len;
    }
    let mask_text = b"[(C) Copyright Mr. Dong Shiwei.]";
    let kb: Vec<u8> = (0..4).map(|i| (h[12 + i] & mask) | or[i]).collect();
    for (i, b) in body.iter_mut().enumerate() {
        *b = b.wrapping_add(mask_text[i % 32] & kb[i % 4]);
    }
    h.extend_from_slice(&body);
    h
}

#[test]
fn xqf_every_scrambled_version_reads() {
    let keysets: [(u8, [u8; 4], [u8; 3]); 4] = [
        (0xFF, [0, 0, 0, 0], [0x9c, 0xe7, 0xd8]),
        (0xBE, [0xe8, 0xd8, 0xbc, 0x84], [0x13, 0x57, 0xa1]),
        (0x5A, [0x01, 0x80, 0x33, 0x0f], [0xff, 0x01, 0x7e]),
        (0x00, [0x11, 0x22, 0x44, 0x88], [200, 31, 99]),
    ];
    for g in [setup_game(), sample_game()] {
        let plain = xqf::write(&g).unwrap();
        for version in 11..=18u8 {
            for &(mask, or, xy) in &keysets {
                let fixture = scramble(&plain, version, mask, or, xy);
                let read = xqf::read(&fixture)
                    .unwrap_or_else(|e| panic!("version {version} keys {xy:?}: {e}"));
                assert_eq!(read, g, "version {version} keys {xy:?}");
                // The writer's scrambling option produces the same bytes.
                let opts = WriteOptions {
                    version,
                    key_mask: mask,
                    key_or: or,
                    key_xy: xy,
                };
                assert_eq!(xqf::write_with(&g, &opts).unwrap(), fixture);
            }
        }
    }
}

#[test]
fn xqf_scrambling_changes_the_bytes() {
    // A check that the fixtures above are scrambled at all: pieces, squares
    // and comments no longer read as plain.
    let g = setup_game();
    let plain = xqf::write(&g).unwrap();
    let s = scramble(
        &plain,
        18,
        0xBE,
        [0xe8, 0xd8, 0xbc, 0x84],
        [0x13, 0x57, 0xa1],
    );
    assert_ne!(&plain[0x10..0x30], &s[0x10..0x30]);
    assert_ne!(&plain[0x400..], &s[0x400..]);
    // Read as if plain, the scrambled file is not the game.
    let mut as_plain = s.clone();
    as_plain[2] = 10;
    assert_ne!(xqf::read(&as_plain).ok(), Some(g));
}

#[test]
fn xqf_truncated_files_are_errors_with_offsets() {
    let g = setup_game();
    for bytes in [
        xqf::write(&g).unwrap(),
        xqf::write_with(
            &g,
            &WriteOptions {
                version: 18,
                key_mask: 0xAA,
                key_or: [1, 2, 3, 4],
                key_xy: [5, 6, 7],
            },
        )
        .unwrap(),
    ] {
        for cut in 0..bytes.len() {
            let e = xqf::read(&bytes[..cut]).unwrap_err();
            assert!(e.offset <= cut, "cut {cut}: {e}");
            if (2..0x400).contains(&cut) {
                assert!(e.what.contains("header"), "cut {cut}: {e}");
            }
        }
    }
}

#[test]
fn xqf_damaged_files_are_errors_not_panics() {
    let g = sample_game();
    let good = xqf::write(&g).unwrap();
    let mut bad = good.clone();
    // Move records start after the root record and its GBK comment.
    let root_len = 8 + u32::from_le_bytes(good[0x404..0x408].try_into().unwrap()) as usize;
    let rec = 0x400 + root_len;
    bad[rec + 1] = 49 + 32; // h2 -> e9, Red's cannon onto Black's king square
    let e = xqf::read(&bad).unwrap_err();
    assert_eq!(e.offset, rec, "{e}");
    assert!(e.what.contains("illegal move"), "{e}");
    // A comment length past the end.
    let mut bad = good.clone();
    bad[rec + 4..rec + 8].copy_from_slice(&100_000u32.to_le_bytes());
    let e = xqf::read(&bad).unwrap_err();
    assert_eq!(e.offset, rec + 4, "{e}");
    // Two pieces on one square of a set-up position (type 2).
    let mut bad = xqf::write(&setup_game()).unwrap();
    assert_eq!(bad[0x40], 2);
    // Slot 4 is Red's king, slot 20 Black's.
    bad[0x10 + 20] = bad[0x10 + 4];
    let e = xqf::read(&bad).unwrap_err();
    assert!(e.what.contains("two pieces") && e.offset == 0x10, "{e}");
    // A whole game (type 0) starts from the standard position, as XQStudio
    // reads it, even when its header's pieces are damaged.
    let mut damaged = good.clone();
    damaged[0x11] = damaged[0x10];
    assert_eq!(xqf::read(&damaged).unwrap(), g);
    // Every single-byte change of the move section: an error or a game, never a panic.
    for i in 0x400..good.len() {
        for v in [0u8, 0x0F, 0xF0, 0xFF, good[i] ^ 0x55] {
            let mut b = good.clone();
            b[i] = v;
            let _ = xqf::read(&b);
        }
    }
    // Not XQF at all.
    assert_eq!(xqf::read(b"PK\x03\x04").unwrap_err().offset, 0);
}

#[test]
fn pgn_xqf_conversion_keeps_moves_and_comments() {
    for mut g in [sample_game(), setup_game()] {
        // A '}' is the one thing PGN cannot carry in a comment (see pgn_round_trip).
        for n in &mut g.moves {
            n.comment = n.comment.as_ref().map(|c| c.replace('}', ")"));
        }
        // PGN -> XQF -> PGN
        let text = pgn::write(std::slice::from_ref(&g));
        let from_pgn = pgn::read_str(&text).unwrap().remove(0);
        let via_xqf = xqf::read(&xqf::write(&from_pgn).unwrap()).unwrap();
        assert_eq!(via_xqf.moves, from_pgn.moves);
        assert_eq!(via_xqf.comment, from_pgn.comment);
        assert_eq!(via_xqf.start_fen, from_pgn.start_fen);
        assert_eq!(
            pgn::write(std::slice::from_ref(&via_xqf)),
            pgn::write(&[from_pgn])
        );
        // XQF -> PGN -> XQF gives the same bytes.
        let x1 = xqf::write(&g).unwrap();
        let back = pgn::read_str(&pgn::write(&[xqf::read(&x1).unwrap()]))
            .unwrap()
            .remove(0);
        assert_eq!(xqf::write(&back).unwrap(), x1);
    }
}

/// The real records in ElephantEye's repository (XQF of version 18 and
/// Chinese-notation GBK PGN). Not committed; run with
/// `CHUHE_RECORDS_DIR=/path/to/files cargo test --test records -- --ignored`.
#[test]
#[ignore]
fn local_real_records() {
    let dir = std::env::var("CHUHE_RECORDS_DIR").expect("set CHUHE_RECORDS_DIR");
    let mut ok = 0;
    let mut failed = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| record::Format::from_path(p).is_some())
        .collect();
    paths.sort();
    for p in &paths {
        match record::read_file(p) {
            Ok(games) => {
                ok += 1;
                for g in &games {
                    // Each reads back the same through both writers.
                    let again = xqf::read(&xqf::write(g).unwrap()).unwrap();
                    assert_eq!(again.moves, g.moves, "{}", p.display());
                }
            }
            Err(e) => failed.push(e.to_string()),
        }
    }
    println!("{ok} of {} read cleanly; failed: {failed:#?}", paths.len());
    // ElephantEye ships one game as both SAMPLE.XQF and SAMPLE.PGN (Chinese
    // notation): the two readers must agree on it.
    let (x, p) = (
        Path::new(&dir).join("SAMPLE.XQF"),
        Path::new(&dir).join("SAMPLE.PGN"),
    );
    if x.exists() && p.exists() {
        let gx = record::read_file(&x).unwrap().remove(0);
        let gp = record::read_file(&p).unwrap().remove(0);
        assert_eq!(gx.mainline(), gp.mainline());
        assert_eq!(gx.start_fen, gp.start_fen);
        println!(
            "SAMPLE.XQF and SAMPLE.PGN agree on {} moves",
            gx.moves.len()
        );
    }
    assert!(failed.is_empty());
}

/// Issue 50: a closing brace or bracket with nothing to close made the
/// tokenizer add an empty word without moving on, forever, growing its
/// token list until the system killed the process. Now each is an error at
/// its offset.
#[test]
fn pgn_stray_closing_brackets_are_errors() {
    for (text, at) in [
        ("}", 0),
        ("]", 0),
        ("1. h2e2 }", 8),
        ("1. h2e2 ] *", 8),
        ("[Event \"x\"]]\n1. h2e2 *", 11),
        ("1. h2e2 {ok}} h9g7", 12),
    ] {
        let e = pgn::read_str(text).unwrap_err();
        assert_eq!(e.offset, at, "{text:?}: {e}");
        assert!(e.what.contains('}') || e.what.contains(']'), "{e}");
        // The content sniffing of read_bytes (what convert, analyze and
        // book build call) takes the same path, whatever the extension says.
        for hint in [None, Some(record::Format::Pgn), Some(record::Format::Xqf)] {
            assert!(record::read_bytes(text.as_bytes(), hint).is_err());
        }
    }
}

/// Each move used to clone the position with its whole history, so a long
/// game read in time quadratic in its length (half a minute for 100,000
/// plies). Reading keeps no history now: linear time.
#[test]
fn long_games_read_in_linear_time() {
    let cycle = "h2e2 h9g7 e2h2 g7h9 ";
    let plies = 100_000;
    let text = format!("[Event \"long\"]\n{}*\n", cycle.repeat(plies / 4));
    let t0 = std::time::Instant::now();
    let mut g = pgn::read_str(&text).unwrap().remove(0);
    assert_eq!(g.moves.len(), plies);
    // A variation at every move of an XQF tree: each one's line used to
    // start from a clone of the main line's history.
    g.moves.truncate(20_000);
    for (i, n) in g.moves.iter_mut().enumerate() {
        let alt = if i % 2 == 0 { "b0c2" } else { "b9c7" };
        n.variations.push(vec![MoveNode::new(mv(alt))]);
    }
    let bytes = xqf::write(&g).unwrap();
    assert_eq!(xqf::read(&bytes).unwrap(), g);
    assert!(
        t0.elapsed() < std::time::Duration::from_secs(10),
        "took {:?}",
        t0.elapsed()
    );
}
