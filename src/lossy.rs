//! Lossy conversion: [`from_utf8_lossy`] and [`from_utf8_lossy_owned`], std's
//! `String::from_utf8_lossy` and `String::from_utf8_lossy_owned` on top of
//! [`utf8_chunks`], so that valid input costs one kernel call and no copy.
//!
//! The first chunk decides: if it has no invalid bytes it is the whole input, which is
//! returned as it is (borrowed, or the `Vec`'s own allocation). Otherwise the output is
//! built from the chunks, each invalid sequence becoming one U+FFFD.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

use crate::chunks::{utf8_chunks, Utf8Chunk, Utf8Chunks};

/// U+FFFD REPLACEMENT CHARACTER, which stands for each invalid sequence.
const REPLACEMENT: &str = "\u{FFFD}";

/// Converts bytes to a string, replacing each invalid sequence with U+FFFD, exactly like
/// `String::from_utf8_lossy` (the same output on every input).
///
/// Returns [`Cow::Borrowed`] exactly when `v` is UTF-8: then nothing is copied.
///
/// ```
/// use std::borrow::Cow;
///
/// assert!(matches!(utf8check::from_utf8_lossy("Grüße".as_bytes()), Cow::Borrowed("Grüße")));
///
/// let repaired = utf8check::from_utf8_lossy(b"caf\xC3 \xF0\x9F\x98 \xE0\x80!");
/// assert_eq!(repaired, "caf\u{FFFD} \u{FFFD} \u{FFFD}\u{FFFD}!");
/// ```
pub fn from_utf8_lossy(v: &[u8]) -> Cow<'_, str> {
    let mut chunks = utf8_chunks(v);
    match chunks.next() {
        None => Cow::Borrowed(""),
        Some(first) if first.invalid().is_empty() => Cow::Borrowed(first.valid()),
        Some(first) => Cow::Owned(repair(v.len(), first, chunks)),
    }
}

/// Converts a vector of bytes to a string, replacing each invalid sequence with U+FFFD,
/// exactly like `String::from_utf8_lossy_owned`: the result of
/// [`from_utf8_lossy`], reusing `v`'s allocation when `v` is UTF-8.
///
/// ```
/// let bytes = "déjà vu".as_bytes().to_vec();
/// let ptr = bytes.as_ptr();
/// let text = utf8check::from_utf8_lossy_owned(bytes);
/// assert_eq!((text.as_str(), text.as_ptr()), ("déjà vu", ptr));
///
/// assert_eq!(utf8check::from_utf8_lossy_owned(b"d\xE9j\xE0".to_vec()), "d\u{FFFD}j\u{FFFD}");
/// ```
pub fn from_utf8_lossy_owned(v: Vec<u8>) -> String {
    let mut chunks = utf8_chunks(&v);
    match chunks.next() {
        None => String::new(),
        Some(first) if first.invalid().is_empty() => {
            drop(chunks);
            // SAFETY: the first chunk has no invalid bytes, so it is all of `v`, and valid.
            unsafe { String::from_utf8_unchecked(v) }
        }
        Some(first) => repair(v.len(), first, chunks),
    }
}

/// The lossy text of an input of `len` bytes whose chunks are `first`, which has invalid
/// bytes, and then `rest`.
fn repair(len: usize, first: Utf8Chunk<'_>, rest: Utf8Chunks<'_>) -> String {
    // Room for the input, plus a little for replacements longer than what they replace.
    let mut out = String::with_capacity(len + 16);
    for chunk in core::iter::once(first).chain(rest) {
        out.push_str(chunk.valid());
        if !chunk.invalid().is_empty() {
            out.push_str(REPLACEMENT);
        }
    }
    out
}
