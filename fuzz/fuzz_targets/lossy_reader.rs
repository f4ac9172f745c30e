//! `io::LossyReader` against `String::from_utf8_lossy` of the whole stream, read through
//! `read` and through `fill_buf`/`consume`, over an inner reader that cuts the stream
//! where the input says and gets interrupted.
//!
//! Input: a [`Header`] with up to 8 control bytes, then the text. The first control byte
//! is the reader's buffer length (16 plus its value), and also the length of every other
//! read of the caller (1 plus its value; the reads in between are as long as the buffer,
//! which go straight into the caller's buffer); the others are the lengths the inner reader returns, in
//! turn, where 0 is an `Interrupted` error (all zeros: no lengths). No control byte: a
//! 64 KiB buffer and the whole text in one read.

#![no_main]

use std::io::{self, BufRead, Read};

use libfuzzer_sys::fuzz_target;
use utf8check::io::LossyReader;
use utf8check_fuzz::Header;

fuzz_target!(|data: &[u8]| {
    let Header { control, text } = Header::parse(data, 8);
    let want = String::from_utf8_lossy(text).into_owned().into_bytes();
    let (capacity, read_len, lengths) = match control.split_first() {
        Some((&first, lengths)) => (16 + usize::from(first), 1 + usize::from(first), lengths),
        None => (64 << 10, 64 << 10, &[][..]),
    };
    let inner = || Cut {
        text,
        lengths,
        call: 0,
    };

    let mut reader = LossyReader::with_capacity(capacity, inner());
    let mut got = Vec::new();
    let mut buf = vec![0; read_len.max(capacity)];
    for len in [read_len, capacity].into_iter().cycle() {
        match reader.read(&mut buf[..len]) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => panic!("{err}"),
        }
    }
    assert!(got == want, "read: {:?}", String::from_utf8_lossy(&got));

    let mut reader = LossyReader::with_capacity(capacity, inner());
    let mut got = Vec::new();
    loop {
        let data = match reader.fill_buf() {
            Ok(data) => data,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => panic!("{err}"),
        };
        if data.is_empty() {
            break;
        }
        assert!(std::str::from_utf8(data).is_ok(), "fill_buf is not UTF-8");
        assert!(data.len() <= capacity);
        got.extend_from_slice(data);
        let n = data.len();
        reader.consume(n);
    }
    assert!(got == want, "fill_buf: {:?}", String::from_utf8_lossy(&got));
});

/// `text`, returned `lengths[i]` bytes at the `i`-th read (cycled; 0: `Interrupted`), or
/// as much as asked for when there are no lengths but zeros.
struct Cut<'a> {
    text: &'a [u8],
    lengths: &'a [u8],
    call: usize,
}

impl Read for Cut<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let len = match self.lengths {
            // No lengths, or only zeros (which would interrupt every read forever).
            lengths if lengths.iter().all(|&len| len == 0) => buf.len(),
            lengths => {
                self.call += 1;
                match lengths[self.call % lengths.len()] {
                    0 => return Err(io::ErrorKind::Interrupted.into()),
                    len => usize::from(len),
                }
            }
        };
        let n = len.min(buf.len()).min(self.text.len());
        buf[..n].copy_from_slice(&self.text[..n]);
        self.text = &self.text[n..];
        Ok(n)
    }
}
