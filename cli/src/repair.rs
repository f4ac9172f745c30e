//! `--repair`: writing each input to standard output with every invalid sequence replaced
//! by U+FFFD (or dropped), as `from_utf8_lossy` (or `iconv -c`) would.
//!
//! Both ways of reading walk the input with the library's chunk iterator
//! (`utf8check::utf8_chunks`), so the sequences replaced are exactly those that `--all`
//! lists and that std's lossy decoding replaces.
//!
//! * Bytes in memory (a mapped or read file, [`repair_slice`]) are cut into pieces of
//!   [`PIECE`] bytes, repaired in parallel on the rayon pool a batch at a time and written
//!   in order. A piece with nothing to repair is written straight from the mapping; only
//!   a damaged piece is copied, with its replacements, into a buffer of its own. Lossy
//!   decoding can be done piece by piece when every cut is before a byte that is not a
//!   continuation byte, or after three of them ([`cut`]): no character and no invalid
//!   sequence spans such a point, so each piece's chunks are those of the whole input.
//! * A stream ([`repair_stream`]) is read [`READ_LEN`] bytes at a time; an unfinished
//!   sequence at the end of a read (at most 3 bytes) is moved to the front of the buffer,
//!   so that the next read decides it as a whole.

use std::io::{self, Read, Write};

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

/// A repaired piece: its invalid sequences, and its text when it had any.
struct Piece {
    repaired: u64,
    text: Vec<u8>,
}

/// Repairs `piece`, the whole of which is to be decoded (an unfinished sequence at its end
/// is invalid).
fn repair_piece(piece: &[u8], mode: Mode) -> Piece {
    let mut chunks = utf8_chunks(piece);
    let mut text = Vec::new();
    let mut repaired = 0;
    if let Some(first) = chunks.next() {
        if !first.invalid().is_empty() {
            text.reserve(piece.len() + piece.len() / 8);
            for chunk in std::iter::once(first).chain(chunks) {
                text.extend_from_slice(chunk.valid().as_bytes());
                if !chunk.invalid().is_empty() {
                    repaired += 1;
                    text.extend_from_slice(mode.replacement());
                }
            }
        }
    }
    Piece { repaired, text }
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
    let batch = PIECE * rayon::current_num_threads();
    let mut repaired = 0;
    let mut start = 0;
    while start < data.len() {
        let end = cut(data, start.saturating_add(batch));
        let mut bounds = vec![start];
        while *bounds.last().unwrap() < end {
            let last = *bounds.last().unwrap();
            bounds.push(cut(data, last.saturating_add(PIECE)).min(end));
        }
        let pieces: Vec<(&[u8], Piece)> = bounds
            .par_windows(2)
            .map(|w| {
                let piece = &data[w[0]..w[1]];
                (piece, repair_piece(piece, mode))
            })
            .collect();
        for (bytes, piece) in &pieces {
            repaired += piece.repaired;
            out.write_all(if piece.repaired == 0 {
                bytes
            } else {
                &piece.text
            })?;
        }
        start = end;
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
