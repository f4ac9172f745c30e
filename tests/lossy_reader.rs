//! `io::LossyReader` against `String::from_utf8_lossy` of the whole stream, read every way
//! (`read` with small and large buffers, `read_to_end`, `read_to_string`, `fill_buf` and
//! `consume`, `lines`), over inner readers that give one byte at a time, a few bytes, or
//! everything at once, and that fail or get interrupted between reads; with small buffers
//! (which make replacements outgrow the bytes they replace) and the default one.

mod common;

use std::io::{self, BufRead, Read};

use common::{multilingual_text, small_tests, Rng};
use proptest::collection::vec;
use proptest::prelude::*;
use utf8check::io::LossyReader;

/// A reader of `data` that gives `sizes[i]` bytes at its `i`-th call (cycled), and fails
/// with `Interrupted` every `interrupt`-th call and with another error every `fail`-th
/// call (0: never).
struct Scripted<'a> {
    data: &'a [u8],
    sizes: Vec<usize>,
    interrupt: usize,
    fail: usize,
    calls: usize,
}

impl<'a> Scripted<'a> {
    fn new(data: &'a [u8], sizes: &[usize], interrupt: usize, fail: usize) -> Scripted<'a> {
        Scripted {
            data,
            sizes: sizes.to_vec(),
            interrupt,
            fail,
            calls: 0,
        }
    }
}

impl Read for Scripted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.calls += 1;
        if self.interrupt > 0 && self.calls % self.interrupt == 0 {
            return Err(io::ErrorKind::Interrupted.into());
        }
        if self.fail > 0 && self.calls % self.fail == 0 {
            return Err(io::Error::new(io::ErrorKind::Other, "scripted failure"));
        }
        let n = self.sizes[self.calls % self.sizes.len()]
            .min(buf.len())
            .min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn is_scripted(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::Interrupted | io::ErrorKind::Other
    )
}

/// Reads `reader` to its end with `read` into a buffer of `len` bytes, retrying the
/// scripted errors.
fn by_read(reader: &mut impl Read, len: usize) -> Vec<u8> {
    by_reads(reader, &[len])
}

/// Reads `reader` to its end with `read`, into buffers of the lengths `lens` (cycled),
/// retrying the scripted errors.
fn by_reads(reader: &mut impl Read, lens: &[usize]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = vec![0; lens.iter().copied().max().unwrap_or(0)];
    for &len in lens.iter().cycle() {
        match reader.read(&mut buf[..len]) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(err) if is_scripted(&err) => {}
            Err(err) => panic!("{err}"),
        }
    }
    out
}

/// Reads with `read_to_end`, called again after each scripted failure.
fn by_read_to_end(reader: &mut impl Read) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        match reader.read_to_end(&mut out) {
            Ok(_) => return out,
            Err(err) if is_scripted(&err) => {}
            Err(err) => panic!("{err}"),
        }
    }
}

/// Reads with `fill_buf` and `consume`, consuming `step` bytes at most at a time (so
/// that characters are taken in pieces too); each `fill_buf` must be valid UTF-8 when
/// taken from a character boundary.
fn by_fill_buf(reader: &mut impl BufRead, step: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut at_boundary = true;
    loop {
        let data = match reader.fill_buf() {
            Ok(data) => data,
            Err(err) if is_scripted(&err) => continue,
            Err(err) => panic!("{err}"),
        };
        if data.is_empty() {
            return out;
        }
        if at_boundary {
            assert!(std::str::from_utf8(data).is_ok(), "fill_buf: not UTF-8");
        }
        let n = step.min(data.len());
        out.extend_from_slice(&data[..n]);
        at_boundary = n == data.len();
        reader.consume(n);
    }
}

/// Every way of reading, over every kind of inner reader, with a few buffer lengths.
#[track_caller]
fn check(input: &[u8]) {
    let want = String::from_utf8_lossy(input).into_owned().into_bytes();
    let scripts: [(&[usize], usize, usize); 5] = [
        (&[1], 0, 0),
        (&[1, 2, 3, 5, 7], 3, 0),
        (&[3, 100, 1 << 20], 2, 5),
        (&[1 << 20], 0, 0),
        (&[4096, 1], 0, 4),
    ];
    let check_one = |how: &str, capacity: usize, got: Vec<u8>| {
        if got != want {
            panic!(
                "{how}, capacity {capacity}: want {:?}\n got {:?}\n input {}",
                String::from_utf8_lossy(&want),
                String::from_utf8_lossy(&got),
                common::hex(input, 0)
            );
        }
    };
    for (sizes, interrupt, fail) in scripts {
        for capacity in [16, 21, 257, 64 << 10] {
            let new = || {
                LossyReader::with_capacity(capacity, Scripted::new(input, sizes, interrupt, fail))
            };
            check_one("read 1", capacity, by_read(&mut new(), 1));
            check_one("read 13", capacity, by_read(&mut new(), 13));
            check_one("read 64 KiB", capacity, by_read(&mut new(), 64 << 10));
            // Reads as long as the buffer go straight into the caller's buffer, shorter ones
            // through it: every switch between the two, with text or a held sequence left
            // over from the other.
            let lens = [capacity, 1, 2 * capacity, 7, capacity - 1, capacity];
            check_one(
                "read, direct and buffered",
                capacity,
                by_reads(&mut new(), &lens),
            );
            check_one("read_to_end", capacity, by_read_to_end(&mut new()));
            check_one("fill_buf 5", capacity, by_fill_buf(&mut new(), 5));
            check_one("fill_buf", capacity, by_fill_buf(&mut new(), usize::MAX));
        }
    }
    // Through `read_to_string` and `lines`, which need UTF-8 (no scripted failures).
    let mut text = String::new();
    LossyReader::with_capacity(16, Scripted::new(input, &[1, 2], 3, 0))
        .read_to_string(&mut text)
        .unwrap();
    check_one("read_to_string", 16, text.into_bytes());
    let lines: Vec<String> = LossyReader::new(input)
        .lines()
        .map(Result::unwrap)
        .collect();
    let want_lines: Vec<&str> = std::str::from_utf8(&want).unwrap().lines().collect();
    assert_eq!(lines, want_lines);
}

#[test]
fn short_sequences_cut_everywhere() {
    const BYTES: [u8; 16] = [
        0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xF0, 0xF4,
        0xFF,
    ];
    for a in BYTES {
        check(&[a]);
        for b in BYTES {
            check(&[a, b]);
            check(&[b'x', a, b, b'y']);
            for c in BYTES {
                check(&[a, b, c]);
            }
        }
    }
    for seq in ["é", "€", "😀"] {
        let bytes = seq.as_bytes();
        for cut in 1..bytes.len() {
            check(&bytes[..cut]);
            check(&[&bytes[..cut], b"z"].concat());
            check(&[b"ab", &bytes[..cut], &bytes[..cut]].concat());
        }
    }
}

#[test]
fn every_pair_one_byte_at_a_time() {
    for a in 0..=255u8 {
        for b in 0..=255u8 {
            let input = [b'a', a, b, 0xE2, 0x82, 0xAC, b];
            let want = String::from_utf8_lossy(&input).into_owned().into_bytes();
            let mut reader = LossyReader::with_capacity(16, Scripted::new(&input, &[1], 0, 0));
            assert_eq!(by_read(&mut reader, 1), want, "{input:02X?}");
            // Read straight into the caller's buffer, cut after every byte.
            for cut in 1..input.len() {
                let mut reader =
                    LossyReader::with_capacity(16, Scripted::new(&input, &[16, cut], 0, 0));
                assert_eq!(by_read(&mut reader, 16), want, "{input:02X?}, cut {cut}");
            }
        }
    }
}

#[test]
fn damaged_text_at_every_density() {
    // Each input is read 142 ways, about a third of them a byte at a time: with
    // `UTF8CHECK_SMALL_TESTS` (CI's test steps but the release one; unoptimized, this test
    // took over 8 minutes) a tenth of the length, but still replacements that outgrow the
    // largest buffer (64 KiB) in all.
    let len = if small_tests() { 20_000 } else { 200_000 };
    let text = multilingual_text(len, 3).into_bytes();
    let mut rng = Rng::new(17);
    for gap in [1, 2, 3, 10, 64, 1000, len / 4] {
        let mut bytes = text.clone();
        let mut i = rng.below(gap);
        while i < bytes.len() {
            bytes[i] = rng.next_u64() as u8 | 0x80;
            i += 1 + rng.below(2 * gap);
        }
        check(&bytes);
    }
    check(&text);
    let random: Vec<u8> = (0..len / 2).map(|_| rng.next_u64() as u8).collect();
    check(&random);
    // All 1-byte sequences: every replacement outgrows what it replaces (by more than
    // the largest buffer).
    check(&vec![0xFF; (len / 2).max(25_000)]);
    check(&[0x80, 0x80, 0x80].repeat(len / 10));
}

#[test]
fn unfinished_character_at_the_end_of_the_stream() {
    let mut text = String::new();
    LossyReader::new(&b"ab\xF0\x9F\x98"[..])
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(text, "ab\u{FFFD}");
    // The end is seen again after more data (a terminal, a growing file): a held
    // sequence is replaced once, at the first end.
    let mut reader = LossyReader::new(Scripted::new(b"a\xE2\x82", &[3], 0, 0));
    assert_eq!(by_read(&mut reader, 100), "a\u{FFFD}".as_bytes());
    assert_eq!(reader.read(&mut [0; 4]).unwrap(), 0);
}

#[test]
fn holds_no_more_than_its_buffer() {
    /// Fails if asked for more than the buffer can take after its slack.
    struct Capped(usize, io::Repeat);
    impl Read for Capped {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            assert!(buf.len() <= self.0, "asked for {} bytes", buf.len());
            self.1.read(buf)
        }
    }
    let mut reader = LossyReader::with_capacity(100, Capped(100, io::repeat(0xC3)));
    for _ in 0..100 {
        let data = reader.fill_buf().unwrap();
        assert!(!data.is_empty() && data.len() <= 100);
        let n = data.len();
        reader.consume(n);
    }
    assert_eq!(reader.capacity(), 100);
    // Large reads go straight into the caller's buffer, but no more than the buffer would
    // take, so that what is left to repair fits in it.
    let mut reader = LossyReader::with_capacity(100, Capped(100, io::repeat(b'a')));
    assert!(reader.read(&mut [0; 1000]).unwrap() <= 100);
    let mut reader = LossyReader::with_capacity(100, Capped(100, io::repeat(0xC3)));
    for _ in 0..100 {
        assert!(reader.read(&mut [0; 1000]).unwrap() > 0);
    }
    assert_eq!(LossyReader::with_capacity(0, io::empty()).capacity(), 16);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_streams(
        text in "\\PC{0,300}",
        edits in vec((any::<proptest::sample::Index>(), any::<u8>()), 0..8),
        sizes in vec(1usize..40, 1..6),
        capacity in 16usize..100,
        interrupt in prop_oneof![Just(0usize), 2usize..6],
    ) {
        let mut bytes = text.into_bytes();
        for (at, byte) in edits {
            if !bytes.is_empty() {
                let i = at.index(bytes.len());
                bytes[i] = byte;
            }
        }
        let want = String::from_utf8_lossy(&bytes).into_owned().into_bytes();
        let new = || LossyReader::with_capacity(capacity, Scripted::new(&bytes, &sizes, interrupt, 0));
        prop_assert_eq!(&by_read(&mut new(), 7), &want);
        prop_assert_eq!(&by_fill_buf(&mut new(), 3), &want);
        prop_assert_eq!(&by_read_to_end(&mut new()), &want);
    }
}
