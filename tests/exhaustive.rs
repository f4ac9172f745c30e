//! Exhaustive differential tests: every 1-, 2- and 3-byte sequence, every 4-byte lead with
//! every second byte, sequences of byte classes at every offset, and every truncation of
//! multilingual text, each compared with `core::str::from_utf8` (and the `ErrorKind` rule)
//! for every kernel in `Kernel::available()`, `is_valid` included.
//!
//! Where a sequence stands matters to the kernels (registers of 16, 32 or 64 bytes, 64-byte
//! blocks, partial or overlapping loads at the end, nothing before the start), so each is
//! placed in ASCII text, in short inputs (under one register, under one register plus the
//! three bytes before it, under one block), in an input of exactly one block, in inputs
//! of a few blocks that are still too short for the main loop, and in a long input that
//! reaches the main loop and ends with a tail:
//!
//! * single bytes at every offset of every length up to 100, of the lengths around the
//!   start of the main loop, and of the long input;
//! * the 65,536 pairs at every offset of inputs of fourteen lengths;
//! * the 16.7 million triples across the 16-, 32- and 64-byte boundaries (both splits),
//!   and the 48-byte one where a kernel has 64-byte registers, as the whole input, and at
//!   the end of short and long inputs; and triples
//!   of byte classes at every offset of every length up to 67, of a few blocks, and of
//!   the long input;
//! * 4-byte sequences: every lead `F0..=FF` with every second byte and classes after it,
//!   across boundaries (all three splits); and four classes at every offset.
//!
//! The blocks of the main loop get placements of their own, per register width
//! ([`block_placements`], checked by the kernels of that width: [`ByRegister`]), and so
//! does the grid of pairs of blocks on which the ASCII prefix of a long input is skipped
//! (`class_triples_across_the_ascii_prefix`).
//!
//! std's answer is computed once per input and every kernel is compared with it. The
//! dispatched `from_utf8` and `is_valid` run `Kernel::detected()` (see `api.rs`); they are
//! checked here too, except for the 16.7 million triples, where they would only repeat
//! that kernel. The work is spread over the available cores; `cargo test` runs it at
//! opt-level 3 (see `[profile.test]` in `Cargo.toml`).

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use common::{
    check_against_std, check_dispatched, check_kernels, expected, kernels, small_tests, Aligned,
};
use utf8check::Kernel;

/// ASCII filler of `len` bytes (varied, like real text).
fn filler(len: usize) -> Vec<u8> {
    b"Lorem ipsum dolor sit amet, consectetur adipiscing elit. "
        .iter()
        .copied()
        .cycle()
        .take(len)
        .collect()
}

/// Calls `f(i)` for every `i` in `0..n`, spread over the available cores. After a
/// failure (a panic) the other threads stop early.
fn par_for(n: usize, f: impl Fn(usize) + Sync) {
    /// Raises the flag if its thread unwinds.
    struct StopOnPanic<'a>(&'a AtomicBool);
    impl Drop for StopOnPanic<'_> {
        fn drop(&mut self) {
            if std::thread::panicking() {
                self.0.store(true, Ordering::Relaxed);
            }
        }
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 0..threads.min(n) {
            scope.spawn(|| {
                let _stop = StopOnPanic(&failed);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n || failed.load(Ordering::Relaxed) {
                        break;
                    }
                    f(i);
                }
            });
        }
    });
}

/// Where a sequence goes: an offset in a background input.
type Placement = (usize, Vec<u8>);

/// Placements at `(offset, len)` in ASCII filler of `len` bytes.
fn in_filler(placements: &[(usize, usize)]) -> Vec<Placement> {
    placements
        .iter()
        .map(|&(offset, len)| (offset, filler(len)))
        .collect()
}

/// An input with room for a sequence at `offset`, at an address that is a multiple of 64
/// (so that the kernels' blocks start after their first register: [`Aligned`]).
struct Slot {
    offset: usize,
    input: Aligned,
}

impl Slot {
    fn all(placements: &[Placement], seq_len: usize) -> Vec<Slot> {
        placements
            .iter()
            .map(|(offset, input)| {
                let (offset, len) = (*offset, input.len());
                assert!(offset + seq_len <= len, "{offset} + {seq_len} > {len}");
                Slot {
                    offset,
                    input: Aligned::new(input, 0),
                }
            })
            .collect()
    }

    /// Writes `seq` at the slot's offset and checks the input.
    #[inline]
    fn check(&mut self, seq: &[u8], kernels: &[Kernel], dispatched: bool) {
        let input = self.input.bytes_mut();
        input[self.offset..self.offset + seq.len()].copy_from_slice(seq);
        let expected = expected(input);
        if dispatched {
            check_dispatched(input, &expected);
        }
        check_kernels(input, &expected, kernels);
    }
}

/// Places every sequence of `N` bytes at each `(offset, len)` of `placements` and checks
/// it with `kernels` (and the dispatched functions if `dispatched`). The first byte is
/// spread over the cores.
fn check_every_sequence<const N: usize>(
    placements: &[Placement],
    kernels: &[Kernel],
    dispatched: bool,
) {
    par_for(256, |first| {
        let mut slots = Slot::all(placements, N);
        for rest in 0..1usize << (8 * (N - 1)) {
            let mut seq = [first as u8; N];
            for (i, byte) in seq[1..].iter_mut().enumerate() {
                *byte = (rest >> (8 * (N - 2 - i))) as u8;
            }
            for slot in &mut slots {
                slot.check(&seq, kernels, dispatched);
            }
        }
    });
}

/// Every offset of a sequence of `n` bytes in ASCII filler of these lengths.
fn every_offset(lengths: &[usize], n: usize) -> Vec<Placement> {
    let offsets: Vec<(usize, usize)> = lengths
        .iter()
        .flat_map(|&len| (0..=len - n).map(move |offset| (offset, len)))
        .collect();
    in_filler(&offsets)
}

/// A long input: past the first register and several 64-byte blocks (after a register of
/// up to 32 bytes; under one window of the main loop, so checked as the blocks after the
/// last window are), with a tail of `len % 16 != 0` bytes.
const LONG: usize = 5 * 64 + 8;

/// Inputs of a few blocks, checked in one piece (`validate_medium`: under a register and
/// four blocks).
const MEDIUM: usize = 3 * 64 + 9;

/// The shortest inputs checked block by block with SSE4.1/NEON (16 + 256 bytes) and with
/// AVX2 (32 + 256), and the longest that are not.
const MAIN_LOOP_EDGES: [usize; 4] = [271, 272, 287, 288];

/// The longest inputs without a window of the main loop (a register and 4 KiB) with
/// 16- and 32-byte registers and the shortest with one; and after the window, one block
/// and a tail (with 16-byte registers, two blocks), and two blocks. Then the same at half
/// a window (a register and 2 KiB): the longest inputs checked in one piece with 32-byte
/// registers, and the fewest blocks after the last window that are skipped up to the
/// first non-ASCII pair before their mask.
const WINDOW_EDGES: [usize; 12] = [
    4111, 4112, 4127, 4128, 4255, 4256, 2063, 2064, 2079, 2080, 2207, 2208,
];

/// The inputs that `validate_medium` tests for ASCII in straight lines, its first and
/// last block (pair of blocks, over two blocks) ORed: up to two blocks with 16-byte
/// registers, four with 32-byte ones. Their longest and the shortest after them at each
/// edge, and three blocks. (Where they start, 65 bytes, is among the short lengths.)
const STRAIGHT_ASCII_EDGES: [usize; 5] = [128, 129, 192, 256, 257];

/// Medium inputs that end at the end of a pair of blocks, and one byte after it: with
/// 32- and 64-byte registers `validate_medium` skips ASCII pairs of blocks after the head
/// (which ends after the first register in these inputs, at a multiple of 64: [`Aligned`])
/// and tests the bytes after the last whole pair on their own.
const PAIR_EDGES: [usize; 4] = [
    32 + 3 * 128,
    32 + 3 * 128 + 1,
    64 + 3 * 128,
    64 + 3 * 128 + 1,
];

/// Short inputs and those around one register (16 or 32 bytes) plus the three bytes
/// before it, one block (64), a few blocks, and the long input.
const LENGTHS: [usize; 14] = [2, 17, 18, 19, 33, 34, 35, 40, 64, 65, 66, 67, MEDIUM, LONG];

#[test]
fn every_byte_at_every_offset() {
    // Every length up to a block and a half, a few blocks (whole and not: the edges of
    // the straight-line ASCII test and of the pairs of blocks among them), the edges of
    // the main loop and of its first window, and the long input; every offset.
    let mut lengths: Vec<usize> = (1..=100).collect();
    lengths.extend([MEDIUM, LONG]);
    lengths.extend(STRAIGHT_ASCII_EDGES);
    lengths.extend(PAIR_EDGES);
    lengths.extend(MAIN_LOOP_EDGES);
    // (Under emulation, `UTF8CHECK_SMALL_TESTS`, not the inputs of 2 to 4 KiB: the byte-class
    // triples below still place bytes at those boundaries.)
    if !small_tests() {
        lengths.extend(WINDOW_EDGES);
    }
    check_every_sequence::<1>(&every_offset(&lengths, 1), &kernels(), true);
}

#[test]
fn every_pair_at_every_offset() {
    check_every_sequence::<2>(&every_offset(&LENGTHS, 2), &kernels(), true);
}

#[test]
fn every_triple_across_boundaries() {
    // Across a boundary means both splits, 1 + 2 and 2 + 1 bytes.
    let mut placements = vec![
        // The whole input: its start and end in one partial register.
        (0, 3),
        // A short input: across 16 and 32, and at the end.
        (14, 40),
        (15, 40),
        (30, 40),
        (31, 40),
        (37, 40),
        // The long input: across 64, and at the end.
        (62, LONG),
        (63, LONG),
        (LONG - 3, LONG),
    ];
    let kernels = kernels();
    if kernels.contains(&Kernel::Avx512) {
        // With 64-byte registers: across 48, the last 128-bit lane, whose bytes before it
        // come from a shift across lanes, of the long input's first register and of a
        // 64-byte input (one masked load), and at the end of that input (where no zero
        // follows); across 64 into the partial register of a 66-byte input (under a
        // register and the three bytes before it).
        placements.extend([
            (46, LONG),
            (47, LONG),
            (46, 64),
            (47, 64),
            (61, 64),
            (62, 66),
            (63, 66),
        ]);
    }
    check_every_sequence::<3>(&in_filler(&placements), &kernels, false);
}

/// Representatives of every class of byte: ASCII, the edges of the continuation ranges
/// that matter to some lead byte, lead bytes of every length, and invalid bytes.
const CLASSES: [u8; 18] = [
    0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4,
    0xF5, 0xFF,
];

/// The number of sequences of `N` bytes from `CLASSES`, numbered by [`class_sequence`].
fn class_sequences<const N: usize>() -> usize {
    CLASSES.len().pow(N as u32)
}

/// Sequence number `i` (below [`class_sequences`]) of `N` bytes from `CLASSES`: `i`'s
/// digits in base `CLASSES.len()`, lowest first.
fn class_sequence<const N: usize>(i: usize) -> [u8; N] {
    std::array::from_fn(|k| CLASSES[i / CLASSES.len().pow(k as u32) % CLASSES.len()])
}

/// Places every sequence of `N` bytes from `CLASSES` at every offset of inputs of
/// every length in `lengths`, and checks each with `kernels` (and the dispatched functions
/// if `dispatched`).
fn check_class_sequences<const N: usize>(
    placements: &[Placement],
    kernels: &[Kernel],
    dispatched: bool,
) {
    par_for(placements.len(), |p| {
        let mut slot = Slot::all(&placements[p..=p], N).pop().unwrap();
        for i in 0..class_sequences::<N>() {
            slot.check(&class_sequence::<N>(i), kernels, dispatched);
        }
    });
}

#[test]
fn triples_of_byte_classes_at_every_offset() {
    // Every short length (every register boundary, every end), a few blocks, the edges of
    // the straight-line ASCII test, of the pairs of blocks and of the main loop, and the
    // long input.
    let mut lengths: Vec<usize> = (3..=67).collect();
    lengths.extend([MEDIUM, LONG]);
    lengths.extend(STRAIGHT_ASCII_EDGES);
    lengths.extend(PAIR_EDGES);
    lengths.extend(MAIN_LOOP_EDGES);
    check_class_sequences::<3>(&every_offset(&lengths, 3), &kernels(), true);
}

/// Lengths that every kernel validates through its head and then the main loop's grid:
/// over four blocks, where kernels with 32- and 64-byte registers skip pairs of ASCII
/// blocks in `validate_medium` (and those with 16-byte ones run the windows' path, from
/// `windows_from`, 272 bytes); from `windows_from` with every kernel (at most a 64-byte
/// register and half a window, 2,112 bytes), under a window and with one.
const HEAD_LENGTHS: [usize; 3] = [300, 2200, 4300];

/// Every offset that the head of a long input and the first block after it may cover:
/// the head ends before twice the widest register (`head_end` in `src/generic.rs`).
const HEAD_SPAN: usize = 3 * 64;

/// The misalignments of an input (from a multiple of 64) that the head tests place it at:
/// all, or with [`small_tests`] those at and next to multiples of 16, which reach the
/// shortest and the longest head of every register width.
fn head_misalignments() -> Vec<usize> {
    let small = small_tests();
    (0..64)
        .filter(|m| !small || matches!(m % 16, 0 | 1 | 15))
        .collect()
}

#[test]
fn every_byte_in_the_head_at_every_alignment() {
    // A long input's head ends where its address reaches a multiple of the register width
    // (`head_end`): every byte at every offset of it and the block after it, at every
    // misalignment of the input, for inputs of a few blocks and under a window (with a
    // window, too, unless small).
    let lengths = if small_tests() {
        &HEAD_LENGTHS[..2]
    } else {
        &HEAD_LENGTHS[..]
    };
    let kernels = kernels();
    let misalignments = head_misalignments();
    par_for(misalignments.len(), |i| {
        for &len in lengths {
            let mut input = Aligned::new(&filler(len), misalignments[i]);
            for offset in 0..HEAD_SPAN {
                let filler_byte = input.bytes()[offset];
                for byte in 0..=255 {
                    input.bytes_mut()[offset] = byte;
                    let expected = expected(input.bytes());
                    check_dispatched(input.bytes(), &expected);
                    check_kernels(input.bytes(), &expected, &kernels);
                }
                input.bytes_mut()[offset] = filler_byte;
            }
        }
    });
}

#[test]
fn class_triples_across_the_head_at_every_alignment() {
    // For each register width, at every misalignment of the input, the triples of byte
    // classes across the three edges of the head (`head_errors`, both splits): the end of
    // the first register, the start of the register that ends the head (from byte 3 on),
    // and the head's end, where the main loop's grid starts.
    let kernels = kernels();
    let misalignments = head_misalignments();
    par_for(misalignments.len(), |i| {
        let misaligned = misalignments[i];
        let mut placements = Vec::new();
        for width in [16, 32, 64] {
            let head_end = width + (width - misaligned % width) % width;
            for edge in [width, (head_end - width).max(3), head_end] {
                placements.extend([edge - 2, edge - 1]);
            }
        }
        placements.sort_unstable();
        placements.dedup();
        for len in &HEAD_LENGTHS[..2] {
            let filler = filler(*len);
            let mut input = Aligned::new(&filler, misaligned);
            for &offset in &placements {
                for i in 0..class_sequences::<3>() {
                    input.bytes_mut()[offset..offset + 3].copy_from_slice(&class_sequence::<3>(i));
                    let expected = expected(input.bytes());
                    check_dispatched(input.bytes(), &expected);
                    check_kernels(input.bytes(), &expected, &kernels);
                }
                input.bytes_mut()[offset..offset + 3].copy_from_slice(&filler[offset..offset + 3]);
            }
        }
    });
}

#[test]
fn four_byte_leads_with_continuation_classes() {
    // Every lead F0..=FF, every second byte, classes for the third and fourth: across a
    // boundary in all three splits, at the start and at the end.
    let placements = in_filler(&[
        (0, 4),
        (13, 40),
        (14, 40),
        (15, 40),
        (29, 40),
        (30, 40),
        (31, 40),
        (36, 40),
        (60, 64),
        (61, LONG),
        (62, LONG),
        (63, LONG),
        (LONG - 4, LONG),
    ]);
    let kernels = kernels();
    par_for(16 * 256, |i| {
        let (lead, second) = (0xF0 + (i >> 8) as u8, i as u8);
        let mut slots = Slot::all(&placements, 4);
        for third in CLASSES {
            for fourth in CLASSES {
                for slot in &mut slots {
                    slot.check(&[lead, second, third, fourth], &kernels, true);
                }
            }
        }
    });
    // Every sequence of four classes at every offset of a few lengths.
    check_class_sequences::<4>(&every_offset(&[4, 19, 35, 50], 4), &kernels, true);
}

/// Long texts of three shapes: multilingual, only multi-byte characters, and long ASCII
/// runs with a rare emoji (whole ASCII blocks, entered and left at every alignment).
fn long_texts() -> Vec<Vec<u8>> {
    let mut texts = Vec::new();
    for (i, len) in (300..1400).step_by(197).enumerate() {
        let seed = i as u64;
        texts.push(common::multilingual_text(len, seed).into_bytes());
        let mut rng = common::Rng::new(seed);
        let (mut non_ascii, mut runs) = (String::new(), String::new());
        while non_ascii.len() < len {
            non_ascii.push(
                ["é", "€", "😀", "ж", "語", "𝄞"][rng.below(6)]
                    .parse()
                    .unwrap(),
            );
        }
        while runs.len() < len {
            runs.extend(std::iter::repeat('a').take(rng.below(150)));
            runs.push('😀');
        }
        texts.extend([non_ascii.into_bytes(), runs.into_bytes()]);
    }
    texts
}

#[test]
fn an_error_at_every_position_of_long_text() {
    let kernels = kernels();
    let texts = long_texts();
    par_for(texts.len(), |i| {
        let mut text = texts[i].clone();
        check_against_std(&text);
        for at in 0..text.len() {
            let original = text[at];
            for bad in [0x80, 0xC3, 0xE0, 0xED, 0xF4, 0xFF] {
                text[at] = bad;
                let expected = expected(&text);
                check_dispatched(&text, &expected);
                check_kernels(&text, &expected, &kernels);
            }
            text[at] = original;
            // Cut short at `at`, possibly inside a character.
            check_against_std(&text[..at]);
        }
    });
}

/// Windows with many non-ASCII blocks that are not dense: an `é` every 96 to 200 bytes.
/// At 200 B every window is by mask and is followed by another, with more non-ASCII
/// blocks than the next window's mask pass has checks for (`blocks_per_pending_check` in
/// `src/generic.rs`), so that some of its checks come after that pass. At 96 and 128 B
/// (two non-ASCII blocks in three, one in two) the first window is by mask and hands the
/// others to a branch per block (`Way::Branches`); at 100 B too, whose masks repeat every
/// 25 blocks, in a text long enough for such periods (`LONG_PERIODS_LEFT`, 48 KiB after
/// the window: 80 KiB leave 68 KiB after the third). An error at each insert of the first
/// three windows, for every kernel, in five forms, none of which makes a block ASCII (so
/// the windows keep their ways): a stray continuation byte, a lead byte followed by ASCII
/// or by another lead, and a sequence cut short by the end of the `é`, which ends a block
/// before an ASCII one every other insert at 96 B: only the end check of the bytes before
/// that ASCII block catches it.
#[test]
fn an_error_at_each_insert_of_crowded_windows() {
    let kernels = kernels();
    for (spacing, windows) in [(96, 4), (100, 20), (128, 4), (200, 4)] {
        let mut text = Vec::new();
        while text.len() < windows * 4096 {
            text.extend(std::iter::repeat(b'a').take(spacing - 2));
            text.extend_from_slice("é".as_bytes());
        }
        check_against_std(&text);
        let inserts: Vec<usize> = (0..3 * 4096).filter(|&i| text[i] == 0xC3).collect();
        par_for(inserts.len(), |j| {
            let mut text = text.clone();
            let at = inserts[j];
            for bad in [
                [0x80, 0xA9],
                [0xC3, b'x'],
                [0xC3, 0xC3],
                [b'x', 0xC3],
                [0xE2, 0x82],
            ] {
                text[at..at + 2].copy_from_slice(&bad);
                let expected = expected(&text);
                check_dispatched(&text, &expected);
                check_kernels(&text, &expected, &kernels);
                text[at..at + 2].copy_from_slice("é".as_bytes());
            }
        });
    }
}

#[test]
fn every_truncation_of_multilingual_text() {
    for seed in 0..4 {
        let text = common::multilingual_text(300, seed);
        let bytes = &text.as_bytes()[..300];
        for char_len in 1..=4 {
            let mut chars = text.char_indices().take_while(|&(i, _)| i < 250);
            assert!(chars.any(|(_, c)| c.len_utf8() == char_len), "seed {seed}");
        }
        // Every slice: cut at both ends, at every length up to 300 bytes.
        par_for(bytes.len() + 1, |start| {
            for end in start..=bytes.len() {
                check_against_std(&bytes[start..end]);
            }
        });
    }
}

/// The windows before the one under test, set up in layouts that until session 39 each
/// forced one of the main loop's ways then (`src/generic.rs`). The loop now has two, by
/// mask (`Mask`, `MaskAhead`) and every block checked (`Full`); after each of the other
/// layouts the window under test is checked by mask, after windows (or a prefix skip)
/// of other shapes. Each variant's doc names the way it was set up for.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Way {
    /// ASCII from the start of the input, which is skipped two blocks at a time before the
    /// first window. (Until session 39: pairs of ASCII blocks skipped in a loop through the
    /// windows, each pair that is not all ASCII checked whole.)
    Ascii,
    /// After a window with one non-ASCII block. (Until session 39: the mask of the
    /// non-ASCII pairs of blocks, a loop over it.)
    Sparse,
    /// After a window with no ASCII block: every block checked, no ASCII test.
    Full,
    /// After a window whose mask repeats an earlier one. (Until session 39: a branch per
    /// block, the end check carried from block to block.)
    Pattern,
    /// After a window of mixed blocks: the mask of the non-ASCII blocks, a loop over it.
    Mask,
    /// As `Mask`, before another window by mask: the window's blocks are checked while
    /// the next window's mask is taken (`mask_checking_pending`), a block at a time
    /// between its ASCII tests. Set up as `Mask`; two more blocks with an `é`, away from
    /// the boundary under test and at unequal gaps, keep the window mixed, so that the
    /// next is by mask too, and a whole window follows it.
    MaskAhead,
    /// After four non-ASCII pairs at nearly equal gaps of more than a pair, with an `é`
    /// every four blocks on from them. (Until session 39: one loop with a branch per block,
    /// `spaced_run`, through the window and the blocks after it, while the non-ASCII blocks
    /// kept their spacing.)
    Spacing,
    /// After a window by mask whose non-ASCII blocks come at a spacing (an `é` every five
    /// blocks), with an `é` every five blocks in the window under test too. (Until session
    /// 39: the same run from the window under test on.)
    SpacingAfterMask,
    /// After three non-ASCII pairs at equal gaps (of ten blocks). (Until session 39: the
    /// skipping loop went on to a fourth, checking only the non-ASCII blocks of each pair.)
    Spaced,
    /// After a window whose mask repeats with a short period (a non-ASCII pair every three
    /// pairs). (Until session 39: a branch per block, as `Pattern`, from that one window.
    /// Now by mask: under half of the blocks are not ASCII.)
    Periodic,
    /// After two windows whose masks repeat every two blocks, half of them not ASCII: the
    /// first by mask, which hands the next to a branch per block (`Way::Branches` in
    /// src/generic.rs), and the second by branches, which keeps that way for the window
    /// under test. Every block boundary of it is placed (`class_triples_across_blocks`),
    /// and the blocks after it start after a window by branches.
    Branches,
}

/// Blocks per window of the main loop (`WINDOW` in src/generic.rs).
const WINDOW_BLOCKS: usize = 64;

impl Way {
    const ALL: [Way; 11] = [
        Way::Ascii,
        Way::Sparse,
        Way::Full,
        Way::Pattern,
        Way::Mask,
        Way::MaskAhead,
        Way::Spacing,
        Way::SpacingAfterMask,
        Way::Spaced,
        Way::Periodic,
        Way::Branches,
    ];

    /// The windows before the one under test, as the blocks of each that hold an `é` (the
    /// input starts with ASCII).
    ///
    /// An all-ASCII window (`Ascii`) leaves the prefix skip of pairs of ASCII blocks
    /// (`generic::ascii_start`) running into the window under test. Every other set-up has
    /// an `é` in block 0 of its first window: the prefix skip stops at once, and the main
    /// loop's windows start right after the first register, on the grid of these windows.
    /// Then a window with few non-ASCII blocks leaves the next one by mask, a full one
    /// makes it dense, and a window whose mask repeats every two blocks makes the next one
    /// by branches (`Branches`). The shapes of `Sparse`, `Pattern`, `Spacing`,
    /// `SpacingAfterMask`, `Spaced` and `Periodic` once led to ways of their own (their
    /// docs); the loop now checks their windows by mask, after masks of those shapes.
    ///
    /// (Until session 44 these set-ups put their first `é` late in the first window, where
    /// it stopped the skipping loop of before session 39. Since the prefix skip came
    /// (session 36) the windows had started there instead, 46 blocks in with 32-byte
    /// registers: the window under test straddled two of the loop's windows, and with a
    /// single window before it the blocks after it came after no window at all. A
    /// temporary trace of each window's position and way showed every set-up below
    /// reaching its way at the window under test, with 16- and 32-byte registers.)
    ///
    /// `None` for `Spacing` and `Spaced` with 16-byte registers, as before session 44 (they
    /// were shapes for a run that only wider registers took).
    fn set_up(self, register: usize) -> Option<Vec<Vec<usize>>> {
        let full: Vec<usize> = (0..WINDOW_BLOCKS).collect();
        let periodic: Vec<usize> = (0..WINDOW_BLOCKS).step_by(6).collect();
        let alternate: Vec<usize> = (0..WINDOW_BLOCKS).step_by(2).collect();
        let first = || vec![0];
        let after_first = |blocks: &[usize]| {
            let mut window = first();
            window.extend(blocks.iter().map(|b| WINDOW_BLOCKS - b));
            window
        };
        Some(match self {
            Way::Ascii => vec![vec![]],
            Way::Sparse => vec![first(), vec![0]],
            Way::Mask | Way::MaskAhead => vec![first()],
            Way::Full => vec![first(), full],
            Way::Pattern => vec![first(), vec![0, 2], vec![0, 2]],
            Way::Spacing | Way::Spaced if register == 16 => {
                return None;
            }
            Way::Spacing => vec![after_first(&[14, 10, 6, 2])],
            Way::SpacingAfterMask => vec![first(), (2..WINDOW_BLOCKS).step_by(5).collect()],
            Way::Spaced => vec![after_first(&[30, 20, 10])],
            Way::Periodic => vec![first(), vec![0], periodic],
            Way::Branches => vec![alternate.clone(), alternate],
        })
    }
}

/// What the blocks under test are (`src/generic.rs`).
#[derive(Copy, Clone, Debug)]
enum Region {
    /// A window of the main loop, checked this way; the blocks after the last window (4
    /// blocks and 40 bytes) follow it.
    Window(Way),
    /// The first window of an input whose first register holds an `é`: checked as dense
    /// text with 32-byte registers where the pair of blocks after that register is not all
    /// ASCII (dense neighbours, or an `é` next to the boundaries 0 to 2), else by the
    /// skipping loop; by mask with 16-byte registers.
    FirstWindow,
    /// The blocks after the last window (8 blocks, then the tail of 40 bytes), after windows
    /// set up as for this way. With 32-byte registers, whether the last window was mostly
    /// ASCII (at most three eighths of its blocks not ASCII: after every set-up but `Full`
    /// and `Branches`) decides how these blocks are checked: by mask, or skipped up to the
    /// first non-ASCII pair of blocks and checked from there; with 16-byte ones always by
    /// mask. After `Ascii` the prefix skip runs on into them, and only what it leaves is
    /// checked so. `None`: no window, an input under half a window plus a register (with
    /// 32-byte registers, ASCII blocks skipped up to the first that is not and every
    /// register checked from there; with 16-byte ones, by mask).
    Rest(Option<Way>),
    /// Half a window and 4 blocks ([`LONG_REST_BLOCKS`]) and the tail, after no window (an
    /// input of over half a window, not checked in one piece with either register) or
    /// after a window checked this way (set up as for `Window(way)`: ASCII but for the
    /// sequence and its neighbours), so that they start at a window's end. After sparse
    /// text (and no window), ASCII pairs of blocks are skipped up to the first that is not
    /// before the mask, and a sequence left open at the start must be caught. (After
    /// `Ascii`, the prefix skip runs on into these blocks, and the rest starts where it
    /// stopped, at a non-ASCII pair or the last pair.)
    LongRest(Option<Way>),
}

/// Blocks of [`Region::LongRest`]: half a window and four.
const LONG_REST_BLOCKS: usize = WINDOW_BLOCKS / 2 + 4;

impl Region {
    /// Every region: each way of a window, and the blocks after windows of each kind.
    fn all() -> Vec<Region> {
        let mut all: Vec<Region> = Way::ALL.into_iter().map(Region::Window).collect();
        // (After the windows set up for `MaskAhead`, the blocks after them are those after
        // `Mask`'s.)
        let before_rest = || Way::ALL.into_iter().filter(|&way| way != Way::MaskAhead);
        all.extend([Region::FirstWindow, Region::Rest(None)]);
        all.extend(before_rest().map(|way| Region::Rest(Some(way))));
        all.push(Region::LongRest(None));
        all.extend(before_rest().map(|way| Region::LongRest(Some(way))));
        all
    }

    /// Blocks under test, the windows before them (blocks holding an `é` in each), and the
    /// blocks after them, not under test, for the kernels with `register`-byte registers
    /// (`None`: this region does not apply to them).
    fn layout(self, register: usize) -> Option<(usize, Vec<Vec<usize>>, usize)> {
        Some(match self {
            Region::Window(Way::MaskAhead) => (
                WINDOW_BLOCKS,
                Way::MaskAhead.set_up(register)?,
                WINDOW_BLOCKS + 4,
            ),
            Region::Window(way) => (WINDOW_BLOCKS, way.set_up(register)?, 4),
            Region::FirstWindow => (WINDOW_BLOCKS, Vec::new(), 4),
            Region::Rest(None) => (8, Vec::new(), 0),
            Region::Rest(Some(way)) => (8, way.set_up(register)?, 0),
            Region::LongRest(None) => (LONG_REST_BLOCKS, Vec::new(), 0),
            Region::LongRest(Some(way)) => {
                let mut windows = way.set_up(register)?;
                windows.push(Vec::new());
                (LONG_REST_BLOCKS, windows, 0)
            }
        })
    }
}

/// A non-ASCII character for the background, put in the middle of a block (away from the
/// block boundaries where the sequences under test go).
const E_ACUTE: &[u8] = "é".as_bytes();

/// The blocks on either side of a boundary, and the other blocks of the region.
#[derive(Copy, Clone)]
struct Neighbours {
    /// The block before the boundary holds an `é`.
    before: bool,
    /// The block after it does.
    after: bool,
    /// Block 0 of the region holds an `é` (away from boundaries 0 to 2): the switch at the
    /// boundary is then not the region's first (a mask's first switch is checked apart
    /// from the others), and the blocks after the last window are not skipped up to it.
    decoy: bool,
    /// Every other block of the region and after it holds an `é`: dense text.
    dense: bool,
}

impl Neighbours {
    fn all() -> Vec<Neighbours> {
        let mut all = Vec::new();
        for dense in [false, true] {
            for (before, after) in [(false, false), (false, true), (true, false), (true, true)] {
                all.push(Neighbours {
                    before,
                    after,
                    decoy: false,
                    dense,
                });
            }
        }
        all.push(Neighbours {
            before: false,
            after: false,
            decoy: true,
            dense: false,
        });
        all
    }

    /// Only ASCII around the boundary (with and without the decoy).
    fn is_ascii(&self) -> bool {
        !self.before && !self.after && !self.dense
    }
}

/// The kernels that check the placements of [`block_placements`] for registers of
/// `register` bytes: those with registers of that width, whose blocks start where those
/// placements put the block boundaries (after one register); the scalar kernel, which
/// has no blocks, with the 16-byte ones; and the dispatched functions with the detected
/// kernel's width.
///
/// (Every kernel checked every width's placements until the AVX-512 kernel came. A
/// boundary of one width lies inside a register of another width's main loop, where the
/// check reads the three bytes before each byte from memory as anywhere else in the loop;
/// the inputs under a window, where the first register and the end matter, are placed at
/// every offset by the tests above. With the three widths' placements on every kernel,
/// `class_triples_across_blocks` and `every_pair_across_blocks` alone took 566 s (one at
/// a time) in a release build on the Intel Xeon host, more than the whole file had
/// before, 494 s; CI ran within ten minutes of its limit there already.)
struct ByRegister {
    register: usize,
    kernels: Vec<Kernel>,
    dispatched: bool,
}

impl ByRegister {
    /// Every register width that a kernel on this CPU has.
    fn all() -> Vec<ByRegister> {
        let width = |kernel: Kernel| match kernel {
            Kernel::Avx512 => 64,
            Kernel::Avx2 => 32,
            _ => 16,
        };
        [16, 32, 64]
            .into_iter()
            .map(|register| ByRegister {
                register,
                kernels: kernels()
                    .into_iter()
                    .filter(|&kernel| width(kernel) == register)
                    .collect(),
                dispatched: width(Kernel::detected()) == register,
            })
            .filter(|set| !set.kernels.is_empty())
            .collect()
    }
}

/// Backgrounds and offsets that place a sequence of `n` bytes at, and across, the block
/// boundaries of each [`Region`] of the kernels with registers of `first` bytes (after
/// their first register: see [`ByRegister`]): the windows before it are set up to
/// make the loop check it each way; the blocks on either side of each boundary are ASCII
/// apart from the sequence, or hold an `é` (a switch between ASCII and non-ASCII blocks at
/// every block position), and so may the other blocks ([`Neighbours`]). `keep(region,
/// boundary, neighbours)` picks the placements: `boundary` is the index within the region
/// (0 is its start).
///
/// With `within` > 0, the sequence goes `within` bytes after each block boundary instead,
/// at a register boundary inside the block ([`register_placements`]). Each block's `é`
/// stands `within + 30` bytes (mod 64) after its start, away from that boundary: the
/// neighbour "before" is then the block before the one that holds the sequence, and the
/// neighbour "after" that block itself.
fn block_placements(
    first: usize,
    n: usize,
    within: usize,
    keep: impl Fn(Region, usize, Neighbours) -> bool,
) -> Vec<Placement> {
    let e_at = (within + 30) % 64;
    let mut placements = Vec::new();
    for region in Region::all() {
        let Some((blocks, set_up, after)) = region.layout(first) else {
            continue;
        };
        let start = first + set_up.len() * WINDOW_BLOCKS * 64;
        let len = start + (blocks + after) * 64 + 40;
        let mut background = filler(len);
        let put_e_acute = |input: &mut Vec<u8>, at: usize| {
            input[at..at + 2].copy_from_slice(E_ACUTE);
        };
        if matches!(region, Region::FirstWindow) {
            put_e_acute(&mut background, 4);
        }
        for (w, blocks) in set_up.iter().enumerate() {
            for block in blocks {
                put_e_acute(
                    &mut background,
                    first + (w * WINDOW_BLOCKS + block) * 64 + e_at,
                );
            }
        }
        for index in 0..=blocks {
            let boundary = start + index * 64;
            for neighbours in Neighbours::all() {
                // (At the start of the input, the block before is the first register.)
                let no_block_before = boundary < 64;
                if !keep(region, index, neighbours)
                    || (neighbours.decoy && index < 3)
                    || (neighbours.before && no_block_before)
                {
                    continue;
                }
                let mut input = background.clone();
                if neighbours.dense {
                    for block in 0..blocks + after {
                        put_e_acute(&mut input, start + block * 64 + e_at);
                    }
                }
                if neighbours.decoy {
                    put_e_acute(&mut input, start + e_at);
                }
                if matches!(region, Region::Window(Way::MaskAhead)) && !neighbours.dense {
                    for block in [(index + 16) % WINDOW_BLOCKS, (index + 40) % WINDOW_BLOCKS] {
                        put_e_acute(&mut input, start + block * 64 + e_at);
                    }
                }
                let spacing = match region {
                    Region::Window(Way::Spacing) => Some((2, 4)),
                    Region::Window(Way::SpacingAfterMask) => Some((3, 5)),
                    _ => None,
                };
                if let Some((first, gap)) = spacing {
                    for block in (first..blocks + after).step_by(gap) {
                        put_e_acute(&mut input, start + block * 64 + e_at);
                    }
                }
                // (Written over the dense `é`s, so that an ASCII neighbour is one.)
                let neighbour = |input: &mut Vec<u8>, at: usize, e_acute: bool| {
                    let bytes = if e_acute { E_ACUTE } else { b"ab" };
                    input[at..at + 2].copy_from_slice(bytes);
                };
                if !no_block_before {
                    neighbour(&mut input, boundary - 64 + e_at, neighbours.before);
                }
                neighbour(&mut input, boundary + e_at, neighbours.after);
                // Ending at the boundary, across it in every split, starting at it.
                let at = boundary + within;
                for offset in at - n..=at {
                    placements.push((offset, input.clone()));
                }
            }
        }
    }
    placements
}

/// The first two and the last two boundaries of a window (0 to `WINDOW_BLOCKS`).
fn window_edge(boundary: usize) -> bool {
    boundary <= 1 || boundary + 1 >= WINDOW_BLOCKS
}

/// The first five and the last three boundaries of a [`Region::LongRest`]: where the
/// skip starts, its first pairs, and the end of its blocks.
fn long_rest_edge(boundary: usize) -> bool {
    boundary <= 4 || boundary + 2 >= LONG_REST_BLOCKS
}

#[test]
fn every_pair_across_blocks() {
    // Every neighbour in an input under one window, and after an ASCII window (by mask);
    // after a window by mask (with 32-byte registers, skipped up to the first non-ASCII
    // pair of blocks and checked from there), at the first and last boundaries of each
    // window, and at the edges of the longer blocks after an ASCII window or none (ASCII
    // pairs skipped before the mask), with ASCII around (an input with windows is 4 to
    // 21 KiB). Under emulation (`UTF8CHECK_SMALL_TESTS`), only among ASCII blocks in an
    // input under one window: every neighbour is still tried by the byte-class triples
    // below.
    let small = small_tests();
    for set in ByRegister::all() {
        let placements =
            block_placements(
                set.register,
                2,
                0,
                |region, boundary, neighbours| match region {
                    Region::Rest(None) => !small || neighbours.is_ascii(),
                    Region::Rest(Some(Way::Ascii)) => !small,
                    Region::Rest(Some(Way::Mask)) => !small && neighbours.is_ascii(),
                    Region::Rest(Some(_)) => false,
                    Region::LongRest(None | Some(Way::Ascii)) => {
                        !small && neighbours.is_ascii() && long_rest_edge(boundary)
                    }
                    Region::LongRest(Some(_)) => false,
                    Region::Window(_) | Region::FirstWindow => {
                        !small && neighbours.is_ascii() && window_edge(boundary)
                    }
                },
            );
        check_every_sequence::<2>(&placements, &set.kernels, set.dispatched);
    }
}

#[test]
fn class_triples_across_blocks() {
    // Every region and every neighbour at the blocks after the last window (at the edges
    // of the longer ones); in windows, their first and last boundaries and a few more, and
    // every boundary of a window checked during the next one's mask pass (`MaskAhead`,
    // neighbours not dense: 17 s more on the Zen 4 host, 93 s in all) and of a window by
    // branches (`Branches`).
    // Under emulation, every neighbour only after no window, in windows only the first
    // and last boundaries, and in the longer blocks after them the first two and the last
    // (the inputs with windows are 4 to 21 KiB).
    let small = small_tests();
    let half = WINDOW_BLOCKS / 2;
    for set in ByRegister::all() {
        let placements = block_placements(set.register, 3, 0, |region, boundary, neighbours| {
            if small && !matches!(region, Region::Rest(None)) && !neighbours.is_ascii() {
                return false;
            }
            match region {
                Region::Rest(_) => true,
                Region::LongRest(_) if small => boundary <= 1 || boundary == LONG_REST_BLOCKS,
                Region::LongRest(_) => long_rest_edge(boundary),
                Region::Window(_) | Region::FirstWindow if small => window_edge(boundary),
                // Every block of a window checked while the next one's mask is taken, and
                // of a window in a `spaced_run`.
                Region::Window(Way::MaskAhead | Way::Spacing | Way::SpacingAfterMask) => {
                    !neighbours.dense
                }
                // Every block of a window by branches, each a switch between ASCII and
                // non-ASCII blocks; all of them non-ASCII at its edges.
                Region::Window(Way::Branches) => !neighbours.dense || window_edge(boundary),
                Region::Window(_) | Region::FirstWindow => {
                    window_edge(boundary) || [2, 3, 4, half, half + 1].contains(&boundary)
                }
            }
        });
        check_class_sequences::<3>(&placements, &set.kernels, set.dispatched);
    }
}

#[test]
fn every_triple_across_a_block() {
    // A block boundary in the blocks after the last window, with ASCII around: in an input
    // under one window (with 32-byte registers, checked from the first non-ASCII block
    // on) and after an ASCII window (by mask); both splits.
    for set in ByRegister::all() {
        let placements: Vec<Placement> =
            block_placements(set.register, 3, 0, |region, boundary, neighbours| {
                matches!(region, Region::Rest(None | Some(Way::Ascii)))
                    && boundary == 1
                    && neighbours.is_ascii()
                    && !neighbours.decoy
            })
            .into_iter()
            .filter(|(offset, input)| {
                let boundary = input.len() - 40 - 7 * 64;
                *offset == boundary - 1 || *offset == boundary - 2
            })
            .collect();
        assert_eq!(placements.len(), 4);
        // Under emulation (`UTF8CHECK_SMALL_TESTS`, set by CI's aarch64 step) only after
        // no window: 16.7 million inputs each take minutes under qemu.
        let placements: Vec<Placement> = if small_tests() {
            placements
                .into_iter()
                .filter(|(_, input)| input.len() < 1024)
                .collect()
        } else {
            placements
        };
        check_every_sequence::<3>(&placements, &set.kernels, false);
    }
}

/// [`block_placements`] across each register boundary inside a block (16, 32 and 48 bytes
/// in with 16-byte registers, 32 with 32-byte ones; none with 64-byte ones), in every
/// split: a sequence that ends or starts at one lies within a register.
fn register_placements(
    register: usize,
    n: usize,
    keep: impl Fn(Region, usize, Neighbours) -> bool + Copy,
) -> Vec<Placement> {
    (register..64)
        .step_by(register)
        .flat_map(|within| {
            // (Blocks start `register` bytes (mod 64) into the input, after the first
            // register.)
            block_placements(register, n, within, keep)
                .into_iter()
                .filter(move |(offset, _)| {
                    let in_block = (offset - register) % 64;
                    in_block < within && within < in_block + n
                })
        })
        .collect()
}

/// The register boundaries inside a block of the main loop. With 16-byte registers on x86
/// the high nibbles of the bytes before each register of a block but the first come from
/// the register before (`check_block` and `HIGH_NIBBLES_FROM_REGISTERS` in
/// src/generic.rs), so each is a boundary of its own code. Every pair across each, in a
/// window by mask, in one checked during the next window's mask pass and in one of dense
/// text checked whole (`Full`), at its second and middle blocks, with ASCII around or in
/// dense text; and every triple of byte classes across each, in every way of a window
/// (second and middle blocks) and in the blocks after no window and after a dense one
/// (second block), with each neighbour but the decoy. Under emulation
/// (`UTF8CHECK_SMALL_TESTS`; NEON takes these nibbles from the bytes), only the triples
/// in the window by mask and the dense one, at the second block, with ASCII around or in
/// dense text.
#[test]
fn sequences_across_the_registers_of_a_block() {
    let small = small_tests();
    let half = WINDOW_BLOCKS / 2;
    let ascii_or_dense = |neighbours: Neighbours| {
        (neighbours.is_ascii() && !neighbours.decoy)
            || (neighbours.dense && neighbours.before && neighbours.after)
    };
    for set in ByRegister::all() {
        if !small {
            let pairs = register_placements(set.register, 2, |region, boundary, neighbours| {
                matches!(
                    region,
                    Region::Window(Way::Full | Way::Mask | Way::MaskAhead)
                ) && [1, half].contains(&boundary)
                    && ascii_or_dense(neighbours)
            });
            check_every_sequence::<2>(&pairs, &set.kernels, set.dispatched);
        }
        let triples = register_placements(set.register, 3, |region, boundary, neighbours| {
            if small {
                return matches!(region, Region::Window(Way::Full | Way::Mask))
                    && boundary == 1
                    && ascii_or_dense(neighbours);
            }
            !neighbours.decoy
                && match region {
                    Region::Window(_) => [1, half].contains(&boundary),
                    Region::Rest(None | Some(Way::Full)) => boundary == 1,
                    _ => false,
                }
        });
        check_class_sequences::<3>(&triples, &set.kernels, set.dispatched);
    }
}

/// Inputs of a window and more whose first register is ASCII have their pairs of ASCII
/// blocks skipped before the windows' machinery (`generic::ascii_start`), on the grid of
/// pairs that starts after the first register: the windows start where the skip stopped,
/// or, where it reached the last whole pair, the bytes after it are checked on their own.
/// Every triple of byte classes at every boundary of that grid (both splits, and the
/// triple just after it, where the skip stops) in ASCII filler of a register, a window,
/// two blocks and a tail, and at the end; per register width. Under emulation
/// (`UTF8CHECK_SMALL_TESTS`), the first two boundaries and the last two, and the end.
#[test]
fn class_triples_across_the_ascii_prefix() {
    for set in ByRegister::all() {
        let len = set.register + WINDOW_BLOCKS * 64 + 2 * 64 + 37;
        let boundaries: Vec<usize> = (set.register..len).step_by(2 * 64).collect();
        let kept = |i: usize| !small_tests() || i < 2 || i + 2 >= boundaries.len();
        let mut offsets: Vec<(usize, usize)> = boundaries
            .iter()
            .enumerate()
            .filter(|&(i, _)| kept(i))
            .flat_map(|(_, &boundary)| [boundary - 2, boundary - 1, boundary])
            .filter(|&offset| offset + 3 <= len)
            .map(|offset| (offset, len))
            .collect();
        offsets.push((len - 3, len));
        check_class_sequences::<3>(&in_filler(&offsets), &set.kernels, set.dispatched);
    }
}
