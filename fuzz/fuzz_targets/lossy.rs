//! `from_utf8_lossy` and `from_utf8_lossy_owned` against `String::from_utf8_lossy`: the
//! same text, borrowed exactly when the input is UTF-8 (and then the input itself), and
//! the owned version reusing the allocation of valid input. The input is the text.

#![no_main]

use std::borrow::Cow;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let want = String::from_utf8_lossy(data);
    let got = utf8check::from_utf8_lossy(data);
    assert_eq!(got, want);
    let valid = core::str::from_utf8(data).is_ok();
    match got {
        Cow::Borrowed(text) => {
            assert!(valid, "borrowed, but the input is not UTF-8");
            assert!(data.is_empty() || text.as_ptr() == data.as_ptr());
        }
        Cow::Owned(_) => assert!(!valid, "owned, but the input is UTF-8"),
    }
    let bytes = data.to_vec();
    let ptr = bytes.as_ptr();
    let owned = utf8check::from_utf8_lossy_owned(bytes);
    assert_eq!(owned, want);
    if valid && !data.is_empty() {
        assert_eq!(
            owned.as_ptr(),
            ptr,
            "the allocation of valid input is not reused"
        );
    }
});
