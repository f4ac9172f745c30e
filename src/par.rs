//! Parallel validation of large buffers on the caller's rayon pool (feature `rayon`).
//!
//! One core validates text at most about as fast as it can read memory, so a buffer of
//! hundreds of MiB goes faster only with more cores. [`from_utf8`], [`from_utf8_mut`] and
//! [`is_valid`] split the buffer into pieces, validate the pieces on the current rayon
//! thread pool (the global one, or the pool whose [`install`](rayon::ThreadPool::install)
//! they run under), and give exactly the answers of their single-threaded namesakes, error
//! included.
//!
//! # Splitting at resynchronization points
//! UTF-8 is self-synchronizing: a character starts at every byte that is not a
//! continuation byte. The nominal split points are multiples of the piece length; each is
//! moved back over at most 3 continuation bytes to the nearest byte that is not one. Split
//! there, the buffer is valid exactly when every piece is, since a valid buffer is
//! cut between characters and valid strings concatenate to a valid string. A piece is
//! validated in place (no copy) by the same SIMD kernel as [`crate::from_utf8`], as if it
//! were a whole input:
//!
//! * its first bytes see "nothing" before them, which is right because the pieces before
//!   it, being valid, end on a character boundary;
//! * a piece that ends inside a sequence fails, which is right because the next byte
//!   starts a character (it is not a continuation byte), so the sequence is cut short in
//!   the whole buffer too.
//!
//! If the 4 bytes up to a nominal split point are all continuation bytes, no character
//! boundary is near. The split then stays where it is: a run of 4 continuation bytes is
//! invalid anyway, the piece on the left cannot end inside an incomplete sequence (its
//! last 3 bytes are continuation bytes, so no sequence starts among them), and the piece
//! on the right starts with a continuation byte, so it fails, and the first error is found
//! before or at its start.
//!
//! # Exact errors
//! Each failing piece records its kernel checkpoint (as an absolute offset) with an atomic
//! `fetch_min`. After the pieces are done, every piece before the lowest failing one
//! passed, so the buffer up to that piece is valid, and the scalar locator
//! (`scalar::exact`) runs on the *whole* buffer from the checkpoint: it sees the bytes
//! of the next piece, so an error at the end of a piece gets std's `error_len` and the
//! right [`ErrorKind`](crate::ErrorKind) (a sequence cut short by the next piece's first
//! byte is [`TooShort`](crate::ErrorKind::TooShort), not `Truncated`). The result does not
//! depend on the thread count, the scheduling, or which piece fails first in time.
//!
//! # Early exit
//! A piece is skipped when a failure before its first byte is already recorded; pieces
//! before the failure always run, so the lowest failure is exact. [`is_valid`] needs no
//! position and skips every piece once any piece has failed. Pieces are small (see
//! below), so work stops within one piece per thread of the failure being found.
//!
//! # Piece length and the serial threshold
//! The pieces are 64 KiB long (`CHUNK_LEN`), and rayon hands out contiguous runs of them,
//! split further only when a thread runs out of work (work stealing). So each thread
//! streams through long contiguous stretches of memory, which the hardware prefetchers
//! follow, while the unit of load balancing and of early exit stays small: at the 10 to
//! 20 GB/s one core validates, a piece takes a few microseconds. The cost per piece (an
//! atomic load, finding the split point, the kernel's start and end) is a few tens of
//! nanoseconds, about 1% of a piece. Nothing is reused after it is read, so the cache
//! sizes do not bound the piece length; smaller pieces only add that fixed cost, larger
//! ones balance buffers of a few MiB worse (work is stolen a piece at a time, so threads
//! can finish up to a piece apart) and react later to an error. The benchmark
//! (`cargo bench --features rayon --bench par`, `docs/benchmarks.md`) measures pieces of
//! 4 KiB to 4 MiB: on 64 MiB they run at the same speed within the noise.
//!
//! # Columns
//! [`validate_offsets`] cuts a column in Arrow's offsets layout into pieces of whole rows
//! of about `CHUNK_LEN` bytes of values each (binary searches of the offsets) and
//! validates each piece as a column of its own with
//! [`columnar::validate_offsets`](crate::columnar::validate_offsets). Rows are
//! independent, so no split point needs adjusting; rayon's `find_map_first` returns the
//! error of the first failing piece in row order, which holds the lowest bad row (every
//! piece before it passed), and skips the pieces after a failure.
//!
//! Buffers shorter than 512 KiB (`SERIAL_BELOW`), and any buffer when the pool has one
//! thread, are validated on the calling thread with no rayon call at all. One core
//! validates 512 KiB in about 25 microseconds; handing half of it to another thread costs
//! microseconds (waking the pool's sleeping threads, stealing, joining), and the same
//! benchmark measures no gain up to 512 KiB, even with the threads already awake, and a
//! clear one from 1 MiB.

use core::sync::atomic::{AtomicUsize, Ordering};

use rayon::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use rayon::slice::ParallelSlice;

use crate::columnar::{ColumnError, Offset};
use crate::error::Utf8Error;
use crate::{dispatch, scalar};

/// The length of the pieces the buffer is split into (before the split points are moved
/// back to character boundaries).
const CHUNK_LEN: usize = 64 * 1024;

/// Buffers shorter than this are validated on the calling thread.
const SERIAL_BELOW: usize = 512 * 1024;

/// Converts a slice of bytes to a string slice, validating pieces of it in parallel on the
/// current rayon pool. Same result as [`crate::from_utf8`] and [`core::str::from_utf8`].
///
/// ```
/// // 1 MiB of text, with an invalid byte near the end.
/// let mut bytes = "ünïcödé ".repeat(100_000).into_bytes();
/// assert!(utf8check::par::from_utf8(&bytes).is_ok());
///
/// bytes[1_000_000] = 0xFF;
/// let err = utf8check::par::from_utf8(&bytes).unwrap_err();
/// assert_eq!(err, utf8check::from_utf8(&bytes).unwrap_err());
/// assert_eq!(err.valid_up_to(), std::str::from_utf8(&bytes).unwrap_err().valid_up_to());
///
/// // The thread count is the pool's:
/// let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// assert_eq!(pool.install(|| utf8check::par::from_utf8(&bytes)), Err(err));
/// ```
///
/// # Errors
/// If `v` is not UTF-8: the [`Utf8Error`] of its *first* invalid sequence, exactly as
/// [`crate::from_utf8`] reports it, whichever piece fails first in time.
pub fn from_utf8(v: &[u8]) -> Result<&str, Utf8Error> {
    if runs_serially(v) {
        return crate::from_utf8(v);
    }
    from_utf8_with_chunk_len(v, CHUNK_LEN)
}

/// Converts a mutable slice of bytes to a mutable string slice, validating in parallel as
/// [`from_utf8`] does. Same result as [`crate::from_utf8_mut`].
///
/// ```
/// let mut bytes = "abc".repeat(300_000).into_bytes();
/// let text = utf8check::par::from_utf8_mut(&mut bytes).unwrap();
/// text.make_ascii_uppercase();
/// assert!(text.starts_with("ABCABC"));
/// ```
///
/// # Errors
/// As [`from_utf8`].
pub fn from_utf8_mut(v: &mut [u8]) -> Result<&mut str, Utf8Error> {
    from_utf8(v)?;
    // SAFETY: `from_utf8` returned `Ok`: `v` is UTF-8.
    Ok(unsafe { core::str::from_utf8_unchecked_mut(v) })
}

/// Is `v` UTF-8? Validates in parallel as [`from_utf8`] does, but stops every thread as
/// soon as any piece fails, since no position is needed. Always equal to
/// [`crate::is_valid`].
///
/// ```
/// let mut bytes = "Ελληνικά ".repeat(100_000).into_bytes();
/// assert!(utf8check::par::is_valid(&bytes));
/// bytes[700_008] = 0x80; // a continuation byte where a space was
/// assert!(!utf8check::par::is_valid(&bytes));
/// ```
pub fn is_valid(v: &[u8]) -> bool {
    if runs_serially(v) {
        return crate::is_valid(v);
    }
    validate(v, CHUNK_LEN, Stop::AtAnyFailure).is_ok()
}

/// [`from_utf8`] with pieces of `chunk_len` bytes (at least 1) and no serial threshold:
/// any input is split and validated on the current rayon pool. For tests and fuzzing,
/// which need many split points in small inputs; the result is the same as
/// [`from_utf8`]'s for every `chunk_len`.
///
/// ```
/// let bytes = "a€😀".repeat(100);
/// for chunk_len in [1, 2, 3, 7, 64] {
///     let result = utf8check::par::from_utf8_with_chunk_len(bytes.as_bytes(), chunk_len);
///     assert_eq!(result, Ok(bytes.as_str()));
/// }
/// let err = utf8check::par::from_utf8_with_chunk_len(b"ab\xE2\x82cd", 3).unwrap_err();
/// assert_eq!((err.valid_up_to(), err.error_len()), (2, Some(2)));
/// ```
///
/// # Errors
/// As [`from_utf8`].
#[doc(hidden)]
pub fn from_utf8_with_chunk_len(v: &[u8], chunk_len: usize) -> Result<&str, Utf8Error> {
    scalar::exact(v, validate(v, chunk_len, Stop::AfterFirstFailure))?;
    // SAFETY: `exact` returned `Ok`: `v` is UTF-8.
    Ok(unsafe { core::str::from_utf8_unchecked(v) })
}

/// Validates a column in Arrow's offsets layout on the current rayon pool: the same
/// result as [`columnar::validate_offsets`](crate::columnar::validate_offsets), error
/// included, for columns of many megabytes.
///
/// ```
/// // A million rows, one of them bad.
/// let mut values = Vec::new();
/// let mut offsets = vec![0i64];
/// for i in 0..1_000_000 {
///     values.extend_from_slice(format!("row {i}: ünïcödé").as_bytes());
///     offsets.push(values.len() as i64);
/// }
/// assert_eq!(utf8check::par::validate_offsets(&values, &offsets), Ok(()));
///
/// values[offsets[777_777] as usize] = 0xA9; // a continuation byte starts row 777777
/// let err = utf8check::par::validate_offsets(&values, &offsets).unwrap_err();
/// assert_eq!(err.row(), 777_777);
/// assert_eq!(Err(err), utf8check::columnar::validate_offsets(&values, &offsets));
/// ```
///
/// # Errors
/// The [`ColumnError`] of the lowest bad row, as
/// [`columnar::validate_offsets`](crate::columnar::validate_offsets) reports it.
pub fn validate_offsets<O: Offset>(values: &[u8], offsets: &[O]) -> Result<(), ColumnError> {
    let span = column_span(offsets);
    if span < SERIAL_BELOW || rayon::current_num_threads() == 1 {
        return crate::columnar::validate_offsets(values, offsets);
    }
    validate_offsets_with_piece_len(values, offsets, CHUNK_LEN)
}

/// [`validate_offsets`] with pieces of about `piece_len` bytes (at least one row each)
/// and no serial threshold, for tests and fuzzing; the result is the same for every
/// `piece_len`.
///
/// ```
/// let offsets = [0u32, 2, 2, 5, 9];
/// for piece_len in [1, 2, 3, 100] {
///     let result = utf8check::par::validate_offsets_with_piece_len(b"ab\xC3\xA9zq\xE2\x82", &offsets, piece_len);
///     assert_eq!(result.unwrap_err().row(), 3);
/// }
/// ```
///
/// # Errors
/// As [`validate_offsets`].
#[doc(hidden)]
pub fn validate_offsets_with_piece_len<O: Offset>(
    values: &[u8],
    offsets: &[O],
    piece_len: usize,
) -> Result<(), ColumnError> {
    let rows = offsets.len().saturating_sub(1);
    if rows == 0 {
        return Ok(());
    }
    let piece_len = piece_len.max(1);
    let start = offsets[0].to_index().unwrap_or(0);
    let pieces = (column_span(offsets) / piece_len).clamp(1, rows);
    // The first row of each piece: the row that holds its nominal first byte. Malformed
    // offsets give arbitrary (but in-range, increasing) rows, which is still correct:
    // each piece checks its own structure.
    let mut firsts = std::vec::Vec::with_capacity(pieces + 1);
    firsts.push(0);
    for piece in 1..pieces {
        let nominal = start.saturating_add(piece.saturating_mul(piece_len));
        let row = offsets[..rows].partition_point(|o| o.to_index().is_some_and(|o| o < nominal));
        let previous = firsts[firsts.len() - 1];
        firsts.push(row.clamp(previous, rows));
    }
    firsts.push(rows);
    firsts
        .par_windows(2)
        .enumerate()
        .find_map_first(|(_, piece)| {
            let (first, last) = (piece[0], piece[1]);
            if first == last {
                return None;
            }
            crate::columnar::validate_offsets(values, &offsets[first..=last])
                .err()
                .map(|err| err.offset_by(first))
        })
        .map_or(Ok(()), Err)
}

/// The number of bytes between the first and the last offset, or the number of rows if
/// they are not a range (malformed offsets).
fn column_span<O: Offset>(offsets: &[O]) -> usize {
    match (offsets.first(), offsets.last()) {
        (Some(first), Some(last)) => match (first.to_index(), last.to_index()) {
            (Some(first), Some(last)) if first <= last => last - first,
            _ => offsets.len() - 1,
        },
        _ => 0,
    }
}

/// Is `v` better validated on the calling thread?
fn runs_serially(v: &[u8]) -> bool {
    v.len() < SERIAL_BELOW || rayon::current_num_threads() == 1
}

/// Which pieces a recorded failure makes unnecessary.
#[derive(Copy, Clone)]
enum Stop {
    /// The pieces after it: the first error must be exact.
    AfterFirstFailure,
    /// All of them: only validity is asked.
    AtAnyFailure,
}

/// Validates `v` in pieces of about `chunk_len` bytes on the current rayon pool: `Ok(())`
/// if it is UTF-8, else `Err(checkpoint)` with the meaning of a kernel's result for the
/// whole of `v` (with [`Stop::AtAnyFailure`], a checkpoint of some failing piece, not
/// necessarily the first).
fn validate(v: &[u8], chunk_len: usize, stop: Stop) -> Result<(), usize> {
    let chunk_len = chunk_len.max(1);
    let len = v.len();
    let pieces = len / chunk_len + usize::from(len % chunk_len != 0);
    // The lowest checkpoint (absolute) of a failed piece, or `usize::MAX`.
    let failure = AtomicUsize::new(usize::MAX);
    (0..pieces).into_par_iter().for_each(|i| {
        // `i * chunk_len < len`: no overflow.
        let nominal = i * chunk_len;
        let start = split_point(v, nominal);
        let skip = match stop {
            Stop::AfterFirstFailure => failure.load(Ordering::Relaxed) < start,
            Stop::AtAnyFailure => failure.load(Ordering::Relaxed) != usize::MAX,
        };
        if skip {
            return;
        }
        let end = split_point(v, nominal.saturating_add(chunk_len));
        if let Err(checkpoint) = dispatch::validate(&v[start..end]) {
            failure.fetch_min(start + checkpoint, Ordering::Relaxed);
        }
    });
    // `for_each` has joined every task, so all their stores are visible.
    match failure.into_inner() {
        usize::MAX => Ok(()),
        checkpoint => Err(checkpoint),
    }
}

/// The split point for the nominal offset `at`: the last byte in `at - 3..=at` that is
/// not a continuation byte (a character starts there), or `at` itself if there is none
/// (then `v` is invalid at or before `at`); `v.len()` at or past the end.
///
/// Split points never decrease as `at` increases: each is within 3 bytes below its
/// nominal offset, and a later nominal offset whose window overlaps an earlier one's
/// finds the earlier split point's byte (or a later one) in its own window.
fn split_point(v: &[u8], at: usize) -> usize {
    if at >= v.len() {
        return v.len();
    }
    (at.saturating_sub(3)..=at)
        .rev()
        .find(|&i| !scalar::is_continuation(v[i]))
        .unwrap_or(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_points_are_character_starts_and_never_decrease() {
        let text = "a€😀éz".repeat(20);
        let mut bytes = text.into_bytes();
        // A run of 5 continuation bytes: no character start near some offsets.
        bytes[40..45].fill(0x80);
        let mut last = 0;
        for at in 0..=bytes.len() + 2 {
            let split = split_point(&bytes, at);
            assert!(split <= at.min(bytes.len()) && split + 3 >= at.min(bytes.len()));
            assert!(split >= last, "split point went back at {at}");
            if split < bytes.len() && split != at {
                assert!(!scalar::is_continuation(bytes[split]));
            }
            last = split;
        }
        assert_eq!(split_point(&bytes, 44), 44);
        assert_eq!(split_point(&bytes, 0), 0);
    }
}
