//! `utf8_chunks` against std's `<[u8]>::utf8_chunks()`: the same chunks (valid text and
//! invalid bytes), `error_kind` equal to the kind the oracle gives at each invalid
//! sequence, and the same `Debug` output. The input is the text, as is; it is also walked
//! from its second byte on (another alignment, still ending at the allocation's end).

#![no_main]

use libfuzzer_sys::fuzz_target;
use utf8check_fuzz::expected;

fuzz_target!(|data: &[u8]| {
    check(data);
    if let Some(rest) = data.get(1..) {
        check(rest);
    }
});

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
}
