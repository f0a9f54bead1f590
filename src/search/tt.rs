//! The transposition table, shared by all search threads without locks.
//!
//! Each entry is two atomic words: the data and the key xor-ed with the data.
//! A reader accepts an entry only when `key_word ^ data == key`, so an entry
//! torn by two threads writing at once reads as a miss, never as a wrong hit.
//! Entries live in buckets of four (one cache line); a store replaces the
//! same key or else the shallowest, oldest entry of its bucket.

use crate::board::Move;
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
/// Stored depths are offset so that quiescence depths (down to -DEPTH_OFFSET) fit a byte.
const DEPTH_OFFSET: i32 = 8;

pub struct Tt {
    table: Vec<Bucket>,
    buckets: usize,
    generation: AtomicU8,
}

fn pack(mv: Move, score: i32, eval: i32, depth: i32, bound: Bound, gen: u8) -> u64 {
    (mv.raw() as u64)
        | ((score as i16 as u16 as u64) << 16)
        | ((eval as i16 as u16 as u64) << 32)
        | (((depth + DEPTH_OFFSET).clamp(0, 255) as u64) << 48)
        | ((bound as u64) << 56)
        | ((gen as u64 & GEN_MASK as u64) << 58)
}

fn unpack(data: u64) -> Option<TtHit> {
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
        depth: ((data >> 48) & 0xff) as i32 - DEPTH_OFFSET,
        bound,
    })
}

#[inline]
fn data_depth(data: u64) -> i32 {
    ((data >> 48) & 0xff) as i32
}

#[inline]
fn data_gen(data: u64) -> u8 {
    (data >> 58) as u8 & GEN_MASK
}

impl Tt {
    /// A table of about `mb` megabytes; if the memory cannot be had, the
    /// largest halving of it that can (a GUI may ask for more than exists).
    pub fn new(mb: usize) -> Tt {
        let bytes = mb.clamp(1, 1 << 24).saturating_mul(1024 * 1024);
        let mut buckets = (bytes / std::mem::size_of::<Bucket>()).max(1);
        let mut table: Vec<Bucket> = Vec::new();
        while table.try_reserve_exact(buckets).is_err() && buckets > 1 {
            buckets /= 2;
        }
        table.resize_with(buckets, Bucket::default);
        Tt {
            table,
            buckets,
            generation: AtomicU8::new(0),
        }
    }

    /// Empties the table. Through the atomics, because a read view of the
    /// table (`HashView`) may be held elsewhere.
    pub fn clear(&self) {
        for e in self.table.iter().flat_map(|b| b.0.iter()) {
            e.key.store(0, Ordering::Relaxed);
            e.data.store(0, Ordering::Relaxed);
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
                return unpack(data);
            }
        }
        None
    }

    pub fn store(&self, key: u64, mv: Move, score: i32, eval: i32, depth: i32, bound: Bound) {
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
                let old = unpack(data);
                if let Some(old) = old {
                    if bound != Bound::Exact && depth + 3 < old.depth && data_gen(data) == gen {
                        return;
                    }
                    let mv = if mv.is_none() { old.mv } else { mv };
                    let new = pack(mv, score, eval, depth, bound, gen);
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
        let new = pack(mv, score, eval, depth, bound, gen);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe_round_trip() {
        let tt = Tt::new(1);
        let mv: Move = "h2e2".parse().unwrap();
        tt.store(0xdead_beef_1234_5678, mv, -29990, 37, 12, Bound::Lower);
        let hit = tt.probe(0xdead_beef_1234_5678).expect("hit");
        assert_eq!(hit.mv, mv);
        assert_eq!(hit.score, -29990);
        assert_eq!(hit.eval, 37);
        assert_eq!(hit.depth, 12);
        assert_eq!(hit.bound, Bound::Lower);
        assert!(tt.probe(0x1234).is_none());
    }

    #[test]
    fn quiescence_depths_fit() {
        let tt = Tt::new(1);
        tt.store(42, Move::NONE, 5, 5, -1, Bound::Upper);
        assert_eq!(tt.probe(42).map(|h| h.depth), Some(-1));
    }
}
