//! The transposition table, shared by all search threads without locks.
//!
//! Each entry is two atomic words: the data and the key xor-ed with the data.
//! A reader accepts an entry only when `key_word ^ data == key`, so an entry
//! torn by two threads writing at once reads as a miss, never as a wrong hit.
//! Entries live in buckets of four (one cache line); a store replaces the
//! same key or else the shallowest, oldest entry of its bucket.

use crate::board::Move;
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact = 1,
    /// The score is at least this (a fail-high).
    Lower = 2,
    /// The score is at most this (a fail-low).
    Upper = 3,
}

/// What a probe finds.
#[derive(Clone, Copy, Debug)]
pub struct TtHit {
    pub mv: Move,
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
    /// Written by the search now running (not by an earlier one).
    pub current: bool,
    /// The position is or was on a principal variation ("ttPv"): searched
    /// at a PV node, or stored by a node that had found it so marked.
    pub pv: bool,
}

#[derive(Default)]
struct Entry {
    key: AtomicU64,
    data: AtomicU64,
}

const BUCKET: usize = 4;

/// Four entries in one cache line: aligned so a probe costs one memory access.
#[repr(align(64))]
#[derive(Default)]
struct Bucket([Entry; BUCKET]);
const GEN_MASK: u8 = 0x3f;
/// Stored depths are offset so that quiescence depths (down to
/// -DEPTH_OFFSET) fit their seven bits (up to 119, past any search's reach:
/// MAX_PLY is 120).
const DEPTH_OFFSET: i32 = 8;
const DEPTH_BITS: u64 = 0x7f;
const PV_BIT: u64 = 1 << 55;

pub struct Tt {
    table: Table,
    buckets: usize,
    generation: AtomicU8,
}

/// Tables this large are cleared by several threads at once.
const PARALLEL_CLEAR_BYTES: usize = 64 << 20;

/// One entry's data: move (16 bits), score (16), evaluation (16), depth
/// (7), the PV mark (1), bound (2), generation (6).
fn pack(mv: Move, score: i32, eval: i32, depth: i32, bound: Bound, pv: bool, gen: u8) -> u64 {
    (mv.raw() as u64)
        | ((score as i16 as u16 as u64) << 16)
        | ((eval as i16 as u16 as u64) << 32)
        | (((depth + DEPTH_OFFSET).clamp(0, DEPTH_BITS as i32) as u64) << 48)
        | if pv { PV_BIT } else { 0 }
        | ((bound as u64) << 56)
        | ((gen as u64 & GEN_MASK as u64) << 58)
}

fn unpack(data: u64, gen: u8) -> Option<TtHit> {
    let bound = match (data >> 56) & 3 {
        1 => Bound::Exact,
        2 => Bound::Lower,
        3 => Bound::Upper,
        _ => return None,
    };
    Some(TtHit {
        mv: Move::from_raw(data as u16).unwrap_or(Move::NONE),
        score: (data >> 16) as u16 as i16 as i32,
        eval: (data >> 32) as u16 as i16 as i32,
        depth: data_depth(data) - DEPTH_OFFSET,
        bound,
        current: data_gen(data) == gen,
        pv: data & PV_BIT != 0,
    })
}

#[inline]
fn data_depth(data: u64) -> i32 {
    ((data >> 48) & DEPTH_BITS) as i32
}

#[inline]
fn data_gen(data: u64) -> u8 {
    (data >> 58) as u8 & GEN_MASK
}

impl Tt {
    /// A table of `mb` megabytes (at least one bucket), or None if the
    /// system will not give that much memory.
    ///
    /// The memory comes zeroed from the system (an empty entry is all
    /// zeros), so nothing is written here: the pages of a huge table are not
    /// touched, and so not really taken, until the search stores into them.
    pub fn try_new(mb: usize) -> Option<Tt> {
        let buckets = (mb.saturating_mul(1 << 20) / std::mem::size_of::<Bucket>()).max(1);
        let table = Table::zeroed(buckets)?;
        Some(Tt {
            table,
            buckets,
            generation: AtomicU8::new(0),
        })
    }

    /// The table's size in bytes.
    pub fn bytes(&self) -> usize {
        self.buckets * std::mem::size_of::<Bucket>()
    }

    /// Empties the table, on several threads when it is large. Through the
    /// atomics, because a read view of the table (`HashView`) may be held
    /// elsewhere.
    pub fn clear(&self) {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = if self.bytes() >= PARALLEL_CLEAR_BYTES {
            threads.min(64)
        } else {
            1
        };
        let chunk = self.table.len().div_ceil(threads).max(1);
        let clear = |part: &[Bucket]| {
            for e in part.iter().flat_map(|b| b.0.iter()) {
                e.key.store(0, Ordering::Relaxed);
                e.data.store(0, Ordering::Relaxed);
            }
        };
        if threads == 1 {
            clear(&self.table);
        } else {
            std::thread::scope(|s| {
                let mut parts = self.table.chunks(chunk);
                // This thread clears the first part itself; a helper that
                // cannot be started leaves its part to this thread too.
                let first = parts.next().unwrap_or(&[]);
                let mut left = Vec::new();
                for part in parts {
                    if std::thread::Builder::new()
                        .spawn_scoped(s, move || clear(part))
                        .is_err()
                    {
                        left.push(part);
                    }
                }
                clear(first);
                left.into_iter().for_each(clear);
            });
        }
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Marks the start of a new search, so entries of older searches age.
    pub fn new_search(&self) {
        let g = self.generation.load(Ordering::Relaxed);
        self.generation
            .store(g.wrapping_add(1) & GEN_MASK, Ordering::Relaxed);
    }

    #[inline]
    fn bucket(&self, key: u64) -> &[Entry] {
        let i = ((key as u128 * self.buckets as u128) >> 64) as usize;
        &self.table[i].0
    }

    /// Starts loading the bucket of `key` into the cache, so that the probe a
    /// few hundred cycles later does not stall on memory.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let ptr = self.bucket(key).as_ptr() as *const i8;
            // SAFETY: prefetching is only a hint; any address is allowed.
            unsafe { _mm_prefetch(ptr, _MM_HINT_T0) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<TtHit> {
        for e in self.bucket(key) {
            let data = e.data.load(Ordering::Relaxed);
            if e.key.load(Ordering::Relaxed) ^ data == key {
                return unpack(data, self.generation.load(Ordering::Relaxed));
            }
        }
        None
    }

    /// Stores a search result; `pv` marks a position that is or was on a
    /// principal variation.
    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &self,
        key: u64,
        mv: Move,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
        pv: bool,
    ) {
        let gen = self.generation.load(Ordering::Relaxed);
        let bucket = self.bucket(key);
        let mut victim = &bucket[0];
        let mut victim_worth = i32::MAX;
        for e in bucket {
            let data = e.data.load(Ordering::Relaxed);
            let k = e.key.load(Ordering::Relaxed) ^ data;
            if k == key && data != 0 {
                // Same position: keep a deeper result of this search unless
                // the new one is exact, and keep the old move if none is given.
                let old = unpack(data, gen);
                if let Some(old) = old {
                    if bound != Bound::Exact && depth + 3 < old.depth && data_gen(data) == gen {
                        return;
                    }
                    let mv = if mv.is_none() { old.mv } else { mv };
                    let new = pack(mv, score, eval, depth, bound, pv, gen);
                    e.key.store(key ^ new, Ordering::Relaxed);
                    e.data.store(new, Ordering::Relaxed);
                    return;
                }
            }
            let age = (gen.wrapping_sub(data_gen(data)) & GEN_MASK) as i32;
            let worth = data_depth(data) - 8 * age;
            if worth < victim_worth {
                victim_worth = worth;
                victim = e;
            }
        }
        let new = pack(mv, score, eval, depth, bound, pv, gen);
        victim.key.store(key ^ new, Ordering::Relaxed);
        victim.data.store(new, Ordering::Relaxed);
    }

    /// Per mille of sampled entries written in the current search.
    pub fn hashfull(&self) -> u32 {
        let gen = self.generation.load(Ordering::Relaxed);
        let n = (self.table.len() * BUCKET).min(1000);
        let used = self
            .table
            .iter()
            .flat_map(|b| b.0.iter())
            .take(n)
            .filter(|e| {
                let d = e.data.load(Ordering::Relaxed);
                d != 0 && data_gen(d) == gen
            })
            .count();
        (used * 1000 / n.max(1)) as u32
    }
}

/// Zeroed buckets straight from the system, owned.
///
/// Large tables are mapped directly (on Linux) and marked for transparent
/// huge pages before anything touches them: every probe lands on a random
/// page, and with 4 KB pages most probes also miss the TLB (the prefetch
/// before each move stalled on the page walk: half of `make`'s samples).
/// The kernel zeroes the pages when first touched, so a large table takes
/// its memory only as the search fills it.
///
/// Elsewhere, and for tables under one huge page, the block comes from the
/// allocator with 16-byte alignment, because that is what it serves through
/// `calloc`, which hands out fresh pages the system zeroes when first
/// touched; asked for more alignment, it would allocate and then write
/// zeros over every page at once. The buckets start at the first aligned
/// boundary inside the block.
struct Table {
    block: NonNull<u8>,
    size: usize,
    mapped: bool,
    buckets: NonNull<Bucket>,
    len: usize,
}

// SAFETY: a `Table` owns its block like a `Box<[Bucket]>` would, and buckets
// are only ever changed through atomics.
unsafe impl Send for Table {}
unsafe impl Sync for Table {}

/// The size of a transparent huge page on x86-64 and most of arm64.
const HUGE_PAGE: usize = 2 << 20;

impl Table {
    /// `n` (> 0) empty buckets, or None if the allocation fails: never an abort.
    fn zeroed(n: usize) -> Option<Table> {
        if n == 0 {
            return None;
        }
        let bytes = n.checked_mul(std::mem::size_of::<Bucket>())?;
        let (block, size, mapped, align) = match Self::map_huge(bytes) {
            Some((block, size)) => (block, size, true, HUGE_PAGE),
            None => {
                let align = std::mem::align_of::<Bucket>();
                let size = bytes.checked_add(align)?;
                let layout = Layout::from_size_align(size, 16).ok()?;
                // SAFETY: the layout has a non-zero size.
                let block = NonNull::new(unsafe { alloc_zeroed(layout) })?;
                (block, size, false, align)
            }
        };
        let offset = block.as_ptr().align_offset(align);
        debug_assert!(offset < align);
        // SAFETY: `offset < align`, and the block has `align` bytes beyond
        // the n buckets, so the buckets lie inside it.
        let first = unsafe { block.as_ptr().add(offset) } as *mut Bucket;
        Some(Table {
            block,
            size,
            mapped,
            buckets: NonNull::new(first)?,
            len: n,
        })
    }

    /// An anonymous mapping of `bytes` plus a huge page of slack (so that a
    /// huge-page boundary lies within reach of its start), advised to use
    /// huge pages; None for small tables, on other systems, or on failure.
    #[cfg(target_os = "linux")]
    fn map_huge(bytes: usize) -> Option<(NonNull<u8>, usize)> {
        if bytes < HUGE_PAGE {
            return None;
        }
        let size = bytes.checked_add(HUGE_PAGE)?;
        // SAFETY: a fresh private anonymous mapping, no file, no fixed address.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return None;
        }
        // Only advice: without transparent huge pages it fails, and the
        // table works as well on small pages.
        // SAFETY: the range is the mapping just made.
        unsafe { libc::madvise(p, size, libc::MADV_HUGEPAGE) };
        Some((NonNull::new(p as *mut u8)?, size))
    }

    #[cfg(not(target_os = "linux"))]
    fn map_huge(_bytes: usize) -> Option<(NonNull<u8>, usize)> {
        None
    }
}

impl std::ops::Deref for Table {
    type Target = [Bucket];
    fn deref(&self) -> &[Bucket] {
        // SAFETY: `buckets` is aligned for `Bucket` and has `len` of them
        // inside the block, which lives as long as `self`; all-zero bytes
        // are a valid `Bucket` (atomic integers), and after that buckets
        // change only through atomics, so shared references are fine.
        unsafe { std::slice::from_raw_parts(self.buckets.as_ptr(), self.len) }
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        if self.mapped {
            #[cfg(target_os = "linux")]
            // SAFETY: mapped in `map_huge` with exactly this size.
            unsafe {
                libc::munmap(self.block.as_ptr() as *mut libc::c_void, self.size);
            }
        } else {
            // SAFETY: allocated in `zeroed` with exactly this layout, which
            // `from_size_align` accepted there.
            unsafe {
                dealloc(
                    self.block.as_ptr(),
                    Layout::from_size_align_unchecked(self.size, 16),
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Tt {
        fn new(mb: usize) -> Tt {
            Tt::try_new(mb).expect("a small table")
        }
    }

    #[test]
    fn clear_empties_every_entry_also_in_parallel() {
        for mb in [1, (PARALLEL_CLEAR_BYTES >> 20) + 1] {
            let tt = Tt::new(mb);
            let mv: Move = "h2e2".parse().unwrap();
            let keys: Vec<u64> = (1..2000u64)
                .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .collect();
            for &k in &keys {
                tt.store(k, mv, 1, 2, 3, Bound::Exact, false);
            }
            assert!(keys.iter().filter(|&&k| tt.probe(k).is_some()).count() > 1000);
            tt.clear();
            assert!(keys.iter().all(|&k| tt.probe(k).is_none()), "{mb} MB");
        }
    }

    #[test]
    fn an_impossible_size_is_refused_not_aborted() {
        // Too large to describe, and describable but larger than any
        // address space: both come back as None.
        assert!(Tt::try_new(usize::MAX).is_none());
        assert!(Table::zeroed(isize::MAX as usize / std::mem::size_of::<Bucket>() / 2).is_none());
        assert!(Table::zeroed(0).is_none());
    }

    #[test]
    fn large_tables_start_on_a_huge_page() {
        let per_page = HUGE_PAGE / std::mem::size_of::<Bucket>();
        let small = Table::zeroed(per_page - 1).unwrap();
        assert!(!small.mapped);
        let large = Table::zeroed(2 * per_page).unwrap();
        assert_eq!(large.mapped, cfg!(target_os = "linux"));
        if large.mapped {
            assert_eq!(large.buckets.as_ptr() as usize % HUGE_PAGE, 0);
        }
        assert!(large
            .iter()
            .all(|b| b.0.iter().all(|e| e.key.load(Ordering::Relaxed) == 0)));
    }

    #[test]
    fn store_and_probe_round_trip() {
        let tt = Tt::new(1);
        let mv: Move = "h2e2".parse().unwrap();
        tt.store(
            0xdead_beef_1234_5678,
            mv,
            -29990,
            37,
            12,
            Bound::Lower,
            true,
        );
        let hit = tt.probe(0xdead_beef_1234_5678).expect("hit");
        assert!(hit.pv);
        assert_eq!(hit.mv, mv);
        assert_eq!(hit.score, -29990);
        assert_eq!(hit.eval, 37);
        assert_eq!(hit.depth, 12);
        assert_eq!(hit.bound, Bound::Lower);
        assert!(hit.current);
        assert!(tt.probe(0x1234).is_none());
        // The next search still finds the entry, marked as an older search's.
        tt.new_search();
        let hit = tt.probe(0xdead_beef_1234_5678).expect("hit");
        assert_eq!((hit.score, hit.current), (-29990, false));
        tt.store(0xdead_beef_1234_5678, mv, 11, 37, 13, Bound::Exact, false);
        let hit = tt.probe(0xdead_beef_1234_5678).unwrap();
        assert!(hit.current && !hit.pv);
    }

    #[test]
    fn quiescence_depths_fit() {
        let tt = Tt::new(1);
        tt.store(42, Move::NONE, 5, 5, -1, Bound::Upper, false);
        assert_eq!(tt.probe(42).map(|h| h.depth), Some(-1));
        // The deepest depth a search can reach fits, and the PV mark beside
        // it is its own bit.
        let max = crate::search::MAX_DEPTH as i32;
        tt.store(43, Move::NONE, 5, 5, max, Bound::Lower, true);
        let hit = tt.probe(43).unwrap();
        assert_eq!((hit.depth, hit.pv, hit.bound), (max, true, Bound::Lower));
    }
}
