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

/// The lossy text of `v`, whose first invalid sequence starts at `valid_up_to`: with
/// [`repair_avx`] where the CPU has AVX and the build does not already assume it.
#[cold]
fn repair(v: &[u8], valid_up_to: usize) -> String {
    #[cfg(all(
        any(target_arch = "x86", target_arch = "x86_64"),
        not(target_feature = "avx")
    ))]
    if crate::cpu::has_avx() {
        // SAFETY: the CPU and the OS support AVX.
        return unsafe { repair_avx(v, valid_up_to) };
    }
    repair_with(v, valid_up_to)
}

/// [`repair_with`] compiled with AVX: the whole walk of the chunks with it
/// ([`Utf8Chunks::fold_inline`]), so that [`push_chunk`]'s fixed copy is four 32-byte
/// moves rather than eight of 16 bytes. Where errors are dense that made
/// `from_utf8_lossy` 1.10 times faster (one error per ~64 bytes); a copy with AVX in a
/// function of its own, called per chunk, was slower than none.
///
/// # Safety
/// The CPU and the OS must support AVX.
#[cfg(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    not(target_feature = "avx")
))]
#[target_feature(enable = "avx")]
unsafe fn repair_avx(v: &[u8], valid_up_to: usize) -> String {
    repair_with(v, valid_up_to)
}

/// The body of [`repair`], inlined into each version.
#[inline(always)]
fn repair_with(v: &[u8], valid_up_to: usize) -> String {
    let (valid, rest) = v.split_at(valid_up_to);
    // Room for the input, and for replacements longer than what they replace where errors
    // are up to a few percent of the bytes (more grows the string as usual).
    let mut out = String::with_capacity(v.len() + v.len() / 16 + 16);
    // SAFETY: `from_utf8` found the first error at `valid_up_to`.
    push_text(&mut out, unsafe { core::str::from_utf8_unchecked(valid) });
    // (A fold rather than a `for` loop: dense errors are walked in one loop then.)
    Utf8Chunks::after_error(rest, valid_up_to).fold_inline::<true, ()>(
        (),
        |(), chunk| push_chunk(&mut out, rest, chunk.valid(), !chunk.invalid().is_empty()),
        None,
    );
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

#[cfg(all(test, feature = "std"))]
mod tests {
    use alloc::string::String;
    use alloc::vec::Vec;

    use crate::kernel::tests::CLASSES;

    /// A version of `repair`.
    type Repair = fn(&[u8], usize) -> String;

    /// The AVX version of `repair` where the CPU has AVX and the build does not assume
    /// it (then `repair` picks it, and the tests of `from_utf8_lossy` test it too; the
    /// plain one is tested here).
    fn avx_version() -> Option<Repair> {
        #[cfg(all(
            any(target_arch = "x86", target_arch = "x86_64"),
            not(target_feature = "avx")
        ))]
        if crate::cpu::has_avx() {
            fn avx(v: &[u8], valid_up_to: usize) -> String {
                // SAFETY: `avx_version` checked that the CPU and the OS support AVX.
                unsafe { super::repair_avx(v, valid_up_to) }
            }
            return Some(avx);
        }
        None
    }

    /// Every version's output for `bytes` (if it is not UTF-8) is std's.
    fn check(bytes: &[u8]) {
        let Err(err) = core::str::from_utf8(bytes) else {
            return;
        };
        let want = String::from_utf8_lossy(bytes);
        let versions = [
            ("plain", Some(super::repair_with as Repair)),
            ("avx", avx_version()),
        ];
        for (name, repair) in versions
            .into_iter()
            .filter_map(|(name, f)| Some((name, f?)))
        {
            assert!(
                repair(bytes, err.valid_up_to()) == want,
                "{name} version, input {bytes:02X?}"
            );
        }
    }

    /// Each version of `repair` against std: text damaged every few bytes to every few
    /// KiB (the walk's every mode and the fixed copy of [`super::push_chunk`] at every
    /// length), and every triple of byte classes after early errors at positions around the 64-byte
    /// blocks of the walk and the 128-byte copy, with ASCII and with non-ASCII text
    /// around it (errors a few bytes apart before them: blocks first, then windows).
    #[test]
    fn every_version_agrees_with_std() {
        let small = std::env::var_os("UTF8CHECK_SMALL_TESTS").is_some_and(|v| v != "0");
        let text = "Grüße aus Köln, ½ € — Привет, мир! 你好，世界。 🦀 plain ASCII text. "
            .repeat(80)
            .into_bytes();
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut random = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for gap in [1, 2, 3, 5, 8, 16, 32, 64, 100, 200, 500, 2000, 5000] {
            for _ in 0..if small { 2 } else { 8 } {
                let mut bytes = text.clone();
                let mut at = random(gap);
                while at < bytes.len() {
                    bytes[at] = [0xFF, 0xC3, 0xE2, 0x80, 0xF0, 0xED][random(6)];
                    at += 1 + random(2 * gap);
                }
                let cut = bytes.len() - random(8);
                check(&bytes[..cut]);
            }
        }
        let filler: &[&[u8]] = &[b"abcdefgh", "é€ab".as_bytes()];
        let positions: &[usize] = if small {
            &[63, 128]
        } else {
            &[1, 2, 62, 63, 64, 65, 126, 127, 128, 129, 130, 190, 191, 192]
        };
        for filler in filler {
            let mut base: Vec<u8> = filler.iter().copied().cycle().take(256).collect();
            // Errors 2 bytes apart first, so that the walk splits blocks from there.
            for at in [0, 2, 4, 6, 8] {
                base[at] = 0xFF;
            }
            for &pos in positions {
                for a in CLASSES {
                    for b in CLASSES {
                        for c in CLASSES {
                            let mut bytes = base.clone();
                            bytes[pos..pos + 3].copy_from_slice(&[a, b, c]);
                            check(&bytes);
                            check(&bytes[..pos + 3]);
                        }
                    }
                }
            }
        }
    }
}
