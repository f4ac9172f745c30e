//! Lossy conversion: [`from_utf8_lossy`] and [`from_utf8_lossy_owned`], std's
//! `String::from_utf8_lossy` and `String::from_utf8_lossy_owned` on top of
//! [`utf8_chunks`](crate::utf8_chunks), so that valid input costs one kernel call and no copy.
//!
//! Valid input is answered by [`from_utf8`](crate::from_utf8) alone (one kernel call, and
//! for short ASCII not even that) and returned as it is: borrowed, or the `Vec`'s own
//! allocation. Otherwise the output is built from the valid prefix that `from_utf8` found
//! and the chunks from its error on, each invalid sequence becoming one U+FFFD.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

use crate::chunks::Utf8Chunks;

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
#[inline]
pub fn from_utf8_lossy(v: &[u8]) -> Cow<'_, str> {
    match crate::from_utf8(v) {
        Ok(text) => Cow::Borrowed(text),
        Err(err) => Cow::Owned(repair(v, err.valid_up_to())),
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
    match crate::from_utf8(&v) {
        Err(err) => repair(&v, err.valid_up_to()),
        // SAFETY: `from_utf8` accepted `v`.
        Ok(_) => unsafe { String::from_utf8_unchecked(v) },
    }
}

/// The lossy text of `v`, whose first invalid sequence starts at `valid_up_to`.
#[cold]
fn repair(v: &[u8], valid_up_to: usize) -> String {
    let (valid, rest) = v.split_at(valid_up_to);
    // Room for the input, and for replacements longer than what they replace where errors
    // are up to a few percent of the bytes (more grows the string as usual).
    let mut out = String::with_capacity(v.len() + v.len() / 16 + 16);
    // SAFETY: `from_utf8` found the first error at `valid_up_to`.
    push_text(&mut out, unsafe { core::str::from_utf8_unchecked(valid) });
    // (`for_each` rather than a `for` loop: it folds, and dense errors are walked in one
    // loop then.)
    Utf8Chunks::after_error(rest, valid_up_to).for_each(|chunk| {
        push_chunk(&mut out, rest, chunk.valid(), !chunk.invalid().is_empty());
    });
    out
}

/// Valid text up to this long is appended by [`push_chunk`] with one copy of this many
/// bytes.
const SHORT: usize = 128;

/// Appends a chunk to `out`: `text`, a part of `input`, and U+FFFD if `replaced` (the
/// chunk has invalid bytes). Where errors are dense the valid text between them is a few
/// bytes to a few dozen, and a call of `memcpy` for each, which branches on the length,
/// cost more than the walk: so text up to [`SHORT`] bytes is copied with one move of
/// `SHORT` bytes (from `input`, the bytes after `text` included) into the string's spare
/// room, of which only `text` is kept. At one error per ~16 bytes that made
/// `from_utf8_lossy` 1.4 times faster, at one per ~64 bytes 1.07 times. U+FFFD is written
/// after it in the same room whether it is kept or not (rather than pushed after a branch
/// and a check for room of its own: 1.02x at one error per ~64 and ~16 bytes).
#[inline(always)]
fn push_chunk(out: &mut String, input: &[u8], text: &str, replaced: bool) {
    let at = text.as_ptr() as usize - input.as_ptr() as usize;
    match input.get(at..at + SHORT) {
        Some(window) if text.len() <= SHORT => {
            out.reserve(SHORT + REPLACEMENT.len());
            // SAFETY: `reserve` left room for `SHORT + 3` bytes after the string's length,
            // and `window` has `SHORT` bytes. The first `text.len()` of them are `text`:
            // they are at its addresses (`window` starts at `input`'s address plus `at`,
            // which is `text`'s, and `text.len() <= SHORT`), so they are its bytes whether
            // or not the caller kept its promise that `text` lies in `input`. U+FFFD's 3
            // bytes after them end by `len + SHORT + 3`, in the room. `text` and U+FFFD
            // are UTF-8, so the string stays UTF-8 with them and without the rest.
            unsafe {
                let bytes = out.as_mut_vec();
                let len = bytes.len();
                let end = bytes.as_mut_ptr().add(len);
                core::ptr::copy_nonoverlapping(window.as_ptr(), end, SHORT);
                core::ptr::copy_nonoverlapping(
                    REPLACEMENT.as_ptr(),
                    end.add(text.len()),
                    REPLACEMENT.len(),
                );
                bytes.set_len(len + text.len() + usize::from(replaced) * REPLACEMENT.len());
            }
        }
        _ => {
            push_text(out, text);
            if replaced {
                out.push_str(REPLACEMENT);
            }
        }
    }
}

/// Appends `text`, with one copy up to [`COPY_PIECE`] bytes, else [`push_in_pieces`].
#[inline(always)]
fn push_text(out: &mut String, text: &str) {
    if text.len() <= COPY_PIECE {
        out.push_str(text);
    } else {
        push_in_pieces(out, text);
    }
}

/// Longer valid text is appended in pieces of at most this many bytes (see
/// [`push_in_pieces`]).
const COPY_PIECE: usize = 2048;

/// Appends `text` a piece of at most [`COPY_PIECE`] bytes at a time (cut at character
/// boundaries), rather than with one copy. glibc copies 2112 bytes or more with
/// `rep movsb` (its threshold with AVX2), and on AMD's Zen 3 that is about 1.2 times
/// slower than its vector loop where the output and the input lie at nearby offsets
/// within 4 KiB pages (4K aliasing), which the allocator decides: a 1 MiB input at a
/// page boundary and its output starting 240 bytes before one did. At one error per
/// ~4 KiB of real text so placed, pieces made `from_utf8_lossy` 1.17 to 1.25 times
/// faster; with the input 2 KiB into a page, where nothing aliases, the speed was the
/// same (`docs/design.md`).
#[inline(never)]
fn push_in_pieces(out: &mut String, mut text: &str) {
    out.reserve(text.len());
    while text.len() > COPY_PIECE {
        // A character boundary at most 3 bytes before the piece's end.
        let mut end = COPY_PIECE;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let (piece, rest) = text.split_at(end);
        out.push_str(piece);
        text = rest;
    }
    out.push_str(text);
}
