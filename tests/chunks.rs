//! `utf8_chunks`, `from_utf8_lossy` and `from_utf8_lossy_owned` against std's
//! `<[u8]>::utf8_chunks()` and `String::from_utf8_lossy`, with `error_kind` against the
//! `ErrorKind` rule of `common::expected_kind`:
//!
//! * every 1- and 2-byte sequence, and sampled 3- and 4-byte ones, at every register and
//!   block boundary of the kernels (16-, 32- and 64-byte registers, 64-byte blocks, the
//!   256-byte group of the main loop) in ASCII and in non-ASCII text, and the same after
//!   an earlier error, where the walk runs the scalar decoder and then growing kernel
//!   windows (whose boundaries are swept too);
//! * mutated multilingual text, random bytes, errors at every density, long buffers;
//! * proptest on mutated text and arbitrary bytes.
//!
//! `UTF8CHECK_SMALL_TESTS=1` (unoptimized and sanitizer runs) samples the placements and
//! runs fewer random cases.

// std's `utf8_chunks` (Rust 1.79) is the oracle; the tests build with the current compiler,
// not the library's MSRV.
#![allow(clippy::incompatible_msrv)]

mod common;

use std::borrow::Cow;

use common::{expected_kind, hex, multilingual_text, small_tests, Rng};
use proptest::collection::vec;
use proptest::prelude::*;
use utf8check::{from_utf8_lossy, from_utf8_lossy_owned, utf8_chunks, ErrorKind};

/// A chunk as a comparable value: valid text, invalid bytes, kind.
type Chunk<'a> = (&'a str, &'a [u8], Option<ErrorKind>);

/// std's chunks of `bytes`, each with the kind from the rule (not the library's).
fn std_chunks(bytes: &[u8]) -> Vec<Chunk<'_>> {
    let mut out = Vec::new();
    let mut offset = 0;
    for chunk in bytes.utf8_chunks() {
        offset += chunk.valid().len();
        let kind = (!chunk.invalid().is_empty()).then(|| {
            let rest = &bytes[offset..];
            let error_len = core::str::from_utf8(rest).unwrap_err().error_len();
            assert_eq!(error_len.unwrap_or(rest.len()), chunk.invalid().len());
            expected_kind(rest, error_len)
        });
        offset += chunk.invalid().len();
        out.push((chunk.valid(), chunk.invalid(), kind));
    }
    out
}

/// Checks every API of this file on `bytes` against std.
#[track_caller]
fn check(bytes: &[u8]) {
    // By `next` (a `for` loop).
    let mut ours: Vec<Chunk<'_>> = Vec::new();
    for c in utf8_chunks(bytes) {
        ours.push((c.valid(), c.invalid(), c.error_kind()));
    }
    let want = std_chunks(bytes);
    // The same chunks by `fold` (which walks dense errors in a loop of its own), from the
    // start and after half of them were taken by `next`.
    let mut folded = Vec::new();
    utf8_chunks(bytes).for_each(|c| folded.push((c.valid(), c.invalid(), c.error_kind())));
    assert_eq!(
        folded,
        ours,
        "utf8_chunks: fold differs from next\n  input {}",
        hex(bytes, 0)
    );
    let mut chunks = utf8_chunks(bytes);
    let mut mixed: Vec<Chunk<'_>> = chunks
        .by_ref()
        .take(ours.len() / 2)
        .map(|c| (c.valid(), c.invalid(), c.error_kind()))
        .collect();
    chunks.for_each(|c| mixed.push((c.valid(), c.invalid(), c.error_kind())));
    assert_eq!(
        mixed,
        ours,
        "utf8_chunks: fold after next differs\n  input {}",
        hex(bytes, 0)
    );
    // Every part is a slice of the input, each starting where the one before ended (as
    // std's are; callers take offsets from them).
    for walk in [&ours, &folded, &mixed] {
        let mut at = bytes.as_ptr();
        for (valid, invalid, _) in walk.iter() {
            assert_eq!(
                valid.as_ptr(),
                at,
                "a valid part is not where the last part ended"
            );
            assert_eq!(
                invalid.as_ptr(),
                at.wrapping_add(valid.len()),
                "an invalid part is not after its valid part"
            );
            at = at.wrapping_add(valid.len() + invalid.len());
        }
        assert_eq!(at, bytes.as_ptr().wrapping_add(bytes.len()));
    }
    if ours != want {
        let at = want.iter().zip(&ours).take_while(|(a, b)| a == b).count();
        panic!(
            "utf8_chunks differs at chunk {at}: want {:?}, got {:?}\n  input {}",
            want.get(at),
            ours.get(at),
            hex(bytes, 0)
        );
    }
    let lossy = from_utf8_lossy(bytes);
    let std_lossy = String::from_utf8_lossy(bytes);
    assert_eq!(
        lossy,
        std_lossy,
        "from_utf8_lossy\n  input {}",
        hex(bytes, 0)
    );
    let borrowed = matches!(lossy, Cow::Borrowed(_));
    assert_eq!(borrowed, core::str::from_utf8(bytes).is_ok());
    if let (Cow::Borrowed(text), false) = (lossy, bytes.is_empty()) {
        assert_eq!(text.as_ptr(), bytes.as_ptr());
    }
    assert_eq!(from_utf8_lossy_owned(bytes.to_vec()), std_lossy);
}

/// ASCII filler, and non-ASCII filler (2- and 3-byte letters, cut to whole characters
/// and padded with ASCII to exactly `len` bytes).
fn filler(len: usize, non_ascii: bool) -> Vec<u8> {
    if !non_ascii {
        return (0..len).map(|i| b'a' + (i % 26) as u8).collect();
    }
    let text = "ünï€ßçö世界".repeat(len / 10 + 1);
    let mut cut = len;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let mut bytes = text.as_bytes()[..cut].to_vec();
    bytes.resize(len, b'x');
    bytes
}

/// Where sequences are placed: offsets at and around every register and block boundary,
/// the first group of the main loop and its end (and, after an earlier error at byte 0,
/// the end of the scalar span and of the first kernel windows: 1 KiB and 4 KiB more
/// after the span, which ends after up to 16 ASCII bytes and one other character).
fn offsets() -> Vec<usize> {
    let mut offsets: Vec<usize> = (0..=70).collect();
    for boundary in [96, 128, 160, 192, 224, 256, 288, 320] {
        offsets.extend(boundary - 4..=boundary + 4);
    }
    for window_end in [1024, 5120] {
        offsets.extend(window_end..=window_end + 24);
    }
    if small_tests() {
        offsets.retain(|o| o % 7 == 0 || o % 64 < 2);
    }
    offsets
}

/// Places `seq` at every offset, with filler (ASCII or not) around it and 0 to 5 bytes or
/// a long stretch after it, with and without an error at byte 0: every one of those 20
/// surroundings, or with `Some(i)` one of them per offset (turning with `i` and the
/// offset).
fn check_placed(seq: &[u8], offsets: &[usize], one_of: Option<usize>, buf: &mut Vec<u8>) {
    for &offset in offsets {
        let mut surrounding = 0;
        for after in [0, 1, 3, 5, 67] {
            for non_ascii in [false, true] {
                for early_error in [false, true] {
                    surrounding += 1;
                    if one_of.is_some_and(|i| (i + offset) % 20 != surrounding - 1) {
                        continue;
                    }
                    buf.clear();
                    buf.extend_from_slice(&filler(offset + seq.len() + after, non_ascii));
                    buf[offset..offset + seq.len()].copy_from_slice(seq);
                    if early_error && offset > 0 {
                        buf[0] = 0xFF;
                    }
                    check(buf);
                }
            }
        }
    }
}

#[test]
fn every_byte_and_pair_at_every_boundary() {
    let offsets = offsets();
    let mut buf = Vec::new();
    for a in 0..=255u8 {
        check_placed(&[a], &offsets, None, &mut buf);
    }
    // Pairs: every offset, one surrounding each (every surrounding over the offsets);
    // a fifth of the offsets, in turn, for small runs.
    let step = if small_tests() { 5 } else { 1 };
    for a in 0..=255u8 {
        for b in 0..=255u8 {
            let i = usize::from(a) * 256 + usize::from(b);
            let mine: Vec<usize> = offsets
                .iter()
                .copied()
                .skip(i % step)
                .step_by(step)
                .collect();
            check_placed(&[a, b], &mine, Some(i), &mut buf);
        }
    }
}

/// Bytes that play a role in UTF-8: both ends of each range of second and later bytes,
/// ASCII, and bytes that are never continuation bytes.
const CLASSES: [u8; 14] = [
    0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xE0, 0xED, 0xF0, 0xFF,
];

#[test]
fn sampled_three_and_four_byte_sequences_at_every_boundary() {
    let offsets = offsets();
    let mut buf = Vec::new();
    let mut rng = Rng::new(3);
    for lead in 0x80..=0xFFu8 {
        for &b in &CLASSES {
            for &c in &CLASSES {
                let pick = |rng: &mut Rng| -> Vec<usize> {
                    let n = if small_tests() { 2 } else { 6 };
                    (0..n).map(|_| offsets[rng.below(offsets.len())]).collect()
                };
                let i = rng.below(20);
                // Small runs: one surrounding per triple, and a third of the fourth bytes.
                let all = if small_tests() { Some(i) } else { None };
                check_placed(&[lead, b, c], &pick(&mut rng), all, &mut buf);
                for &d in CLASSES
                    .iter()
                    .skip(i % 3)
                    .step_by(if small_tests() { 3 } else { 1 })
                {
                    check_placed(&[lead, b, c, d], &pick(&mut rng), Some(i), &mut buf);
                }
            }
        }
    }
}

/// Every byte, every pair of byte classes and a 2-, 3- and 4-byte character.
fn short_sequences() -> Vec<Vec<u8>> {
    let mut seqs: Vec<Vec<u8>> = (0..=255u8).map(|a| vec![a]).collect();
    for a in CLASSES {
        for b in CLASSES {
            seqs.push(vec![a, b]);
        }
    }
    for c in ['é', '€', '😀'] {
        seqs.push(c.to_string().into_bytes());
    }
    seqs
}

/// `count` errors (`FF`), each after `gap` bytes of non-ASCII letters.
fn dense_errors(count: usize, gap: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    for _ in 0..count {
        bytes.extend_from_slice(&filler(gap, true));
        bytes.push(0xFF);
    }
    bytes
}

/// Checks `prefix`, then filler (ASCII or not) with `seq` at `offset` and `after` bytes
/// after it (`buf`: reused for the input).
fn check_after(
    prefix: &[u8],
    seq: &[u8],
    offset: usize,
    non_ascii: bool,
    after: usize,
    buf: &mut Vec<u8>,
) {
    buf.clear();
    buf.extend_from_slice(prefix);
    buf.extend_from_slice(&filler(offset + seq.len() + after, non_ascii));
    let at = prefix.len() + offset;
    buf[at..at + seq.len()].copy_from_slice(seq);
    check(buf);
}

/// After errors a hundred bytes apart in text, where the walk finds each next error with
/// the kernel straight from the end of the last one over at most 4 KiB: every byte, pairs
/// of byte classes and valid characters around the end of that search, so that a
/// sequence, a valid character or an error is cut by it, or lies just after it; then text
/// to the end, or a long clean stretch.
#[test]
fn sequences_at_the_end_of_the_search_after_dense_errors() {
    const SEARCH: usize = 4096;
    let prefix = dense_errors(40, 99);
    let seqs = short_sequences();
    let step = if small_tests() { 3 } else { 1 };
    let mut buf = Vec::new();
    for (i, seq) in seqs.iter().enumerate() {
        for offset in (SEARCH - 6..=SEARCH + 3).skip(i % step).step_by(step) {
            for non_ascii in [false, true] {
                for after in [0, 2, 3000] {
                    check_after(&prefix, seq, offset, non_ascii, after, &mut buf);
                }
            }
        }
    }
}

/// After errors a few bytes apart (an `FF` every 21 bytes), which the walk splits a block
/// of 64 bytes at a time: every byte at every offset of the first three blocks after them,
/// and pairs of byte classes and valid characters at a third of those offsets (each at
/// every offset as `i` turns), so that each lies across every block boundary; followed by
/// nothing (the input ends in the block, read with zeros after it), a few bytes, or a
/// long clean stretch (which hands the walk back to the kernel's windows).
#[test]
fn sequences_at_every_block_offset_after_dense_errors() {
    let prefix = dense_errors(20, 20);
    let seqs = short_sequences();
    let mut buf = Vec::new();
    for (i, seq) in seqs.iter().enumerate() {
        let step = match (seq.len(), small_tests()) {
            (1, false) => 1,
            (_, false) => 3,
            (_, true) => 7,
        };
        for offset in (0..=200).skip(i % step).step_by(step) {
            for non_ascii in [false, true] {
                for after in [0, 3, 70, 1000] {
                    check_after(&prefix, seq, offset, non_ascii, after, &mut buf);
                }
            }
        }
    }
}

/// Text with an error every `gap` bytes on average (random positions and bytes), in the
/// walk's every mode: dense errors, sparse errors, and the transitions.
#[test]
fn errors_at_every_density() {
    let text = multilingual_text(300_000, 7).into_bytes();
    let mut rng = Rng::new(11);
    for gap in [1, 2, 3, 5, 17, 63, 64, 65, 200, 1000, 4096, 20_000, 100_000] {
        let mut bytes = text.clone();
        let mut i = rng.below(gap);
        while i < bytes.len() {
            bytes[i] = match rng.below(4) {
                0 => 0xFF,
                1 => 0x80 | rng.below(64) as u8,
                _ => rng.next_u64() as u8,
            };
            i += 1 + rng.below(2 * gap);
        }
        check(&bytes);
    }
}

/// Mutated multilingual text: 1 to 4 bytes changed, at pseudo-random places.
#[test]
fn mutated_multilingual_text() {
    let mut rng = Rng::new(5);
    let rounds = if small_tests() { 300 } else { 3000 };
    for round in 0..rounds {
        let len = 1 + rng.below(if round % 10 == 0 { 20_000 } else { 700 });
        let mut bytes = multilingual_text(len, round as u64).into_bytes();
        bytes.truncate(len);
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(bytes.len());
            bytes[at] = CLASSES[rng.below(CLASSES.len())] ^ (rng.below(2) as u8);
        }
        check(&bytes);
    }
}

#[test]
fn random_bytes_and_long_buffers() {
    let mut rng = Rng::new(9);
    for len in [0, 1, 2, 3, 100, 1000, 65_536, 1 << 20] {
        let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        check(&bytes);
        // Mostly ASCII with rare random bytes.
        let bytes: Vec<u8> = (0..len)
            .map(|_| match rng.below(50) {
                0 => rng.next_u64() as u8,
                _ => b'a' + rng.below(26) as u8,
            })
            .collect();
        check(&bytes);
    }
    // Long valid text, then the same cut inside its last character, then with an error
    // at the very end.
    let text = multilingual_text(3 << 20, 1).into_bytes();
    check(&text);
    let last = text.len() - "😀".len();
    let mut cut = text[..last].to_vec();
    cut.extend_from_slice(&"😀".as_bytes()[..3]);
    check(&cut);
    cut.push(0x80);
    check(&cut);
}

/// Valid text longer than the pieces in which `from_utf8_lossy` copies it (2 KiB), with a
/// character of every length across the first piece's end, before the first error (the
/// prefix) and between two errors (a chunk).
#[test]
fn long_valid_text_with_characters_across_copy_pieces() {
    let mut bytes = Vec::new();
    for ch in ["é", "€", "😀"] {
        for before in 2040..2052 {
            for after in [0, 1, 2047, 2048, 4100] {
                for first_error in [false, true] {
                    bytes.clear();
                    if first_error {
                        bytes.push(0xFF);
                    }
                    bytes.extend(std::iter::repeat(b'a').take(before));
                    bytes.extend_from_slice(ch.as_bytes());
                    bytes.extend(std::iter::repeat(b'b').take(after));
                    bytes.extend_from_slice(b"\xC3!");
                    check(&bytes);
                }
            }
        }
    }
}

#[test]
fn iterator_traits() {
    fn assert_traits<T: Clone + std::fmt::Debug + std::iter::FusedIterator>(_: &T) {}
    let bytes = "ab\u{FF}'\u{301}\u{200D}".as_bytes();
    assert_eq!(
        format!("{:?}", utf8_chunks(bytes)),
        format!("{:?}", bytes.utf8_chunks())
    );
    let bytes = b"ab\xFFc\"\n\xE2\x82";
    let mut chunks = utf8_chunks(bytes);
    assert_traits(&chunks);
    assert_eq!(format!("{chunks:?}"), format!("{:?}", bytes.utf8_chunks()));
    let copy = chunks.clone();
    assert_eq!(chunks.next().unwrap().valid(), "ab");
    assert_eq!(
        format!("{chunks:?}"),
        r#"Utf8Chunks { source: "c\"\n\xE2\x82" }"#
    );
    assert_eq!(copy.count(), 2);
    assert_eq!(chunks.next().unwrap().invalid(), b"\xE2\x82");
    assert!(chunks.next().is_none());
    assert!(chunks.next().is_none());
    assert_eq!(chunks.size_hint(), (0, Some(0)));
}

#[test]
fn lossy_owned_reuses_the_allocation_only_when_valid() {
    let mut valid = Vec::with_capacity(100);
    valid.extend_from_slice("Grüße".as_bytes());
    let (ptr, capacity) = (valid.as_ptr(), valid.capacity());
    let text = from_utf8_lossy_owned(valid);
    assert_eq!((text.as_ptr(), text.capacity()), (ptr, capacity));
    assert_eq!(from_utf8_lossy_owned(Vec::new()), "");
    assert_eq!(from_utf8_lossy_owned(b"\xFF".to_vec()), "\u{FFFD}");
    assert!(matches!(from_utf8_lossy(b""), Cow::Borrowed("")));
}

/// Any byte, often one that plays a special role in UTF-8.
fn byte() -> impl Strategy<Value = u8> {
    prop_oneof![any::<u8>(), proptest::sample::select(CLASSES.to_vec())]
}

/// Cases per property: fewer for small runs.
fn cases() -> u32 {
    if small_tests() {
        256
    } else {
        2048
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn mutated_text(
        seed in any::<u64>(),
        len in 0..3000usize,
        mutations in vec((any::<proptest::sample::Index>(), byte()), 0..6),
    ) {
        let mut bytes = multilingual_text(len, seed).into_bytes();
        bytes.truncate(len);
        for (at, value) in mutations {
            if !bytes.is_empty() {
                let i = at.index(bytes.len());
                bytes[i] = value;
            }
        }
        check(&bytes);
    }

    #[test]
    fn arbitrary_bytes(bytes in vec(byte(), 0..3000)) {
        check(&bytes);
    }

    #[test]
    fn mostly_ascii(bytes in vec(prop_oneof![30 => 0u8..0x80, 1 => byte()], 0..6000)) {
        check(&bytes);
    }
}
