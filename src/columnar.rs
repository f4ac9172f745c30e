//! Validation of whole string columns in the layouts of Apache Arrow and Parquet: one SIMD
//! pass over the column's bytes, the exact first bad row with a std-identical error, and a
//! validity bitmap for ingest that turns bad rows into nulls.
//!
//! * [`validate_offsets`] and [`valid_rows`]: Arrow's `Utf8`/`LargeUtf8` layout (a values
//!   buffer and `n + 1` offsets of any [`Offset`] type; row `i` is
//!   `values[offsets[i]..offsets[i + 1]]`); [`par::validate_offsets`](crate::par) with the
//!   feature `rayon`.
//! * [`validate_views`] and [`valid_views`]: Arrow's `Utf8View` layout (16-byte views,
//!   strings of up to 12 bytes inline, longer ones in data buffers).
//! * [`validate_plain`]: a Parquet `PLAIN`-encoded `BYTE_ARRAY` page.
//!
//! Every function answers exactly as checking each row on its own with
//! [`core::str::from_utf8`] would, and reports the *lowest* bad row, whatever makes it bad:
//! a structural problem (an offset that is negative, decreasing or out of bounds, a view
//! that points outside its buffers, ...) or bytes that are not UTF-8. For the latter,
//! [`ColumnError::utf8_error`] is exactly what `from_utf8` returns for that row alone.
//!
//! ```
//! use utf8check::columnar::{validate_offsets, ColumnErrorKind};
//!
//! // Three rows: "café", "", "naïve".
//! let values = "cafénaïve".as_bytes();
//! assert_eq!(validate_offsets(values, &[0i32, 5, 5, 11]), Ok(()));
//!
//! // The trap of validating the concatenation: "caf\xC3" and "\xA9" join into "café",
//! // but neither row is UTF-8 on its own.
//! let err = validate_offsets(values, &[0i32, 4, 5, 11]).unwrap_err();
//! assert_eq!(err.row(), 0);
//! assert_eq!(err.utf8_error(), Some(utf8check::from_utf8(&values[..4]).unwrap_err()));
//! assert_eq!(err.to_string(), "row 0: incomplete utf-8 byte sequence from index 3 (truncated sequence)");
//!
//! // Structural errors are rows too; the lowest bad row wins.
//! let err = validate_offsets(values, &[0i32, 5, 3, 11]).unwrap_err();
//! assert_eq!((err.row(), err.kind()), (1, ColumnErrorKind::DecreasingOffsets));
//! ```
//!
//! # Offsets: one pass, then a boundary test
//! The rows of a chunk of the column (up to [`CHUNK_ROWS`] rows) are validated together:
//!
//! 1. **Structure.** The chunk's offsets must not decrease, the first must not be negative
//!    and the last must be at most `values.len()`; together these put every offset in
//!    bounds. It is a branch-free pass over the offsets that the compiler vectorizes: no
//!    comparisons, but the sign bits of the offsets and of their differences, or'ed
//!    (SSE2, the baseline of x86-64, has no comparison of 64-bit or unsigned integers).
//! 2. **One kernel call over the chunk's span** `values[first..last]`, the concatenation
//!    of its rows, with the crate's SIMD kernel. Bytes outside the span belong to no row
//!    and are never read. Before it, std's (vectorized) `is_ascii` tests the span
//!    [`ASCII_BLOCK`] bytes at a time up to the first block that is not ASCII: the rows
//!    in that ASCII start are valid whatever their boundaries, so the kernel and the
//!    boundary test start at the last row that begins there. An ASCII chunk costs one
//!    ASCII test and nothing else; one that is not ASCII loses a test of 512 bytes.
//! 3. **The boundary test.** The concatenation can be valid while its rows are not:
//!    `"caf\xC3"` and `"\xA9"` join into `"café"` (DuckDB fixed exactly this bug; arrow-rs's
//!    Parquet `DELTA_LENGTH_BYTE_ARRAY` reader checks only the concatenation). So each row
//!    that starts inside the span must start with a byte that is not a continuation byte.
//!    One byte load per row, or'ed without a branch.
//!
//! This is exact. If the concatenation is valid UTF-8, its character boundaries are
//! precisely the positions of the bytes that are not continuation bytes (and its end). A
//! row that starts at such a byte and ends at the start of the next row (or at the span's
//! end) starts and ends on character boundaries, so it is a sequence of whole characters:
//! valid. A row cannot *end* inside a character either, because the next row would then
//! start with a continuation byte. Conversely, if every row is valid, so is their
//! concatenation, and no row starts with a continuation byte. (Testing the byte before
//! each boundary is therefore not needed: the kernel sees it in context.)
//!
//! Chunks keep the offsets and the bytes of the boundary test in the cache that the kernel
//! just filled, and bound the work done after an error.
//!
//! # The exact bad row, without a second pass
//! When a chunk fails, the lowest bad row is one of two candidates, both cheap to find:
//!
//! * the row that contains the first error of the concatenation (at `e`, from the kernel's
//!   checkpoint and the scalar locator, which start near the error): it is bad, because
//!   its bytes from `e` on are a prefix of the concatenation's invalid sequence at `e`,
//!   which is therefore invalid or cut short in the row too;
//! * if a row that starts before `e` starts with a continuation byte, at `p`: the row that
//!   holds the byte before `p`. The byte at `p` continues a character of the (valid)
//!   concatenation that began before `p`, so that row ends inside a character (or is
//!   made of continuation bytes only). This is the byte before the boundary: the row
//!   before `"\xA9"` is the bad row `"caf\xC3"`.
//!
//! Every row before both lies in the valid part of the concatenation and starts and ends
//! on character boundaries, so it is valid. The lower candidate is the bad row (binary
//! searches over the offsets find the rows that hold a byte position), and
//! [`crate::from_utf8`] on that row alone gives its exact error. The chunks before it
//! passed; the chunk's structure was checked before its bytes, so a structural problem in
//! a row is reported unless a lower row is bad in its bytes, and the other way around.
//!
//! [`valid_rows`] runs the same search, marks the bad row, and goes on from the next row.
//!
//! # Views: inline strings in batches, long strings as spans
//! Most views of real columns hold their string inline (up to 12 bytes): calling a
//! validator once per view costs more than the check itself. A batch of
//! [`VIEW_BATCH`] views is handled at once:
//!
//! * Two branch-free passes over the batch sort the views: the first lists the long
//!   ones and the inline ones (the kinds of the views alternate unpredictably in real
//!   columns: a branch per view would mispredict), the second keeps the inline ones that
//!   need a closer look. An inline view needs one unless its string is ASCII and its
//!   padding zero: one test of the view against a mask picked by its length (the high
//!   bit of each string byte, every bit of each padding byte), two `and`s of 64-bit
//!   halves. Most inline views of real text pass it and need nothing more.
//! * The others: their padding is checked, and they are copied into a buffer on the
//!   stack. An inline view's bytes are its length (0 to 12: four ASCII bytes), its
//!   string and its zero padding, so the buffer is valid UTF-8 exactly when its strings
//!   are: ASCII bytes separate the strings, a string cut short is followed by an ASCII
//!   byte, and a continuation byte at a string's start follows one. One kernel call
//!   validates the buffer.
//! * The long views: builders write consecutive long strings next to each other in one
//!   buffer, so consecutive long views that are contiguous (same buffer, each starting
//!   where the last ended) form a span; a view that continues the span costs two
//!   comparisons. When the span ends, its buffer index and end are checked, one kernel
//!   call validates it (and brings it into the cache), and then each view's prefix is
//!   compared with its first 4 bytes. The prefix's first byte is also the boundary test
//!   of the offsets layout: a string must not start with a continuation byte.
//!
//! A batch that fails is checked again one view at a time to find the exact bad view: at
//! most one batch of work after the error. [`valid_views`], which goes on after a bad
//! view, halves a failing batch and checks each half as a batch again (down to 64 views)
//! before it checks views one at a time, so that a rare bad view does not cost a slow
//! check of all the views of its batch.
//!
//! # Parquet PLAIN pages
//! A `PLAIN` `BYTE_ARRAY` page stores each value after its length (4 bytes,
//! little-endian). A length below 128 in each of its bytes (`len & 0x8080_8080 == 0`) is
//! four ASCII bytes, which separate the values as the views' lengths do; so a run of such
//! values is validated as one span of the page, in place. A value whose length has a byte
//! with the high bit set (128 bytes or more) is validated on its own. The lengths are
//! followed first (a dependent chain of loads, the limit for short values), then each run
//! gets one kernel call; the first error's position in the run names the bad value.

use core::fmt;

use crate::error::Utf8Error;
use crate::{dispatch, scalar};

/// The number of rows validated together in one kernel call (a chunk).
///
/// Large enough that the call and its start and end cost little even for rows of a few
/// bytes, small enough that the chunk's bytes and offsets stay in the L1 or L2 cache for
/// the boundary test, and that an error costs at most one chunk of extra work. (A
/// parameter of the implementation, public for tests that aim at its edges; it may
/// change.)
pub const CHUNK_ROWS: usize = 512;

/// The block length of the ASCII test that lets [`validate_offsets`] skip the rows of an
/// all-ASCII start of a chunk (all of it, in ASCII columns) without the boundary test.
/// (A parameter of the implementation; it may change.)
pub const ASCII_BLOCK: usize = 512;

/// The number of views handled together (see the module documentation): enough that
/// the kernel calls over a batch's long strings are few (each costs tens of nanoseconds
/// to start and end), and that a batch's views are numbered by a `u8`. (A parameter of
/// the implementation, public for tests that aim at its edges; it may change.)
pub const VIEW_BATCH: usize = 256;

// A batch's lists of views hold `u8` indices.
const _: () = assert!(VIEW_BATCH <= 256);

/// Runs of Parquet values validated together are flushed when they reach this length, so
/// that an error is found soon after it occurs.
const PLAIN_RUN: usize = 64 * 1024;

pub(crate) mod sealed {
    /// The conversions [`super::Offset`] needs; sealed so that no other type implements
    /// it.
    pub trait Sealed: Copy + Ord {
        /// Is the offset negative?
        fn is_negative(self) -> bool;
        /// The offset as an index: `None` if negative or larger than `usize::MAX`.
        fn to_index(self) -> Option<usize>;
        /// The offset as an index, for offsets known to be in `0..=values.len()`.
        fn as_index(self) -> usize;
        /// Do `offsets` (at least one) ascend from a first that is not negative? (Or,
        /// for `u64` and `usize`, also: is every offset below 2^63? Larger ones are past
        /// the end of any values buffer.)
        fn ascend_from_non_negative(offsets: &[Self]) -> bool;
    }
}

/// The integer types that can be offsets into a values buffer: `i32` (Arrow's `Utf8`),
/// `i64` (`LargeUtf8`), `u32`, `u64` and `usize`. Sealed: it cannot be implemented
/// outside this crate.
pub trait Offset: sealed::Sealed + Send + Sync + fmt::Debug + 'static {}

macro_rules! offset {
    (signed: $($t:ty => $wide:ty),*; unsigned: $($u:ty => $uwide:ty),*) => {
        $(
            impl sealed::Sealed for $t {
                #[inline(always)]
                fn is_negative(self) -> bool {
                    self < 0
                }
                offset!(@index $t, $wide);
            }
            impl Offset for $t {}
        )*
        $(
            impl sealed::Sealed for $u {
                #[inline(always)]
                fn is_negative(self) -> bool {
                    false
                }
                offset!(@index $u, $uwide);
            }
            impl Offset for $u {}
        )*
    };
    // `$wide`: a signed type that holds every offset that can be in bounds without
    // becoming negative.
    (@index $t:ty, $wide:ty) => {
        #[inline(always)]
        fn to_index(self) -> Option<usize> {
            usize::try_from(self).ok()
        }
        #[inline(always)]
        fn as_index(self) -> usize {
            self as usize
        }
        #[inline]
        fn ascend_from_non_negative(offsets: &[Self]) -> bool {
            // As `$wide`: if `a` and `b` are not negative, `b - a` cannot overflow and is
            // negative exactly when `b < a`; so the sign bits of every offset and of every
            // difference, or'ed, tell both. No branch and no comparison per offset: the
            // loop vectorizes for every width (SSE2 has no 64-bit or unsigned compare).
            let signs = offsets.iter().zip(&offsets[1..]).fold(
                offsets[0] as $wide,
                |signs, (&a, &b)| signs | b as $wide | (b as $wide).wrapping_sub(a as $wide),
            );
            signs >= 0
        }
    };
}

offset!(signed: i32 => i32, i64 => i64; unsigned: u32 => i64, u64 => i64, usize => i64);

/// Why a row of a column is bad (see [`ColumnError::kind`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ColumnErrorKind {
    /// The row's bytes are not UTF-8; [`ColumnError::utf8_error`] says where and why.
    Utf8,
    /// An offset of the row is negative.
    NegativeOffset,
    /// The row's end offset is smaller than its start offset.
    DecreasingOffsets,
    /// The row ends past the end of the values buffer.
    OffsetOutOfBounds,
    /// An inline view (12 bytes or fewer) has non-zero bytes after its string.
    NonZeroPadding,
    /// A view names a data buffer that does not exist.
    BufferIndexOutOfBounds,
    /// A view's range of bytes ends past the end of its data buffer.
    ViewOutOfBounds,
    /// A view's prefix differs from the first 4 bytes of its data.
    PrefixMismatch,
    /// A Parquet value (or its length) runs past the end of the page.
    PastEndOfPage,
}

impl ColumnErrorKind {
    /// A short lowercase description, as used in [`ColumnError`]'s `Display`.
    ///
    /// ```
    /// use utf8check::columnar::ColumnErrorKind;
    /// assert_eq!(ColumnErrorKind::DecreasingOffsets.description(), "offsets decrease");
    /// ```
    pub fn description(self) -> &'static str {
        match self {
            ColumnErrorKind::Utf8 => "not utf-8",
            ColumnErrorKind::NegativeOffset => "negative offset",
            ColumnErrorKind::DecreasingOffsets => "offsets decrease",
            ColumnErrorKind::OffsetOutOfBounds => "ends past the end of the values",
            ColumnErrorKind::NonZeroPadding => "non-zero padding after an inline string",
            ColumnErrorKind::BufferIndexOutOfBounds => "buffer index out of bounds",
            ColumnErrorKind::ViewOutOfBounds => "ends past the end of its buffer",
            ColumnErrorKind::PrefixMismatch => "prefix differs from the data",
            ColumnErrorKind::PastEndOfPage => "runs past the end of the page",
        }
    }
}

impl fmt::Display for ColumnErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.description())
    }
}

/// The first bad row of a column: its index and why it is bad.
///
/// ```
/// let err = utf8check::columnar::validate_offsets(b"ok\xFFno", &[0u32, 2, 5]).unwrap_err();
/// assert_eq!(err.row(), 1);
/// let utf8 = err.utf8_error().unwrap(); // relative to the row, as from_utf8(b"\xFFno")
/// assert_eq!((utf8.valid_up_to(), utf8.error_len()), (0, Some(1)));
/// assert_eq!(err.to_string(), "row 1: invalid utf-8 sequence of 1 bytes from index 0 (invalid byte)");
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ColumnError {
    row: usize,
    kind: ColumnErrorKind,
    utf8: Option<Utf8Error>,
}

impl ColumnError {
    /// A structural error of `row`.
    fn structure(row: usize, kind: ColumnErrorKind) -> ColumnError {
        ColumnError {
            row,
            kind,
            utf8: None,
        }
    }

    /// `row`'s bytes are not UTF-8.
    fn utf8(row: usize, err: Utf8Error) -> ColumnError {
        ColumnError {
            row,
            kind: ColumnErrorKind::Utf8,
            utf8: Some(err),
        }
    }

    /// The same error, `by` rows further into a larger column.
    pub(crate) fn offset_by(self, by: usize) -> ColumnError {
        ColumnError {
            row: self.row + by,
            ..self
        }
    }

    /// The index of the first bad row (view, value) of the column.
    pub fn row(&self) -> usize {
        self.row
    }

    /// Why the row is bad.
    pub fn kind(&self) -> ColumnErrorKind {
        self.kind
    }

    /// For a row whose bytes are not UTF-8, exactly what [`crate::from_utf8`] (and
    /// [`core::str::from_utf8`]) returns for the row alone: positions are relative to the
    /// row's first byte. `None` for structural errors.
    pub fn utf8_error(&self) -> Option<Utf8Error> {
        self.utf8
    }
}

impl fmt::Display for ColumnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.utf8 {
            Some(err) => write!(f, "row {}: {}", self.row, err),
            None => write!(f, "row {}: {}", self.row, self.kind),
        }
    }
}

#[cfg(utf8check_core_error)]
impl core::error::Error for ColumnError {}

#[cfg(all(not(utf8check_core_error), feature = "std"))]
impl std::error::Error for ColumnError {}

// --- offsets ---------------------------------------------------------------------------

/// Validates a column in Arrow's offsets layout (`Utf8`, `LargeUtf8`, `Binary` checked as
/// text): row `i` is `values[offsets[i]..offsets[i + 1]]`, for `i < offsets.len() - 1`
/// (no rows when `offsets.len() < 2`).
///
/// A row is bad if one of its offsets is negative, if its offsets decrease, if it ends past
/// `values.len()`, or if its bytes *on their own* are not UTF-8. Bytes outside
/// `offsets[0]..offsets[last]` belong to no row and are not read.
///
/// ```
/// use utf8check::columnar::validate_offsets;
///
/// // Rows "Grüße", "", "世界", written as Arrow would: one values buffer, n + 1 offsets.
/// let values = "Grüße世界".as_bytes();
/// let offsets: [i64; 4] = [0, 7, 7, 13];
/// validate_offsets(values, &offsets)?;
///
/// // Validated once, the column can be built without a second check. With arrow-rs:
/// // `unsafe { StringArray::new_unchecked(offsets, values, nulls) }`. Without it:
/// let row = |i: usize| {
///     let bytes = &values[offsets[i] as usize..offsets[i + 1] as usize];
///     // SAFETY: `validate_offsets` returned Ok: every row is in bounds and UTF-8.
///     unsafe { std::str::from_utf8_unchecked(bytes) }
/// };
/// assert_eq!((row(0), row(1), row(2)), ("Grüße", "", "世界"));
/// # Ok::<(), utf8check::columnar::ColumnError>(())
/// ```
///
/// # Errors
/// The [`ColumnError`] of the lowest bad row, whatever makes it bad.
pub fn validate_offsets<O: Offset>(values: &[u8], offsets: &[O]) -> Result<(), ColumnError> {
    let rows = offsets.len().saturating_sub(1);
    let mut first = 0;
    while first < rows {
        let last = rows.min(first + CHUNK_ROWS);
        validate_chunk(values, &offsets[first..=last]).map_err(|e| e.offset_by(first))?;
        first = last;
    }
    Ok(())
}

/// [`validate_offsets`] for the rows of `offsets` (at least 2 of them), with row numbers
/// relative to `offsets[0]`.
#[inline]
fn validate_chunk<O: Offset>(values: &[u8], offsets: &[O]) -> Result<(), ColumnError> {
    let structure = structure_error(values.len(), offsets);
    // The rows before a structural error are well-formed; a bad one among them wins.
    let well_formed = match &structure {
        Some(err) => &offsets[..=err.row],
        None => offsets,
    };
    if well_formed.len() >= 2 {
        // SAFETY: `structure_error` found no malformed row in `well_formed`: its offsets
        // ascend from a non-negative first to a last within `values`.
        if let Some((row, err)) = unsafe { first_bad_row(values, well_formed) } {
            return Err(ColumnError::utf8(row, err));
        }
    }
    structure.map_or(Ok(()), Err)
}

/// The structural error of the lowest row of `offsets` (at least 2) whose offsets are
/// negative, decreasing or past `values_len` (row numbers relative to `offsets[0]`), or
/// `None` if every row is well-formed.
#[inline]
fn structure_error<O: Offset>(values_len: usize, offsets: &[O]) -> Option<ColumnError> {
    let last = offsets[offsets.len() - 1];
    // Ascending offsets between a non-negative first and a last within bounds are all in
    // bounds.
    let in_bounds = last.to_index().is_some_and(|end| end <= values_len);
    if O::ascend_from_non_negative(offsets) && in_bounds {
        return None;
    }
    first_structure_error(values_len, offsets)
}

/// The slow part of [`structure_error`]: which row is malformed, and how.
#[cold]
#[inline(never)]
fn first_structure_error<O: Offset>(values_len: usize, offsets: &[O]) -> Option<ColumnError> {
    offsets.windows(2).enumerate().find_map(|(row, pair)| {
        let (start, end) = (pair[0], pair[1]);
        let kind = if start.is_negative() || end.is_negative() {
            ColumnErrorKind::NegativeOffset
        } else if end < start {
            ColumnErrorKind::DecreasingOffsets
        } else if end.to_index().map_or(true, |end| end > values_len) {
            ColumnErrorKind::OffsetOutOfBounds
        } else {
            return None;
        };
        Some(ColumnError::structure(row, kind))
    })
}

/// The lowest row of `offsets` whose bytes are not UTF-8, with its error, or `None` if
/// every row is UTF-8 (see the module documentation for why the test is exact).
///
/// # Safety
/// `offsets` must be well-formed for `values`: at least 2 offsets, ascending, the first
/// not negative and the last at most `values.len()` (so all are in `0..=values.len()`).
#[inline]
unsafe fn first_bad_row<O: Offset>(values: &[u8], offsets: &[O]) -> Option<(usize, Utf8Error)> {
    let rows = offsets.len() - 1;
    let start = offsets[0].as_index();
    let end = offsets[rows].as_index();
    // Rows that lie in a leading all-ASCII part of the span are valid whatever their
    // boundaries: skip them, and with them the boundary test's loads.
    let ascii = ascii_prefix(&values[start..end]);
    if ascii == end - start {
        return None;
    }
    if ascii > 0 {
        // The last row that starts in the ASCII part (`start + ascii < end`, so not the
        // end offset): the rows before it are ASCII.
        let skip = offsets.partition_point(|o| o.as_index() <= start + ascii) - 1;
        if skip > 0 {
            // SAFETY: a suffix of well-formed offsets, with at least 2 (skip < rows).
            return unsafe { first_bad_row(values, &offsets[skip..]) }
                .map(|(row, err)| (row + skip, err));
        }
    }
    let kernel = dispatch::validate(&values[start..end]);
    // The offsets that start rows inside the span, after the first (which the kernel sees
    // as the span's first byte). Trailing empty rows start at `end`, outside the span.
    let mut starts_end = rows;
    while starts_end > 1 && offsets[starts_end - 1].as_index() == end {
        starts_end -= 1;
    }
    let starts = &offsets[1..starts_end];
    // SAFETY: the offsets ascend (the caller's contract) and the last of `starts` is
    // below `end`, which is at most `values.len()`.
    if kernel.is_ok() && !unsafe { any_continuation(values, starts) } {
        return None;
    }
    locate_bad_row(values, offsets, kernel)
}

/// The length of the longest prefix of `span` made of whole all-ASCII blocks of
/// [`ASCII_BLOCK`] bytes (or all of `span` if it is ASCII): std's `is_ascii`, which is
/// vectorized, a block at a time, stopping at the first block that is not ASCII.
#[inline]
fn ascii_prefix(span: &[u8]) -> usize {
    let blocks = span
        .chunks(ASCII_BLOCK)
        .take_while(|block| block.is_ascii())
        .count();
    (blocks * ASCII_BLOCK).min(span.len())
}

/// Does any of `starts` point at a continuation byte? One load per row, no branch.
///
/// # Safety
/// Every offset of `starts` must be in `0..values.len()`.
#[inline(always)]
unsafe fn any_continuation<O: Offset>(values: &[u8], starts: &[O]) -> bool {
    starts.iter().fold(false, |bad, &o| {
        // SAFETY: `o` is in bounds (the function's contract).
        let byte = unsafe { *values.get_unchecked(o.as_index()) };
        bad | scalar::is_continuation(byte)
    })
}

/// The slow part of [`first_bad_row`], once the kernel or the boundary test failed.
#[cold]
#[inline(never)]
fn locate_bad_row<O: Offset>(
    values: &[u8],
    offsets: &[O],
    kernel: Result<(), usize>,
) -> Option<(usize, Utf8Error)> {
    let rows = offsets.len() - 1;
    let start = offsets[0].as_index();
    let end = offsets[rows].as_index();
    // The first error of the concatenation, as an absolute position (`end`: none).
    let error_at = match kernel {
        Ok(()) => end,
        Err(checkpoint) => scalar::first_error(&values[start..end], checkpoint)
            .map_or(end, |err| start + err.valid_up_to()),
    };
    // The row that holds byte `at` (< end): the last row that starts at or before it.
    let row_at = |at: usize| offsets.partition_point(|o| o.as_index() <= at) - 1;
    // The first row start before `error_at` at a continuation byte (one at `error_at`
    // makes the other candidate anyway) is inside a character of the valid part of the
    // concatenation, which began in the row that holds the byte before it: that row ends
    // inside a character (or starts with a continuation byte itself).
    let starts_before_error = offsets.partition_point(|o| o.as_index() < error_at);
    let continuation_row = offsets[1..starts_before_error.max(1)]
        .iter()
        .find(|o| scalar::is_continuation(values[o.as_index()]))
        .map(|o| row_at(o.as_index() - 1));
    let error_row = (error_at < end).then(|| row_at(error_at));
    let candidate = match (continuation_row, error_row) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b)?,
    };
    // The candidate is bad and the rows before it are not (module documentation); its
    // exact error is that of the row alone.
    let bad = (candidate..rows).find_map(|row| {
        let bytes = &values[offsets[row].as_index()..offsets[row + 1].as_index()];
        crate::from_utf8(bytes).err().map(|err| (row, err))
    });
    debug_assert_eq!(bad.map(|(row, _)| row), Some(candidate));
    bad
}

/// Validates each row of a column in the offsets layout (see [`validate_offsets`]) and
/// records the result in `validity`, Arrow's validity bitmap (bit `i` is bit `i % 8` of
/// byte `i / 8`): set for a row that is UTF-8, cleared for one that is not. Bits after
/// the last row are left as they are. Returns the number of rows that are not UTF-8.
///
/// This is tolerant ingest: bad rows become nulls (and together with an existing null
/// bitmap, `validity[i] &= nulls[i]`).
///
/// ```
/// use utf8check::columnar::valid_rows;
///
/// let values = b"good\xFFbadalso good";
/// let mut validity = [0u8; 1];
/// let bad = valid_rows(values, &[0u32, 4, 8, 17], &mut validity)?;
/// assert_eq!((bad, validity[0]), (1, 0b101));
/// # Ok::<(), utf8check::columnar::ColumnError>(())
/// ```
///
/// # Errors
/// Structural problems are errors, not invalid rows: the [`ColumnError`] of the lowest
/// row whose offsets are negative, decreasing or out of bounds. The bits of the rows
/// before it are then set as on success; the others are left as they were.
///
/// # Panics
/// If `validity` has fewer than `(offsets.len() - 1 + 7) / 8` bytes.
pub fn valid_rows<O: Offset>(
    values: &[u8],
    offsets: &[O],
    validity: &mut [u8],
) -> Result<usize, ColumnError> {
    let rows = offsets.len().saturating_sub(1);
    check_bitmap_len(rows, validity.len());
    let mut invalid = 0;
    let mut first = 0;
    while first < rows {
        let last = rows.min(first + CHUNK_ROWS);
        let chunk = &offsets[first..=last];
        match structure_error(values.len(), chunk) {
            // SAFETY: `structure_error` found no malformed row in the chunk.
            None => invalid += unsafe { mark_rows(values, chunk, validity, first) },
            Some(err) => {
                // SAFETY: the rows before the lowest malformed one are well-formed.
                unsafe { mark_rows(values, &chunk[..=err.row], validity, first) };
                return Err(err.offset_by(first));
            }
        }
        first = last;
    }
    Ok(invalid)
}

/// Sets the validity bits of the rows of `offsets`, the first of which is row `first` of
/// the column; returns the number of invalid rows.
///
/// # Safety
/// `offsets` must be well-formed for `values` (see [`first_bad_row`]), but may hold a
/// single offset (no rows).
unsafe fn mark_rows<O: Offset>(
    values: &[u8],
    offsets: &[O],
    validity: &mut [u8],
    first: usize,
) -> usize {
    let rows = offsets.len() - 1;
    let mut invalid = 0;
    let mut row = 0;
    while row < rows {
        // SAFETY: a suffix of well-formed offsets with at least 2 of them (row < rows).
        match unsafe { first_bad_row(values, &offsets[row..]) } {
            None => {
                set_bits(validity, first + row, first + rows);
                break;
            }
            Some((bad, _)) => {
                set_bits(validity, first + row, first + row + bad);
                clear_bit(validity, first + row + bad);
                invalid += 1;
                row += bad + 1;
            }
        }
    }
    invalid
}

/// Panics unless a bitmap of `bytes` bytes holds `rows` bits.
fn check_bitmap_len(rows: usize, bytes: usize) {
    let needed = rows / 8 + usize::from(rows % 8 != 0);
    assert!(
        bytes >= needed,
        "validity bitmap too short: {rows} rows need {needed} bytes, got {bytes}"
    );
}

/// Sets bits `from..to` of `bitmap` (LSB first).
fn set_bits(bitmap: &mut [u8], from: usize, to: usize) {
    if from >= to {
        return;
    }
    let (first_byte, last_byte) = (from / 8, (to - 1) / 8);
    let low = 0xFFu8 << (from % 8);
    let high = 0xFFu8 >> (7 - (to - 1) % 8);
    if first_byte == last_byte {
        bitmap[first_byte] |= low & high;
    } else {
        bitmap[first_byte] |= low;
        bitmap[first_byte + 1..last_byte].fill(0xFF);
        bitmap[last_byte] |= high;
    }
}

/// Clears bit `at` of `bitmap` (LSB first).
fn clear_bit(bitmap: &mut [u8], at: usize) {
    bitmap[at / 8] &= !(1 << (at % 8));
}

// --- views -----------------------------------------------------------------------------

/// The longest string a view holds inline.
const INLINE_MAX: u32 = 12;

/// For an inline view of each length (the index; 13 to 15 are never used), the bits
/// that are clear in a view whose string is ASCII and whose padding is zero: the high
/// bit of each string byte and every bit of each padding byte, as the view's low and
/// high 64 bits.
const ASCII_AND_PADDING: [(u64, u64); 16] = inline_masks(0x80);

/// For an inline view of each length, the bits of its padding (see
/// [`ASCII_AND_PADDING`]).
const PADDING: [(u64, u64); 16] = inline_masks(0);

/// The masks of [`ASCII_AND_PADDING`] and [`PADDING`]: for each length up to
/// [`INLINE_MAX`], `string` in each string byte, `0xFF` in each padding byte, and zero in
/// the length.
const fn inline_masks(string: u8) -> [(u64, u64); 16] {
    let mut masks = [(0, 0); 16];
    let mut len = 0;
    while len <= INLINE_MAX as usize {
        let mut bytes = [0; 16];
        let mut i = 4;
        while i < 16 {
            bytes[i] = if i < 4 + len { string } else { 0xFF };
            i += 1;
        }
        let mask = u128::from_le_bytes(bytes);
        masks[len] = (mask as u64, (mask >> 64) as u64);
        len += 1;
    }
    masks
}

/// Does the inline view `view` have a bit set in the mask of `masks` for its length?
#[inline(always)]
fn any_set(view: u128, masks: &[(u64, u64); 16]) -> bool {
    let (low, high) = (view as u64, (view >> 64) as u64);
    let (mask_low, mask_high) = masks[(low & 15) as usize];
    (low & mask_low) | (high & mask_high) != 0
}

/// Validates a column of string views in Arrow's `Utf8View` layout: each view is a
/// little-endian `u128` whose low 32 bits are the string's length; up to 12 bytes are
/// stored inline after it, zero-padded; a longer string is described by its first 4
/// bytes (the prefix), a buffer index and an offset, each a `u32`, and lies at
/// `buffers[index][offset..offset + length]`.
///
/// A view is bad if its padding is not zero, its buffer index or byte range is out of
/// bounds, its prefix differs from its data, or its bytes are not UTF-8.
///
/// ```
/// use utf8check::columnar::{validate_views, ColumnErrorKind};
///
/// fn inline(s: &[u8]) -> u128 {
///     let mut bytes = [0u8; 16];
///     bytes[..4].copy_from_slice(&(s.len() as u32).to_le_bytes());
///     bytes[4..4 + s.len()].copy_from_slice(s);
///     u128::from_le_bytes(bytes)
/// }
/// fn long(s: &[u8], buffer: u32, offset: u32) -> u128 {
///     let mut bytes = [0u8; 16];
///     bytes[..4].copy_from_slice(&(s.len() as u32).to_le_bytes());
///     bytes[4..8].copy_from_slice(&s[..4]);
///     bytes[8..12].copy_from_slice(&buffer.to_le_bytes());
///     bytes[12..].copy_from_slice(&offset.to_le_bytes());
///     u128::from_le_bytes(bytes)
/// }
///
/// let data = "a string longer than twelve bytes, über".as_bytes();
/// let views = [inline("née".as_bytes()), long(data, 0, 0), inline(b"")];
/// assert_eq!(validate_views(&views, &[data]), Ok(()));
///
/// let err = validate_views(&[inline(b"ok"), long(data, 1, 0)], &[data]).unwrap_err();
/// assert_eq!((err.row(), err.kind()), (1, ColumnErrorKind::BufferIndexOutOfBounds));
/// let err = validate_views(&[inline(b"ok"), inline(b"\xE2\x82")], &[data]).unwrap_err();
/// assert_eq!(err.to_string(), "row 1: incomplete utf-8 byte sequence from index 0 (truncated sequence)");
/// ```
///
/// # Errors
/// The [`ColumnError`] of the lowest bad view, whatever makes it bad.
pub fn validate_views<B: AsRef<[u8]>>(views: &[u128], buffers: &[B]) -> Result<(), ColumnError> {
    let mut scratch = Batch::new();
    for (batch_index, batch) in views.chunks(VIEW_BATCH).enumerate() {
        if !scratch.is_valid(batch, buffers) {
            let first = batch_index * VIEW_BATCH;
            for (i, &view) in batch.iter().enumerate() {
                check_view(view, buffers).map_err(|e| e.offset_by(first + i))?;
            }
            debug_assert!(
                false,
                "a batch of views was found bad but each view is good"
            );
        }
    }
    Ok(())
}

/// The scratch space of the batched check, reused from batch to batch.
struct Batch {
    /// The copies of the inline views that need a closer look, as little-endian bytes.
    packed: [u128; VIEW_BATCH],
    /// The indices of the batch's inline views that need a closer look.
    closer: [u8; VIEW_BATCH],
    /// The indices of the batch's long views.
    long: [u8; VIEW_BATCH],
}

impl Batch {
    fn new() -> Batch {
        Batch {
            packed: [0; VIEW_BATCH],
            closer: [0; VIEW_BATCH],
            long: [0; VIEW_BATCH],
        }
    }

    /// Are all views of `batch` (at most [`VIEW_BATCH`]) good?
    #[inline]
    fn is_valid<B: AsRef<[u8]>>(&mut self, batch: &[u128], buffers: &[B]) -> bool {
        let (closer, longs) = self.sort(batch);
        if closer > 0 && !self.closer_look(batch, closer) {
            return false;
        }
        longs == 0 || long_views_are_valid(batch, &self.long[..longs], buffers)
    }

    /// Lists the inline views of `batch` that are not ASCII or whose padding is not zero
    /// in `closer`, and the long views in `long`; returns how many of each. No branch per
    /// view: an index is stored in both lists, and only one list's count advances. Two
    /// passes: the first sorts inline from long views, the second keeps the inline views
    /// that need a closer look, so that columns of long strings pay nothing for the
    /// inline test.
    #[inline(always)]
    fn sort(&mut self, batch: &[u128]) -> (usize, usize) {
        let (mut inlines, mut longs) = (0, 0);
        for (i, &view) in batch.iter().enumerate() {
            let inline = view as u32 <= INLINE_MAX;
            self.closer[inlines % VIEW_BATCH] = i as u8;
            inlines += usize::from(inline);
            self.long[longs % VIEW_BATCH] = i as u8;
            longs += usize::from(!inline);
        }
        // In place: the list only shrinks.
        let mut closer = 0;
        for k in 0..inlines {
            let i = self.closer[k];
            self.closer[closer] = i;
            closer += usize::from(any_set(batch[usize::from(i)], &ASCII_AND_PADDING));
        }
        (closer, longs)
    }

    /// Are the first `count` inline views listed in `closer` (at least one) good? Their
    /// padding, then one kernel call over their copies.
    #[inline]
    fn closer_look(&mut self, batch: &[u128], count: usize) -> bool {
        let mut bad_padding = false;
        for (copy, &i) in self.packed.iter_mut().zip(&self.closer[..count]) {
            let view = batch[usize::from(i)];
            bad_padding |= any_set(view, &PADDING);
            *copy = view.to_le();
        }
        !bad_padding && crate::is_valid(self.packed_bytes(count))
    }

    /// The first `views` packed views as bytes, in the order of Arrow's layout.
    #[inline(always)]
    fn packed_bytes(&self, views: usize) -> &[u8] {
        let views = &self.packed[..views];
        // SAFETY: `views` is an initialized slice of `u128`, which has no padding, so its
        // memory is `16 * views.len()` initialized bytes, borrowed for as long as `views`;
        // `u8` has alignment 1 and accepts every value. The values were stored with
        // `to_le`, so the bytes are in little-endian order on every target.
        unsafe { core::slice::from_raw_parts(views.as_ptr().cast::<u8>(), views.len() * 16) }
    }
}

/// Are the long views of `batch` whose indices are `long` (at least one) good?
/// Consecutive long views that are contiguous in one buffer form a span: a view that
/// continues the span costs two comparisons; the span's bounds, bytes and prefixes are
/// checked once it ends ([`span_is_valid`]).
#[inline]
fn long_views_are_valid<B: AsRef<[u8]>>(batch: &[u128], long: &[u8], buffers: &[B]) -> bool {
    let view = |k: usize| batch[usize::from(long[k])];
    // The pending span: its buffer index, start and end, and its first view in `long`.
    let (mut index, mut start, mut end) = span_of(view(0));
    let mut first = 0;
    for k in 1..long.len() {
        let (i, s, e) = span_of(view(k));
        if i == index && s == end {
            end = e;
            continue;
        }
        if !span_is_valid(batch, &long[first..k], buffers, index, start, end) {
            return false;
        }
        (index, start, end, first) = (i, s, e, k);
    }
    span_is_valid(batch, &long[first..], buffers, index, start, end)
}

/// A long view's buffer index, start and end (which cannot overflow in `u64`).
#[inline(always)]
fn span_of(view: u128) -> (u32, u64, u64) {
    let start = u64::from((view >> 96) as u32);
    ((view >> 64) as u32, start, start + u64::from(view as u32))
}

/// Are the long views of `batch` whose indices are `long`, which lie one after the other
/// in `buffers[index][start..end]`, good? The bounds, then one kernel call over the span
/// (which brings it into the cache), then per view the prefix, whose first byte is also
/// the boundary test: no string may start with a continuation byte.
#[inline]
fn span_is_valid<B: AsRef<[u8]>>(
    batch: &[u128],
    long: &[u8],
    buffers: &[B],
    index: u32,
    start: u64,
    end: u64,
) -> bool {
    let Some(buffer) = buffers.get(index as usize) else {
        return false;
    };
    let buffer = buffer.as_ref();
    if end > buffer.len() as u64 {
        return false;
    }
    // `start <= end <= buffer.len()`: both fit in `usize`.
    let (start, end) = (start as usize, end as usize);
    if !crate::is_valid(&buffer[start..end]) {
        return false;
    }
    let mut at = start;
    long.iter().fold(true, |ok, &i| {
        let view = batch[usize::from(i)];
        let prefix = ((view >> 32) as u32).to_le_bytes();
        let good = buffer[at..at + 4] == prefix && !scalar::is_continuation(prefix[0]);
        at += view as u32 as usize;
        ok & good
    })
}

/// The buffer and the byte range of a long view, or why it is out of bounds.
#[inline(always)]
fn long_view<B: AsRef<[u8]>>(
    view: u128,
    buffers: &[B],
) -> Result<(&[u8], usize, usize), ColumnErrorKind> {
    let len = view as u32 as usize;
    let index = (view >> 64) as u32 as usize;
    let offset = (view >> 96) as u32 as usize;
    let buffer = buffers
        .get(index)
        .ok_or(ColumnErrorKind::BufferIndexOutOfBounds)?
        .as_ref();
    match offset.checked_add(len) {
        Some(end) if end <= buffer.len() => Ok((buffer, offset, end)),
        _ => Err(ColumnErrorKind::ViewOutOfBounds),
    }
}

/// Checks one view exactly: the error (as row 0) of a bad view.
#[cold]
fn check_view<B: AsRef<[u8]>>(view: u128, buffers: &[B]) -> Result<(), ColumnError> {
    let len = view as u32;
    let bytes = view.to_le_bytes();
    let data: &[u8] = if len <= INLINE_MAX {
        if any_set(view, &PADDING) {
            return Err(ColumnError::structure(0, ColumnErrorKind::NonZeroPadding));
        }
        &bytes[4..4 + len as usize]
    } else {
        let (buffer, start, end) =
            long_view(view, buffers).map_err(|kind| ColumnError::structure(0, kind))?;
        if buffer[start..start + 4] != bytes[4..8] {
            return Err(ColumnError::structure(0, ColumnErrorKind::PrefixMismatch));
        }
        &buffer[start..end]
    };
    crate::from_utf8(data)
        .map(|_| ())
        .map_err(|e| ColumnError::utf8(0, e))
}

/// Validates each view of a column (see [`validate_views`]) and records the result in
/// `validity` as [`valid_rows`] does: bit `i` set if view `i` is UTF-8, cleared if not,
/// bits after the last view left as they are. Returns the number of views that are not
/// UTF-8.
///
/// ```
/// use utf8check::columnar::valid_views;
///
/// let inline = |s: &[u8]| {
///     let mut bytes = [0u8; 16];
///     bytes[..4].copy_from_slice(&(s.len() as u32).to_le_bytes());
///     bytes[4..4 + s.len()].copy_from_slice(s);
///     u128::from_le_bytes(bytes)
/// };
/// let views = [inline(b"ok"), inline(b"\xC0\xAF"), inline("ça".as_bytes())];
/// let mut validity = [0xF0u8];
/// assert_eq!(valid_views::<&[u8]>(&views, &[], &mut validity), Ok(1));
/// assert_eq!(validity[0], 0xF5);
/// ```
///
/// # Errors
/// Structural problems (padding, buffer index, range, prefix) are errors, not invalid
/// views: the [`ColumnError`] of the lowest such view. The bits of the views before it
/// are then set as on success; the others are left as they were.
///
/// # Panics
/// If `validity` has fewer than `(views.len() + 7) / 8` bytes.
pub fn valid_views<B: AsRef<[u8]>>(
    views: &[u128],
    buffers: &[B],
    validity: &mut [u8],
) -> Result<usize, ColumnError> {
    check_bitmap_len(views.len(), validity.len());
    let mut invalid = 0;
    let mut scratch = Batch::new();
    for (batch_index, batch) in views.chunks(VIEW_BATCH).enumerate() {
        invalid += scratch.mark(batch, buffers, validity, batch_index * VIEW_BATCH)?;
    }
    Ok(invalid)
}

/// The fewest views [`Batch::mark`] checks as a batch; fewer are checked one at a time.
/// Smaller halves pay off when bad views are rare and cost more when they are dense
/// (measured on `fields`: with 16, one bad view in 1000 cost 5.0 against 7.2 ns a view
/// without halving, one in 20 cost 22 against 17; with 64, 5.3 and 19).
const MARK_SPLIT_MIN: usize = 64;

impl Batch {
    /// Sets the validity bits of `views` (at most [`VIEW_BATCH`]; the first is view
    /// `first` of the column) as [`valid_views`] does, and returns how many are not
    /// UTF-8. A batch that fails is halved and each half checked again, down to
    /// [`MARK_SPLIT_MIN`] views, then view by view: a bad view costs a few batch checks
    /// of the views around it rather than a check of each view of its batch (tolerant
    /// ingest of dirty data has bad views in many batches).
    fn mark<B: AsRef<[u8]>>(
        &mut self,
        views: &[u128],
        buffers: &[B],
        validity: &mut [u8],
        first: usize,
    ) -> Result<usize, ColumnError> {
        if self.is_valid(views, buffers) {
            set_bits(validity, first, first + views.len());
            return Ok(0);
        }
        if views.len() >= 2 * MARK_SPLIT_MIN {
            let (low, high) = views.split_at(views.len() / 2);
            let invalid = self.mark(low, buffers, validity, first)?;
            return Ok(invalid + self.mark(high, buffers, validity, first + low.len())?);
        }
        let mut invalid = 0;
        for (i, &view) in views.iter().enumerate() {
            match check_view(view, buffers) {
                Ok(()) => set_bits(validity, first + i, first + i + 1),
                Err(err) if err.kind == ColumnErrorKind::Utf8 => {
                    clear_bit(validity, first + i);
                    invalid += 1;
                }
                Err(err) => return Err(err.offset_by(first + i)),
            }
        }
        Ok(invalid)
    }
}

// --- Parquet PLAIN ---------------------------------------------------------------------

/// Validates the first `num_values` values of a Parquet `PLAIN`-encoded `BYTE_ARRAY` page:
/// each value is preceded by its length as a 4-byte little-endian integer. Every value
/// must be UTF-8 on its own and lie within the page. Returns the number of bytes the
/// values take (lengths included); bytes after them are not read.
///
/// ```
/// use utf8check::columnar::{validate_plain, ColumnErrorKind};
///
/// let mut page = Vec::new();
/// for value in ["Straße", "", "東京"] {
///     page.extend_from_slice(&(value.len() as u32).to_le_bytes());
///     page.extend_from_slice(value.as_bytes());
/// }
/// assert_eq!(validate_plain(&page, 3), Ok(page.len()));
/// assert_eq!(validate_plain(&page, 2), Ok(4 + 7 + 4));
///
/// let err = validate_plain(&page, 4).unwrap_err(); // there is no fourth value
/// assert_eq!((err.row(), err.kind()), (3, ColumnErrorKind::PastEndOfPage));
/// ```
///
/// # Errors
/// The [`ColumnError`] of the lowest bad value: one whose length or bytes run past the
/// end of the page ([`ColumnErrorKind::PastEndOfPage`]) or that is not UTF-8.
pub fn validate_plain(page: &[u8], num_values: usize) -> Result<usize, ColumnError> {
    // The pending run: values `run_first..value`, bytes `run_start..pos` (lengths and
    // values, all lengths ASCII bytes).
    let mut run_first = 0;
    let mut run_start = 0;
    let mut pos = 0;
    let mut value = 0;
    while value < num_values {
        let Some(len) = page
            .get(pos..pos + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        else {
            flush_run(page, run_start, pos, run_first)?;
            return Err(ColumnError::structure(
                value,
                ColumnErrorKind::PastEndOfPage,
            ));
        };
        let start = pos + 4;
        let end = match start.checked_add(len as usize) {
            Some(end) if end <= page.len() => end,
            _ => {
                flush_run(page, run_start, pos, run_first)?;
                return Err(ColumnError::structure(
                    value,
                    ColumnErrorKind::PastEndOfPage,
                ));
            }
        };
        if len & 0x8080_8080 != 0 {
            // A length byte that is not ASCII cannot separate values: flush the run, then
            // validate this value alone.
            flush_run(page, run_start, pos, run_first)?;
            crate::from_utf8(&page[start..end]).map_err(|e| ColumnError::utf8(value, e))?;
            run_first = value + 1;
            run_start = end;
        } else if end - run_start >= PLAIN_RUN {
            flush_run(page, run_start, end, run_first)?;
            run_first = value + 1;
            run_start = end;
        }
        pos = end;
        value += 1;
    }
    flush_run(page, run_start, pos, run_first)?;
    Ok(pos)
}

/// Validates a run of values whose lengths are all ASCII bytes, `page[start..end]`
/// (lengths included), whose first value is `first_value`.
#[inline]
fn flush_run(page: &[u8], start: usize, end: usize, first_value: usize) -> Result<(), ColumnError> {
    let run = &page[start..end];
    match dispatch::validate(run) {
        Ok(()) => Ok(()),
        Err(checkpoint) => plain_error(run, checkpoint, first_value).map_or(Ok(()), Err),
    }
}

/// The error of the value that holds the first error of `run`, a run of values whose
/// lengths are ASCII bytes that the kernel failed at `checkpoint` (see the module
/// documentation: every value that ends before that error is valid).
#[cold]
#[inline(never)]
fn plain_error(run: &[u8], checkpoint: usize, first_value: usize) -> Option<ColumnError> {
    let error_at = scalar::first_error(run, checkpoint)?.valid_up_to();
    let (mut pos, mut value) = (0, first_value);
    // `run` is a sequence of whole (length, value) pairs.
    while pos < run.len() {
        let len = u32::from_le_bytes([run[pos], run[pos + 1], run[pos + 2], run[pos + 3]]);
        let (start, end) = (pos + 4, pos + 4 + len as usize);
        if end > error_at {
            if let Err(err) = crate::from_utf8(&run[start..end]) {
                return Some(ColumnError::utf8(value, err));
            }
            debug_assert!(false, "value {value} holds an error but is UTF-8");
        }
        pos = end;
        value += 1;
    }
    None
}
