//! One module per instruction set: each wraps a register type in [`crate::generic::Vector`]
//! and exports entry points (`validate`, `from_utf8`, the chunk walker's) that enable its
//! instruction set and run the generic algorithm. Nothing else lives here but the macro
//! that writes every kernel's `from_utf8`.

/// Writes a kernel's `from_utf8` entry point ([`crate::kernel::ExactFn`]) and the
/// out-of-line function it calls for inputs long enough for the windows (see
/// [`crate::generic::from_utf8_without_windows`] for why the two). Expanded in the
/// kernel's module, next to its `validate`: `$vector` is its register type, `$features`
/// its `target_feature`s, and `$first`, if given, a path of the kernel's own that
/// `validate` takes first for inputs of up to `$first_max` bytes (its `ValidateFn`
/// answer for them).
macro_rules! from_utf8_entry_point {
    ($vector:ty, $features:literal $(, $first_max:expr => $first:path)?) => {
        /// Validates `bytes` and finds the exact error (see [`crate::kernel::ExactFn`]).
        ///
        /// # Safety
        /// As [`validate`].
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn from_utf8(bytes: &[u8]) -> Result<(), crate::error::Utf8Error> {
            // SAFETY: the kernel's features are supported (this function's contract), which
            // are all that `$first` and `from_utf8_windows` need; the inline path takes
            // only the inputs shorter than the windows.
            unsafe {
                $(
                    if bytes.len() <= $first_max {
                        return crate::scalar::exact(bytes, $first(bytes));
                    }
                )?
                if bytes.len() < crate::generic::windows_from::<$vector>() {
                    return crate::generic::from_utf8_without_windows::<$vector>(bytes);
                }
                from_utf8_windows(bytes)
            }
        }

        /// [`from_utf8`] for inputs long enough for the windows.
        ///
        /// # Safety
        /// As [`validate`].
        #[inline(never)]
        #[target_feature(enable = $features)]
        unsafe fn from_utf8_windows(bytes: &[u8]) -> Result<(), crate::error::Utf8Error> {
            // SAFETY: the kernel's features are supported (this function's contract).
            crate::scalar::exact(bytes, unsafe { validate(bytes) })
        }
    };
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
