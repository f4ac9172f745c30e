//! The streaming API against `core::str::from_utf8` on the whole stream: `Validator`
//! (dispatched, and with every kernel this CPU can run), `io::Utf8Reader` (through
//! `Read` and through `BufRead`) and `io::Utf8Writer`, with the stream cut where the input
//! says.
//!
//! Input: a [`Header`] with up to 8 control bytes, the chunk lengths (used in turn, over
//! and over, until the text runs out; 0 is an empty chunk, and for the reader an
//! `Interrupted` error), then the text. No control byte, or only zeros: the whole text is
//! one chunk.
//!
//! Besides the final answer, it checks the promises of the streaming API: an error is
//! reported by the first call that has seen the byte making it certain, and by none
//! before; it sticks; `valid_up_to()` after each chunk is std's for the bytes fed so far;
//! the adapters pass on exactly the valid prefix.

#![no_main]

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read, Write};

use libfuzzer_sys::fuzz_target;
use utf8check::io::{Utf8Reader, Utf8Writer};
use utf8check::{Kernel, Utf8Error, Validator};
use utf8check_fuzz::{check_error, expected, Expected, Header};

fuzz_target!(|data: &[u8]| {
    let Header { control, text } = Header::parse(data, 8);
    let chunks = chunks(text, control);
    let want = expected(text);
    let certain_at = certain_at(text);
    check_validator(
        "Validator",
        Validator::new(),
        &chunks,
        text,
        &want,
        certain_at,
    );
    for kernel in Kernel::available() {
        let validator = Validator::with_kernel(kernel);
        check_validator(kernel.name(), validator, &chunks, text, &want, certain_at);
    }
    check_reader(&chunks, text, &want);
    let capacity = control.first().map_or(8, |&len| usize::from(len).max(1));
    check_buf_reader(&chunks, capacity, text, &want);
    check_writer(&chunks, text, &want, certain_at);
});

/// `text` cut into chunks of the `lengths`, in turn.
fn chunks<'a>(text: &'a [u8], lengths: &[u8]) -> Vec<&'a [u8]> {
    if lengths.iter().all(|&len| len == 0) {
        let mut chunks = vec![&text[..0]; lengths.len()];
        chunks.push(text);
        return chunks;
    }
    let mut chunks = Vec::new();
    let mut rest = text;
    for &len in lengths.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (chunk, tail) = rest.split_at(usize::from(len).min(rest.len()));
        chunks.push(chunk);
        rest = tail;
    }
    chunks
}

/// The length of the shortest prefix of `text` that is certainly not the start of
/// UTF-8 (std reports an error with a length for it), if there is one.
fn certain_at(text: &[u8]) -> Option<usize> {
    let valid_up_to = core::str::from_utf8(text).err()?.valid_up_to();
    (valid_up_to + 1..=text.len())
        .find(|&end| core::str::from_utf8(&text[..end]).is_err_and(|err| err.error_len().is_some()))
}

/// The length of the valid prefix of `text`: all of it, or std's `valid_up_to`.
fn valid_len(text: &[u8], want: &Expected) -> usize {
    match want {
        Ok(()) => text.len(),
        Err((valid_up_to, _, _)) => *valid_up_to,
    }
}

/// std's `valid_up_to` for `text[..fed]`, given `valid`, std's answer for the whole of
/// `text` (its length if it is UTF-8). Beyond `valid`, it is `valid`; before it, the
/// start of the character that `fed` is inside of (computed, not asked of std for every
/// prefix: that would make 1-byte chunks quadratic).
fn confirmed(text: &[u8], valid: usize, fed: usize) -> usize {
    if fed >= valid {
        return valid;
    }
    (fed.saturating_sub(3)..=fed)
        .rev()
        .find(|&i| text[i] & 0xC0 != 0x80)
        .expect("a character starts in any 4 bytes of UTF-8")
}

/// Checks that the call that fed `text[..fed]`, whose chunk started at `start`, reports
/// an error exactly when it is the first call to see the byte that makes it certain.
#[track_caller]
fn check_timing(what: &str, erred: bool, start: usize, fed: usize, certain_at: Option<usize>) {
    let certain = certain_at.is_some_and(|at| at <= fed);
    let already = certain_at.is_some_and(|at| at <= start);
    assert!(
        !already,
        "{what}: fed past a certain error without reporting it"
    );
    assert_eq!(
        erred, certain,
        "{what}: error reported too early or too late, fed {fed}"
    );
}

fn check_validator(
    what: &str,
    mut validator: Validator,
    chunks: &[&[u8]],
    text: &[u8],
    want: &Expected,
    certain_at: Option<usize>,
) {
    let valid = valid_len(text, want);
    let mut fed = 0;
    let mut first: Option<Utf8Error> = None;
    for chunk in chunks {
        let start = fed;
        fed += chunk.len();
        let result = validator.update(chunk);
        if let Some(err) = first {
            assert_eq!(result, Err(err), "{what}: the first error must stick");
            continue;
        }
        check_timing(what, result.is_err(), start, fed, certain_at);
        match result {
            Ok(()) => {
                let confirmed = confirmed(text, valid, fed);
                assert_eq!(
                    validator.valid_up_to(),
                    confirmed,
                    "{what}: after {fed} bytes"
                );
            }
            Err(err) => {
                check_error(what, text, Err(err), want);
                assert_eq!(validator.valid_up_to(), err.valid_up_to(), "{what}");
                first = Some(err);
            }
        }
    }
    let finish = validator.finish();
    match first {
        Some(err) => assert_eq!(finish, Err(err), "{what}: finish must repeat the error"),
        None => check_error(&format!("{what}::finish"), text, finish, want),
    }
}

/// The `Utf8Error` inside an `InvalidData` error of the adapters.
#[track_caller]
fn utf8_error(err: &io::Error) -> Utf8Error {
    assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{err}");
    *err.get_ref()
        .and_then(|inner| inner.downcast_ref::<Utf8Error>())
        .expect("an InvalidData error carries the Utf8Error")
}

/// Checks what an adapter passed on (`out`) and how it ended (`result`).
#[track_caller]
fn check_adapter(what: &str, text: &[u8], out: &[u8], result: io::Result<()>, want: &Expected) {
    let result = result.map_err(|err| utf8_error(&err));
    check_error(what, text, result, want);
    let valid = valid_len(text, want);
    assert!(out == &text[..valid], "{what}: passed on {out:02X?}");
}

/// A reader that returns the chunks, one per call at most, and `Interrupted` for an empty
/// chunk.
struct ChunkReader<'a>(VecDeque<&'a [u8]>);

impl Read for ChunkReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Some(chunk) = self.0.pop_front() else {
            return Ok(0);
        };
        if chunk.is_empty() {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let n = chunk.len().min(buf.len());
        buf[..n].copy_from_slice(&chunk[..n]);
        if n < chunk.len() {
            self.0.push_front(&chunk[n..]);
        }
        Ok(n)
    }
}

fn chunk_reader<'a>(chunks: &[&'a [u8]]) -> ChunkReader<'a> {
    ChunkReader(chunks.iter().copied().collect())
}

fn check_reader(chunks: &[&[u8]], text: &[u8], want: &Expected) {
    let mut reader = Utf8Reader::new(chunk_reader(chunks));
    let mut out = Vec::new();
    let result = reader.read_to_end(&mut out).map(|_| ());
    check_adapter("Utf8Reader::read_to_end", text, &out, result, want);
}

fn check_buf_reader(chunks: &[&[u8]], capacity: usize, text: &[u8], want: &Expected) {
    let inner = BufReader::with_capacity(capacity, chunk_reader(chunks));
    let mut reader = Utf8Reader::new(inner);
    let mut out = Vec::new();
    let result = loop {
        match reader.fill_buf() {
            Ok([]) => break Ok(()),
            Ok(buf) => {
                out.extend_from_slice(buf);
                let n = buf.len();
                reader.consume(n);
            }
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => break Err(err),
        }
    };
    check_adapter("Utf8Reader::fill_buf", text, &out, result, want);
}

fn check_writer(chunks: &[&[u8]], text: &[u8], want: &Expected, certain_at: Option<usize>) {
    let what = "Utf8Writer";
    let mut writer = Utf8Writer::new(Vec::new());
    let mut fed = 0;
    for chunk in chunks {
        let start = fed;
        fed += chunk.len();
        let result = writer.write_all(chunk);
        check_timing(what, result.is_err(), start, fed, certain_at);
        if let Err(err) = result {
            let out = writer.get_ref().clone();
            return check_adapter(what, text, &out, Err(err), want);
        }
    }
    match writer.finish() {
        Ok(out) => check_adapter(what, text, &out, Ok(()), want),
        Err(err) => check_error("Utf8Writer::finish", text, Err(utf8_error(&err)), want),
    }
}
