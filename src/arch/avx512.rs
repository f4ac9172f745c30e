//! The AVX-512 kernel: 64-byte registers, one per block.
//!
//! It needs AVX-512F and AVX-512BW (byte shuffles, byte compares into mask registers,
//! masked byte loads) and BMI1 and POPCNT like the AVX2 kernel; it is chosen only on
//! CPUs that also have AVX-512 VBMI2, Intel from Ice Lake on and AMD from Zen 4 on, whose
//! 512-bit instructions do not slow the core down (`cpu.rs`). A block is one register: its ASCII test is
//! one load and one `vpmovb2m`, its check one register's.
//!
//! Compiled only where the compiler has the AVX-512 intrinsics (Rust 1.89; `build.rs`
//! sets `utf8check_avx512`), so the crate keeps its MSRV, and only for x86-64 (on 32-bit
//! x86 a 64-bit mask does not fit a general register).

use core::arch::x86_64::*;

use crate::arch::avx2::Avx2;
use crate::generic::{self, Vector, BLOCK};
use crate::kernel::{BlockErrors, BLOCK_READ};
use crate::scalar::RawError;

#[derive(Copy, Clone)]
pub(crate) struct Avx512(__m512i);

/// Every method's `unsafe` block relies on the trait contract: the CPU supports AVX-512F
/// and AVX-512BW, and loads are in bounds.
impl Vector for Avx512 {
    const BYTES: usize = 64;

    #[inline(always)]
    unsafe fn splat(byte: u8) -> Self {
        // SAFETY: AVX-512F is supported (trait contract).
        unsafe { Avx512(_mm512_set1_epi8(byte as i8)) }
    }

    #[inline(always)]
    unsafe fn table(table: &[u8; 16]) -> Self {
        // SAFETY: AVX-512F is supported; the load reads the 16 bytes of `table`.
        unsafe {
            let lane = _mm_loadu_si128(table.as_ptr().cast());
            Avx512(_mm512_broadcast_i32x4(lane))
        }
    }

    #[inline(always)]
    unsafe fn load(ptr: *const u8) -> Self {
        // SAFETY: AVX-512F is supported and `ptr..ptr + 64` is in bounds (trait contract).
        unsafe { Avx512(_mm512_loadu_si512(ptr.cast())) }
    }

    #[inline(always)]
    unsafe fn load_partial(ptr: *const u8, len: usize) -> Self {
        debug_assert!(len < 64);
        // SAFETY: AVX-512BW is supported; the masked load reads only the bytes whose mask
        // bit is set, `ptr..ptr + len`, in bounds (trait contract): the others are neither
        // read nor can they fault, and come back as zeros.
        unsafe {
            let mask: __mmask64 = (1u64 << len) - 1;
            Avx512(_mm512_maskz_loadu_epi8(mask, ptr.cast()))
        }
    }

    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        // SAFETY: AVX-512F is supported (trait contract).
        unsafe { Avx512(_mm512_and_si512(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        // SAFETY: AVX-512F is supported (trait contract).
        unsafe { Avx512(_mm512_or_si512(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: AVX-512F is supported (trait contract).
        unsafe { Avx512(_mm512_xor_si512(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn saturating_sub(self, other: Self) -> Self {
        // SAFETY: AVX-512BW is supported (trait contract).
        unsafe { Avx512(_mm512_subs_epu8(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn average(self, other: Self) -> Self {
        // SAFETY: AVX-512BW is supported (trait contract).
        unsafe { Avx512(_mm512_avg_epu8(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn max(self, other: Self) -> Self {
        // SAFETY: AVX-512BW is supported (trait contract).
        unsafe { Avx512(_mm512_max_epu8(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn high_nibbles(self) -> Self {
        // There is no 8-bit shift: shift 16-bit lanes and mask off the bits that crossed.
        // SAFETY: AVX-512BW is supported (trait contract).
        unsafe {
            let shifted = _mm512_srli_epi16::<4>(self.0);
            Avx512(_mm512_and_si512(shifted, _mm512_set1_epi8(0x0F)))
        }
    }

    #[inline(always)]
    unsafe fn lookup(self, indices: Self) -> Self {
        // SAFETY: AVX-512BW is supported (trait contract).
        unsafe { Avx512(_mm512_shuffle_epi8(self.0, indices.0)) }
    }

    #[inline(always)]
    unsafe fn prev1(self, prev: Self) -> Self {
        // SAFETY: AVX-512BW is supported (trait contract).
        unsafe { Avx512(_mm512_alignr_epi8::<15>(self.0, straddle(prev, self))) }
    }

    #[inline(always)]
    unsafe fn prev2(self, prev: Self) -> Self {
        // SAFETY: AVX-512BW is supported (trait contract).
        unsafe { Avx512(_mm512_alignr_epi8::<14>(self.0, straddle(prev, self))) }
    }

    #[inline(always)]
    unsafe fn prev3(self, prev: Self) -> Self {
        // SAFETY: AVX-512BW is supported (trait contract).
        unsafe { Avx512(_mm512_alignr_epi8::<13>(self.0, straddle(prev, self))) }
    }

    #[inline(always)]
    unsafe fn is_ascii(self) -> bool {
        // SAFETY: AVX-512BW is supported (trait contract).
        unsafe { _mm512_movepi8_mask(self.0) == 0 }
    }

    #[inline(always)]
    unsafe fn is_zero(self) -> bool {
        // SAFETY: AVX-512F is supported (trait contract).
        unsafe { _mm512_test_epi64_mask(self.0, self.0) == 0 }
    }

    #[inline(always)]
    unsafe fn first_nonzero(self) -> usize {
        // SAFETY: AVX-512BW is supported (trait contract).
        let nonzero = unsafe { _mm512_test_epi8_mask(self.0, self.0) };
        // Bit `i` for byte `i`; with no nonzero byte, 64 trailing zeros.
        nonzero.trailing_zeros() as usize
    }

    #[inline(always)]
    unsafe fn high_bits(self) -> u64 {
        // SAFETY: AVX-512BW is supported (trait contract).
        unsafe { _mm512_movepi8_mask(self.0) }
    }

    #[inline(always)]
    unsafe fn signed_lt(self, other: Self) -> Self {
        // SAFETY: AVX-512BW is supported (trait contract).
        unsafe { Avx512(_mm512_movm_epi8(_mm512_cmplt_epi8_mask(self.0, other.0))) }
    }

    #[inline(always)]
    unsafe fn equal(self, other: Self) -> Self {
        // SAFETY: AVX-512BW is supported (trait contract).
        unsafe { Avx512(_mm512_movm_epi8(_mm512_cmpeq_epi8_mask(self.0, other.0))) }
    }
}

/// The last 16-byte lane of `prev` and the first three of `cur`: `_mm512_alignr_epi8`
/// works within 128-bit lanes, so this is what each lane of `cur` shifts bytes in from.
#[inline(always)]
unsafe fn straddle(prev: Avx512, cur: Avx512) -> __m512i {
    // SAFETY: AVX-512F is supported (the caller's trait contract).
    unsafe { _mm512_alignr_epi64::<6>(cur.0, prev.0) }
}

/// Validates `bytes` with AVX-512 (see [`crate::kernel::ValidateFn`]); inputs of at most
/// a block with 32-byte registers.
///
/// A block is one 64-byte register, so an input of up to a block is one register's
/// ASCII test and check, where the AVX2 algorithm has two registers: but the bytes before
/// the first register come from a shift across 128-bit lanes (`valignq`, then
/// `vpalignr`) rather than from unaligned loads, the ASCII test from a mask register, and
/// an input of under 64 bytes from a masked load. On inputs of 64 bytes (Intel Xeon,
/// Emerald Rapids; `cargo bench --bench short -- 64`, three runs, against the best of
/// std and simdutf8) the AVX-512 registers were 0.87x to 1.00x on non-ASCII text and
/// 0.94x to 1.09x on ASCII, the 32-byte ones 0.95x to 1.07x and 1.15x to 1.24x. From 80
/// bytes on the AVX-512 registers were faster (80 and 112 bytes: about 2.1x and 1.95x,
/// against 1.8x and 1.5x). The 32-byte code, inlined here, needs AVX2, which AVX-512F
/// implies.
///
/// # Safety
/// The CPU must support AVX-512F, AVX-512BW, BMI1 and POPCNT ([`crate::cpu::has_avx512`]).
#[target_feature(enable = "avx512f,avx512bw,bmi1,popcnt")]
pub(crate) unsafe fn validate(bytes: &[u8]) -> Result<(), usize> {
    // SAFETY: AVX-512F, AVX-512BW, BMI1 and POPCNT are supported (this function's
    // contract), and with AVX-512F AVX2.
    unsafe {
        if bytes.len() <= BLOCK {
            return generic::validate::<Avx2>(bytes);
        }
        generic::validate::<Avx512>(bytes)
    }
}

/// Validates `bytes` with AVX-512, stopping within 512 bytes of an error (see
/// [`crate::kernel::EntryPoints::validate_early`]).
///
/// # Safety
/// As [`validate`].
#[target_feature(enable = "avx512f,avx512bw,bmi1,popcnt")]
pub(crate) unsafe fn validate_early(bytes: &[u8]) -> Result<(), usize> {
    // SAFETY: AVX-512F, AVX-512BW, BMI1 and POPCNT are supported (this function's contract).
    unsafe { generic::validate_early::<Avx512>(bytes) }
}

/// The first invalid sequence of `bytes`, found with the AVX-512 check (see
/// [`crate::kernel::FirstErrorFn`]).
///
/// # Safety
/// As [`validate`].
#[target_feature(enable = "avx512f,avx512bw,bmi1,popcnt")]
pub(crate) unsafe fn first_invalid(bytes: &[u8]) -> Option<RawError> {
    // SAFETY: AVX-512F, AVX-512BW, BMI1 and POPCNT are supported (this function's contract).
    unsafe { generic::first_invalid::<Avx512>(bytes) }
}

/// The invalid sequences of a block, found with AVX-512 (see
/// [`crate::kernel::BlockErrorsFn`]).
///
/// # Safety
/// As [`validate`].
#[target_feature(enable = "avx512f,avx512bw,bmi1,popcnt")]
pub(crate) unsafe fn block_errors(bytes: &[u8; BLOCK_READ], carry: u64, out: &mut BlockErrors) {
    // SAFETY: AVX-512F, AVX-512BW, BMI1 and POPCNT are supported (this function's contract).
    unsafe { generic::block_errors::<Avx512>(bytes, carry, out) }
}
