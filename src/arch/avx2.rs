//! The AVX2 kernel: 32-byte registers, two per block.
//!
//! Its entry points also enable BMI1 and POPCNT, which every AVX2 CPU has (they are part
//! of x86-64-v3, as AVX2 is; simdutf's AVX2 kernel needs them too): the main loop's
//! choice of way counts the non-ASCII blocks of each window (`count_ones`) and walks
//! masks (`trailing_zeros`, clearing the lowest bit), which without them take a dozen
//! instructions each. On text with a non-ASCII character every 512 bytes or 1 KiB the
//! loop ran 5 to 6% faster with them (`docs/design.md`, "Counting bits").

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use crate::generic::{self, read_partial_words, Vector};
use crate::kernel::{BlockErrors, BLOCK_READ};
use crate::scalar::RawError;

#[derive(Copy, Clone)]
pub(crate) struct Avx2(__m256i);

/// Every method's `unsafe` block relies on the trait contract: the CPU supports AVX2, and
/// loads are in bounds.
impl Vector for Avx2 {
    const BYTES: usize = 32;

    #[inline(always)]
    unsafe fn splat(byte: u8) -> Self {
        // SAFETY: AVX2 is supported (trait contract).
        unsafe { Avx2(_mm256_set1_epi8(byte as i8)) }
    }

    #[inline(always)]
    unsafe fn table(table: &[u8; 16]) -> Self {
        // SAFETY: AVX2 is supported; the load reads the 16 bytes of `table`.
        unsafe {
            let lane = _mm_loadu_si128(table.as_ptr().cast());
            Avx2(_mm256_broadcastsi128_si256(lane))
        }
    }

    #[inline(always)]
    unsafe fn load(ptr: *const u8) -> Self {
        // SAFETY: AVX2 is supported and `ptr..ptr + 32` is in bounds (trait contract).
        unsafe { Avx2(_mm256_loadu_si256(ptr.cast())) }
    }

    #[inline(always)]
    unsafe fn load_partial(ptr: *const u8, len: usize) -> Self {
        // SAFETY: AVX2 is supported and `ptr..ptr + len` is in bounds (trait contract); the
        // full 16-byte load happens only when `len >= 16`, the partial reads stay within
        // `len` bytes.
        unsafe {
            let (low, high) = if len >= 16 {
                let (a, b) = read_partial_words(ptr.add(16), len - 16);
                (
                    _mm_loadu_si128(ptr.cast()),
                    _mm_set_epi64x(b as i64, a as i64),
                )
            } else {
                let (a, b) = read_partial_words(ptr, len);
                (_mm_set_epi64x(b as i64, a as i64), _mm_setzero_si128())
            };
            Avx2(_mm256_set_m128i(high, low))
        }
    }

    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        // SAFETY: AVX2 is supported (trait contract).
        unsafe { Avx2(_mm256_and_si256(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        // SAFETY: AVX2 is supported (trait contract).
        unsafe { Avx2(_mm256_or_si256(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: AVX2 is supported (trait contract).
        unsafe { Avx2(_mm256_xor_si256(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn saturating_sub(self, other: Self) -> Self {
        // SAFETY: AVX2 is supported (trait contract).
        unsafe { Avx2(_mm256_subs_epu8(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn average(self, other: Self) -> Self {
        // SAFETY: AVX2 is supported (trait contract).
        unsafe { Avx2(_mm256_avg_epu8(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn max(self, other: Self) -> Self {
        // SAFETY: AVX2 is supported (trait contract).
        unsafe { Avx2(_mm256_max_epu8(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn high_nibbles(self) -> Self {
        // There is no 8-bit shift: shift 16-bit lanes and mask off the bits that crossed.
        // SAFETY: AVX2 is supported (trait contract).
        unsafe { Avx2(_mm256_srli_epi16::<4>(self.0)).and(Self::splat(0x0F)) }
    }

    #[inline(always)]
    unsafe fn lookup(self, table: Self) -> Self {
        // SAFETY: AVX2 is supported (trait contract).
        unsafe { Avx2(_mm256_shuffle_epi8(table.0, self.0)) }
    }

    #[inline(always)]
    unsafe fn prev1(self, prev: Self) -> Self {
        // SAFETY: AVX2 is supported (trait contract).
        unsafe { Avx2(_mm256_alignr_epi8::<15>(self.0, straddle(prev, self))) }
    }

    #[inline(always)]
    unsafe fn prev2(self, prev: Self) -> Self {
        // SAFETY: AVX2 is supported (trait contract).
        unsafe { Avx2(_mm256_alignr_epi8::<14>(self.0, straddle(prev, self))) }
    }

    #[inline(always)]
    unsafe fn prev3(self, prev: Self) -> Self {
        // SAFETY: AVX2 is supported (trait contract).
        unsafe { Avx2(_mm256_alignr_epi8::<13>(self.0, straddle(prev, self))) }
    }

    #[inline(always)]
    unsafe fn is_ascii(self) -> bool {
        // SAFETY: AVX2 is supported (trait contract).
        // (`vpmovmskb` and a scalar test rather than `vptest`: 3 to 10% faster on Zen 3,
        // measured on sparse, ASCII and dense text; see docs/design.md.)
        unsafe { _mm256_movemask_epi8(self.0) == 0 }
    }

    #[inline(always)]
    unsafe fn push_non_ascii(mask: u64, ptr: *const u8, len: usize) -> u64 {
        // SAFETY: `ptr .. ptr + len` is in bounds (the caller's guarantee); the CPU
        // supports the kernel (trait contract).
        super::push_nonzero(mask, unsafe {
            generic::or_of::<Self>(ptr, len).high_bits()
        })
    }

    #[inline(always)]
    unsafe fn is_zero(self) -> bool {
        // SAFETY: AVX2 is supported (trait contract).
        unsafe { _mm256_testz_si256(self.0, self.0) == 1 }
    }

    #[inline(always)]
    unsafe fn first_nonzero(self) -> usize {
        // SAFETY: AVX2 is supported (trait contract).
        let zeros =
            unsafe { _mm256_movemask_epi8(_mm256_cmpeq_epi8(self.0, _mm256_setzero_si256())) };
        // Bit `i` for byte `i`; with no nonzero byte, 32 trailing zeros.
        (!zeros as u32).trailing_zeros() as usize
    }

    #[inline(always)]
    unsafe fn high_bits(self) -> u64 {
        // SAFETY: AVX2 is supported (trait contract).
        u64::from(unsafe { _mm256_movemask_epi8(self.0) } as u32)
    }

    #[inline(always)]
    unsafe fn signed_lt(self, other: Self) -> Self {
        // SAFETY: AVX2 is supported (trait contract).
        unsafe { Avx2(_mm256_cmpgt_epi8(other.0, self.0)) }
    }

    #[inline(always)]
    unsafe fn equal(self, other: Self) -> Self {
        // SAFETY: AVX2 is supported (trait contract).
        unsafe { Avx2(_mm256_cmpeq_epi8(self.0, other.0)) }
    }
}

/// The high lane of `prev` and the low lane of `cur`: `_mm256_alignr_epi8` works within
/// 128-bit lanes, so this is what the low lane of `cur` shifts bytes in from.
#[inline(always)]
unsafe fn straddle(prev: Avx2, cur: Avx2) -> __m256i {
    // SAFETY: AVX2 is supported (the caller's trait contract).
    unsafe { _mm256_permute2x128_si256::<0x21>(prev.0, cur.0) }
}

// `validate` and `from_utf8`: the CPU must support AVX2, BMI1 and POPCNT
// ([`crate::cpu::has_avx2`]).
entry_points!(Avx2, "avx2,bmi1,popcnt");

/// Validates `bytes` with AVX2, stopping within 512 bytes of an error (see
/// [`crate::kernel::EntryPoints::validate_early`]).
///
/// # Safety
/// The CPU must support AVX2, BMI1 and POPCNT ([`crate::cpu::has_avx2`]).
#[target_feature(enable = "avx2,bmi1,popcnt")]
pub(crate) unsafe fn validate_early(bytes: &[u8]) -> Result<(), usize> {
    // SAFETY: AVX2, BMI1 and POPCNT are supported (this function's contract).
    unsafe { generic::validate_early::<Avx2>(bytes) }
}

/// The first invalid sequence of `bytes`, found with the AVX2 check (see
/// [`crate::kernel::FirstErrorFn`]).
///
/// # Safety
/// The CPU must support AVX2, BMI1 and POPCNT ([`crate::cpu::has_avx2`]).
#[target_feature(enable = "avx2,bmi1,popcnt")]
pub(crate) unsafe fn first_invalid(bytes: &[u8]) -> Option<RawError> {
    // SAFETY: AVX2, BMI1 and POPCNT are supported (this function's contract).
    unsafe { generic::first_invalid::<Avx2>(bytes) }
}

/// The invalid sequences of a block, found with AVX2 (see
/// [`crate::kernel::BlockErrorsFn`]).
///
/// # Safety
/// The CPU must support AVX2, BMI1 and POPCNT ([`crate::cpu::has_avx2`]).
#[target_feature(enable = "avx2,bmi1,popcnt")]
pub(crate) unsafe fn block_errors(bytes: &[u8; BLOCK_READ], carry: u64, out: &mut BlockErrors) {
    // SAFETY: AVX2, BMI1 and POPCNT are supported (this function's contract).
    unsafe { generic::block_errors::<Avx2>(bytes, carry, out) }
}
