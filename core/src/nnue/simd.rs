//! Compiling a computation once per hidden width and instruction set, and
//! choosing the instance once.
//!
//! A `Kernel` is a computation generic over the width `H` (a const
//! generic, so its loops run over fixed-size arrays). `Simd::run` calls the
//! instance for a width on an instruction set: the portable one is compiled
//! for the build's target (SSE2 on x86-64), the AVX2 one inside a
//! `#[target_feature(enable = "avx2")]` function, where the same loops
//! become 256-bit vector code. The network (and the trainer) pick the
//! `Simd` when they are made and keep it, so no call tests the CPU.

/// Declares the hidden widths once: `WIDTHS`, the largest (`MAX_HIDDEN`)
/// and the arms of `Simd::run` that compile a kernel for each. A width
/// added here is accepted in network files, compiled on every instruction
/// set and tested; nothing else lists them.
macro_rules! widths {
    ($($h:literal),+) => {
        /// The hidden widths this build runs.
        pub const WIDTHS: [usize; [$($h),+].len()] = [$($h),+];

        /// The instance of `kernel` for width `hidden` on `simd`; None for
        /// a width not in `WIDTHS`.
        #[inline(always)]
        fn dispatch<K: Kernel>(simd: Simd, hidden: usize, kernel: K) -> Option<K::Output> {
            Some(match (simd, hidden) {
                $(
                    // SAFETY: a `Simd::Avx2` in use was made by `detect` or
                    // checked with `available`.
                    #[cfg(target_arch = "x86_64")]
                    (Simd::Avx2, $h) => unsafe { run_avx2::<K, $h>(kernel) },
                    (_, $h) => kernel.run::<$h, false>(),
                )+
                _ => return None,
            })
        }
    };
}

widths!(256, 512, 768, 1024);

/// The widest hidden layer (accumulator buffers are sized for it).
pub const MAX_HIDDEN: usize = {
    let mut max = 0;
    let mut i = 0;
    while i < WIDTHS.len() {
        if WIDTHS[i] > max {
            max = WIDTHS[i];
        }
        i += 1;
    }
    max
};

/// The instruction set a network's arithmetic runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simd {
    /// Plain loops compiled for the build's target (SSE2 on x86-64).
    Portable,
    /// The same loops compiled with AVX2 (x86-64 CPUs that have it).
    Avx2,
}

/// A computation generic over the hidden width.
pub trait Kernel {
    type Output;

    /// The computation for width `H`; `AVX2` is true in the instance
    /// compiled with AVX2 enabled, where AVX2 intrinsics may be called.
    /// Implementations must be `#[inline(always)]`, so that the body is
    /// compiled inside the instance that calls it.
    fn run<const H: usize, const AVX2: bool>(self) -> Self::Output;
}

impl Simd {
    /// The best this CPU runs.
    pub fn detect() -> Simd {
        if Simd::Avx2.available() {
            Simd::Avx2
        } else {
            Simd::Portable
        }
    }

    /// Whether this CPU can run it.
    pub fn available(self) -> bool {
        match self {
            Simd::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => std::is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            Simd::Avx2 => false,
        }
    }

    /// Runs `kernel` for width `hidden` on this instruction set.
    ///
    /// # Panics
    /// If `hidden` is not one of `WIDTHS`, or (debug builds) if this CPU
    /// cannot run `self`; callers make a `Simd` with `detect` or check
    /// `available`.
    #[inline(always)]
    pub fn run<K: Kernel>(self, hidden: usize, kernel: K) -> K::Output {
        debug_assert!(self.available());
        match dispatch(self, hidden, kernel) {
            Some(out) => out,
            None => panic!("hidden width {hidden}: the kernels are compiled for {WIDTHS:?}"),
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn run_avx2<K: Kernel, const H: usize>(kernel: K) -> K::Output {
    kernel.run::<H, true>()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Sum<'a>(&'a [i32]);

    impl Kernel for Sum<'_> {
        type Output = (usize, i64);
        #[inline(always)]
        fn run<const H: usize, const AVX2: bool>(self) -> (usize, i64) {
            let x: &[i32; H] = self.0[..H].try_into().unwrap();
            (H, x.iter().map(|&v| v as i64).sum())
        }
    }

    #[test]
    fn every_width_runs_its_own_instance_on_every_instruction_set() {
        let v: Vec<i32> = (0..1024).collect();
        for simd in [Simd::Portable, Simd::Avx2] {
            if !simd.available() {
                continue;
            }
            for h in WIDTHS {
                let (w, s) = simd.run(h, Sum(&v));
                assert_eq!((w, s), (h, (h * (h - 1) / 2) as i64));
            }
        }
    }
}
