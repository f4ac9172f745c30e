//! One module per instruction set: each wraps a register type in [`crate::generic::Vector`]
//! and exports entry points (`validate`, `from_utf8`, the chunk walker's) that enable its
//! instruction set and run the generic algorithm. Nothing else lives here but the macro
//! that writes every kernel's `validate` and `from_utf8`.

/// Writes a kernel's two whole-input entry points, `validate` ([`crate::kernel::ValidateFn`])
/// and `from_utf8` ([`crate::kernel::ExactFn`]), and the one out-of-line function both call
/// for inputs long enough for the windows that are not ASCII to their end,
/// `validate_windows`.
///
/// Why the split: LLVM saves the callee-saved registers that any path of a function needs
/// at its entry, for every path. The windows need six of them (and `from_utf8` needs the
/// input kept across the check, for the exact error), so an entry point with the windows
/// inlined pushes and pops six or seven registers on every call, a 20-byte input's
/// included. The paths for shorter inputs are straight lines and short loops that need
/// none: inline in the entry point, they keep the input in the registers it came in,
/// and only the calls that reach the windows pay for saving registers, where a call
/// costs nothing measurable (see [`crate::generic::from_utf8_without_windows`] and
/// `docs/design.md`, "The short paths save no registers"). Longer inputs that start with
/// ASCII have their ASCII pairs of blocks skipped inline too
/// ([`crate::generic::ascii_start`]): pure ASCII, the commonest input, never reaches the
/// windows' function.
///
/// Expanded in the kernel's module: `$vector` is its register type, `$features` its
/// `target_feature`s, and `$first`, if given, a path of the kernel's own that both entry
/// points take first for inputs of up to `$first_max` bytes (its `ValidateFn` answer for
/// them).
macro_rules! entry_points {
    ($vector:ty, $features:literal $(, $first_max:expr => $first:path)?) => {
        /// Validates `bytes` (see [`crate::kernel::ValidateFn`]).
        ///
        /// # Safety
        /// The CPU must support the kernel's target features (its `cpu` test).
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn validate(bytes: &[u8]) -> Result<(), usize> {
            // SAFETY: the kernel's features are supported (this function's contract), which
            // are all that `$first`, `validate_without_windows`, `ascii_start` and
            // `validate_windows` need; each gets the inputs it is written for.
            unsafe {
                $(
                    if bytes.len() <= $first_max {
                        return $first(bytes);
                    }
                )?
                if bytes.len() < crate::generic::windows_from::<$vector>() {
                    return crate::generic::validate_without_windows::<$vector>(bytes);
                }
                match crate::generic::ascii_start::<$vector>(bytes) {
                    None => Ok(()),
                    Some((start, head_ascii)) => {
                        validate_windows(bytes, start, head_ascii)
                    }
                }
            }
        }

        /// Validates `bytes` and finds the exact error (see [`crate::kernel::ExactFn`]).
        ///
        /// # Safety
        /// As [`validate`].
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn from_utf8(bytes: &[u8]) -> Result<(), crate::error::Utf8Error> {
            // SAFETY: as in `validate`.
            unsafe {
                $(
                    if bytes.len() <= $first_max {
                        return crate::scalar::exact(bytes, $first(bytes));
                    }
                )?
                if bytes.len() < crate::generic::windows_from::<$vector>() {
                    return crate::generic::from_utf8_without_windows::<$vector>(bytes);
                }
                match crate::generic::ascii_start::<$vector>(bytes) {
                    None => Ok(()),
                    Some((start, head_ascii)) => from_utf8_windows(bytes, start, head_ascii),
                }
            }
        }

        /// [`from_utf8`] for inputs long enough for the windows: the error search after
        /// the check keeps the input in registers that this function saves.
        ///
        /// # Safety
        /// As [`validate_windows`].
        #[inline(never)]
        #[target_feature(enable = $features)]
        unsafe fn from_utf8_windows(
            bytes: &[u8],
            start: usize,
            head_ascii: bool,
        ) -> Result<(), crate::error::Utf8Error> {
            // SAFETY: as in `validate_windows`.
            crate::scalar::exact(bytes, unsafe { validate_windows(bytes, start, head_ascii) })
        }

        /// [`validate`] for inputs long enough for the windows, from `start`
        /// ([`crate::generic::validate_from`]).
        ///
        /// # Safety
        /// As [`validate`]; `bytes.len()` is at least `windows_from`, and `(start,
        /// head_ascii)` is `ascii_start`'s answer for `bytes`.
        #[inline(never)]
        #[target_feature(enable = $features)]
        unsafe fn validate_windows(
            bytes: &[u8],
            start: usize,
            head_ascii: bool,
        ) -> Result<(), usize> {
            // SAFETY: the kernel's features are supported, and the input and `(start,
            // head_ascii)` are as `validate_from` needs (this function's contract).
            unsafe { crate::generic::validate_from::<$vector>(bytes, start, head_ascii) }
        }
    };
}

/// `mask` shifted up by one bit, its bit 0 set if `high_bits` (a `pmovmskb` result) is not
/// zero: the x86 kernels' [`crate::generic::Vector::push_non_ascii`]. On x86-64 a `neg`
/// that sets the carry flag where `high_bits` is not zero and an `adc` that shifts it in
/// (LLVM writes the plain expression as `test`, `setne`, a shift and an OR or `lea`).
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
#[inline(always)]
#[allow(unused_unsafe)] // (safe functions in recent Rust, `unsafe` at the MSRV)
fn push_nonzero(mask: u64, high_bits: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_addcarry_u64, _subborrow_u64};
        let (mut unused, mut shifted) = (0, 0);
        // SAFETY: arithmetic on registers only; no memory access and no target feature.
        unsafe {
            let nonzero = _subborrow_u64(0, 0, high_bits, &mut unused);
            _addcarry_u64(nonzero, mask, mask, &mut shifted);
        }
        shifted
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        mask << 1 | u64::from(high_bits != 0)
    }
}

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) mod avx2;
// (Only with Rust 1.89 and later, `build.rs`: Clippy judges it by those compilers.)
#[cfg(all(utf8check_avx512, target_arch = "x86_64"))]
#[clippy::msrv = "1.89"]
pub(crate) mod avx512;
#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
pub(crate) mod neon;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) mod sse41;
