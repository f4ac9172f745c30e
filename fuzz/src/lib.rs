//! The oracle shared by the fuzz targets in `fuzz_targets/`: what `core::str::from_utf8`
//! says about the same bytes, and the `ErrorKind` that the documented rule gives.
//!
//! Every target compares `utf8check`'s answer with [`expected`] through [`check`], which
//! panics (a crash for libFuzzer) on any difference. The kind is derived here from the
//! code point the first two bytes would encode, not with the library's table, so a
//! mistake in that table cannot hide behind the same mistake in the oracle.
//!
//! # Input formats
//! `from_utf8` takes the fuzz input as the text. The other targets read a short header
//! first ([`Header`]); `fuzz/seed-corpus.py` writes seeds in these formats.

use utf8check::{ErrorKind, Utf8Error};

/// What `core::str::from_utf8` reports, plus the kind the rule of `ErrorKind`'s
/// documentation gives: `Ok(())` or `Err((valid_up_to, error_len, kind))`.
pub type Expected = Result<(), (usize, Option<usize>, ErrorKind)>;

/// The oracle's answer for `bytes`.
pub fn expected(bytes: &[u8]) -> Expected {
    match core::str::from_utf8(bytes) {
        Ok(_) => Ok(()),
        Err(err) => {
            let kind = expected_kind(&bytes[err.valid_up_to()..], err.error_len());
            Err((err.valid_up_to(), err.error_len(), kind))
        }
    }
}

/// The kind of the error at `rest[0]` (`rest` starts at `valid_up_to`), from first
/// principles: which byte cannot start a character, and which code point a lead byte and
/// a following continuation byte would begin to encode.
fn expected_kind(rest: &[u8], error_len: Option<usize>) -> ErrorKind {
    let Some(_) = error_len else {
        return ErrorKind::Truncated;
    };
    let lead = rest[0];
    // The sequence length a lead byte announces under RFC 3629 (0: not a lead byte).
    let width = match lead {
        0x00..=0x7F => 1,
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => 0,
    };
    match (lead, width) {
        (0x80..=0xBF, _) => return ErrorKind::UnexpectedContinuation,
        (_, 0) => return ErrorKind::InvalidByte,
        _ => {}
    }
    assert!(
        width > 1,
        "std reported an error at an ASCII byte: {rest:02X?}"
    );
    let second = match rest.get(1) {
        Some(&b) if b & 0xC0 == 0x80 => b,
        // The lead is followed by a byte that is not a continuation byte.
        _ => return ErrorKind::TooShort,
    };
    // The smallest code point that starts with these two bytes, and the largest.
    let payload = u32::from(second & 0x3F);
    let (low, high) = match width {
        2 => return ErrorKind::TooShort,
        3 => {
            let cp = u32::from(lead & 0x0F) << 12 | payload << 6;
            (cp, cp | 0x3F)
        }
        _ => {
            let cp = u32::from(lead & 0x07) << 18 | payload << 12;
            (cp, cp | 0xFFF)
        }
    };
    let shortest = if width == 3 { 0x800 } else { 0x1_0000 };
    if high < shortest {
        ErrorKind::Overlong
    } else if width == 3 && (0xD800..=0xDFFF).contains(&low) {
        ErrorKind::Surrogate
    } else if low > 0x10_FFFF {
        ErrorKind::TooLarge
    } else {
        // The first two bytes are a valid start: a later byte cut the sequence short.
        ErrorKind::TooShort
    }
}

/// Panics unless `got`, the answer of `what` for `bytes`, is the oracle's answer `want`,
/// and, when it is `Ok`, the string is `bytes` itself.
#[track_caller]
pub fn check(what: &str, bytes: &[u8], got: Result<&str, Utf8Error>, want: &Expected) {
    match (got, want) {
        (Ok(s), Ok(())) => {
            assert_eq!(
                s.as_ptr(),
                bytes.as_ptr(),
                "{what}: Ok string is not the input"
            );
            assert_eq!(s.len(), bytes.len(), "{what}: Ok string is not the input");
        }
        (got, want) => check_error(what, bytes, got.map(|_| ()), want),
    }
}

/// As [`check`], for answers that carry no string.
#[track_caller]
pub fn check_error(what: &str, bytes: &[u8], got: Result<(), Utf8Error>, want: &Expected) {
    let got_parts = got.map_err(|e| (e.valid_up_to(), e.error_len(), e.kind()));
    assert_eq!(
        &got_parts,
        want,
        "{what}: wrong answer for {} bytes: {:02X?}",
        bytes.len(),
        bytes
    );
    if let Err(err) = got {
        // The message starts like std's and names the kind.
        let std_message = core::str::from_utf8(bytes)
            .map(|_| String::new())
            .unwrap_or_else(|e| e.to_string());
        let message = err.to_string();
        assert!(
            message.starts_with(&std_message) && message.contains(err.kind().description()),
            "{what}: message {message:?} does not extend std's {std_message:?}"
        );
    }
}

/// Control bytes at the start of an input, for the targets that need more than text:
/// the first byte says how many control bytes follow it (modulo `max + 1`); the rest of
/// the input is the text. The seed corpus writes inputs in this format.
pub struct Header<'a> {
    /// The control bytes (possibly none).
    pub control: &'a [u8],
    /// The text to validate.
    pub text: &'a [u8],
}

impl<'a> Header<'a> {
    /// Splits `data` into at most `max` control bytes and the text. An input too short for
    /// the count it announces has all of its remaining bytes as control bytes and no text.
    pub fn parse(data: &'a [u8], max: u8) -> Header<'a> {
        let Some((&count, rest)) = data.split_first() else {
            return Header {
                control: &[],
                text: &[],
            };
        };
        let count = usize::from(count % (max + 1)).min(rest.len());
        let (control, text) = rest.split_at(count);
        Header { control, text }
    }
}

/// The oracle of the `columnar` target: the lowest bad row of a column and why, each row
/// checked on its own with `core::str::from_utf8`.
pub mod columnar {
    use utf8check::columnar::{ColumnError, ColumnErrorKind};

    /// Why a row is bad: a structural problem, or std's `(valid_up_to, error_len)` for
    /// the row alone.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Why {
        Structure(ColumnErrorKind),
        Utf8(usize, Option<usize>),
    }

    /// `Ok`, or the lowest bad row and why.
    pub type Want = Result<(), (usize, Why)>;

    fn std_why(bytes: &[u8]) -> Option<Why> {
        core::str::from_utf8(bytes)
            .err()
            .map(|e| Why::Utf8(e.valid_up_to(), e.error_len()))
    }

    /// Row `row` of an offsets column (offsets widened to `i128`), if it is bad.
    pub fn offsets_row(values: &[u8], offsets: &[i128], row: usize) -> Option<Why> {
        let (a, b) = (offsets[row], offsets[row + 1]);
        if a < 0 || b < 0 {
            Some(Why::Structure(ColumnErrorKind::NegativeOffset))
        } else if b < a {
            Some(Why::Structure(ColumnErrorKind::DecreasingOffsets))
        } else if b > values.len() as i128 {
            Some(Why::Structure(ColumnErrorKind::OffsetOutOfBounds))
        } else {
            std_why(&values[a as usize..b as usize])
        }
    }

    /// View `view`, if it is bad (Arrow's `Utf8View` rules, in their order).
    pub fn view(view: u128, buffers: &[&[u8]]) -> Option<Why> {
        let len = view as u32 as usize;
        let bytes = view.to_le_bytes();
        if len <= 12 {
            if bytes[4 + len..].iter().any(|&b| b != 0) {
                return Some(Why::Structure(ColumnErrorKind::NonZeroPadding));
            }
            return std_why(&bytes[4..4 + len]);
        }
        let index = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
        let offset = u32::from_le_bytes(bytes[12..].try_into().unwrap()) as usize;
        let Some(buffer) = buffers.get(index) else {
            return Some(Why::Structure(ColumnErrorKind::BufferIndexOutOfBounds));
        };
        let Some(data) = buffer.get(offset..offset + len) else {
            return Some(Why::Structure(ColumnErrorKind::ViewOutOfBounds));
        };
        if data[..4] != bytes[4..8] {
            return Some(Why::Structure(ColumnErrorKind::PrefixMismatch));
        }
        std_why(data)
    }

    /// A PLAIN page's bytes consumed, or its lowest bad value.
    pub fn plain(page: &[u8], num_values: usize) -> Result<usize, (usize, Why)> {
        let mut pos = 0usize;
        for value in 0..num_values {
            let past_end = (value, Why::Structure(ColumnErrorKind::PastEndOfPage));
            let len = page.get(pos..pos + 4).ok_or(past_end)?;
            let len = u32::from_le_bytes(len.try_into().unwrap()) as usize;
            let data = page.get(pos + 4..pos + 4 + len).ok_or(past_end)?;
            if let Some(why) = std_why(data) {
                return Err((value, why));
            }
            pos += 4 + len;
        }
        Ok(pos)
    }

    /// The first bad row of `whys` (one entry per row).
    pub fn first(whys: &[Option<Why>]) -> Want {
        whys.iter()
            .enumerate()
            .find_map(|(row, why)| why.map(|why| (row, why)))
            .map_or(Ok(()), Err)
    }

    /// `err` as the oracle describes it; panics if its parts disagree with each other or
    /// its message does not name the row and the reason.
    pub fn parts(err: ColumnError) -> (usize, Why) {
        let message = err.to_string();
        let why = match err.utf8_error() {
            Some(u) => {
                assert_eq!(err.kind(), ColumnErrorKind::Utf8);
                assert_eq!(message, format!("row {}: {u}", err.row()));
                Why::Utf8(u.valid_up_to(), u.error_len())
            }
            None => {
                assert_eq!(message, format!("row {}: {}", err.row(), err.kind()));
                Why::Structure(err.kind())
            }
        };
        (err.row(), why)
    }

    /// Panics unless `got` is `want`.
    #[track_caller]
    pub fn check(what: &str, got: Result<(), ColumnError>, want: &Want) {
        assert_eq!(&got.map_err(parts), want, "{what}");
    }

    /// Panics unless the validity bitmap and the count of a `valid_rows`/`valid_views`
    /// call match `whys` (one entry per row): bits of the rows before the lowest
    /// structural error, the count or that error, and bits after the rows untouched.
    #[track_caller]
    pub fn check_validity(
        what: &str,
        got: Result<usize, ColumnError>,
        validity: &[u8],
        fill: u8,
        whys: &[Option<Why>],
    ) {
        let structure = whys
            .iter()
            .position(|w| matches!(w, Some(Why::Structure(_))));
        let known = structure.unwrap_or(whys.len());
        match structure {
            Some(row) => assert_eq!(got.map_err(parts), Err((row, whys[row].unwrap())), "{what}"),
            None => {
                let invalid = whys.iter().filter(|w| w.is_some()).count();
                assert_eq!(got.map_err(parts), Ok(invalid), "{what}");
            }
        }
        for i in 0..validity.len() * 8 {
            let bit = validity[i / 8] >> (i % 8) & 1;
            if i < known {
                assert_eq!(bit == 1, whys[i].is_none(), "{what}: bit {i}");
            } else if i >= whys.len() {
                assert_eq!(bit, fill >> (i % 8) & 1, "{what}: bit {i} after the rows");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first-principles rule agrees with the table in `ErrorKind`'s documentation, for
    /// every pair of bytes, followed by a continuation byte or by ASCII.
    #[test]
    fn kind_rule_matches_the_documented_table() {
        for pair in 0..=u16::MAX {
            for third in [0x80, b'x'] {
                let [first, second] = pair.to_be_bytes();
                let bytes = [first, second, third, 0x80, b'x'];
                let Err((at, len, kind)) = expected(&bytes) else {
                    continue;
                };
                let (first, second) = (bytes[at], bytes.get(at + 1).copied().unwrap_or(0));
                let table = match (first, second) {
                    _ if len.is_none() => ErrorKind::Truncated,
                    (0x80..=0xBF, _) => ErrorKind::UnexpectedContinuation,
                    (0xC0 | 0xC1 | 0xF5..=0xFF, _) => ErrorKind::InvalidByte,
                    (0xE0, 0x80..=0x9F) | (0xF0, 0x80..=0x8F) => ErrorKind::Overlong,
                    (0xED, 0xA0..=0xBF) => ErrorKind::Surrogate,
                    (0xF4, 0x90..=0xBF) => ErrorKind::TooLarge,
                    _ => ErrorKind::TooShort,
                };
                assert_eq!(kind, table, "{bytes:02X?}");
            }
        }
    }

    #[test]
    fn header_splits_control_bytes_from_text() {
        let h = Header::parse(b"\x02abcd", 7);
        assert_eq!((h.control, h.text), (&b"ab"[..], &b"cd"[..]));
        let h = Header::parse(b"\x0Aabcd", 7); // 10 % 8 = 2
        assert_eq!((h.control, h.text), (&b"ab"[..], &b"cd"[..]));
        let h = Header::parse(b"\x07ab", 7);
        assert_eq!((h.control, h.text), (&b"ab"[..], &b""[..]));
        let h = Header::parse(b"", 7);
        assert_eq!((h.control, h.text), (&b""[..], &b""[..]));
    }
}
