//! Helpers shared by the integration tests (`mod common;`).
//!
//! * [`expected`]: the reference [`Answer`] for some bytes, from `core::str::from_utf8` plus the
//!   `ErrorKind` rule of the crate's specification, computed here from the bytes (not with
//!   the crate's own classifier, so that a wrong classifier fails the tests).
//! * [`check_against_std`]: every API (`from_utf8`, `from_utf8_mut`, `is_valid`) and every
//!   kernel in `Kernel::available()` must give that answer; [`check_dispatched`] and
//!   [`check_kernels`] are its parts, for loops that compute [`expected`] once per input.
//! * [`multilingual_text`]: deterministic text mixing 1- to 4-byte characters.
//! * [`small_tests`]: whether to run the smaller versions of the costliest tests.

// Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

use std::fmt::Write as _;

use utf8check::{ErrorKind, Kernel, Utf8Error};

/// What `from_utf8` must answer: `Ok`, or `(valid_up_to, error_len, kind)`.
pub type Answer = Result<(), (usize, Option<usize>, ErrorKind)>;

/// The reference answer for `bytes`: std's position and length, and the kind from the
/// rule of the specification (issue 2):
///
/// * `Truncated` if `error_len` is `None`; otherwise, from the byte at `valid_up_to` and
///   the one after it:
/// * `UnexpectedContinuation`: `80..=BF`;
/// * `InvalidByte`: `C0`, `C1`, `F5..=FF`;
/// * `Overlong`: `E0 80..=9F`, `F0 80..=8F`;
/// * `Surrogate`: `ED A0..=BF`;
/// * `TooLarge`: `F4 90..=BF`;
/// * `TooShort`: anything else (a lead byte whose sequence is cut short by a byte that is
///   not a continuation byte).
pub fn expected(bytes: &[u8]) -> Answer {
    match core::str::from_utf8(bytes) {
        Ok(_) => Ok(()),
        Err(err) => {
            let at = err.valid_up_to();
            Err((
                at,
                err.error_len(),
                expected_kind(&bytes[at..], err.error_len()),
            ))
        }
    }
}

/// The kind of the error whose sequence starts at `rest[0]` (see [`expected`]).
pub fn expected_kind(rest: &[u8], error_len: Option<usize>) -> ErrorKind {
    if error_len.is_none() {
        return ErrorKind::Truncated;
    }
    let first = rest[0];
    let second = rest.get(1).copied();
    let is_cont = |b: Option<u8>| b.is_some_and(|b| b & 0xC0 == 0x80);
    if is_cont(Some(first)) {
        ErrorKind::UnexpectedContinuation
    } else if first == 0xC0 || first == 0xC1 || first >= 0xF5 {
        ErrorKind::InvalidByte
    } else if is_cont(second) {
        // A lead byte followed by a continuation byte that it does not accept.
        let second = second.unwrap();
        match first {
            0xE0 if second < 0xA0 => ErrorKind::Overlong,
            0xF0 if second < 0x90 => ErrorKind::Overlong,
            0xED if second >= 0xA0 => ErrorKind::Surrogate,
            0xF4 if second >= 0x90 => ErrorKind::TooLarge,
            _ => ErrorKind::TooShort,
        }
    } else {
        ErrorKind::TooShort
    }
}

/// The answer a `Utf8Error` gives, in the form of [`Answer`].
pub fn answer_of(err: &Utf8Error) -> (usize, Option<usize>, ErrorKind) {
    (err.valid_up_to(), err.error_len(), err.kind())
}

/// The error `utf8check::from_utf8` returns for `bytes`. Panics if it accepts them,
/// without printing the `&str` (whose `Debug` would decode bytes that may not be UTF-8).
#[track_caller]
pub fn error_of(bytes: &[u8]) -> Utf8Error {
    match utf8check::from_utf8(bytes) {
        Ok(_) => panic!("from_utf8 accepted {}", hex(bytes, 0)),
        Err(err) => err,
    }
}

/// `bytes` in hex, shortened around `focus` when long (for failure messages).
pub fn hex(bytes: &[u8], focus: usize) -> String {
    let (start, end) = if bytes.len() <= 96 {
        (0, bytes.len())
    } else {
        let start = focus.saturating_sub(32).min(bytes.len() - 64);
        (start, start + 64)
    };
    let mut out = format!("{} bytes: ", bytes.len());
    if start > 0 {
        let _ = write!(out, "[{start}..] ");
    }
    for byte in &bytes[start..end] {
        let _ = write!(out, "{byte:02X} ");
    }
    if end < bytes.len() {
        out.push_str("...");
    }
    out
}

#[cold]
#[track_caller]
fn mismatch(what: &str, bytes: &[u8], expected: &Answer, got: &dyn std::fmt::Debug) -> ! {
    let focus = match expected {
        Ok(()) => bytes.len(),
        Err((at, _, _)) => *at,
    };
    panic!(
        "{what}: expected {expected:?}, got {got:?}\n  input {}",
        hex(bytes, focus)
    );
}

/// Checks one `from_utf8`-like result against the expected answer.
#[inline]
#[track_caller]
fn check_result(what: &str, bytes: &[u8], expected: &Answer, got: Result<&str, Utf8Error>) {
    let same = match (&got, expected) {
        // The `&str` must be the input itself.
        (Ok(s), Ok(())) => s.as_ptr() == bytes.as_ptr() && s.len() == bytes.len(),
        (Err(err), Err(want)) => answer_of(err) == *want,
        _ => false,
    };
    if !same {
        // Only the length of a wrongly accepted `&str`: its `Debug` would decode invalid
        // UTF-8 (and may read past the end).
        let got = got.map(str::len).map_err(|e| answer_of(&e));
        mismatch(what, bytes, expected, &got);
    }
}

/// Every kernel this CPU runs (computed once per call site; cheap).
pub fn kernels() -> Vec<Kernel> {
    Kernel::available().collect()
}

/// Checks `kernel.from_utf8` and `kernel.is_valid` for every kernel in `kernels` against
/// `expected`, which must be [`expected(bytes)`](expected) (computed once by the caller).
#[inline]
#[track_caller]
pub fn check_kernels(bytes: &[u8], expected: &Answer, kernels: &[Kernel]) {
    for &kernel in kernels {
        check_result(kernel.name(), bytes, expected, kernel.from_utf8(bytes));
        if kernel.is_valid(bytes) != expected.is_ok() {
            let what = format!("{}.is_valid", kernel.name());
            mismatch(&what, bytes, expected, &!expected.is_ok());
        }
    }
}

/// Checks the dispatched `utf8check::from_utf8` and `utf8check::is_valid` against
/// `expected`, which must be [`expected(bytes)`](expected).
#[inline]
#[track_caller]
pub fn check_dispatched(bytes: &[u8], expected: &Answer) {
    check_result("from_utf8", bytes, expected, utf8check::from_utf8(bytes));
    if utf8check::is_valid(bytes) != expected.is_ok() {
        mismatch("is_valid", bytes, expected, &!expected.is_ok());
    }
}

/// Checks every API and every available kernel on `bytes` against `core::str::from_utf8`
/// and the `ErrorKind` rule; also `from_utf8_mut` (on a copy).
#[track_caller]
pub fn check_against_std(bytes: &[u8]) {
    let expected = expected(bytes);
    check_dispatched(bytes, &expected);
    check_kernels(bytes, &expected, &kernels());
    let mut copy = bytes.to_vec();
    let got = utf8check::from_utf8_mut(&mut copy)
        .map(|s| s.as_ptr())
        .map_err(|e| answer_of(&e));
    let want = expected.map(|()| copy.as_ptr());
    assert_eq!(got, want, "from_utf8_mut\n  input {}", hex(bytes, 0));
}

/// Characters of every encoded length and many scripts, including the edges of each
/// length (U+007F, U+0080, U+07FF, U+0800, U+D7FF, U+E000, U+FFFF, U+10000, U+10FFFF).
pub const SAMPLES: &[&str] = &[
    "The quick brown fox jumps over the lazy dog. ",
    "Grüße, Jürgen! Ça va? Año, naïve, smørrebrød, Łódź. ",
    "Ελληνικά: γειά σου κόσμε. ",
    "Русский текст: съешь же ещё этих мягких булок. ",
    "עברית ,العربية: مرحبا بالعالم. ",
    "हिन्दी: नमस्ते दुनिया। ",
    "日本語のテキスト、中文文本，한국어 텍스트。",
    "Emoji 😀🎉🌍👩‍👩‍👧 and 𝄞 𝕳𝖊𝖑𝖑𝖔 🀄. ",
    "Edges: \u{7F}\u{80}\u{7FF}\u{800}\u{D7FF}\u{E000}\u{FFFD}\u{FFFF}\u{10000}\u{10FFFF}. ",
    "{\"key\": \"value\", \"n\": 12345, \"ok\": true}\n",
];

/// A small deterministic pseudo-random generator (xorshift64*), so tests need no seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// At least `min_len` bytes of valid UTF-8, pseudo-random from `seed`: runs of a few
/// characters of one of the [`SAMPLES`] (so scripts and ASCII runs alternate as in real
/// text), and between them single characters of a random encoded length (so 1- to 4-byte
/// characters meet each other in every order).
pub fn multilingual_text(min_len: usize, seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let samples: Vec<Vec<char>> = SAMPLES.iter().map(|s| s.chars().collect()).collect();
    let by_len: Vec<Vec<char>> = (1..=4)
        .map(|n| {
            samples
                .iter()
                .flatten()
                .copied()
                .filter(|c| c.len_utf8() == n)
                .collect()
        })
        .collect();
    let mut text = String::with_capacity(min_len + 64);
    while text.len() < min_len {
        let sample = &samples[rng.below(samples.len())];
        let start = rng.below(sample.len());
        let run = 1 + rng.below(8);
        text.extend(sample.iter().cycle().skip(start).take(run));
        let pool = &by_len[rng.below(4)];
        text.push(pool[rng.below(pool.len())]);
    }
    text
}

/// Whether to run the smaller versions of the costliest tests: `UTF8CHECK_SMALL_TESTS`,
/// set by every test step of CI but the release one, which runs them in full (where
/// every input runs slowly: unoptimized, under AddressSanitizer, emulated by qemu; and
/// the debug and x86-64-v3 builds, to keep CI within its time).
pub fn small_tests() -> bool {
    std::env::var_os("UTF8CHECK_SMALL_TESTS").is_some_and(|v| v != "0")
}

/// A copy of some bytes at an address `misaligned` bytes past a multiple of 64, so that
/// a test decides where the kernels' grid of blocks falls: the main loop's blocks start
/// at the first multiple of the register width from the input's second register on
/// (`head_end` in `src/generic.rs`), which for an input at a multiple of 64 is the end of
/// its first register, where the placements of the exhaustive tests put them.
pub struct Aligned {
    buffer: Vec<u8>,
    start: usize,
    len: usize,
}

impl Aligned {
    /// `bytes` at an address `misaligned` (under 64) bytes past a multiple of 64.
    pub fn new(bytes: &[u8], misaligned: usize) -> Aligned {
        assert!(misaligned < 64);
        let mut buffer = vec![0; bytes.len() + 128];
        let start = (64 - buffer.as_ptr() as usize % 64) % 64 + misaligned;
        buffer[start..start + bytes.len()].copy_from_slice(bytes);
        Aligned {
            buffer,
            start,
            len: bytes.len(),
        }
    }

    pub fn bytes(&self) -> &[u8] {
        &self.buffer[self.start..self.start + self.len]
    }

    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.buffer[self.start..self.start + self.len]
    }
}
