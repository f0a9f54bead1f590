//! The search's numeric parameters: margins, reduction constants, history
//! divisors. In a normal build each is a constant the compiler folds in.
//! With the `tune` feature each is also an engine option (a spin with its
//! range), so that `chuhe tune` can vary them by SPSA; the values found go
//! back here as the new defaults once a match has confirmed them.

#[cfg(feature = "tune")]
use std::sync::atomic::{AtomicI32, Ordering};

/// One parameter as the tuner sees it.
pub struct Param {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    #[cfg(feature = "tune")]
    value: &'static AtomicI32,
}

macro_rules! params {
    ($($(#[$doc:meta])* $getter:ident $cell:ident $name:literal = $default:literal, $min:literal..=$max:literal;)*) => {
        $(
            #[cfg(feature = "tune")]
            static $cell: AtomicI32 = AtomicI32::new($default);

            $(#[$doc])*
            #[inline(always)]
            pub fn $getter() -> i32 {
                #[cfg(feature = "tune")]
                {
                    $cell.load(Ordering::Relaxed)
                }
                #[cfg(not(feature = "tune"))]
                {
                    $default
                }
            }
        )*

        /// Every parameter, in declaration order.
        pub static PARAMS: &[Param] = &[
            $(Param {
                name: $name,
                default: $default,
                min: $min,
                max: $max,
                #[cfg(feature = "tune")]
                value: &$cell,
            },)*
        ];
    };
}

params! {
    /// Reverse futility margin per ply of depth.
    rfp_margin RFP_MARGIN "RfpMargin" = 85, 30..=200;
    /// Reverse futility applies up to this depth.
    rfp_depth RFP_DEPTH "RfpDepth" = 7, 3..=12;
    /// Null-move reduction: base, and one more ply per this much depth.
    nmp_base NMP_BASE "NmpBase" = 3, 1..=6;
    nmp_depth_div NMP_DEPTH_DIV "NmpDepthDiv" = 4, 2..=8;
    /// ...and one more per this much the evaluation beats beta (at most 3).
    nmp_eval_div NMP_EVAL_DIV "NmpEvalDiv" = 200, 60..=500;
    /// Futility pruning of quiet moves: base margin and margin per ply.
    fut_base FUT_BASE "FutBase" = 110, 30..=300;
    fut_per_ply FUT_PER_PLY "FutPerPly" = 100, 30..=250;
    /// Futility pruning applies below this reduced depth.
    fut_depth FUT_DEPTH "FutDepth" = 6, 2..=16;
    /// Late-move pruning: past (3 + depth²) moves a node prunes its
    /// remaining quiet moves, past (3 + depth²) / this when not improving.
    /// One, the same count either way: in matches it beat two, and four
    /// (closer to Pikafish's five) lost (docs/RESULTS.md, "Search changes"
    /// and "Tuning the search").
    lmp_div LMP_DIV "LmpDiv" = 1, 1..=8;
    /// Quiet moves with history below minus this per ply are pruned.
    hist_prune HIST_PRUNE "HistPrune" = 4000, 1000..=12000;
    /// SEE thresholds: quiet moves per squared ply, captures per ply.
    see_quiet SEE_QUIET "SeeQuiet" = 30, 5..=100;
    see_capture SEE_CAPTURE "SeeCapture" = 90, 20..=200;
    /// Late-move reductions: base ×100 and divisor ×100 of ln d · ln m.
    lmr_base LMR_BASE "LmrBase" = 80, 0..=200;
    lmr_div LMR_DIV "LmrDiv" = 230, 120..=400;
    /// History points per ply of reduction removed.
    lmr_hist_div LMR_HIST_DIV "LmrHistDiv" = 8000, 2000..=20000;
    /// Plies more reduction at an expected cut node (the cutoff there
    /// usually comes from one of the first moves). One: Stockfish's two
    /// showed no gain here (docs/RESULTS.md, "Tuning the search").
    lmr_cut LMR_CUT "LmrCut" = 1, 0..=4;
    /// Late captures are reduced at cut nodes only (0), or at every
    /// non-PV node (1).
    lmr_capture LMR_CAPTURE "LmrCapture" = 0, 0..=1;
    /// Plies more reduction for quiet moves when the TT move is a capture
    /// (the position's play is tactical: quiet moves rarely matter there).
    lmr_tt_capture LMR_TT_CAPTURE "LmrTtCapture" = 0, 0..=2;
    /// Plies less reduction at a node that is or was on a principal
    /// variation (the table's PV mark), unless the table says this PV node
    /// fails low. Stockfish and Pikafish take 1 + 22 / (5 + depth) there
    /// and reduce more everywhere else (docs/RESULTS.md, "The tree at long
    /// time controls"); 0 keeps the mark unused.
    lmr_tt_pv LMR_TT_PV "LmrTtPv" = 0, 0..=4;
    /// After a move raises alpha, the later moves of a node shallower than
    /// this are searched a ply shallower.
    alpha_raise_depth ALPHA_RAISE_DEPTH "AlphaRaiseDepth" = 12, 4..=64;
    /// A reduced search that beats the best score so far by this much
    /// (plus two per ply) is verified a ply deeper; one that beats it by
    /// less than the second, a ply shallower.
    lmr_deeper LMR_DEEPER "LmrDeeper" = 40, 0..=150;
    lmr_shallower LMR_SHALLOWER "LmrShallower" = 10, 0..=60;
    /// Checks are extended on the principal variation only (0), or at
    /// every node (1).
    ext_check_all EXT_CHECK_ALL "ExtCheckAll" = 0, 0..=1;
    /// Captures that give check are pruned by SEE like other captures
    /// (0), or never (1).
    see_cap_check SEE_CAP_CHECK "SeeCapCheck" = 0, 0..=1;
    /// Plies less reduction for a move that gives check.
    lmr_check LMR_CHECK "LmrCheck" = 1, 0..=3;
    /// Move-loop pruning at nodes already looking for a forced win: never
    /// (0), always (1), or unless the opponent has no rook, knight or
    /// cannon left and so might be stalemated by a quiet move (2).
    prune_win PRUNE_WIN "PruneWin" = 0, 0..=2;
    /// Time management (issue 52; the three values below passed an SPRT
    /// together at 20 s + 0.2 s, docs/RESULTS.md `tm1`): the soft limit of
    /// a settled search (a stable best move holding most of the nodes), in
    /// percent of the move's share of the clock. At 70 (the old value)
    /// Chuhe spent three quarters of its clock by move 40 where
    /// Pikafish-HCE spent all of it...
    tm_soft TM_SOFT "TmSoft" = 90, 40..=150;
    /// ...the hard limit in shares of the clock a move may take at most
    /// (it was 5; critical moves got too little beside Pikafish-HCE's)...
    tm_hard TM_HARD "TmHard" = 7, 2..=10;
    /// ...and how a falling root score stretches the soft limit: against
    /// the last iteration only, by steps of 1.15 and 1.4 (0, as it was),
    /// or against this side's previous move and the iteration three back,
    /// from 0.8 to 1.7 times (1).
    tm_falling TM_FALLING "TmFalling" = 1, 0..=1;
    /// Quiescence futility margin.
    qs_futility QS_FUTILITY "QsFutility" = 150, 50..=400;
    /// Aspiration window half-width at the start.
    asp_delta ASP_DELTA "AspDelta" = 24, 8..=80;
    /// The window grows by this many percent (and 8 more) after each
    /// failed search.
    asp_grow ASP_GROW "AspGrow" = 50, 20..=200;
    /// Plies shallower each re-search after a fail high (0: none).
    asp_fh_reduce ASP_FH_REDUCE "AspFhReduce" = 0, 0..=1;
    /// Singular extensions: from this depth, with the singular beta this
    /// many sixteenths of a centipawn per ply below the TT score; a move
    /// this much further below it is extended twice.
    se_depth SE_DEPTH "SeDepth" = 7, 4..=12;
    se_margin SE_MARGIN "SeMargin" = 32, 8..=96;
    se_double SE_DOUBLE "SeDouble" = 20, 0..=80;
    /// ProbCut: from this depth, a capture whose shallow search beats beta
    /// by this margin cuts the node.
    probcut_depth PROBCUT_DEPTH "ProbcutDepth" = 5, 3..=10;
    probcut_margin PROBCUT_MARGIN "ProbcutMargin" = 100, 30..=300;
}

/// The parameter called `name` (ignoring case).
pub fn find(name: &str) -> Option<&'static Param> {
    PARAMS.iter().find(|p| p.name.eq_ignore_ascii_case(name))
}

impl Param {
    /// Sets the value (clamped to the range); false in a build without the
    /// `tune` feature, where parameters are constants.
    pub fn set(&self, value: i32) -> bool {
        #[cfg(feature = "tune")]
        {
            self.value
                .store(value.clamp(self.min, self.max), Ordering::Relaxed);
            true
        }
        #[cfg(not(feature = "tune"))]
        {
            let _ = value;
            false
        }
    }
}

/// Whether this build exposes the parameters as options.
pub const TUNABLE: bool = cfg!(feature = "tune");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_sit_inside_their_ranges() {
        for p in PARAMS {
            assert!(p.min <= p.default && p.default <= p.max, "{}", p.name);
            assert!(find(&p.name.to_lowercase()).is_some());
        }
        assert_eq!(rfp_margin(), find("RfpMargin").unwrap().default);
        let names: std::collections::HashSet<_> = PARAMS.iter().map(|p| p.name).collect();
        assert_eq!(names.len(), PARAMS.len(), "names are unique");
    }
}
