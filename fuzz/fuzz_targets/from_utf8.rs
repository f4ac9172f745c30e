//! `from_utf8`, `from_utf8_mut`, `is_valid` and every kernel this CPU can run, against
//! `core::str::from_utf8`. The input is the text, as is.
//!
//! The input is also checked from its second byte on: a different alignment, and a slice
//! that still ends where the fuzzer's allocation ends, so AddressSanitizer sees any read
//! past it.

#![no_main]

use libfuzzer_sys::fuzz_target;
use utf8check::Kernel;
use utf8check_fuzz::{check, check_error, expected};

fuzz_target!(|data: &[u8]| {
    check_all(data);
    if let Some(rest) = data.get(1..) {
        check_all(rest);
    }
});

fn check_all(bytes: &[u8]) {
    let want = expected(bytes);
    check("from_utf8", bytes, utf8check::from_utf8(bytes), &want);
    assert_eq!(utf8check::is_valid(bytes), want.is_ok(), "is_valid");
    let mut copy = bytes.to_vec();
    let mutable = utf8check::from_utf8_mut(&mut copy).map(|_| ());
    check_error("from_utf8_mut", bytes, mutable, &want);
    for kernel in Kernel::available() {
        check(kernel.name(), bytes, kernel.from_utf8(bytes), &want);
        assert_eq!(kernel.is_valid(bytes), want.is_ok(), "{kernel}: is_valid");
    }
}
