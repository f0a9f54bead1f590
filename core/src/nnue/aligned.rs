//! i16 storage aligned to cache lines, for the network's weight rows and the
//! evaluator's accumulators: a row of 256, 512, 768 or 1024 values then
//! starts on a line, and no 32-byte vector load straddles two lines (with
//! the allocator's 16-byte alignment, half of them would).

use std::ops::{Deref, DerefMut};

/// One cache line of values.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([i16; 32]);

const PER_LINE: usize = 32;

/// A vector of i16 whose first value starts a 64-byte line.
#[derive(Clone, Default)]
pub struct AlignedI16 {
    lines: Vec<Line>,
    len: usize,
}

impl AlignedI16 {
    pub fn zeroed(len: usize) -> AlignedI16 {
        AlignedI16 {
            lines: vec![Line([0; PER_LINE]); len.div_ceil(PER_LINE)],
            len,
        }
    }

    /// Grows or shrinks to `len` values, new ones zero.
    pub fn resize(&mut self, len: usize) {
        if len < self.len {
            self[len..].fill(0);
        }
        self.lines
            .resize(len.div_ceil(PER_LINE), Line([0; PER_LINE]));
        self.len = len;
    }
}

impl From<&[i16]> for AlignedI16 {
    fn from(values: &[i16]) -> AlignedI16 {
        let mut a = AlignedI16::zeroed(values.len());
        a.copy_from_slice(values);
        a
    }
}

impl Deref for AlignedI16 {
    type Target = [i16];

    fn deref(&self) -> &[i16] {
        // SAFETY: `Line` is `repr(C)` around `[i16; 32]` with size 64 and
        // no padding, so the lines are contiguous i16 values, and `len` never
        // exceeds 32 per line.
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr() as *const i16, self.len) }
    }
}

impl DerefMut for AlignedI16 {
    fn deref_mut(&mut self) -> &mut [i16] {
        // SAFETY: as in `deref`, with the unique borrow of the lines.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr() as *mut i16, self.len) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_start_on_a_line_and_keep_their_order() {
        let v: Vec<i16> = (0..1000).map(|i| i as i16 * 3 - 7).collect();
        let mut a = AlignedI16::from(&v[..]);
        assert_eq!(&a[..], &v[..]);
        assert_eq!(a.as_ptr() as usize % 64, 0);
        a.resize(2000);
        assert_eq!(&a[..1000], &v[..]);
        assert!(a[1000..].iter().all(|&x| x == 0));
        a.resize(10);
        a.resize(40);
        assert_eq!(&a[..10], &v[..10]);
        assert!(a[10..].iter().all(|&x| x == 0));
        assert_eq!(AlignedI16::zeroed(0).len(), 0);
    }
}
