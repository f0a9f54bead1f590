//! Counters of the search tree's shape, by node type, for finding where
//! the tree grows (the `stats` feature; `make stats`, then `chuhe bench`
//! prints them). Without the feature every call here is empty and the
//! search compiles as if it were not there.
//!
//! Node types are the search's own view of a node: PV (`pv`), cut (a
//! non-PV node expected to fail high: `cut`) and all (the rest). The
//! counters are process-wide atomics, so they add up over threads and
//! searches until `reset`.

/// What is counted. Each counter is kept per node type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum Stat {
    /// Nodes of the main search (not quiescence).
    Nodes,
    TtHit,
    TtCutoff,
    RfpCutoff,
    NmpTried,
    NmpCutoff,
    ProbcutCutoff,
    /// Nodes that searched at least one move, and of those, the ones that
    /// failed high; the moves searched before the fail high, summed.
    Searched,
    FailHigh,
    FailHighFirst,
    MovesBeforeCut,
    /// Moves searched in all.
    Moves,
    PruneLmp,
    PruneFutility,
    PruneHistory,
    PruneSeeQuiet,
    PruneSeeCapture,
    /// Late-move reductions: searches reduced, the plies taken off (summed),
    /// and how many of them were searched again at full depth.
    LmrSearches,
    LmrPlies,
    LmrResearch,
    /// PVS: null-window searches at PV nodes failing high and searched again
    /// with the full window.
    PvsResearch,
    ExtCheck,
    ExtSingular,
    ExtDouble,
    ExtNegative,
    MultiCut,
}

pub const STATS: usize = Stat::MultiCut as usize + 1;
#[cfg(feature = "stats")]
const NAMES: [&str; STATS] = [
    "nodes",
    "tt hit",
    "tt cutoff",
    "rfp cutoff",
    "nmp tried",
    "nmp cutoff",
    "probcut cutoff",
    "searched nodes",
    "fail high",
    "fail high first",
    "moves before cut",
    "moves",
    "prune lmp",
    "prune futility",
    "prune history",
    "prune see quiet",
    "prune see capture",
    "lmr searches",
    "lmr plies",
    "lmr research",
    "pvs research",
    "ext check",
    "ext singular",
    "ext double",
    "ext negative",
    "multicut",
];

/// Node types.
pub const PV: usize = 0;
pub const CUT: usize = 1;
pub const ALL: usize = 2;

pub fn node_type(pv: bool, cut: bool) -> usize {
    if pv {
        PV
    } else if cut {
        CUT
    } else {
        ALL
    }
}

/// Remaining depths counted apart by `at_depth` (deeper ones with the last).
pub const DEPTHS: usize = 24;

/// What `at_depth` counts, by remaining depth: nodes, moves searched, and
/// the plies late-move reduction took off them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum DepthStat {
    Nodes,
    Moves,
    LmrPlies,
}

#[cfg(feature = "stats")]
mod on {
    use super::{DEPTHS, STATS};
    use std::sync::atomic::{AtomicU64, Ordering};

    #[allow(clippy::declare_interior_mutable_const)]
    const ZERO: AtomicU64 = AtomicU64::new(0);
    #[allow(clippy::declare_interior_mutable_const)]
    const ROW: [AtomicU64; STATS] = [ZERO; STATS];
    pub static COUNTS: [[AtomicU64; STATS]; 3] = [ROW; 3];
    #[allow(clippy::declare_interior_mutable_const)]
    const TRIPLE: [AtomicU64; 3] = [ZERO; 3];
    #[allow(clippy::declare_interior_mutable_const)]
    const DEPTH_ROW: [[AtomicU64; 3]; DEPTHS] = [TRIPLE; DEPTHS];
    pub static BY_DEPTH: [[[AtomicU64; 3]; DEPTHS]; 3] = [DEPTH_ROW; 3];

    pub fn add(kind: usize, stat: usize, n: u64) {
        COUNTS[kind][stat].fetch_add(n, Ordering::Relaxed);
    }

    pub fn at_depth(kind: usize, depth: i32, stat: usize, n: u64) {
        let d = (depth.max(0) as usize).min(DEPTHS - 1);
        BY_DEPTH[kind][d][stat].fetch_add(n, Ordering::Relaxed);
    }

    pub fn get(kind: usize, stat: usize) -> u64 {
        COUNTS[kind][stat].load(Ordering::Relaxed)
    }

    pub fn reset() {
        for row in &COUNTS {
            for c in row {
                c.store(0, Ordering::Relaxed);
            }
        }
        for kind in &BY_DEPTH {
            for row in kind {
                for c in row {
                    c.store(0, Ordering::Relaxed);
                }
            }
        }
    }
}

/// Adds `n` to a counter of node type `kind`.
#[inline(always)]
pub fn add(kind: usize, stat: Stat, n: u64) {
    #[cfg(feature = "stats")]
    on::add(kind, stat as usize, n);
    #[cfg(not(feature = "stats"))]
    let _ = (kind, stat, n);
}

/// Adds `n` to a counter of node type `kind` at remaining depth `depth`.
#[inline(always)]
pub fn at_depth(kind: usize, depth: i32, stat: DepthStat, n: u64) {
    #[cfg(feature = "stats")]
    on::at_depth(kind, depth, stat as usize, n);
    #[cfg(not(feature = "stats"))]
    let _ = (kind, depth, stat, n);
}

#[inline(always)]
pub fn bump(kind: usize, stat: Stat) {
    add(kind, stat, 1);
}

/// Whether this build counts (the `stats` feature).
pub const ENABLED: bool = cfg!(feature = "stats");

pub fn reset() {
    #[cfg(feature = "stats")]
    on::reset();
}

/// The counters as a table: raw counts by node type, then the rates that
/// say most about the tree.
pub fn report() -> String {
    #[cfg(not(feature = "stats"))]
    {
        String::from("search statistics need a build with the `stats` feature (make stats)\n")
    }
    #[cfg(feature = "stats")]
    {
        use std::fmt::Write;
        let g = |k: usize, s: Stat| on::get(k, s as usize) as f64;
        let mut out = String::new();
        let _ = writeln!(out, "{:<18} {:>14} {:>14} {:>14}", "", "pv", "cut", "all");
        for (i, name) in NAMES.iter().enumerate() {
            let _ = writeln!(
                out,
                "{name:<18} {:>14} {:>14} {:>14}",
                on::get(PV, i),
                on::get(CUT, i),
                on::get(ALL, i)
            );
        }
        let pct = |a: f64, b: f64| if b > 0.0 { 100.0 * a / b } else { 0.0 };
        type Rate<'a> = (&'a str, Box<dyn Fn(usize) -> f64 + 'a>);
        let rows: [Rate; 11] = [
            (
                "share of nodes %",
                Box::new(|k| {
                    let all: f64 = (0..3).map(|j| g(j, Stat::Nodes)).sum();
                    pct(g(k, Stat::Nodes), all)
                }),
            ),
            (
                "tt hit %",
                Box::new(|k| pct(g(k, Stat::TtHit), g(k, Stat::Nodes))),
            ),
            (
                "tt cutoff %",
                Box::new(|k| pct(g(k, Stat::TtCutoff), g(k, Stat::Nodes))),
            ),
            (
                "fail high %",
                Box::new(|k| pct(g(k, Stat::FailHigh), g(k, Stat::Searched))),
            ),
            (
                "first-move cut %",
                Box::new(|k| pct(g(k, Stat::FailHighFirst), g(k, Stat::FailHigh))),
            ),
            (
                "moves before cut",
                Box::new(|k| g(k, Stat::MovesBeforeCut) / g(k, Stat::FailHigh).max(1.0)),
            ),
            (
                "moves / node",
                Box::new(|k| g(k, Stat::Moves) / g(k, Stat::Searched).max(1.0)),
            ),
            (
                "lmr share %",
                Box::new(|k| pct(g(k, Stat::LmrSearches), g(k, Stat::Moves))),
            ),
            (
                "lmr mean plies",
                Box::new(|k| g(k, Stat::LmrPlies) / g(k, Stat::LmrSearches).max(1.0)),
            ),
            (
                "lmr research %",
                Box::new(|k| pct(g(k, Stat::LmrResearch), g(k, Stat::LmrSearches))),
            ),
            (
                "pruned / moves %",
                Box::new(|k| {
                    let p = g(k, Stat::PruneLmp)
                        + g(k, Stat::PruneFutility)
                        + g(k, Stat::PruneHistory)
                        + g(k, Stat::PruneSeeQuiet)
                        + g(k, Stat::PruneSeeCapture);
                    pct(p, g(k, Stat::Moves) + p)
                }),
            ),
        ];
        for (name, f) in rows.iter() {
            let _ = writeln!(
                out,
                "{name:<18} {:>14.2} {:>14.2} {:>14.2}",
                f(PV),
                f(CUT),
                f(ALL)
            );
        }
        // By remaining depth: where the nodes are, how many moves each
        // node type searches there, and the mean reduction of those moves.
        let _ = writeln!(
            out,
            "depth {:>10} {:>10} {:>10} {:>7} {:>7} {:>7} {:>6} {:>6} {:>6}",
            "pv nodes",
            "cut nodes",
            "all nodes",
            "pv mv",
            "cut mv",
            "all mv",
            "pv r",
            "cut r",
            "all r"
        );
        let d3 = |k: usize, d: usize, s: DepthStat| {
            on::BY_DEPTH[k][d][s as usize].load(std::sync::atomic::Ordering::Relaxed) as f64
        };
        for d in 1..DEPTHS {
            let n = |k| d3(k, d, DepthStat::Nodes);
            if n(PV) + n(CUT) + n(ALL) == 0.0 {
                continue;
            }
            let mv = |k| d3(k, d, DepthStat::Moves) / n(k).max(1.0);
            let r = |k| d3(k, d, DepthStat::LmrPlies) / d3(k, d, DepthStat::Moves).max(1.0);
            let _ = writeln!(
                out,
                "{d:>5} {:>10} {:>10} {:>10} {:>7.2} {:>7.2} {:>7.2} {:>6.2} {:>6.2} {:>6.2}",
                n(PV),
                n(CUT),
                n(ALL),
                mv(PV),
                mv(CUT),
                mv(ALL),
                r(PV),
                r(CUT),
                r(ALL)
            );
        }
        out
    }
}
