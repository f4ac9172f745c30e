//! The third entry point of every SIMD kernel: *all* the invalid sequences of a 64-byte
//! block at once, for the chunk walker where errors are dense (see
//! [`crate::kernel::BlockErrorsFn`]).
//!
//! Where errors come every few dozen bytes, finding them one at a time costs a kernel call,
//! a mispredicted branch or two and a few characters decoded per error, 15 to 25 ns. But
//! std's decoder splits bytes into characters and invalid sequences by a local rule, so
//! the whole split of a block can be computed with register operations, no branch per
//! error:
//!
//! * A byte that is not a continuation byte always starts something: a character or an
//!   invalid sequence. The decoder never takes it into the sequence before it.
//! * A lead byte `C2..F4` takes the next byte if it is in the range that the lead allows
//!   (`E0 A0..BF`, `ED 80..9F`, `F0 90..BF`, `F4 80..8F`, else `80..BF`): exactly when the
//!   Keiser-Lemire pair check finds no error between the two. A 3- or 4-byte lead that took
//!   its second byte takes a third if it is a continuation byte, and a 4-byte lead a
//!   fourth. Other bytes from `C0` up (`C0`, `C1`, `F5..FF`) take none.
//! * A lead byte that took fewer bytes than its character needs starts an invalid sequence
//!   of itself and the bytes it took (the maximal subpart), and so does every continuation
//!   byte that no lead byte before it took.
//!
//! So with bit masks over the block (`takes1`: the lead takes the byte after it, `takes2`,
//! `takes3`), the bytes taken are `takes1 << 1 | takes2 << 2 | takes3 << 3`, and the
//! starts of invalid sequences follow with a few logical operations. The walker then goes
//! from one error to the next with a `trailing_zeros`.

use super::{pair_errors, Constants, Vector, BLOCK};
use crate::kernel::{BlockErrors, BLOCK_READ};

/// `0xFF` for the high nibbles of continuation bytes (`80..BF`).
const CONTINUATION_HIGH_NIBBLE: [u8; 16] =
    [0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0];

/// The invalid sequences of `bytes[..BLOCK]` (see [`crate::kernel::BlockErrorsFn`]).
///
/// # Safety
/// The CPU must support `V`.
#[inline(always)]
pub(crate) unsafe fn block_errors<V: Vector>(
    bytes: &[u8; BLOCK_READ],
    carry: u64,
    out: &mut BlockErrors,
) {
    // SAFETY: the CPU supports `V` (caller's guarantee); every load reads
    // `offset .. offset + 3 + BYTES`, at most `BLOCK + 3 = BLOCK_READ` bytes.
    unsafe {
        let k = Constants::<V>::new();
        let continuation = V::table(&CONTINUATION_HIGH_NIBBLE);
        let is_continuation = |v: V| continuation.lookup(v.high_nibbles()).nonzero_bits();
        let above = |v: V, byte: u8| v.saturating_sub(V::splat(byte)).nonzero_bits();
        // Bit masks over the block: `continuations`, `high` (`C0..FF`), `three` (`E0..FF`),
        // `four` (`F0..FF`), and the bytes whose lead byte takes the next one, two, three.
        let (mut continuations, mut high, mut three, mut four) = (0, 0, 0, 0);
        let (mut takes1, mut takes2, mut takes3) = (0, 0, 0);
        let mut offset = 0;
        while offset < BLOCK {
            let ptr = bytes.as_ptr().add(offset);
            let byte0 = V::load(ptr);
            let byte1 = V::load(ptr.add(1));
            let high0 = above(byte0, 0xBF);
            let three0 = above(byte0, 0xDF);
            let four0 = above(byte0, 0xEF);
            // A byte from `C0` up takes the next one where the pair check finds no error
            // between them (which rules out `C0`, `C1` and `F5..FF` as well).
            let next_fits = is_continuation(byte1) & !pair_errors(&k, byte1, byte0).nonzero_bits();
            let t1 = high0 & next_fits;
            let t2 = t1 & three0 & is_continuation(V::load(ptr.add(2)));
            let t3 = t2 & four0 & is_continuation(V::load(ptr.add(3)));
            continuations |= is_continuation(byte0) << offset;
            high |= high0 << offset;
            three |= three0 << offset;
            four |= four0 << offset;
            takes1 |= t1 << offset;
            takes2 |= t2 << offset;
            takes3 |= t3 << offset;
            offset += V::BYTES;
        }
        let complete = (takes1 & !three) | (takes2 & !four) | takes3;
        let taken = takes1 << 1 | takes2 << 2 | takes3 << 3 | carry;
        let starts = (high & !complete) | (continuations & !taken);
        *out = BlockErrors {
            starts,
            two: takes1 & starts,
            three: takes2 & starts,
            carry: takes1 >> 63 | takes2 >> 62 | takes3 >> 61,
        };
    }
}
