//! The error types: [`Utf8Error`] (std-compatible position and length) and
//! [`ErrorKind`] (why the bytes are not UTF-8).
//!
//! `valid_up_to` and `error_len` follow `core::str::Utf8Error` exactly: the first is the
//! length of the longest valid prefix, the second the length of the "maximal subpart" of
//! the invalid sequence (Unicode's recommended replacement unit), or `None` when the input
//! ends inside a sequence that could still have been completed. The kind is decided from
//! the bytes at `valid_up_to`, so it is a pure function of the input, like the position.

use core::fmt;

/// Why a byte sequence is not UTF-8, decided from the bytes at
/// [`Utf8Error::valid_up_to`].
///
/// ```
/// use utf8check::{from_utf8, ErrorKind};
///
/// assert_eq!(from_utf8(b"a\x80").unwrap_err().kind(), ErrorKind::UnexpectedContinuation);
/// assert_eq!(from_utf8(b"\xC0\xAF").unwrap_err().kind(), ErrorKind::InvalidByte);
/// assert_eq!(from_utf8(b"\xE2\x82").unwrap_err().kind(), ErrorKind::Truncated);
/// assert_eq!(from_utf8(b"\xE0\x80\xAF").unwrap_err().kind(), ErrorKind::Overlong);
/// assert_eq!(from_utf8(b"\xED\xA0\x80").unwrap_err().kind(), ErrorKind::Surrogate);
/// assert_eq!(from_utf8(b"\xF4\x90\x80\x80").unwrap_err().kind(), ErrorKind::TooLarge);
/// assert_eq!(from_utf8(b"\xE2\x82x").unwrap_err().kind(), ErrorKind::TooShort);
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A continuation byte (`0x80..=0xBF`) where a character should start.
    UnexpectedContinuation,
    /// A byte that never occurs in UTF-8: `0xC0`, `0xC1` or `0xF5..=0xFF`.
    InvalidByte,
    /// The input ends inside a multi-byte sequence (`error_len()` is `None`).
    Truncated,
    /// An overlong encoding: `E0` followed by `80..=9F`, or `F0` followed by `80..=8F`.
    Overlong,
    /// An encoded UTF-16 surrogate (U+D800..=U+DFFF): `ED` followed by `A0..=BF`.
    Surrogate,
    /// A code point above U+10FFFF: `F4` followed by `90..=BF`.
    TooLarge,
    /// A lead byte whose sequence is cut short by a byte that is not a continuation byte.
    TooShort,
}

impl ErrorKind {
    /// Classifies the error at `bytes[0]`, where `bytes` starts at `valid_up_to`.
    pub(crate) fn classify(bytes: &[u8], error_len: Option<u8>) -> ErrorKind {
        let first = bytes.first().copied().unwrap_or(0);
        let second = bytes.get(1).copied().unwrap_or(0);
        if error_len.is_none() {
            return ErrorKind::Truncated;
        }
        match (first, second) {
            (0x80..=0xBF, _) => ErrorKind::UnexpectedContinuation,
            (0xC0 | 0xC1 | 0xF5..=0xFF, _) => ErrorKind::InvalidByte,
            (0xE0, 0x80..=0x9F) | (0xF0, 0x80..=0x8F) => ErrorKind::Overlong,
            (0xED, 0xA0..=0xBF) => ErrorKind::Surrogate,
            (0xF4, 0x90..=0xBF) => ErrorKind::TooLarge,
            _ => ErrorKind::TooShort,
        }
    }

    /// A short lowercase description, as used in [`Utf8Error`]'s `Display`.
    ///
    /// ```
    /// assert_eq!(utf8check::ErrorKind::Surrogate.description(), "surrogate");
    /// ```
    pub fn description(self) -> &'static str {
        match self {
            ErrorKind::UnexpectedContinuation => "unexpected continuation byte",
            ErrorKind::InvalidByte => "invalid byte",
            ErrorKind::Truncated => "truncated sequence",
            ErrorKind::Overlong => "overlong encoding",
            ErrorKind::Surrogate => "surrogate",
            ErrorKind::TooLarge => "code point too large",
            ErrorKind::TooShort => "sequence too short",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.description())
    }
}

/// Errors which can occur when attempting to interpret a sequence of `u8` as a string.
///
/// The same information as [`core::str::Utf8Error`], with identical values on every input,
/// plus the [`kind`](Utf8Error::kind) of the error.
///
/// ```
/// let bytes = b"caf\xC3\xA9 \xFF!";
/// let err = utf8check::from_utf8(bytes).unwrap_err();
/// let std_err = std::str::from_utf8(bytes).unwrap_err();
/// assert_eq!(err.valid_up_to(), std_err.valid_up_to());
/// assert_eq!(err.error_len(), std_err.error_len());
/// assert_eq!(err.kind(), utf8check::ErrorKind::InvalidByte);
/// assert_eq!(
///     err.to_string(),
///     "invalid utf-8 sequence of 1 bytes from index 6 (invalid byte)"
/// );
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct Utf8Error {
    valid_up_to: usize,
    /// The kind and `error_len` together, in one byte.
    detail: Detail,
}

/// An error's [`ErrorKind`] and `error_len`, the combinations that occur, in one byte.
///
/// Two fields make `Result<(), Utf8Error>` a pair of scalars, which a function returns in
/// two registers; with a third (kind and length apart) it is returned through memory.
/// The kernels' `from_utf8` entry points (`ExactFn`) return it on every call.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
enum Detail {
    UnexpectedContinuation,
    InvalidByte,
    Truncated,
    Overlong,
    Surrogate,
    TooLarge,
    /// A lead byte and `n - 1` continuation bytes, where `n` is the `error_len`.
    TooShort1,
    TooShort2,
    TooShort3,
}

impl Detail {
    /// The error of `error_len` at `bytes[0]`, where `bytes` starts at `valid_up_to`.
    fn classify(bytes: &[u8], error_len: Option<u8>) -> Detail {
        let kind = ErrorKind::classify(bytes, error_len);
        // Only a sequence cut short can be longer than its lead byte (std's maximal
        // subpart); only a truncated one has no length.
        debug_assert!(
            kind == ErrorKind::TooShort || error_len == (kind != ErrorKind::Truncated).then_some(1),
            "{kind:?} with error_len {error_len:?}"
        );
        match kind {
            ErrorKind::UnexpectedContinuation => Detail::UnexpectedContinuation,
            ErrorKind::InvalidByte => Detail::InvalidByte,
            ErrorKind::Truncated => Detail::Truncated,
            ErrorKind::Overlong => Detail::Overlong,
            ErrorKind::Surrogate => Detail::Surrogate,
            ErrorKind::TooLarge => Detail::TooLarge,
            ErrorKind::TooShort => match error_len {
                Some(3) => Detail::TooShort3,
                Some(2) => Detail::TooShort2,
                _ => Detail::TooShort1,
            },
        }
    }

    fn kind(self) -> ErrorKind {
        match self {
            Detail::UnexpectedContinuation => ErrorKind::UnexpectedContinuation,
            Detail::InvalidByte => ErrorKind::InvalidByte,
            Detail::Truncated => ErrorKind::Truncated,
            Detail::Overlong => ErrorKind::Overlong,
            Detail::Surrogate => ErrorKind::Surrogate,
            Detail::TooLarge => ErrorKind::TooLarge,
            Detail::TooShort1 | Detail::TooShort2 | Detail::TooShort3 => ErrorKind::TooShort,
        }
    }

    fn error_len(self) -> Option<usize> {
        match self {
            Detail::Truncated => None,
            Detail::TooShort2 => Some(2),
            Detail::TooShort3 => Some(3),
            _ => Some(1),
        }
    }
}

impl Utf8Error {
    /// Builds the error at `valid_up_to` of `bytes`, classifying it from the bytes there.
    pub(crate) fn new(bytes: &[u8], valid_up_to: usize, error_len: Option<u8>) -> Utf8Error {
        Utf8Error {
            valid_up_to,
            detail: Detail::classify(&bytes[valid_up_to..], error_len),
        }
    }

    /// The same error, `offset` bytes further into a larger input (for chunked and parallel
    /// validation, which find errors relative to a piece of the whole).
    pub(crate) fn offset_by(self, offset: usize) -> Utf8Error {
        Utf8Error {
            valid_up_to: self.valid_up_to + offset,
            ..self
        }
    }

    /// Returns the index in the given bytes up to which valid UTF-8 was verified.
    ///
    /// It is the maximum index such that `from_utf8(&input[..index])` returns `Ok(_)`.
    pub fn valid_up_to(&self) -> usize {
        self.valid_up_to
    }

    /// Provides more information about the failure, exactly as
    /// [`core::str::Utf8Error::error_len`]:
    ///
    /// * `None`: the end of the input was reached unexpectedly. Appending more bytes might
    ///   complete the sequence (this is the case when streaming).
    /// * `Some(len)`: an unexpected byte was encountered; `len` (1 to 3) is the length of the
    ///   invalid sequence starting at `valid_up_to()`. Lossy decoding replaces it with
    ///   U+FFFD and resumes after it.
    pub fn error_len(&self) -> Option<usize> {
        self.detail.error_len()
    }

    /// Why the bytes at [`valid_up_to`](Utf8Error::valid_up_to) are not UTF-8.
    pub fn kind(&self) -> ErrorKind {
        self.detail.kind()
    }
}

impl fmt::Debug for Utf8Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Utf8Error")
            .field("valid_up_to", &self.valid_up_to)
            .field("error_len", &self.error_len())
            .field("kind", &self.kind())
            .finish()
    }
}

impl fmt::Display for Utf8Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.error_len() {
            Some(len) => write!(
                f,
                "invalid utf-8 sequence of {} bytes from index {} ({})",
                len,
                self.valid_up_to,
                self.kind()
            ),
            None => write!(
                f,
                "incomplete utf-8 byte sequence from index {} ({})",
                self.valid_up_to,
                self.kind()
            ),
        }
    }
}

#[cfg(utf8check_core_error)]
impl core::error::Error for Utf8Error {}

#[cfg(all(not(utf8check_core_error), feature = "std"))]
impl std::error::Error for Utf8Error {}

#[cfg(feature = "std")]
impl From<Utf8Error> for std::io::Error {
    /// An [`std::io::ErrorKind::InvalidData`] error that carries the [`Utf8Error`]
    /// (recover it with `get_ref()` and `downcast_ref::<Utf8Error>()`).
    fn from(err: Utf8Error) -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::InvalidData, err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_of_an_error_fits_two_registers() {
        // The kernels' `from_utf8` entry points return this in two registers (`Detail`).
        assert_eq!(
            core::mem::size_of::<Result<(), Utf8Error>>(),
            2 * core::mem::size_of::<usize>()
        );
    }

    #[test]
    fn detail_keeps_every_kind_and_length() {
        let cases: [(&[u8], Option<u8>, ErrorKind); 9] = [
            (b"\x80", Some(1), ErrorKind::UnexpectedContinuation),
            (b"\xFF", Some(1), ErrorKind::InvalidByte),
            (b"\xE2\x82", None, ErrorKind::Truncated),
            (b"\xE0\x80", Some(1), ErrorKind::Overlong),
            (b"\xED\xA0", Some(1), ErrorKind::Surrogate),
            (b"\xF4\x90", Some(1), ErrorKind::TooLarge),
            (b"\xC3x", Some(1), ErrorKind::TooShort),
            (b"\xE2\x82x", Some(2), ErrorKind::TooShort),
            (b"\xF0\x9F\x98x", Some(3), ErrorKind::TooShort),
        ];
        for (bytes, error_len, kind) in cases {
            let err = Utf8Error::new(bytes, 0, error_len);
            assert_eq!(err.kind(), kind, "{bytes:02X?}");
            assert_eq!(err.error_len(), error_len.map(usize::from), "{bytes:02X?}");
            assert_eq!(err, crate::from_utf8(bytes).unwrap_err(), "{bytes:02X?}");
        }
    }

    #[cfg(feature = "alloc")]
    #[test]
    fn debug_shows_error_len_as_std_does() {
        assert_eq!(
            alloc::format!("{:?}", Utf8Error::new(b"\xE2\x82x", 0, Some(2))),
            "Utf8Error { valid_up_to: 0, error_len: Some(2), kind: TooShort }"
        );
    }
}
