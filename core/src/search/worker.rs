//! One search thread: iterative deepening with aspiration windows over a
//! principal-variation alpha-beta search and a quiescence search, sharing
//! only the transposition table and the stop flags with the other threads.

use super::history::{cont_key, previous_move, Heuristics, HISTORY_MAX, NO_CONT};
use super::limits::{Limits, SearchInfo, StopHandle};
use super::movepick::MovePicker;
use super::params;
use super::see::see_ge;
use super::stats::{self, DepthStat, Stat};
use super::time::TimeManager;
use super::tt::{Bound, Tt, TtHit};
use super::values::*;
use crate::board::{zobrist, Color, Move, PieceKind, Position};
use crate::eval::{psqt::SEE_VALUE, Evaluator};
use crate::nnue::net::Network;
use crate::rules::{self, CycleCache, RepetitionScore};
use arrayvec::ArrayVec;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// How often (in nodes) a thread looks at the clock and the stop flags.
const POLL_MASK: u64 = 1023;

/// A singular move is extended twice at most this many times on a path.
const SE_MAX_DOUBLE: u8 = 6;

/// The late-move reduction at depth `d` for move number `m` (both ≥ 1).
fn lmr_formula(d: usize, m: usize) -> i32 {
    let base = params::lmr_base() as f64 / 100.0;
    let div = params::lmr_div() as f64 / 100.0;
    (base + (d as f64).ln() * (m as f64).ln() / div) as i32
}

/// Late-move reductions by depth and move number (a tuning build, whose
/// parameters change, works them out each time).
#[cfg(not(feature = "tune"))]
static LMR: once_cell::sync::Lazy<[[i32; 64]; 64]> = once_cell::sync::Lazy::new(|| {
    let mut t = [[0; 64]; 64];
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            *r = lmr_formula(d, m);
        }
    }
    t
});

/// The key after `mv`, computed without playing it.
#[inline]
fn key_after(pos: &Position, mv: Move) -> u64 {
    let (from, to) = (mv.from(), mv.to());
    let mut key = pos.key() ^ zobrist::SIDE;
    if let Some(p) = pos.piece_at(from) {
        key ^= zobrist::piece_square(p, from) ^ zobrist::piece_square(p, to);
    }
    if let Some(c) = pos.piece_at(to) {
        key ^= zobrist::piece_square(c, to);
    }
    key
}

/// The history reward for a cutoff at `depth` (and the penalty of the moves
/// tried before it).
#[inline]
fn history_bonus(depth: i32) -> i32 {
    (depth * depth * 16 + 32).min(HISTORY_MAX / 8)
}

#[inline]
fn reduction(depth: i32, move_count: usize) -> i32 {
    let (d, m) = (depth.clamp(0, 63) as usize, move_count.min(63));
    #[cfg(not(feature = "tune"))]
    {
        LMR[d][m]
    }
    #[cfg(feature = "tune")]
    {
        if d == 0 || m == 0 {
            0
        } else {
            lmr_formula(d, m)
        }
    }
}

/// What all threads of one `go` share (owned, because the helper threads
/// outlive any one search).
pub struct Shared {
    pub tt: std::sync::Arc<Tt>,
    pub handle: StopHandle,
    pub limits: Limits,
    /// Set by the main thread when the search is over, for the helpers.
    pub abort: AtomicBool,
    /// Nodes per thread, published at each poll.
    pub nodes: Vec<AtomicU64>,
    /// The root moves the search may play (banmoves and searchmoves applied).
    pub root_moves: Vec<Move>,
    /// The network evaluating positions; None: the hand-crafted evaluation.
    pub net: Option<Arc<Network>>,
}

impl Shared {
    pub fn total_nodes(&self) -> u64 {
        self.nodes.iter().map(|n| n.load(Ordering::Relaxed)).sum()
    }
}

#[derive(Clone, Copy)]
struct Frame {
    killers: [Move; 2],
    static_eval: i32,
    /// Plies since the last null move: repetitions are never looked for
    /// across one.
    plies_from_null: usize,
    /// Continuation key of the move played from this node (NO_CONT for a
    /// null move or none yet).
    cont: usize,
    /// The move a singular-extension search leaves out here (NONE: none).
    excluded: Move,
    /// Double extensions on the path to this node: capped, or a line of
    /// singular moves could grow without end.
    double_exts: u8,
}

/// The outcome of one thread's iterative deepening.
pub struct Outcome {
    pub best: Move,
    pub score: i32,
    pub depth: u32,
    pub pv: Vec<Move>,
    /// With several PVs: the last finished iteration's lines, best first
    /// (score, line); the first is `best`'s.
    pub lines: Vec<(i32, Vec<Move>)>,
}

pub struct Worker<'a> {
    id: usize,
    shared: &'a Shared,
    heur: &'a mut Heuristics,
    /// Repetition cycles this thread has scored (kept between searches).
    cycles: &'a mut CycleCache,
    pos: Position,
    /// Evaluation state kept in step with `pos` (every make/unmake goes
    /// through `make`/`unmake` below).
    eval: Evaluator,
    pub nodes: u64,
    seldepth: usize,
    stack: Vec<Frame>,
    pv: Vec<[Move; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 2],
    root_depth: i32,
    nmp_min_ply: usize,
    aborted: bool,
    /// Best root move found in the current iteration, with its score and line.
    iter_best: Option<(Move, i32, Vec<Move>)>,
    prev_best: Move,
    /// Root moves already given a line of their own in this iteration of
    /// a multi-PV search: the next line is the best of the others.
    root_done: Vec<Move>,
    /// Nodes searched below each root move so far in this search (main
    /// thread only): the time manager's measure of how settled the best is.
    root_effort: Vec<(Move, u64)>,
    time: Option<TimeManager>,
    /// Nodes of the other threads at the last poll (main thread only).
    others_nodes: u64,
    start: Instant,
}

impl<'a> Worker<'a> {
    pub fn new(
        id: usize,
        shared: &'a Shared,
        heur: &'a mut Heuristics,
        cycles: &'a mut CycleCache,
        pos: Position,
        time: Option<TimeManager>,
    ) -> Self {
        let eval = Evaluator::new(shared.net.clone(), &pos);
        Worker {
            id,
            shared,
            heur,
            cycles,
            pos,
            eval,
            nodes: 0,
            seldepth: 0,
            stack: vec![
                Frame {
                    killers: [Move::NONE; 2],
                    static_eval: EVAL_NONE,
                    plies_from_null: usize::MAX / 2,
                    cont: NO_CONT,
                    excluded: Move::NONE,
                    double_exts: 0,
                };
                MAX_PLY + 4
            ],
            pv: vec![[Move::NONE; MAX_PLY + 1]; MAX_PLY + 2],
            pv_len: [0; MAX_PLY + 2],
            root_depth: 0,
            nmp_min_ply: 0,
            aborted: false,
            iter_best: None,
            prev_best: Move::NONE,
            root_done: Vec::new(),
            root_effort: Vec::new(),
            time,
            others_nodes: 0,
            start: Instant::now(),
        }
    }

    fn is_main(&self) -> bool {
        self.id == 0
    }

    /// Counts a node and, now and then, looks at the flags and the clock.
    /// Always inlined: called at every node, and LLVM's own choice flips
    /// with the size of unrelated code (measured: an out-of-line call cost
    /// 0.5% of the bench's instructions).
    #[inline(always)]
    fn count_node(&mut self) {
        self.nodes += 1;
        if self.is_main() {
            if let Some(n) = self.shared.limits.nodes {
                if self.nodes + self.others_nodes >= n {
                    self.aborted = true;
                }
            }
        }
        if self.nodes & POLL_MASK == 0 {
            self.poll();
        }
    }

    fn poll(&mut self) {
        self.shared.nodes[self.id].store(self.nodes, Ordering::Relaxed);
        if self.shared.handle.is_stopped() || self.shared.abort.load(Ordering::Relaxed) {
            self.aborted = true;
        }
        if self.is_main() {
            self.others_nodes = self.shared.total_nodes() - self.nodes;
            if let Some(tm) = self.time.as_mut() {
                if self.shared.handle.ponderhit.load(Ordering::Relaxed) {
                    tm.ponderhit();
                }
                if tm.hard_exceeded() {
                    self.aborted = true;
                }
            }
        }
    }

    fn has_big_pieces(&self) -> bool {
        self.big_pieces_of(self.pos.side_to_move())
    }

    /// Whether `side` has a rook, knight or cannon: without one it cannot
    /// attack, and may run out of moves (stalemate, a loss in xiangqi).
    fn big_pieces_of(&self, side: Color) -> bool {
        (self.pos.pieces(side, PieceKind::Rook)
            | self.pos.pieces(side, PieceKind::Knight)
            | self.pos.pieces(side, PieceKind::Cannon))
        .any()
    }

    /// Whether the move loop prunes at a node already looking for a forced
    /// win (alpha a win score): `PruneWin` 0 never, 1 always, 2 while the
    /// opponent keeps a rook, knight or cannon.
    fn prune_for_win(&self) -> bool {
        match params::prune_win() {
            0 => false,
            1 => true,
            _ => self.big_pieces_of(self.pos.side_to_move().flip()),
        }
    }

    /// The key after `mv`, with the child's TT bucket asked for at once:
    /// the sooner before `make`, the more of the memory wait is hidden.
    #[inline]
    fn prefetch_child(&self, mv: Move) -> u64 {
        let key = key_after(&self.pos, mv);
        self.shared.tt.prefetch(key);
        key
    }

    /// Plays `mv`, whose resulting key `prefetch_child` gave. A
    /// `gives_check` the caller already worked out saves the position
    /// working out the checkers again.
    #[inline]
    fn make(&mut self, mv: Move, ply: usize, gives_check: Option<bool>, key: u64) {
        self.stack[ply].cont = self
            .pos
            .piece_at(mv.from())
            .map_or(NO_CONT, |p| cont_key(p, mv));
        self.eval.push(&self.pos, mv);
        match gives_check {
            Some(c) => self.pos.make_move_known_check(mv, c),
            None => self.pos.make_move(mv),
        }
        debug_assert_eq!(key, self.pos.key());
        self.stack[ply + 1].plies_from_null = self.stack[ply].plies_from_null + 1;
        self.stack[ply + 1].double_exts = self.stack[ply].double_exts;
    }

    #[inline]
    fn unmake(&mut self) {
        self.pos.unmake_move();
        self.eval.pop();
    }

    #[inline]
    fn evaluate(&mut self) -> i32 {
        self.eval.evaluate(&self.pos)
    }

    fn only_defenders(&self) -> bool {
        let us = self.pos.side_to_move();
        !(self.has_big_pieces() || self.pos.pieces(us, PieceKind::Pawn).any())
    }

    /// Draws and rule results that end the line here: the natural move
    /// limit, no winning material, and a repeated position judged by the rules.
    fn rule_score(&mut self, ply: usize) -> Option<i32> {
        let pos = &self.pos;
        let hm = pos.halfmove_clock() as usize;
        if hm == 0 && rules::no_winning_material(pos) {
            return Some(0);
        }
        if hm >= 120 && rules::natural_limit_reached(pos) {
            // Mate on the last ply still wins.
            if !pos.in_check() || pos.has_legal_move() {
                return Some(0);
            }
        }
        let hist = pos.history();
        let limit = hm.min(self.stack[ply].plies_from_null).min(hist.len());
        let key = pos.key();
        // A position cannot recur after two plies: each side must move away
        // and back, so the shortest cycle is four plies.
        //
        // A recurrence inside the tree (the earlier occurrence after the
        // root) ends the line at once: the side that chose the cycle could
        // have left it, so it counts as chosen for good. One whose earlier
        // occurrence is the root or the game before it needs a second: the
        // game's own cycle is not ended by the referee until the third
        // occurrence, and until then the side the cycle forbids may still
        // vary. Judged at the first, a king that steps out of the opponent's
        // check back onto a square it stood on would score as a rule win,
        // although the checker simply plays on (Stockfish and Pikafish count
        // the same way).
        let mut k = 4;
        let mut before_root = false;
        while k <= limit {
            if hist[hist.len() - k].key == key {
                if k < ply || before_root {
                    // The whole stretch since the first of the occurrences
                    // is judged, two cycles for a game's own, as the referee
                    // judges them. A side whose forbidden cycle is not a
                    // perpetual check must vary rather than lose (24.3): its
                    // node is searched on, and the cycle's next move loses
                    // one ply later, where this same cycle is met from the
                    // other side.
                    let win = RULE_WIN - ply as i32;
                    return match self.cycles.score(&mut self.pos, k) {
                        RepetitionScore::Draw => Some(0),
                        RepetitionScore::Win => Some(win),
                        RepetitionScore::Loss => Some(-win),
                        RepetitionScore::Vary => None,
                    };
                }
                before_root = true;
            }
            k += 2;
        }
        None
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        self.pv[ply][ply] = mv;
        for i in ply + 1..child_len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len;
    }

    fn root_allowed(&self, mv: Move) -> bool {
        self.shared.root_moves.contains(&mv) && !self.root_done.contains(&mv)
    }

    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        pv: bool,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        cut: bool,
    ) -> i32 {
        // Step 1. Initialize node: out of depth, quiescence takes over; count
        // the node, stop if told to.
        let root = ply == 0;
        if depth <= 0 {
            return self.qsearch(pv, alpha, beta, ply);
        }
        self.pv_len[ply] = ply;
        self.count_node();
        if self.aborted {
            return 0;
        }
        let nt = stats::node_type(pv, cut);
        stats::bump(nt, Stat::Nodes);
        stats::at_depth(nt, depth, DepthStat::Nodes, 1);
        if pv && ply > self.seldepth {
            self.seldepth = ply;
        }
        // Step 2. Game ended by the rules (repetition, move limit) or the
        // ply limit reached.
        if !root {
            if let Some(v) = self.rule_score(ply) {
                return v;
            }
            if ply >= MAX_PLY {
                return if self.pos.in_check() {
                    0
                } else {
                    self.evaluate()
                };
            }
            alpha = alpha.max(mated_in(ply));
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }

        // Step 3. Transposition table lookup.
        let in_check = self.pos.in_check();
        let key = self.pos.key();
        let excluded = self.stack[ply].excluded;
        let hit = self.shared.tt.probe(key);
        let tt_move = if root && !self.prev_best.is_none() {
            self.prev_best
        } else {
            hit.map_or(Move::NONE, |h| h.mv)
        };
        // On a principal variation now or once (Stockfish's ttPv): marked in
        // the table with every result stored here.
        let tt_pv = pv || hit.is_some_and(|h| h.pv);
        if let Some(h) = hit {
            stats::bump(nt, Stat::TtHit);
            if !pv && excluded.is_none() && h.depth >= depth {
                if let Some(s) = tt_cutoff(&h, ply, alpha, beta) {
                    stats::bump(nt, Stat::TtCutoff);
                    return s;
                }
            }
        }

        // Step 4. Static evaluation of the position.
        let static_eval;
        let mut eval;
        if in_check {
            static_eval = EVAL_NONE;
            eval = EVAL_NONE;
        } else {
            static_eval = match hit {
                Some(h) if h.eval != EVAL_NONE => h.eval,
                _ => self.evaluate(),
            };
            eval = static_eval;
            if let Some(h) = hit {
                let s = from_tt(h.score, ply);
                let better = match h.bound {
                    Bound::Exact => true,
                    Bound::Lower => s > eval,
                    Bound::Upper => s < eval,
                };
                if better && s.abs() < WIN_BOUND {
                    eval = s;
                }
            }
        }
        self.stack[ply].static_eval = static_eval;
        let improving = !in_check
            && ply >= 2
            && self.stack[ply - 2].static_eval != EVAL_NONE
            && static_eval > self.stack[ply - 2].static_eval;
        self.stack[ply + 2].killers = [Move::NONE; 2];

        // Step 5. Pruning before any move is searched (reverse futility and
        // the others below).
        if !pv && !in_check && !root && excluded.is_none() {
            // Reverse futility: far enough above beta that a quiet move will
            // not bring the score back down in the few plies left.
            // A side without attackers may be stalemated (a loss), which a
            // static margin cannot see, so it never gets this shortcut.
            if depth <= params::rfp_depth()
                && eval.abs() < WIN_BOUND
                && beta > -WIN_BOUND
                && self.has_big_pieces()
                && eval - params::rfp_margin() * (depth - improving as i32) >= beta
            {
                stats::bump(nt, Stat::RfpCutoff);
                return eval;
            }
            // Null move: if passing still beats beta, a real move will too.
            // Zugzwang is rare in xiangqi; the big-piece condition and the
            // verification search at high depth guard against it.
            if depth >= 3
                && eval >= beta
                && beta.abs() < WIN_BOUND
                && self.stack[ply].plies_from_null > 0
                && ply >= self.nmp_min_ply
                && self.has_big_pieces()
            {
                let r = params::nmp_base()
                    + depth / params::nmp_depth_div()
                    + ((eval - beta) / params::nmp_eval_div()).min(3);
                stats::bump(nt, Stat::NmpTried);
                self.stack[ply].cont = NO_CONT;
                self.eval.push_null();
                self.pos.make_null();
                self.stack[ply + 1].plies_from_null = 0;
                let v = -self.search(false, depth - r, -beta, -beta + 1, ply + 1, !cut);
                self.pos.unmake_null();
                self.eval.pop();
                if self.aborted {
                    return 0;
                }
                if v >= beta {
                    let v = if v >= WIN_BOUND { beta } else { v };
                    if self.nmp_min_ply > 0 || depth < 12 {
                        stats::bump(nt, Stat::NmpCutoff);
                        return v;
                    }
                    self.nmp_min_ply = ply + (3 * (depth - r) / 4) as usize;
                    let w = self.search(false, depth - r, beta - 1, beta, ply, false);
                    self.nmp_min_ply = 0;
                    if w >= beta {
                        stats::bump(nt, Stat::NmpCutoff);
                        return v;
                    }
                }
            }
        }

        // Step 6. ProbCut: a capture whose shallow search beats beta by a clear
        // margin would very likely beat beta at full depth too. Skipped when
        // the table already says a search this deep stays below that mark.
        let pc_beta = beta + params::probcut_margin();
        if !pv
            && !in_check
            && !root
            && excluded.is_none()
            && depth >= params::probcut_depth()
            && beta.abs() < WIN_BOUND
            && !hit.is_some_and(|h| h.depth >= depth - 3 && from_tt(h.score, ply) < pc_beta)
        {
            let mut mp = MovePicker::new_qsearch(&self.pos, tt_move, false);
            while let Some(mv) = mp.next(&self.pos, self.heur) {
                if !see_ge(&self.pos, mv, pc_beta - static_eval) {
                    continue;
                }
                let child_key = self.prefetch_child(mv);
                self.make(mv, ply, None, child_key);
                let mut v = -self.qsearch(false, -pc_beta, -pc_beta + 1, ply + 1);
                if v >= pc_beta {
                    v = -self.search(false, depth - 4, -pc_beta, -pc_beta + 1, ply + 1, !cut);
                }
                self.unmake();
                if self.aborted {
                    return 0;
                }
                if v >= pc_beta {
                    self.shared.tt.store(
                        key,
                        mv,
                        to_tt(v, ply),
                        static_eval,
                        depth - 3,
                        Bound::Lower,
                        tt_pv,
                    );
                    stats::bump(nt, Stat::ProbcutCutoff);
                    return v;
                }
            }
        }

        // Step 7. Internal iterative reduction: without a move to try first,
        // a deep search here is likely to be
        // wasted: search it a little shallower.
        if depth >= 6 && tt_move.is_none() && (pv || cut) {
            depth -= 1;
        }

        // Step 8. The move loop: each move in the picker's order, pruned,
        // extended or reduced, searched, and the best one kept.
        let prev = previous_move(&self.pos);
        let counter = self.heur.counter(prev);
        let killers = self.stack[ply].killers;
        let conts = self.conts(ply);
        let mut mp = MovePicker::new(&self.pos, in_check, tt_move, killers, counter, conts);
        let mut best = -INF;
        let mut best_move = Move::NONE;
        let mut move_count = 0usize;
        // Moves searched (move_count counts the pruned ones too).
        let mut searched = 0u64;
        let mut quiets: ArrayVec<Move, 64> = ArrayVec::new();
        let mut captures: ArrayVec<Move, 32> = ArrayVec::new();
        let big = self.has_big_pieces();
        let check_info = self.pos.check_info();
        let tt_capture = !tt_move.is_none() && self.pos.is_capture(tt_move);
        // A PV node the table says failed low at this depth or deeper.
        let likely_fail_low = pv
            && !tt_move.is_none()
            && hit.is_some_and(|h| h.bound == Bound::Upper && h.depth >= depth);

        while let Some(mv) = mp.next(&self.pos, self.heur) {
            if (root && !self.root_allowed(mv)) || mv == excluded {
                continue;
            }
            move_count += 1;
            // Fetched while this move is weighed: just before `make` came
            // too late to hide the miss.
            let child_key = self.prefetch_child(mv);
            let capture = self.pos.is_capture(mv);
            let gives_check = self.pos.gives_check_with(mv, &check_info);
            let hist = if capture {
                0
            } else {
                self.heur.quiet_score(&self.pos, mv, conts)
            };
            let refutation = killers.contains(&mv) || mv == counter;

            // Moves are pruned only while this side is not already lost, and
            // (`PruneWin` 0) while no forced win is at stake: a quiet move
            // that stalemates the opponent wins in xiangqi. But searching
            // every move of the winning side can make the proof of a mate
            // met deep in the tree cost a hundred times the nodes
            // (docs/RESULTS.md, "Mate suite"): `PruneWin` 2 prunes there too
            // unless the opponent, with no rook, knight or cannon left, is
            // one a quiet move could stalemate.
            if !root && best > -WIN_BOUND && big && (alpha < WIN_BOUND || self.prune_for_win()) {
                let lmr_depth = (depth - 1 - reduction(depth, move_count)).max(0);
                if !capture && !gives_check {
                    // Late quiet moves at low depth rarely matter.
                    let lmp_div = if improving { 1 } else { params::lmp_div() };
                    if move_count >= ((3 + depth * depth) / lmp_div) as usize {
                        mp.skip_quiets = true;
                        stats::bump(nt, Stat::PruneLmp);
                        continue;
                    }
                    if !in_check
                        && lmr_depth < params::fut_depth()
                        && eval + params::fut_base() + params::fut_per_ply() * lmr_depth <= alpha
                    {
                        stats::bump(nt, Stat::PruneFutility);
                        continue;
                    }
                    if lmr_depth < 3 && hist < -params::hist_prune() * depth {
                        stats::bump(nt, Stat::PruneHistory);
                        continue;
                    }
                    if !in_check
                        && !see_ge(&self.pos, mv, -params::see_quiet() * lmr_depth * lmr_depth)
                    {
                        stats::bump(nt, Stat::PruneSeeQuiet);
                        continue;
                    }
                } else if depth <= 6
                    && !(gives_check && params::see_cap_check() == 1)
                    && !see_ge(&self.pos, mv, -params::see_capture() * depth)
                {
                    stats::bump(nt, Stat::PruneSeeCapture);
                    continue;
                }
            }

            // Check extension on the principal variation only: xiangqi games
            // are full of checks, and extending them everywhere cost more
            // than it found in self-play at equal nodes. Bounded by ply so
            // that perpetual checking lines end.
            let mut ext = (gives_check
                && (pv || params::ext_check_all() == 1)
                && (ply as i32) < 2 * self.root_depth
                && see_ge(&self.pos, mv, -50)) as i32;
            stats::add(nt, Stat::ExtCheck, ext as u64);

            // Singular extension: when the TT move beats every other move
            // by a margin (a search without it fails low), it is extended;
            // when the others beat beta too, the node is cut (multi-cut);
            // when the TT move's score was already above beta, it is
            // searched shallower.
            if !root
                && mv == tt_move
                && depth >= params::se_depth()
                && (ply as i32) < 2 * self.root_depth
            {
                if let Some(tt_score) = hit
                    .filter(|h| h.bound != Bound::Upper && h.depth >= depth - 3)
                    .map(|h| from_tt(h.score, ply))
                    .filter(|s| s.abs() < WIN_BOUND)
                {
                    let s_beta = tt_score - params::se_margin() * depth / 16;
                    self.stack[ply].excluded = mv;
                    let v = self.search(false, (depth - 1) / 2, s_beta - 1, s_beta, ply, cut);
                    self.stack[ply].excluded = Move::NONE;
                    if self.aborted {
                        return 0;
                    }
                    if v < s_beta {
                        ext = 1;
                        if !pv
                            && v < s_beta - params::se_double()
                            && self.stack[ply].double_exts < SE_MAX_DOUBLE
                        {
                            ext = 2;
                        }
                        let kind = if ext == 2 {
                            Stat::ExtDouble
                        } else {
                            Stat::ExtSingular
                        };
                        stats::bump(nt, kind);
                    } else if s_beta >= beta {
                        stats::bump(nt, Stat::MultiCut);
                        return s_beta;
                    } else if tt_score >= beta {
                        ext = -1;
                        stats::bump(nt, Stat::ExtNegative);
                    }
                }
            }
            let mut new_depth = depth - 1 + ext;

            let nodes_before = self.nodes;
            searched += 1;
            stats::bump(nt, Stat::Moves);
            stats::at_depth(nt, depth, DepthStat::Moves, 1);
            self.make(mv, ply, Some(gives_check), child_key);
            self.stack[ply + 1].double_exts += (ext >= 2) as u8;
            let mut v = -INF;
            if depth >= 3
                && move_count > 1 + root as usize
                && (!capture || cut || (!pv && params::lmr_capture() == 1))
            {
                let mut r = reduction(depth, move_count);
                r += (!pv) as i32 + params::lmr_cut() * cut as i32 - improving as i32;
                r -= refutation as i32 + params::lmr_check() * gives_check as i32;
                r += params::lmr_tt_capture() * (tt_capture && !capture) as i32;
                r -= params::lmr_tt_pv() * (tt_pv && !likely_fail_low) as i32;
                r -= hist / params::lmr_hist_div();
                let d = (new_depth - r).clamp(1, new_depth.max(1));
                stats::bump(nt, Stat::LmrSearches);
                stats::add(nt, Stat::LmrPlies, (new_depth - d).max(0) as u64);
                stats::at_depth(
                    nt,
                    depth,
                    DepthStat::LmrPlies,
                    (new_depth - d).max(0) as u64,
                );
                v = -self.search(false, d, -alpha - 1, -alpha, ply + 1, true);
                if v > alpha && d < new_depth {
                    // How far the reduced search beat the best so far says
                    // how deep to verify it: a clear gain a ply deeper, a
                    // bare one a ply shallower.
                    new_depth += (v > best + params::lmr_deeper() + 2 * new_depth) as i32;
                    new_depth -= (v < best + params::lmr_shallower()) as i32;
                    if d < new_depth {
                        stats::bump(nt, Stat::LmrResearch);
                        v = -self.search(false, new_depth, -alpha - 1, -alpha, ply + 1, !cut);
                    }
                }
            } else if !pv || move_count > 1 {
                v = -self.search(false, new_depth, -alpha - 1, -alpha, ply + 1, !cut);
            }
            if pv && (move_count == 1 || (v > alpha && (root || v < beta))) {
                stats::add(nt, Stat::PvsResearch, (move_count > 1) as u64);
                v = -self.search(true, new_depth, -beta, -alpha, ply + 1, false);
            }
            self.unmake();
            if root && self.is_main() {
                self.add_root_effort(mv, self.nodes - nodes_before);
            }
            if self.aborted {
                return 0;
            }

            if v > best {
                best = v;
                if v > alpha {
                    best_move = mv;
                    if pv {
                        self.update_pv(ply, mv);
                    }
                    if root {
                        let line = self.pv[0][..self.pv_len[0]].to_vec();
                        self.iter_best = Some((mv, v, line));
                    }
                    if v >= beta {
                        stats::bump(nt, Stat::FailHigh);
                        stats::add(nt, Stat::FailHighFirst, (searched == 1) as u64);
                        stats::add(nt, Stat::MovesBeforeCut, searched);
                        break;
                    }
                    alpha = v;
                    // A move that raised alpha makes the rest likely to
                    // fall below it: search them a ply shallower.
                    if !root
                        && depth > 2
                        && depth < params::alpha_raise_depth()
                        && v.abs() < WIN_BOUND
                    {
                        depth -= 1;
                    }
                }
            }
            if mv != best_move {
                if !capture && !quiets.is_full() {
                    quiets.push(mv);
                } else if capture && !captures.is_full() {
                    captures.push(mv);
                }
            }
        }

        stats::add(nt, Stat::Searched, (searched > 0) as u64);
        // Step 9. No legal move: mate or stalemate.
        if move_count == 0 {
            // No legal move: mated or stalemated, both lost in xiangqi. With
            // a move left out, the one move there is beats this bound.
            return if excluded.is_none() {
                mated_in(ply)
            } else {
                alpha
            };
        }

        // Step 10. Move-ordering statistics after a cutoff.
        if best >= beta {
            let bonus = history_bonus(depth);
            if self.pos.is_capture(best_move) {
                self.heur.update_capture(&self.pos, best_move, bonus);
            } else {
                self.reward_quiet(ply, best_move, &quiets, depth, prev, conts);
            }
            // Captures tried before the cutoff did not cause it.
            for &c in &captures {
                self.heur.update_capture(&self.pos, c, -bonus);
            }
        }

        // A fail-high score far above beta is less sure than one near it:
        // pull it toward beta, less so the deeper the search.
        if best >= beta && best.abs() < WIN_BOUND && beta.abs() < WIN_BOUND {
            best = (best * depth + beta) / (depth + 1);
        }

        // Step 11. Store the result in the transposition table.
        if !excluded.is_none() {
            // A search without one move: its result is not this node's.
            return best;
        }
        let bound = result_bound(best, beta, pv, best_move);
        self.shared.tt.store(
            key,
            best_move,
            to_tt(best, ply),
            static_eval,
            depth,
            bound,
            tt_pv,
        );
        best
    }

    fn reward_quiet(
        &mut self,
        ply: usize,
        mv: Move,
        tried: &[Move],
        depth: i32,
        prev: Option<(crate::board::Piece, Move)>,
        conts: [usize; 2],
    ) {
        let us = self.pos.side_to_move().index();
        let bonus = history_bonus(depth);
        self.heur.update_quiet(us, mv, bonus);
        self.reward_cont(mv, conts, bonus);
        for &q in tried {
            self.heur.update_quiet(us, q, -bonus);
            self.reward_cont(q, conts, -bonus);
        }
        let k = &mut self.stack[ply].killers;
        if k[0] != mv {
            k[1] = k[0];
            k[0] = mv;
        }
        self.heur.set_counter(prev, mv);
    }

    fn reward_cont(&mut self, mv: Move, conts: [usize; 2], bonus: i32) {
        if let Some(p) = self.pos.piece_at(mv.from()) {
            let k = cont_key(p, mv);
            self.heur.update_cont(conts[0], k, bonus);
            self.heur.update_cont(conts[1], k, bonus);
        }
    }

    /// Continuation keys of the moves one and two plies before `ply`.
    fn conts(&self, ply: usize) -> [usize; 2] {
        let back = |n: usize| {
            if ply >= n {
                self.stack[ply - n].cont
            } else {
                NO_CONT
            }
        };
        [back(1), back(2)]
    }

    fn qsearch(&mut self, pv: bool, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv_len[ply] = ply;
        self.count_node();
        if self.aborted {
            return 0;
        }
        if pv && ply > self.seldepth {
            self.seldepth = ply;
        }
        let in_check = self.pos.in_check();
        if ply >= MAX_PLY {
            return if in_check { 0 } else { self.evaluate() };
        }
        let key = self.pos.key();
        let hit = self.shared.tt.probe(key);
        let tt_pv = pv || hit.is_some_and(|h| h.pv);
        if let Some(h) = hit {
            if !pv {
                if let Some(s) = tt_cutoff(&h, ply, alpha, beta) {
                    return s;
                }
            }
        }

        let static_eval;
        let mut best;
        if in_check {
            static_eval = EVAL_NONE;
            best = -INF;
        } else {
            static_eval = match hit {
                Some(h) if h.eval != EVAL_NONE => h.eval,
                _ => self.evaluate(),
            };
            best = static_eval;
            // A side left with only its king and defenders may have no move
            // at all, which loses: look before standing pat.
            if self.only_defenders() && !self.pos.has_legal_move() {
                return mated_in(ply);
            }
            if best >= beta {
                if hit.is_none() {
                    self.shared.tt.store(
                        key,
                        Move::NONE,
                        to_tt(best, ply),
                        static_eval,
                        -1,
                        Bound::Lower,
                        tt_pv,
                    );
                }
                return best;
            }
            alpha = alpha.max(best);
        }

        let tt_move = hit.map_or(Move::NONE, |h| h.mv);
        let recapture_sq = previous_move(&self.pos).map(|(_, m)| m.to());
        // Wanted only for captures about to be pruned: made once, on demand.
        let mut check_info = None;
        let mut mp = MovePicker::new_qsearch(&self.pos, tt_move, in_check);
        let mut best_move = Move::NONE;
        let mut move_count = 0;
        while let Some(mv) = mp.next(&self.pos, self.heur) {
            move_count += 1;
            if !in_check && best > -WIN_BOUND {
                // Past the first two captures, and for captures that cannot
                // lift the score to alpha, only recaptures and checks are
                // searched. A futile capture's optimistic value, still at or
                // below alpha, stands in for its score.
                let base = static_eval + params::qs_futility();
                let gain = self
                    .pos
                    .piece_at(mv.to())
                    .map_or(0, |p| SEE_VALUE[p.kind().index()]);
                let futile = base + gain <= alpha;
                let prunable =
                    move_count > 2 || futile || (base <= alpha && !see_ge(&self.pos, mv, 1));
                if prunable
                    && recapture_sq != Some(mv.to())
                    && !self.pos.gives_check_with(
                        mv,
                        check_info.get_or_insert_with(|| self.pos.check_info()),
                    )
                {
                    if move_count <= 2 {
                        best = best.max(if futile { base + gain } else { base });
                    }
                    continue;
                }
                if !see_ge(&self.pos, mv, 0) {
                    continue;
                }
            }
            // Here only after the pruning: most captures it drops would
            // waste the fetch (measured: no gain from fetching earlier).
            let child_key = self.prefetch_child(mv);
            self.make(mv, ply, None, child_key);
            let v = -self.qsearch(pv, -beta, -alpha, ply + 1);
            self.unmake();
            if self.aborted {
                return 0;
            }
            if v > best {
                best = v;
                if v > alpha {
                    best_move = mv;
                    if pv {
                        self.update_pv(ply, mv);
                    }
                    if v >= beta {
                        break;
                    }
                    alpha = v;
                }
            }
        }
        if in_check && move_count == 0 {
            return mated_in(ply);
        }
        let bound = result_bound(best, beta, pv, best_move);
        let depth = if in_check { 0 } else { -1 };
        self.shared.tt.store(
            key,
            best_move,
            to_tt(best, ply),
            static_eval,
            depth,
            bound,
            tt_pv,
        );
        best
    }

    /// Iterative deepening. The main thread reports each finished depth
    /// through `on_info` and decides when to stop; helpers search until told.
    pub fn iterate(&mut self, on_info: &mut dyn FnMut(&SearchInfo)) -> Outcome {
        let limits = &self.shared.limits;
        let max_depth = limits
            .depth
            .map_or(super::MAX_DEPTH, |d| d.clamp(1, super::MAX_DEPTH))
            as i32;
        let mate_target = limits.mate.map(|n| MATE - 2 * n as i32 + 1);
        let max_depth = match limits.mate {
            Some(n) if limits.depth.is_none() => max_depth.min(2 * n as i32 + 8),
            _ => max_depth,
        };
        let mut out = Outcome {
            best: self.shared.root_moves[0],
            score: 0,
            depth: 0,
            pv: vec![self.shared.root_moves[0]],
            lines: Vec::new(),
        };
        // Helpers search the best line only: they feed the table.
        let lines_wanted = if self.is_main() {
            limits.multipv.clamp(1, self.shared.root_moves.len())
        } else {
            1
        };
        let offset = (self.id % 2) as i32;
        let mut depth = 1;
        while depth <= max_depth {
            let d = if depth > 1 { depth + offset } else { depth };
            self.root_depth = d;
            self.seldepth = 0;
            self.root_done.clear();
            let Some(score) = self.search_root(d, out.score) else {
                // A move that beat the window in the unfinished iteration is
                // better informed than the last iteration's choice.
                if let Some((mv, v, line)) = self.iter_best.take() {
                    if mv != out.best {
                        out.best = mv;
                        out.score = v;
                        out.pv = line;
                    }
                }
                break;
            };
            if let Some((mv, _, line)) = self.iter_best.take() {
                out.best = mv;
                out.pv = line;
            }
            out.score = score;
            out.depth = d as u32;
            if lines_wanted > 1 && !self.more_lines(lines_wanted, &mut out) {
                break;
            }
            let best_changed = out.best != self.prev_best && depth > 1;
            self.prev_best = out.best;
            if !self.is_main() {
                depth += 1;
                continue;
            }
            self.report(&out, on_info);
            if mate_target.is_some_and(|t| score >= t) {
                break;
            }
            if self
                .shared
                .limits
                .soft_nodes
                .is_some_and(|n| self.nodes + self.others_nodes >= n)
            {
                break;
            }
            // One legal move: play it at once on the clock, but a fixed
            // time, depth or node search (analysis) still wants the score.
            if self.shared.root_moves.len() == 1 && self.time.as_ref().is_some_and(|t| t.on_clock())
            {
                break;
            }
            // The best move's node share means little in the first few
            // iterations, which take a sliver of the time anyway.
            let share = (depth >= 8).then(|| self.best_share(out.best));
            if let Some(tm) = self.time.as_mut() {
                if self.shared.handle.ponderhit.load(Ordering::Relaxed) {
                    tm.ponderhit();
                }
                if tm.iteration_done(best_changed, score, share) {
                    break;
                }
            }
            depth += 1;
        }
        self.shared.nodes[self.id].store(self.nodes, Ordering::Relaxed);
        out
    }

    /// One iteration at the root: an aspiration window around `center`,
    /// widened until the score falls inside it. None if the search was
    /// stopped; the best move found is left in `iter_best`.
    fn search_root(&mut self, d: i32, center: i32) -> Option<i32> {
        self.iter_best = None;
        let mut delta = params::asp_delta();
        let (mut a, mut b) = if d >= 4 {
            ((center - delta).max(-INF), (center + delta).min(INF))
        } else {
            (-INF, INF)
        };
        let mut failed_high = 0;
        loop {
            let depth = (d - failed_high * params::asp_fh_reduce()).max(1);
            let score = self.search(true, depth, a, b, 0, false);
            if self.aborted {
                return None;
            }
            if score <= a {
                b = (a + b) / 2;
                a = (score - delta).max(-INF);
                failed_high = 0;
            } else if score >= b {
                b = (score + delta).min(INF);
                failed_high += 1;
            } else {
                return Some(score);
            }
            delta += delta * params::asp_grow() / 100 + 8;
        }
    }

    /// The lines after the first of a multi-PV iteration: each the best of
    /// the root moves not yet given a line, searched around its score of
    /// the last iteration. Sorted best first into `out`; false if the
    /// search was stopped (`out` then keeps the last finished iteration's).
    fn more_lines(&mut self, wanted: usize, out: &mut Outcome) -> bool {
        let mut lines = vec![(out.score, out.pv.clone())];
        self.root_done.push(out.best);
        while lines.len() < wanted {
            let center = out.lines.get(lines.len()).map_or(out.score, |l| l.0);
            let Some(score) = self.search_root(self.root_depth, center) else {
                // Stopped: this iteration's first line stands, the others
                // are the last iteration's.
                out.lines.retain(|l| l.1[0] != out.best);
                out.lines.insert(0, (out.score, out.pv.clone()));
                out.lines.truncate(wanted);
                self.root_done.clear();
                return false;
            };
            let Some((mv, _, line)) = self.iter_best.take() else {
                // Every other move is out of reach of the window: no line.
                break;
            };
            self.root_done.push(mv);
            lines.push((score, line));
        }
        self.root_done.clear();
        // Each line was searched without the moves before it, so scores
        // fall; where a later line still scored higher, it goes first.
        lines.sort_by_key(|l| std::cmp::Reverse(l.0));
        out.score = lines[0].0;
        out.best = lines[0].1[0];
        out.pv = lines[0].1.clone();
        out.lines = lines;
        true
    }

    fn add_root_effort(&mut self, mv: Move, nodes: u64) {
        match self.root_effort.iter_mut().find(|e| e.0 == mv) {
            Some(e) => e.1 += nodes,
            None => self.root_effort.push((mv, nodes)),
        }
    }

    /// The share of this thread's nodes spent below root move `mv`.
    fn best_share(&self, mv: Move) -> f64 {
        let spent = self
            .root_effort
            .iter()
            .find(|e| e.0 == mv)
            .map_or(0, |e| e.1);
        spent as f64 / self.nodes.max(1) as f64
    }

    fn report(&mut self, out: &Outcome, on_info: &mut dyn FnMut(&SearchInfo)) {
        let ms = self.start.elapsed().as_millis() as u64;
        self.shared.nodes[self.id].store(self.nodes, Ordering::Relaxed);
        let nodes = self.shared.total_nodes();
        let info = |score: i32, pv: &[Move], multipv: Option<u32>| SearchInfo {
            depth: out.depth,
            seldepth: self.seldepth.max(out.depth as usize) as u32,
            score: Some(to_score(score)),
            nodes,
            time_ms: ms,
            nps: nodes * 1000 / ms.max(1),
            hashfull: self.shared.tt.hashfull(),
            pv: pv.to_vec(),
            currmove: None,
            multipv,
        };
        if out.lines.is_empty() {
            on_info(&info(out.score, &out.pv, None));
        }
        for (i, (score, pv)) in out.lines.iter().enumerate() {
            on_info(&info(*score, pv, Some(i as u32 + 1)));
        }
    }
}

/// What a node's result is for the table: a fail high is a lower bound,
/// a PV node's result with a move that raised alpha is exact, anything
/// else an upper bound.
#[inline]
fn result_bound(best: i32, beta: i32, pv: bool, best_move: Move) -> Bound {
    if best >= beta {
        Bound::Lower
    } else if pv && !best_move.is_none() {
        Bound::Exact
    } else {
        Bound::Upper
    }
}

/// The stored score, if its bound alone settles the node against the window.
/// A rule win or loss stored by an earlier search settles nothing: it was
/// decided by the repetitions of the path that led there, which the game
/// has since left. Within one search every node shares the game's history,
/// so a transposition's rule result still counts.
#[inline]
fn tt_cutoff(h: &TtHit, ply: usize, alpha: i32, beta: i32) -> Option<i32> {
    let s = from_tt(h.score, ply);
    if is_rule_score(s) && !h.current {
        return None;
    }
    let fits = match h.bound {
        Bound::Exact => true,
        Bound::Lower => s >= beta,
        Bound::Upper => s <= alpha,
    };
    fits.then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(score: i32, bound: Bound, current: bool) -> TtHit {
        TtHit {
            pv: false,
            mv: Move::NONE,
            score,
            eval: 0,
            depth: 10,
            bound,
            current,
        }
    }

    /// A one-thread search to `depth` on `fen`: the outcome, the worker's
    /// share of nodes below the best move, its node count and its nodes
    /// below each root move.
    fn search_to_depth(fen: &str, depth: u32) -> (Outcome, f64, u64, Vec<(Move, u64)>) {
        let pos = Position::from_fen(fen).unwrap();
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        let shared = Shared {
            tt: std::sync::Arc::new(Tt::try_new(16).unwrap()),
            handle: StopHandle::new(),
            root_moves: limits.root_moves(&pos),
            limits,
            abort: AtomicBool::new(false),
            nodes: vec![AtomicU64::new(0)],
            net: crate::nnue::default_network(),
        };
        let mut heur = Heuristics::default();
        let mut cycles = CycleCache::default();
        let mut w = Worker::new(0, &shared, &mut heur, &mut cycles, pos, None);
        let out = w.iterate(&mut |_| {});
        let share = w.best_share(out.best);
        (out, share, w.nodes, w.root_effort.clone())
    }

    #[test]
    fn root_effort_counts_the_nodes_below_each_root_move() {
        let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
        let (out, share, nodes, effort) = search_to_depth(start, 8);
        let pos = Position::from_fen(start).unwrap();
        let legal = pos.legal_moves();
        assert!(effort.iter().all(|e| legal.contains(&e.0)));
        let below: u64 = effort.iter().map(|e| e.1).sum();
        // Every node but the root's own lies below some root move.
        assert!(
            below < nodes && below > nodes * 9 / 10,
            "{below} of {nodes}"
        );
        assert!(share > 0.0 && share < 1.0, "{share}");
        assert_eq!(out.depth, 8);

        // Red's rook takes a loose black rook on an open file for free: the
        // search should need little effort elsewhere to settle on it.
        let free_rook = "3akab2/9/4b4/r8/9/9/9/4B4/9/R2AKAB2 w - - 0 1";
        let (out, share, _, _) = search_to_depth(free_rook, 8);
        assert_eq!(out.best.to_string(), "a0a6");
        assert!(share > 0.5, "{share}");
    }

    #[test]
    fn rule_results_of_earlier_searches_cut_nothing() {
        let ply = 3;
        // Evaluations and mates settle the node as their bound allows, from
        // this search or an earlier one...
        for current in [true, false] {
            for v in [120, -45, MATE - 9, -MATE + 12] {
                let h = hit(to_tt(v, ply), Bound::Exact, current);
                assert_eq!(tt_cutoff(&h, ply, -200, 200), Some(v));
            }
            let low = hit(to_tt(MATE - 9, ply), Bound::Lower, current);
            assert_eq!(tt_cutoff(&low, ply, -200, 200), Some(MATE - 9));
        }
        // ...a win or loss by the repetition rules only from this search.
        for v in [RULE_WIN - 7, -RULE_WIN + 6] {
            let now = hit(to_tt(v, ply), Bound::Exact, true);
            assert_eq!(tt_cutoff(&now, ply, -200, 200), Some(v));
            for bound in [Bound::Exact, Bound::Lower, Bound::Upper] {
                let old = hit(to_tt(v, ply), bound, false);
                assert_eq!(tt_cutoff(&old, ply, -200, 200), None, "{v} {bound:?}");
            }
        }
        assert!(is_rule_score(RULE_WIN - 100) && is_rule_score(-RULE_WIN + 100));
        assert!(!is_rule_score(MATE - 100) && !is_rule_score(WIN_BOUND - 1));
    }
}
