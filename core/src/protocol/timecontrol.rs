//! Turning `go` parameters into search `Limits`: UCCI seconds or
//! milliseconds, UCI white/black clocks, all become durations for the side to
//! move and its opponent.

use super::command::GoParams;
use super::Words;
use crate::board::{Color, Move};
use crate::search::Limits;
use std::time::Duration;

/// The deepest search asked for by depth (mate distances too): the search's
/// own limit, so that a deeper request is capped with a note rather than
/// silently by the search.
pub use crate::search::MAX_DEPTH;

/// Clocks over this are taken as this (about eleven days).
const MAX_CLOCK_MS: f64 = 1.0e9;

/// What a `go` whose every limit was unusable does instead: a short search,
/// so a GUI waiting for `bestmove` gets one quickly.
pub const FALLBACK_MOVETIME_MS: u64 = 100;

pub struct Context {
    /// The dialect's words: the unit of its clocks.
    pub words: &'static Words,
    pub usemillisec: bool,
    pub side: Color,
    pub move_overhead_ms: u64,
    /// Lines the search reports (`multipv`).
    pub multipv: usize,
}

/// The limits for one search, with notes on what was corrected.
pub fn limits(go: &GoParams, ctx: &Context, banmoves: &[Move]) -> (Limits, Vec<String>) {
    let mut notes = Vec::new();
    // UCCI clocks are seconds unless `usemillisec`; UCI ones are always ms.
    let ucci_unit = if ctx.words.clock_in_seconds && !ctx.usemillisec {
        1000.0
    } else {
        1.0
    };
    let ucci = |t: Option<f64>| t.map(|t| ms(t * ucci_unit));
    let uci = |t: Option<f64>| t.map(ms);
    let (w_time, b_time, w_inc, b_inc) = (uci(go.wtime), uci(go.btime), uci(go.winc), uci(go.binc));
    let (my_time, op_time, my_inc, op_inc) = match ctx.side {
        Color::Red => (w_time, b_time, w_inc, b_inc),
        Color::Black => (b_time, w_time, b_inc, w_inc),
    };
    let mut limits = Limits {
        time: ucci(go.time).or(my_time),
        increment: ucci(go.increment).or(my_inc),
        opptime: ucci(go.opptime).or(op_time),
        oppincrement: ucci(go.oppincrement).or(op_inc),
        movetime: uci(go.movetime),
        movestogo: go.movestogo.map(|n| n.clamp(1, u32::MAX as u64) as u32),
        nodes: go.nodes.map(|n| n.max(1)),
        // The protocols' `go nodes` is the hard limit GUIs expect.
        soft_nodes: None,
        mate: go.mate.map(|n| n.clamp(1, MAX_DEPTH as u64) as u32),
        infinite: go.infinite,
        ponder: go.ponder,
        searchmoves: go.searchmoves.clone(),
        banmoves: banmoves.to_vec(),
        move_overhead: Duration::from_millis(ctx.move_overhead_ms),
        depth: None,
        multipv: ctx.multipv,
    };
    if go.movestogo == Some(0) {
        notes.push("movestogo 0 taken as 1".to_string());
    }
    if let Some(d) = go.depth {
        if d == 0 {
            notes.push("depth 0 taken as 1".to_string());
        } else if d > MAX_DEPTH as u64 {
            notes.push(format!("depth {d} capped at {MAX_DEPTH}"));
        }
        limits.depth = Some(d.clamp(1, MAX_DEPTH as u64) as u32);
    }
    let usable = limits.depth.is_some()
        || limits.nodes.is_some()
        || limits.mate.is_some()
        || limits.movetime.is_some()
        || limits.time.is_some()
        || limits.infinite;
    if !usable {
        if go.limit_sent {
            notes.push(format!(
                "no usable limit in go; searching {FALLBACK_MOVETIME_MS} ms"
            ));
            limits.movetime = Some(Duration::from_millis(FALLBACK_MOVETIME_MS));
        } else {
            // A bare `go` (or `go ponder`) searches until told otherwise.
            limits.infinite = !go.ponder;
        }
    }
    (limits, notes)
}

fn ms(t: f64) -> Duration {
    Duration::from_millis(t.clamp(0.0, MAX_CLOCK_MS) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::command::{parse, Command};
    use crate::protocol::Mode;

    fn go(line: &str) -> GoParams {
        match parse(line) {
            Ok(Command::Go(g)) => *g,
            other => panic!("{other:?}"),
        }
    }

    fn ctx(mode: Mode, usemillisec: bool, side: Color) -> Context {
        Context {
            words: mode.words(),
            usemillisec,
            side,
            move_overhead_ms: 30,
            multipv: 1,
        }
    }

    #[test]
    fn ucci_seconds_and_milliseconds() {
        let g = go("go time 300 increment 2 opptime 100");
        let (l, _) = limits(&g, &ctx(Mode::Ucci, false, Color::Red), &[]);
        assert_eq!(l.time, Some(Duration::from_secs(300)));
        assert_eq!(l.increment, Some(Duration::from_secs(2)));
        assert_eq!(l.opptime, Some(Duration::from_secs(100)));
        let (l, _) = limits(&g, &ctx(Mode::Ucci, true, Color::Red), &[]);
        assert_eq!(l.time, Some(Duration::from_millis(300)));
        assert_eq!(l.move_overhead, Duration::from_millis(30));
    }

    #[test]
    fn uci_clock_of_the_side_to_move() {
        let g = go("go wtime 1000 btime 2000 winc 10 binc 20");
        let (l, _) = limits(&g, &ctx(Mode::Uci, false, Color::Black), &[]);
        assert_eq!(l.time, Some(Duration::from_millis(2000)));
        assert_eq!(l.increment, Some(Duration::from_millis(20)));
        assert_eq!(l.opptime, Some(Duration::from_millis(1000)));
    }

    #[test]
    fn bare_go_is_infinite_and_bad_go_is_short() {
        let (l, n) = limits(&go("go"), &ctx(Mode::Uci, false, Color::Red), &[]);
        assert!(l.infinite && n.is_empty());
        let (l, n) = limits(&go("go depth abc"), &ctx(Mode::Uci, false, Color::Red), &[]);
        assert!(!l.infinite);
        assert_eq!(
            l.movetime,
            Some(Duration::from_millis(FALLBACK_MOVETIME_MS))
        );
        assert_eq!(n.len(), 1);
        let (l, n) = limits(&go("go depth 0"), &ctx(Mode::Uci, false, Color::Red), &[]);
        assert_eq!((l.depth, n.len()), (Some(1), 1));
        let (l, _) = limits(
            &go("go ponder time 10"),
            &ctx(Mode::Ucci, false, Color::Red),
            &[],
        );
        assert!(l.ponder && !l.infinite);
    }
}
