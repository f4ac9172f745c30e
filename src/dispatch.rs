//! The dispatcher behind [`crate::from_utf8`] and [`crate::is_valid`].
//!
//! When the compile-time target guarantees a kernel (`-C target-feature=+avx2`,
//! `-C target-cpu=native` on an AVX2 machine, or NEON on 64-bit Arm) the call is direct
//! and can be inlined. Otherwise the first call detects the CPU and caches the chosen
//! kernel in an `AtomicPtr`; every later call is one relaxed load and an indirect call.
//!
//! Inputs of up to [`INLINE_ASCII_MAX`] bytes that are all ASCII (short keys, numbers,
//! protocol tokens) are answered before any of that, by word loads inlined at the call
//! site: for them the call itself would cost more than the check.

/// The longest input that [`validate`] tests for ASCII inline, before calling a kernel.
pub(crate) const INLINE_ASCII_MAX: usize = 16;

/// Is `bytes`, at most 16 bytes long, all ASCII? Two overlapping word loads (or
/// three byte loads), no loop, no call, no `unsafe`.
#[inline(always)]
fn is_short_ascii(bytes: &[u8]) -> bool {
    const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
    let len = bytes.len();
    let any = if len >= 8 {
        u64::from_le_bytes(bytes[..8].try_into().unwrap())
            | u64::from_le_bytes(bytes[len - 8..].try_into().unwrap())
    } else if len >= 4 {
        u64::from(
            u32::from_le_bytes(bytes[..4].try_into().unwrap())
                | u32::from_le_bytes(bytes[len - 4..].try_into().unwrap()),
        )
    } else if len > 0 {
        u64::from(bytes[0] | bytes[len / 2] | bytes[len - 1])
    } else {
        0
    };
    any & HIGH_BITS == 0
}

/// Validates `bytes` with the fastest kernel (see [`run_kernel`]), after the inline ASCII
/// test of short inputs.
#[inline(always)]
pub(crate) fn validate(bytes: &[u8]) -> Result<(), usize> {
    if bytes.len() <= INLINE_ASCII_MAX && is_short_ascii(bytes) {
        return Ok(());
    }
    run_kernel(bytes)
}

cfg_if::cfg_if! {
    if #[cfg(all(any(target_arch = "x86", target_arch = "x86_64"), target_feature = "avx2"))] {
        /// Runs the AVX2 kernel, which the compile-time target guarantees.
        #[inline]
        fn run_kernel(bytes: &[u8]) -> Result<(), usize> {
            // SAFETY: the crate is compiled with `target_feature = "avx2"`.
            unsafe { crate::arch::avx2::validate(bytes) }
        }
    } else if #[cfg(all(
        target_arch = "aarch64",
        target_endian = "little",
        target_feature = "neon"
    ))] {
        /// Runs the NEON kernel, which the compile-time target guarantees.
        #[inline]
        fn run_kernel(bytes: &[u8]) -> Result<(), usize> {
            // SAFETY: the crate is compiled with `target_feature = "neon"`.
            unsafe { crate::arch::neon::validate(bytes) }
        }
    } else if #[cfg(any(
        target_arch = "x86",
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_endian = "little")
    ))] {
        use core::sync::atomic::{AtomicPtr, Ordering};

        use crate::kernel::ValidateFn;

        /// The chosen kernel, or `detect_and_validate` before the first call. Only ever
        /// holds a `ValidateFn` that this CPU supports.
        static CHOSEN: AtomicPtr<()> = AtomicPtr::new(detect_and_validate as *mut ());

        /// Runs the fastest kernel this CPU supports.
        #[inline]
        fn run_kernel(bytes: &[u8]) -> Result<(), usize> {
            let chosen = CHOSEN.load(Ordering::Relaxed);
            // SAFETY: `CHOSEN` only holds `ValidateFn`s (see its documentation), and a
            // function pointer round-trips through `*mut ()`.
            let validate = unsafe { core::mem::transmute::<*mut (), ValidateFn>(chosen) };
            // SAFETY: every function stored in `CHOSEN` is supported by this CPU.
            unsafe { validate(bytes) }
        }

        /// The first call: choose the kernel, remember it, run it. Threads that race here
        /// choose the same kernel.
        ///
        /// # Safety
        /// None needed: it is `unsafe` only to have the type of a `ValidateFn`.
        unsafe fn detect_and_validate(bytes: &[u8]) -> Result<(), usize> {
            let chosen = crate::Kernel::detected()
                .validate_fn()
                .unwrap_or(crate::scalar::validate as ValidateFn);
            CHOSEN.store(chosen as *mut (), Ordering::Relaxed);
            // SAFETY: `validate_fn` returns only kernels this CPU supports.
            unsafe { chosen(bytes) }
        }
    } else {
        /// Runs the scalar kernel: this target has no SIMD kernel.
        #[inline]
        fn run_kernel(bytes: &[u8]) -> Result<(), usize> {
            crate::scalar::validate(bytes)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_ascii_test_sees_every_byte() {
        for len in 0..=INLINE_ASCII_MAX {
            let mut bytes = [b'a'; INLINE_ASCII_MAX];
            assert!(is_short_ascii(&bytes[..len]), "len {len}");
            for pos in 0..len {
                for high in [0x80, 0xC3, 0xFF] {
                    bytes[pos] = high;
                    assert!(
                        !is_short_ascii(&bytes[..len]),
                        "len {len}, {high:02X} at {pos}"
                    );
                }
                bytes[pos] = b'a';
            }
        }
    }
}
