//! Every error, not just the first: [`utf8_chunks`] walks an input as std's
//! `<[u8]>::utf8_chunks()` does, a run of valid text and the invalid sequence after it at a
//! time, with the SIMD kernel doing the work wherever the text is valid.
//!
//! # How errors are walked
//! A kernel has these entry points: `validate` says *whether* some bytes are UTF-8 (and,
//! if not, a checkpoint before which no rule is broken), at full speed over long inputs
//! (`validate_early` says the same, stopping sooner after an error);
//! `first_invalid` checks a block of registers at a time from the start and says *what*
//! the first invalid sequence is, at a cost that grows with the distance to it (from the
//! first failing byte, the invalid sequence starts at most 3 bytes earlier, and the
//! scalar decoder decodes the few characters from the one before it, in the same call).
//! Walking every error is a loop of finding the next one, with these costs to keep down:
//!
//! * **Locating** ([`locate`]): after `validate` failed, `first_invalid` runs from its
//!   checkpoint (the first failing block of a window of the main loop, or the start of an
//!   input too short for it or of its tail).
//! * **Errors a few bytes apart** (binary noise, random bytes, text in another encoding):
//!   while they come less than [`BLOCKS_GAP`] bytes apart on average (a running average,
//!   so that the few errors of one damaged character do not count as dense; once there,
//!   until the average reaches [`LEAVE_BLOCKS_GAP`]), the kernel splits a 64-byte block at
//!   a time into characters and invalid sequences, as bit masks
//!   ([`crate::kernel::BlockErrorsFn`], [`Mode::Blocks`]), and each next error is the next
//!   bit: one kernel call per block and no branch per error, 2 to 3 times faster than
//!   finding them one by one. Walked by [`Iterator::fold`] (`for_each`, `sum`, `count`,
//!   [`crate::from_utf8_lossy`]), the errors of a block and the blocks after it are taken
//!   in one loop ([`Walker::walk_blocks`]), with no call of `next` and no walker state
//!   saved and reloaded per error: at one error per ~64 bytes that is 1.5 times faster
//!   than a call of `next` each. A block split costs about what finding an error or two
//!   one by one costs, though, so sparser errors are walked as below.
//! * **Dense errors** (a damaged field every line): every kernel call has a fixed cost,
//!   about that of decoding a few dozen bytes. So while errors come less than
//!   [`DENSE_GAP`] bytes apart on average, the [`Walker`] decodes the next
//!   [`DENSE_SPAN`] bytes after each error with the scalar decoder (single ASCII bytes one
//!   at a time, longer runs a word at a time, each other sequence with `scalar::sequence`,
//!   the decoder's own rules), and stays with it while errors keep coming and the text
//!   between them is ASCII with a non-ASCII letter here and there: it hands over to the
//!   kernel after two valid non-ASCII characters (or two in a row), which the kernel
//!   checks many times faster than the decoder. Once a span has handed over, the next
//!   dense errors are found by `first_invalid` straight from the end of the last one
//!   ([`Mode::Near`]), without a scalar span: in text with non-ASCII characters between
//!   the errors (Cyrillic or Czech text, HTML in French) that made one error per ~64
//!   bytes up to 1.7 times faster (`docs/design.md`); on mostly-ASCII text the spans
//!   stay, as the decoder skips ASCII faster than a kernel call costs. After an isolated
//!   error it skips at most [`SPARSE_SPAN`] bytes of ASCII and decodes one character that
//!   way.
//! * **Clean stretches after an error**: then the kernel runs on *windows* that start at
//!   [`FIRST_WINDOW`] bytes and grow [`GROWTH`]-fold while they stay clean, up to the rest
//!   of the input; windows up to [`NEAR_WINDOW`] bytes with `first_invalid`, which stops
//!   at the error, the next one with `validate_early`, which stops within 512 bytes of
//!   it ([`EARLY_EXIT_WINDOW`]), longer ones with `validate`. So the kernel's work
//!   between two errors is at most a few times the distance between them plus one window
//!   (a kernel that always read to the end of its input would make an unbounded call per
//!   error quadratic).
//!   Valid input is a single call of `validate` over the whole input, as in
//!   [`crate::from_utf8`]: the walk starts in windowed mode only after an error.
//!
//! Windows end at a character boundary of valid text (never before a continuation byte),
//! so that the kernel does not see a character cut by the window's end as an error; a
//! character that is cut anyway is decoded again by the next window, which starts at its
//! lead byte.
//!
//! The chunks are std's exactly: each invalid sequence is the maximal subpart that
//! `Utf8Error::error_len` describes, and an input that ends inside a sequence ends with
//! a chunk whose invalid bytes are that unfinished sequence.

use core::fmt;
use core::iter::FusedIterator;
use core::ops::ControlFlow;

use crate::error::ErrorKind;
use crate::generic::BLOCK;
use crate::kernel::{BlockErrors, BLOCK_READ};
use crate::scalar::{self, RawError};
use crate::{dispatch, scalar::is_continuation};

/// Errors closer together than this on average (from the end of one invalid sequence to
/// the start of the next; see [`Walker`]) are *dense*: on mostly-ASCII text a kernel call
/// to find the next one would cost more than decoding the bytes in between. (A call of
/// `first_invalid` costs about 12 ns, the indirect call, the constants, the mispredicted
/// exit of its loop and the decoding of the invalid sequence; the decoder skips ASCII 16
/// bytes at a time and costs about a nanosecond per non-ASCII character, which is why
/// its spans hand over to the kernel after two of them.)
const DENSE_GAP: usize = 256;

/// Errors closer together than this on average are split a block at a time
/// ([`Mode::Blocks`]); between this and [`DENSE_GAP`], the cost of a block split per 64
/// bytes is more than that of finding each error on its own. (At one error per ~64 bytes
/// the block split is 1.1 to 1.2 times faster with `next` and 1.5 times with `fold`; at one
/// per ~128 bytes, 5% to 10% slower with `next`.)
const BLOCKS_GAP: usize = 96;

/// In [`Mode::Blocks`], the running average of the distances between errors must reach
/// this (rather than [`BLOCKS_GAP`]) to leave it. Where errors come ~64 bytes apart, with
/// the distances spread from 1 to 127, the average crosses 96 every few dozen errors, and
/// each crossing left the block split for a scalar span or `first_invalid` and then a new
/// block at the next error: with the margin, the chunk walks at one error per ~64 bytes
/// were 1.05 times faster (`for`, `fold` and `from_utf8_lossy`), and at ~96 to ~192
/// bytes 1.00 to 1.04 times.
const LEAVE_BLOCKS_GAP: usize = 2 * BLOCKS_GAP;

/// In [`Mode::Blocks`], how many blocks in a row without an error hand over to the
/// kernel's windows (which check clean text several times faster than the block split).
const CLEAN_BLOCKS: usize = 2;

/// After a dense error, how many clean bytes the scalar decoder checks before the kernel
/// takes over again.
const DENSE_SPAN: usize = 256;

/// After an isolated error, how many bytes of ASCII are skipped at most before the
/// decoder decodes one character and the kernel takes over (errors come in small
/// clusters: a Latin-1 word, a cut character).
const SPARSE_SPAN: usize = 16;

/// The first window of the kernel after a scalar span; each clean window is followed by
/// one [`GROWTH`] times longer.
const FIRST_WINDOW: usize = 1 << 10;

/// Kernel windows up to this long are searched a block at a time
/// ([`dispatch::first_invalid`]), longer ones by the main loop and then [`locate`].
const NEAR_WINDOW: usize = 4 << 10;

/// Kernel windows longer than [`NEAR_WINDOW`] and up to this long are checked with
/// [`dispatch::validate_early`], which stops within 512 bytes of an error, longer ones
/// with [`dispatch::validate`], which stops at the end of its 4 KiB window and checks that
/// window again up to the error, but checks clean text a few percent faster. (This is the
/// window after the near ones, where the next error most often is once errors come a few
/// KiB apart: at one error per ~4 KiB of real text, the chunk walk was 1.14 times faster
/// with `validate_early` there; over the longer windows too, errors ~16 KiB apart were
/// 1.10 times faster rather than 1.04, but ~64 KiB apart up to 0.93 times as fast on
/// mixed text, as clean text costs more in its short windows.)
const EARLY_EXIT_WINDOW: usize = NEAR_WINDOW * GROWTH;

/// How much longer each clean window is than the previous one.
const GROWTH: usize = 4;

/// How the walk goes on at the next byte.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Mode {
    /// Errors a few bytes to a few dozen bytes apart (binary noise, random bytes, text in
    /// another encoding): the invalid sequences of a block of 64 bytes at a time, all at
    /// once ([`Blocks`]).
    Blocks,
    /// Right after an invalid sequence where errors are dense: the scalar decoder, for
    /// this many bytes or until text worth the kernel shows (see [`decode_span`]), and
    /// again after each error it finds.
    Scalar(usize),
    /// After an isolated error: ASCII skipped a word at a time for up to this many bytes,
    /// and the first other sequence decoded; then the kernel.
    Ascii(usize),
    /// The kernel, on a window of this many bytes (`usize::MAX`: the rest of the input).
    Kernel(usize),
    /// Dense errors in text ([`Walker::text`]): `first_invalid` from the end of the last
    /// error, over up to [`NEAR_WINDOW`] bytes, then windows.
    Near,
}

/// The block that [`Mode::Blocks`] walks: its invalid sequences, and where the next bytes
/// to walk start in it.
#[derive(Copy, Clone, Debug)]
struct Blocks {
    errors: BlockErrors,
    /// The address of the block's first byte (the bytes of each call start somewhere in
    /// it, or up to 3 bytes after it).
    start: usize,
    /// The block reaches the end of the bytes.
    last: bool,
    /// Blocks in a row without an error.
    clean: usize,
    /// The address and length of the bytes that the next call must get for the block to
    /// still describe them (the rest after the error returned last); other bytes start
    /// a new block.
    next: (usize, usize),
}

impl Blocks {
    /// Describes no bytes.
    const NONE: Blocks = Blocks {
        errors: BlockErrors {
            starts: 0,
            two: 0,
            three: 0,
            carry: 0,
        },
        start: 0,
        last: false,
        clean: 0,
        next: (0, usize::MAX),
    };

    /// The invalid sequences of the block from byte `at` on (none if `at` is past its end,
    /// after a sequence that its end cut).
    #[inline(always)]
    fn pending(&self, at: usize) -> u64 {
        if at < BLOCK {
            self.errors.starts & u64::MAX << at
        } else {
            0
        }
    }
}

/// How [`Walker::walk_blocks`] ended.
enum Walked {
    /// After an invalid sequence: `emit` asked to stop, or the walker left
    /// [`Mode::Blocks`] (errors thinned out).
    Stopped,
    /// At the end of the bytes, with no invalid sequence after the last one given.
    End,
    /// Errors thinned out: the bytes after the last invalid sequence are valid up to
    /// this offset, a character boundary, and the kernel's windows go on from there.
    Clean(usize),
}

/// Where [`Walker::first_error`] split some bytes: the valid text before the first invalid
/// sequence, and that sequence. (Plain numbers, with no `Option` to match: with an
/// `Option<RawError>` the chunk iterator stored its result and loaded it back for every
/// chunk, which cost about 15% where chunks are a few bytes long, as in random bytes.)
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Split {
    /// Where the invalid sequence starts: the length of the valid text before it (the
    /// length of the bytes if they are UTF-8).
    pub(crate) at: usize,
    /// Its `error_len` as `from_utf8` would say it, 0 when the bytes end inside it (or
    /// are UTF-8).
    pub(crate) error_len: u8,
    /// The length of the invalid sequence (0 if the bytes are UTF-8).
    pub(crate) invalid: usize,
}

impl Split {
    /// The split of `bytes` at `found`, the first invalid sequence (`None`: `bytes` is
    /// UTF-8).
    #[inline(always)]
    fn new(bytes: &[u8], found: Option<RawError>) -> Split {
        match found {
            None => Split {
                at: bytes.len(),
                error_len: 0,
                invalid: 0,
            },
            Some((at, error_len)) => Split {
                at,
                error_len: error_len.unwrap_or(0),
                invalid: error_len.map_or(bytes.len() - at, usize::from),
            },
        }
    }
}

/// The strategy that finds one invalid sequence after another (see the module
/// documentation); it remembers only whether errors were dense lately.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Walker {
    mode: Mode,
    /// A running average of the distances between errors (each new distance counts for
    /// half), so that a cluster of errors a few bytes apart (one damaged character, which
    /// often leaves a stray continuation byte behind) does not make sparse errors dense.
    gap: usize,
    /// The last scalar span stopped at text worth the kernel (non-ASCII characters
    /// between the errors) rather than at an error: while errors stay dense, the kernel
    /// then finds each one directly ([`Mode::Near`]).
    text: bool,
    /// The block of [`Mode::Blocks`], once it has one (an `Option`, so that a walker
    /// that never needs one does not set one up: a chunk walk of a line costs a few
    /// nanoseconds in all, and writing a block's worth of fields made it 3% to 5% slower).
    blocks: Option<Blocks>,
}

impl Default for Walker {
    fn default() -> Walker {
        Walker {
            mode: Mode::Kernel(usize::MAX),
            gap: 4 * DENSE_GAP,
            text: false,
            blocks: None,
        }
    }
}

impl Walker {
    /// Switches to the scalar decoder after an error `gap` bytes after the previous one
    /// (or the start): for a long span if errors have been dense lately, else a short one.
    #[inline]
    fn after_error(&mut self, gap: usize) {
        self.average(gap);
        self.mode = if self.gap < BLOCKS_GAP {
            Mode::Blocks
        } else {
            self.sparser()
        };
    }

    /// [`after_error`](Walker::after_error) in [`Mode::Blocks`], which stays until the
    /// average reaches [`LEAVE_BLOCKS_GAP`] (a branch taken only then, rather than the
    /// mode chosen and stored again for every error).
    #[inline(always)]
    fn after_block_error(&mut self, gap: usize) {
        self.average(gap);
        if self.gap >= LEAVE_BLOCKS_GAP {
            self.mode = self.sparser();
        }
    }

    /// Counts an error `gap` bytes after the previous one into the running average.
    #[inline(always)]
    fn average(&mut self, gap: usize) {
        self.gap = self.gap / 2 + gap.min(usize::MAX / 2) / 2;
    }

    /// The mode after an error where errors are not a block split's worth dense.
    #[inline(always)]
    fn sparser(&self) -> Mode {
        if self.gap >= DENSE_GAP {
            Mode::Ascii(SPARSE_SPAN)
        } else if self.text {
            Mode::Near
        } else {
            Mode::Scalar(DENSE_SPAN)
        }
    }

    /// The next [`first_error`](Walker::first_error) of `len` bytes is one kernel call
    /// over all of them.
    #[inline(always)]
    fn whole(&self, len: usize) -> bool {
        matches!(self.mode, Mode::Kernel(window) if window >= len)
    }

    /// Forgets the block of [`Mode::Blocks`]: for callers whose bytes may change between
    /// calls at the same address (a reader's buffer).
    #[cfg(feature = "std")]
    pub(crate) fn forget_block(&mut self) {
        self.blocks = None;
    }

    /// The first invalid sequence of `bytes`, which starts at a character boundary of the
    /// stream (the start of the input or the end of an invalid sequence).
    #[inline(always)]
    pub(crate) fn first_error(&mut self, bytes: &[u8]) -> Split {
        let found = match self.mode {
            // Valid input, lines, and the rest after errors that thinned out: one kernel
            // call, inlined, as in `from_utf8`.
            Mode::Kernel(_) if self.whole(bytes.len()) => match dispatch::validate(bytes) {
                Ok(()) => None,
                Err(checkpoint) => self.locate(bytes, checkpoint),
            },
            Mode::Blocks => self.blocks(bytes),
            // Dense errors: most often the next one is within the span, found here
            // without the walk's loop.
            Mode::Scalar(span) => match decode_span(bytes, 0, span) {
                Err(found) => {
                    self.text = false;
                    self.after_error(found.0);
                    Some(found)
                }
                Ok(stop) if stop >= bytes.len() => None,
                Ok(stop) => {
                    self.text = stop < span;
                    self.mode = Mode::Kernel(FIRST_WINDOW);
                    self.walk(bytes, stop)
                }
            },
            Mode::Ascii(_) => self.walk(bytes, 0),
            // Dense errors in text: the kernel from here, most often finding the next error
            // in its first few registers.
            Mode::Near => {
                let end = bytes.len().min(NEAR_WINDOW);
                match dispatch::first_invalid(&bytes[..end]) {
                    // A character cut by the end of the bytes searched: decode it again.
                    Some((at, None)) if end < bytes.len() => {
                        self.mode = Mode::Kernel(NEAR_WINDOW * GROWTH);
                        self.walk(bytes, at)
                    }
                    Some(found) => {
                        self.after_error(found.0);
                        Some(found)
                    }
                    None if end == bytes.len() => None,
                    // Errors thinned out: windows from here.
                    None => {
                        self.mode = Mode::Kernel(NEAR_WINDOW * GROWTH);
                        self.walk(bytes, end)
                    }
                }
            }
            // Errors a few dozen to a few hundred bytes apart: the next one is most often
            // in the first window, found here without the walk's loop.
            Mode::Kernel(window) => match self.window(bytes, 0, window) {
                ControlFlow::Break(found) => found,
                ControlFlow::Continue(pos) => self.walk(bytes, pos),
            },
        };
        Split::new(bytes, found)
    }

    /// The first error of `bytes`, after the kernel failed on all of it at `checkpoint`.
    #[inline(never)]
    fn locate(&mut self, bytes: &[u8], checkpoint: usize) -> Option<RawError> {
        let found = locate(bytes, checkpoint)?;
        self.after_error(found.0);
        Some(found)
    }

    /// The first error of `bytes` in [`Mode::Blocks`]: the next invalid sequence of the
    /// current block if it has one (no kernel call, inlined), else
    /// [`next_blocks`](Walker::next_blocks).
    #[inline(always)]
    fn blocks(&mut self, bytes: &[u8]) -> Option<RawError> {
        let blocks = self.blocks.get_or_insert(Blocks::NONE);
        // Where `bytes` starts in the block.
        let at = (bytes.as_ptr() as usize).wrapping_sub(blocks.start);
        if (bytes.as_ptr() as usize, bytes.len()) == blocks.next {
            let pending = blocks.pending(at);
            if pending != 0 {
                return Some(self.block_error(bytes, 0, at, pending, 0));
            }
        }
        self.next_blocks(bytes)
    }

    /// The first of the invalid sequences `pending` of the current block, which starts
    /// `at` bytes before `bytes[origin]`; the previous error ended at `bytes[previous]`.
    #[inline(always)]
    fn block_error(
        &mut self,
        bytes: &[u8],
        origin: usize,
        at: usize,
        pending: u64,
        previous: usize,
    ) -> RawError {
        let blocks = self.blocks.get_or_insert(Blocks::NONE);
        let first = pending.trailing_zeros();
        let invalid = blocks.errors.len_at(first);
        let start = origin + first as usize - at;
        let end = start + invalid;
        blocks.clean = 0;
        blocks.next = (bytes.as_ptr() as usize + end, bytes.len() - end);
        // A lead byte whose sequence the end of the bytes cut is unfinished (the block
        // read a zero there).
        let error_len = if end == bytes.len() && matches!(bytes[start], 0xC2..=0xF4) {
            None
        } else {
            Some(invalid as u8)
        };
        self.after_block_error(start - previous);
        (start, error_len)
    }

    /// [`blocks`](Walker::blocks) when the current block has no error left: the first
    /// error of the blocks after it, until [`CLEAN_BLOCKS`] in a row have none and the
    /// kernel's windows take over. (Inlined into `next` with the walk of blocks: as a call
    /// once per block, its saved registers, stack frame and result returned through
    /// memory cost about 29 instructions per block, and a `for` loop at one error per ~64
    /// bytes was 1.06 times slower; at other densities and on lines the same speed.)
    #[inline(always)]
    fn next_blocks(&mut self, bytes: &[u8]) -> Option<RawError> {
        let (first, _, walked) =
            self.walk_blocks(bytes, None, |_, _, found| ControlFlow::Break(Some(found)));
        match walked {
            Walked::Stopped => first,
            Walked::End => None,
            Walked::Clean(pos) => self.walk(bytes, pos),
        }
    }

    /// Walks `bytes` in [`Mode::Blocks`] from their start (right after the last error the
    /// block gave, or a character boundary where a new block starts), folding each invalid
    /// sequence into `acc` with `emit` (given also where the valid text before it starts),
    /// with no call per block or per error: written once for
    /// [`next_blocks`](Walker::next_blocks), which stops at the first, and for
    /// [`Utf8Chunks::fold`], which takes them all. Returns the accumulator, where the last
    /// invalid sequence given ended, and how the walk ended.
    #[inline(always)]
    fn walk_blocks<B>(
        &mut self,
        bytes: &[u8],
        mut acc: B,
        mut emit: impl FnMut(B, usize, RawError) -> ControlFlow<B, B>,
    ) -> (B, usize, Walked) {
        let len = bytes.len();
        // The current block starts `at` bytes before `bytes[origin]`.
        let (mut origin, mut at) = (0, 0);
        // Where the last invalid sequence given to `emit` ended.
        let mut previous = 0;
        {
            let blocks = self.blocks.get_or_insert(Blocks::NONE);
            if (bytes.as_ptr() as usize, len) == blocks.next {
                at = (bytes.as_ptr() as usize).wrapping_sub(blocks.start);
            } else {
                // Other bytes (the first dense error of a walk): a block from their
                // start, a character boundary.
                block_errors_at(bytes, 0, 0, &mut blocks.errors);
                (blocks.start, blocks.last, blocks.clean) =
                    (bytes.as_ptr() as usize, len <= BLOCK, 0);
            }
        }
        loop {
            let mut pending = self.blocks.get_or_insert(Blocks::NONE).pending(at);
            while pending != 0 {
                let found = self.block_error(bytes, origin, at, pending, previous);
                let from = previous;
                previous = found.0 + found.1.map_or(len - found.0, usize::from);
                acc = match emit(acc, from, found) {
                    ControlFlow::Continue(acc) if self.mode == Mode::Blocks => acc,
                    ControlFlow::Continue(acc) | ControlFlow::Break(acc) => {
                        return (acc, previous, Walked::Stopped)
                    }
                };
                pending &= pending - 1;
            }
            let blocks = self.blocks.get_or_insert(Blocks::NONE);
            if blocks.last {
                *blocks = Blocks::NONE;
                return (acc, previous, Walked::End);
            }
            // The next block continues this one, or, if the bytes start at its end or
            // after (the last error ended there), starts where they start: a character
            // boundary, right after that error.
            let (next, carry) = if at < BLOCK {
                (origin + BLOCK - at, blocks.errors.carry)
            } else {
                (origin, 0)
            };
            blocks.clean += 1;
            if blocks.clean > CLEAN_BLOCKS {
                // Errors thinned out: windows from the end of the last character of the
                // block (complete, as the block has no error).
                *blocks = Blocks::NONE;
                self.mode = Mode::Kernel(FIRST_WINDOW);
                let pos = next + carry.trailing_ones() as usize;
                let walked = if pos >= len {
                    Walked::End
                } else {
                    Walked::Clean(pos)
                };
                return (acc, previous, walked);
            }
            block_errors_at(bytes, next, carry, &mut blocks.errors);
            blocks.start = bytes.as_ptr() as usize + next;
            blocks.last = next + BLOCK >= len;
            (origin, at) = (next, 0);
        }
    }

    /// [`first_error`](Walker::first_error) in scalar spans and kernel windows, from
    /// `pos`, a character boundary.
    #[inline(never)]
    fn walk(&mut self, bytes: &[u8], mut pos: usize) -> Option<RawError> {
        let len = bytes.len();
        loop {
            let span = match self.mode {
                Mode::Scalar(span) => decode_span(bytes, pos, pos.saturating_add(span)),
                Mode::Ascii(span) => skip_to_text(bytes, pos, pos.saturating_add(span)),
                // (Not reached: the walk returns at the error that chooses `Blocks` or
                // `Near`; `blocks` leaves `Blocks` and `first_error` leaves `Near` for
                // windows before they call it. Windows serve them as well.)
                Mode::Blocks | Mode::Near => {
                    self.mode = Mode::Kernel(FIRST_WINDOW);
                    continue;
                }
                Mode::Kernel(window) => match self.window(bytes, pos, window) {
                    ControlFlow::Break(found) => return found,
                    ControlFlow::Continue(next) => {
                        pos = next;
                        continue;
                    }
                },
            };
            match span {
                Err(found) => {
                    self.text = false;
                    self.after_error(found.0);
                    return Some(found);
                }
                Ok(stop) if stop >= len => return None,
                // A clean span: the kernel from here.
                Ok(stop) => {
                    if let Mode::Scalar(span) = self.mode {
                        self.text = stop < pos.saturating_add(span);
                    }
                    pos = stop;
                    self.mode = Mode::Kernel(FIRST_WINDOW);
                }
            }
        }
    }

    /// Checks the kernel's window of about `window` bytes at `pos`, a character boundary:
    /// `Break` with the first error of `bytes` or `None` at the end of `bytes`, else
    /// `Continue` from where the next window starts (a larger one).
    #[inline(always)]
    fn window(
        &mut self,
        bytes: &[u8],
        pos: usize,
        window: usize,
    ) -> ControlFlow<Option<RawError>, usize> {
        let len = bytes.len();
        let end = window_end(bytes, pos, window);
        let piece = &bytes[pos..end];
        let found = if window <= NEAR_WINDOW {
            dispatch::first_invalid(piece)
        } else {
            let checked = if window <= EARLY_EXIT_WINDOW {
                dispatch::validate_early(piece)
            } else {
                dispatch::validate(piece)
            };
            match checked {
                Ok(()) => None,
                Err(checkpoint) => locate(piece, checkpoint),
            }
        };
        self.mode = Mode::Kernel(window.saturating_mul(GROWTH));
        match found.map(|(at, error_len)| (pos + at, error_len)) {
            // A character cut by the window's end (invalid bytes there kept `window_end`
            // from finding a boundary): decode it again.
            Some((at, None)) if end < len => ControlFlow::Continue(at),
            Some((at, error_len)) => {
                self.after_error(at);
                ControlFlow::Break(Some((at, error_len)))
            }
            None if end == len => ControlFlow::Break(None),
            None => ControlFlow::Continue(end),
        }
    }
}

/// The first error of `bytes` (which starts at a character boundary), after the kernel
/// failed on it at `checkpoint`: the error lies after `checkpoint`, up to a window of the
/// main loop (a few hundred bytes, up to 4 KiB) later, and `first_invalid` finds it from
/// there.
#[inline]
fn locate(bytes: &[u8], checkpoint: usize) -> Option<RawError> {
    let start = scalar::boundary_before(bytes, checkpoint);
    dispatch::first_invalid(&bytes[start..]).map(|(at, error_len)| (start + at, error_len))
}

/// The invalid sequences of the block at `bytes[pos..]` (see
/// [`crate::kernel::BlockErrorsFn`]); zeros stand for the bytes after the end.
#[inline]
fn block_errors_at(bytes: &[u8], pos: usize, carry: u64, out: &mut BlockErrors) {
    match bytes.get(pos..pos + BLOCK_READ) {
        Some(read) => dispatch::block_errors(read.try_into().unwrap(), carry, out),
        None => {
            let mut padded = [0; BLOCK_READ];
            let rest = &bytes[pos..];
            padded[..rest.len()].copy_from_slice(rest);
            dispatch::block_errors(&padded, carry, out);
        }
    }
}

/// Decodes `bytes` from `pos`, a character boundary, with the scalar decoder until at
/// least `end`: a loop over single bytes, as short ASCII runs between dense errors need,
/// that skips longer runs a word at a time. It stops early after the second valid
/// non-ASCII character, or after the first if another follows it: where the text has more
/// (Czech or Polish prose, text in a non-Latin script), the kernel checks it much faster
/// than decoding it a character at a time. Returns the character boundary where it
/// stopped (the end of `bytes`, at or after `end`, or early), or the first error.
#[inline(always)]
fn decode_span(bytes: &[u8], mut pos: usize, end: usize) -> Result<usize, RawError> {
    let end = end.min(bytes.len());
    let mut decoded = 0;
    while pos < end {
        if bytes[pos] < 0x80 {
            pos += 1;
            if pos < end && bytes[pos] < 0x80 {
                pos = scalar::skip_ascii(bytes, pos + 1);
            }
        } else {
            pos += scalar::sequence(bytes, pos)?;
            decoded += 1;
            if decoded == 2 || (pos < end && bytes[pos] >= 0x80) {
                break;
            }
        }
    }
    Ok(pos)
}

/// Skips ASCII from `pos`, a character boundary, up to `end` a word at a time, and
/// decodes the sequence after it. Returns where it stopped (after that sequence, or at
/// `end` or the end of `bytes` in ASCII), or the error that sequence is.
#[inline(always)]
fn skip_to_text(bytes: &[u8], pos: usize, end: usize) -> Result<usize, RawError> {
    let end = end.min(bytes.len());
    let pos = scalar::skip_ascii(&bytes[..end], pos);
    if pos >= end {
        return Ok(pos);
    }
    Ok(pos + scalar::sequence(bytes, pos)?)
}

/// The end of the kernel's window of about `window` bytes from `pos`: the end of `bytes`,
/// or a point before which no character of valid text is cut (up to 3 bytes earlier, so
/// that it does not stand before a continuation byte), but always after `pos`.
#[inline]
fn window_end(bytes: &[u8], pos: usize, window: usize) -> usize {
    let len = bytes.len();
    if len - pos <= window {
        return len;
    }
    let mut end = pos + window;
    let floor = end.saturating_sub(3).max(pos + 1);
    while end > floor && is_continuation(bytes[end]) {
        end -= 1;
    }
    end
}

/// Iterates over `v` in chunks of valid UTF-8 each followed by the invalid sequence after
/// it, exactly as `<[u8]>::utf8_chunks()` of std does (on every input): each
/// [`Utf8Chunk`] has a [`valid`](Utf8Chunk::valid) part (possibly empty) and an
/// [`invalid`](Utf8Chunk::invalid) part, which is empty only in the last chunk when the
/// input ends with valid text. An input that ends inside a multi-byte sequence ends with
/// a chunk whose invalid part is that unfinished sequence.
///
/// Where the text is valid, the SIMD kernel of [`from_utf8`](crate::from_utf8) checks it;
/// see the module source for how dense errors are walked without restarting it.
///
/// ```
/// use utf8check::{utf8_chunks, ErrorKind};
///
/// let bytes = b"caf\xC3\xA9 \xFF and \xE2\x82";
/// let chunks: Vec<_> = utf8_chunks(bytes)
///     .map(|chunk| (chunk.valid(), chunk.invalid(), chunk.error_kind()))
///     .collect();
/// assert_eq!(
///     chunks,
///     [
///         ("café ", &b"\xFF"[..], Some(ErrorKind::InvalidByte)),
///         (" and ", &b"\xE2\x82"[..], Some(ErrorKind::Truncated)),
///     ]
/// );
///
/// // Valid input is one chunk with nothing invalid; the empty input has no chunk.
/// let mut chunks = utf8_chunks("Grüße".as_bytes());
/// let chunk = chunks.next().unwrap();
/// assert_eq!((chunk.valid(), chunk.invalid(), chunk.error_kind()), ("Grüße", &b""[..], None));
/// assert!(chunks.next().is_none());
/// assert!(utf8_chunks(b"").next().is_none());
/// ```
#[inline]
pub fn utf8_chunks(v: &[u8]) -> Utf8Chunks<'_> {
    Utf8Chunks {
        rest: v,
        walker: Walker::default(),
    }
}

/// A run of valid UTF-8 and the invalid sequence that follows it, from [`utf8_chunks`]
/// (like std's `core::str::Utf8Chunk`, plus the kind of the error).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Utf8Chunk<'a> {
    valid: &'a str,
    invalid: &'a [u8],
    /// What [`error_kind`](Utf8Chunk::error_kind) is decided from, which is done only when
    /// asked (walking dense errors is a few nanoseconds per error, and lossy decoding never
    /// asks): the `error_len` of the invalid sequence (0: `None`), and the byte after its
    /// first byte (0 at the end of the input).
    error_len: u8,
    second: u8,
}

impl<'a> Utf8Chunk<'a> {
    /// The valid UTF-8 before the invalid sequence (possibly empty).
    ///
    /// ```
    /// let chunk = utf8check::utf8_chunks(b"ab\xFF").next().unwrap();
    /// assert_eq!(chunk.valid(), "ab");
    /// ```
    #[inline]
    pub fn valid(&self) -> &'a str {
        self.valid
    }

    /// The invalid sequence after [`valid`](Utf8Chunk::valid): the bytes that
    /// [`from_utf8_lossy`](crate::from_utf8_lossy) replaces with one U+FFFD. 1 to 3 bytes
    /// (the `error_len` of [`Utf8Error`](crate::Utf8Error)), or the unfinished sequence
    /// at the end of the input, or empty in a last chunk of valid text.
    ///
    /// ```
    /// let chunk = utf8check::utf8_chunks(b"ab\xF0\x9F\x98x").next().unwrap();
    /// assert_eq!(chunk.invalid(), b"\xF0\x9F\x98");
    /// ```
    #[inline]
    pub fn invalid(&self) -> &'a [u8] {
        self.invalid
    }

    /// Why [`invalid`](Utf8Chunk::invalid) is invalid: the [`ErrorKind`] that
    /// [`from_utf8`](crate::from_utf8) reports at its first byte, or `None` when it is
    /// empty.
    ///
    /// ```
    /// use utf8check::{utf8_chunks, ErrorKind};
    ///
    /// let kinds: Vec<_> = utf8_chunks(b"\xE0\x80\xAF \xED\xA0\x80").map(|c| c.error_kind()).collect();
    /// assert_eq!(
    ///     kinds,
    ///     [
    ///         Some(ErrorKind::Overlong),               // E0 80: overlong
    ///         Some(ErrorKind::UnexpectedContinuation), // 80
    ///         Some(ErrorKind::UnexpectedContinuation), // AF
    ///         Some(ErrorKind::Surrogate),              // ED A0: a surrogate
    ///         Some(ErrorKind::UnexpectedContinuation), // A0
    ///         Some(ErrorKind::UnexpectedContinuation), // 80
    ///     ]
    /// );
    /// ```
    #[inline]
    pub fn error_kind(&self) -> Option<ErrorKind> {
        let first = *self.invalid.first()?;
        let error_len = if self.error_len == 0 {
            None
        } else {
            Some(self.error_len)
        };
        Some(ErrorKind::classify(&[first, self.second], error_len))
    }
}

/// The iterator of [`utf8_chunks`]: [`Utf8Chunk`]s, each a run of valid UTF-8 and the
/// invalid sequence after it.
#[derive(Clone)]
#[must_use = "iterators are lazy and do nothing unless consumed"]
pub struct Utf8Chunks<'a> {
    /// The bytes not yet walked; they start at a character boundary.
    rest: &'a [u8],
    walker: Walker,
}

impl<'a> Utf8Chunks<'a> {
    /// The chunks of `rest`, which starts with an invalid sequence `gap` bytes after the
    /// start of the input or the previous one (for walks that found the first error with
    /// `from_utf8`).
    #[cfg(feature = "alloc")]
    pub(crate) fn after_error(rest: &'a [u8], gap: usize) -> Utf8Chunks<'a> {
        Utf8Chunks {
            rest,
            walker: {
                let mut walker = Walker::default();
                walker.after_error(gap);
                walker
            },
        }
    }
}

impl<'a> Utf8Chunks<'a> {
    /// [`fold`](Iterator::fold) after its first kernel call (which failed at
    /// `checkpoint`), or instead of it: every chunk, a walk of blocks at a time in
    /// [`Mode::Blocks`] and with [`Walker::first_error`] otherwise.
    #[inline(never)]
    fn fold_walk<B>(
        self,
        acc: B,
        f: impl FnMut(B, Utf8Chunk<'a>) -> B,
        checkpoint: Option<usize>,
    ) -> B {
        self.fold_inline::<false, B>(acc, f, checkpoint)
    }

    /// [`fold_walk`](Utf8Chunks::fold_walk), inlined into the caller; with `ALL` the loop
    /// of [`Mode::Blocks`] is inlined too ([`fold_blocks_inline`]), so that the caller's
    /// target features compile the whole walk and `f` with it (the lossy conversion's AVX
    /// version, `crate::lossy`). (Without, it stays out of line: inlined into `fold_walk`,
    /// the chunk walk by `fold` was 0.97 to 0.98 times as fast at one error per ~16 to
    /// ~64 bytes.)
    ///
    /// [`fold_blocks_inline`]: Utf8Chunks::fold_blocks_inline
    #[inline(always)]
    pub(crate) fn fold_inline<const ALL: bool, B>(
        mut self,
        mut acc: B,
        mut f: impl FnMut(B, Utf8Chunk<'a>) -> B,
        checkpoint: Option<usize>,
    ) -> B {
        if let Some(checkpoint) = checkpoint {
            let rest = self.rest;
            let (first, rest) = chunk(rest, Split::new(rest, self.walker.locate(rest, checkpoint)));
            self.rest = rest;
            acc = f(acc, first);
        }
        while !self.rest.is_empty() {
            if self.walker.mode == Mode::Blocks {
                acc = if ALL {
                    self.fold_blocks_inline(acc, &mut f)
                } else {
                    self.fold_blocks(acc, &mut f)
                };
            } else {
                let rest = self.rest;
                let (next, rest) = chunk(rest, self.walker.first_error(rest));
                self.rest = rest;
                acc = f(acc, next);
            }
        }
        acc
    }

    /// [`fold`](Iterator::fold) in [`Mode::Blocks`]: the chunks up to the end of the bytes
    /// or until the walker leaves that mode.
    #[inline(never)]
    fn fold_blocks<B>(&mut self, acc: B, f: &mut impl FnMut(B, Utf8Chunk<'a>) -> B) -> B {
        self.fold_blocks_inline(acc, f)
    }

    /// [`fold_blocks`](Utf8Chunks::fold_blocks), inlined into the caller.
    #[inline(always)]
    fn fold_blocks_inline<B>(&mut self, acc: B, f: &mut impl FnMut(B, Utf8Chunk<'a>) -> B) -> B {
        let bytes = self.rest;
        let (mut acc, previous, walked) =
            self.walker
                .walk_blocks(bytes, acc, |acc, from, (at, error_len)| {
                    let from_there = &bytes[from..];
                    let split = Split::new(from_there, Some((at - from, error_len)));
                    ControlFlow::Continue(f(acc, chunk(from_there, split).0))
                });
        let rest = &bytes[previous..];
        self.rest = rest;
        let split = match walked {
            Walked::Stopped => return acc,
            Walked::End => Split::new(rest, None),
            Walked::Clean(pos) => Split::new(rest, self.walker.walk(rest, pos - previous)),
        };
        if !rest.is_empty() {
            let (last, rest) = chunk(rest, split);
            self.rest = rest;
            acc = f(acc, last);
        }
        acc
    }
}

impl<'a> Iterator for Utf8Chunks<'a> {
    type Item = Utf8Chunk<'a>;

    #[inline]
    fn next(&mut self) -> Option<Utf8Chunk<'a>> {
        let rest = self.rest;
        if rest.is_empty() {
            return None;
        }
        let (chunk, rest) = chunk(rest, self.walker.first_error(rest));
        self.rest = rest;
        Some(chunk)
    }

    /// Every chunk, as [`next`](Iterator::next) gives them. Where errors are a few bytes to
    /// a few dozen bytes apart this is faster than a `for` loop (at one error per ~64
    /// bytes, 1.5 times): the errors are taken from the kernel's masks in one loop rather
    /// than a call of `next` each. `for_each`, `count`, `sum` and the other adapters that
    /// fold run it, and so does [`from_utf8_lossy`](crate::from_utf8_lossy).
    #[inline]
    fn fold<B, F>(self, init: B, f: F) -> B
    where
        F: FnMut(B, Utf8Chunk<'a>) -> B,
    {
        let rest = self.rest;
        if rest.is_empty() {
            return init;
        }
        // Where the iterator was just made (or errors thinned out), the rest is one kernel
        // call, inlined as in `from_utf8`: valid input (a line, a file) is that and its
        // one chunk. The walk itself is out of line (`fold_walk`), so that a walk of a
        // line does not save the walk's registers (one pushed instead of six).
        if self.walker.whole(rest.len()) {
            return match dispatch::validate(rest) {
                Ok(()) => {
                    // SAFETY: the kernel accepted `rest`, which starts at a character
                    // boundary.
                    let valid = unsafe { core::str::from_utf8_unchecked(rest) };
                    let mut f = f;
                    f(
                        init,
                        Utf8Chunk {
                            valid,
                            invalid: &rest[rest.len()..],
                            error_len: 0,
                            second: 0,
                        },
                    )
                }
                Err(checkpoint) => self.fold_walk(init, f, Some(checkpoint)),
            };
        }
        self.fold_walk(init, f, None)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        // At least one chunk if bytes remain; at most one per byte.
        (usize::from(!self.rest.is_empty()), Some(self.rest.len()))
    }
}

impl FusedIterator for Utf8Chunks<'_> {}

/// The chunk at the start of `rest` that `split` describes, and the bytes after it.
#[inline(always)]
fn chunk(rest: &[u8], split: Split) -> (Utf8Chunk<'_>, &[u8]) {
    let Split {
        at: valid_len,
        error_len,
        invalid: invalid_len,
    } = split;
    let second = rest.get(valid_len + 1).copied().unwrap_or(0);
    let (valid, rest) = rest.split_at(valid_len);
    let (invalid, rest) = rest.split_at(invalid_len);
    let chunk = Utf8Chunk {
        // SAFETY: the walker found no error in the first `valid_len` bytes, which start at
        // a character boundary and end at one (the start of an invalid sequence or the end
        // of the input).
        valid: unsafe { core::str::from_utf8_unchecked(valid) },
        invalid,
        error_len,
        second,
    };
    (chunk, rest)
}

impl fmt::Debug for Utf8Chunks<'_> {
    /// Shows the bytes not yet walked, as std does: valid text escaped like a string,
    /// invalid bytes as `\xNN`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Escaped<'a>(&'a [u8]);
        impl fmt::Debug for Escaped<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"")?;
                for chunk in utf8_chunks(self.0) {
                    // As std's: every character as `char::escape_debug` shows it, but for
                    // the single quote.
                    for c in chunk.valid().chars() {
                        if c == '\'' {
                            f.write_str("'")?;
                        } else {
                            fmt::Display::fmt(&c.escape_debug(), f)?;
                        }
                    }
                    for byte in chunk.invalid() {
                        write!(f, "\\x{byte:02X}")?;
                    }
                }
                f.write_str("\"")
            }
        }
        f.debug_struct("Utf8Chunks")
            .field("source", &Escaped(self.rest))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_ends_before_a_lead_byte() {
        let text = "aé€😀".as_bytes(); // 1 + 2 + 3 + 4 bytes
        for window in 1..text.len() {
            let end = window_end(text, 0, window);
            assert!(end > 0 && end <= window);
            assert!(core::str::from_utf8(&text[..end]).is_ok() || end == window);
        }
        assert_eq!(window_end(text, 0, text.len()), text.len());
        // Continuation bytes only: at most 3 bytes back.
        assert_eq!(window_end(&[0x80; 16], 0, 8), 5);
    }
}
