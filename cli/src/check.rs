//! Validating one input and listing its invalid sequences with their lines and columns.
//!
//! # Windows
//! Both kinds of input are validated a *window* at a time, and every window starts at a
//! point where validation can start afresh: the start of the input, the end of the
//! complete characters of the previous window, or the end of an invalid sequence.
//!
//! * Bytes in memory (a mapped or read file, [`check_slice`]) are cut into windows only
//!   so that the progress bar moves and so that `--all` stays linear. A clean window is
//!   [`WINDOW`] bytes, validated with `utf8check::par`; after an invalid sequence the
//!   next window is [`WINDOW_AFTER_ERROR`] bytes, validated on one thread, and it doubles
//!   while windows stay clean. Binary files with an error every few bytes then cost one
//!   short single-threaded call per error instead of a pool wake-up each.
//! * A stream ([`check_stream`]) is a window per `read` call, in a [`READ_LEN`] buffer,
//!   plus the (at most 3) bytes of a character the previous read left unfinished, which
//!   are moved to the front of the buffer. The window therefore always holds every byte
//!   from the last confirmed character boundary on, so an invalid sequence that straddles
//!   two reads is still in memory to be printed.
//!
//! A [`Check`] says how much of a window is valid: the [`Engine`] revalidates the whole
//! window (a kernel call is stateless), the [`Incremental`] checker feeds only the new
//! bytes to a [`utf8check::Validator`], which remembers an unfinished character itself.
//!
//! # Every error
//! Once a check finds an invalid sequence in a window, the rest of the window is walked
//! with the library's chunk iterator ([`utf8check::utf8_chunks`], in [`record_all`]), the
//! same walk that `from_utf8_lossy` and `--repair` do: it yields each invalid sequence as
//! lossy decoding replaces it, and finds the valid text between them with the fastest
//! kernel (a scalar decoder where errors are dense). An unfinished sequence at the end of
//! a window that more input follows is left for the next window. (With `--kernel`, the
//! named kernel finds the first invalid sequence of each window and checks the clean
//! windows; the walk after it uses the library's choice.)
//!
//! # Lines and columns
//! [`Collector`] turns offsets into 1-based lines and columns. Lines end at `\n` (so a
//! CRLF file counts lines like an LF file), counted with `memchr`. The column counts
//! characters from the start of the line: in valid text that is the number of bytes
//! that are not continuation bytes, and each earlier invalid sequence on the same line
//! counts as one character, as lossy decoding shows it (one U+FFFD). An invalid
//! sequence never contains `\n`, since all its bytes are at least 0x80.
//!
//! Bytes in memory are only counted when an error is found (a valid file costs no
//! counting). A stream's bytes are counted as each window is confirmed, since they are
//! gone afterwards.

use std::io::{self, Read};
use std::mem;

use utf8check::{ErrorKind, Kernel, Validator};

/// The length of a window of bytes in memory with no error just before it.
pub const WINDOW: usize = 64 << 20;

/// The length of the first window after an invalid sequence.
pub const WINDOW_AFTER_ERROR: usize = 64 << 10;

/// The size of the reads from a stream.
pub const READ_LEN: usize = 1 << 20;

/// How bytes are validated.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The fastest kernel this CPU supports; windows of bytes in memory are validated in
    /// parallel on the rayon pool (`utf8check::par`), streams with a `Validator`.
    Fastest,
    /// One kernel on the calling thread (`--kernel`), for every input.
    Kernel(Kernel),
}

impl Engine {
    /// The kernel that does the work.
    pub fn kernel(self) -> Kernel {
        match self {
            Engine::Fastest => Kernel::detected(),
            Engine::Kernel(kernel) => kernel,
        }
    }

    /// The number of threads that validate a large file.
    pub fn threads(self) -> usize {
        match self {
            Engine::Fastest => rayon::current_num_threads(),
            Engine::Kernel(_) => 1,
        }
    }

    /// The checker for a stream.
    fn stream_checker(self) -> Box<dyn Check> {
        match self {
            Engine::Fastest => Box::new(Incremental::default()),
            Engine::Kernel(_) => Box::new(self),
        }
    }
}

/// What a [`Check`] found in a window.
#[derive(Debug)]
enum Verdict {
    /// The first `n` bytes are complete, valid characters; the rest (at most 3 bytes, and
    /// only when more input follows) is the start of a character that needs more bytes.
    Valid(usize),
    /// An invalid sequence starts `at` bytes into the window.
    Invalid { at: usize },
}

/// Validates an input window by window (see the module documentation).
trait Check {
    /// Checks `window`, whose last `fresh` bytes were not part of the previous window
    /// (the others are the unfinished character the previous verdict left over, or, right
    /// after [`Check::restart`], nothing). `last`: no input follows the window.
    fn check(&mut self, window: &[u8], fresh: usize, last: bool) -> Verdict;

    /// Forgets everything: the next window starts right after an invalid sequence.
    fn restart(&mut self);
}

impl Check for Engine {
    fn check(&mut self, window: &[u8], _fresh: usize, last: bool) -> Verdict {
        let result = match *self {
            Engine::Fastest => utf8check::par::from_utf8(window),
            Engine::Kernel(kernel) => kernel.from_utf8(window),
        };
        match result {
            Ok(_) => Verdict::Valid(window.len()),
            Err(error) if error.error_len().is_none() && !last => {
                Verdict::Valid(error.valid_up_to())
            }
            Err(error) => Verdict::Invalid {
                at: error.valid_up_to(),
            },
        }
    }

    fn restart(&mut self) {}
}

/// Streams through a [`Validator`], which sees each byte once.
#[derive(Default)]
struct Incremental {
    validator: Validator,
    /// `validator.valid_up_to()` at the last verdict: where the current window starts in
    /// the validator's stream.
    confirmed: usize,
}

impl Check for Incremental {
    fn check(&mut self, window: &[u8], fresh: usize, last: bool) -> Verdict {
        let new = &window[window.len() - fresh..];
        let mut result = self.validator.update(new);
        if result.is_ok() && last {
            result = mem::take(&mut self.validator).finish();
            if result.is_ok() {
                return Verdict::Valid(window.len());
            }
        }
        match result {
            Ok(()) => {
                let valid_up_to = self.validator.valid_up_to();
                let n = valid_up_to - self.confirmed;
                self.confirmed = valid_up_to;
                Verdict::Valid(n)
            }
            Err(error) => Verdict::Invalid {
                at: error.valid_up_to() - self.confirmed,
            },
        }
    }

    fn restart(&mut self) {
        *self = Incremental::default();
    }
}

/// An invalid sequence and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid {
    /// Its first byte's offset in the input, from 0.
    pub offset: u64,
    /// Its line, from 1.
    pub line: u64,
    /// Its column in characters, from 1.
    pub column: u64,
    /// Why it is invalid.
    pub kind: ErrorKind,
    /// Its bytes: `error_len` of them, or the unfinished sequence at the end of the input.
    pub bytes: Vec<u8>,
}

/// The result of checking one input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The length of the input.
    pub len: u64,
    /// Its invalid sequences, in order, at most the limit given to the check.
    pub errors: Vec<Invalid>,
    /// Whether the input has more invalid sequences than `errors` lists.
    pub truncated: bool,
    /// With `--repair`: how many invalid sequences were replaced or dropped.
    pub repaired: u64,
}

impl Outcome {
    /// The outcome of repairing an input of `len` bytes.
    pub fn repaired(len: u64, repaired: u64) -> Outcome {
        Outcome {
            len,
            repaired,
            ..Outcome::default()
        }
    }

    /// Is the input UTF-8?
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty() && self.repaired == 0
    }
}

/// Collects the invalid sequences of an input, following the line and column of the
/// bytes it is shown.
struct Collector {
    limit: usize,
    errors: Vec<Invalid>,
    truncated: bool,
    /// The offset of the next byte to be shown, and its line and column.
    pos: u64,
    line: u64,
    column: u64,
}

impl Collector {
    /// Collects at most `limit` (at least 1) invalid sequences.
    fn new(limit: usize) -> Collector {
        Collector {
            limit: limit.max(1),
            errors: Vec::new(),
            truncated: false,
            pos: 0,
            line: 1,
            column: 1,
        }
    }

    /// Are no more positions needed?
    fn is_full(&self) -> bool {
        self.errors.len() >= self.limit
    }

    /// Moves past `valid`, the valid UTF-8 from the current position on.
    fn skip(&mut self, valid: &[u8]) {
        if self.is_full() {
            return;
        }
        self.pos += valid.len() as u64;
        match memchr::memrchr(b'\n', valid) {
            None => self.column += count_chars(valid),
            Some(last) => {
                self.line += memchr::memchr_iter(b'\n', valid).count() as u64;
                self.column = 1 + count_chars(&valid[last + 1..]);
            }
        }
    }

    /// Records the invalid sequence `bad` that follows `valid` (the valid bytes from the
    /// current position on). Returns whether to look for more.
    fn record(&mut self, valid: &[u8], kind: ErrorKind, bad: &[u8]) -> bool {
        if self.is_full() {
            self.truncated = true;
            return false;
        }
        self.skip(valid);
        self.errors.push(Invalid {
            offset: self.pos,
            line: self.line,
            column: self.column,
            kind,
            bytes: bad.to_vec(),
        });
        self.pos += bad.len() as u64;
        // Lossy decoding shows the whole sequence as one character.
        self.column += 1;
        true
    }

    fn finish(self, len: u64) -> Outcome {
        Outcome {
            len,
            errors: self.errors,
            truncated: self.truncated,
            repaired: 0,
        }
    }
}

/// The number of characters in valid UTF-8: the bytes that are not continuation bytes.
fn count_chars(valid: &[u8]) -> u64 {
    valid.iter().filter(|&&byte| (byte as i8) >= -64).count() as u64
}

/// Records every invalid sequence of `bytes[from..]` (`from` is the start of one), walking
/// it with the library's chunk iterator; the collector stands at `bytes[shown]`, at or
/// before `from`, and is moved to where the walk stops: the end of `bytes`, or, when more
/// input follows (not `last`), the start of an unfinished sequence at its end. Returns
/// that point, or `None` once the collector is full.
fn record_all(
    collector: &mut Collector,
    bytes: &[u8],
    mut shown: usize,
    from: usize,
    last: bool,
) -> Option<usize> {
    let mut pos = from;
    for chunk in utf8check::utf8_chunks(&bytes[from..]) {
        let valid_end = pos + chunk.valid().len();
        let kind = match chunk.error_kind() {
            Some(ErrorKind::Truncated) if !last => None,
            kind => kind,
        };
        let Some(kind) = kind else {
            // Valid to the end, or an unfinished sequence left for the next window.
            pos = valid_end;
            break;
        };
        if !collector.record(&bytes[shown..valid_end], kind, chunk.invalid()) {
            return None;
        }
        pos = valid_end + chunk.invalid().len();
        shown = pos;
    }
    collector.skip(&bytes[shown..pos]);
    Some(pos)
}

/// Checks bytes in memory, listing at most `limit` invalid sequences; `progress` is told
/// how many bytes are done after each window.
pub fn check_slice(
    data: &[u8],
    engine: Engine,
    limit: usize,
    progress: &mut dyn FnMut(u64),
) -> Outcome {
    let mut collector = Collector::new(limit);
    let mut engine = engine;
    let mut start = 0;
    let mut window = WINDOW;
    while start < data.len() {
        let end = data.len().min(start.saturating_add(window));
        let last = end == data.len();
        match engine.check(&data[start..end], end - start, last) {
            Verdict::Valid(n) => {
                start += n;
                window = window.saturating_mul(2).min(WINDOW);
            }
            Verdict::Invalid { at } => {
                // The collector is at or before the error: it was shown everything up to
                // where the previous walk stopped, and nothing beyond.
                let shown = (collector.pos as usize).min(start + at);
                match record_all(&mut collector, &data[..end], shown, start + at, last) {
                    Some(stop) => start = stop,
                    None => break,
                }
                window = WINDOW_AFTER_ERROR;
            }
        }
        progress(start as u64);
    }
    collector.finish(data.len() as u64)
}

/// Checks a stream, listing at most `limit` invalid sequences; `progress` is told how
/// many bytes were read after each read. Once nothing more is to be found, the rest of the
/// stream is read and counted if `drain`, else left unread.
///
/// # Errors
/// A read error (other than `Interrupted`, which is retried).
pub fn check_stream(
    reader: &mut dyn Read,
    engine: Engine,
    limit: usize,
    drain: bool,
    progress: &mut dyn FnMut(u64),
) -> io::Result<Outcome> {
    let mut checker = engine.stream_checker();
    let mut collector = Collector::new(limit);
    let mut buf = vec![0u8; READ_LEN];
    // The window is `buf[start..end]`; `buf[0]` is at offset `base` of the stream.
    let (mut start, mut end, mut base) = (0, 0, 0u64);
    loop {
        // Only an unfinished character is left: move it to the front, then read.
        buf.copy_within(start..end, 0);
        base += start as u64;
        end -= start;
        start = 0;
        let fresh = read_retrying(reader, &mut buf[end..])?;
        end += fresh;
        let last = fresh == 0;
        progress(base + end as u64);
        // Check the window, again after each invalid sequence when looking for more.
        let mut fresh = fresh;
        loop {
            match checker.check(&buf[start..end], fresh, last) {
                Verdict::Valid(n) => {
                    collector.skip(&buf[start..start + n]);
                    start += n;
                    break;
                }
                Verdict::Invalid { at } => {
                    let Some(stop) =
                        record_all(&mut collector, &buf[..end], start, start + at, last)
                    else {
                        let rest = if drain {
                            io::copy(reader, &mut io::sink())?
                        } else {
                            0
                        };
                        return Ok(collector.finish(base + end as u64 + rest));
                    };
                    // An unfinished sequence at the end is checked again with what follows.
                    start = stop;
                    fresh = end - start;
                    checker.restart();
                }
            }
        }
        if last {
            return Ok(collector.finish(base + end as u64));
        }
    }
}

/// `reader.read(buf)`, retried when interrupted by a signal.
fn read_retrying(reader: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match reader.read(buf) {
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            result => return result,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(bytes: &[u8], engine: Engine, limit: usize) -> Outcome {
        check_stream(&mut &bytes[..], engine, limit, true, &mut |_| {}).unwrap()
    }

    #[test]
    fn collector_counts_lines_and_columns() {
        let text = "ab\r\nçé€😀\n\nxyz";
        let mut collector = Collector::new(10);
        collector.skip(text.as_bytes());
        assert_eq!(
            (collector.line, collector.column, collector.pos),
            (4, 4, 20)
        );
        assert!(collector.record(b"q", ErrorKind::InvalidByte, b"\xFF"));
        assert!(collector.record(b"", ErrorKind::TooShort, b"\xE2\x82"));
        collector.skip("é\n".as_bytes());
        assert_eq!(collector.errors[0].column, 5);
        assert_eq!(collector.errors[1].column, 6);
        assert_eq!(
            (collector.line, collector.column, collector.pos),
            (5, 1, 27)
        );
        assert_eq!(
            (collector.errors[0].offset, collector.errors[1].offset),
            (21, 22)
        );
    }

    #[test]
    fn slice_and_stream_agree_with_lossy_decoding() {
        let mut data = "ünï\ncödé".repeat(30_000).into_bytes();
        let len = data.len();
        for &(at, byte) in &[(0, 0xFF), (65_535, 0xE2), (70_001, 0x80), (len - 1, 0xF0)] {
            data[at] = byte;
        }
        // Where lossy decoding puts its replacement characters, in bytes of the input.
        let mut expected = Vec::new();
        let mut pos = 0;
        for chunk in data.utf8_chunks() {
            pos += chunk.valid().len();
            if !chunk.invalid().is_empty() {
                expected.push(pos as u64);
                pos += chunk.invalid().len();
            }
        }
        assert!(expected.len() >= 4);
        for engine in Kernel::available()
            .map(Engine::Kernel)
            .chain([Engine::Fastest])
        {
            let slice = check_slice(&data, engine, usize::MAX, &mut |_| {});
            assert_eq!(slice, stream(&data, engine, usize::MAX), "{engine:?}");
            assert!(!slice.truncated);
            let offsets: Vec<u64> = slice.errors.iter().map(|e| e.offset).collect();
            assert_eq!(offsets, expected, "{engine:?}");
            let limited = check_slice(&data, engine, 2, &mut |_| {});
            assert_eq!((limited.errors.len(), limited.truncated), (2, true));
            assert_eq!(limited, stream(&data, engine, 2));
        }
    }
}
