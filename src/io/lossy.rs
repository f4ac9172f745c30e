//! [`LossyReader`]: `from_utf8_lossy` of a whole stream, however it arrives.
//!
//! # One buffer, repaired in place
//! The reader reads into its buffer and repairs the bytes where they lie: valid text stays
//! put (so valid input is read, checked by the kernel and handed out, with no copy of its
//! own), and each invalid sequence is overwritten by U+FFFD. A replacement is 3 bytes, more
//! than a 1- or 2-byte sequence it replaces, so the repaired text can catch up with the
//! bytes still to be repaired; the text after it then moves down to make room:
//!
//! * a fill repairs in place until the first replacement that does not fit, hands out what
//!   it repaired, and keeps the rest of the bytes where they are;
//! * the next fill writes its text from the start of the buffer, which leaves as much room
//!   as was handed out before; each replacement uses up at most 2 bytes of that room.
//!
//! Fresh bytes are read [`SLACK`] bytes into the buffer, so a fill that writes from the
//! start always has room for at least one replacement and never stalls.
//!
//! # Large reads: straight into the caller's buffer
//! A reader has to copy what it reads at least once, and for valid text that copy costs
//! about as much as the kernel's check (both run at 20 to 40 GB/s on text in the cache).
//! So a [`Read::read`] into a buffer at least as long as the reader's own, with nothing
//! buffered, reads into the caller's buffer directly (as `BufReader` does) and checks the
//! bytes there: valid text is copied once, by the inner reader, and never again. Only the
//! bytes from the first error on (or a character that the read cut) go to the buffer, to
//! be repaired as above; a held sequence goes in front of the next read. `fill_buf` cannot
//! do that: its text must be in the reader's own buffer.
//!
//! # Sequences cut by a read
//! The walk over the bytes ends, like `utf8_chunks`, with an unfinished sequence when the
//! bytes read so far end inside one. Those bytes (at most 3) are held back and the next read
//! appends to them, so a sequence that two reads cut is decided as a whole: completed, or
//! one invalid sequence and one U+FFFD, as in `from_utf8_lossy` of the whole stream. At the
//! end of the stream they are one U+FFFD.

use std::boxed::Box;
use std::fmt;
use std::io::{self, BufRead, Read};
use std::vec;

use crate::chunks::Walker;
use crate::stream::incomplete_tail_start;

/// The buffer's length unless told otherwise: long enough that the kernel's fixed costs and
/// the reads' disappear in the time spent on the bytes.
const DEFAULT_CAPACITY: usize = 64 << 10;

/// The shortest buffer: room for [`SLACK`], a held sequence and the bytes that follow it.
const MIN_CAPACITY: usize = 16;

/// Free bytes before freshly read data: a U+FFFD for a 1-byte sequence at its start needs 2
/// more bytes than it replaces.
const SLACK: usize = 2;

/// U+FFFD REPLACEMENT CHARACTER in UTF-8.
const REPLACEMENT: [u8; 3] = [0xEF, 0xBF, 0xBD];

/// A reader that repairs invalid UTF-8: its output is
/// [`from_utf8_lossy`](crate::from_utf8_lossy) of everything its inner reader returns,
/// each invalid sequence replaced by U+FFFD, however the inner reader splits the stream.
///
/// * An invalid sequence cut across two reads is one U+FFFD, and a character cut across
///   two reads comes out whole.
/// * A character left unfinished at the end of the stream (the inner reader returned
///   `Ok(0)`) is one U+FFFD.
/// * Errors of the inner reader, `Interrupted` included, are returned unchanged (as
///   [`std::io::BufReader`] does) and lose no bytes: call again to go on.
///
/// It implements [`BufRead`] (for lines, and to use the repaired text without a copy) as
/// well as [`Read`]: it has its own buffer, of 64 KiB unless
/// [`with_capacity`](LossyReader::with_capacity) says otherwise, and holds nothing outside
/// it (at most 3 bytes of a sequence not yet complete, which are in it too). Every
/// [`fill_buf`](BufRead::fill_buf) returns whole characters of valid UTF-8. A
/// [`read`](Read::read) into a buffer at least as long as its own, with nothing buffered,
/// reads into that buffer directly, so that valid text is copied only once.
///
/// ```
/// use std::io::{BufRead, Read};
/// use utf8check::io::LossyReader;
///
/// let mut text = String::new();
/// LossyReader::new(&b"caf\xC3\xA9 \xFF \xE2\x82"[..]).read_to_string(&mut text)?;
/// assert_eq!(text, "café \u{FFFD} \u{FFFD}");
///
/// // Lines of a damaged log.
/// let log: &[u8] = b"ok\nLatin-1: d\xE9j\xE0\n";
/// let lines: Vec<String> = LossyReader::new(log).lines().collect::<Result<_, _>>()?;
/// assert_eq!(lines, ["ok", "Latin-1: d\u{FFFD}j\u{FFFD}"]);
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct LossyReader<R> {
    inner: R,
    buf: Box<[u8]>,
    /// Repaired text not handed out yet: `buf[pos..filled]`.
    pos: usize,
    filled: usize,
    /// Bytes read and not repaired yet: `buf[raw..raw_end]`, after the text
    /// (`filled <= raw`). They start at a character boundary of the stream.
    raw: usize,
    raw_end: usize,
    /// The last fill stopped at a replacement that did not fit: the next writes its text
    /// from the start of the buffer.
    compact: bool,
    walker: Walker,
}

impl<R> LossyReader<R> {
    /// Wraps `inner`, with a buffer of 64 KiB.
    ///
    /// ```
    /// let reader = utf8check::io::LossyReader::new(std::io::empty());
    /// ```
    pub fn new(inner: R) -> LossyReader<R> {
        LossyReader::with_capacity(DEFAULT_CAPACITY, inner)
    }

    /// Wraps `inner`, with a buffer of `capacity` bytes (at least 16): the most it reads
    /// from `inner` at a time, and the most it hands out at a time.
    ///
    /// ```
    /// let reader = utf8check::io::LossyReader::with_capacity(1 << 20, std::io::empty());
    /// ```
    pub fn with_capacity(capacity: usize, inner: R) -> LossyReader<R> {
        LossyReader {
            inner,
            buf: vec![0; capacity.max(MIN_CAPACITY)].into_boxed_slice(),
            pos: 0,
            filled: 0,
            raw: 0,
            raw_end: 0,
            compact: false,
            walker: Walker::default(),
        }
    }

    /// The inner reader.
    ///
    /// ```
    /// let reader = utf8check::io::LossyReader::new(std::io::Cursor::new(b"abc"));
    /// assert_eq!(reader.get_ref().position(), 0);
    /// ```
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The inner reader, mutably. Reading from it directly skips those bytes: they are
    /// not repaired, and a sequence held back from the previous read is then followed by
    /// whatever is read next.
    ///
    /// ```
    /// let mut reader = utf8check::io::LossyReader::new(std::io::Cursor::new(b"abc"));
    /// reader.get_mut().set_position(1);
    /// ```
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// Unwraps the inner reader. What this reader has read from it but not handed out
    /// (repaired text in the buffer, bytes not yet repaired) is lost.
    ///
    /// ```
    /// let reader = utf8check::io::LossyReader::new(std::io::Cursor::new(b"abc"));
    /// assert_eq!(reader.into_inner().position(), 0);
    /// ```
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// The repaired text that is buffered and not yet handed out (what
    /// [`fill_buf`](BufRead::fill_buf) returns without reading).
    ///
    /// ```
    /// use std::io::BufRead;
    ///
    /// let mut reader = utf8check::io::LossyReader::new(&b"abc"[..]);
    /// assert_eq!(reader.buffer(), b"");
    /// reader.fill_buf()?;
    /// assert_eq!(reader.buffer(), b"abc");
    /// reader.consume(1);
    /// assert_eq!(reader.buffer(), b"bc");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn buffer(&self) -> &[u8] {
        &self.buf[self.pos..self.filled]
    }

    /// The length of the buffer.
    ///
    /// ```
    /// assert_eq!(utf8check::io::LossyReader::new(std::io::empty()).capacity(), 64 << 10);
    /// ```
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// Repairs the bytes not yet repaired into text to hand out (see the module
    /// documentation); `at_end`: no byte follows them, so an unfinished sequence at their
    /// end is invalid. Returns whether there is text to hand out.
    fn repair(&mut self, at_end: bool) -> bool {
        debug_assert!(self.pos == self.filled);
        let mut start = if self.compact { 0 } else { self.raw };
        let (mut filled, mut stopped) = self.repair_from(start, at_end);
        if filled == start && stopped {
            // Not even the first replacement fitted in place: from the start of the
            // buffer it does, since the bytes are at least `SLACK` into it.
            start = 0;
            (filled, stopped) = self.repair_from(start, at_end);
        }
        self.pos = start;
        self.filled = filled;
        self.compact = stopped;
        filled > start
    }

    /// Repairs from `buf[raw..]` into text written from `buf[write..]` (`write <= raw`),
    /// until the end of the bytes, the start of an unfinished sequence there (unless
    /// `at_end`), or a replacement that would overwrite bytes not repaired yet. Moves
    /// `raw`; returns the end of the text and whether a replacement did not fit.
    fn repair_from(&mut self, mut write: usize, at_end: bool) -> (usize, bool) {
        let mut read = self.raw;
        // Before the end, the kernel first sees the bytes up to a character that the read
        // may have cut (so that it does not fail on it and leave the scalar locator a
        // whole group to decode); the walk looks at that character last.
        let mut end = self.raw_end;
        if !at_end {
            let tail = read + incomplete_tail_start(&self.buf[read..end]);
            // Only the start of a character that may still be completed waits.
            if tail < end && matches!(self.buf[tail], 0xC2..=0xF4) {
                end = tail;
            }
        }
        let mut stopped = false;
        loop {
            if read == end {
                if end == self.raw_end {
                    break;
                }
                end = self.raw_end;
                continue;
            }
            let split = self.walker.first_error(&self.buf[read..end]);
            let (valid, invalid) = (split.at, split.invalid);
            let unfinished = split.error_len == 0;
            if write != read {
                self.buf.copy_within(read..read + valid, write);
            }
            write += valid;
            read += valid;
            if invalid == 0 {
                continue;
            }
            if unfinished && end < self.raw_end {
                // Cut only by where the kernel's part ended: decide it with what follows.
                end = self.raw_end;
                continue;
            }
            if unfinished && !at_end {
                break;
            }
            if write + REPLACEMENT.len() > read + invalid {
                stopped = true;
                break;
            }
            self.buf[write..write + REPLACEMENT.len()].copy_from_slice(&REPLACEMENT);
            write += REPLACEMENT.len();
            read += invalid;
        }
        self.raw = read;
        (write, stopped)
    }
}

impl<R: Read> LossyReader<R> {
    /// Moves the held sequence (at most 3 bytes: all that is left to repair when
    /// [`repair`](LossyReader::repair) has no text to hand out) to the front of the buffer,
    /// behind the slack, so that the next bytes can be read after it.
    fn hold(&mut self) {
        let held = self.raw_end - self.raw;
        debug_assert!(held <= 3 && !self.compact);
        // The bytes in the buffer change: what the walker knows of them is stale.
        self.walker.forget_block();
        self.buf.copy_within(self.raw..self.raw_end, SLACK);
        (self.pos, self.filled) = (0, 0);
        (self.raw, self.raw_end) = (SLACK, SLACK + held);
    }

    /// The inner reader returned `Ok(0)`: a held sequence is invalid. Returns whether that
    /// left text to hand out (its U+FFFD).
    fn end_of_stream(&mut self) -> bool {
        self.raw_end > self.raw && self.repair(true)
    }

    /// [`Read::read`] into `out`, at least as long as the buffer, when nothing is buffered
    /// but a held sequence: the inner reader reads straight into `out` (after the held
    /// bytes), and valid text stays there. So valid input is copied once, by the inner
    /// reader, as with `BufReader`'s large reads. Bytes from the first error on (or a
    /// character that the read cut) go to the buffer, to be repaired as usual. Returns
    /// `None` when they left nothing to hand out from `out`: the text is then in the buffer.
    fn read_direct(&mut self, out: &mut [u8]) -> io::Result<Option<usize>> {
        self.hold();
        let held = self.raw_end - self.raw;
        // At most what fits behind the slack, so that any rest can be buffered.
        let len = out.len().min(self.buf.len() - SLACK);
        out[..held].copy_from_slice(&self.buf[SLACK..SLACK + held]);
        // An error leaves everything as it is: the held bytes are still in the buffer.
        let n = self.inner.read(&mut out[held..len])?.min(len - held);
        if n == 0 {
            return Ok(if self.end_of_stream() { None } else { Some(0) });
        }
        let bytes = &out[..held + n];
        let valid = match crate::from_utf8(bytes) {
            Ok(_) => bytes.len(),
            Err(err) => err.valid_up_to(),
        };
        let rest = &bytes[valid..];
        self.buf[SLACK..SLACK + rest.len()].copy_from_slice(rest);
        self.raw_end = SLACK + rest.len();
        Ok((valid > 0).then_some(valid))
    }
}

impl<R: Read> BufRead for LossyReader<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.pos == self.filled {
            if self.repair(false) {
                break;
            }
            self.hold();
            // An error leaves everything as it is: the caller may call again.
            let room = self.buf.len() - self.raw_end;
            let n = self.inner.read(&mut self.buf[self.raw_end..])?.min(room);
            self.raw_end += n;
            if n == 0 && !self.end_of_stream() {
                return Ok(&[]);
            }
        }
        Ok(&self.buf[self.pos..self.filled])
    }

    fn consume(&mut self, amt: usize) {
        self.pos = self.filled.min(self.pos.saturating_add(amt));
    }
}

impl<R: Read> Read for LossyReader<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        // Large reads with nothing buffered bypass the buffer, as `BufReader`'s do.
        if self.pos == self.filled && out.len() >= self.buf.len() && !self.repair(false) {
            if let Some(n) = self.read_direct(out)? {
                return Ok(n);
            }
        }
        let text = self.fill_buf()?;
        let n = text.len().min(out.len());
        out[..n].copy_from_slice(&text[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: fmt::Debug> fmt::Debug for LossyReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LossyReader")
            .field("inner", &self.inner)
            .field("buffered", &(self.filled - self.pos))
            .field("unrepaired", &(self.raw_end - self.raw))
            .field("capacity", &self.buf.len())
            .finish()
    }
}
