//! The AVX-512 kernel: 64-byte registers, one per block.
//!
//! It needs AVX-512F and AVX-512BW (byte shifts, byte compares into mask registers,
//! masked byte loads), AVX-512 VBMI (`vpermb`, the check's table lookups), BMI1 and POPCNT
//! like the AVX2 kernel, and BMI2 (`bzhi`, the mask of a masked load); it is chosen only on
//! CPUs that also have AVX-512 VBMI2, Intel from Ice Lake on and AMD from Zen 4 on, whose
//! 512-bit instructions do not slow the core down (`cpu.rs`; every such CPU has VBMI). A
//! block is one register for its check, and two 32-byte loads ORed and a `vpmovmskb` for
//! its ASCII test ([`Vector::all_ascii`] below: faster on Zen 4 than a 64-byte load and a
//! mask register); an input of up to a block is one load (a masked one where it is
//! shorter).
//!
//! The table lookups are `vpermb` rather than `vpshufb`: `vpermb` ignores an index's two
//! high bits and the tables repeat in every 128-bit lane, so an index needs no mask, which
//! takes three of the thirteen vector operations out of each register's check. On the
//! Intel host, where 512-bit operations issue on two ports, that made dense text 1.10x to
//! 1.14x faster (`docs/design.md`).
//!
//! Compiled only where the compiler has the AVX-512 intrinsics (Rust 1.89; `build.rs`
//! sets `utf8check_avx512`), so the crate keeps its MSRV, and only for x86-64 (on 32-bit
//! x86 a 64-bit mask does not fit a general register).

use core::arch::x86_64::*;

use super::avx2::Avx2;
use crate::generic::{self, Vector, BLOCK};
use crate::kernel::{BlockErrors, BLOCK_READ};
use crate::scalar::RawError;

#[derive(Copy, Clone)]
pub(crate) struct Avx512(__m512i);

/// Every method's `unsafe` block relies on the trait contract: the CPU supports the kernel
/// (AVX-512F, AVX-512BW, AVX-512 VBMI and BMI2 among what `has_avx512` checks), and loads
/// are in bounds.
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
        // SAFETY: the trait contract gives `load_upto`'s guarantees (AVX-512BW and BMI2,
        // `len < 64`, in bounds).
        unsafe { Avx512::load_upto(ptr, len) }
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
        // There is no 8-bit shift: shifting 16-bit lanes moves bits of the next byte into
        // bits 4 to 7 of each index, which `lookup` ignores.
        // SAFETY: AVX-512BW is supported (trait contract).
        unsafe { Avx512(_mm512_srli_epi16::<4>(self.0)) }
    }

    #[inline(always)]
    unsafe fn lookup(self, table: Self) -> Self {
        // `vpermb` (VBMI) reads the low six bits of each index, across the register:
        // `table` repeats its 16 entries in every 128-bit lane, so bits 4 and 5 do not
        // change the entry, and no mask is needed (`vpshufb` would need one).
        // SAFETY: AVX-512 VBMI is supported (trait contract).
        unsafe { Avx512(_mm512_permutexvar_epi8(self.0, table.0)) }
    }

    #[inline(always)]
    unsafe fn lookup_low_nibble(self, table: Self) -> Self {
        // (`lookup` ignores the high nibble: see there.)
        // SAFETY: AVX-512 VBMI is supported (trait contract).
        unsafe { self.lookup(table) }
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

    /// The high bits of both halves ORed and read with `vpmovmskb`, not through the mask
    /// register of a `vpmovb2m`: on Zen 4 a loop of `vpmovb2m` and `kortest`, one register
    /// per test, read 67 to 74 GB/s of ASCII, and this one 83 to 101 GB/s (each loop
    /// alone, 16 KiB to 1 MiB). The main loop's blocks are tested by
    /// [`Vector::all_ascii`] instead, which is faster still; this is the test of a
    /// register already loaded (short inputs, the first register). Not measured on an
    /// Intel CPU.
    #[inline(always)]
    unsafe fn is_ascii(self) -> bool {
        // SAFETY: AVX-512F is supported (trait contract), and with it AVX2.
        unsafe {
            let halves = _mm256_or_si256(
                _mm512_castsi512_si256(self.0),
                _mm512_extracti64x4_epi64::<1>(self.0),
            );
            _mm256_movemask_epi8(halves) == 0
        }
    }

    /// The AVX2 kernel's test ([`Avx2`]'s `all_ascii`: 32-byte loads ORed into two chains,
    /// and one `vpmovmskb`), for the main loop's blocks and pairs of blocks. On Zen 4,
    /// against 64-byte loads and [`Vector::is_ascii`] (64 KiB, four code placements): all
    /// ASCII 1.11x to 1.12x, regular spacings of 256 B to 4 KiB 1.05x to 1.24x, jittered
    /// 0.99x to 1.12x, whole files of real text 1.01x (`docs/design.md`, "On Zen 4 the
    /// ASCII test goes through 32-byte loads"). Not measured on an Intel CPU.
    #[inline(always)]
    unsafe fn all_ascii(ptr: *const u8, len: usize) -> bool {
        // SAFETY: `ptr .. ptr + len` is in bounds, `len` a positive multiple of 64 and so
        // of 32 (the caller's guarantee); AVX-512F is supported (trait contract), and with
        // it AVX2.
        unsafe { Avx2::all_ascii(ptr, len) }
    }

    /// The AVX2 kernel's, for the same reason as `all_ascii`.
    #[inline(always)]
    unsafe fn push_non_ascii(mask: u64, ptr: *const u8, len: usize) -> u64 {
        // SAFETY: as in `all_ascii`.
        unsafe { Avx2::push_non_ascii(mask, ptr, len) }
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

impl Avx512 {
    /// The `len <= 64` bytes at `ptr`, zeros after them: one masked load.
    ///
    /// # Safety
    /// The CPU supports AVX-512BW and BMI2, `len <= 64`, and `ptr..ptr + len` is in
    /// bounds.
    #[inline(always)]
    unsafe fn load_upto(ptr: *const u8, len: usize) -> Self {
        debug_assert!(len <= 64);
        // SAFETY: BMI2 and AVX-512BW are supported (caller's guarantee). The mask has the
        // low `len` bits set (`bzhi` keeps all 64 for `len == 64`), and the masked load
        // reads only the bytes whose bit is set, `ptr..ptr + len`, in bounds: the others
        // are neither read nor can they fault, and come back as zeros.
        unsafe {
            let mask: __mmask64 = _bzhi_u64(u64::MAX, len as u32);
            Avx512(_mm512_maskz_loadu_epi8(mask, ptr.cast()))
        }
    }
}

/// The last 16-byte lane of `prev` and the first three of `cur`: `_mm512_alignr_epi8`
/// works within 128-bit lanes, so this is what each lane of `cur` shifts bytes in from.
#[inline(always)]
unsafe fn straddle(prev: Avx512, cur: Avx512) -> __m512i {
    // SAFETY: AVX-512F is supported (the caller's trait contract).
    unsafe { _mm512_alignr_epi64::<6>(cur.0, prev.0) }
}

/// Validates an input of up to 64 bytes, both entry points' path for such inputs: one
/// load into one register (masked where it is shorter, with zeros after it), and one
/// register's check and end check, with no ASCII test first since session 31
/// ([`generic::validate_register`]): no second register, no bytes before it to shift in.
/// Before session 24, these inputs went through the AVX2 code (two registers, partial
/// loads from words); against it (Intel Xeon, Emerald Rapids; scratch harness,
/// interleaved, medians, with the benchmarks' scrub between passes) `from_utf8` was 1.33
/// to 1.46 times as fast on 64 B of generated non-ASCII text, 1.27 times on ASCII, 1.15
/// to 1.19 times on 64-byte slices of real text, 1.03 to 1.13 times at 16 B; `cargo
/// bench --bench short -- 64` went from 1.08x to 1.09x the best of std and simdutf8 on
/// non-ASCII text to 1.31x to 1.43x.
///
/// A whole block is a plain load: with the masked load (every bit of its mask set),
/// `from_utf8` on 64-byte inputs took 6.0 ns against `is_valid`'s 4.7 ns in `cargo bench
/// --bench short` at three code placements (4.8 ns with this load; the cause is not
/// known). 64-byte slices of real text, scratch harness, four placements: 1.02x to 1.33x
/// faster.
///
/// # Safety
/// The CPU must support the kernel (as [`validate`]); `bytes.len() <= 64`.
#[inline(always)]
unsafe fn validate_in_register(bytes: &[u8]) -> Result<(), usize> {
    // SAFETY: the CPU supports the kernel (caller's guarantee); an input of 64 bytes is in
    // bounds of the plain load, a shorter one of the masked load.
    unsafe {
        let only = if bytes.len() == BLOCK {
            Avx512::load(bytes.as_ptr())
        } else {
            Avx512::load_upto(bytes.as_ptr(), bytes.len())
        };
        generic::validate_register(only)
    }
}

// `validate` and `from_utf8`: the CPU must support AVX-512F, AVX-512BW, AVX-512 VBMI,
// BMI1, BMI2 and POPCNT ([`crate::cpu::has_avx512`]).
entry_points!(
    Avx512,
    "avx512f,avx512bw,avx512vbmi,bmi1,bmi2,popcnt",
    BLOCK => validate_in_register
);

/// Validates `bytes` with AVX-512, stopping within 512 bytes of an error (see
/// [`crate::kernel::EntryPoints::validate_early`]).
///
/// # Safety
/// As [`validate`].
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn validate_early(bytes: &[u8]) -> Result<(), usize> {
    // SAFETY: AVX-512F, AVX-512BW, AVX-512 VBMI, BMI1, BMI2 and POPCNT are supported (this
    // function's contract).
    unsafe { generic::validate_early::<Avx512>(bytes) }
}

/// The first invalid sequence of `bytes`, found with the AVX-512 check (see
/// [`crate::kernel::FirstErrorFn`]).
///
/// # Safety
/// As [`validate`].
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn first_invalid(bytes: &[u8]) -> Option<RawError> {
    // SAFETY: AVX-512F, AVX-512BW, AVX-512 VBMI, BMI1, BMI2 and POPCNT are supported (this
    // function's contract).
    unsafe { generic::first_invalid::<Avx512>(bytes) }
}

/// The invalid sequences of a block, found with AVX-512 (see
/// [`crate::kernel::BlockErrorsFn`]).
///
/// # Safety
/// As [`validate`].
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn block_errors(bytes: &[u8; BLOCK_READ], carry: u64, out: &mut BlockErrors) {
    // SAFETY: AVX-512F, AVX-512BW, AVX-512 VBMI, BMI1, BMI2 and POPCNT are supported (this
    // function's contract).
    unsafe { generic::block_errors::<Avx512>(bytes, carry, out) }
}
