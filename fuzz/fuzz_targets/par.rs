//! `utf8check::par` against `core::str::from_utf8`, with pieces small enough that short
//! inputs are really split: `par::from_utf8_with_chunk_len`, the hidden hook that forces
//! the piece length, and the public `par::from_utf8`, `from_utf8_mut` and `is_valid`.
//!
//! Input: a [`Header`] with at most 1 control byte, the piece length minus 1 (so 1 to
//! 256; 1 when absent), then the text.

#![no_main]

use libfuzzer_sys::fuzz_target;
use utf8check::par;
use utf8check_fuzz::{check, check_error, expected, Header};

fuzz_target!(|data: &[u8]| {
    let Header { control, text } = Header::parse(data, 1);
    let chunk_len = control.first().map_or(1, |&b| usize::from(b) + 1);
    let want = expected(text);
    let what = format!("par::from_utf8_with_chunk_len({chunk_len})");
    check(
        &what,
        text,
        par::from_utf8_with_chunk_len(text, chunk_len),
        &want,
    );
    check("par::from_utf8", text, par::from_utf8(text), &want);
    let mut copy = text.to_vec();
    let mutable = par::from_utf8_mut(&mut copy).map(|_| ());
    check_error("par::from_utf8_mut", text, mutable, &want);
    assert_eq!(par::is_valid(text), want.is_ok(), "par::is_valid");
});
