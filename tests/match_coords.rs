//! The match runner against engines that number ranks 1-10 (Fairy-Stockfish
//! in UCI) and against engines that answer `nobestmove`, with the scripted
//! fake engine speaking each convention.

use chuhe::matches::engine::Coords;
use chuhe::matches::openings::Opening;
use chuhe::matches::pgn::{format_game, PgnHeader};
use chuhe::matches::{
    EngineSpec, GameRecord, GameSettings, Protocol, Referee, RulesReferee, Termination,
};
use chuhe_core::board::{Color, Move, Position, START_FEN};
use chuhe_core::rules::{MustVary, Outcome, Verdict};

#[path = "support/match_fixture.rs"]
mod fixture;
use fixture::*;

/// A game from the start position.
fn play_with(
    red: &EngineSpec,
    black: &EngineSpec,
    settings: &GameSettings,
    referee: &dyn Referee,
) -> GameRecord {
    play_game(red, black, &Opening::startpos(), settings, referee)
}

fn pgn(g: &GameRecord) -> String {
    format_game(
        g,
        &PgnHeader {
            event: "E",
            site: "S",
            date: "2026.01.01",
            round: 1,
            time_control: ["-"; 2],
        },
    )
}

fn mv(s: &str) -> Move {
    s.parse().unwrap()
}

/// A UCI engine writing ranks 1-10, as Red: its first move is the central
/// cannon `h3e3` (UCCI `h2e2`); then it plays its first legal move.
fn fairy(log: &str, extra: &[&str]) -> EngineSpec {
    let mut args = vec![
        "--proto",
        "uci",
        "--ranks-from-one",
        "--script",
        "h3e3",
        "--log",
        log,
    ];
    args.extend_from_slice(extra);
    let mut e = fake("fairy", &args);
    e.proto = Protocol::Uci;
    e
}

/// Plays four plies with `red` against a 0-9 UCCI engine and checks that
/// every move went both ways in the right convention.
fn assert_translated(red: &EngineSpec, log: &str) {
    let g = play_with(
        red,
        &fake("b", &["--proto", "ucci"]),
        &settings("depth=1", 4),
        &RulesReferee,
    );
    assert_eq!(g.termination, Termination::MaxPlies, "{g:?}");
    assert_eq!(g.moves[0].mv, mv("h2e2"));
    // Black's reply (a 0-9 engine's) reached Red written in 1-10.
    let b1 = g.moves[1].mv;
    let r2 = g.moves[2].mv;
    let sent = std::fs::read_to_string(log).unwrap();
    let positions: Vec<&str> = sent.lines().filter(|l| l.starts_with("position")).collect();
    let plus_one = |m: Move| {
        let s = m.to_string();
        let b = s.as_bytes();
        format!(
            "{}{}{}{}",
            b[0] as char,
            b[1] - b'0' + 1,
            b[2] as char,
            b[3] - b'0' + 1
        )
    };
    assert_eq!(positions[0], format!("position fen {START_FEN}"));
    assert_eq!(
        positions[1],
        format!("position fen {START_FEN} moves h3e3 {}", plus_one(b1))
    );
    // Red's own PV and ponder move came back in 0-9: the reply it expects is
    // a legal Black move after h2e2.
    let pv = &g.moves[0].pv;
    assert_eq!(pv.len(), 2, "{pv:?}");
    assert_eq!(pv[0], mv("h2e2"));
    let mut after = Position::startpos();
    after.make_move(pv[0]);
    assert!(after.legal_moves().contains(&pv[1]));
    assert_eq!(g.moves[2].pv[0], r2);
    let text = pgn(&g);
    assert!(text.contains(&format!("pv h2e2 {}", pv[1])), "{text}");
    let _ = std::fs::remove_file(log);
}

#[test]
fn auto_coords_read_ranks_from_one_when_uci_variant_is_announced() {
    let log = temp_log("auto");
    assert_translated(&fairy(&log, &["--variant-option"]), &log);
}

#[test]
fn explicit_coords_one_needs_no_announcement() {
    let log = temp_log("one");
    let mut red = fairy(&log, &[]);
    red.coords = Coords::One;
    assert_translated(&red, &log);
}

/// Controls: the same engine read as 0-9 (explicitly, or by `auto` without
/// the option) plays `h3e3`, which is no move on the board: it forfeits.
#[test]
fn ranks_from_one_read_as_zero_is_an_illegal_move() {
    for (coords, extra) in [
        (Coords::Zero, &["--variant-option"][..]),
        (Coords::Auto, &[]),
    ] {
        let log = temp_log("zero");
        let mut red = fairy(&log, extra);
        red.coords = coords;
        let g = play_with(
            &red,
            &fake("b", &[]),
            &settings("depth=1", 4),
            &RulesReferee,
        );
        assert_eq!(
            g.termination,
            Termination::IllegalMove {
                side: Color::Red,
                text: "h3e3".into()
            }
        );
        let _ = std::fs::remove_file(&log);
    }
}

/// A 0-9 engine with `coords = 1` forced on it is misread the other way:
/// the check that the setting is really applied to what the engine writes.
#[test]
fn zero_based_engine_read_as_one_is_an_illegal_move() {
    let mut red = fake("r", &["--proto", "uci", "--script", "h2e2"]);
    red.proto = Protocol::Uci;
    red.coords = Coords::One;
    let g = play_with(
        &red,
        &fake("b", &[]),
        &settings("depth=1", 4),
        &RulesReferee,
    );
    // h2e2 read as 1-10 is h1e1: the red rank-1 points are empty.
    assert!(
        matches!(
            g.termination,
            Termination::IllegalMove {
                side: Color::Red,
                ..
            }
        ),
        "{:?}",
        g.termination
    );
}

/// Bans Red's `e2h2` (the cannon going back) whenever Red is to move from ply 2 on.
struct BanCannon;

impl Referee for BanCannon {
    fn judge(&self, pos: &Position) -> Option<Verdict> {
        RulesReferee.judge(pos)
    }
    fn must_vary(&self, pos: &Position) -> Option<MustVary> {
        (pos.history().len() >= 2 && pos.side_to_move() == Color::Red).then_some(MustVary {
            side: Color::Red,
            banned: mv("e2h2"),
        })
    }
}

/// `searchmoves` (UCI) and `banmoves` (UCCI) in the engine's convention.
#[test]
fn bans_travel_in_the_engines_convention() {
    let log = temp_log("ban");
    // Red: h2e2, then it wants e2h2 back (written e3h3) but obeys the ban.
    let mut red = fake(
        "fairy",
        &[
            "--proto",
            "uci",
            "--ranks-from-one",
            "--variant-option",
            "--obey-ban",
            "--script",
            "h3e3 e3h3",
            "--log",
            &log,
        ],
    );
    red.proto = Protocol::Uci;
    let g = play_with(&red, &fake("b", &[]), &settings("depth=1", 4), &BanCannon);
    assert_eq!(g.termination, Termination::MaxPlies);
    assert_ne!(g.moves[2].mv, mv("e2h2"));
    let sent = std::fs::read_to_string(&log).unwrap();
    let go = sent
        .lines()
        .find(|l| l.contains("searchmoves"))
        .expect("searchmoves sent");
    let allowed: Vec<&str> = go
        .split_whitespace()
        .skip_while(|w| *w != "searchmoves")
        .collect();
    // The rook a0-a1 is `a1a2` in 1-10; the banned e2h2 (e3h3) is absent.
    assert!(allowed.contains(&"a1a2"), "{go}");
    assert!(!allowed.contains(&"a0a1"), "{go}");
    assert!(!allowed.contains(&"e3h3"), "{go}");
    let _ = std::fs::remove_file(&log);

    // UCCI with coords=1 forced: the ban line is written in 1-10 too.
    let log = temp_log("ban-ucci");
    let mut red = fake(
        "r",
        &[
            "--proto",
            "ucci",
            "--ranks-from-one",
            "--obey-ban",
            "--script",
            "h3e3 e3h3",
            "--log",
            &log,
        ],
    );
    red.coords = Coords::One;
    let g = play_with(&red, &fake("b", &[]), &settings("depth=1", 4), &BanCannon);
    assert_eq!(g.termination, Termination::MaxPlies);
    assert_ne!(g.moves[2].mv, mv("e2h2"));
    let sent = std::fs::read_to_string(&log).unwrap();
    assert!(sent.lines().any(|l| l == "banmoves e3h3"), "{sent}");
    let _ = std::fs::remove_file(&log);
}

/// `nobestmove` with legal moves on the board: the record names it, keeps
/// the position and the engine's last lines, and tells it apart from the
/// engine that says nothing until its flag falls and the one that dies.
#[test]
fn nobestmove_is_recorded_with_position_and_last_lines() {
    let red = fake("r", &["--script", "h2e2 none"]);
    let g = play_with(
        &red,
        &fake("b", &[]),
        &settings("depth=1", 10),
        &RulesReferee,
    );
    let mut pos = Position::startpos();
    for m in &g.moves {
        pos.make_move(m.mv);
    }
    assert_eq!(g.moves.len(), 2);
    assert_eq!(g.outcome, Some(Outcome::BlackWins));
    let Termination::NoBestMove {
        side,
        fen,
        last_lines,
    } = &g.termination
    else {
        panic!("{:?}", g.termination);
    };
    assert_eq!(*side, Color::Red);
    assert_eq!(*fen, pos.fen());
    assert!(pos.has_legal_move());
    assert_eq!(
        last_lines[last_lines.len() - 2..],
        [
            "info string giving up".to_string(),
            "nobestmove".to_string()
        ]
    );
    let text = pgn(&g);
    assert!(
        text.contains("[Termination \"Red answered nobestmove\"]"),
        "{text}"
    );
    assert!(text.contains("{Red answered nobestmove}"), "{text}");
    assert!(
        text.contains(&format!("{{position {fen}; last lines: ")),
        "{text}"
    );
    assert!(
        text.contains("info string giving up | nobestmove}"),
        "{text}"
    );

    // Silent until the flag falls: a time forfeit, no nobestmove.
    let g = play_with(
        &fake("r", &["--script", "hang"]),
        &fake("b", &[]),
        &settings("1+0", 10),
        &RulesReferee,
    );
    assert_eq!(g.termination, Termination::TimeForfeit { side: Color::Red });
    // Dies: a crash.
    let g = play_with(
        &fake("r", &["--script", "crash"]),
        &fake("b", &[]),
        &settings("depth=1", 10),
        &RulesReferee,
    );
    assert_eq!(g.termination, Termination::Crash { side: Color::Red });
    assert!(!pgn(&g).contains("last lines"));
}
