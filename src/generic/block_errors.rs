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

/// The invalid sequences of `bytes[..BLOCK]` (see [`crate::kernel::BlockErrorsFn`]),
/// written to `out`. (Through a reference rather than returned: the caller keeps them in
/// its walker, and a returned struct was copied there with wide loads of the narrow stores
/// that had just written it, which stalls the load until the stores complete.)
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
        let zero = V::splat(0);
        // Continuation bytes are the signed bytes below `C0` (-64). With the high bit
        // flipped, bytes from `C0` (`E0`, `F0`) up are the signed bytes above `3F` (`5F`,
        // `6F`).
        let lowest_lead = V::splat(0xC0);
        let flip = V::splat(0x80);
        let (below_c0, below_e0, below_f0) = (V::splat(0x3F), V::splat(0x5F), V::splat(0x6F));
        // Bit masks over the block: `continuations`, `incomplete` (the bytes from `C0` up
        // that do not take all the bytes their character needs), and the bytes whose lead
        // byte takes the next one, two, three.
        let (mut continuations, mut incomplete) = (0, 0);
        let (mut takes1, mut takes2, mut takes3) = (0, 0, 0);
        let mut offset = 0;
        while offset < BLOCK {
            let ptr = bytes.as_ptr().add(offset);
            let byte0 = V::load(ptr);
            let byte1 = V::load(ptr.add(1));
            let flipped = byte0.xor(flip);
            let high0 = below_c0.signed_lt(flipped);
            let three0 = below_e0.signed_lt(flipped);
            let four0 = below_f0.signed_lt(flipped);
            // A byte from `C0` up takes the next one if the pair check finds no error
            // between them: that rules out `C0`, `C1` and `F5..FF`, second bytes out of
            // the lead's range, and second bytes that are not continuation bytes (a lead
            // byte before one of those is an error of its own, too short, in the tables).
            // (Testing the second byte for a continuation byte as well made the walk 2% to
            // 3% slower at one error per ~64 bytes.)
            let fits =
                pair_errors(&k, byte1.high_nibbles(), byte0, byte0.high_nibbles()).equal(zero);
            let t1 = high0.and(fits);
            let t2 = t1
                .and(three0)
                .and(V::load(ptr.add(2)).signed_lt(lowest_lead));
            let t3 = t2
                .and(four0)
                .and(V::load(ptr.add(3)).signed_lt(lowest_lead));
            // A byte from `C0` up is incomplete if it took no byte, or is a 3- or 4-byte
            // lead that took fewer than two, or a 4-byte lead that took fewer than three.
            // (`t1` lies within `high0`, `t2` within `three0`, `t3` within `four0`, so each
            // exclusive or is "and not".)
            let short = high0.xor(t1).or(three0.xor(t2)).or(four0.xor(t3));
            continuations |= byte0.signed_lt(lowest_lead).high_bits() << offset;
            incomplete |= short.high_bits() << offset;
            takes1 |= t1.high_bits() << offset;
            takes2 |= t2.high_bits() << offset;
            takes3 |= t3.high_bits() << offset;
            offset += V::BYTES;
        }
        // A lead byte that took fewer bytes than its character needs starts an invalid
        // sequence (of itself and the bytes it took), and so does every continuation byte
        // that no lead byte took.
        let taken = takes1 << 1 | takes2 << 2 | takes3 << 3 | carry;
        let starts = incomplete | (continuations & !taken);
        *out = BlockErrors {
            starts,
            two: takes1 & starts,
            three: takes2 & starts,
            carry: takes1 >> 63 | takes2 >> 62 | takes3 >> 61,
        };
    }
}
