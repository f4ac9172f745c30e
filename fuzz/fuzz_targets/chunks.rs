//! `utf8_chunks` against std's `<[u8]>::utf8_chunks()`: the same chunks (valid text and
//! invalid bytes), `error_kind` equal to the kind the oracle gives at each invalid
//! sequence, and the same `Debug` output; the same chunks by `fold` (which walks dense
//! errors in a loop of its own), from the start and after the first third by `next`. The
//! input is the text, as is; it is also walked from its second byte on (another
//! alignment, still ending at the allocation's end).

#![no_main]

use libfuzzer_sys::fuzz_target;
use utf8check_fuzz::expected;

fuzz_target!(|data: &[u8]| {
    check(data);
    if let Some(rest) = data.get(1..) {
        check(rest);
    }
});

/// A chunk as a comparable value.
fn parts(chunk: utf8check::Utf8Chunk<'_>) -> (&str, &[u8], Option<utf8check::ErrorKind>) {
    (chunk.valid(), chunk.invalid(), chunk.error_kind())
}

fn check(bytes: &[u8]) {
    let mut ours = utf8check::utf8_chunks(bytes);
    assert_eq!(
        format!("{ours:?}"),
        format!("{:?}", bytes.utf8_chunks()),
        "Debug"
    );
    let mut offset = 0;
    for want in bytes.utf8_chunks() {
        let got = ours.next().expect("utf8_chunks ended early");
        assert_eq!(got.valid(), want.valid(), "valid part at {offset}");
        assert_eq!(got.invalid(), want.invalid(), "invalid part at {offset}");
        offset += want.valid().len();
        let kind = match expected(&bytes[offset..]) {
            Ok(()) => None,
            Err((at, error_len, kind)) => {
                assert_eq!(at, 0);
                assert_eq!(
                    error_len.unwrap_or(bytes.len() - offset),
                    want.invalid().len()
                );
                Some(kind)
            }
        };
        assert_eq!(got.error_kind(), kind, "error_kind at {offset}");
        offset += want.invalid().len();
    }
    assert!(
        ours.next().is_none(),
        "utf8_chunks has more chunks than std"
    );
    assert!(ours.next().is_none(), "utf8_chunks is not fused");

    let mut by_next = Vec::new();
    for chunk in utf8check::utf8_chunks(bytes) {
        by_next.push(parts(chunk));
    }
    let mut folded = Vec::new();
    utf8check::utf8_chunks(bytes).for_each(|chunk| folded.push(parts(chunk)));
    assert_eq!(folded, by_next, "fold");
    let mut chunks = utf8check::utf8_chunks(bytes);
    let mut mixed: Vec<_> = chunks.by_ref().take(by_next.len() / 3).map(parts).collect();
    chunks.for_each(|chunk| mixed.push(parts(chunk)));
    assert_eq!(mixed, by_next, "fold after next");
}
