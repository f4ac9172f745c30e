//! The kernels never read outside the slice: inputs of every length up to 256 bytes are
//! placed so that they end exactly where an inaccessible page begins, and so that they
//! start exactly where one ends. A read past either end faults (and fails the test
//! binary); the answers must still match std's.

#![cfg(unix)]

mod common;

use std::ptr;

use common::{check_against_std, multilingual_text};

/// Three pages: inaccessible, readable and writable, inaccessible.
struct GuardedPage {
    base: *mut u8,
    page: usize,
}

impl GuardedPage {
    fn new() -> GuardedPage {
        // SAFETY: `sysconf` has no preconditions.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap();
        // SAFETY: a fresh private anonymous mapping; no existing memory is affected.
        let base = unsafe {
            libc::mmap(
                ptr::null_mut(),
                3 * page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(base, libc::MAP_FAILED, "mmap failed");
        let base = base.cast::<u8>();
        for guard in [0, 2] {
            // SAFETY: the first and third pages belong to the mapping above.
            let rc =
                unsafe { libc::mprotect(base.add(guard * page).cast(), page, libc::PROT_NONE) };
            assert_eq!(rc, 0, "mprotect failed");
        }
        GuardedPage { base, page }
    }

    /// Copies `content` into the accessible page, at its start (`at_start`) or so that it
    /// ends at its end, and returns it there.
    fn place(&mut self, content: &[u8], at_start: bool) -> &[u8] {
        assert!(content.len() <= self.page);
        let offset = if at_start {
            self.page
        } else {
            2 * self.page - content.len()
        };
        // SAFETY: `offset..offset + content.len()` lies in the accessible middle page,
        // which `&mut self` lets us use exclusively; `content` is a different allocation.
        unsafe {
            let dst = self.base.add(offset);
            ptr::copy_nonoverlapping(content.as_ptr(), dst, content.len());
            std::slice::from_raw_parts(dst, content.len())
        }
    }
}

impl Drop for GuardedPage {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `new`; no slice into it outlives
        // `self` (`place` borrows `self`).
        let rc = unsafe { libc::munmap(self.base.cast(), 3 * self.page) };
        assert_eq!(rc, 0, "munmap failed");
    }
}

/// Inputs of exactly `len` bytes: valid and invalid, with the interesting bytes at the
/// start and at the end, where the kernels' partial loads are.
fn contents(len: usize) -> Vec<Vec<u8>> {
    let text = multilingual_text(len + 8, len as u64);
    let mut all = Vec::new();
    // ASCII.
    all.push(
        b"0123456789abcdef"
            .iter()
            .copied()
            .cycle()
            .take(len)
            .collect(),
    );
    // Multilingual text, cut at `len` bytes: valid, or truncated inside a character.
    all.push(text.as_bytes()[..len].to_vec());
    // Valid multilingual text that ends with a complete multi-byte character.
    let mut valid = String::new();
    for c in "é€😀".chars().cycle() {
        if valid.len() + c.len_utf8() > len {
            break;
        }
        valid.insert(0, c);
    }
    let mut padded = vec![b'.'; len - valid.len()];
    padded.extend_from_slice(valid.as_bytes());
    all.push(padded);
    // Valid text with an error, or an incomplete character, in its last bytes.
    for tail in [
        &b"\xFF"[..],
        b"\x80",
        b"\xE0\x80",
        b"\xED\xA0",
        b"\xF4\x90",
        b"\xC3",
        b"\xE2\x82",
        b"\xF0\x9F\x98",
        b"\xE2\x82x",
    ] {
        if tail.len() <= len {
            let mut bytes = text.as_bytes()[..len].to_vec();
            // Cut the text back to a character boundary before the tail.
            let mut cut = len - tail.len();
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            bytes[cut..len - tail.len()].fill(b'.');
            bytes[len - tail.len()..].copy_from_slice(tail);
            all.push(bytes);
        }
    }
    // An error in the first byte, for inputs right after the lower guard page.
    if len > 0 {
        let mut bytes = text.as_bytes()[..len].to_vec();
        bytes[0] = 0x80;
        all.push(bytes);
    }
    all
}

/// Lengths at which the kernels start validating an input through its head and the main
/// loop's grid (`head_end` in `src/generic.rs`: over four blocks with 32- and 64-byte
/// registers; from `windows_from`, 272 bytes with 16-byte registers), those at which the
/// windows' path starts with 32- and 64-byte registers (2,080 and 2,112 bytes), and a
/// page: at the start of a page, the head's register that ends it reads from byte 3
/// (`head_errors`).
const LONG_LENGTHS: [usize; 12] = [
    257, 271, 272, 273, 2079, 2080, 2111, 2112, 2113, 3000, 4095, 4096,
];

#[test]
fn no_read_outside_the_input() {
    let mut guarded = GuardedPage::new();
    for len in (0..=256).chain(LONG_LENGTHS) {
        for content in contents(len) {
            assert_eq!(content.len(), len);
            for at_start in [false, true] {
                // Every kernel and the dispatched functions.
                check_against_std(guarded.place(&content, at_start));
            }
        }
    }
}
