//! Attack tables, computed at compile time (so start-up costs nothing).
//!
//! Rooks and cannons look up their rank and their file separately. The rank
//! occupancy is a plain 9-bit shift. The file occupancy (ten bits nine apart)
//! is gathered by a magic multiply: bits `0, 9, ..., 63` of the low word times
//! `0x0101_0101_0101_0101` land, without carries, in the top byte in order;
//! the last two bits come from the high word. Each table entry is the answer
//! for a piece on file a (or rank 0), shifted into place at lookup.
//!
//! Knights and elephants are blocked by one point next to them (the horse leg,
//! the elephant eye), so their tables hold, per square, each blocking point
//! with the targets it guards. Kings, advisors and pawns are plain tables.
//!
//! Sizes: about 330 KB for the sliders, 130 KB for `BETWEEN`, a few KB for
//! the rest; far under the 8 MB budget.

use super::bitboard::Bitboard;
use super::types::{Color, Square};

const FILE_A: u128 = Bitboard::FILE_A.0;

/// Rook reach along a line of `len` points from `pos`, given the line's
/// occupancy bits: every empty point up to and including the first piece.
const fn line_rook(pos: usize, occ: u32, len: usize) -> u32 {
    let mut out = 0u32;
    let mut i = pos + 1;
    while i < len {
        out |= 1 << i;
        if occ >> i & 1 != 0 {
            break;
        }
        i += 1;
    }
    let mut i = pos as isize - 1;
    while i >= 0 {
        out |= 1 << i;
        if occ >> i & 1 != 0 {
            break;
        }
        i -= 1;
    }
    out
}

/// Cannon captures along a line: the first piece beyond the first piece (the screen).
const fn line_cannon(pos: usize, occ: u32, len: usize) -> u32 {
    let mut out = 0u32;
    let mut screen = false;
    let mut i = pos + 1;
    while i < len {
        if occ >> i & 1 != 0 {
            if screen {
                out |= 1 << i;
                break;
            }
            screen = true;
        }
        i += 1;
    }
    screen = false;
    let mut i = pos as isize - 1;
    while i >= 0 {
        if occ >> i & 1 != 0 {
            if screen {
                out |= 1 << i;
                break;
            }
            screen = true;
        }
        i -= 1;
    }
    out
}

const fn build_rank_table(cannon: bool) -> [[u16; 512]; 9] {
    let mut t = [[0u16; 512]; 9];
    let mut f = 0;
    while f < 9 {
        let mut occ = 0;
        while occ < 512 {
            t[f][occ] = if cannon {
                line_cannon(f, occ as u32, 9)
            } else {
                line_rook(f, occ as u32, 9)
            } as u16;
            occ += 1;
        }
        f += 1;
    }
    t
}

/// Spreads ten line bits (one per rank) onto file a.
const fn spread_file(bits: u32) -> u128 {
    let mut out = 0u128;
    let mut r = 0;
    while r < 10 {
        if bits >> r & 1 != 0 {
            out |= 1u128 << (r * 9);
        }
        r += 1;
    }
    out
}

const fn build_file_table(cannon: bool) -> [[u128; 1024]; 10] {
    let mut t = [[0u128; 1024]; 10];
    let mut r = 0;
    while r < 10 {
        let mut occ = 0;
        while occ < 1024 {
            let line = if cannon {
                line_cannon(r, occ as u32, 10)
            } else {
                line_rook(r, occ as u32, 10)
            };
            // Store under the index the magic gather will produce for this occupancy.
            t[r][file_index(spread_file(occ as u32), 0)] = spread_file(line);
            occ += 1;
        }
        r += 1;
    }
    t
}

static RANK_ROOK: [[u16; 512]; 9] = build_rank_table(false);
static RANK_CANNON: [[u16; 512]; 9] = build_rank_table(true);
static FILE_ROOK: [[u128; 1024]; 10] = build_file_table(false);
static FILE_CANNON: [[u128; 1024]; 10] = build_file_table(true);

/// The 10-bit index of a file's occupancy (see the module comment).
#[inline(always)]
const fn file_index(occ: u128, file: usize) -> usize {
    let x = (occ >> file) & FILE_A;
    let lo = x as u64;
    let hi = (x >> 64) as u64;
    let low8 = lo.wrapping_mul(0x0101_0101_0101_0101) >> 56;
    // Rank 8 is bit 72 (high bit 8), rank 9 is bit 81 (high bit 17).
    let top2 = ((hi >> 8) & 1) | ((hi >> 16) & 2);
    (low8 | top2 << 8) as usize
}

#[inline(always)]
fn rank_index(occ: u128, rank: usize) -> usize {
    ((occ >> (rank * 9)) as u64 & 0x1ff) as usize
}

/// Squares a rook on `sq` reaches: empty points and the first piece in each direction.
#[inline]
pub fn rook_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    let (f, r) = (sq.file().index(), sq.rank().index());
    let rank = (RANK_ROOK[f][rank_index(occ.0, r)] as u128) << (r * 9);
    let file = FILE_ROOK[r][file_index(occ.0, f)] << f;
    Bitboard(rank | file)
}

/// Squares a cannon on `sq` could capture on: the first piece beyond exactly one screen.
/// The result includes pieces of both colours; mask it with the enemy's.
#[inline]
pub fn cannon_captures(sq: Square, occ: Bitboard) -> Bitboard {
    let (f, r) = (sq.file().index(), sq.rank().index());
    let rank = (RANK_CANNON[f][rank_index(occ.0, r)] as u128) << (r * 9);
    let file = FILE_CANNON[r][file_index(occ.0, f)] << f;
    Bitboard(rank | file)
}

/// Per square: up to four blocking points (leg or eye) and the targets each
/// guards. A blocking point is kept as a bitboard (0 for an unused slot,
/// whose targets are 0 too): testing the occupancy against a mask is cheaper
/// than a variable 128-bit shift.
#[derive(Clone, Copy)]
struct Blocked {
    block: [u128; 4],
    targets: [u128; 4],
}

const fn sq_at(f: isize, r: isize) -> Option<usize> {
    if f >= 0 && f < 9 && r >= 0 && r < 10 {
        Some((r * 9 + f) as usize)
    } else {
        None
    }
}

const ORTH: [(isize, isize); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const DIAG: [(isize, isize); 4] = [(1, 1), (-1, 1), (1, -1), (-1, -1)];

const fn build_knight_moves() -> [Blocked; 90] {
    let mut t = [Blocked {
        block: [0; 4],
        targets: [0; 4],
    }; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as isize, (s / 9) as isize);
        let mut i = 0;
        while i < 4 {
            let (df, dr) = ORTH[i];
            if let Some(leg) = sq_at(f + df, r + dr) {
                let mut tg = 0u128;
                // Straight on past the leg, then one step to either side.
                let (pf, pr) = (dr, df);
                if let Some(t1) = sq_at(f + 2 * df + pf, r + 2 * dr + pr) {
                    tg |= 1u128 << t1;
                }
                if let Some(t2) = sq_at(f + 2 * df - pf, r + 2 * dr - pr) {
                    tg |= 1u128 << t2;
                }
                if tg != 0 {
                    t[s].block[i] = 1u128 << leg;
                    t[s].targets[i] = tg;
                }
            }
            i += 1;
        }
        s += 1;
    }
    t
}

/// Knights that attack a square, per diagonal neighbour of it (which is the
/// leg those knights need empty): a leg at `t + (a, b)` serves knights on
/// `t + (2a, b)` and `t + (a, 2b)`.
const fn build_knight_attackers() -> [Blocked; 90] {
    let mut t = [Blocked {
        block: [0; 4],
        targets: [0; 4],
    }; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as isize, (s / 9) as isize);
        let mut i = 0;
        while i < 4 {
            let (a, b) = DIAG[i];
            if let Some(leg) = sq_at(f + a, r + b) {
                let mut tg = 0u128;
                if let Some(n1) = sq_at(f + 2 * a, r + b) {
                    tg |= 1u128 << n1;
                }
                if let Some(n2) = sq_at(f + a, r + 2 * b) {
                    tg |= 1u128 << n2;
                }
                if tg != 0 {
                    t[s].block[i] = 1u128 << leg;
                    t[s].targets[i] = tg;
                }
            }
            i += 1;
        }
        s += 1;
    }
    t
}

/// Elephant moves: two diagonal steps over an empty eye, never across the river.
/// The same table answers "which elephants attack this square".
const fn build_bishop() -> [Blocked; 90] {
    let mut t = [Blocked {
        block: [0; 4],
        targets: [0; 4],
    }; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as isize, (s / 9) as isize);
        let red_half = r <= 4;
        let mut i = 0;
        while i < 4 {
            let (a, b) = DIAG[i];
            if let (Some(eye), Some(to)) = (sq_at(f + a, r + b), sq_at(f + 2 * a, r + 2 * b)) {
                if (to / 9 <= 4) == red_half {
                    t[s].block[i] = 1u128 << eye;
                    t[s].targets[i] = 1u128 << to;
                }
            }
            i += 1;
        }
        s += 1;
    }
    t
}

const fn in_palace(s: usize) -> bool {
    let (f, r) = (s % 9, s / 9);
    f >= 3 && f <= 5 && (r <= 2 || r >= 7)
}

/// One-step moves inside the palace (orthogonal for the king, diagonal for the advisor).
const fn build_palace_steps(diagonal: bool) -> [u128; 90] {
    let mut t = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        if in_palace(s) {
            let (f, r) = ((s % 9) as isize, (s / 9) as isize);
            let mut i = 0;
            while i < 4 {
                let (df, dr) = if diagonal { DIAG[i] } else { ORTH[i] };
                if let Some(to) = sq_at(f + df, r + dr) {
                    // Palaces are three ranks away from each other, so "in a
                    // palace" one step away means "in the same palace".
                    if in_palace(to) {
                        t[s] |= 1u128 << to;
                    }
                }
                i += 1;
            }
        }
        s += 1;
    }
    t
}

/// Pawn moves for each colour: forward, plus sideways once across the river.
const fn build_pawn() -> [[u128; 90]; 2] {
    let mut t = [[0u128; 90]; 2];
    let mut c = 0;
    while c < 2 {
        let fwd: isize = if c == 0 { 1 } else { -1 };
        let mut s = 0;
        while s < 90 {
            let (f, r) = ((s % 9) as isize, (s / 9) as isize);
            if let Some(to) = sq_at(f, r + fwd) {
                t[c][s] |= 1u128 << to;
            }
            let crossed = if c == 0 { r >= 5 } else { r <= 4 };
            if crossed {
                if let Some(to) = sq_at(f - 1, r) {
                    t[c][s] |= 1u128 << to;
                }
                if let Some(to) = sq_at(f + 1, r) {
                    t[c][s] |= 1u128 << to;
                }
            }
            s += 1;
        }
        c += 1;
    }
    t
}

/// Inverse of the pawn table: squares from which a pawn of each colour attacks a square.
const fn build_pawn_attackers() -> [[u128; 90]; 2] {
    let moves = build_pawn();
    let mut t = [[0u128; 90]; 2];
    let mut c = 0;
    while c < 2 {
        let mut from = 0;
        while from < 90 {
            let mut to = 0;
            while to < 90 {
                if moves[c][from] >> to & 1 != 0 {
                    t[c][to] |= 1u128 << from;
                }
                to += 1;
            }
            from += 1;
        }
        c += 1;
    }
    t
}

/// Points strictly between two squares on one rank or file; empty otherwise.
const fn build_between() -> [[u128; 90]; 90] {
    let mut t = [[0u128; 90]; 90];
    let mut a = 0;
    while a < 90 {
        let mut b = 0;
        while b < 90 {
            let (fa, ra, fb, rb) = (a % 9, a / 9, b % 9, b / 9);
            if a != b && (fa == fb || ra == rb) {
                let (df, dr): (isize, isize) = (
                    (fb as isize - fa as isize).signum(),
                    (rb as isize - ra as isize).signum(),
                );
                let mut f = fa as isize + df;
                let mut r = ra as isize + dr;
                let mut bits = 0u128;
                while !(f == fb as isize && r == rb as isize) {
                    bits |= 1u128 << (r * 9 + f);
                    f += df;
                    r += dr;
                }
                t[a][b] = bits;
            }
            b += 1;
        }
        a += 1;
    }
    t
}

/// Rank and file through each square, the square itself excluded.
const fn build_lines() -> [u128; 90] {
    let mut t = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        let mut o = 0;
        while o < 90 {
            if o != s && (o % 9 == s % 9 || o / 9 == s / 9) {
                t[s] |= 1u128 << o;
            }
            o += 1;
        }
        s += 1;
    }
    t
}

/// Squares from which a knight could attack each square on an empty board.
const fn build_knight_zone() -> [u128; 90] {
    let a = build_knight_attackers();
    let mut t = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        let mut i = 0;
        while i < 4 {
            t[s] |= a[s].targets[i];
            i += 1;
        }
        s += 1;
    }
    t
}

static LINES: [u128; 90] = build_lines();
static KNIGHT_ZONE: [u128; 90] = build_knight_zone();
static KNIGHT_MOVES: [Blocked; 90] = build_knight_moves();
static KNIGHT_ATTACKERS: [Blocked; 90] = build_knight_attackers();
static BISHOP: [Blocked; 90] = build_bishop();
static KING_STEPS: [u128; 90] = build_palace_steps(false);
static ADVISOR_STEPS: [u128; 90] = build_palace_steps(true);
static PAWN: [[u128; 90]; 2] = build_pawn();
static PAWN_ATTACKERS: [[u128; 90]; 2] = build_pawn_attackers();
static BETWEEN: [[u128; 90]; 90] = build_between();

#[inline(always)]
fn blocked_lookup(entry: &Blocked, occ: Bitboard) -> Bitboard {
    let mut out = 0u128;
    for i in 0..4 {
        // An unused slot's block and targets are both 0.
        if occ.0 & entry.block[i] == 0 {
            out |= entry.targets[i];
        }
    }
    Bitboard(out)
}

/// Squares a knight on `sq` attacks, given the occupancy that may block its legs.
#[inline]
pub fn knight_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    blocked_lookup(&KNIGHT_MOVES[sq.index()], occ)
}

/// Squares from which a knight would attack `sq` (legs checked against `occ`).
#[inline]
pub fn knight_attackers(sq: Square, occ: Bitboard) -> Bitboard {
    blocked_lookup(&KNIGHT_ATTACKERS[sq.index()], occ)
}

/// Per square, the diagonal neighbours that are horse legs for knights attacking
/// it: slot `i` is the leg and the two knight squares behind it.
#[inline]
pub fn knight_attacker_legs(sq: Square) -> impl Iterator<Item = (Square, Bitboard)> {
    let e = &KNIGHT_ATTACKERS[sq.index()];
    (0..4).filter_map(move |i| {
        let b = Bitboard(e.block[i]);
        b.any().then(|| (b.lsb(), Bitboard(e.targets[i])))
    })
}

/// Squares an elephant on `sq` reaches (its own half only), given the eye occupancy.
/// Symmetric, so it also answers which elephants attack `sq`.
#[inline]
pub fn bishop_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    blocked_lookup(&BISHOP[sq.index()], occ)
}

#[inline]
pub fn king_attacks(sq: Square) -> Bitboard {
    Bitboard(KING_STEPS[sq.index()])
}

#[inline]
pub fn advisor_attacks(sq: Square) -> Bitboard {
    Bitboard(ADVISOR_STEPS[sq.index()])
}

/// Squares a pawn of `color` on `sq` moves to or attacks.
#[inline]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    Bitboard(PAWN[color.index()][sq.index()])
}

/// Squares from which a pawn of `color` attacks `sq`.
#[inline]
pub fn pawn_attackers(color: Color, sq: Square) -> Bitboard {
    Bitboard(PAWN_ATTACKERS[color.index()][sq.index()])
}

/// The rank and file through `sq`, without `sq`: where a rook, cannon or
/// facing king could attack it from.
#[inline]
pub fn lines(sq: Square) -> Bitboard {
    Bitboard(LINES[sq.index()])
}

/// Where a knight could attack `sq` from if no leg were blocked.
#[inline]
pub fn knight_zone(sq: Square) -> Bitboard {
    Bitboard(KNIGHT_ZONE[sq.index()])
}

/// Points strictly between `a` and `b` when they share a rank or file.
#[inline]
pub fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(BETWEEN[a.index()][b.index()])
}

/// Whether `a` and `b` share a rank or a file.
#[inline]
pub fn aligned(a: Square, b: Square) -> bool {
    a != b && (a.file() == b.file() || a.rank() == b.rank())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    /// The magic gather must give every one of the 1024 file occupancies its own index.
    #[test]
    fn file_index_is_injective() {
        for f in 0..9 {
            let mut seen = [false; 1024];
            for occ in 0..1024u32 {
                let i = file_index(spread_file(occ) << f, f);
                assert!(!seen[i], "collision at file {f} occ {occ:#x}");
                seen[i] = true;
            }
        }
    }

    /// Table lookups agree with a slow ray walk on random occupancies.
    #[test]
    fn sliders_match_ray_walk() {
        let mut seed = 0x1234_5678_9abc_def0u64;
        for _ in 0..2000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let a = seed as u128;
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let occ = Bitboard((a << 64 | seed as u128) & (a.rotate_left(17)) & Bitboard::FULL.0);
            for s in Square::all() {
                let mut rook = Bitboard::EMPTY;
                let mut cannon = Bitboard::EMPTY;
                for (df, dr) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                    let mut cur = s.offset(df, dr);
                    let mut screen = false;
                    while let Some(t) = cur {
                        if !screen {
                            rook.set(t);
                        }
                        if occ.has(t) {
                            if screen {
                                cannon.set(t);
                                break;
                            }
                            screen = true;
                        }
                        cur = t.offset(df, dr);
                    }
                }
                assert_eq!(rook_attacks(s, occ), rook, "rook {s}");
                assert_eq!(cannon_captures(s, occ), cannon, "cannon {s}");
            }
        }
    }

    #[test]
    fn knight_legs() {
        let empty = Bitboard::EMPTY;
        assert_eq!(knight_attacks(sq("b0"), empty).count(), 3);
        assert_eq!(knight_attacks(sq("e4"), empty).count(), 8);
        // A piece on b1 blocks the b0 knight's way to a2 and c2.
        let occ = Bitboard::from_square(sq("b1"));
        let att = knight_attacks(sq("b0"), occ);
        assert_eq!(att, Bitboard::from_square(sq("d1")));
        // Attackers are the inverse relation, legs included.
        for s in Square::all() {
            for t in knight_attacks(s, occ) {
                assert!(knight_attackers(t, occ).has(s), "{s}->{t}");
            }
            for t in knight_attackers(s, occ) {
                assert!(knight_attacks(t, occ).has(s), "{t}->{s}");
            }
        }
    }

    #[test]
    fn elephants_stay_home() {
        let e = bishop_attacks(sq("c4"), Bitboard::EMPTY);
        assert_eq!(
            e,
            Bitboard::from_square(sq("a2")) | Bitboard::from_square(sq("e2"))
        );
        let blocked = bishop_attacks(sq("c4"), Bitboard::from_square(sq("d3")));
        assert_eq!(blocked, Bitboard::from_square(sq("a2")));
        assert_eq!(bishop_attacks(sq("g5"), Bitboard::EMPTY).count(), 2);
    }

    #[test]
    fn palace_and_pawns() {
        assert_eq!(king_attacks(sq("e1")).count(), 4);
        assert_eq!(king_attacks(sq("d0")).count(), 2);
        assert_eq!(advisor_attacks(sq("e8")).count(), 4);
        assert_eq!(advisor_attacks(sq("d9")), Bitboard::from_square(sq("e8")));
        assert_eq!(pawn_attacks(Color::Red, sq("a3")).count(), 1);
        assert_eq!(pawn_attacks(Color::Red, sq("c5")).count(), 3);
        assert_eq!(pawn_attacks(Color::Red, sq("c9")).count(), 2);
        assert_eq!(pawn_attacks(Color::Black, sq("e4")).count(), 3);
        assert!(pawn_attackers(Color::Black, sq("e1")).has(sq("e2")));
        assert!(pawn_attackers(Color::Black, sq("e1")).has(sq("d1")));
        assert!(!pawn_attackers(Color::Black, sq("e1")).has(sq("e0")));
        assert_eq!(between(sq("e0"), sq("e9")).count(), 8);
        assert_eq!(between(sq("a0"), sq("b1")).count(), 0);
    }
}
