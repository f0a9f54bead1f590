//! One refereed game at a time against the scripted fake engine: every way a
//! game can end, and the protocol lines the runner sends.

use chuhe::matches::adjudication::ResignRule;
use chuhe::matches::openings::Opening;
use chuhe::matches::{
    EngineSpec, GameRecord, GameSettings, Protocol, Referee, RulesReferee, Termination,
};
use chuhe_core::board::{Color, Move, Position, START_FEN};
use chuhe_core::rules::{MustVary, Outcome, Reason, Verdict};

#[path = "support/match_fixture.rs"]
mod fixture;
use fixture::*;

fn scripted(name: &str, script: &str) -> EngineSpec {
    fake(name, &["--script", script])
}

fn settings(tc: &str) -> GameSettings {
    GameSettings {
        tc: tc.parse().unwrap(),
        margin_ms: 50,
        // Generous: only the tests of hanging engines wait this long.
        no_answer_ms: 5_000,
        max_plies: 40,
        ..GameSettings::default()
    }
}

fn opening_fen(fen: &str) -> Opening {
    Opening {
        name: "test".into(),
        fen: fen.into(),
        moves: Vec::new(),
    }
}

fn play(red: &EngineSpec, black: &EngineSpec, settings: &GameSettings) -> GameRecord {
    play_game(red, black, &Opening::startpos(), settings, &RulesReferee)
}

#[test]
fn checkmate_ends_the_game() {
    // Ra0-d0 mates: the black king on d9 cannot leave the d file (the e file faces the red king).
    let opening = opening_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1");
    let g = play_game(
        &scripted("mater", "a0d0"),
        &scripted("victim", "first"),
        &opening,
        &settings("depth=1"),
        &RulesReferee,
    );
    assert_eq!(g.outcome, Some(Outcome::RedWins));
    assert_eq!(g.termination, Termination::Rules(Reason::Checkmate));
    assert_eq!(g.moves.len(), 1);
    assert_eq!(g.moves[0].chinese, "车九平六");
}

#[test]
fn crash_loses() {
    let g = play(
        &scripted("r", "h2e2"),
        &scripted("b", "crash"),
        &settings("depth=1"),
    );
    assert_eq!(g.outcome, Some(Outcome::RedWins));
    assert_eq!(g.termination, Termination::Crash { side: Color::Black });
    assert_eq!(g.moves.len(), 1);
}

#[test]
fn hang_under_depth_is_no_answer() {
    let g = play(
        &scripted("r", "hang"),
        &scripted("b", "first"),
        &GameSettings {
            no_answer_ms: 300,
            ..settings("depth=3")
        },
    );
    assert_eq!(g.outcome, Some(Outcome::BlackWins));
    assert_eq!(g.termination, Termination::NoAnswer { side: Color::Red });
}

#[test]
fn slow_and_hung_engines_lose_on_time() {
    // 1 s for the game, 50 ms margin: a 3 s move and a hang both flag, while
    // the instant answers of the other side stay far inside the clock.
    let s = settings("1");
    let g = play(&scripted("r", "first"), &scripted("b", "first@3000"), &s);
    assert_eq!(
        g.termination,
        Termination::TimeForfeit { side: Color::Black }
    );
    assert_eq!(g.outcome, Some(Outcome::RedWins));
    let g = play(&scripted("r", "hang"), &scripted("b", "first"), &s);
    assert_eq!(g.termination, Termination::TimeForfeit { side: Color::Red });
    let g = play(
        &scripted("r", "first@3000"),
        &scripted("b", "first"),
        &settings("movetime=0.5"),
    );
    assert_eq!(g.termination, Termination::TimeForfeit { side: Color::Red });
}

#[test]
fn illegal_and_missing_moves_lose() {
    let s = settings("depth=1");
    let g = play(&scripted("r", "e0e2"), &scripted("b", "first"), &s);
    assert_eq!(g.outcome, Some(Outcome::BlackWins));
    assert_eq!(
        g.termination,
        Termination::IllegalMove {
            side: Color::Red,
            text: "e0e2".into()
        }
    );
    let g = play(&scripted("r", "h2e2"), &scripted("b", "garbage"), &s);
    assert_eq!(
        g.termination,
        Termination::IllegalMove {
            side: Color::Black,
            text: "garbage".into()
        }
    );
    let g = play(&scripted("r", "(none)"), &scripted("b", "first"), &s);
    assert_eq!(g.termination, Termination::NoMove { side: Color::Red });
}

#[test]
fn resignation_loses() {
    let g = play(
        &scripted("r", "h2e2"),
        &scripted("b", "first+resign"),
        &settings("depth=1"),
    );
    assert_eq!(g.outcome, Some(Outcome::RedWins));
    assert_eq!(g.termination, Termination::Resign { side: Color::Black });
}

#[test]
fn nodes_and_speed_go_into_the_pgn() {
    // Red reports nodes ElephantEye's way (time and nodes, no nps), 60000
    // nodes in its own 20 ms: 3 M nodes/s. Black reports no counters.
    let mut s = settings("depth=1");
    s.max_plies = 4;
    let g = play(
        &fake(
            "counter",
            &["--script", "first@20", "--cycle", "--nodes", "60000"],
        ),
        &scripted("quiet", "first"),
        &s,
    );
    assert_eq!(g.termination, Termination::MaxPlies);
    let red = &g.moves[0];
    assert_eq!((red.nodes, red.nps), (Some(60_000), Some(3_000_000)));
    let black = &g.moves[1];
    assert_eq!((black.nodes, black.nps), (None, None));
    let header = chuhe::matches::pgn::PgnHeader {
        event: "e",
        site: "s",
        date: "2026.01.01",
        round: 1,
        time_control: ["depth=1"; 2],
    };
    let text = chuhe::matches::pgn::format_game(&g, &header);
    assert!(text.contains(" nodes 60000 nps 3000000"), "{text}");
    assert_eq!(text.matches(" nodes ").count(), 2, "{text}");
}

#[test]
fn draw_offer_needs_acceptance() {
    let s = settings("depth=1");
    let log = temp_log("draw");
    let accepting = fake("b", &["--accept-draw", "--log", &log]);
    let g = play(&scripted("r", "h2e2+draw"), &accepting, &s);
    assert_eq!(g.outcome, Some(Outcome::Draw));
    assert_eq!(g.termination, Termination::DrawAgreed);
    assert_eq!(g.moves.len(), 1);
    assert!(g.moves[0].draw_offer);
    let sent = std::fs::read_to_string(&log).unwrap();
    assert!(
        sent.lines().any(|l| l.starts_with("go draw depth 1")),
        "{sent}"
    );
    let _ = std::fs::remove_file(&log);

    // Declined (no draw in the answer): the game goes on to the move cap.
    let mut s = s;
    s.max_plies = 6;
    let g = play(&scripted("r", "h2e2+draw"), &scripted("b", "first"), &s);
    assert_eq!(g.termination, Termination::MaxPlies);
    assert_eq!(g.moves.len(), 6);
    // The PGN shows the offer that was declined.
    let offers: Vec<bool> = g.moves.iter().map(|m| m.draw_offer).collect();
    assert_eq!(offers, [true, false, false, false, false, false]);
}

#[test]
fn score_adjudication() {
    let mut s = settings("depth=1");
    s.adjudication.resign = Some(ResignRule {
        score_cp: 500,
        moves: 3,
    });
    let g = play(
        &fake("r", &["--score", "-700"]),
        &fake("b", &["--score", "800"]),
        &s,
    );
    assert_eq!(g.outcome, Some(Outcome::BlackWins));
    assert_eq!(
        g.termination,
        Termination::AdjudicatedWin {
            winner: Color::Black
        }
    );
    assert_eq!(g.moves.len(), 6);
}

/// Delegates to the rules, but rules "Red must not play `banned`" from ply 4
/// on, so the must-vary path can be driven before the full judge exists.
struct BanAfter {
    banned: Move,
}

impl Referee for BanAfter {
    fn judge(&self, pos: &Position) -> Option<Verdict> {
        RulesReferee.judge(pos)
    }
    fn must_vary(&self, pos: &Position) -> Option<MustVary> {
        (pos.history().len() >= 4 && pos.side_to_move() == Color::Red).then_some(MustVary {
            side: Color::Red,
            banned: self.banned,
        })
    }
}

#[test]
fn must_vary_sends_banmoves_and_repeating_loses() {
    let referee = BanAfter {
        banned: "h2e2".parse().unwrap(),
    };
    let s = settings("depth=1");
    let cycle_black = fake("b", &["--cycle", "--script", "h9g7 g7h9"]);
    // UCCI: told `banmoves h2e2`, repeats it anyway, and loses.
    let log = temp_log("ban-ucci");
    let red = fake(
        "r",
        &[
            "--proto",
            "ucci",
            "--cycle",
            "--script",
            "h2e2 e2h2",
            "--log",
            &log,
        ],
    );
    let g = play_game(&red, &cycle_black, &Opening::startpos(), &s, &referee);
    assert_eq!(
        g.termination,
        Termination::BannedMove {
            side: Color::Red,
            mv: "h2e2".parse().unwrap()
        }
    );
    assert_eq!(g.outcome, Some(Outcome::BlackWins));
    let sent = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = sent.lines().collect();
    let ban = lines
        .iter()
        .position(|l| *l == "banmoves h2e2")
        .expect("banmoves sent");
    assert!(
        lines[ban + 1].starts_with("go "),
        "banmoves right before go"
    );
    let _ = std::fs::remove_file(&log);

    // UCI: the ban travels as searchmoves without h2e2; an obedient engine plays on.
    let log = temp_log("ban-uci");
    let mut red = fake(
        "r",
        &[
            "--proto",
            "uci",
            "--cycle",
            "--obey-ban",
            "--script",
            "h2e2 e2h2",
            "--log",
            &log,
        ],
    );
    red.proto = Protocol::Uci;
    let mut s = s;
    s.max_plies = 5;
    let g = play_game(&red, &cycle_black, &Opening::startpos(), &s, &referee);
    assert_eq!(g.termination, Termination::MaxPlies);
    assert_ne!(g.moves[4].mv.to_string(), "h2e2");
    let sent = std::fs::read_to_string(&log).unwrap();
    let go = sent
        .lines()
        .find(|l| l.contains("searchmoves"))
        .expect("searchmoves sent");
    assert!(!go.contains("h2e2"));
    assert!(go.contains("h0g2"));
    let _ = std::fs::remove_file(&log);
}

#[test]
fn ucci_clock_and_position_after_capture() {
    let log_b = temp_log("ucci-b");
    let log_r = temp_log("ucci-r");
    let mut red = fake("r", &["--script", "h2h9", "--log", &log_r]);
    red.proto = Protocol::Ucci;
    let mut black = fake("b", &["--log", &log_b]);
    black.proto = Protocol::Auto;
    let mut s = settings("10+0.1");
    s.max_plies = 3;
    let g = play(&red, &black, &s);
    assert_eq!(g.termination, Termination::MaxPlies);
    assert_eq!(g.moves[0].chinese, "炮二进七");

    let mut after = Position::startpos();
    after.make_move("h2h9".parse().unwrap());
    let sent_b = std::fs::read_to_string(&log_b).unwrap();
    assert!(sent_b.lines().any(|l| l == "setoption usemillisec true"));
    assert!(
        sent_b
            .lines()
            .any(|l| l == format!("position fen {}", after.fen())),
        "{sent_b}"
    );
    let go = sent_b.lines().find(|l| l.starts_with("go ")).unwrap();
    let w: Vec<&str> = go.split_whitespace().collect();
    assert_eq!(w[1], "time");
    let t: u64 = w[2].parse().unwrap();
    assert!(t <= 10_000 && t > 5_000);
    assert_eq!(&w[3..5], ["increment", "100"]);
    assert_eq!(w[5], "opptime");
    assert_eq!(&w[7..], ["oppincrement", "100"]);

    let sent_r = std::fs::read_to_string(&log_r).unwrap();
    let positions: Vec<&str> = sent_r
        .lines()
        .filter(|l| l.starts_with("position"))
        .collect();
    assert_eq!(positions[0], format!("position fen {START_FEN}"));
    let black_move = g.moves[1].mv;
    assert_eq!(
        positions[1],
        format!("position fen {} moves {black_move}", after.fen())
    );
    for f in [log_b, log_r] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn ucci_without_usemillisec_gets_seconds() {
    let log = temp_log("seconds");
    let mut red = fake("r", &["--proto", "ucci", "--no-millis", "--log", &log]);
    red.proto = Protocol::Ucci;
    let mut s = settings("10+1.5");
    s.max_plies = 1;
    let g = play(&red, &fake("b", &[]), &s);
    assert_eq!(g.termination, Termination::MaxPlies);
    let sent = std::fs::read_to_string(&log).unwrap();
    assert!(!sent.contains("usemillisec"), "{sent}");
    let go = sent.lines().find(|l| l.starts_with("go")).unwrap();
    assert_eq!(go, "go time 10 increment 1 opptime 10 oppincrement 1");
    let _ = std::fs::remove_file(&log);
}

#[test]
fn uci_gets_whole_game_and_white_black_clocks() {
    let log = temp_log("uci");
    let mut red = fake("r", &["--proto", "uci", "--script", "h2h9", "--log", &log]);
    red.proto = Protocol::Auto; // detected: no ucciok, then uciok
    let black = fake("b", &[]);
    let mut s = settings("40/60,10/15+0");
    s.max_plies = 3;
    let g = play(&red, &black, &s);
    assert_eq!(g.termination, Termination::MaxPlies);
    let sent = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = sent.lines().collect();
    assert_eq!(lines[0], "ucci");
    assert!(lines.contains(&"uci"));
    assert!(lines.contains(&"ucinewgame"));
    let positions: Vec<&&str> = lines.iter().filter(|l| l.starts_with("position")).collect();
    assert_eq!(
        *positions[1],
        format!("position fen {START_FEN} moves h2h9 {}", g.moves[1].mv)
    );
    let go: Vec<&str> = lines
        .iter()
        .rfind(|l| l.starts_with("go"))
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(go[1], "wtime");
    assert_eq!(go[3], "btime");
    assert_eq!(&go[5..], ["winc", "0", "binc", "0", "movestogo", "39"]);
    let _ = std::fs::remove_file(&log);
}

#[test]
fn time_odds_give_each_side_its_own_clock() {
    // Red plays at twice Black's time (the match's 10+0.1 against its own
    // 20+0.2): each is told its own clock and the other's.
    let (log_r, log_b) = (temp_log("odds-r"), temp_log("odds-b"));
    let mut red = fake("r", &["--proto", "ucci", "--log", &log_r]);
    red.proto = Protocol::Ucci;
    red.tc = Some("20+0.2".parse().unwrap());
    let mut black = fake("b", &["--proto", "uci", "--log", &log_b]);
    black.proto = Protocol::Uci;
    let mut s = settings("10+0.1");
    s.max_plies = 4;
    let g = play(&red, &black, &s);
    assert_eq!(g.termination, Termination::MaxPlies);
    let go_words = |log: &str| -> Vec<Vec<String>> {
        std::fs::read_to_string(log)
            .unwrap()
            .lines()
            .filter(|l| l.starts_with("go"))
            .map(|l| l.split_whitespace().map(str::to_string).collect())
            .collect()
    };
    let number = |w: &[String], key: &str| -> u64 {
        let i = w.iter().position(|x| x == key).unwrap();
        w[i + 1].parse().unwrap()
    };
    let red_go = go_words(&log_r);
    assert_eq!(red_go.len(), 2);
    for w in &red_go {
        // 20 s against 10 s, give or take the increments and the moves' time.
        assert!(number(w, "time") > 15_000, "{w:?}");
        assert_eq!(number(w, "increment"), 200);
        assert!(number(w, "opptime") < 15_000, "{w:?}");
        assert_eq!(number(w, "oppincrement"), 100);
    }
    let black_go = go_words(&log_b);
    assert_eq!(black_go.len(), 2);
    for w in &black_go {
        assert!(number(w, "wtime") > 15_000, "{w:?}");
        assert!(number(w, "btime") < 15_000, "{w:?}");
        assert_eq!((number(w, "winc"), number(w, "binc")), (200, 100));
    }
    for f in [log_r, log_b] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn a_side_at_a_fixed_depth_against_a_clock() {
    // Odds of another kind: Black searches to depth 3 whatever the clock
    // says; Red keeps the match's clock and is not told of a clock Black
    // does not have.
    let (log_r, log_b) = (temp_log("depth-r"), temp_log("depth-b"));
    let mut red = fake("r", &["--proto", "ucci", "--log", &log_r]);
    red.proto = Protocol::Ucci;
    let mut black = fake("b", &["--proto", "ucci", "--log", &log_b]);
    black.proto = Protocol::Ucci;
    black.tc = Some("depth=3".parse().unwrap());
    let mut s = settings("10+0.1");
    s.max_plies = 2;
    let g = play(&red, &black, &s);
    assert_eq!(g.termination, Termination::MaxPlies);
    let first_go = |log: &str| {
        std::fs::read_to_string(log)
            .unwrap()
            .lines()
            .find(|l| l.starts_with("go"))
            .unwrap()
            .to_string()
    };
    assert_eq!(first_go(&log_b), "go depth 3");
    let red_go = first_go(&log_r);
    assert!(red_go.starts_with("go time "), "{red_go}");
    assert!(red_go.ends_with(" increment 100"), "{red_go}");
    for f in [log_r, log_b] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn engine_that_cannot_start_loses() {
    let missing = EngineSpec::new("ghost", "/nonexistent/engine");
    let g = play(&scripted("r", "first"), &missing, &settings("depth=1"));
    assert_eq!(g.outcome, Some(Outcome::RedWins));
    assert!(matches!(
        g.termination,
        Termination::StartFailure {
            side: Color::Black,
            ..
        }
    ));
}

/// Red checks along ranks 9 and 8 for ever; Black's king shuttles d9-d8.
/// Under the seeds' rules the perpetual checker loses at the third occurrence.
#[test]
fn perpetual_check_loses() {
    let opening = opening_fen("3k5/9/R8/9/9/9/9/9/9/4K4 w - - 0 1");
    let red = scripted(
        "r",
        "a7a9 a9a8 a8a9 a9a8 a8a9 a9a8 a8a9 a9a8 a8a9 a9a8 a8a9",
    );
    let black = fake("b", &["--cycle", "--script", "d9d8 d8d9"]);
    let mut s = settings("depth=1");
    s.max_plies = 60;
    let g = play_game(&red, &black, &opening, &s, &RulesReferee);
    assert_eq!(g.outcome, Some(Outcome::BlackWins));
    assert_eq!(g.termination, Termination::Rules(Reason::PerpetualCheck));
    assert!(g.moves.len() <= 12);
}

/// 长杀 by Red (tests/rules_classify.rs): at the third occurrence Red is not
/// forfeited but told to vary (`banmoves i1i2`); repeating anyway loses,
/// varying plays on. Ending the game at the third occurrence would forfeit
/// an engine that does not know these rules (ElephantEye) without warning.
#[test]
fn perpetual_attack_must_vary_before_it_loses() {
    let opening = opening_fen("5k3/9/9/9/9/9/9/9/6r1R/4K4 w - - 0 1");
    let black = fake("b", &["--cycle", "--script", "g1g2 g2g1"]);
    let mut s = settings("depth=1");
    s.max_plies = 30;
    let banned: Move = "i1i2".parse().unwrap();

    let log = temp_log("perpetual-attack-repeats");
    let red = fake(
        "r",
        &[
            "--proto",
            "ucci",
            "--cycle",
            "--script",
            "i1i2 i2i1",
            "--log",
            &log,
        ],
    );
    let g = play_game(&red, &black, &opening, &s, &RulesReferee);
    let sent = std::fs::read_to_string(&log).unwrap();
    let _ = std::fs::remove_file(&log);
    assert!(sent.lines().any(|l| l == "banmoves i1i2"), "{sent}");
    assert_eq!(g.moves.len(), 9, "the banned move was played, then judged");
    assert_eq!(g.moves[8].mv, banned);
    assert_eq!(g.outcome, Some(Outcome::BlackWins));
    assert_eq!(g.termination, Termination::Rules(Reason::PerpetualAttack));

    let red = fake(
        "r",
        &[
            "--proto",
            "ucci",
            "--cycle",
            "--script",
            "i1i2 i2i1",
            "--obey-ban",
        ],
    );
    let g = play_game(&red, &black, &opening, &s, &RulesReferee);
    assert!(g.moves.len() > 8, "{:?}", g.termination);
    assert_ne!(g.moves[8].mv, banned);
    assert_ne!(g.termination, Termination::Rules(Reason::PerpetualAttack));
}
