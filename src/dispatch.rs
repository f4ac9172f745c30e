//! The dispatcher behind [`crate::from_utf8`] and [`crate::is_valid`].
//!
//! When the compile-time target guarantees a kernel (`-C target-feature=+avx2`,
//! `-C target-cpu=native` on an AVX2 machine, or NEON on 64-bit Arm) the call is direct
//! and can be inlined. Otherwise the first call detects the CPU and caches the chosen
//! kernel in an `AtomicPtr`; every later call is one relaxed load and an indirect call.

cfg_if::cfg_if! {
    if #[cfg(all(any(target_arch = "x86", target_arch = "x86_64"), target_feature = "avx2"))] {
        /// Runs the AVX2 kernel, which the compile-time target guarantees.
        #[inline]
        pub(crate) fn validate(bytes: &[u8]) -> Result<(), usize> {
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
        pub(crate) fn validate(bytes: &[u8]) -> Result<(), usize> {
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
        pub(crate) fn validate(bytes: &[u8]) -> Result<(), usize> {
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
        pub(crate) fn validate(bytes: &[u8]) -> Result<(), usize> {
            crate::scalar::validate(bytes)
        }
    }
}
