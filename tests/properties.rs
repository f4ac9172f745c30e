//! Property tests: random valid text with characters of every encoded length, in
//! ASCII-heavy and non-ASCII-heavy mixes and in long ASCII runs broken by non-ASCII bursts,
//! from empty to about 12 KiB (short inputs, the first block, the main loop's windows of
//! 4 KiB with their all-ASCII blocks and the transitions out of them, the blocks after the
//! last window, and the tail); then the same text
//! mutated (bytes changed, inserted, deleted, the end cut off); and arbitrary bytes.
//! Every API and every kernel in `Kernel::available()` must agree with
//! `core::str::from_utf8` and the `ErrorKind` rule (see `common`).

mod common;

use common::check_against_std;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{select, Index};

/// A character whose UTF-8 encoding has `len` bytes, often one at the edge of its range.
fn char_of_len(len: usize) -> BoxedStrategy<char> {
    let (low, high) = match len {
        1 => (0, 0x7F),
        2 => (0x80, 0x7FF),
        3 => (0x800, 0xFFFF),
        _ => (0x1_0000, 0x10_FFFF),
    };
    let any_in_range = (low..=high).prop_filter_map("surrogate", char::from_u32);
    // The edges of the range, and of the surrogate gap for three bytes.
    let mut edges = vec![low, low + 1, high - 1, high];
    if len == 3 {
        edges.extend([0xD7FF, 0xE000]);
    }
    let edge = select(edges).prop_map(|c| char::from_u32(c).unwrap());
    prop_oneof![4 => any_in_range, 1 => edge].boxed()
}

/// Text of up to `max_chars` characters, with weights for 1-, 2-, 3- and 4-byte ones.
fn text_with(weights: [u32; 4], max_chars: usize) -> impl Strategy<Value = String> {
    let char = prop_oneof![
        weights[0] => char_of_len(1),
        weights[1] => char_of_len(2),
        weights[2] => char_of_len(3),
        weights[3] => char_of_len(4),
    ];
    vec(char, 0..=max_chars).prop_map(String::from_iter)
}

/// Runs of ASCII, long enough to fill whole 64-byte blocks, each followed by a burst of
/// non-ASCII characters: the main loop's ASCII fast path and its way out of it.
fn ascii_runs_and_bursts() -> impl Strategy<Value = String> {
    let run = (0..200usize, text_with([0, 1, 1, 1], 6));
    vec(run, 0..60).prop_map(|runs| {
        let mut text = String::new();
        for (ascii, burst) in runs {
            text.extend((0..ascii).map(|i| char::from(b' ' + (i % 95) as u8)));
            text.push_str(&burst);
        }
        text
    })
}

/// Valid text of every shape: short (most inputs in practice), ASCII-heavy, non-ASCII-heavy,
/// evenly mixed, and ASCII runs with bursts; up to about 12 KiB (three windows of the main
/// loop).
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        text_with([1, 1, 1, 1], 24),
        text_with([12, 1, 1, 1], 1000),
        text_with([12, 1, 1, 1], 8000),
        text_with([1, 3, 3, 3], 600),
        text_with([1, 1, 1, 1], 800),
        text_with([1, 1, 1, 1], 4000),
        ascii_runs_and_bursts(),
    ]
}

/// Any byte, often one that plays a special role in UTF-8.
fn byte() -> impl Strategy<Value = u8> {
    let special = select(vec![
        0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xED,
        0xEF, 0xF0, 0xF1, 0xF4, 0xF5, 0xFF,
    ]);
    prop_oneof![any::<u8>(), special]
}

#[derive(Clone, Debug)]
enum Mutation {
    Set(Index, u8),
    Insert(Index, u8),
    Delete(Index),
    Truncate(Index),
    /// Removes the last byte of a multi-byte character that ASCII follows (one of them,
    /// chosen by the index; nothing if there is none): a sequence left unfinished where
    /// non-ASCII bytes switch to ASCII, which the kernels check apart from the rest.
    CutBeforeAscii(Index),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => (any::<Index>(), byte()).prop_map(|(at, b)| Mutation::Set(at, b)),
        2 => (any::<Index>(), byte()).prop_map(|(at, b)| Mutation::Insert(at, b)),
        2 => any::<Index>().prop_map(Mutation::Delete),
        1 => any::<Index>().prop_map(Mutation::Truncate),
        2 => any::<Index>().prop_map(Mutation::CutBeforeAscii),
    ]
}

fn apply(bytes: &mut Vec<u8>, mutation: &Mutation) {
    let len = bytes.len();
    match mutation {
        Mutation::Insert(at, byte) => bytes.insert(at.index(len + 1), *byte),
        _ if len == 0 => {}
        Mutation::Set(at, byte) => bytes[at.index(len)] = *byte,
        Mutation::Delete(at) => {
            bytes.remove(at.index(len));
        }
        Mutation::Truncate(at) => bytes.truncate(at.index(len)),
        Mutation::CutBeforeAscii(at) => {
            let ends: Vec<usize> = (0..len)
                .filter(|&i| bytes[i] >= 0x80 && bytes.get(i + 1).map_or(true, u8::is_ascii))
                .collect();
            if !ends.is_empty() {
                bytes.remove(ends[at.index(ends.len())]);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn valid_text(text in text()) {
        prop_assert!(utf8check::from_utf8(text.as_bytes()).is_ok());
        check_against_std(text.as_bytes());
    }

    #[test]
    fn mutated_text(text in text(), mutations in vec(mutation(), 1..4)) {
        let mut bytes = text.into_bytes();
        for mutation in &mutations {
            apply(&mut bytes, mutation);
        }
        check_against_std(&bytes);
    }

    #[test]
    fn random_bytes(bytes in vec(any::<u8>(), 0..2000)) {
        check_against_std(&bytes);
    }

    #[test]
    fn mostly_ascii_random_bytes(bytes in vec(prop_oneof![20 => 0u8..0x80, 1 => byte()], 0..12000)) {
        check_against_std(&bytes);
    }

    /// `Display` is std's message with the kind appended.
    #[test]
    fn error_message_extends_std(text in text(), mutation in mutation()) {
        let mut bytes = text.into_bytes();
        apply(&mut bytes, &mutation);
        if let Err(std_err) = core::str::from_utf8(&bytes) {
            let err = common::error_of(&bytes);
            prop_assert_eq!(err.to_string(), format!("{} ({})", std_err, err.kind()));
        }
    }
}
