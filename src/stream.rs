//! Streaming validation: [`Validator`] checks UTF-8 that arrives in chunks.
//!
//! # Design
//! Each chunk is validated *in place* by the same SIMD kernel as [`crate::from_utf8`]; the
//! validator never copies a chunk. What it carries from one chunk to the next is at most
//! three bytes: the start of a character that the chunk ended inside of. That is enough
//! because UTF-8 is self-synchronizing. A character is at most four bytes long, so if the
//! chunk ends inside one, that character started in the chunk's last three bytes; every
//! byte before its lead byte belongs to a complete character, which the kernel can judge
//! from the chunk alone.
//!
//! So [`Validator::update`] does three things:
//! 1. If the previous chunk ended inside a character, it copies the (at most 3) bytes it
//!    kept and the first bytes of the new chunk that the character still needs into a
//!    4-byte buffer on the stack and decodes that one character with the scalar decoder.
//! 2. It hands the kernel the rest of the chunk up to the lead byte of a character that the
//!    chunk may end inside of: a lead byte among the last three bytes whose sequence is
//!    longer than the bytes after it. Both ends of that span are character boundaries, so
//!    the kernel's answer on it is the answer for those bytes of the stream.
//! 3. It decodes the at most three bytes after the span with the scalar decoder: they are
//!    either the valid start of a character, which it keeps for the next chunk, or an
//!    error.
//!
//! # Errors that straddle chunks
//! The first error of the stream is reported as soon as it is certain, and only then, with
//! exactly the values [`crate::from_utf8`] gives for the whole stream (`valid_up_to` counted
//! from the start of the stream). An invalid sequence that the chunk ends inside of is
//! certain only when a byte that breaks it arrives: `E2 82` at the end of a chunk may still
//! become `€`, and if the next chunk starts with `41` it is reported by that next `update`
//! with `error_len() == Some(2)`. The kind of an error ([`crate::ErrorKind`]) depends on the
//! byte after the error's first byte, which may likewise be the next chunk's first byte
//! (`E0 | 80` is `Overlong`, `E0 | 41` is `TooShort`). A sequence still incomplete when the
//! stream ends is reported by [`Validator::finish`] with `error_len() == None` and kind
//! `Truncated`.
//!
//! When the kernel finds an error, its checkpoint is an offset into the chunk; the exact
//! error is found by the scalar locator on the same chunk (from the lead byte before the
//! checkpoint, up to the chunk's end, so that a sequence cut short right before the kept
//! tail is judged with the tail's lead byte after it) and then shifted by the number of
//! stream bytes before the chunk.
//!
//! Offsets are `usize`s, as in [`crate::Utf8Error`]. On targets where `usize` has 32 bits,
//! they saturate at `usize::MAX` for streams longer than 4 GiB.

use crate::dispatch;
use crate::error::Utf8Error;
use crate::kernel::{Kernel, ValidateFn};
use crate::scalar;

/// A UTF-8 validator for data that arrives in chunks, with the same answers as
/// [`crate::from_utf8`] on the whole stream however it is cut.
///
/// Feed it the chunks in order with [`update`](Validator::update) and end the stream with
/// [`finish`](Validator::finish). The first error either of them returns is the error
/// [`crate::from_utf8`] returns for the concatenation of the chunks: same
/// [`valid_up_to`](Utf8Error::valid_up_to) (counted from the start of the stream), same
/// [`error_len`](Utf8Error::error_len), same [`kind`](Utf8Error::kind). After an error,
/// every call returns that error again. The module documentation of the source
/// (`src/stream.rs`) explains how errors that straddle chunks are found.
///
/// The chunks are validated in place with the fastest kernel for this CPU; at most three
/// bytes (the start of a character that a chunk ends inside of) are kept between calls.
/// A `Validator` is small (a few words) and does not allocate; it works without `std`.
///
/// ```
/// use utf8check::{ErrorKind, Validator};
///
/// // "€" is E2 82 AC: split across three chunks.
/// let mut validator = Validator::new();
/// validator.update(b"price: \xE2").unwrap();
/// validator.update(b"\x82").unwrap();
/// validator.update(b"\xAC 10").unwrap();
/// assert_eq!(validator.valid_up_to(), 13);
/// assert_eq!(validator.finish(), Ok(()));
///
/// // An error found in a later chunk is reported at its offset in the whole stream.
/// let mut validator = Validator::new();
/// validator.update(b"abc\xE2\x82").unwrap(); // may still become a character
/// let err = validator.update(b"!").unwrap_err(); // it does not
/// assert_eq!((err.valid_up_to(), err.error_len()), (3, Some(2)));
/// assert_eq!(err.kind(), ErrorKind::TooShort);
/// assert_eq!(validator.update(b"more"), Err(err)); // the error sticks
///
/// // A stream that ends inside a character.
/// let mut validator = Validator::new();
/// validator.update(b"abc\xF0\x9F").unwrap();
/// let err = validator.finish().unwrap_err();
/// assert_eq!((err.valid_up_to(), err.error_len()), (3, None));
/// assert_eq!(err.kind(), ErrorKind::Truncated);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Validator {
    /// Bytes of the stream confirmed valid: the stream offset of `pending[0]`, or of the
    /// error once there is one.
    valid_up_to: usize,
    /// The start of a character that the last chunk ended inside of: a lead byte and the
    /// continuation bytes it accepts, `pending_len` (0 to 3) bytes. The 4th byte is room
    /// to complete the character in place.
    pending: [u8; 4],
    pending_len: u8,
    /// The first error, once found: every later call returns it.
    error: Option<Utf8Error>,
    /// The kernel chosen by [`Validator::with_kernel`]; `None` for the dispatched one.
    kernel: Option<Kernel>,
}

impl Validator {
    /// A validator at the start of a stream. The same as [`Validator::default`].
    ///
    /// ```
    /// let validator = utf8check::Validator::new();
    /// assert_eq!(validator.valid_up_to(), 0);
    /// assert_eq!(validator.finish(), Ok(())); // the empty stream is valid
    /// ```
    pub const fn new() -> Validator {
        Validator {
            valid_up_to: 0,
            pending: [0; 4],
            pending_len: 0,
            error: None,
            kernel: None,
        }
    }

    /// A validator that runs `kernel` instead of the fastest one, with the same answers
    /// (a hook for tests and benchmarks that compare kernels, like [`Kernel::from_utf8`]).
    ///
    /// ```
    /// use utf8check::{Kernel, Validator};
    ///
    /// for kernel in Kernel::available() {
    ///     let mut validator = Validator::with_kernel(kernel);
    ///     validator.update("Grüße".as_bytes()).unwrap();
    ///     assert_eq!(validator.finish(), Ok(()));
    /// }
    /// ```
    ///
    /// # Panics
    /// If this CPU cannot run the kernel (see [`Kernel::is_supported`]).
    #[doc(hidden)]
    pub fn with_kernel(kernel: Kernel) -> Validator {
        assert!(
            kernel.is_supported(),
            "utf8check: the {} kernel is not supported by this CPU (see Kernel::available())",
            kernel.name()
        );
        Validator {
            kernel: Some(kernel),
            ..Validator::new()
        }
    }

    /// Validates the next chunk of the stream.
    ///
    /// ```
    /// let mut validator = utf8check::Validator::new();
    /// for chunk in "日本語".as_bytes().chunks(2) {
    ///     validator.update(chunk).unwrap();
    /// }
    /// assert_eq!(validator.finish(), Ok(()));
    /// ```
    ///
    /// # Errors
    /// The first error of the stream, as soon as this chunk makes it certain (see the
    /// type's documentation); every later call returns it again. A chunk that ends inside
    /// a character is not an error (yet): the character may end in the next chunk.
    pub fn update(&mut self, chunk: &[u8]) -> Result<(), Utf8Error> {
        if let Some(err) = self.error {
            return Err(err);
        }
        let result = self.validate(chunk);
        if let Err(err) = result {
            self.error = Some(err);
            self.valid_up_to = err.valid_up_to();
            self.pending_len = 0;
        }
        result
    }

    /// Ends the stream: checks that it does not end inside a character.
    ///
    /// ```
    /// use utf8check::Validator;
    ///
    /// let mut validator = Validator::new();
    /// validator.update(b"caf\xC3").unwrap();
    /// let err = validator.finish().unwrap_err();
    /// assert_eq!((err.valid_up_to(), err.error_len()), (3, None));
    /// ```
    ///
    /// # Errors
    /// The error an earlier [`update`](Validator::update) returned, if any; else, if the
    /// stream ends inside a character, a [`Truncated`](crate::ErrorKind::Truncated) error
    /// with `error_len() == None` at the start of that character.
    pub fn finish(mut self) -> Result<(), Utf8Error> {
        self.end()
    }

    /// The number of bytes of the stream confirmed valid so far: the length of its longest
    /// prefix known to be complete, valid UTF-8. Bytes of a character that the last chunk
    /// ended inside of are not counted until the character is complete. After an error, it
    /// is the error's [`valid_up_to`](Utf8Error::valid_up_to).
    ///
    /// ```
    /// let mut validator = utf8check::Validator::new();
    /// validator.update(b"ab\xC3").unwrap();
    /// assert_eq!(validator.valid_up_to(), 2); // `C3` starts a character
    /// validator.update(b"\xA9").unwrap();
    /// assert_eq!(validator.valid_up_to(), 4); // "abé"
    /// ```
    pub fn valid_up_to(&self) -> usize {
        self.valid_up_to
    }

    /// [`finish`](Validator::finish) without giving up the validator: an error is kept,
    /// so later calls return it (for the `io` reader, which may reach the end twice).
    pub(crate) fn end(&mut self) -> Result<(), Utf8Error> {
        if let Some(err) = self.error {
            return Err(err);
        }
        if self.pending_len == 0 {
            return Ok(());
        }
        let pending = &self.pending[..usize::from(self.pending_len)];
        let err = self.at_stream_offset(Utf8Error::new(pending, 0, None));
        self.error = Some(err);
        self.pending_len = 0;
        Err(err)
    }

    /// The error found so far, if any.
    #[cfg(feature = "std")]
    pub(crate) fn error(&self) -> Option<Utf8Error> {
        self.error
    }

    /// Forgets every byte after stream offset `valid_up_to`, which must be a character
    /// boundary no further than the bytes confirmed valid, or the start of an error found
    /// there (for the `io` writer, which validates more than its inner writer may take and
    /// keeps only what it took).
    #[cfg(feature = "std")]
    pub(crate) fn rewind(&mut self, valid_up_to: usize) {
        debug_assert!(valid_up_to <= self.valid_up_to);
        self.valid_up_to = valid_up_to;
        self.pending_len = 0;
        self.error = None;
    }

    /// [`update`](Validator::update) without the sticky error.
    fn validate(&mut self, chunk: &[u8]) -> Result<(), Utf8Error> {
        let mut chunk = chunk;
        if self.pending_len > 0 {
            chunk = self.complete_pending(chunk)?;
            if self.pending_len > 0 {
                // The chunk was too short to complete the character.
                debug_assert!(chunk.is_empty());
                return Ok(());
            }
        }
        self.validate_from_boundary(chunk)
    }

    /// Decodes the pending character with the first bytes of `chunk` that it still needs;
    /// returns the rest of the chunk.
    fn complete_pending<'a>(&mut self, chunk: &'a [u8]) -> Result<&'a [u8], Utf8Error> {
        let held = usize::from(self.pending_len);
        let take = (sequence_len(self.pending[0]) - held).min(chunk.len());
        // The character is joined in `pending` itself, whose 4th byte exists for this.
        copy_short(&mut self.pending[held..], &chunk[..take]);
        let joined = &self.pending[..held + take];
        match scalar::run(joined, 0) {
            Ok(()) => {
                self.valid_up_to = self.valid_up_to.saturating_add(joined.len());
                self.pending_len = 0;
            }
            // Still incomplete: `take == chunk.len()`, and `joined` is at most 3 bytes.
            Err((_, None)) => self.pending_len = joined.len() as u8,
            Err((at, error_len)) => {
                return Err(self.at_stream_offset(Utf8Error::new(joined, at, error_len)));
            }
        }
        Ok(&chunk[take..])
    }

    /// Validates `chunk`, which starts at a character boundary of the stream, keeping a
    /// character that it ends inside of in `pending`.
    #[inline]
    fn validate_from_boundary(&mut self, chunk: &[u8]) -> Result<(), Utf8Error> {
        let split = incomplete_tail_start(chunk);
        // Both `0` and `split` are character boundaries (if the bytes before `split` are
        // valid), so the kernel's answer for `chunk[..split]` is the answer for those
        // bytes of the stream. Its checkpoint is an offset into `chunk` as well.
        if let Err(checkpoint) = self.run_kernel(&chunk[..split]) {
            return self.locate(chunk, checkpoint);
        }
        // The tail is the start of a character, shorter than its sequence: the decoder
        // ends with `Err((split, None))` if it is valid so far.
        let tail = &chunk[split..];
        if !tail.is_empty() {
            if let Err((at, error_len @ Some(_))) = scalar::run(chunk, split) {
                return Err(self.at_stream_offset(Utf8Error::new(chunk, at, error_len)));
            }
        }
        copy_short(&mut self.pending, tail);
        self.pending_len = tail.len() as u8;
        self.valid_up_to = self.valid_up_to.saturating_add(split);
        Ok(())
    }

    /// Finds the exact error in `chunk` (which starts at a character boundary) after the
    /// kernel failed with `checkpoint` on the bytes before `incomplete_tail_start(chunk)`.
    #[cold]
    fn locate(&mut self, chunk: &[u8], checkpoint: usize) -> Result<(), Utf8Error> {
        // The locator decodes from the character in progress at `checkpoint` to the end of
        // `chunk`, past the tail's start: a sequence cut short right before the tail is an
        // error that the tail's lead byte decides.
        match scalar::first_error(chunk, checkpoint) {
            Some(err) if err.error_len().is_some() => Err(self.at_stream_offset(err)),
            // No error but an incomplete end: what the fast path would have found. (Not
            // expected after the kernel failed, but the answer stays exact.)
            found => {
                let end = found.map_or(chunk.len(), |err| err.valid_up_to());
                let tail = &chunk[end..];
                copy_short(&mut self.pending, tail);
                self.pending_len = tail.len() as u8;
                self.valid_up_to = self.valid_up_to.saturating_add(end);
                Ok(())
            }
        }
    }

    /// Runs the chosen kernel.
    #[inline]
    fn run_kernel(&self, bytes: &[u8]) -> Result<(), usize> {
        match self.kernel {
            None => dispatch::validate(bytes),
            Some(kernel) => {
                // `with_kernel` checked that the kernel is supported; the scalar kernel,
                // which gives the same answers, is only a fallback that is never taken.
                let validate = kernel
                    .validate_fn()
                    .unwrap_or(scalar::validate as ValidateFn);
                // SAFETY: `validate_fn` only returns kernels this CPU supports.
                unsafe { validate(bytes) }
            }
        }
    }

    /// `err`, found in bytes that start at stream offset `valid_up_to`, with its offset in
    /// the stream (saturating; see the module documentation).
    fn at_stream_offset(&self, err: Utf8Error) -> Utf8Error {
        err.offset_by(self.valid_up_to.min(usize::MAX - err.valid_up_to()))
    }
}

/// Copies `src` (at most 3 bytes) to the start of `dst` with a fixed number of byte moves
/// (a `copy_from_slice` of a variable length would call `memcpy`, which costs more than
/// the rest of a short chunk's bookkeeping).
#[inline(always)]
fn copy_short(dst: &mut [u8], src: &[u8]) {
    debug_assert!(src.len() <= 3 && src.len() <= dst.len());
    for i in 0..3 {
        if let (Some(&byte), Some(slot)) = (src.get(i), dst.get_mut(i)) {
            *slot = byte;
        }
    }
}

/// The length of the sequence that `lead` starts, from its high bits (4 for `F5..=FF`,
/// which are invalid anyway, and 2 for `C0` and `C1`).
fn sequence_len(lead: u8) -> usize {
    match lead {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

/// Where a sequence that may continue past the end of `bytes` starts: the position of a
/// lead byte among the last three bytes whose sequence is longer than the bytes from it to
/// the end; `bytes.len()` if there is none. (A lead byte further back starts a sequence
/// that is complete or invalid within `bytes`.)
pub(crate) fn incomplete_tail_start(bytes: &[u8]) -> usize {
    let len = bytes.len();
    for back in 1..=len.min(3) {
        let byte = bytes[len - back];
        if !scalar::is_continuation(byte) {
            return if byte >= 0xC0 && sequence_len(byte) > back {
                len - back
            } else {
                len
            };
        }
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_start_is_the_lead_of_a_cut_sequence() {
        assert_eq!(incomplete_tail_start(b""), 0);
        assert_eq!(incomplete_tail_start(b"abc"), 3);
        assert_eq!(incomplete_tail_start(b"ab\xC3"), 2);
        assert_eq!(incomplete_tail_start(b"ab\xC3\xA9"), 4);
        assert_eq!(incomplete_tail_start(b"a\xE2\x82"), 1);
        assert_eq!(incomplete_tail_start(b"\xF0\x9F\x98"), 0);
        assert_eq!(incomplete_tail_start(b"\xF0\x9F\x98\x80"), 4);
        // Invalid bytes are kept for the scalar decoder, which rejects them.
        assert_eq!(incomplete_tail_start(b"a\xFF"), 1);
        // Four continuation bytes: no lead byte in reach, nothing to keep.
        assert_eq!(incomplete_tail_start(b"\x80\x80\x80\x80"), 4);
    }

    #[test]
    fn keeps_at_most_three_bytes() {
        let mut validator = Validator::new();
        validator.update(b"abc\xF0\x9F\x98").unwrap();
        assert_eq!(validator.pending_len, 3);
        assert_eq!(validator.valid_up_to(), 3);
        validator.update(b"\x80").unwrap();
        assert_eq!(validator.pending_len, 0);
        assert_eq!(validator.valid_up_to(), 7);
    }
}
