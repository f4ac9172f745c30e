//! The portable scalar validator, which is also the exact error locator of every kernel.
//!
//! It follows the structure of std's `run_utf8_validation`: decode one sequence at a time,
//! checking the second byte against the lead-dependent range of RFC 3629's ABNF
//! (`E0 A0..BF`, `ED 80..9F`, `F0 90..BF`, `F4 80..8F`, ...), which rejects overlongs,
//! surrogates and code points above U+10FFFF without decoding. Runs of ASCII are skipped a
//! 16-byte pair of words at a time.
//!
//! The SIMD kernels only say *whether* a block is invalid. When one is, [`first_error`]
//! rewinds to the start of the character in progress and runs this code from there, so
//! every kernel reports exactly what std reports.

use crate::error::Utf8Error;
use crate::generic::BLOCK;
use crate::kernel::{BlockErrors, BLOCK_READ};

/// Where the first invalid sequence starts and its `error_len` (`None`: truncated).
pub(crate) type RawError = (usize, Option<u8>);

/// Is `byte` a continuation byte (`0b10xx_xxxx`)?
#[inline(always)]
pub(crate) const fn is_continuation(byte: u8) -> bool {
    (byte as i8) < -64
}

/// The scalar kernel: `Ok` if `bytes` is UTF-8, else the offset of the first invalid
/// sequence (a checkpoint in the sense of [`crate::kernel::ValidateFn`]).
pub(crate) fn validate(bytes: &[u8]) -> Result<(), usize> {
    run(bytes, 0).map_err(|(valid_up_to, _)| valid_up_to)
}

/// The scalar kernel's [`crate::kernel::FirstErrorFn`]: the first invalid sequence (an
/// unfinished one at the end included).
pub(crate) fn first_invalid(bytes: &[u8]) -> Option<RawError> {
    run(bytes, 0).err()
}

/// The first invalid sequence of `bytes` (which starts at a character boundary), given
/// that the bytes before `at` break no rule and byte `at` fails a SIMD check (or `at` is
/// the end of `bytes`, which ends inside a sequence): the sequence starts at one of the
/// bytes `at - 3 ..= at`, so decoding from the character before it finds it within a few
/// bytes. (A character at a time, not [`run`]'s loop: its word-wide ASCII skip made one
/// error per ~64 bytes of real text about 10% slower here, where only a few bytes are
/// decoded.)
#[inline(always)]
pub(crate) fn invalid_at(bytes: &[u8], at: usize) -> Option<RawError> {
    let mut pos = boundary_before(bytes, at);
    while pos < bytes.len() {
        pos += match bytes[pos] {
            0..=0x7F => 1,
            _ => match sequence(bytes, pos) {
                Ok(len) => len,
                Err(found) => return Some(found),
            },
        };
    }
    None
}

/// The scalar kernel's [`crate::kernel::BlockErrorsFn`]: the block decoded a character at
/// a time from the first byte that `carry` does not take, each invalid sequence marked.
pub(crate) fn block_errors(bytes: &[u8; BLOCK_READ], carry: u64, out: &mut BlockErrors) {
    let mut errors = BlockErrors::default();
    let mut i = carry.trailing_ones() as usize;
    while i < BLOCK {
        if bytes[i] < 0x80 {
            i = skip_ascii(&bytes[..BLOCK], i + 1);
            continue;
        }
        i += match sequence(bytes, i) {
            Ok(len) => len,
            // (A sequence that starts in the block ends within the 3 bytes after it: never
            // cut by the end of `bytes`.)
            Err((_, error_len)) => {
                let len = error_len.map_or(1, usize::from);
                errors.starts |= 1 << i;
                errors.two |= u64::from(len >= 2) << i;
                errors.three |= u64::from(len >= 3) << i;
                len
            }
        };
    }
    errors.carry = (1 << (i - BLOCK)) - 1;
    *out = errors;
}

/// Turns a kernel's answer into the exact, std-compatible result.
#[inline(always)]
pub(crate) fn exact(bytes: &[u8], kernel_result: Result<(), usize>) -> Result<(), Utf8Error> {
    match kernel_result {
        Ok(()) => Ok(()),
        Err(checkpoint) => exact_error(bytes, checkpoint),
    }
}

/// [`exact`]'s answer after an `Err(checkpoint)`: out of line, so that the caller's
/// path for valid input (a kernel's [`crate::kernel::ExactFn`] above all) keeps no more
/// registers than the kernel itself.
#[cold]
#[inline(never)]
fn exact_error(bytes: &[u8], checkpoint: usize) -> Result<(), Utf8Error> {
    match first_error(bytes, checkpoint) {
        Some(err) => Err(err),
        None => {
            debug_assert!(false, "a kernel reported an error in valid input");
            Ok(())
        }
    }
}

/// The scalar kernel's [`crate::kernel::ExactFn`].
pub(crate) fn from_utf8(bytes: &[u8]) -> Result<(), Utf8Error> {
    run(bytes, 0).map_err(|(valid_up_to, error_len)| Utf8Error::new(bytes, valid_up_to, error_len))
}

/// Finds the first error in `bytes`, given that a kernel reported `checkpoint`: no byte
/// before `checkpoint` was found to break a rule given the bytes before it.
///
/// Returns `None` only if `bytes` is valid after all.
#[cold]
pub(crate) fn first_error(bytes: &[u8], checkpoint: usize) -> Option<Utf8Error> {
    match run(bytes, boundary_before(bytes, checkpoint)) {
        Ok(()) => None,
        Err((valid_up_to, error_len)) => Some(Utf8Error::new(bytes, valid_up_to, error_len)),
    }
}

/// A character boundary at or shortly before `checkpoint`, which a kernel reported: the
/// character in progress there started at most 3 bytes before it, and its lead byte is
/// the last byte before `checkpoint` that is not a continuation byte. Everything before
/// that byte is complete, valid UTF-8.
#[inline]
pub(crate) fn boundary_before(bytes: &[u8], checkpoint: usize) -> usize {
    let low = checkpoint.saturating_sub(4);
    (low..checkpoint)
        .rev()
        .find(|&i| !is_continuation(bytes[i]))
        .unwrap_or(low)
}

/// Validates `bytes[start..]`; `start` must be at a character boundary.
pub(crate) fn run(bytes: &[u8], start: usize) -> Result<(), RawError> {
    let len = bytes.len();
    let mut i = start;
    while i < len {
        if bytes[i] < 0x80 {
            i = skip_ascii(bytes, i + 1);
            continue;
        }
        i += sequence(bytes, i)?;
    }
    Ok(())
}

/// Decodes the sequence that the non-ASCII byte `bytes[i]` starts: its length if it is a
/// valid character, else the error at `i`. (The one copy of the rules, shared by [`run`]
/// and the chunk walker's loop for dense errors.)
#[inline(always)]
pub(crate) fn sequence(bytes: &[u8], i: usize) -> Result<usize, RawError> {
    let lead = bytes[i];
    // The byte `n` places after the lead, or a truncation error at the end of input.
    let at = |n: usize| -> Result<u8, RawError> {
        match bytes.get(i + n) {
            Some(&b) => Ok(b),
            None => Err((i, None)),
        }
    };
    let invalid = |len: u8| -> RawError { (i, Some(len)) };
    match lead {
        0xC2..=0xDF => {
            if !is_continuation(at(1)?) {
                return Err(invalid(1));
            }
            Ok(2)
        }
        0xE0..=0xEF => {
            let second_ok = match lead {
                0xE0 => matches!(at(1)?, 0xA0..=0xBF),
                0xED => matches!(at(1)?, 0x80..=0x9F),
                _ => is_continuation(at(1)?),
            };
            if !second_ok {
                return Err(invalid(1));
            }
            if !is_continuation(at(2)?) {
                return Err(invalid(2));
            }
            Ok(3)
        }
        0xF0..=0xF4 => {
            let second_ok = match lead {
                0xF0 => matches!(at(1)?, 0x90..=0xBF),
                0xF4 => matches!(at(1)?, 0x80..=0x8F),
                _ => is_continuation(at(1)?),
            };
            if !second_ok {
                return Err(invalid(1));
            }
            if !is_continuation(at(2)?) {
                return Err(invalid(2));
            }
            if !is_continuation(at(3)?) {
                return Err(invalid(3));
            }
            Ok(4)
        }
        // Continuation bytes, C0, C1 and F5..=FF cannot start a character.
        _ => Err(invalid(1)),
    }
}

/// Returns the index of the first non-ASCII byte at or after `i`, or `bytes.len()`.
#[inline(always)]
pub(crate) fn skip_ascii(bytes: &[u8], mut i: usize) -> usize {
    const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
    let mut pairs = bytes[i.min(bytes.len())..].chunks_exact(16);
    for pair in &mut pairs {
        let (a, b) = pair.split_at(8);
        let a = u64::from_le_bytes(a.try_into().unwrap()) & HIGH_BITS;
        let b = u64::from_le_bytes(b.try_into().unwrap()) & HIGH_BITS;
        if a | b != 0 {
            // Little-endian words: the lowest set bit belongs to the first non-ASCII byte.
            let first = if a != 0 {
                a.trailing_zeros()
            } else {
                64 + b.trailing_zeros()
            };
            return i + first as usize / 8;
        }
        i += 16;
    }
    for &b in pairs.remainder() {
        if b >= 0x80 {
            return i;
        }
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skip_ascii_finds_first_high_byte() {
        let mut buf = [b'a'; 40];
        for pos in 0..40 {
            buf[pos] = 0xC3;
            for start in 0..=pos {
                assert_eq!(skip_ascii(&buf, start), pos);
            }
            buf[pos] = b'a';
        }
        assert_eq!(skip_ascii(&buf, 3), 40);
        assert_eq!(skip_ascii(&buf, 40), 40);
    }

    #[test]
    fn first_error_from_any_checkpoint_before_the_error() {
        let text = "aé€😀b".as_bytes();
        let mut bad = text.to_vec();
        bad.push(0xFF);
        bad.extend_from_slice("zé".as_bytes());
        let expected = core::str::from_utf8(&bad).unwrap_err();
        // Any checkpoint at or before the error, up to one past it, must find it.
        for checkpoint in 0..=expected.valid_up_to() + 1 {
            let err = first_error(&bad, checkpoint).unwrap();
            assert_eq!(err.valid_up_to(), expected.valid_up_to());
            assert_eq!(err.error_len(), expected.error_len());
        }
        assert_eq!(first_error(text, 0), None);
    }
}
