//! The three nibble tables of the Keiser-Lemire range check.
//!
//! Every error that two adjacent bytes can show is one bit. Looking up the high nibble of
//! the previous byte, the low nibble of the previous byte and the high nibble of the
//! current byte each gives the set of errors that nibble is compatible with; a pair is
//! invalid exactly when some bit survives in all three (see `docs/design.md`). Errors that
//! need three or four bytes of context (a continuation byte where none may stand, or a
//! missing one) are left to the `TWO_CONTINUATIONS` bit and the check of the bytes two
//! and three back in `generic.rs`.

/// A lead byte followed by a byte that is not a continuation byte (`11xxxxxx 0xxxxxxx`,
/// `11xxxxxx 11xxxxxx`).
const TOO_SHORT: u8 = 1 << 0;
/// A continuation byte after an ASCII byte (`0xxxxxxx 10xxxxxx`).
const TOO_LONG: u8 = 1 << 1;
/// `E0 80..9F`: a three-byte encoding of a code point below U+0800.
const OVERLONG_3: u8 = 1 << 2;
/// `F4 90..BF` and `F5..FF 80..BF`: a code point above U+10FFFF.
const TOO_LARGE: u8 = 1 << 3;
/// `ED A0..BF`: a UTF-16 surrogate, U+D800..=U+DFFF.
const SURROGATE: u8 = 1 << 4;
/// `C0 80..BF`, `C1 80..BF`: a two-byte encoding of a code point below U+0080.
const OVERLONG_2: u8 = 1 << 5;
/// `F0 80..8F` (overlong four-byte encoding) and `F5..FF 80..8F` (too large): both have a
/// second byte in `80..8F`, so they share a bit.
const OVERLONG_4_OR_TOO_LARGE_1000: u8 = 1 << 6;
/// Two continuation bytes in a row: an error unless a three- or four-byte lead byte stands
/// two or three bytes back, which `generic.rs` checks separately.
pub(crate) const TWO_CONTINUATIONS: u8 = 1 << 7;

/// The bits that depend on the previous byte's class only, not its value.
const CARRY: u8 = TOO_SHORT | TOO_LONG | TWO_CONTINUATIONS;

/// Indexed by the high nibble of the previous byte.
pub(crate) const PREV_HIGH_NIBBLE: [u8; 16] = [
    // 0_______ (ASCII): a continuation byte may not follow.
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    // 10______ (continuation)
    TWO_CONTINUATIONS,
    TWO_CONTINUATIONS,
    TWO_CONTINUATIONS,
    TWO_CONTINUATIONS,
    // 1100____: C0..CF
    TOO_SHORT | OVERLONG_2,
    // 1101____: D0..DF
    TOO_SHORT,
    // 1110____: E0..EF
    TOO_SHORT | OVERLONG_3 | SURROGATE,
    // 1111____: F0..FF
    TOO_SHORT | TOO_LARGE | OVERLONG_4_OR_TOO_LARGE_1000,
];

/// Indexed by the low nibble of the previous byte.
pub(crate) const PREV_LOW_NIBBLE: [u8; 16] = [
    // ____0000: C0, E0, F0
    CARRY | OVERLONG_2 | OVERLONG_3 | OVERLONG_4_OR_TOO_LARGE_1000,
    // ____0001: C1
    CARRY | OVERLONG_2,
    CARRY,
    CARRY,
    // ____0100: F4
    CARRY | TOO_LARGE,
    // ____0101 and up: F5..FF
    CARRY | TOO_LARGE | OVERLONG_4_OR_TOO_LARGE_1000,
    CARRY | TOO_LARGE | OVERLONG_4_OR_TOO_LARGE_1000,
    CARRY | TOO_LARGE | OVERLONG_4_OR_TOO_LARGE_1000,
    CARRY | TOO_LARGE | OVERLONG_4_OR_TOO_LARGE_1000,
    CARRY | TOO_LARGE | OVERLONG_4_OR_TOO_LARGE_1000,
    CARRY | TOO_LARGE | OVERLONG_4_OR_TOO_LARGE_1000,
    CARRY | TOO_LARGE | OVERLONG_4_OR_TOO_LARGE_1000,
    CARRY | TOO_LARGE | OVERLONG_4_OR_TOO_LARGE_1000,
    // ____1101: ED (and FD)
    CARRY | TOO_LARGE | OVERLONG_4_OR_TOO_LARGE_1000 | SURROGATE,
    CARRY | TOO_LARGE | OVERLONG_4_OR_TOO_LARGE_1000,
    CARRY | TOO_LARGE | OVERLONG_4_OR_TOO_LARGE_1000,
];

/// Indexed by the high nibble of the current byte.
pub(crate) const CUR_HIGH_NIBBLE: [u8; 16] = [
    // 0_______ (ASCII): cannot follow a lead byte.
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    // 1000____: 80..8F
    TOO_LONG | OVERLONG_2 | TWO_CONTINUATIONS | OVERLONG_3 | OVERLONG_4_OR_TOO_LARGE_1000,
    // 1001____: 90..9F
    TOO_LONG | OVERLONG_2 | TWO_CONTINUATIONS | OVERLONG_3 | TOO_LARGE,
    // 101_____: A0..BF
    TOO_LONG | OVERLONG_2 | TWO_CONTINUATIONS | SURROGATE | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTINUATIONS | SURROGATE | TOO_LARGE,
    // 11______: a lead byte cannot follow a lead byte.
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables alone decide every two-byte pair the way RFC 3629 does, apart from the
    /// pairs whose verdict needs a third byte of context (handled by the 2nd/3rd
    /// continuation check).
    #[test]
    fn tables_classify_every_pair() {
        for prev in 0..=255u8 {
            for cur in 0..=255u8 {
                let bits = PREV_HIGH_NIBBLE[usize::from(prev >> 4)]
                    & PREV_LOW_NIBBLE[usize::from(prev & 15)]
                    & CUR_HIGH_NIBBLE[usize::from(cur >> 4)];
                let cont = |b: u8| (0x80..=0xBF).contains(&b);
                if cont(prev) && cont(cur) {
                    assert_eq!(bits, TWO_CONTINUATIONS, "{prev:02X} {cur:02X}");
                    continue;
                }
                let valid_pair = match prev {
                    // ASCII and continuation bytes end a character: any non-continuation
                    // byte may follow (after a continuation, an earlier byte decides).
                    0x00..=0xBF => !cont(cur),
                    // A lead byte: valid iff std accepts it with `cur` and enough
                    // continuation bytes to finish the sequence.
                    _ => (2..=4).any(|n| {
                        let seq = [prev, cur, 0x80, 0x80];
                        core::str::from_utf8(&seq[..n]).is_ok()
                    }),
                };
                assert_eq!(bits == 0, valid_pair, "{prev:02X} {cur:02X}: {bits:08b}");
            }
        }
    }
}
