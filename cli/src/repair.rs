//! `--repair`: writing each input to standard output with every invalid sequence replaced
//! by U+FFFD (or dropped), as `from_utf8_lossy` (or `iconv -c`) would.
//!
//! Both ways of reading walk the input with the library's chunk iterator
//! (`utf8check::utf8_chunks`), so the sequences replaced are exactly those that `--all`
//! lists and that std's lossy decoding replaces.
//!
//! * Bytes in memory (a mapped or read file, [`repair_slice`]) are cut into pieces of
//!   [`PIECE`] bytes, repaired in parallel on the rayon pool a batch (a piece per thread)
//!   at a time and written in order. A piece with nothing to repair is written straight
//!   from the mapping; a damaged piece is written with vectored writes of its valid parts,
//!   still straight from the mapping, and the replacements between them. Lossy
//!   decoding can be done piece by piece when every cut is before a byte that is not a
//!   continuation byte, or after three of them ([`cut`]): no character and no invalid
//!   sequence spans such a point, so each piece's chunks are those of the whole input.
//! * A stream ([`repair_stream`]) is read [`READ_LEN`] bytes at a time; an unfinished
//!   sequence at the end of a read (at most 3 bytes) is moved to the front of the buffer,
//!   so that the next read decides it as a whole.

use std::io::{self, IoSlice, Read, Write};
use std::ops::Range;

use rayon::prelude::*;
use utf8check::{utf8_chunks, ErrorKind};

/// The length of the pieces that bytes in memory are repaired in.
pub const PIECE: usize = 4 << 20;

/// The size of the reads from a stream.
pub const READ_LEN: usize = 1 << 20;

/// U+FFFD REPLACEMENT CHARACTER in UTF-8.
const REPLACEMENT: &[u8] = "\u{FFFD}".as_bytes();

/// What becomes of an invalid sequence.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// Replaced by U+FFFD, as lossy decoding does.
    Replace,
    /// Removed, as `iconv -c` does.
    Drop,
}

impl Mode {
    /// What stands for an invalid sequence in the output.
    fn replacement(self) -> &'static [u8] {
        match self {
            Mode::Replace => REPLACEMENT,
            Mode::Drop => b"",
        }
    }
}

/// Why a stream could not be repaired to its end.
#[derive(Debug)]
pub enum StreamError {
    /// Reading the input failed (other than `Interrupted`, which is retried).
    Read(io::Error),
    /// Writing the output failed.
    Write(io::Error),
}

/// Where a piece that should end near `at` can end: `at` moved past continuation bytes,
/// at most 3 (see the module documentation), or the end of `data`.
pub fn cut(data: &[u8], at: usize) -> usize {
    let mut at = at.min(data.len());
    let stop = (at + 3).min(data.len());
    while at < stop && (data[at] as i8) < -64 {
        at += 1;
    }
    at
}

/// One piece of a batch: where it is, and where its chunks end if it needs repair. The
/// lists are kept from batch to batch.
#[derive(Default)]
struct Slot {
    range: Range<usize>,
    repaired: u64,
    /// Per chunk, the ends of its valid and of its invalid part, relative to the piece.
    ends: Vec<(usize, usize)>,
}

/// Walks `piece`, the whole of which is to be decoded (an unfinished sequence at its end
/// is invalid), recording its chunks in `ends` (left empty if nothing needs repair);
/// returns how many invalid sequences it has.
fn walk_piece(piece: &[u8], ends: &mut Vec<(usize, usize)>) -> u64 {
    ends.clear();
    let mut chunks = utf8_chunks(piece);
    let Some(first) = chunks.next() else {
        return 0;
    };
    if first.invalid().is_empty() {
        return 0;
    }
    let mut pos = 0;
    let mut repaired = 0;
    // (`for_each`, which folds: the library walks dense errors faster that way.)
    std::iter::once(first).chain(chunks).for_each(|chunk| {
        let valid_end = pos + chunk.valid().len();
        pos = valid_end + chunk.invalid().len();
        repaired += u64::from(pos > valid_end);
        ends.push((valid_end, pos));
    });
    repaired
}

/// How many slices one vectored write takes at most.
const WRITE_SLICES: usize = 1024;

/// Writes the repaired `piece`, whose chunks end at `ends`: its valid parts straight from
/// `piece` and the replacements between them, with vectored writes (no copy of the text).
fn write_piece(
    out: &mut dyn Write,
    piece: &[u8],
    ends: &[(usize, usize)],
    mode: Mode,
) -> io::Result<()> {
    let mut bufs: Vec<&[u8]> = Vec::with_capacity(WRITE_SLICES + 2);
    let mut start = 0;
    for &(valid_end, invalid_end) in ends {
        if valid_end > start {
            bufs.push(&piece[start..valid_end]);
        }
        if invalid_end > valid_end && mode == Mode::Replace {
            bufs.push(REPLACEMENT);
        }
        start = invalid_end;
        if bufs.len() >= WRITE_SLICES {
            write_all_bufs(out, &bufs)?;
            bufs.clear();
        }
    }
    write_all_bufs(out, &bufs)
}

/// Writes all of `bufs` with vectored writes, retrying `Interrupted` and continuing after
/// short writes.
fn write_all_bufs(out: &mut dyn Write, bufs: &[&[u8]]) -> io::Result<()> {
    // The first byte not written yet: `bufs[i][offset]`.
    let (mut i, mut offset) = (0, 0);
    while i < bufs.len() {
        let slices: Vec<IoSlice<'_>> = std::iter::once(&bufs[i][offset..])
            .chain(bufs[i + 1..].iter().copied())
            .map(IoSlice::new)
            .collect();
        let mut n = match out.write_vectored(&slices) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => n + offset,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        while i < bufs.len() && n >= bufs[i].len() {
            n -= bufs[i].len();
            i += 1;
        }
        offset = n;
    }
    Ok(())
}

/// Repairs bytes in memory and writes them to `out`; returns how many invalid sequences
/// were replaced or dropped. `progress` is told how many bytes are done after each batch.
///
/// # Errors
/// Writing to `out` failed.
pub fn repair_slice(
    data: &[u8],
    mode: Mode,
    out: &mut dyn Write,
    progress: &mut dyn FnMut(u64),
) -> io::Result<u64> {
    let mut slots: Vec<Slot> = Vec::new();
    slots.resize_with(rayon::current_num_threads().max(1), Slot::default);
    let mut repaired = 0;
    let mut start = 0;
    while start < data.len() {
        let mut used = 0;
        for slot in &mut slots {
            if start == data.len() {
                break;
            }
            let end = cut(data, start.saturating_add(PIECE));
            slot.range = start..end;
            start = end;
            used += 1;
        }
        let batch = &mut slots[..used];
        batch.par_iter_mut().for_each(|slot| {
            slot.repaired = walk_piece(&data[slot.range.clone()], &mut slot.ends);
        });
        for slot in batch.iter() {
            repaired += slot.repaired;
            let piece = &data[slot.range.clone()];
            match slot.repaired {
                0 => out.write_all(piece)?,
                _ => write_piece(out, piece, &slot.ends, mode)?,
            }
        }
        progress(start as u64);
    }
    Ok(repaired)
}

/// Repairs a stream and writes it to `out`; returns how many invalid sequences were
/// replaced or dropped, and the stream's length. `progress` is told how many bytes were
/// read after each read.
///
/// # Errors
/// Reading or writing failed: what was repaired before is written.
pub fn repair_stream(
    reader: &mut dyn Read,
    mode: Mode,
    out: &mut dyn Write,
    progress: &mut dyn FnMut(u64),
) -> Result<(u64, u64), StreamError> {
    let mut buf = vec![0u8; READ_LEN];
    let (mut held, mut total, mut repaired) = (0, 0u64, 0u64);
    loop {
        let n = loop {
            match reader.read(&mut buf[held..]) {
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                result => break result.map_err(StreamError::Read)?,
            }
        };
        total += n as u64;
        progress(total);
        let end = held + n;
        let last = n == 0;
        held = 0;
        for chunk in utf8_chunks(&buf[..end]) {
            out.write_all(chunk.valid().as_bytes())
                .map_err(StreamError::Write)?;
            if chunk.invalid().is_empty() {
                continue;
            }
            if chunk.error_kind() == Some(ErrorKind::Truncated) && !last {
                // The start of a sequence that the next read may complete: the last chunk.
                held = chunk.invalid().len();
                continue;
            }
            repaired += 1;
            out.write_all(mode.replacement())
                .map_err(StreamError::Write)?;
        }
        buf.copy_within(end - held..end, 0);
        if last {
            return Ok((repaired, total));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lossy(data: &[u8], mode: Mode) -> Vec<u8> {
        let mut out = Vec::new();
        for chunk in data.utf8_chunks() {
            out.extend_from_slice(chunk.valid().as_bytes());
            if !chunk.invalid().is_empty() {
                out.extend_from_slice(mode.replacement());
            }
        }
        out
    }

    #[test]
    fn pieces_cut_anywhere_decode_like_the_whole() {
        let mut data = "aé€😀".repeat(3).into_bytes();
        data.extend_from_slice(b"\xE2\x82\xF0\x9F\x80\x80\x80\x80\x80\xE0\x80\xED\xA0\x80z");
        for mode in [Mode::Replace, Mode::Drop] {
            let want = lossy(&data, mode);
            for a in 0..=data.len() {
                for b in a..=data.len() {
                    let (a, b) = (cut(&data, a), cut(&data, b));
                    let mut got = Vec::new();
                    for (x, y) in [(0, a), (a, b), (b, data.len())] {
                        if x < y {
                            got.extend_from_slice(&lossy(&data[x..y], mode));
                        }
                    }
                    assert_eq!(got, want, "cuts at {a} and {b}");
                }
            }
        }
    }

    #[test]
    fn slice_and_stream_agree() {
        let mut data = "ünï\ncödé".repeat(1_000_000).into_bytes();
        for at in [0, 4 << 20, (4 << 20) + 1, (8 << 20) - 1, data.len() - 1] {
            data[at] = 0xE2;
        }
        let count = data
            .utf8_chunks()
            .filter(|c| !c.invalid().is_empty())
            .count() as u64;
        assert!(count >= 5);
        for mode in [Mode::Replace, Mode::Drop] {
            let want = lossy(&data, mode);
            let mut out = Vec::new();
            let n = repair_slice(&data, mode, &mut out, &mut |_| {}).unwrap();
            assert_eq!((n, out == want), (count, true));
            let mut out = Vec::new();
            let (n, len) = repair_stream(&mut &data[..], mode, &mut out, &mut |_| {}).unwrap();
            assert_eq!((n, len, out == want), (count, data.len() as u64, true));
        }
    }
}
