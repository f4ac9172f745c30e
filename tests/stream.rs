//! `Validator` against `core::str::from_utf8` on the whole stream, for every way of
//! cutting it into chunks that these tests can think of, and for every kernel.

mod common;

use common::{answer_of, expected, kernels, multilingual_text, Answer, SAMPLES};
use proptest::prelude::*;
use utf8check::{Kernel, Utf8Error, Validator};

/// Feeds `input` to a validator running `kernel`, cut at `cuts` (sorted offsets into
/// `input`; repeated offsets make empty chunks). Checks the first error against
/// `expected`, that later calls repeat it, and `valid_up_to` after every chunk.
#[track_caller]
fn check_cuts(input: &[u8], cuts: &[usize], kernel: Kernel, expected: &Answer) {
    let mut validator = Validator::with_kernel(kernel);
    let mut start = 0;
    let mut first_error: Option<Utf8Error> = None;
    for end in cuts.iter().copied().chain([input.len()]) {
        let result = validator.update(&input[start..end]);
        match (first_error, result) {
            (None, Ok(())) => {
                // Everything fed so far, less a character it ends inside of.
                let fed = &input[..end];
                let confirmed = std::str::from_utf8(fed).map_or_else(|e| e.valid_up_to(), |_| end);
                assert_eq!(
                    validator.valid_up_to(),
                    confirmed,
                    "{}: valid_up_to after {end} bytes, cuts {cuts:?}, input {}",
                    kernel.name(),
                    common::hex(input, end)
                );
            }
            (None, Err(err)) => {
                first_error = Some(err);
                assert_eq!(validator.valid_up_to(), err.valid_up_to());
            }
            (Some(first), again) => assert_eq!(again, Err(first), "the error must stick"),
        }
        start = end;
    }
    let got = match first_error {
        Some(err) => {
            assert_eq!(
                validator.clone().finish(),
                Err(err),
                "finish repeats the error"
            );
            Err(answer_of(&err))
        }
        None => validator.finish().map_err(|err| answer_of(&err)),
    };
    assert_eq!(
        &got,
        expected,
        "{}: cuts {cuts:?}, input {}",
        kernel.name(),
        common::hex(input, 0)
    );
}

/// Checks `input` cut at every pair of positions (one or two cuts, so every character
/// is split in every way, empty chunks included), whole, and in 1-byte chunks.
fn check_every_split(input: &[u8], kernels: &[Kernel]) {
    let expected = expected(input);
    let len = input.len();
    let one_byte_chunks: Vec<usize> = (0..=len).collect();
    for &kernel in kernels {
        check_cuts(input, &[], kernel, &expected);
        check_cuts(input, &one_byte_chunks, kernel, &expected);
        for first in 0..=len {
            for second in first..=len {
                check_cuts(input, &[first, second], kernel, &expected);
            }
        }
    }
}

/// Bytes at the edges of every class of the UTF-8 grammar.
const INTERESTING: [u8; 25] = [
    0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC,
    0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
];

#[test]
fn every_four_interesting_bytes_cut_every_way() {
    // 25^4 inputs, each cut at every subset of its 3 inner positions, after a prefix that
    // keeps the error offset away from zero.
    let kernels = kernels();
    let mut input = *b"ab....";
    let mut cuts = Vec::with_capacity(3);
    for a in INTERESTING {
        for b in INTERESTING {
            for c in INTERESTING {
                for d in INTERESTING {
                    input[2..].copy_from_slice(&[a, b, c, d]);
                    let expected = expected(&input);
                    for &kernel in &kernels {
                        for mask in 0..8u8 {
                            cuts.clear();
                            cuts.extend((0..3).filter(|i| mask & (1 << i) != 0).map(|i| 3 + i));
                            check_cuts(&input, &cuts, kernel, &expected);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn every_split_of_short_texts() {
    let kernels = kernels();
    for sample in SAMPLES {
        check_every_split(sample.as_bytes(), &kernels);
    }
    // Every pair of characters of every length, and each cut short or broken.
    let chars = [
        "a",
        "é",
        "€",
        "😀",
        "\u{7FF}",
        "\u{800}",
        "\u{FFFF}",
        "\u{10FFFF}",
    ];
    for first in chars {
        for second in chars {
            let pair = [first.as_bytes(), second.as_bytes()].concat();
            check_every_split(&pair, &kernels);
            for cut in 1..pair.len() {
                check_every_split(&pair[..cut], &kernels);
                let mut broken = pair.clone();
                broken.insert(cut, b'!');
                check_every_split(&broken, &kernels);
                broken[cut] = 0x80;
                check_every_split(&broken, &kernels);
            }
        }
    }
}

#[test]
fn long_text_in_chunks_of_every_small_size() {
    // Chunks of 1 to 200 bytes over text long enough for the kernels' 64-byte blocks,
    // valid and with an error near the end.
    let kernels = kernels();
    let text = multilingual_text(2000, 7).into_bytes();
    let mut broken = text.clone();
    let at = (1900..).find(|&i| broken[i] >= 0xC0).unwrap();
    broken[at + 1] = b'x';
    for input in [&text, &broken] {
        let expected = expected(input);
        for &kernel in &kernels {
            for size in 1..=200 {
                let cuts: Vec<usize> = (size..input.len()).step_by(size).collect();
                check_cuts(input, &cuts, kernel, &expected);
            }
        }
    }
}

#[test]
fn validator_is_small_clone_and_debug() {
    let mut validator = Validator::default();
    validator.update(b"ab\xE2\x82").unwrap();
    let copy = validator.clone();
    assert_eq!(validator.finish().unwrap_err().valid_up_to(), 2);
    assert!(format!("{copy:?}").contains("Validator"));
    assert!(std::mem::size_of::<Validator>() <= 48);
}

#[test]
#[should_panic(expected = "not supported")]
fn with_kernel_refuses_an_unsupported_kernel() {
    let unsupported = [Kernel::Avx2, Kernel::Sse41, Kernel::Neon, Kernel::Avx512]
        .into_iter()
        .find(|kernel| !kernel.is_supported())
        .expect("NEON and the x86 kernels exclude each other");
    let _ = Validator::with_kernel(unsupported);
}

/// Valid multilingual text, possibly mutated, or random bytes.
fn input() -> impl Strategy<Value = Vec<u8>> {
    let text = (0..400usize, any::<u64>())
        .prop_map(|(len, seed)| multilingual_text(len, seed).into_bytes());
    let mutated = (
        text.clone(),
        prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0..3u8), 1..4),
    )
        .prop_map(|(mut bytes, edits)| {
            for (index, byte, op) in edits {
                if bytes.is_empty() {
                    bytes.push(byte);
                    continue;
                }
                let at = index.index(bytes.len());
                match op {
                    0 => bytes[at] = byte,
                    1 => bytes.insert(at, byte),
                    _ => drop(bytes.remove(at)),
                }
            }
            bytes
        });
    prop_oneof![
        text,
        mutated,
        prop::collection::vec(any::<u8>(), 0..300),
        prop::collection::vec(prop::sample::select(INTERESTING.to_vec()), 0..40),
    ]
}

/// An input and sorted cut positions in it (repeats are empty chunks).
fn cut_input() -> impl Strategy<Value = (Vec<u8>, Vec<usize>)> {
    input().prop_flat_map(|bytes| {
        let len = bytes.len();
        let cuts = prop::collection::vec(0..=len, 0..12).prop_map(|mut cuts| {
            cuts.sort_unstable();
            cuts
        });
        (Just(bytes), cuts)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_cuts_match_from_utf8((bytes, cuts) in cut_input()) {
        let expected = expected(&bytes);
        for kernel in Kernel::available() {
            check_cuts(&bytes, &cuts, kernel, &expected);
        }
        // The dispatched kernel, through `new`.
        let mut validator = Validator::new();
        let mut start = 0;
        let mut result = Ok(());
        for end in cuts.iter().copied().chain([bytes.len()]) {
            result = result.and_then(|()| validator.update(&bytes[start..end]));
            start = end;
        }
        let got = result.and_then(|()| validator.finish());
        prop_assert_eq!(got.map_err(|e| answer_of(&e)), expected);
    }
}
