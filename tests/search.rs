//! Search behaviour through the public API: mates found with exact scores,
//! legal moves everywhere, TT-carried mates, a deterministic bench, stop,
//! ponder, banmoves and searchmoves.

use chuhe_core::board::{Move, PieceKind, Position};
use chuhe_core::search::{Limits, Score, SearchResult, Searcher};
use std::time::Duration;

fn engine() -> Searcher {
    let mut e = Searcher::new();
    e.set_hash_mb(8);
    e
}

fn search(e: &mut Searcher, pos: &Position, limits: Limits) -> SearchResult {
    e.go(pos, &limits, &mut |_| {})
}

fn depth(d: u32) -> Limits {
    Limits {
        depth: Some(d),
        ..Limits::default()
    }
}

/// Whether the side to move can leave the opponent without a legal move
/// (mate or stalemate, both wins) within `n` moves: a brute-force check of
/// the engine's mate distances.
fn wins_within(pos: &mut Position, n: u32) -> bool {
    if n == 0 {
        return false;
    }
    for mv in pos.legal_moves() {
        pos.make_move(mv);
        let replies = pos.legal_moves();
        let ok = replies.is_empty()
            || (n > 1
                && replies.iter().all(|&r| {
                    pos.make_move(r);
                    let w = wins_within(pos, n - 1);
                    pos.unmake_move();
                    w
                }));
        pos.unmake_move();
        if ok {
            return true;
        }
    }
    false
}

/// Checks the engine's mate score against brute force and plays its move.
fn assert_mate(fen: &str, n: i32) -> Position {
    let mut pos = Position::from_fen(fen).unwrap();
    assert!(wins_within(&mut pos, n as u32), "{fen}: no win in {n}");
    assert!(!wins_within(&mut pos, n as u32 - 1), "{fen}: shorter win");
    let r = search(&mut engine(), &pos, depth(2 * n as u32 + 3));
    assert_eq!(r.score, Score::Mate(n), "{fen}");
    let best = r.best.expect("a move");
    assert!(pos.legal_moves().contains(&best));
    pos.make_move(best);
    pos
}

#[test]
fn mate_in_one_by_rook() {
    let pos = assert_mate("3k5/9/9/9/9/9/9/9/9/2R1K4 w", 1);
    assert!(!pos.has_legal_move());
    assert!((pos.checkers() & pos.kind_bb(PieceKind::Rook)).any());
}

#[test]
fn mate_in_one_by_cannon() {
    // The knight on e7 is the screen and guards d9 and f9.
    let pos = assert_mate("4k4/9/4N4/9/9/9/C8/9/9/5K3 w", 1);
    assert!(!pos.has_legal_move());
    assert!((pos.checkers() & pos.kind_bb(PieceKind::Cannon)).any());
}

#[test]
fn mate_in_one_by_horse() {
    let pos = assert_mate("3aka3/9/4P4/9/2N6/9/9/9/9/4K4 w", 1);
    assert!(!pos.has_legal_move());
    assert!((pos.checkers() & pos.kind_bb(PieceKind::Knight)).any());
}

#[test]
fn stalemating_the_opponent_wins() {
    // No move checkmates here; a6c7 takes Black's last flight square.
    let fen = "2P1k1P2/9/9/N8/9/9/9/9/9/3K5 w";
    let mut pos = Position::from_fen(fen).unwrap();
    let mates = pos
        .legal_moves()
        .into_iter()
        .filter(|&m| {
            pos.make_move(m);
            let mate = pos.in_check() && !pos.has_legal_move();
            pos.unmake_move();
            mate
        })
        .count();
    assert_eq!(mates, 0);
    let pos = assert_mate(fen, 1);
    assert!(!pos.in_check());
    assert!(!pos.has_legal_move());
}

#[test]
fn mates_in_two_and_three() {
    assert_mate("3k5/9/9/9/9/9/9/9/9/R4K3 w", 2);
    assert_mate("4k4/9/9/9/9/9/9/9/9/R2K5 w", 2);
    assert_mate("4ka3/9/9/9/9/9/9/9/4C4/2R1K4 w", 3);
}

#[test]
fn no_legal_move_means_no_best_move() {
    // Black, to move, is stalemated: it has lost.
    let pos = Position::from_fen("2P1k1P2/9/2N6/9/9/9/9/9/9/3K5 b").unwrap();
    let r = search(&mut engine(), &pos, depth(3));
    assert_eq!(r.best, None);
    assert_eq!(r.score, Score::Mate(0));
}

#[test]
fn tt_keeps_mate_scores() {
    let pos = Position::from_fen("4ka3/9/9/9/9/9/9/9/4C4/2R1K4 w").unwrap();
    let mut e = engine();
    // Depth 10: with the network's move order the shortest mate (five
    // plies) is first proven at depth 9.
    let first = search(&mut e, &pos, depth(10));
    let second = search(&mut e, &pos, depth(10));
    assert_eq!(first.score, Score::Mate(3));
    assert_eq!(second.score, Score::Mate(3));
    assert!(
        second.nodes < first.nodes,
        "{} vs {}",
        second.nodes,
        first.nodes
    );
    // After the first move the mate is one move shorter, read from the TT.
    let mut after = pos.clone();
    after.make_move(first.best.unwrap());
    let reply = search(&mut e, &after, depth(6));
    assert_eq!(reply.score, Score::Mate(-2));
}

fn epd_fens() -> Vec<String> {
    let mut fens = Vec::new();
    for file in ["perft-classic.epd", "perft-random.epd"] {
        let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        fens.extend(
            text.lines()
                .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
                .map(|l| l.split(';').next().unwrap().trim().to_string()),
        );
    }
    fens
}

#[test]
fn always_a_legal_move_on_the_perft_positions() {
    let mut e = engine();
    for fen in epd_fens() {
        let pos = Position::from_fen(&fen).unwrap();
        let legal = pos.legal_moves();
        for limits in [
            depth(4),
            Limits {
                nodes: Some(300),
                ..Limits::default()
            },
        ] {
            let r = search(&mut e, &pos, limits);
            match r.best {
                Some(m) => assert!(legal.contains(&m), "{fen}: illegal {m}"),
                None => assert!(legal.is_empty(), "{fen}: no move returned"),
            }
            if let Some(p) = r.ponder {
                let mut after = pos.clone();
                after.make_move(r.best.unwrap());
                assert!(after.legal_moves().contains(&p), "{fen}: bad ponder {p}");
            }
        }
    }
}

#[test]
fn bench_is_deterministic_on_one_thread() {
    let a = chuhe::bench::run(None, 5, 1, 8, &mut |_| {});
    let b = chuhe::bench::run(None, 5, 1, 8, &mut |_| {});
    assert!(a.nodes > 10_000);
    assert_eq!(a.nodes, b.nodes);
}

#[test]
fn stop_from_another_thread_returns_a_legal_move() {
    let pos = Position::startpos();
    let mut e = engine();
    let handle = e.stop_handle();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        handle.stop();
    });
    let limits = Limits {
        infinite: true,
        ..Limits::default()
    };
    let r = search(&mut e, &pos, limits);
    stopper.join().unwrap();
    assert!(pos.legal_moves().contains(&r.best.unwrap()));
}

#[test]
fn stop_before_any_depth_still_gives_a_move() {
    let pos = Position::startpos();
    let mut e = engine();
    let r = search(
        &mut e,
        &pos,
        Limits {
            nodes: Some(1),
            ..Limits::default()
        },
    );
    assert!(pos.legal_moves().contains(&r.best.unwrap()));
}

#[test]
fn ponder_waits_for_ponderhit_then_runs_on_the_clock() {
    let pos = Position::startpos();
    let mut e = engine();
    let handle = e.stop_handle();
    let hitter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        handle.ponderhit();
    });
    let limits = Limits {
        ponder: true,
        depth: Some(2),
        movetime: Some(Duration::from_millis(50)),
        ..Limits::default()
    };
    // Depth 2 is done at once, but the answer must wait for the ponderhit.
    let r = search(&mut e, &pos, limits);
    assert!(hitter.is_finished());
    hitter.join().unwrap();
    assert!(pos.legal_moves().contains(&r.best.unwrap()));
}

/// `movetime` means think that long: not less (the start position has far
/// more to search than 100 ms allows), and not much more. The upper margin
/// is generous for a loaded machine; only a search that overran its hard
/// limit by a long way fails it.
#[test]
fn movetime_ends_the_search() {
    const MOVETIME: Duration = Duration::from_millis(100);
    const MARGIN: Duration = Duration::from_secs(1);
    let pos = Position::startpos();
    let mut e = engine();
    let t = std::time::Instant::now();
    let r = search(
        &mut e,
        &pos,
        Limits {
            movetime: Some(MOVETIME),
            ..Limits::default()
        },
    );
    let took = t.elapsed();
    eprintln!(
        "movetime {MOVETIME:?}: answered after {took:?} at depth {}",
        r.depth
    );
    assert!(took >= MOVETIME, "stopped early, after {took:?}");
    assert!(took < MOVETIME + MARGIN, "overran, {took:?}");
    assert!(r.depth >= 1);
    assert!(pos.legal_moves().contains(&r.best.unwrap()));
}

#[test]
fn banmoves_and_searchmoves_are_honoured() {
    // The mate e1e8 is banned: the engine must find another move.
    let pos = Position::from_fen("5k3/9/9/9/9/9/9/9/4R4/3K5 w").unwrap();
    let mate: Move = "e1e8".parse().unwrap();
    let mut e = engine();
    let r = search(
        &mut e,
        &pos,
        Limits {
            depth: Some(4),
            banmoves: vec![mate],
            ..Limits::default()
        },
    );
    assert_ne!(r.best, Some(mate));
    assert!(pos.legal_moves().contains(&r.best.unwrap()));
    let only: Move = "d0d1".parse().unwrap();
    let r = search(
        &mut e,
        &pos,
        Limits {
            depth: Some(4),
            searchmoves: vec![only],
            ..Limits::default()
        },
    );
    assert_eq!(r.best, Some(only));
}

#[test]
fn two_threads_find_the_mate() {
    let pos = Position::from_fen("4ka3/9/9/9/9/9/9/9/4C4/2R1K4 w").unwrap();
    let mut e = engine();
    e.set_threads(2);
    let r = search(&mut e, &pos, depth(10));
    assert_eq!(r.score, Score::Mate(3));
    assert!(pos.legal_moves().contains(&r.best.unwrap()));
}

#[test]
fn sudden_death_clock_gives_a_move() {
    let pos = Position::startpos();
    for (time, inc, mtg) in [(300, 0, None), (50, 10, Some(1)), (1, 0, None)] {
        let r = search(
            &mut engine(),
            &pos,
            Limits {
                time: Some(Duration::from_millis(time)),
                increment: Some(Duration::from_millis(inc)),
                movestogo: mtg,
                move_overhead: Duration::from_millis(10),
                ..Limits::default()
            },
        );
        assert!(pos.legal_moves().contains(&r.best.unwrap()));
    }
}

#[test]
fn game_history_with_a_cycle_is_searched() {
    // Red, a rook and a cannon down, and Black have shuffled their rooks
    // round a cycle (i9i8 a0a1 i8i9 a1a0) without checking or chasing, once
    // and nearly twice. With that history a1a0 brings the first position
    // back for the third time, an idle repetition the rules call a draw, and
    // the search takes it; from the same board without the history the draw
    // is not there and Red is worse (its best is to win a rook back with
    // a1a9+, leaving rook against rook and cannon).
    const FEN: &str = "3k4r/9/1c5r1/9/9/9/9/9/9/R3K4 b - - 0 1";
    let repeat: Move = "a1a0".parse().unwrap();
    let mut pos = Position::from_fen(FEN).unwrap();
    for mv in ["i9i8", "a0a1", "i8i9", "a1a0", "i9i8", "a0a1", "i8i9"] {
        pos.make_move(mv.parse().unwrap());
    }
    let fresh = Position::from_fen(&pos.fen()).unwrap();
    assert_eq!(fresh.key(), pos.key());

    let with_history = search(&mut engine(), &pos, depth(6));
    let without = search(&mut engine(), &fresh, depth(6));
    eprintln!("with the cycle: {with_history:?}; without: {without:?}");
    assert_eq!(
        (with_history.best, with_history.score),
        (Some(repeat), Score::Cp(0))
    );
    assert_ne!(without.best, Some(repeat));
    assert!(
        match without.score {
            Score::Cp(v) => v < -50,
            Score::Mate(n) => n < 0,
        },
        "{without:?}"
    );
}

/// The same shuffle once round (a0a1 i9i8 a1a0 i8i9): a0a1 brings a
/// position back, but only for the second time, and Black, far ahead, may
/// vary before the third. So the history offers Red no draw, and its best
/// and its score are those of the bare board.
#[test]
fn a_cycle_once_round_is_no_draw_yet() {
    const FEN: &str = "3k4r/9/1c5r1/9/9/9/9/9/9/R3K4 w - - 0 1";
    let mut pos = Position::from_fen(FEN).unwrap();
    for mv in ["a0a1", "i9i8", "a1a0", "i8i9"] {
        pos.make_move(mv.parse().unwrap());
    }
    let with_history = search(&mut engine(), &pos, depth(6));
    assert!(
        match with_history.score {
            Score::Cp(v) => v < -50,
            Score::Mate(n) => n < 0,
        },
        "{with_history:?}"
    );
}

/// Black's pawn shuffles on Red's third rank while Red's king walks to the
/// f-file. After `c3b3` Red mates in four whose first three moves are quiet
/// (e1d0, f0e1, e0f0, then f8f9), a mate a search can miss even at depth
/// 20: it must be seen from both sides and avoided.
///
/// The depths are what the search needs today, kept tight so that a change
/// that sees it later shows here: Red's proof needs depth 17 (748k nodes)
/// since the singular extensions, where it needed 12 (95k nodes) before
/// them; the negative extension searches Red's quiet first move a ply
/// shallower while it still looks merely good. Black's view came sooner
/// with them (depth 13 instead of 16).
#[test]
fn quiet_mate_in_four_is_seen_and_avoided() {
    let mut pos =
        Position::from_fen("3aka3/4n4/4b3b/p4P3/9/P1B1C4/5p3/4B4/4A4/3AK4 w - - 0 1").unwrap();
    for mv in "e4e6 f3e3 f6f7 i7g5 f7f8 e3f3 e2c0 g5i7 e1f2 f3e3 d0e1 e3d3 e1f0 d3e3 f2e1 \
               e3d3 c0e2 d3c3 c4a2"
        .split_whitespace()
    {
        let mv: Move = mv.parse().unwrap();
        assert!(pos.legal_moves().contains(&mv), "{mv}");
        pos.make_move(mv);
    }
    let blunder: Move = "c3b3".parse().unwrap();
    let mut e = engine();

    // Red, after the blunder: the shortest mate, exactly.
    pos.make_move(blunder);
    let r = search(&mut e, &pos, depth(17));
    assert_eq!(r.score, Score::Mate(4));
    pos.unmake_move();

    // Black, before it: the blunder is scored as mated and not chosen.
    e.new_game();
    let only = Limits {
        depth: Some(16),
        searchmoves: vec![blunder],
        ..Limits::default()
    };
    assert_eq!(search(&mut e, &pos, only).score, Score::Mate(-4));
    e.new_game();
    let r = search(&mut e, &pos, depth(16));
    assert_ne!(r.best, Some(blunder));
    assert!(matches!(r.score, Score::Cp(_)), "{:?}", r.score);
}

/// Multi-PV: the best N root moves, each a legal move once, scored best
/// first, and the first the move a single-PV search chooses at that depth.
#[test]
fn multipv_lines_are_distinct_sorted_and_led_by_the_single_pv_choice() {
    // (position, whether one move is clearly best there): the start
    // position's top moves are close, and which comes first may depend on
    // what the other lines left in the table.
    let fens = [
        (chuhe_core::board::START_FEN, false),
        // A free rook to take (i2a2), and a mate in one (b7b9).
        ("3k5/9/9/9/9/9/9/r7R/9/4K4 w - - 0 1", true),
        ("3k5/R8/1R7/9/9/9/9/9/9/4K4 w - - 0 1", true),
    ];
    for (fen, decisive) in fens {
        let pos = Position::from_fen(fen).unwrap();
        let single = search(&mut engine(), &pos, depth(7));
        for n in [2usize, 4] {
            let mut infos = Vec::new();
            let limits = Limits {
                depth: Some(7),
                multipv: n,
                ..Limits::default()
            };
            let r = engine().go(&pos, &limits, &mut |i| infos.push(i.clone()));
            let want = n.min(pos.legal_moves().len());
            assert_eq!(r.lines.len(), want, "{fen}");
            let firsts: Vec<Move> = r.lines.iter().map(|l| l.pv[0]).collect();
            for (i, m) in firsts.iter().enumerate() {
                assert!(pos.is_legal(*m), "{fen}: line {i} starts with {m}");
                assert!(!firsts[..i].contains(m), "{fen}: {m} twice");
            }
            let key = |s: Score| match s {
                Score::Mate(m) if m > 0 => 100_000 - m,
                Score::Mate(m) => -100_000 - m,
                Score::Cp(c) => c,
            };
            assert!(
                r.lines
                    .windows(2)
                    .all(|w| key(w[0].score) >= key(w[1].score)),
                "{fen}: lines not best first: {:?}",
                r.lines
            );
            assert_eq!(r.best, Some(firsts[0]), "{fen}");
            if decisive {
                assert_eq!(r.best, single.best, "{fen}: multipv {n} against one line");
            }
            // Every finished depth reports lines 1..=n in order.
            let last: Vec<u32> = infos
                .iter()
                .filter(|i| i.depth == r.depth)
                .filter_map(|i| i.multipv)
                .collect();
            assert_eq!(last, (1..=want as u32).collect::<Vec<_>>(), "{fen}");
        }
    }
}

/// Issue 24's game: Red's rook swings i2/h2 against the loose black
/// knights, round the cycle twice, so the position stands for the third
/// time. With the red knight f0 and cannon e0 both there, each swing
/// chases (the knight is won after the check Nf0-e2, seeds 29.1), so Red
/// must vary: swinging again (the move the referee would ban) loses, and
/// the search, given the game, scores that swing as the loss and plays
/// something else. With either piece gone the swings are idle and the same
/// cycle is a draw, never a loss: the search must not shun it for a reason
/// the rules do not give.
#[test]
fn the_search_scores_issue_24s_cycle_as_the_judge_does() {
    use chuhe_core::search::values::WIN_BOUND;
    let lost = |s: Score| match s {
        Score::Cp(v) => v <= -WIN_BOUND,
        Score::Mate(n) => n < 0,
    };
    let again: Move = "i2h2".parse().unwrap();
    for (fen, chase) in [
        ("2b1k4/7n1/8n/2r6/9/9/9/8R/3K5/4CN3 w - - 0 1", true),
        ("2b1k4/7n1/8n/2r6/9/9/9/8R/3K5/4C4 w - - 0 1", false),
        ("2b1k4/7n1/8n/2r6/9/9/9/8R/3K5/5N3 w - - 0 1", false),
    ] {
        let mut pos = Position::from_fen(fen).unwrap();
        for mv in "i2h2 c9a7 h2i2 a7c9 i2h2 c9a7 h2i2 a7c9".split_whitespace() {
            pos.make_move(mv.parse().unwrap());
        }
        let only_again = Limits {
            depth: Some(8),
            searchmoves: vec![again],
            ..Limits::default()
        };
        let r = search(&mut engine(), &pos, only_again);
        assert_eq!(lost(r.score), chase, "{fen}: i2h2 scores {:?}", r.score);
        if chase {
            let free = search(&mut engine(), &pos, depth(8));
            assert_ne!(free.best, Some(again), "{fen}: {free:?}");
            assert!(!lost(free.score), "{fen}: {free:?}");
        }
    }
}

/// A soft node limit (datagen's) ends the search on the first iteration
/// that finishes past it: the same tree, to the node, as a search to that
/// depth, where a hard limit would have stopped inside the iteration.
#[test]
fn a_soft_node_limit_ends_on_a_finished_iteration() {
    let pos = Position::from_fen(
        "r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R w - - 0 1",
    )
    .unwrap();
    let mut e = engine();
    let mut nodes_to = |d: u32| {
        e.new_game();
        search(&mut e, &pos, depth(d)).nodes
    };
    let soft = 30_000;
    let expect = (1..30).find(|&d| nodes_to(d) >= soft).unwrap();
    assert!(expect > 3, "the soft limit falls inside the tree: {expect}");
    let full = nodes_to(expect);
    let soft_only = Limits {
        soft_nodes: Some(soft),
        ..Limits::default()
    };
    e.new_game();
    let r = search(&mut e, &pos, soft_only.clone());
    assert_eq!((r.depth, r.nodes), (expect, full));
    // A hard limit short of that iteration's end still stops it.
    e.new_game();
    let capped = Limits {
        nodes: Some(full - 1),
        ..soft_only
    };
    let r = search(&mut e, &pos, capped);
    // The node that finds the limit reached is counted too.
    assert!(r.nodes <= full && r.depth < expect, "{r:?}");
}
