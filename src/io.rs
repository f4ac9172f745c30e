//! `std::io` adapters that validate UTF-8 as it is read or written: [`Utf8Reader`] and
//! [`Utf8Writer`]; and [`LossyReader`], which repairs it instead (each invalid sequence
//! becomes U+FFFD).
//!
//! Both pass on only bytes that a [`Validator`] has confirmed: the bytes a `Utf8Reader`
//! hands out, and the bytes a `Utf8Writer` writes to its inner writer, are always the
//! start of a valid UTF-8 stream, even when an error comes later. A character that arrives
//! in two pieces (the inner reader returned its first bytes, or the caller wrote them) is
//! held back, at most 3 bytes, until it is complete. So when an adapter reports invalid
//! data, exactly [`valid_up_to`](crate::Utf8Error::valid_up_to) bytes have been passed on.
//!
//! Invalid data is an [`io::Error`] of kind [`io::ErrorKind::InvalidData`] that carries the
//! [`Utf8Error`](crate::Utf8Error), with its offset counted from the start of the stream;
//! recover it with `err.get_ref()` and `downcast_ref::<Utf8Error>()`.
//!
//! Errors of the inner reader or writer, `Interrupted` included, are passed to the caller
//! unchanged and lose no bytes, like the adapters of `std::io` do (`read_to_end`,
//! `write_all` and friends retry `Interrupted`).

use std::io::{self, BufRead, Read, Write};

mod lossy;

pub use lossy::LossyReader;

use crate::scalar;
use crate::stream::Validator;

/// Up to 4 bytes of the stream taken from one side but not yet passed to the other: first
/// `ready` bytes that are validated, then the validator's pending bytes (the start of a
/// character that is not complete yet).
#[derive(Clone, Copy, Debug, Default)]
struct Stash {
    bytes: [u8; 4],
    ready: usize,
    len: usize,
}

impl Stash {
    /// `bytes`, the first `ready` of them validated.
    fn new(bytes: &[u8], ready: usize) -> Stash {
        let mut stash = Stash {
            ready,
            len: bytes.len(),
            ..Stash::default()
        };
        stash.bytes[..bytes.len()].copy_from_slice(bytes);
        stash
    }

    /// The validated bytes.
    fn ready(&self) -> &[u8] {
        &self.bytes[..self.ready]
    }

    /// The bytes not validated yet: the validator's pending bytes.
    fn held(&self) -> &[u8] {
        &self.bytes[self.ready..self.len]
    }

    /// Removes the first `n` validated bytes.
    fn consume(&mut self, n: usize) {
        let n = n.min(self.ready);
        self.bytes.copy_within(n..self.len, 0);
        self.ready -= n;
        self.len -= n;
    }

    /// Moves as many validated bytes as fit into `buf`; returns how many.
    fn take_ready(&mut self, buf: &mut [u8]) -> usize {
        let n = self.ready.min(buf.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.consume(n);
        n
    }
}

/// Feeds `new`, the bytes that follow the validator's pending bytes, to `validator` (an
/// empty `new` ends the stream). Returns how many bytes, counted from the first pending
/// byte, are now confirmed valid. An error stays in the validator, to be reported once
/// the bytes before it have been passed on.
fn advance(validator: &mut Validator, new: &[u8]) -> usize {
    let before = validator.valid_up_to();
    // The error, if any, is kept by the validator (`Validator::error`).
    let _ = if new.is_empty() {
        validator.end()
    } else {
        validator.update(new)
    };
    validator.valid_up_to() - before
}

/// A reader that validates everything read through it.
///
/// It implements [`Read`], and [`BufRead`] when the inner reader does (wrap a
/// [`std::io::BufReader`] to read lines). Every byte it hands out belongs to a character it
/// has validated: a character that the inner reader returns in two pieces is held back
/// until it is complete, so `read` and `fill_buf` return whole characters (only a buffer
/// shorter than the character gets it in pieces, once it is validated).
///
/// At the first invalid byte it hands out every valid byte before it, then returns an
/// error of kind [`io::ErrorKind::InvalidData`] carrying the [`Utf8Error`](crate::Utf8Error),
/// and returns that error again on every later call. A stream that ends inside a character
/// is an error of kind [`Truncated`](crate::ErrorKind::Truncated) at the end of the stream.
///
/// Errors of the inner reader, `Interrupted` included, are returned unchanged (like
/// [`std::io::BufReader`] does) and lose no bytes: call again to continue. (The `read_*`
/// methods of [`Read`] and [`BufRead`] retry `Interrupted` themselves.)
///
/// ```
/// use std::io::{BufRead, BufReader, Read};
/// use utf8check::{io::Utf8Reader, Utf8Error};
///
/// let mut text = String::new();
/// Utf8Reader::new("Grüße, 世界".as_bytes()).read_to_string(&mut text)?;
/// assert_eq!(text, "Grüße, 世界");
///
/// // Lines, through a BufReader.
/// let reader = Utf8Reader::new(BufReader::new("α\nβ\n".as_bytes()));
/// let lines: Vec<String> = reader.lines().collect::<Result<_, _>>()?;
/// assert_eq!(lines, ["α", "β"]);
///
/// // Invalid data: the valid bytes come first, then the error.
/// let mut reader = Utf8Reader::new(&b"abc\xFFdef"[..]);
/// let mut bytes = Vec::new();
/// let err = reader.read_to_end(&mut bytes).unwrap_err();
/// assert_eq!(bytes, b"abc");
/// assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
/// let utf8 = err.get_ref().unwrap().downcast_ref::<Utf8Error>().unwrap();
/// assert_eq!((utf8.valid_up_to(), utf8.error_len()), (3, Some(1)));
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct Utf8Reader<R> {
    inner: R,
    validator: Validator,
    /// Bytes taken from the inner reader and not handed out yet.
    stash: Stash,
    /// Through [`BufRead`]: how many bytes at the front of the inner reader's buffer are
    /// validated, shown by `fill_buf` and not consumed yet.
    buffered_valid: usize,
    /// Through [`BufRead`]: how many bytes after those the validator holds as its pending
    /// bytes while they are still in the inner reader's buffer.
    buffered_pending: usize,
}

impl<R> Utf8Reader<R> {
    /// Wraps `inner`.
    ///
    /// ```
    /// let reader = utf8check::io::Utf8Reader::new(std::io::empty());
    /// ```
    pub fn new(inner: R) -> Utf8Reader<R> {
        Utf8Reader {
            inner,
            validator: Validator::new(),
            stash: Stash::default(),
            buffered_valid: 0,
            buffered_pending: 0,
        }
    }

    /// The inner reader.
    ///
    /// ```
    /// let reader = utf8check::io::Utf8Reader::new(std::io::Cursor::new(b"abc"));
    /// assert_eq!(reader.get_ref().position(), 0);
    /// ```
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The inner reader, mutably. Reading from it directly skips those bytes, which the
    /// validator then never sees: the stream it checks is no longer the inner one.
    ///
    /// ```
    /// let mut reader = utf8check::io::Utf8Reader::new(std::io::Cursor::new(b"abc"));
    /// reader.get_mut().set_position(1);
    /// ```
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// Unwraps the inner reader. Bytes this reader has taken from it but not handed out
    /// (at most 3: a character not complete yet, or not yet handed out to a buffer shorter
    /// than it) are lost.
    ///
    /// ```
    /// use std::io::Read;
    ///
    /// let mut reader = utf8check::io::Utf8Reader::new(std::io::Cursor::new(b"abc"));
    /// reader.read_exact(&mut [0; 2])?;
    /// assert_eq!(reader.into_inner().position(), 2);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn into_inner(self) -> R {
        self.inner
    }
}

impl<R: Read> Read for Utf8Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if !self.stash.ready().is_empty() {
                return Ok(self.stash.take_ready(buf));
            }
            if self.buffered_valid > 0 {
                // Bytes that `fill_buf` validated; the inner reader's `read` returns its
                // buffered bytes first.
                let len = buf.len().min(self.buffered_valid);
                let n = self.inner.read(&mut buf[..len])?.min(len);
                self.buffered_valid -= n;
                return Ok(n);
            }
            if let Some(err) = self.validator.error() {
                return Err(err.into());
            }
            if self.buffered_pending > 0 {
                // The validator's pending bytes, still buffered by the inner reader.
                let mut pending = [0; 3];
                let want = self.buffered_pending.min(3);
                let n = self.inner.read(&mut pending[..want])?.min(want);
                self.stash = Stash::new(&pending[..n], 0);
                self.buffered_pending = 0;
                continue;
            }
            let held = self.stash.held().len();
            if buf.len() > held {
                // Read after the held bytes, in place in `buf`.
                buf[..held].copy_from_slice(self.stash.held());
                let n = self.inner.read(&mut buf[held..])?.min(buf.len() - held);
                let filled = held + n;
                let valid = advance(&mut self.validator, &buf[held..filled]);
                self.stash = match self.validator.error() {
                    Some(_) => Stash::default(),
                    None => Stash::new(&buf[valid..filled], 0),
                };
                if valid > 0 || (n == 0 && self.validator.error().is_none()) {
                    return Ok(valid); // `Ok(0)`: the end of a valid stream.
                }
            } else {
                // `buf` has no room after the held bytes: read into the stash.
                let mut bytes = [0; 4];
                bytes[..held].copy_from_slice(self.stash.held());
                let n = self.inner.read(&mut bytes[held..])?.min(4 - held);
                let filled = held + n;
                let valid = advance(&mut self.validator, &bytes[held..filled]);
                let kept = match self.validator.error() {
                    Some(_) => valid,
                    None => filled,
                };
                self.stash = Stash::new(&bytes[..kept], valid);
            }
        }
    }
}

impl<R: BufRead> BufRead for Utf8Reader<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        loop {
            if !self.stash.ready().is_empty() {
                return Ok(self.stash.ready());
            }
            if self.buffered_valid > 0 {
                let data = self.inner.fill_buf()?;
                return Ok(&data[..self.buffered_valid.min(data.len())]);
            }
            if let Some(err) = self.validator.error() {
                return Err(err.into());
            }
            let data = self.inner.fill_buf()?;
            if self.buffered_pending > 0 {
                // Move the validator's pending bytes out of the inner reader's buffer, so
                // that it refills.
                let n = self.buffered_pending.min(data.len());
                self.stash = Stash::new(&data[..n], 0);
                self.inner.consume(n);
                self.buffered_pending = 0;
            } else if !self.stash.held().is_empty() {
                // Complete the held character a byte at a time (it needs at most 3).
                let mut bytes = self.stash.bytes;
                let mut len = self.stash.len;
                let valid = match data.first().copied() {
                    Some(byte) => {
                        self.inner.consume(1);
                        bytes[len] = byte;
                        len += 1;
                        advance(&mut self.validator, &[byte])
                    }
                    // The end of the stream, inside a character: an error.
                    None => advance(&mut self.validator, &[]),
                };
                self.stash = match self.validator.error() {
                    Some(_) => Stash::default(),
                    None => Stash::new(&bytes[..len], valid),
                };
            } else if data.is_empty() {
                return Ok(&[]);
            } else {
                let valid = advance(&mut self.validator, data);
                self.buffered_valid = valid;
                if self.validator.error().is_none() {
                    self.buffered_pending = data.len() - valid;
                }
            }
        }
    }

    fn consume(&mut self, amt: usize) {
        if !self.stash.ready().is_empty() {
            self.stash.consume(amt);
        } else {
            let amt = amt.min(self.buffered_valid);
            self.buffered_valid -= amt;
            self.inner.consume(amt);
        }
    }
}

/// A writer that validates everything written through it.
///
/// `write` passes the valid part of what it is given to the inner writer; data that
/// starts with an invalid sequence is refused with an error of kind
/// [`io::ErrorKind::InvalidData`] carrying the [`Utf8Error`](crate::Utf8Error) (so
/// `write_all` writes the valid prefix and then fails with that error). A refused write
/// takes nothing, and the writer stays usable: write something else instead (say U+FFFD)
/// and go on.
/// [`finish`](Utf8Writer::finish) ends the stream and reports a character left incomplete
/// at its end.
///
/// The inner writer only ever receives complete, validated characters. A character whose
/// first bytes end a `write` is taken (counted as written) but held back, at most 3
/// bytes, until the next `write` completes it; if the inner writer takes only part of a
/// character, the writer takes the rest of that character too and writes it out before
/// anything else. So call [`flush`](Write::flush) or [`finish`](Utf8Writer::finish) at the
/// end, as with any buffered writer: the held bytes are written then, or the error is
/// reported.
///
/// Errors of the inner writer, `Interrupted` included, are returned unchanged; a `write`
/// that fails takes nothing.
///
/// ```
/// use std::io::Write;
/// use utf8check::{io::Utf8Writer, ErrorKind, Utf8Error};
///
/// let mut writer = Utf8Writer::new(Vec::new());
/// writer.write_all("Grüße, ".as_bytes())?;
/// writer.write_all(b"\xE4\xB8")?; // the first two bytes of '世'
/// writer.write_all(b"\x96\xE7\x95\x8C")?; // its last byte, and '界'
/// assert_eq!(writer.finish()?, "Grüße, 世界".as_bytes());
///
/// // Invalid data: the valid prefix is written, then the error.
/// let mut writer = Utf8Writer::new(Vec::new());
/// let err = writer.write_all(b"abc\xC0\xAFdef").unwrap_err();
/// assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
/// let utf8 = err.get_ref().unwrap().downcast_ref::<Utf8Error>().unwrap();
/// assert_eq!((utf8.valid_up_to(), utf8.kind()), (3, ErrorKind::InvalidByte));
/// assert_eq!(writer.get_ref(), b"abc");
///
/// // A stream that ends inside a character.
/// let mut writer = Utf8Writer::new(Vec::new());
/// writer.write_all(b"abc\xE2\x82")?;
/// let err = writer.finish().unwrap_err();
/// assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct Utf8Writer<W> {
    inner: W,
    validator: Validator,
    /// Bytes taken from the caller and not written yet: validated bytes owed to the inner
    /// writer, then the start of a character that is not complete yet.
    stash: Stash,
    /// The most bytes one `write` validates and offers the inner writer. Unlimited until
    /// the inner writer takes less than it is offered; then twice what it took (at least
    /// [`MIN_OFFER`]), doubling again while it takes everything. Bytes it does not take
    /// are validated again by the next `write`; this keeps that repeated work within a
    /// small factor of the bytes written.
    offer_limit: usize,
}

/// The least [`Utf8Writer::offer_limit`].
const MIN_OFFER: usize = 16 * 1024;

impl<W> Utf8Writer<W> {
    /// Wraps `inner`.
    ///
    /// ```
    /// let writer = utf8check::io::Utf8Writer::new(std::io::sink());
    /// ```
    pub fn new(inner: W) -> Utf8Writer<W> {
        Utf8Writer {
            inner,
            validator: Validator::new(),
            stash: Stash::default(),
            offer_limit: usize::MAX,
        }
    }

    /// The inner writer.
    ///
    /// ```
    /// use std::io::Write;
    ///
    /// let mut writer = utf8check::io::Utf8Writer::new(Vec::new());
    /// writer.write_all(b"abc")?;
    /// assert_eq!(writer.get_ref(), b"abc");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// The inner writer, mutably. Writing to it directly bypasses the validation.
    ///
    /// ```
    /// let mut writer = utf8check::io::Utf8Writer::new(Vec::<u8>::new());
    /// writer.get_mut().reserve(100);
    /// ```
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }

    /// Unwraps the inner writer without writing anything more or checking the end of the
    /// stream: bytes taken but not written yet (at most 3, see the type's documentation)
    /// are lost. [`finish`](Utf8Writer::finish) writes them and checks the end.
    ///
    /// ```
    /// use std::io::Write;
    ///
    /// let mut writer = utf8check::io::Utf8Writer::new(Vec::new());
    /// writer.write_all(b"abc\xC3")?; // 'C3' is held back, waiting for its second byte
    /// assert_eq!(writer.into_inner(), b"abc");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn into_inner(self) -> W {
        self.inner
    }
}

impl<W: Write> Utf8Writer<W> {
    /// Ends the stream: writes the bytes still held back and checks that the stream does
    /// not end inside a character; returns the inner writer (which it does not flush).
    ///
    /// ```
    /// use std::io::Write;
    ///
    /// let mut writer = utf8check::io::Utf8Writer::new(Vec::new());
    /// writer.write_all("½".as_bytes())?;
    /// assert_eq!(writer.finish()?, "½".as_bytes());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    ///
    /// # Errors
    /// An error of the inner writer; or, if the stream ends inside a character, an error of
    /// kind [`io::ErrorKind::InvalidData`] carrying a [`Utf8Error`](crate::Utf8Error) of kind
    /// [`Truncated`](crate::ErrorKind::Truncated).
    pub fn finish(mut self) -> io::Result<W> {
        self.write_ready()?;
        self.validator.end()?;
        Ok(self.inner)
    }

    /// Writes the validated bytes of the stash.
    fn write_ready(&mut self) -> io::Result<()> {
        while !self.stash.ready().is_empty() {
            match self.inner.write(self.stash.ready())? {
                0 => {
                    return Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "failed to write the rest of a character",
                    ))
                }
                n => self.stash.consume(n),
            }
        }
        Ok(())
    }

    /// Completes the held character with the first bytes of `buf`.
    fn complete_held(&mut self, buf: &[u8]) -> io::Result<usize> {
        let saved = self.validator.clone();
        let mut bytes = self.stash.bytes;
        let mut len = self.stash.len;
        // The character needs at most 3 more bytes: the loop ends within 3 rounds, or when
        // `buf` runs out.
        for (i, &byte) in buf.iter().enumerate() {
            let before = self.validator.valid_up_to();
            if let Err(err) = self.validator.update(&[byte]) {
                self.validator = saved;
                return Err(err.into());
            }
            bytes[len] = byte;
            len += 1;
            if self.validator.valid_up_to() > before {
                self.stash = Stash::new(&bytes[..len], len);
                // Write the character now if the inner writer takes it; else the next call
                // writes it (or reports the error) before anything else.
                let _ = self.write_ready();
                return Ok(i + 1);
            }
        }
        self.stash = Stash::new(&bytes[..len], 0);
        Ok(buf.len())
    }

    /// Writes the valid prefix of `buf`, which starts at a character boundary.
    fn write_valid_prefix(&mut self, buf: &[u8]) -> io::Result<usize> {
        let before = self.validator.valid_up_to();
        let offered = &buf[..buf.len().min(self.offer_limit)];
        let result = self.validator.update(offered);
        // The length of the valid prefix: after an error, `valid_up_to` is the error's.
        let valid = self.validator.valid_up_to() - before;
        if valid == 0 {
            return match result {
                Err(err) => {
                    self.validator.rewind(before);
                    Err(err.into())
                }
                // All of `buf` (at most 3 bytes) is the start of a character.
                Ok(()) => {
                    self.stash = Stash::new(offered, 0);
                    Ok(offered.len())
                }
            };
        }
        let taken = match self.inner.write(&buf[..valid]) {
            Ok(n) => n.min(valid),
            Err(err) => {
                self.validator.rewind(before);
                return Err(err);
            }
        };
        if taken == valid {
            if offered.len() < buf.len() {
                self.offer_limit = self.offer_limit.saturating_mul(2);
            } else if result.is_ok() {
                // Also take the start of a character at the end of `buf`: the validator
                // holds it as its pending bytes.
                self.stash = Stash::new(&buf[valid..], 0);
                return Ok(buf.len());
            }
            // Refuse what follows the valid prefix (an error, or a character cut by
            // `offer_limit`) in this call.
            self.validator.rewind(before + valid);
            return Ok(valid);
        }
        // The inner writer took part: take it, and the rest of its last character.
        self.offer_limit = taken.saturating_mul(2).max(MIN_OFFER);
        let rest = buf[taken..valid]
            .iter()
            .take_while(|&&byte| scalar::is_continuation(byte))
            .count();
        let end = taken + rest;
        self.validator.rewind(before + end);
        self.stash = Stash::new(&buf[taken..end], rest);
        // As in `complete_held`: now if possible, else at the next call.
        let _ = self.write_ready();
        Ok(end)
    }
}

impl<W: Write> Write for Utf8Writer<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_ready()?;
        if buf.is_empty() {
            Ok(0)
        } else if self.stash.held().is_empty() {
            self.write_valid_prefix(buf)
        } else {
            self.complete_held(buf)
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.write_ready()?;
        self.inner.flush()
    }
}
