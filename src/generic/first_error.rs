//! The second entry point of every kernel: *where* the first error is, not only whether
//! there is one.
//!
//! [`validate`](super::validate) tests error bits once per window of up to 2 KiB and
//! reports the window (or block) where it first saw trouble, which is all that
//! `from_utf8` needs: the exact error is found once. The chunk walker finds *every*
//! error, and where errors are a few dozen to a few hundred bytes apart (a Latin-1 word in
//! every line, a damaged log) what it pays per error is the search for the next one. So
//! [`first_error_byte`] checks one register at a time from the start, tests each
//! register's error bits at once, and returns the first byte whose bit is set: its cost
//! grows with the distance to the error, and what is left for the scalar decoder is the
//! invalid sequence itself (which starts at most 3 bytes before that byte).

use super::{check_in_memory, check_in_registers, unfinished_before, Constants, Vector};

/// The offset of the first byte of `bytes` whose check reports an error, or `None` if
/// `bytes` is UTF-8 (see [`crate::kernel::FirstErrorFn`] for what the offset says).
///
/// Registers are checked in order, each one's error bits tested before the next is
/// loaded, the first against zeros (the bytes before `bytes` count as ASCII: `bytes`
/// must start at a character boundary for the answer to mean anything) and the last
/// ending exactly at the end of `bytes` (overlapping the one before it; its bytes that
/// were checked already have no error bits). A sequence left unfinished at the end is
/// reported at `bytes.len()`.
///
/// # Safety
/// The CPU must support `V`.
#[inline(always)]
pub(crate) unsafe fn first_error_byte<V: Vector>(bytes: &[u8]) -> Option<usize> {
    let (ptr, len) = (bytes.as_ptr(), bytes.len());
    // SAFETY: the CPU supports `V` (caller's guarantee). Every load is in bounds: see the
    // comment at each one.
    unsafe {
        let k = Constants::<V>::new();
        let zero = V::splat(0);
        if len < V::BYTES {
            // One register, zero-padded: the padding after an unfinished sequence fails
            // the check, at or after `len`. (The partial load reads `bytes[..len]`.)
            let only = V::load_partial(ptr, len);
            return first_set(check_in_registers(&k, only, zero), 0).map(|at| at.min(len));
        }
        // The first register: `bytes[..BYTES]`.
        let first = V::load(ptr);
        if let Some(at) = first_set(check_in_registers(&k, first, zero), 0) {
            return Some(at);
        }
        if len < V::BYTES + 3 {
            // Too short for the loads three bytes back: the last bytes in a zero-padded
            // register (a partial load of `bytes[BYTES..len]`), as above.
            let last = V::load_partial(ptr.add(V::BYTES), len - V::BYTES);
            return first_set(check_in_registers(&k, last, first), V::BYTES).map(|at| at.min(len));
        }
        // From here `len >= BYTES + 3`: every register from `BYTES` on, and the three
        // bytes before it, lie within `bytes`, the last one ending at `len`.
        let last = len - V::BYTES;
        let mut pos = V::BYTES;
        while pos < last {
            if let Some(at) = first_set(check_in_memory(&k, ptr.add(pos)), pos) {
                return Some(at);
            }
            pos += V::BYTES;
        }
        if let Some(at) = first_set(check_in_memory(&k, ptr.add(last)), last) {
            return Some(at);
        }
        // The load of `unfinished_before` reads `bytes[len - BYTES..len]`.
        if !unfinished_before(&k, bytes, len).is_zero() {
            return Some(len);
        }
        None
    }
}

/// `offset` plus the index of the first nonzero byte of `errors`, if there is one.
///
/// # Safety
/// The CPU must support `V`.
#[inline(always)]
unsafe fn first_set<V: Vector>(errors: V, offset: usize) -> Option<usize> {
    // SAFETY: the CPU supports `V` (caller's guarantee).
    let first = unsafe { errors.first_nonzero() };
    (first < V::BYTES).then_some(offset + first)
}
