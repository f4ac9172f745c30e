//! The dispatcher behind [`crate::is_valid`] ([`validate`]) and [`crate::from_utf8`]
//! ([`from_utf8`]), and behind the chunk walker's search for the next error
//! ([`first_invalid`], [`validate_early`], [`block_errors`]).
//!
//! When the compile-time target guarantees a kernel (`-C target-feature=+avx2`,
//! `-C target-cpu=native` on an AVX2 or AVX-512 machine, or NEON on 64-bit Arm) the call
//! is direct and can be inlined. Otherwise the first call detects the CPU and caches the chosen
//! kernel's entry points, one `AtomicPtr` each; every later call is one relaxed load and
//! an indirect call.
//!
//! Inputs of up to [`INLINE_ASCII_MAX`] bytes that are all ASCII (short keys, numbers,
//! protocol tokens) are answered before any of that, by word loads inlined at the call
//! site: for them the call itself would cost more than the check.

use crate::error::Utf8Error;
use crate::kernel::{BlockErrors, BLOCK_READ};
use crate::scalar::RawError;

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

/// [`validate`], and the exact error if there is one (`from_utf8`'s answer): the same
/// inline ASCII test, then the kernel's [`crate::kernel::ExactFn`].
#[inline(always)]
pub(crate) fn from_utf8(bytes: &[u8]) -> Result<(), Utf8Error> {
    if bytes.len() <= INLINE_ASCII_MAX && is_short_ascii(bytes) {
        return Ok(());
    }
    run_exact(bytes)
}

/// The entry points of the kernel that the compile-time target guarantees (`$kernel`, a
/// module of `crate::arch`): direct calls, which can be inlined. (Unused where no kernel
/// is guaranteed.)
#[allow(unused_macros)]
macro_rules! fixed_kernel {
    ($kernel:ident) => {
        /// Runs the kernel that the compile-time target guarantees.
        #[inline]
        fn run_kernel(bytes: &[u8]) -> Result<(), usize> {
            // SAFETY: expanded only in the `cfg_if!` branch whose target has the kernel's
            // target features.
            unsafe { crate::arch::$kernel::validate(bytes) }
        }

        /// Runs the exact entry point of the kernel that the compile-time target guarantees.
        #[inline]
        fn run_exact(bytes: &[u8]) -> Result<(), Utf8Error> {
            // SAFETY: as in `run_kernel`.
            unsafe { crate::arch::$kernel::from_utf8(bytes) }
        }

        /// Validates `bytes`, stopping early after an error (see
        /// [`crate::kernel::EntryPoints::validate_early`]), with the kernel that the
        /// compile-time target guarantees.
        #[inline]
        pub(crate) fn validate_early(bytes: &[u8]) -> Result<(), usize> {
            // SAFETY: as in `run_kernel`.
            unsafe { crate::arch::$kernel::validate_early(bytes) }
        }

        /// The first invalid sequence of `bytes` (see [`crate::kernel::FirstErrorFn`]), with
        /// the kernel that the compile-time target guarantees.
        #[inline]
        pub(crate) fn first_invalid(bytes: &[u8]) -> Option<RawError> {
            // SAFETY: as in `run_kernel`.
            unsafe { crate::arch::$kernel::first_invalid(bytes) }
        }

        /// The invalid sequences of a block (see [`crate::kernel::BlockErrorsFn`]), with the
        /// kernel that the compile-time target guarantees.
        #[inline]
        pub(crate) fn block_errors(bytes: &[u8; BLOCK_READ], carry: u64, out: &mut BlockErrors) {
            // SAFETY: as in `run_kernel`.
            unsafe { crate::arch::$kernel::block_errors(bytes, carry, out) }
        }
    };
}

cfg_if::cfg_if! {
    if #[cfg(all(
        utf8check_avx512,
        target_arch = "x86_64",
        target_feature = "avx512f",
        target_feature = "avx512bw",
        target_feature = "avx512vbmi",
        target_feature = "avx512vbmi2",
        target_feature = "bmi1",
        target_feature = "bmi2",
        target_feature = "popcnt"
    ))] {
        // AVX-512 (VBMI, which it uses, and VBMI2 as in the run-time choice, `cpu.rs`: a
        // target such as `skylake-avx512` has AVX-512F and BW but gets the AVX2 kernel).
        fixed_kernel!(avx512);
    } else if #[cfg(all(
        any(target_arch = "x86", target_arch = "x86_64"),
        target_feature = "avx2",
        target_feature = "bmi1",
        target_feature = "popcnt"
    ))] {
        fixed_kernel!(avx2);
    } else if #[cfg(all(
        target_arch = "aarch64",
        target_endian = "little",
        target_feature = "neon"
    ))] {
        fixed_kernel!(neon);
    } else if #[cfg(any(
        target_arch = "x86",
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_endian = "little")
    ))] {
        use core::sync::atomic::{AtomicPtr, Ordering};

        use crate::kernel::{BlockErrorsFn, EntryPoints, ExactFn, FirstErrorFn, ValidateFn};

        /// The chosen kernel's `validate`, or `detect_and_validate` before the first call.
        /// Only ever holds a `ValidateFn` that this CPU supports.
        static VALIDATE: AtomicPtr<()> = AtomicPtr::new(detect_and_validate as *mut ());

        /// The chosen kernel's `from_utf8`, or `detect_and_run_exact` before the first
        /// call. Only ever holds an `ExactFn` that this CPU supports.
        static FROM_UTF8: AtomicPtr<()> = AtomicPtr::new(detect_and_run_exact as *mut ());

        /// The chosen kernel's `validate_early`, or `detect_and_validate_early` before the
        /// first call. Only ever holds a `ValidateFn` that this CPU supports.
        static VALIDATE_EARLY: AtomicPtr<()> =
            AtomicPtr::new(detect_and_validate_early as *mut ());

        /// The chosen kernel's `first_invalid`, or `detect_and_find` before the first
        /// call. Only ever holds a `FirstErrorFn` that this CPU supports.
        static FIRST_INVALID: AtomicPtr<()> = AtomicPtr::new(detect_and_find as *mut ());

        /// The chosen kernel's `block_errors`, or `detect_and_split` before the first
        /// call. Only ever holds a `BlockErrorsFn` that this CPU supports.
        static BLOCK_ERRORS: AtomicPtr<()> = AtomicPtr::new(detect_and_split as *mut ());

        /// Runs the fastest kernel this CPU supports.
        #[inline]
        fn run_kernel(bytes: &[u8]) -> Result<(), usize> {
            let chosen = VALIDATE.load(Ordering::Relaxed);
            // SAFETY: `VALIDATE` only holds `ValidateFn`s (see its documentation), and a
            // function pointer round-trips through `*mut ()`.
            let validate = unsafe { core::mem::transmute::<*mut (), ValidateFn>(chosen) };
            // SAFETY: every function stored in `VALIDATE` is supported by this CPU.
            unsafe { validate(bytes) }
        }

        /// Runs the exact entry point of the fastest kernel this CPU supports.
        #[inline]
        fn run_exact(bytes: &[u8]) -> Result<(), Utf8Error> {
            let chosen = FROM_UTF8.load(Ordering::Relaxed);
            // SAFETY: `FROM_UTF8` only holds `ExactFn`s (see its documentation), and a
            // function pointer round-trips through `*mut ()`.
            let from_utf8 = unsafe { core::mem::transmute::<*mut (), ExactFn>(chosen) };
            // SAFETY: every function stored in `FROM_UTF8` is supported by this CPU.
            unsafe { from_utf8(bytes) }
        }

        /// Validates `bytes`, stopping early after an error (see
        /// [`crate::kernel::EntryPoints::validate_early`]), with the fastest kernel this
        /// CPU supports.
        #[inline]
        pub(crate) fn validate_early(bytes: &[u8]) -> Result<(), usize> {
            let chosen = VALIDATE_EARLY.load(Ordering::Relaxed);
            // SAFETY: `VALIDATE_EARLY` only holds `ValidateFn`s (see its documentation),
            // and a function pointer round-trips through `*mut ()`.
            let validate = unsafe { core::mem::transmute::<*mut (), ValidateFn>(chosen) };
            // SAFETY: every function stored in `VALIDATE_EARLY` is supported by this CPU.
            unsafe { validate(bytes) }
        }

        /// The first invalid sequence of `bytes` (see [`crate::kernel::FirstErrorFn`]), with
        /// the fastest kernel this CPU supports.
        #[inline]
        pub(crate) fn first_invalid(bytes: &[u8]) -> Option<RawError> {
            let chosen = FIRST_INVALID.load(Ordering::Relaxed);
            // SAFETY: `FIRST_INVALID` only holds `FirstErrorFn`s (see its
            // documentation), and a function pointer round-trips through `*mut ()`.
            let find = unsafe { core::mem::transmute::<*mut (), FirstErrorFn>(chosen) };
            // SAFETY: every function stored in `FIRST_INVALID` is supported by this CPU.
            unsafe { find(bytes) }
        }

        /// The invalid sequences of a block (see [`crate::kernel::BlockErrorsFn`]), with
        /// the fastest kernel this CPU supports.
        #[inline]
        pub(crate) fn block_errors(bytes: &[u8; BLOCK_READ], carry: u64, out: &mut BlockErrors) {
            let chosen = BLOCK_ERRORS.load(Ordering::Relaxed);
            // SAFETY: `BLOCK_ERRORS` only holds `BlockErrorsFn`s (see its documentation),
            // and a function pointer round-trips through `*mut ()`.
            let split = unsafe { core::mem::transmute::<*mut (), BlockErrorsFn>(chosen) };
            // SAFETY: every function stored in `BLOCK_ERRORS` is supported by this CPU.
            unsafe { split(bytes, carry, out) }
        }

        /// Chooses the kernel and remembers its entry points. Threads that race here
        /// choose the same kernel.
        fn detect() -> EntryPoints {
            let chosen = crate::Kernel::detected()
                .entry_points()
                .unwrap_or(EntryPoints::SCALAR);
            VALIDATE.store(chosen.validate as *mut (), Ordering::Relaxed);
            FROM_UTF8.store(chosen.from_utf8 as *mut (), Ordering::Relaxed);
            VALIDATE_EARLY.store(chosen.validate_early as *mut (), Ordering::Relaxed);
            FIRST_INVALID.store(chosen.first_invalid as *mut (), Ordering::Relaxed);
            BLOCK_ERRORS.store(chosen.block_errors as *mut (), Ordering::Relaxed);
            chosen
        }

        /// The first call of `validate`: choose the kernel, run it.
        ///
        /// # Safety
        /// None needed: it is `unsafe` only to have the type of a `ValidateFn`.
        unsafe fn detect_and_validate(bytes: &[u8]) -> Result<(), usize> {
            // SAFETY: `entry_points` returns only kernels this CPU supports.
            unsafe { (detect().validate)(bytes) }
        }

        /// The first call of `run_exact`: choose the kernel, run it.
        ///
        /// # Safety
        /// None needed: it is `unsafe` only to have the type of an `ExactFn`.
        unsafe fn detect_and_run_exact(bytes: &[u8]) -> Result<(), Utf8Error> {
            // SAFETY: `entry_points` returns only kernels this CPU supports.
            unsafe { (detect().from_utf8)(bytes) }
        }

        /// The first call of `validate_early`: choose the kernel, run it.
        ///
        /// # Safety
        /// None needed: it is `unsafe` only to have the type of a `ValidateFn`.
        unsafe fn detect_and_validate_early(bytes: &[u8]) -> Result<(), usize> {
            // SAFETY: `entry_points` returns only kernels this CPU supports.
            unsafe { (detect().validate_early)(bytes) }
        }

        /// The first call of `first_invalid`: choose the kernel, run it.
        ///
        /// # Safety
        /// None needed: it is `unsafe` only to have the type of a `FirstErrorFn`.
        unsafe fn detect_and_find(bytes: &[u8]) -> Option<RawError> {
            // SAFETY: `entry_points` returns only kernels this CPU supports.
            unsafe { (detect().first_invalid)(bytes) }
        }

        /// The first call of `block_errors`: choose the kernel, run it.
        ///
        /// # Safety
        /// None needed: it is `unsafe` only to have the type of a `BlockErrorsFn`.
        unsafe fn detect_and_split(bytes: &[u8; BLOCK_READ], carry: u64, out: &mut BlockErrors) {
            // SAFETY: `entry_points` returns only kernels this CPU supports.
            unsafe { (detect().block_errors)(bytes, carry, out) }
        }
    } else {
        /// Runs the scalar kernel: this target has no SIMD kernel.
        #[inline]
        fn run_kernel(bytes: &[u8]) -> Result<(), usize> {
            crate::scalar::validate(bytes)
        }

        /// Runs the scalar kernel's exact entry point.
        #[inline]
        fn run_exact(bytes: &[u8]) -> Result<(), Utf8Error> {
            crate::scalar::from_utf8(bytes)
        }

        /// Validates `bytes` with the scalar kernel, which stops at the first error.
        #[inline]
        pub(crate) fn validate_early(bytes: &[u8]) -> Result<(), usize> {
            crate::scalar::validate(bytes)
        }

        /// The first invalid sequence of `bytes`: the scalar kernel's answer.
        #[inline]
        pub(crate) fn first_invalid(bytes: &[u8]) -> Option<RawError> {
            crate::scalar::first_invalid(bytes)
        }

        /// The invalid sequences of a block: the scalar kernel's answer.
        #[inline]
        pub(crate) fn block_errors(bytes: &[u8; BLOCK_READ], carry: u64, out: &mut BlockErrors) {
            crate::scalar::block_errors(bytes, carry, out)
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
