//! `io::Utf8Reader` and `io::Utf8Writer` against `core::str::from_utf8` on the whole stream,
//! over inner readers and writers that take or give a few bytes at a time, fail, and get
//! interrupted.

mod common;

use std::io::{self, BufRead, BufReader, Cursor, Read, Write};

use common::{answer_of, expected, multilingual_text, Answer};
use proptest::prelude::*;
use utf8check::io::{Utf8Reader, Utf8Writer};
use utf8check::Utf8Error;

/// The `Utf8Error` inside an `io::Error`, which must be of kind `InvalidData`.
#[track_caller]
fn utf8_error(err: &io::Error) -> Utf8Error {
    assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{err}");
    *err.get_ref()
        .and_then(|inner| inner.downcast_ref::<Utf8Error>())
        .expect("an InvalidData error carries the Utf8Error")
}

/// The bytes an adapter may pass on: the longest valid prefix of `input`.
fn valid_prefix<'a>(input: &'a [u8], expected: &Answer) -> &'a [u8] {
    match expected {
        Ok(()) => input,
        Err((at, _, _)) => &input[..*at],
    }
}

/// What goes wrong, and when, in a scripted reader or writer.
#[derive(Clone, Debug)]
struct Script {
    /// The most bytes each call moves, in turn (cycled; never 0).
    sizes: Vec<usize>,
    /// Every `interrupt`-th call fails with `Interrupted` (0: never).
    interrupt: usize,
    /// Every `fail`-th call fails with another error that may be retried (0: never).
    fail: usize,
}

impl Script {
    /// The first call of a run of 1-byte calls that never fail.
    fn one_byte() -> Script {
        Script {
            sizes: vec![1],
            interrupt: 0,
            fail: 0,
        }
    }

    /// The outcome of call number `call` (from 1): an error, or how many bytes it moves.
    fn next(&self, call: usize) -> io::Result<usize> {
        if self.interrupt > 0 && call % self.interrupt == 0 {
            return Err(io::ErrorKind::Interrupted.into());
        }
        if self.fail > 0 && call % self.fail == 0 {
            return Err(io::Error::new(io::ErrorKind::Other, "scripted failure"));
        }
        Ok(self.sizes[call % self.sizes.len()])
    }
}

/// A reader of `data` that follows a [`Script`].
struct ScriptedReader<'a> {
    data: &'a [u8],
    script: Script,
    calls: usize,
}

impl<'a> ScriptedReader<'a> {
    fn new(data: &'a [u8], script: Script) -> Self {
        ScriptedReader {
            data,
            script,
            calls: 0,
        }
    }
}

impl Read for ScriptedReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.calls += 1;
        let n = self
            .script
            .next(self.calls)?
            .min(buf.len())
            .min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// A writer into a `Vec` that follows a [`Script`].
struct ScriptedWriter {
    written: Vec<u8>,
    script: Script,
    calls: usize,
}

impl Write for ScriptedWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.calls += 1;
        let n = self.script.next(self.calls)?.min(buf.len());
        self.written.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Is this error one the test's inner reader or writer made up, to be retried?
fn is_scripted(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::Interrupted | io::ErrorKind::Other
    )
}

/// Reads `reader` to the end with `read` into a buffer of `buf_len` bytes, retrying the
/// scripted errors, and checks the result against `input`: the bytes delivered are always
/// a prefix of its valid prefix; at the end they are all of it, followed by end of stream
/// or the expected error, which then repeats.
#[track_caller]
fn check_read<R: Read>(mut reader: Utf8Reader<R>, input: &[u8], buf_len: usize) {
    let expected = expected(input);
    let valid = valid_prefix(input, &expected);
    let mut delivered = Vec::new();
    let mut buf = vec![0; buf_len];
    let outcome = loop {
        match reader.read(&mut buf) {
            Ok(0) => break Ok(()),
            Ok(n) => {
                if buf_len >= 4 {
                    // Whole characters only.
                    assert!(std::str::from_utf8(&buf[..n]).is_ok(), "{:?}", &buf[..n]);
                }
                delivered.extend_from_slice(&buf[..n]);
                assert!(
                    valid.starts_with(&delivered),
                    "delivered more than the valid prefix"
                );
            }
            Err(err) if is_scripted(&err) => continue,
            Err(err) => break Err(err),
        }
    };
    assert_eq!(delivered, valid, "input {}", common::hex(input, 0));
    let got = outcome.map_err(|err| answer_of(&utf8_error(&err)));
    assert_eq!(got, expected, "input {}", common::hex(input, 0));
    if let Err(want) = got {
        let again = reader.read(&mut buf).unwrap_err();
        assert_eq!(answer_of(&utf8_error(&again)), want, "the error must stick");
    }
}

/// Like [`check_read`], through `fill_buf` and `consume`, consuming at most `consume_max`
/// bytes at a time and, every other time, reading a few bytes with `read` instead.
#[track_caller]
fn check_buf_read<R: BufRead>(mut reader: Utf8Reader<R>, input: &[u8], consume_max: usize) {
    let expected = expected(input);
    let valid = valid_prefix(input, &expected);
    let mut delivered = Vec::new();
    let mut round = 0;
    let outcome = loop {
        round += 1;
        if round % 2 == 0 {
            let mut buf = [0; 3];
            match reader.read(&mut buf) {
                Ok(0) => break Ok(()),
                Ok(n) => delivered.extend_from_slice(&buf[..n]),
                Err(err) if is_scripted(&err) => continue,
                Err(err) => break Err(err),
            }
        } else {
            let data = match reader.fill_buf() {
                Ok([]) => break Ok(()),
                Ok(data) => data,
                Err(err) if is_scripted(&err) => continue,
                Err(err) => break Err(err),
            };
            // Everything shown is validated, not only what is consumed.
            assert!(
                valid[delivered.len()..].starts_with(data),
                "fill_buf showed too much"
            );
            let n = data.len().min(consume_max);
            delivered.extend_from_slice(&data[..n]);
            reader.consume(n);
        }
        assert!(
            valid.starts_with(&delivered),
            "delivered more than the valid prefix"
        );
    };
    assert_eq!(delivered, valid, "input {}", common::hex(input, 0));
    let got = outcome.map_err(|err| answer_of(&utf8_error(&err)));
    assert_eq!(got, expected, "input {}", common::hex(input, 0));
    if let Err(want) = got {
        let again = reader.fill_buf().unwrap_err();
        assert_eq!(answer_of(&utf8_error(&again)), want, "the error must stick");
    }
}

/// Writes `input` through a `Utf8Writer` over a scripted writer, in chunks cut at
/// `cuts`, retrying scripted errors, and checks: the inner writer only ever holds a prefix
/// of the valid prefix; the first `InvalidData` error (from `write` or `finish`) is the
/// expected one; the inner writer then holds exactly the valid prefix.
#[track_caller]
fn check_write(input: &[u8], cuts: &[usize], script: Script) {
    let expected = expected(input);
    let valid = valid_prefix(input, &expected);
    let inner = ScriptedWriter {
        written: Vec::new(),
        script,
        calls: 0,
    };
    let mut writer = Utf8Writer::new(inner);
    let mut start = 0;
    let mut outcome = Ok(());
    'chunks: for end in cuts.iter().copied().chain([input.len()]) {
        let mut chunk = &input[start..end];
        start = end;
        while !chunk.is_empty() {
            match writer.write(chunk) {
                Ok(0) => panic!("the scripted writer never takes 0 bytes"),
                Ok(n) => chunk = &chunk[n..],
                Err(err) if is_scripted(&err) => {}
                Err(err) => {
                    outcome = Err(answer_of(&utf8_error(&err)));
                    break 'chunks;
                }
            }
            let written = &writer.get_ref().written;
            assert!(
                valid.starts_with(written),
                "wrote more than the valid prefix"
            );
        }
    }
    // Everything taken and valid reaches the inner writer (`flush` retried), and only that.
    while let Err(err) = writer.flush() {
        assert!(is_scripted(&err), "{err}");
    }
    assert_eq!(
        writer.get_ref().written,
        valid,
        "input {}",
        common::hex(input, 0)
    );
    if outcome.is_ok() {
        outcome = writer
            .finish()
            .map(drop)
            .map_err(|err| answer_of(&utf8_error(&err)));
    }
    assert_eq!(
        outcome,
        expected,
        "cuts {cuts:?}, input {}",
        common::hex(input, 0)
    );
}

/// Inputs that exercise the adapters: valid text of every script, and versions with an
/// error in the middle, at the end, and an incomplete character at the end.
fn sample_inputs() -> Vec<Vec<u8>> {
    let text = multilingual_text(300, 1).into_bytes();
    let at = (150..).find(|&i| text[i] >= 0xE0).unwrap();
    let mut inputs = vec![Vec::new(), text.clone()];
    let mut broken = text.clone();
    broken[at + 1] = b'!'; // cut short: TooShort
    inputs.push(broken);
    let mut broken = text.clone();
    broken.insert(at, 0xFF); // InvalidByte
    inputs.push(broken);
    inputs.push(text[..=at].to_vec()); // ends inside a character
    inputs.push([&text[..at], b"\xED\xA0\x80".as_slice()].concat()); // a surrogate at the end
    inputs.push(b"\xF0\x9F\x98".to_vec());
    inputs.push(b"\x80".to_vec());
    inputs
}

#[test]
fn reader_over_cursor_and_one_byte_reader() {
    for input in sample_inputs() {
        for buf_len in [1, 2, 3, 4, 5, 7, 64, 4096] {
            check_read(Utf8Reader::new(Cursor::new(&input)), &input, buf_len);
            let one_byte = ScriptedReader::new(&input, Script::one_byte());
            check_read(Utf8Reader::new(one_byte), &input, buf_len);
        }
    }
}

#[test]
fn reader_through_interruptions_and_failures() {
    for input in sample_inputs() {
        for interrupt in [2, 3] {
            for fail in [0, 5] {
                let script = Script {
                    sizes: vec![1, 3, 2, 7, 64],
                    interrupt,
                    fail,
                };
                for buf_len in [1, 3, 4, 100] {
                    let reader = ScriptedReader::new(&input, script.clone());
                    check_read(Utf8Reader::new(reader), &input, buf_len);
                }
                for (capacity, consume_max) in [(1, 1), (2, 5), (3, 2), (5, 100), (64, 7)] {
                    let reader = ScriptedReader::new(&input, script.clone());
                    let buffered = BufReader::with_capacity(capacity, reader);
                    check_buf_read(Utf8Reader::new(buffered), &input, consume_max);
                }
            }
        }
    }
}

#[test]
fn reader_lines_and_read_to_string() {
    let text = "first line\nzweite Zeile: ÄÖÜ\n第三行\n😀\n";
    let reader = Utf8Reader::new(BufReader::with_capacity(3, text.as_bytes()));
    let lines: Vec<String> = reader.lines().map(Result::unwrap).collect();
    assert_eq!(lines, text.lines().collect::<Vec<_>>());

    let mut read = String::new();
    let reader = ScriptedReader::new(text.as_bytes(), Script::one_byte());
    Utf8Reader::new(reader).read_to_string(&mut read).unwrap();
    assert_eq!(read, text);

    let mut read = String::from("kept: ");
    let err = Utf8Reader::new(&b"ab\xE2\x82"[..])
        .read_to_string(&mut read)
        .unwrap_err();
    let utf8 = utf8_error(&err);
    assert_eq!((utf8.valid_up_to(), utf8.error_len()), (2, None));
}

#[test]
fn reader_end_of_stream_may_be_followed_by_more() {
    // A reader that reports the end and later has more (a growing file, a terminal).
    let mut reader = Utf8Reader::new(Cursor::new(b"ab".to_vec()));
    let mut buf = [0; 8];
    assert_eq!(reader.read(&mut buf).unwrap(), 2);
    assert_eq!(reader.read(&mut buf).unwrap(), 0);
    reader.get_mut().get_mut().extend_from_slice("é".as_bytes());
    assert_eq!(reader.read(&mut buf).unwrap(), 2);
    assert_eq!(&buf[..2], "é".as_bytes());
}

#[test]
fn reader_get_ref_get_mut_into_inner() {
    let mut reader = Utf8Reader::new(Cursor::new(b"abc"));
    assert_eq!(reader.get_ref().position(), 0);
    reader.get_mut().set_position(1);
    let mut rest = String::new();
    reader.read_to_string(&mut rest).unwrap();
    assert_eq!(rest, "bc");
    assert_eq!(reader.into_inner().position(), 3);
}

#[test]
fn writer_over_vec_and_one_byte_writer() {
    for input in sample_inputs() {
        let len = input.len();
        let every_byte: Vec<usize> = (1..len).collect();
        let some = [len / 3, len / 3, len / 2 + 1].map(|cut| cut.min(len));
        for cuts in [vec![], every_byte, some.to_vec()] {
            check_write(&input, &cuts, Script::one_byte());
            let unlimited = Script {
                sizes: vec![usize::MAX],
                interrupt: 0,
                fail: 0,
            };
            check_write(&input, &cuts, unlimited);
        }
    }
}

#[test]
fn writer_through_interruptions_and_failures() {
    for input in sample_inputs() {
        let len = input.len();
        let middle = [len / 4, len / 2, len / 2 + 1, len / 2 + 2].map(|cut| cut.min(len));
        for cuts in [vec![], middle.to_vec()] {
            for (interrupt, fail) in [(2, 0), (3, 5), (0, 4)] {
                let script = Script {
                    sizes: vec![1, 3, 2, 7, 64, 1000],
                    interrupt,
                    fail,
                };
                check_write(&input, &cuts, script);
            }
        }
    }
}

#[test]
fn writer_over_a_writer_that_takes_part_of_large_writes() {
    // After the inner writer takes part of a write, the writer validates ahead only a
    // little more than it took: windows that end inside characters, errors beyond them.
    let text = multilingual_text(200_000, 3).into_bytes();
    let at = (150_000..).find(|&i| text[i] >= 0xF0).unwrap();
    let mut broken = text.clone();
    broken[at + 2] = b'!';
    for input in [&text, &broken] {
        for sizes in [vec![5000], vec![3001, 40_000, 1, 70_001]] {
            let script = Script {
                sizes,
                interrupt: 7,
                fail: 0,
            };
            check_write(input, &[], script.clone());
            check_write(input, &[input.len() / 2], script);
        }
    }
}

#[test]
fn writer_refuses_invalid_data_and_stays_usable() {
    let mut writer = Utf8Writer::new(Vec::new());
    writer.write_all(b"ab").unwrap();
    let err = writer.write(b"\xFFcd").unwrap_err();
    assert_eq!(utf8_error(&err).valid_up_to(), 2);
    // Replace the invalid byte and go on: a lossy writer.
    writer.write_all("\u{FFFD}cd".as_bytes()).unwrap();
    assert_eq!(writer.finish().unwrap(), "ab\u{FFFD}cd".as_bytes());

    // An error that the next write completes refuses that write, and keeps what was held.
    let mut writer = Utf8Writer::new(Vec::new());
    writer.write_all(b"x\xE2\x82").unwrap();
    let err = writer.write(b"!").unwrap_err();
    let utf8 = utf8_error(&err);
    assert_eq!((utf8.valid_up_to(), utf8.error_len()), (1, Some(2)));
    writer.write_all(b"\xAC").unwrap();
    assert_eq!(writer.finish().unwrap(), "x€".as_bytes());
}

#[test]
fn writer_get_ref_get_mut_into_inner() {
    let mut writer = Utf8Writer::new(Vec::new());
    writer.write_all("ab€".as_bytes()).unwrap();
    assert_eq!(writer.get_ref(), "ab€".as_bytes());
    writer.get_mut().clear();
    writer.write_all(b"\xC3").unwrap();
    assert_eq!(writer.into_inner(), b"", "the held byte is not written");
}

/// Inputs for the property tests: text, text with a few bytes changed, random bytes.
fn input() -> impl Strategy<Value = Vec<u8>> {
    let text = (0..300usize, any::<u64>())
        .prop_map(|(len, seed)| multilingual_text(len, seed).into_bytes());
    let edited = (text.clone(), any::<prop::sample::Index>(), any::<u8>()).prop_map(
        |(mut bytes, at, byte)| {
            bytes.insert(at.index(bytes.len() + 1), byte);
            bytes
        },
    );
    prop_oneof![text, edited, prop::collection::vec(any::<u8>(), 0..100)]
}

fn script() -> impl Strategy<Value = Script> {
    (
        prop::collection::vec(1..20usize, 1..6),
        prop_oneof![Just(0), 2..6usize],
        prop_oneof![Just(0), 3..8usize],
    )
        .prop_map(|(sizes, interrupt, fail)| Script {
            sizes,
            interrupt,
            fail,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn reader_matches_from_utf8(input in input(), script in script(), buf_len in 1..40usize) {
        let reader = ScriptedReader::new(&input, script.clone());
        check_read(Utf8Reader::new(reader), &input, buf_len);
        let buffered = BufReader::with_capacity(buf_len, ScriptedReader::new(&input, script));
        check_buf_read(Utf8Reader::new(buffered), &input, buf_len / 2 + 1);
    }

    #[test]
    fn writer_matches_from_utf8(
        input in input(),
        mut cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
        script in script(),
    ) {
        let mut cuts: Vec<usize> = cuts.drain(..).map(|i| i.index(input.len() + 1)).collect();
        cuts.sort_unstable();
        check_write(&input, &cuts, script);
    }
}
