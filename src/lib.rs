//! Fast UTF-8 validation that gives exactly the answers of [`core::str::from_utf8`].
//!
//! ```
//! let text = utf8check::from_utf8("grüße, 世界 🌍".as_bytes()).unwrap();
//! assert_eq!(text, "grüße, 世界 🌍");
//!
//! let err = utf8check::from_utf8(b"abc\xE2\x82").unwrap_err();
//! assert_eq!(err.valid_up_to(), 3);
//! assert_eq!(err.error_len(), None); // the input ends inside a sequence
//! assert_eq!(err.kind(), utf8check::ErrorKind::Truncated);
//!
//! assert!(utf8check::is_valid(b"plain ASCII"));
//! ```
//!
//! * [`from_utf8`], [`from_utf8_mut`] and [`Utf8Error`] are drop-in replacements for their
//!   `core::str` namesakes: same results, same `valid_up_to` and `error_len` on every
//!   input. [`Utf8Error::kind`] also says *why* the input is not UTF-8.
//! * [`is_valid`] is the yes/no question.
//! * [`utf8_chunks`] walks *every* error, as std's `<[u8]>::utf8_chunks()` does but with
//!   the SIMD kernel over the valid text; [`from_utf8_lossy`] and
//!   [`from_utf8_lossy_owned`] (feature `alloc`) repair text like
//!   `String::from_utf8_lossy`, and `io::LossyReader` (feature `std`) repairs a stream.
//! * [`Validator`] checks a stream that arrives in chunks (also without `std`), and
//!   `io::Utf8Reader` and `io::Utf8Writer` (feature `std`) check what is read or written
//!   through them.
//! * [`columnar`] validates whole string columns (Arrow's offsets and views layouts,
//!   Parquet pages) in one pass, naming the exact first bad row.
//! * [`Kernel`] lists the implementations (AVX-512, AVX2, SSE4.1, NEON, scalar) and runs
//!   any of them directly; the functions above use the fastest one this CPU supports, chosen once.
//!
//! The algorithm is the lookup-table range check of Keiser and Lemire, "Validating UTF-8
//! In Less Than One Instruction Per Byte" (2021); `docs/design.md` in the repository
//! explains it and this crate's variations.
//!
//! # Features
//! * `std` (default): `std::error::Error`, `From<Utf8Error> for std::io::Error` and the
//!   `io` adapters.
//!   Without it the crate is `#![no_std]` and still detects AVX-512, AVX2 and SSE4.1 at run
//!   time.
//! * `alloc` (implied by `std`): [`from_utf8_lossy`] and [`from_utf8_lossy_owned`], for
//!   `no_std` users with an allocator.
//! * `rayon`: parallel validation of huge buffers on the caller's rayon thread pool, with
//!   the same results as the single-threaded functions: `par::from_utf8`,
//!   `par::from_utf8_mut` and `par::is_valid`.

#![no_std]
#![deny(missing_docs, unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod arch;
mod chunks;
pub mod columnar;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
mod cpu;
mod dispatch;
mod error;
mod generic;
mod kernel;
#[cfg(feature = "alloc")]
mod lossy;
#[cfg(feature = "rayon")]
pub mod par;
mod scalar;
mod stream;
mod tables;

#[cfg(feature = "std")]
pub mod io;

pub use chunks::{utf8_chunks, Utf8Chunk, Utf8Chunks};
pub use error::{ErrorKind, Utf8Error};
pub use kernel::{Kernel, ParseKernelError};
#[cfg(feature = "alloc")]
pub use lossy::{from_utf8_lossy, from_utf8_lossy_owned};
pub use stream::Validator;

/// Converts a slice of bytes to a string slice, exactly like [`core::str::from_utf8`].
///
/// ```
/// assert_eq!(utf8check::from_utf8(b"caf\xC3\xA9"), Ok("café"));
///
/// let err = utf8check::from_utf8(b"caf\xC3\x28").unwrap_err();
/// assert_eq!((err.valid_up_to(), err.error_len()), (3, Some(1)));
/// ```
///
/// # Errors
/// If `v` is not UTF-8: the [`Utf8Error`] says where the first invalid sequence starts,
/// how long it is, and why it is invalid.
#[inline]
pub fn from_utf8(v: &[u8]) -> Result<&str, Utf8Error> {
    dispatch::from_utf8(v)?;
    // SAFETY: `dispatch::from_utf8` returned `Ok`: `v` is UTF-8.
    Ok(unsafe { core::str::from_utf8_unchecked(v) })
}

/// Converts a mutable slice of bytes to a mutable string slice, exactly like
/// [`core::str::from_utf8_mut`].
///
/// ```
/// let mut bytes = *b"hello";
/// let s = utf8check::from_utf8_mut(&mut bytes).unwrap();
/// s.make_ascii_uppercase();
/// assert_eq!(s, "HELLO");
/// ```
///
/// # Errors
/// As [`from_utf8`].
#[inline]
pub fn from_utf8_mut(v: &mut [u8]) -> Result<&mut str, Utf8Error> {
    dispatch::from_utf8(v)?;
    // SAFETY: `dispatch::from_utf8` returned `Ok`: `v` is UTF-8.
    Ok(unsafe { core::str::from_utf8_unchecked_mut(v) })
}

/// Is `v` UTF-8? The fastest answer this crate gives; always equal to
/// `from_utf8(v).is_ok()`.
///
/// ```
/// assert!(utf8check::is_valid("Ελληνικά".as_bytes()));
/// assert!(!utf8check::is_valid(b"\xC0\xAF")); // overlong '/'
/// ```
#[inline]
pub fn is_valid(v: &[u8]) -> bool {
    dispatch::validate(v).is_ok()
}
