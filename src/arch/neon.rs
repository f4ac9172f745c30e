//! The NEON kernel (64-bit Arm): 16-byte registers, four per block. NEON has byte
//! shifts and a 16-entry table lookup (`tbl`), so it needs no masking tricks.

use core::arch::aarch64::*;

use crate::generic::{self, read_partial_words, Vector};
use crate::kernel::{BlockErrors, BLOCK_READ};
use crate::scalar::RawError;

#[derive(Copy, Clone)]
pub(crate) struct Neon(uint8x16_t);

/// Every method's `unsafe` block relies on the trait contract: the CPU supports NEON, and
/// loads are in bounds.
impl Vector for Neon {
    const BYTES: usize = 16;

    #[inline(always)]
    unsafe fn splat(byte: u8) -> Self {
        // SAFETY: NEON is supported (trait contract).
        unsafe { Neon(vdupq_n_u8(byte)) }
    }

    #[inline(always)]
    unsafe fn table(table: &[u8; 16]) -> Self {
        // SAFETY: NEON is supported; the load reads the 16 bytes of `table`.
        unsafe { Neon(vld1q_u8(table.as_ptr())) }
    }

    #[inline(always)]
    unsafe fn load(ptr: *const u8) -> Self {
        // SAFETY: NEON is supported and `ptr..ptr + 16` is in bounds (trait contract).
        unsafe { Neon(vld1q_u8(ptr)) }
    }

    #[inline(always)]
    unsafe fn load_partial(ptr: *const u8, len: usize) -> Self {
        // SAFETY: NEON is supported and `ptr..ptr + len` is in bounds (trait contract).
        unsafe {
            let (low, high) = read_partial_words(ptr, len);
            Neon(vcombine_u8(vcreate_u8(low), vcreate_u8(high)))
        }
    }

    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        // SAFETY: NEON is supported (trait contract).
        unsafe { Neon(vandq_u8(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        // SAFETY: NEON is supported (trait contract).
        unsafe { Neon(vorrq_u8(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: NEON is supported (trait contract).
        unsafe { Neon(veorq_u8(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn saturating_sub(self, other: Self) -> Self {
        // SAFETY: NEON is supported (trait contract).
        unsafe { Neon(vqsubq_u8(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn average(self, other: Self) -> Self {
        // SAFETY: NEON is supported (trait contract).
        unsafe { Neon(vrhaddq_u8(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn max(self, other: Self) -> Self {
        // SAFETY: NEON is supported (trait contract).
        unsafe { Neon(vmaxq_u8(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn high_nibbles(self) -> Self {
        // SAFETY: NEON is supported (trait contract).
        unsafe { Neon(vshrq_n_u8::<4>(self.0)) }
    }

    #[inline(always)]
    unsafe fn lookup(self, table: Self) -> Self {
        // SAFETY: NEON is supported (trait contract).
        unsafe { Neon(vqtbl1q_u8(table.0, self.0)) }
    }

    #[inline(always)]
    unsafe fn prev1(self, prev: Self) -> Self {
        // SAFETY: NEON is supported (trait contract).
        unsafe { Neon(vextq_u8::<15>(prev.0, self.0)) }
    }

    #[inline(always)]
    unsafe fn prev2(self, prev: Self) -> Self {
        // SAFETY: NEON is supported (trait contract).
        unsafe { Neon(vextq_u8::<14>(prev.0, self.0)) }
    }

    #[inline(always)]
    unsafe fn prev3(self, prev: Self) -> Self {
        // SAFETY: NEON is supported (trait contract).
        unsafe { Neon(vextq_u8::<13>(prev.0, self.0)) }
    }

    #[inline(always)]
    unsafe fn is_ascii(self) -> bool {
        // SAFETY: NEON is supported (trait contract).
        unsafe { vmaxvq_u8(self.0) < 0x80 }
    }

    #[inline(always)]
    unsafe fn is_zero(self) -> bool {
        // SAFETY: NEON is supported (trait contract).
        unsafe { vmaxvq_u8(self.0) == 0 }
    }

    #[inline(always)]
    unsafe fn first_nonzero(self) -> usize {
        // NEON has no byte mask: narrowing each 16-bit lane of the "nonzero" bytes by a
        // shift of 4 leaves 4 bits per byte in a 64-bit word, byte `i` at bits `4i..4i+4`.
        // SAFETY: NEON is supported (trait contract).
        let nibbles = unsafe {
            let nonzero = vreinterpretq_u16_u8(vtstq_u8(self.0, self.0));
            vget_lane_u64::<0>(vreinterpret_u64_u8(vshrn_n_u16::<4>(nonzero)))
        };
        // With no nonzero byte, 64 trailing zeros: 16.
        nibbles.trailing_zeros() as usize / 4
    }

    #[inline(always)]
    unsafe fn high_bits(self) -> u64 {
        // Each byte with its high bit set keeps its own bit of its half's byte (1, 2, 4,
        // ... 128); the sum of each half is then its 8 bits.
        const WEIGHTS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
        // SAFETY: NEON is supported (trait contract); the load reads `WEIGHTS`.
        unsafe {
            let high = vtstq_u8(self.0, vdupq_n_u8(0x80));
            let bits = vandq_u8(high, vld1q_u8(WEIGHTS.as_ptr()));
            u64::from(vaddv_u8(vget_low_u8(bits))) | u64::from(vaddv_u8(vget_high_u8(bits))) << 8
        }
    }

    #[inline(always)]
    unsafe fn signed_lt(self, other: Self) -> Self {
        // SAFETY: NEON is supported (trait contract).
        unsafe {
            Neon(vcltq_s8(
                vreinterpretq_s8_u8(self.0),
                vreinterpretq_s8_u8(other.0),
            ))
        }
    }

    #[inline(always)]
    unsafe fn equal(self, other: Self) -> Self {
        // SAFETY: NEON is supported (trait contract).
        unsafe { Neon(vceqq_u8(self.0, other.0)) }
    }
}

// `validate` and `from_utf8`: the CPU must support NEON.
entry_points!(Neon, "neon");

/// Validates `bytes` with NEON, stopping within 512 bytes of an error (see
/// [`crate::kernel::EntryPoints::validate_early`]).
///
/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(crate) unsafe fn validate_early(bytes: &[u8]) -> Result<(), usize> {
    // SAFETY: NEON is supported (this function's contract).
    unsafe { generic::validate_early::<Neon>(bytes) }
}

/// The first invalid sequence of `bytes`, found with the NEON check (see
/// [`crate::kernel::FirstErrorFn`]).
///
/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(crate) unsafe fn first_invalid(bytes: &[u8]) -> Option<RawError> {
    // SAFETY: NEON is supported (this function's contract).
    unsafe { generic::first_invalid::<Neon>(bytes) }
}

/// The invalid sequences of a block, found with NEON (see
/// [`crate::kernel::BlockErrorsFn`]).
///
/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(crate) unsafe fn block_errors(bytes: &[u8; BLOCK_READ], carry: u64, out: &mut BlockErrors) {
    // SAFETY: NEON is supported (this function's contract).
    unsafe { generic::block_errors::<Neon>(bytes, carry, out) }
}
