//! The second entry point of every kernel: *which* the first invalid sequence is, not only
//! whether there is one.
//!
//! [`validate_from`](super::validate_from) tests error bits once per window of up to 4
//! KiB and reports the window (or block) where it first saw trouble, which is all that
//! `from_utf8` needs: the exact error is found once. The chunk walker finds *every*
//! error, and where errors are a few dozen to a few hundred bytes apart (a Latin-1 word in
//! every line, a damaged log) what it pays per error is the search for the next one. So
//! [`first_invalid`] checks a block of registers at a time from the start, with one branch
//! per block (the first register with an error bit is chosen by conditional moves: where
//! errors are a few dozen bytes apart, a branch per register was mispredicted at about
//! every other error), and decodes the invalid sequence from the character before the
//! first failing byte (it starts at most 3 bytes before it) in the same call: its cost
//! grows with the distance to the error.

use super::{check_in_memory, check_in_registers, unfinished_before, Constants, Vector, BLOCK};
use crate::scalar::{self, RawError};

/// The first invalid sequence of `bytes`, which starts at a character boundary, or `None`
/// if `bytes` is UTF-8 (see [`crate::kernel::FirstErrorFn`]): the first failing byte
/// ([`first_error_byte`]), then the scalar decoder from the character before it, in the
/// same call.
///
/// # Safety
/// The CPU must support `V`.
#[inline(always)]
pub(crate) unsafe fn first_invalid<V: Vector>(bytes: &[u8]) -> Option<RawError> {
    // SAFETY: the CPU supports `V` (caller's guarantee).
    let at = unsafe { first_error_byte::<V>(bytes) }?;
    let found = scalar::invalid_at(bytes, at);
    // (The decoder runs on to the end of `bytes` if need be, so a failing byte reported
    // too early would still give the right answer, only later: check it here.)
    debug_assert!(
        found.is_some_and(|(start, _)| start <= at && at <= start + 3),
        "the kernel failed at {at}, but the decoder found {found:?}"
    );
    found
}

/// The offset of the first byte of `bytes` whose check reports an error (the first
/// invalid sequence starts at one of the bytes `at - 3 ..= at`), or `None` if `bytes` is
/// UTF-8.
///
/// Registers are checked in order, the whole 64-byte blocks one block at a time (its
/// error bits tested before the next block is loaded, [`first_in_block`]) and the
/// registers after them one at a time; the first register against zeros (the bytes
/// before `bytes` count as ASCII: `bytes` must start at a character boundary for the
/// answer to mean anything) and the last ending exactly at the end of `bytes`
/// (overlapping the one before it; its bytes that were checked already have no error
/// bits). A sequence left unfinished at the end is reported at `bytes.len()`.
///
/// # Safety
/// The CPU must support `V`.
#[inline(always)]
unsafe fn first_error_byte<V: Vector>(bytes: &[u8]) -> Option<usize> {
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
        let first_bytes = V::load(ptr);
        let first = check_in_registers(&k, first_bytes, zero);
        if len < V::BYTES + 3 {
            if let Some(at) = first_set(first, 0) {
                return Some(at);
            }
            // Too short for the loads three bytes back: the last bytes in a zero-padded
            // register (a partial load of `bytes[BYTES..len]`), as above.
            let last = V::load_partial(ptr.add(V::BYTES), len - V::BYTES);
            return first_set(check_in_registers(&k, last, first_bytes), V::BYTES)
                .map(|at| at.min(len));
        }
        // From here `len >= BYTES + 3`: every register from `BYTES` on, and the three
        // bytes before it, lie within `bytes`, the last one ending at `len`.
        let last = len - V::BYTES;
        let mut pos = V::BYTES;
        if len >= BLOCK {
            // A block of registers at a time, with one branch: where errors are a few
            // dozen bytes apart, a branch per register is mispredicted at about every
            // other error. (Each block ends by `len`; its registers after the first, and
            // the three bytes before each, start at `BYTES - 3` or later.)
            let at = first_in_block(&k, ptr, 0, first);
            if at < BLOCK {
                return Some(at);
            }
            pos = BLOCK;
            while pos + BLOCK <= len {
                let at = first_in_block(&k, ptr, pos, check_in_memory(&k, ptr.add(pos)));
                if at < BLOCK {
                    return Some(pos + at);
                }
                pos += BLOCK;
            }
        } else if let Some(at) = first_set(first, 0) {
            return Some(at);
        }
        // The registers after the last block (all but the first, for inputs shorter
        // than a block).
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

/// The offset in the block of `BLOCK` bytes at `pos` of its first byte with an error bit,
/// `BLOCK` if none has one, where `first` holds the error bits of its first register:
/// the registers' [`Vector::first_nonzero`] taken from the last register to the first,
/// each one that has an error bit replacing the answer (a conditional move, not a branch).
///
/// # Safety
/// `pos + BYTES - 3 .. pos + BLOCK` must be in bounds; the CPU must support `V`.
#[inline(always)]
unsafe fn first_in_block<V: Vector>(
    k: &Constants<V>,
    ptr: *const u8,
    pos: usize,
    first: V,
) -> usize {
    // SAFETY: the CPU supports `V`; each register from the second on and the three bytes
    // before it lie within `pos + BYTES - 3 .. pos + BLOCK` (caller's guarantee).
    unsafe {
        let mut at = BLOCK;
        let mut offset = BLOCK;
        while offset > V::BYTES {
            offset -= V::BYTES;
            let found = check_in_memory(k, ptr.add(pos + offset)).first_nonzero();
            if found < V::BYTES {
                at = offset + found;
            }
        }
        let found = first.first_nonzero();
        if found < V::BYTES {
            at = found;
        }
        at
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
