//! The validation algorithm, written once over the [`Vector`] trait and instantiated by
//! each kernel in `src/arch/` (the way BurntSushi's `memchr` shares its algorithms).
//!
//! # The check
//! For every byte, [`check`] looks at it and the three bytes before it: the nibble tables of
//! `tables.rs` find every error visible in a pair of adjacent bytes, and a test of the
//! bytes two and three back (`pavgb` against a threshold) finds where a 2nd or 3rd
//! continuation byte must (or must not) stand. The check is *local*: its verdict on byte
//! `i` depends only on bytes `i-3..=i`. So blocks need not be processed in order with
//! state carried between them, and the previous bytes can come from wherever is cheapest:
//!
//! * in the main loop, unaligned loads one, two and three bytes back (no cross-lane
//!   shuffles, and two of the three loads fold into the arithmetic as memory operands);
//! * for the first register of the input, where those loads would leave the slice, byte
//!   shifts between registers ([`check_in_registers`]), with zeros (ASCII) before the
//!   input.
//!
//! In the main loop the blocks lie on a grid that starts at the first address from the
//! input's second register on that is a multiple of the register width, so that a
//! register's own bytes never cross a cache line ([`head_end`]); the bytes before the
//! grid, the input's head, are checked on their own ([`head_errors`]).
//!
//! # The main loop: windows of blocks, and the ASCII decision
//! The main loop takes windows of 64 64-byte blocks (4 KiB) and tests their error bits
//! once per window. An all-ASCII block cannot contain an error, but it ends any
//! sequence left open by the three bytes before it. Real text is mostly ASCII with
//! non-ASCII words scattered through it, so the question is how to pay for the full check
//! only where it is needed without paying more for deciding where. A branch per block
//! ("is it ASCII?") is cheap where it is predicted, and a misprediction costs more than
//! checking a block; so the loop checks each window one of two ways, chosen from the
//! shape of the window before it (see [`Way`]):
//!
//! * text that is not dense (ASCII and non-ASCII blocks mixed as in prose in Latin
//!   scripts, HTML, man pages; sparse text; ASCII): a mask of the window's non-ASCII
//!   blocks and a loop over its set bits, with no branch per block ([`check_by_mask`]);
//!   where the next window is by mask too, its blocks are checked during that window's
//!   mask pass, so that the checks overlap the pass over memory
//!   ([`mask_checking_pending`]);
//! * *dense* text (few or no ASCII blocks: Cyrillic, Greek, CJK, Czech prose, and
//!   Russian man pages): every block checked, with no test at all
//!   ([`check_every_block`]), and now and then a window by mask to see whether the text
//!   is still dense.
//!
//! The first window's way comes from the input's head, and with 32- and 64-byte
//! registers the pair of blocks after it ([`Mode::first`]); ASCII at the start of
//! an input is skipped two blocks at a time before the first window. The fewer than 64
//! blocks after the last window (all of an input under 4 KiB) are checked one way chosen
//! once ([`check_rest`]): learning the text takes the windows a few windows, which these
//! blocks do not have.
//!
//! Whichever way a window goes, it asks for the cache line a window (4 KiB) ahead of each
//! block it reads ([`PREFETCH_AHEAD`]): input that comes from memory, as fresh input
//! does, otherwise arrives slower than the checks take it.
//!
//! `docs/design.md` has the measurements behind this.
//!
//! # The end of the input
//! The bytes after the last whole block are checked a register at a time, the last
//! register ending exactly at the end of the input (overlapping the one before it:
//! checking a byte twice is harmless, the check being local). One saturating subtraction
//! of that register against [`Constants::max_at_end`] then finds a sequence left
//! unfinished. No load leaves the slice.
//!
//! # Inputs by length
//! Short inputs are common (JSON fields, keys, protocol tokens), and for them the fixed
//! costs matter more than the loop. A kernel's `validate` entry point (`entry_points!` in
//! `arch/mod.rs`) picks one of three shapes:
//!
//! * under `BYTES + 3` bytes ([`validate_short`]): one or two registers filled with loads
//!   that never touch a byte outside the slice ([`Vector::load_partial`]), zero-padded;
//!   the padding doubles as the end check, as an unfinished sequence is followed by a
//!   zero, which the pair check rejects (the AVX-512 kernel puts every input of up to 64
//!   bytes in one register instead, a masked load where it is shorter,
//!   [`validate_register`]); with 32- and 64-byte registers checked at once, without an
//!   ASCII test first, whose branch real text mispredicts ([`tests_short_for_ascii`]);
//! * under half a window plus a register with 32-byte registers, under four blocks plus a
//!   register with 16-byte ones ([`validate_medium`], [`medium_blocks`]): up to a block
//!   with 32-byte registers, every register checked at once, as above; longer, one ASCII
//!   test of the whole input in straight lines up to four blocks (two with 16-byte
//!   registers; [`ends_are_ascii`]), beyond that ASCII pairs of blocks (blocks, with
//!   16-byte registers) skipped up to the first that is not; then every register from
//!   there checked without further branches and one error test;
//! * longer: the head ([`head_end`]); from a window on, where it is ASCII, the ASCII pairs
//!   of blocks after it skipped in one loop before anything else, in the entry point itself
//!   ([`ascii_start`]: pure ASCII, the commonest input, then takes few branches and runs a
//!   few cache lines of code, which counts where the predictor and the caches have
//!   forgotten this code); then, out of line ([`validate_from`]), the main loop's windows
//!   (from 4 KiB on), the blocks after them and the end ([`check_rest`]).
//!
//! (`dispatch.rs` answers inputs of up to 16 ASCII bytes before calling a kernel at all.)
//!
//! # Errors
//! A kernel only says where it first saw trouble: it returns `Err(checkpoint)`,
//! where no byte before `checkpoint` broke a rule. `scalar::first_error` then finds the
//! exact std-compatible error from there. Valid input never pays for exact errors. The
//! chunk walker, which needs every error, uses the second entry point,
//! [`first_invalid`] (`generic/first_error.rs`): the first invalid sequence itself,
//! found a block at a time.

use crate::error::Utf8Error;
use crate::scalar;
use crate::tables;

mod block_errors;
mod first_error;
pub(crate) use block_errors::block_errors;
pub(crate) use first_error::first_invalid;

/// The unit of the main loop, in bytes.
pub(crate) const BLOCK: usize = 64;

/// A SIMD register of bytes and the operations the algorithm needs (one or two
/// instructions each on every supported instruction set).
///
/// Methods are `#[inline(always)]` and carry no `#[target_feature]` of their own: they are
/// inlined into a kernel's entry point, which enables the instruction set.
///
/// # Safety
/// Every method may only be called when the CPU supports the implementation's instruction
/// set. The `load*` methods also require every byte they read to be in bounds.
pub(crate) trait Vector: Copy {
    /// Bytes per register; divides [`BLOCK`].
    const BYTES: usize;
    /// Every byte set to `byte`.
    unsafe fn splat(byte: u8) -> Self;
    /// A 16-entry lookup table, repeated in every 128-bit lane.
    unsafe fn table(table: &[u8; 16]) -> Self;
    /// Loads `BYTES` bytes from `ptr`, which need not be aligned.
    unsafe fn load(ptr: *const u8) -> Self;
    /// Loads `len < BYTES` bytes from `ptr`, zero-filling the rest, without reading any
    /// byte outside `ptr..ptr + len`.
    unsafe fn load_partial(ptr: *const u8, len: usize) -> Self;
    unsafe fn and(self, other: Self) -> Self;
    unsafe fn or(self, other: Self) -> Self;
    unsafe fn xor(self, other: Self) -> Self;
    /// Per-byte unsigned saturating subtraction.
    unsafe fn saturating_sub(self, other: Self) -> Self;
    /// Per-byte rounded average, `(self + other + 1) >> 1` without overflow. (Unlike a
    /// subtraction it commutes, so a load can fold into it as a memory operand.)
    unsafe fn average(self, other: Self) -> Self;
    /// Per-byte unsigned maximum.
    unsafe fn max(self, other: Self) -> Self;
    /// Per byte, the index of its high nibble for [`Vector::lookup`]: `self >> 4`, with
    /// in the upper bits only what `lookup` ignores.
    unsafe fn high_nibbles(self) -> Self;
    /// Per byte, `table[self]`, where `self` holds indices from [`Vector::high_nibbles`]
    /// and `table` is a [`Vector::table`].
    unsafe fn lookup(self, table: Self) -> Self;
    /// Per byte, `table[self & 0x0F]`, where `table` is a [`Vector::table`]. By default
    /// the mask, then [`Vector::lookup`]: `pshufb` and NEON's `tbl` would read an index
    /// with its high bit set as a zero (`tbl`: any index over 15), so the mask clears both
    /// the high nibble and that bit. AVX-512's `vpermb` reads an index's low six bits
    /// from a table repeated in every 128-bit lane, and needs no mask.
    #[inline(always)]
    unsafe fn lookup_low_nibble(self, table: Self) -> Self {
        // SAFETY: the CPU supports `Self` (trait contract); no memory is accessed.
        unsafe { self.and(Self::splat(0x0F)).lookup(table) }
    }
    /// Whether [`check_block`] takes the high nibbles of the bytes before each of a block's
    /// registers but the first from the register before ([`Vector::prev1`] of its
    /// [`Vector::high_nibbles`]) rather than from those bytes: where `prev1` is one
    /// instruction and `high_nibbles` two, with 16-byte registers on x86 (`palignr`, for
    /// a 16-bit shift and a mask).
    const HIGH_NIBBLES_FROM_REGISTERS: bool = false;
    /// `self` moved up by 1 (2, 3) bytes, the last bytes of `prev` shifted in.
    unsafe fn prev1(self, prev: Self) -> Self;
    unsafe fn prev2(self, prev: Self) -> Self;
    unsafe fn prev3(self, prev: Self) -> Self;
    /// No byte has its high bit set.
    unsafe fn is_ascii(self) -> bool;
    /// Are the `len` bytes at `ptr` all ASCII (`len` a positive multiple of `BYTES`)? The
    /// OR of their registers ([`or_of`]) and one [`Vector::is_ascii`], unless a kernel
    /// tests them faster with other loads (the AVX-512 kernel on Zen 4).
    ///
    /// # Safety
    /// `ptr .. ptr + len` must be in bounds.
    #[inline(always)]
    unsafe fn all_ascii(ptr: *const u8, len: usize) -> bool {
        // SAFETY: the caller's guarantee is `or_of`'s; the CPU supports `Self` (trait
        // contract).
        unsafe { or_of::<Self>(ptr, len).is_ascii() }
    }
    /// `mask` shifted up by one bit, its bit 0 set if the `len` bytes at `ptr` are not all
    /// ASCII (`len` as for [`Vector::all_ascii`]): a step of the mask pass, which builds a
    /// window's mask first block at the top ([`non_ascii_units`]). By default a shift and
    /// an OR of [`Vector::all_ascii`]'s answer; the x86 kernels shift the bit in with the
    /// carry flag instead (`neg`, `adc`: two instructions for what took five).
    ///
    /// # Safety
    /// As [`Vector::all_ascii`].
    #[inline(always)]
    unsafe fn push_non_ascii(mask: u64, ptr: *const u8, len: usize) -> u64 {
        // SAFETY: the caller's guarantee is `all_ascii`'s.
        mask << 1 | u64::from(!unsafe { Self::all_ascii(ptr, len) })
    }
    /// Every byte is zero.
    unsafe fn is_zero(self) -> bool;
    /// The index of the first byte that is not zero, `BYTES` if every byte is.
    unsafe fn first_nonzero(self) -> usize;
    /// Bit `i` set where byte `i` has its high bit set (the low `BYTES` bits).
    unsafe fn high_bits(self) -> u64;
    /// Per byte, `0xFF` where `self < other` as signed bytes, else 0.
    unsafe fn signed_lt(self, other: Self) -> Self;
    /// Per byte, `0xFF` where `self == other`, else 0.
    unsafe fn equal(self, other: Self) -> Self;
}

/// The constants of [`check`], splatted once per call (the compiler keeps them in
/// registers across the loop).
#[derive(Copy, Clone)]
pub(crate) struct Constants<V> {
    prev_high_nibble: V,
    prev_low_nibble: V,
    cur_high_nibble: V,
    /// `average(byte, 0x1F)` has its high bit set exactly when `byte >= 0xE0`: a 3- or
    /// 4-byte lead.
    third_byte_threshold: V,
    /// `average(byte, 0x0F)` has its high bit set exactly when `byte >= 0xF0`: a 4-byte
    /// lead.
    fourth_byte_threshold: V,
    two_continuations: V,
    /// The largest byte allowed at each position of the input's last register: the last
    /// three bytes may not start sequences longer than what is left.
    max_at_end: V,
}

/// The limits of the end check: `END_LIMITS[128 - BYTES..]` is [`Constants::max_at_end`]
/// for registers of `BYTES`; the 64 bytes before it are `0xFF`, which limit nothing, for
/// an end check that [`unfinished_before_if`] leaves out.
static END_LIMITS: [u8; 128] = {
    let mut max = [0xFF; 128];
    max[125] = 0xEF; // a 4-byte lead needs three more bytes
    max[126] = 0xDF; // a 3- or 4-byte lead needs two or more
    max[127] = 0xBF; // any lead byte needs one or more
    max
};

impl<V: Vector> Constants<V> {
    #[inline(always)]
    unsafe fn new() -> Self {
        // SAFETY: the caller's CPU supports `V` (trait contract).
        unsafe {
            Constants {
                prev_high_nibble: V::table(&tables::PREV_HIGH_NIBBLE),
                prev_low_nibble: V::table(&tables::PREV_LOW_NIBBLE),
                cur_high_nibble: V::table(&tables::CUR_HIGH_NIBBLE),
                third_byte_threshold: V::splat(0xFF - 0xE0),
                fourth_byte_threshold: V::splat(0xFF - 0xF0),
                two_continuations: V::splat(tables::TWO_CONTINUATIONS),
                max_at_end: V::load(END_LIMITS[128 - V::BYTES..].as_ptr()),
            }
        }
    }
}

/// The error bits of the bytes `cur`, given the bytes one, two and three places before each
/// (`prev1`, `prev2`, `prev3`). Zero iff no byte of `cur` breaks a rule.
#[inline(always)]
unsafe fn check<V: Vector>(k: &Constants<V>, cur: V, prev1: V, prev2: V, prev3: V) -> V {
    // SAFETY: the caller's CPU supports `V` (trait contract); no memory is accessed.
    unsafe {
        let prev1_high = prev1.high_nibbles();
        check_nibbles(k, cur.high_nibbles(), prev1, prev1_high, prev2, prev3)
    }
}

/// [`check`], given the high nibbles of the bytes rather than the bytes themselves
/// (`cur_high`, and `prev1_high` beside `prev1`: [`Vector::high_nibbles`]), so that
/// [`check_block`] can take those of `prev1` from the register before.
#[inline(always)]
unsafe fn check_nibbles<V: Vector>(
    k: &Constants<V>,
    cur_high: V,
    prev1: V,
    prev1_high: V,
    prev2: V,
    prev3: V,
) -> V {
    // SAFETY: the caller's CPU supports `V` (trait contract); no memory is accessed.
    unsafe {
        let pair_errors = pair_errors(k, cur_high, prev1, prev1_high);
        // 0x80 where a 3- or 4-byte lead stands two or three back: this byte must be a
        // continuation byte that follows another one, which is exactly when the pair
        // check flagged TWO_CONTINUATIONS. Anywhere else, that flag is an error.
        let third = prev2.average(k.third_byte_threshold);
        let fourth = prev3.average(k.fourth_byte_threshold);
        // (`max` rather than `or`: the high bit is the same, and LLVM would turn an `or`
        // of two averages into 16-bit arithmetic instead of two `pavgb`.)
        let must_be_continuation = third.max(fourth).and(k.two_continuations);
        must_be_continuation.xor(pair_errors)
    }
}

/// The errors that each byte shows with the byte before it (`prev1`), from the high
/// nibbles of both (`cur_high`, `prev1_high`: [`Vector::high_nibbles`]): the three table
/// lookups, one bit per kind of error (`tables.rs`).
#[inline(always)]
unsafe fn pair_errors<V: Vector>(k: &Constants<V>, cur_high: V, prev1: V, prev1_high: V) -> V {
    // SAFETY: the caller's CPU supports `V` (trait contract); no memory is accessed.
    unsafe {
        let by_prev_high = prev1_high.lookup(k.prev_high_nibble);
        let by_prev_low = prev1.lookup_low_nibble(k.prev_low_nibble);
        let by_cur_high = cur_high.lookup(k.cur_high_nibble);
        by_prev_high.and(by_prev_low).and(by_cur_high)
    }
}

/// Checks the register at `ptr`, reading the bytes before it from memory.
///
/// # Safety
/// `ptr - 3 .. ptr + BYTES` must be in bounds, and the CPU must support `V`.
#[inline(always)]
unsafe fn check_in_memory<V: Vector>(k: &Constants<V>, ptr: *const u8) -> V {
    // SAFETY: the loads read `ptr - 3 .. ptr + BYTES` (caller's guarantee).
    unsafe {
        let cur = V::load(ptr);
        check(
            k,
            cur,
            V::load(ptr.sub(1)),
            V::load(ptr.sub(2)),
            V::load(ptr.sub(3)),
        )
    }
}

/// Checks the `BLOCK` bytes at `ptr`, reading the bytes before it from memory.
///
/// Where [`Vector::HIGH_NIBBLES_FROM_REGISTERS`], the high nibbles of the bytes before
/// each register but the first come from the register before's, which the check of that
/// register computed: with SSE4.1 one `palignr` instead of a shift and a mask, 15 vector
/// operations per register rather than 16 for Zen 3's four vector pipes. On Zen 3
/// (`docs/design.md`, session 47), SSE4.1 against the check from the bytes: dense real
/// files 1.02x to 1.05x faster (medians of four builds), both corpora 1.004x and 1.010x,
/// sparse density cells 0.975x to 1.00x. With AVX2 the `prev1` of a 32-byte register needs
/// a permute across lanes as well, and dense files read 0.69x to 0.72x.
///
/// # Safety
/// `ptr - 3 .. ptr + BLOCK` must be in bounds, and the CPU must support `V`.
#[inline(always)]
unsafe fn check_block<V: Vector>(k: &Constants<V>, ptr: *const u8) -> V {
    // SAFETY: each register and the bytes before it lie within `ptr - 3 .. ptr + BLOCK`
    // (caller's guarantee); the CPU supports `V`.
    unsafe {
        let mut errors = V::splat(0);
        // The high nibbles of the register before, once it is one of this block's.
        let mut high_before: Option<V> = None;
        let mut offset = 0;
        while offset < BLOCK {
            let at = ptr.add(offset);
            let (cur, prev1) = (V::load(at), V::load(at.sub(1)));
            let (prev2, prev3) = (V::load(at.sub(2)), V::load(at.sub(3)));
            // (Once, for both uses: with `high_nibbles` written in each, LLVM narrowed the
            // mask of the one under `prev1` to the bytes that it keeps, the two no longer
            // merged, and SSE4.1 read 0.95x on dense files.)
            let cur_high = cur.high_nibbles();
            let prev1_high = match high_before {
                Some(before) if V::HIGH_NIBBLES_FROM_REGISTERS => cur_high.prev1(before),
                _ => prev1.high_nibbles(),
            };
            errors = errors.or(check_nibbles(k, cur_high, prev1, prev1_high, prev2, prev3));
            high_before = Some(cur_high);
            offset += V::BYTES;
        }
        errors
    }
}

/// Are the `len` bytes at `ptr` all ASCII? (`len` is a multiple of `BYTES`, and a
/// constant where this is inlined, so that the loop unrolls.) The test of every block and
/// pair of blocks in the main loop: [`Vector::all_ascii`].
///
/// # Safety
/// `ptr .. ptr + len` must be in bounds, and the CPU must support `V`.
#[inline(always)]
unsafe fn is_ascii<V: Vector>(ptr: *const u8, len: usize) -> bool {
    // SAFETY: the caller's guarantee is `all_ascii`'s.
    unsafe { V::all_ascii(ptr, len) }
}

/// The OR of the registers of the `len` bytes at `ptr`, whose high bits say whether they
/// are all ASCII. (`len` is a multiple of `BYTES`, and a constant where this is inlined,
/// so that the loop unrolls.)
///
/// # Safety
/// `ptr .. ptr + len` must be in bounds, and the CPU must support `V`.
#[inline(always)]
pub(crate) unsafe fn or_of<V: Vector>(ptr: *const u8, len: usize) -> V {
    // SAFETY: the loads cover `ptr .. ptr + len` (the caller's guarantee).
    unsafe {
        // Two chains of ORs rather than one: over a window the latency of one chain
        // would bound the loop.
        let mut any = [V::load(ptr), V::splat(0)];
        let mut offset = V::BYTES;
        while offset < len {
            any[offset / V::BYTES % 2] = any[offset / V::BYTES % 2].or(V::load(ptr.add(offset)));
            offset += V::BYTES;
        }
        any[0].or(any[1])
    }
}

/// Are `bytes[start..]` all ASCII? Reads the registers at `start`, `start + BYTES`, ...
/// and the last one, which ends at the end of `bytes` (overlapping the one before it).
///
/// # Safety
/// `bytes.len() >= BYTES`, and the CPU must support `V`.
#[inline(always)]
unsafe fn is_ascii_from<V: Vector>(bytes: &[u8], start: usize) -> bool {
    let ptr = bytes.as_ptr();
    let last = bytes.len() - V::BYTES;
    // SAFETY: every register read starts at `pos < last` or at `last`, so it ends within
    // `bytes`; the CPU supports `V` (caller's guarantee).
    unsafe {
        let mut any = V::load(ptr.add(last));
        let mut pos = start;
        while pos < last {
            any = any.or(V::load(ptr.add(pos)));
            pos += V::BYTES;
        }
        any.is_ascii()
    }
}

/// The longest inputs, in blocks, that [`validate_medium`] tests for ASCII in straight
/// lines ([`ends_are_ascii`]) rather than a block at a time, and checks from their first
/// register on if they are not ASCII: four with cheap checks (32-byte registers), two
/// otherwise (with 16-byte registers, inputs of three and four blocks of non-ASCII text
/// were 7 to 12% slower with the test of their four blocks and every register checked).
#[inline(always)]
fn short_blocks<V: Vector>() -> usize {
    if cheap_checks::<V>() {
        4
    } else {
        2
    }
}

/// Is `bytes`, of `BLOCK + 1 ..= 4 * BLOCK` bytes, all ASCII? Straight-line
/// code: its first and last block (pair of blocks over two blocks), which overlap to
/// cover it, ORed and tested once.
///
/// The loop over blocks that longer inputs take, with an exit at the first block that is
/// not ASCII, made ASCII inputs of 128 to 256 bytes slower than simdutf8's loop of the
/// same shape (0.85x to 0.93x `simdutf8::basic` with 32-byte registers, Zen 3); in
/// straight lines they are 1.0x to 1.26x, and pieces of 100 to 256 bytes of real text
/// are 10 to 17% faster than with the loop, as one test of the whole piece is one
/// branch that can be mispredicted where the loop's exit was one more. Non-ASCII text
/// pays for testing bytes that it checks anyway: 2 to 6% at 65 to 256 bytes
/// (`docs/design.md`, "Short inputs").
///
/// # Safety
/// `BLOCK < bytes.len() <= 4 * BLOCK`, and the CPU must support `V`.
#[inline(always)]
unsafe fn ends_are_ascii<V: Vector>(bytes: &[u8]) -> bool {
    // SAFETY: `BLOCK < len`, and the unit is at most `len` bytes (caller's guarantee).
    unsafe {
        if bytes.len() <= 2 * BLOCK {
            ends_are_ascii_by::<V>(bytes, BLOCK)
        } else {
            ends_are_ascii_by::<V>(bytes, 2 * BLOCK)
        }
    }
}

/// Are the first and the last `unit` bytes of `bytes` all ASCII? (`unit` is a multiple of
/// `BYTES`, and a constant where this is inlined, so that the loop unrolls.)
///
/// # Safety
/// `unit <= bytes.len()`, and the CPU must support `V`.
#[inline(always)]
unsafe fn ends_are_ascii_by<V: Vector>(bytes: &[u8], unit: usize) -> bool {
    let ptr = bytes.as_ptr();
    // SAFETY: both units, `ptr .. ptr + unit` and `ptr + len - unit .. ptr + len`, lie
    // within `bytes` (caller's guarantee); the CPU supports `V`.
    unsafe {
        let last = ptr.add(bytes.len() - unit);
        or_of::<V>(ptr, unit).or(or_of::<V>(last, unit)).is_ascii()
    }
}

/// Skips the all-ASCII pairs of blocks at `pos`: returns the position of the first pair
/// that is not all ASCII or does not end by `end`.
///
/// No software prefetch: the hardware prefetchers follow this stream. (Session 29 asked
/// for the next pair's two cache lines in the AVX2 kernel, which an Intel Xeon, Emerald
/// Rapids, ran up to 1.2x faster on ASCII; on an AMD EPYC, Zen 4, the loop without it
/// was 1.04x to 1.07x faster on ASCII and 1.05x to 1.09x with a character every 1 to 4
/// KiB, at 64 KiB over four code placements, and neutral on real text. Zen 3, the AVX2
/// kernel's main target, is AMD's: `docs/design.md`. Session 55, on Zen 3, asked for the
/// pair's lines a window ahead, as the windows do ([`PREFETCH_AHEAD`]): mostly-ASCII
/// files 0.90x to 1.07x, pure ASCII 0.91x.)
///
/// The loop's branch back tests the position alone, and the exit at a pair that is not
/// ASCII is a forward branch (not `while in bounds && ascii`, whose branch back waits for
/// the loads): a predictor that has not seen the loop, as after other work, takes a
/// forward branch as not taken, which is the ASCII case, and a wrong guess on the bounds
/// is resolved without waiting for memory. Pure ASCII of 1 to 64 KiB with the windows'
/// prefix skip (session 36, Zen 4, after the benchmarks' scrub): the other shape read
/// 0.91x (AVX2) and 0.98x (AVX-512) this one's, 1.03x with SSE4.1; real text in pieces
/// of 1000 bytes 1.00x.
///
/// # Safety
/// `end <= bytes.len()`; the CPU must support `V`.
#[inline(always)]
unsafe fn skip_ascii_pairs<V: Vector>(bytes: &[u8], mut pos: usize, end: usize) -> usize {
    let ptr = bytes.as_ptr();
    // SAFETY: each test reads `pos .. pos + 2 * BLOCK` right after checking that it ends
    // by `end <= len`; the CPU supports `V` (caller's guarantee).
    unsafe {
        if pos + 2 * BLOCK > end {
            return pos;
        }
        loop {
            if !is_ascii::<V>(ptr.add(pos), 2 * BLOCK) {
                return pos;
            }
            pos += 2 * BLOCK;
            if pos + 2 * BLOCK > end {
                return pos;
            }
        }
    }
}

/// Checks the register `cur`, shifting the bytes before it in from `prev` (the register
/// before it; zeros before the start of the input).
///
/// # Safety
/// The CPU must support `V`.
#[inline(always)]
unsafe fn check_in_registers<V: Vector>(k: &Constants<V>, cur: V, prev: V) -> V {
    // SAFETY: the CPU supports `V` (caller's guarantee); no memory is accessed.
    unsafe { check(k, cur, cur.prev1(prev), cur.prev2(prev), cur.prev3(prev)) }
}

/// Nonzero where a sequence started in the three bytes before `pos` needs more bytes than
/// that: the end check of the register that ends at `pos`, one load and one subtraction
/// (called at the end of the input, where a run of ASCII blocks begins, and at the end
/// of an ASCII tail).
///
/// # Safety
/// `BYTES <= pos <= bytes.len()`, and the CPU must support `V`.
#[inline(always)]
unsafe fn unfinished_before<V: Vector>(k: &Constants<V>, bytes: &[u8], pos: usize) -> V {
    // SAFETY: the load reads `pos - BYTES .. pos`, within `bytes` (caller's guarantee).
    unsafe { V::load(bytes.as_ptr().add(pos - V::BYTES)).saturating_sub(k.max_at_end) }
}

/// [`unfinished_before`] if `cond`, else zero: the end check of a block that an ASCII
/// block may or may not follow, without a branch. The choice is in the address of the
/// limits ([`END_LIMITS`]): a shift, where keeping the check or not by [`keep_if`] took
/// the flag into a vector register, a splat of it and an AND. With 16- and 32-byte
/// registers, windows by mask on Zen 4 (four builds): real files 1.01x (AVX2) and 1.02x
/// (SSE4.1) faster. Not with 64-byte registers, where the splat is one masked
/// instruction: there it read 0.97x (`docs/design.md`, session 38).
///
/// # Safety
/// As [`unfinished_before`].
#[inline(always)]
unsafe fn unfinished_before_if<V: Vector>(
    k: &Constants<V>,
    bytes: &[u8],
    pos: usize,
    cond: bool,
) -> V {
    if V::BYTES == 64 {
        // SAFETY: as below.
        return unsafe { unfinished_before(k, bytes, pos).and(keep_if(cond)) };
    }
    let limits = 128 - V::BYTES - 64 * usize::from(!cond);
    // SAFETY: the first load reads `pos - BYTES .. pos`, within `bytes` (caller's
    // guarantee); the second `limits .. limits + BYTES`, within `END_LIMITS`.
    unsafe {
        V::load(bytes.as_ptr().add(pos - V::BYTES))
            .saturating_sub(V::load(END_LIMITS.as_ptr().add(limits)))
    }
}

/// Does a sequence started in the three bytes before `pos` need more bytes than that?
///
/// # Safety
/// As [`unfinished_before`].
#[inline(always)]
unsafe fn ends_incomplete<V: Vector>(k: &Constants<V>, bytes: &[u8], pos: usize) -> bool {
    // SAFETY: the caller's guarantee is `unfinished_before`'s.
    unsafe { !unfinished_before(k, bytes, pos).is_zero() }
}

/// Validates a whole input of at most `BYTES` bytes held in the register `only`, with
/// zeros after it: the register's check with zeros before it and the end check of its
/// last three bytes (with cheap checks, no ASCII test first: [`tests_short_for_ascii`]).
/// The zeros after a shorter input make a sequence that it leaves unfinished fail the
/// check. The end check flags a lead among the last three bytes only if it needs more
/// bytes than the register has after it, which are at least as many as the input has: so
/// it flags nothing valid, and where the input fills the register it finds what no zero
/// follows to find.
///
/// The AVX-512 kernel puts every input of up to 64 bytes in one register (a masked load
/// where it is shorter).
/// ([`validate_short`] has no end check for its inputs under a register, which are
/// followed by a zero: through this function, with it, the AVX2 kernel was 6 to 15%
/// slower on inputs of 31 bytes, three runs.)
///
/// # Safety
/// `only` holds a whole input and zeros after it, and the CPU must support `V`.
#[inline(always)]
pub(crate) unsafe fn validate_register<V: Vector>(only: V) -> Result<(), usize> {
    // SAFETY: the CPU supports `V` (caller's guarantee); no memory is accessed but the
    // constants.
    unsafe {
        if tests_short_for_ascii::<V>() && only.is_ascii() {
            return Ok(());
        }
        let k = Constants::<V>::new();
        let errors = check_in_registers(&k, only, V::splat(0));
        match errors.or(only.saturating_sub(k.max_at_end)).is_zero() {
            true => Ok(()),
            false => Err(0),
        }
    }
}

/// Inputs shorter than `BYTES + 3`: one register, or a full one and one holding the last
/// one or two bytes, zero-padded. The padding makes an unfinished sequence at the end fail
/// the check.
///
/// # Safety
/// `bytes.len() < V::BYTES + 3`, and the CPU must support `V`.
#[inline(always)]
unsafe fn validate_short<V: Vector>(k: &Constants<V>, bytes: &[u8]) -> Result<(), usize> {
    let (ptr, len) = (bytes.as_ptr(), bytes.len());
    // SAFETY: the loads read `bytes[..len]` (partial) or `bytes[..BYTES]` and
    // `bytes[BYTES..len]` (partial) when `len >= BYTES`; the CPU supports `V`.
    unsafe {
        let zero = V::splat(0);
        if len < V::BYTES {
            let only = V::load_partial(ptr, len);
            if (tests_short_for_ascii::<V>() && only.is_ascii())
                || check_in_registers(k, only, zero).is_zero()
            {
                return Ok(());
            }
            return Err(0);
        }
        let first = V::load(ptr);
        let last = V::load_partial(ptr.add(V::BYTES), len - V::BYTES);
        if tests_short_for_ascii::<V>() && first.or(last).is_ascii() {
            return Ok(());
        }
        let errors = check_in_registers(k, first, zero).or(check_in_registers(k, last, first));
        if errors.is_zero() {
            Ok(())
        } else {
            Err(0)
        }
    }
}

/// The error bits of `bytes[start..]`, where `3 <= start` and `bytes.len() >= BYTES + 3`:
/// checked a register at a time, the last register ending at the end of the input
/// (overlapping the one before it), with the check that the input does not end inside a
/// sequence. Straight-line code apart from the loop over whole registers.
///
/// # Safety
/// The CPU must support `V`.
#[inline(always)]
unsafe fn tail_errors<V: Vector>(k: &Constants<V>, bytes: &[u8], start: usize) -> V {
    let ptr = bytes.as_ptr();
    let last = bytes.len() - V::BYTES;
    // SAFETY: every register read starts at `pos < last` or at `last`, so it ends within
    // `bytes`; the bytes before it start at `pos - 3 >= start - 3 >= 0` or at
    // `last - 3 >= 0`; `unfinished_before` at the end needs `len >= BYTES`. The CPU
    // supports `V` (caller's guarantee).
    unsafe {
        let mut errors = V::splat(0);
        let mut pos = start;
        while pos < last {
            errors = errors.or(check_in_memory(k, ptr.add(pos)));
            pos += V::BYTES;
        }
        errors = errors.or(check_in_memory(k, ptr.add(last)));
        // The last three bytes must not start sequences longer than what is left.
        errors.or(unfinished_before(k, bytes, bytes.len()))
    }
}

/// Inputs under half a window plus a register with cheap checks, under four blocks plus
/// a register otherwise ([`medium_blocks`]): JSON fields, protocol tokens, lines, records.
/// One ASCII test, then every register from where the text stops being ASCII checked
/// without further branches, and one error test:
///
/// * up to a block, and up to [`short_blocks`] blocks: the whole input tested at once in
///   straight lines ([`is_ascii_from`], [`ends_are_ascii`]), then every register from the
///   first (with "zeros before the input" from a register); up to a block with cheap
///   checks, no test, every register checked ([`tests_short_for_ascii`]);
/// * longer: with 32-byte registers, pairs of blocks skipped as the main loop skips them
///   (fewer exits to predict than a block at a time: ASCII inputs of 320 B to 2 KiB 1.11
///   to 1.28 times faster, pieces of 384 B to 2 KiB of real text 1.01 to 1.04 times,
///   non-ASCII text 0.95 to 1.0 times), on the main loop's grid after the head
///   ([`head_end`]; session 51, Intel Xeon, AVX2 and AVX-512: the lines of 400 to 2079 B
///   of both corpora 1.02x to 1.04x faster, pieces of 1000 B of one file at a time 1.00x
///   to 1.29x, of 300 B 0.97x to 0.99x); with 16-byte registers a block at a time, up to
///   the first that is not all ASCII; then every register from there on.
///
/// The registers after the first read the bytes before them from memory, the last one
/// overlapping the one before it. ASCII input (logs, JSON) costs the ASCII test alone
/// (beyond the straight-line range, a branch per pair of blocks, or per block with 16-byte
/// registers, that the predictor learns); text from its first non-ASCII block on costs no
/// branch per block.
///
/// # Safety
/// `V::BYTES + 3 <= bytes.len()`, and the CPU must support `V`.
#[inline(always)]
unsafe fn validate_medium<V: Vector>(bytes: &[u8]) -> Result<(), usize> {
    let len = bytes.len();
    // SAFETY: `len >= BYTES + 3` (caller's guarantee) covers the first register and the
    // preconditions of `is_ascii_from` and `tail_errors` (`start` is 0 or a block boundary
    // after the first block or the head, `>= 3`); the head's functions need `len >= 2 *
    // BYTES + 3`, which holds over `short_blocks` blocks; each block tested for ASCII lies
    // within `bytes` (`pos + BLOCK <= len`, and `skip_ascii_pairs` tests pairs that end by
    // `len`); the CPU supports `V`.
    unsafe {
        // Where the checks start: the start of an input that a straight-line test found
        // not all ASCII, or the first block (pair of blocks) that is not all ASCII, or the
        // bytes after the last whole one.
        let start = if len <= BLOCK {
            if tests_short_for_ascii::<V>() && is_ascii_from::<V>(bytes, 0) {
                return Ok(());
            }
            0
        } else if len <= short_blocks::<V>() * BLOCK {
            if ends_are_ascii::<V>(bytes) {
                return Ok(());
            }
            0
        } else if cheap_checks::<V>() {
            // Pairs of blocks, as the main loop skips them and on its grid, after the head
            // ([`head_end`]): from the pair that is not all ASCII, or the bytes after the
            // last whole pair if they are not. A head that is not ASCII is checked, and
            // every register after it.
            let head = head_end::<V>(bytes);
            if !head_is_ascii::<V>(bytes) {
                let k = Constants::<V>::new();
                let errors = head_errors(&k, bytes).or(tail_errors(&k, bytes, head));
                return if errors.is_zero() { Ok(()) } else { Err(0) };
            }
            let pos = skip_ascii_pairs::<V>(bytes, head, len);
            if pos + 2 * BLOCK > len && is_ascii_from::<V>(bytes, pos) {
                return Ok(());
            }
            pos
        } else {
            let mut pos = 0;
            while pos + BLOCK <= len && is_ascii::<V>(bytes.as_ptr().add(pos), BLOCK) {
                pos += BLOCK;
            }
            if pos == len || (pos + BLOCK > len && is_ascii_from::<V>(bytes, pos)) {
                return Ok(());
            }
            pos
        };
        let k = Constants::<V>::new();
        let errors = if start == 0 {
            let first = check_in_registers(&k, V::load(bytes.as_ptr()), V::splat(0));
            first.or(tail_errors(&k, bytes, V::BYTES))
        } else {
            // The ASCII blocks before `start` leave no sequence open.
            tail_errors(&k, bytes, start)
        };
        match errors.is_zero() {
            true => Ok(()),
            false => Err(start),
        }
    }
}

/// Blocks under which an input (after its first register) is [`validate_medium`]'s: half
/// a window with cheap checks (where checking every register after the first non-ASCII
/// block costs less than the windows' ways learning the text), [`MEDIUM_BLOCKS`]
/// otherwise (the rest by mask, [`check_rest`]). With 32-byte registers, inputs of 512
/// B to 2 KiB of real text were 1.1 to 1.35 times faster than with windows of 4 blocks.
/// (Not a whole window: from 2 KiB on, checking every register after the first
/// non-ASCII block made 2.5 to 4 KiB pieces of mostly-ASCII HTML 3 to 10% slower than
/// [`check_rest`]'s mask.)
#[inline(always)]
fn medium_blocks<V: Vector>() -> usize {
    if cheap_checks::<V>() {
        HALF_WINDOW
    } else {
        MEDIUM_BLOCKS
    }
}

/// Checks `bytes[start..]` like [`tail_errors`], first testing whether it is all ASCII
/// (then only a sequence started before `start` can be unfinished). Returns whether an
/// error was found.
///
/// # Safety
/// `BYTES <= start <= bytes.len()` and `bytes.len() >= BYTES + 3`; the CPU must support
/// `V`.
#[inline(always)]
unsafe fn tail_has_errors<V: Vector>(k: &Constants<V>, bytes: &[u8], start: usize) -> bool {
    // SAFETY: `bytes.len() >= BYTES + 3` and `BYTES <= start <= bytes.len()` (caller's
    // guarantee); the CPU supports `V`.
    unsafe {
        if is_ascii_from::<V>(bytes, start) {
            return ends_incomplete(k, bytes, start);
        }
        !tail_errors(k, bytes, start).is_zero()
    }
}

/// Blocks per window of the main loop (4 KiB), one bit each in a [`BlockMask`]. The error
/// bits of a window are tested once, so an error is found at most one window late. The
/// choice of the next window's way (the error test, the match on the way, the mask
/// history) costs the same per window whatever it holds, so the wider the window the
/// thinner that cost: 64 rather than 32 made whole files of real text 1.05 to 1.07 times
/// faster, and pieces of 2.5 to 6 KiB 1.06 to 1.15 times (32 rather than 16 had taken
/// dense text from 0.66 to 0.64 instructions per byte). The fewer than `WINDOW` blocks
/// after the last window are [`check_rest`]'s.
const WINDOW: usize = 64;

/// How far ahead of the block it reads the main loop asks for the input's cache lines
/// ([`prefetch`], [`window_ahead`]): 4 KiB, a window of [`WINDOW`] blocks.
///
/// Input that comes from memory rather than from L2 (fresh bytes, as in an application,
/// and after the benchmarks' scrub) arrives slower than the hardware prefetchers bring it
/// for the main loop's checks: on Zen 3 (session 55) dense real files read as low as
/// 1.0x `simdutf8` after a scrub, against 1.4x with the input in the caches. Asking for
/// each block's line a window ahead made them 1.18x to 1.21x faster with AVX2 (eleven
/// dense files, four builds; 512 B ahead 1.03x, 2 KiB 1.15x, 8 KiB as 4 KiB), where a
/// burst of the first eight or sixteen lines of each next page per window was 0.90x to
/// 0.97x (`docs/design.md`, "Prefetching a window ahead").
const PREFETCH_AHEAD: usize = WINDOW * BLOCK;

/// Asks the CPU to start loading the cache line at `ptr` into L1: a hint only, which
/// reads nothing that the program sees (`prefetcht0` on x86-64; nothing elsewhere). The
/// main loop names lines of the input only ([`PREFETCH_AHEAD`]).
#[inline(always)]
#[allow(unused_unsafe)] // (a safe function in recent Rust, `unsafe` at the MSRV)
fn prefetch(ptr: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and changes nothing but the caches; SSE is part of
    // x86-64.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(ptr.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = ptr;
}

/// How far after a block of the window at `pos` (of `W` blocks) the line that the main loop
/// asks for while reading it lies: [`PREFETCH_AHEAD`], or less where that would pass the
/// end of `bytes` (in the last window, down to the block itself), so that every line it
/// names is one of the input's.
#[inline(always)]
fn window_ahead<const W: usize>(bytes: &[u8], pos: usize) -> usize {
    PREFETCH_AHEAD.min(bytes.len() - pos - W * BLOCK)
}

/// Blocks per window of [`validate_early`] (512 bytes). Measured with every `validate` at
/// this size: at one error per ~4 KiB of real text (and per ~16 KiB), the chunk walk,
/// whose windows of 16 KiB and more `validate` checks, was 1.16 (1.11) times faster with
/// 8 than with [`WINDOW`], and 1.13 (1.07) with 16; with 4, no faster than with 8
/// (`docs/design.md`).
const EARLY_WINDOW: usize = 8;

/// Half a window (2 KiB): the longest inputs [`validate_medium`] takes with 32-byte
/// registers ([`medium_blocks`]), and the fewest blocks after the last window that
/// [`check_rest`] skips ASCII pairs in before its mask (the two jobs the windows of 32
/// blocks did before they grew).
const HALF_WINDOW: usize = WINDOW / 2;

/// With 16-byte registers, inputs under `BYTES + MEDIUM_BLOCKS * BLOCK` bytes are
/// [`validate_medium`]'s ([`medium_blocks`]).
const MEDIUM_BLOCKS: usize = 4;

/// Windows checked in [`Way::Full`] between two checked by mask (which measure whether
/// the text is still dense): 15, one window in 16, so that the mask's cost is spread thin
/// while a change of text is seen within 64 KiB.
const FULL_RUN: u32 = 15;

/// Is checking a block cheap, next to testing it for ASCII? With 32-byte registers a
/// block is two registers' checks; with 16-byte ones it is four, for the same one-load
/// ASCII test per register, so there skipping ASCII blocks pays off sooner. This decides
/// when text counts as dense ([`full_ascii_quarters`]), how the first window of text that
/// starts with a non-ASCII byte is checked ([`Mode::first`]), and how the bytes after the
/// last window are ([`check_rest`]).
#[inline(always)]
fn cheap_checks<V: Vector>() -> bool {
    V::BYTES >= 32
}

/// Do inputs of up to a block test for ASCII before they are checked? Not with cheap
/// checks (32- and 64-byte registers): such an input is one or two registers, whose check
/// costs less than the misprediction of the test's branch, and in real text whether a
/// short piece is all ASCII is close to a coin toss (half of the 64-byte pieces of the
/// real-text corpus are, in runs that no predictor learns). Without the test, 64-byte
/// pieces of real text were 1.5 to 1.6 times faster on Zen 4 (AVX-512 and AVX2 kernels),
/// and pieces of 20 to 48 bytes 1.3 to 1.65 times; inputs that are all ASCII every time
/// pay for the check they no longer skip, 1.5 to 1.8 ns more per call of 32 to 64 bytes
/// (at 64 bytes 0.62x to 0.7x `simdutf8::basic`, whose one-block ASCII path is then all
/// it does).
/// With 16-byte registers a block is four checks, and the test stays: without it, the
/// SSE4.1 kernel was 1.18x to 1.32x faster on real pieces of 20 to 64 bytes, but 1.4 to
/// 3.2 ns slower per all-ASCII call (64 bytes: 8.5 ns against 5.2). (Up to 16 bytes,
/// `dispatch.rs` answers ASCII before any kernel runs.)
#[inline(always)]
fn tests_short_for_ascii<V: Vector>() -> bool {
    !cheap_checks::<V>()
}

/// How many ASCII blocks a window may have, in quarters of its blocks, for the next one
/// to be checked in [`Way::Full`]: a quarter where checks are cheap (32-byte registers),
/// none with 16-byte ones. (Measured on the real-text corpus, without a scrub between
/// passes: with 16-byte registers, a quarter made HTML and man pages up to 20% slower;
/// with 32-byte ones, a half made most HTML files 7 to 12% slower. See
/// `docs/design.md`.)
#[inline(always)]
fn full_ascii_quarters<V: Vector>() -> u32 {
    u32::from(cheap_checks::<V>())
}

/// A register of `0xFF` bytes if `cond`, else of zeros: selects a check without a branch.
///
/// # Safety
/// The CPU must support `V`.
#[inline(always)]
unsafe fn keep_if<V: Vector>(cond: bool) -> V {
    // SAFETY: the CPU supports `V` (caller's guarantee).
    unsafe { V::splat((cond as u8).wrapping_neg()) }
}

/// The blocks of a window that are not all ASCII, bit `i` for block `i`.
type BlockMask = u64;

/// The mask of a window of `blocks` blocks that are all non-ASCII.
#[inline(always)]
const fn full_mask(blocks: usize) -> BlockMask {
    BlockMask::MAX >> (BlockMask::BITS as usize - blocks)
}

/// Is `non_ascii`, the mask of `blocks` blocks, dense text: at most
/// [`full_ascii_quarters`] quarters of them ASCII? With none (16-byte registers), a
/// comparison rather than a count: the SSE4.1 kernel is built without POPCNT, where
/// counting the bits of a 64-bit mask takes a dozen instructions.
#[inline(always)]
fn is_dense<V: Vector>(non_ascii: BlockMask, blocks: usize) -> bool {
    let quarters = full_ascii_quarters::<V>();
    if quarters == 0 {
        return non_ascii == full_mask(blocks);
    }
    let blocks = blocks as u32;
    (blocks - non_ascii.count_ones()) * 4 <= blocks * quarters
}

/// At most how many eighths of a window's blocks may be non-ASCII for the blocks after
/// the last window to be checked by mask rather than from the first non-ASCII pair on
/// ([`check_rest`]), with cheap checks.
const MOSTLY_ASCII_EIGHTHS: u32 = 3;

/// Is `non_ascii`, the mask of `blocks` blocks, mostly ASCII ([`MOSTLY_ASCII_EIGHTHS`])?
/// Always false with 16-byte registers, whose [`check_rest`] goes by mask anyway (and
/// whose kernel is built without POPCNT, see [`is_dense`]).
#[inline(always)]
fn is_mostly_ascii<V: Vector>(non_ascii: BlockMask, blocks: usize) -> bool {
    cheap_checks::<V>() && non_ascii.count_ones() * 8 <= blocks as u32 * MOSTLY_ASCII_EIGHTHS
}

/// Checks the `G` blocks at `ptr` ([`check_block`] each).
///
/// # Safety
/// `ptr - BYTES .. ptr + G * BLOCK` must be in bounds, and the CPU must support `V`.
#[inline(always)]
unsafe fn check_unit<V: Vector, const G: usize>(k: &Constants<V>, ptr: *const u8) -> V {
    // SAFETY: each block and the register before it lie within `ptr - BYTES ..
    // ptr + G * BLOCK` (caller's guarantee); the CPU supports `V`.
    unsafe {
        let mut errors = check_block(k, ptr);
        for block in 1..G {
            errors = errors.or(check_block(k, ptr.add(block * BLOCK)));
        }
        errors
    }
}

/// The mask of the `units` units of `G` blocks at `pos` that are not all ASCII (bit `i`
/// for unit `i`); with `ahead`, asking for the line `ahead` bytes after each block as it
/// goes ([`prefetch`]).
///
/// # Safety
/// `pos + units * G * BLOCK <= bytes.len()` and `1 <= units <= WINDOW` (the bits of a
/// [`BlockMask`]); the CPU must support `V`.
#[inline(always)]
unsafe fn non_ascii_units<V: Vector, const G: usize>(
    bytes: &[u8],
    pos: usize,
    units: usize,
    ahead: Option<usize>,
) -> BlockMask {
    // SAFETY: the caller's guarantee.
    let reversed = unsafe { push_non_ascii_units::<V, G>(0, bytes, pos, units, ahead) };
    unreversed(reversed, units)
}

/// `reversed` shifted up by `units` bits, with a bit for each of the `units` units of `G`
/// blocks at `pos` below, set where the unit is not all ASCII: the first unit's bit the
/// highest, the last unit's bit 0 ([`Vector::push_non_ascii`]). [`unreversed`] turns it
/// into a [`BlockMask`], once per window. With `ahead`, each block's test comes with a
/// [`prefetch`] of the line `ahead` bytes after it: the main loop's mask pass is where
/// most text is first read.
///
/// Why the first unit at the top: each unit's bit is shifted in at the bottom, in two
/// instructions on x86 (the carry flag and `adc`), where setting bit `i` took five (the
/// flag to a register, a shift and an OR). On Zen 4, the pass alone over 64 KiB of ASCII
/// took 1.47 to 2.08 ticks per block, against 1.62 to 2.44 (`simdutf8`'s ASCII loop 1.47
/// to 1.96 in the same runs); whole files of real text were 1.02x faster with each x86
/// kernel (`docs/design.md`, session 38).
///
/// # Safety
/// `pos + units * G * BLOCK <= bytes.len()`; the CPU must support `V`.
#[inline(always)]
unsafe fn push_non_ascii_units<V: Vector, const G: usize>(
    mut reversed: BlockMask,
    bytes: &[u8],
    pos: usize,
    units: usize,
    ahead: Option<usize>,
) -> BlockMask {
    let unit = G * BLOCK;
    for i in 0..units {
        if let Some(ahead) = ahead {
            for block in 0..G {
                prefetch(
                    bytes
                        .as_ptr()
                        .wrapping_add(pos + i * unit + block * BLOCK + ahead),
                );
            }
        }
        // SAFETY: unit `i` lies within `pos .. pos + units * G * BLOCK`, within `bytes`
        // (caller's guarantee); the CPU supports `V`.
        reversed = unsafe { V::push_non_ascii(reversed, bytes.as_ptr().add(pos + i * unit), unit) };
    }
    reversed
}

/// The [`BlockMask`] of `units` units (bit `i` for unit `i`) from the low `units` bits of
/// `reversed`, built by [`push_non_ascii_units`] (the first unit the highest of them).
#[inline(always)]
fn unreversed(reversed: BlockMask, units: usize) -> BlockMask {
    debug_assert!((1..=WINDOW).contains(&units));
    reversed.reverse_bits() >> (BlockMask::BITS as usize - units)
}

/// Checks the `units` units of `G` blocks at `pos` (a window, or the blocks after the
/// last window) without a branch
/// per unit, from `non_ascii`, the mask of those that are not all ASCII
/// ([`non_ascii_units`]): a loop over the mask's set bits, whose exit is its one branch
/// that depends on the data. Where ASCII and non-ASCII blocks alternate without a pattern
/// (prose in Latin scripts, HTML, man pages, word lists), a branch per block is
/// mispredicted at about every other switch, and each misprediction costs more than
/// checking a block.
///
/// The first set bit is checked before the loop, whether there is one or not (without
/// one, the last unit: all ASCII, after ASCII bytes, it cannot fail): a window with one
/// non-ASCII unit, the common case in sparse text, takes no data-dependent branch at all.
///
/// An ASCII unit ends any sequence the bytes before it started: where unit `i + 1` is
/// ASCII and unit `i` is not, unit `i`'s check comes with the end check of its last
/// register ([`unfinished_before_if`], in the same loop: a second loop over these
/// switches had an exit of its own to mispredict); at the start the end check of the
/// bytes before is kept by [`keep_if`] if unit 0 is ASCII. The bytes after the last unit
/// are the next window's (or the tail's) to judge.
///
/// Returns the error bits.
///
/// # Safety
/// `BYTES <= pos` and `pos + units * G * BLOCK <= bytes.len()`; `2 <= units <= WINDOW`; the
/// CPU must support `V`.
#[inline(always)]
unsafe fn check_by_mask<V: Vector, const G: usize>(
    k: &Constants<V>,
    bytes: &[u8],
    pos: usize,
    units: usize,
    non_ascii: BlockMask,
) -> V {
    // The units followed by an ASCII unit (for a unit that is not ASCII itself, a switch;
    // without a set bit in `non_ascii`, the last unit is checked, whose bit is clear).
    let ends_before_ascii = !(non_ascii >> 1) & (full_mask(units) >> 1);
    // SAFETY: every unit read lies within `pos .. pos + units * G * BLOCK`, within
    // `bytes`, and the three bytes and the register before each block and each end check
    // lie at or after `pos - BYTES >= 0` (caller's guarantee); the CPU supports `V`.
    unsafe {
        let mut errors = unfinished_before(k, bytes, pos).and(keep_if(non_ascii & 1 == 0));
        let first = (non_ascii.trailing_zeros() as usize).min(units - 1);
        errors = errors.or(check_unit_ending::<V, G>(
            k,
            bytes,
            pos,
            ends_before_ascii,
            first,
        ));
        let mut todo = non_ascii & non_ascii.wrapping_sub(1);
        while todo != 0 {
            let i = todo.trailing_zeros() as usize;
            todo &= todo - 1;
            errors = errors.or(check_unit_ending::<V, G>(
                k,
                bytes,
                pos,
                ends_before_ascii,
                i,
            ));
        }
        errors
    }
}

/// The error bits of unit `i` of `G` blocks at `pos`: its check, and the end check of its
/// last register if bit `i` of `ends_before_ascii` is set (an ASCII unit follows it).
///
/// # Safety
/// `BYTES <= pos` and `pos + (i + 1) * G * BLOCK <= bytes.len()`; the CPU must support `V`.
#[inline(always)]
unsafe fn check_unit_ending<V: Vector, const G: usize>(
    k: &Constants<V>,
    bytes: &[u8],
    pos: usize,
    ends_before_ascii: BlockMask,
    i: usize,
) -> V {
    let (start, end) = (pos + i * G * BLOCK, pos + (i + 1) * G * BLOCK);
    // SAFETY: the unit, the register before it and the register that ends it lie within
    // `pos - BYTES .. end`, within `bytes` (caller's guarantee); the CPU supports `V`.
    unsafe {
        let ends = unfinished_before_if(k, bytes, end, ends_before_ascii >> i & 1 == 1);
        check_unit::<V, G>(k, bytes.as_ptr().add(start)).or(ends)
    }
}

/// Blocks of [`mask_checking_pending`]'s mask pass per check of the window before it:
/// four with registers of up to 32 bytes, eight with 64-byte ones.
///
/// A block's check is about twice as many instructions as four blocks' ASCII tests, and
/// the checks are taken from the window's first pending block on, so the spacing decides
/// how much of the pass a window's checks are spread over, and how many of them are left
/// for after it (up to 16 per pass with four, 8 with eight).
/// - On Zen 4 (session 40), eight against four: regular spacings of 384 B to 4 KiB at 64
///   KiB 0.99x to 1.10x, jittered ones of 512 B to 2 KiB 1.03x to 1.08x; regular 128 to
///   256 B (16 to 32 non-ASCII blocks per window) 0.94x to 1.03x; real files 1.00x with
///   AVX-512, 0.99x with AVX2 and SSE4.1. So eight with AVX-512, which only Zen 4 and
///   Intel's CPUs run.
/// - On Zen 3 (session 46), the AVX2 kernel's main target, four against eight: real files
///   1.008x to 1.026x in three runs over both corpora, with AVX2 and with SSE4.1; regular
///   192 to 384 B at 64 KiB, the cells under `simdutf8`, mostly 1.01x to 1.06x (the
///   lowest 0.96x); but regular 500 B 0.96x to 0.97x (and 96 to 128 B, whose windows go
///   by branches after the first and never reach this, 0.94x to 0.98x: code placement).
///   (NEON, with 16-byte registers, takes four as SSE4.1 does; it was not measured.)
///
/// Choosing the spacing per window by the number of pending blocks cost real text 1% to
/// 2% in mispredicted choices (`docs/design.md`, session 40).
#[inline(always)]
fn blocks_per_pending_check<V: Vector>() -> usize {
    if V::BYTES == 64 {
        8
    } else {
        4
    }
}

/// A window by mask of blocks whose checks wait for the next window's mask pass
/// ([`mask_checking_pending`]): where it starts and its mask.
#[derive(Copy, Clone)]
struct Pending {
    pos: usize,
    non_ascii: BlockMask,
}

/// The mask of the window of `W` blocks at `pos` (as [`non_ascii_units`]), taken while
/// the blocks of `pending`, the window by mask before it, are checked as
/// [`check_by_mask`] would check them; returns the mask and the error bits of `pending`.
/// Each block of the pass comes with a [`prefetch`] of the line `ahead` bytes after it
/// ([`window_ahead`]).
///
/// In a window by mask alone ([`check_by_mask`]) the checks wait for the whole window's
/// ASCII tests: their addresses come from its mask, and the loop over its set bits ends
/// at a mispredicted exit that resolves only when the mask is complete. So the window's
/// memory pass and its checks run one after the other. Here the checks come from the
/// last window's mask, known before the first load: a check every
/// [`blocks_per_pending_check`] blocks of the mask pass (the rest after it), on addresses
/// that wait for nothing, so that the checks run while the mask pass waits for memory.
/// (Measured on Zen 4, `docs/design.md`: regular spacings that are not a multiple of a
/// block 1.06x to 1.19x faster with AVX2, real files 1.06x to 1.09x with each kernel.)
///
/// # Safety
/// `BYTES <= pos` and `pos + W * BLOCK <= bytes.len()`; `pending` is the window just
/// before; `W` is a multiple of [`blocks_per_pending_check`] and at most [`WINDOW`]; the
/// CPU must support `V`.
#[inline(always)]
unsafe fn mask_checking_pending<V: Vector, const W: usize>(
    k: &Constants<V>,
    bytes: &[u8],
    pos: usize,
    pending: Pending,
    ahead: usize,
) -> (BlockMask, V) {
    let step_blocks = blocks_per_pending_check::<V>();
    debug_assert!(W % step_blocks == 0 && W <= WINDOW);
    let Pending {
        pos: before,
        non_ascii: listed,
    } = pending;
    // SAFETY: the window and the pending one before it, with the register before that,
    // are in bounds (caller's guarantee); the CPU supports `V`.
    unsafe {
        // An ASCII first block ends any sequence started before the pending window.
        let starts_with_ascii = listed & 1 == 0;
        let mut errors = unfinished_before(k, bytes, before).and(keep_if(starts_with_ascii));
        // The blocks followed by an ASCII block in the window.
        let ends_before_ascii = !(listed >> 1) & (full_mask(W) >> 1);
        let mut todo = listed;
        let mut reversed: BlockMask = 0;
        for step in (0..W).step_by(step_blocks) {
            reversed = push_non_ascii_units::<V, 1>(
                reversed,
                bytes,
                pos + step * BLOCK,
                step_blocks,
                Some(ahead),
            );
            if todo != 0 {
                let i = todo.trailing_zeros() as usize;
                todo &= todo - 1;
                errors = errors.or(check_unit_ending::<V, 1>(
                    k,
                    bytes,
                    before,
                    ends_before_ascii,
                    i,
                ));
            }
        }
        while todo != 0 {
            let i = todo.trailing_zeros() as usize;
            todo &= todo - 1;
            errors = errors.or(check_unit_ending::<V, 1>(
                k,
                bytes,
                before,
                ends_before_ascii,
                i,
            ));
        }
        (unreversed(reversed, W), errors)
    }
}

/// Checks every block of the window of `W` blocks at `pos`, without an ASCII test: dense
/// text, where ASCII blocks are too few to pay for testing every block (see
/// [`Way::Full`]). The checks alone cover every rule, an ASCII block's included. Four
/// blocks per iteration written out (the compiler keeps a loop of this size rolled), so
/// that the loop's own counting is shared by four blocks. Each block comes with a
/// [`prefetch`] of the line `ahead` bytes after it ([`window_ahead`]). Returns the
/// window's error bits.
///
/// # Safety
/// `BYTES <= pos` and `pos + W * BLOCK <= bytes.len()`; `W` is a multiple of 4; the CPU
/// must support `V`.
#[inline(always)]
unsafe fn check_every_block<V: Vector, const W: usize>(
    k: &Constants<V>,
    bytes: &[u8],
    pos: usize,
    ahead: usize,
) -> V {
    debug_assert!(W % 4 == 0);
    // SAFETY: each block and the register before it lie within the window and the
    // register before it (caller's guarantee); the CPU supports `V`.
    unsafe {
        let mut errors = V::splat(0);
        for group in (0..W).step_by(4) {
            let block = bytes.as_ptr().add(pos + group * BLOCK);
            for line in 0..4 {
                prefetch(block.wrapping_add(line * BLOCK + ahead));
            }
            errors = errors
                .or(check_block(k, block))
                .or(check_block(k, block.add(BLOCK)))
                .or(check_block(k, block.add(2 * BLOCK)))
                .or(check_block(k, block.add(3 * BLOCK)));
        }
        errors
    }
}

/// How the main loop checks its next window, chosen from the shape of the last one.
///
/// Two ways from session 39 to 43, three since. Until then text that was not dense also had
/// a skipping loop over pairs of ASCII blocks, windows by pairs, windows by branches for
/// masks that repeated, and runs by branches for clusters at equal gaps; with the mask pass
/// through the carry flag (session 38) a window by mask costs about what the skipping
/// loop's ASCII test did per block, and takes one mispredicted branch or none where those
/// ways took one at each non-ASCII pair at a random gap and had choices that ran too few
/// times per call for a predictor to learn after other work. Without them, on Zen 4 (four
/// builds): real files of both corpora 1.06x to 1.07x faster with each kernel, pieces of 6
/// KiB 1.07x to 1.13x, jittered density cells at 64 KiB 1.02x to 1.32x; regular spacings of
/// 128 B to 4 KiB, where the predictor had learned those ways' branches, down to 0.91x
/// (`docs/design.md`, session 39). Of those, windows by branches came back in session 44
/// for crowded periodic windows only ([`Way::Branches`]), where windows by mask lose most.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Way {
    /// Dense text (a window with few ASCII blocks: at most a quarter with 32-byte
    /// registers, none with 16-byte ones): [`check_every_block`], no ASCII test at all.
    /// Where most blocks are not ASCII, testing every block costs more than the checks it
    /// saves, and the test's branch (or the mask's loop) is mispredicted at each ASCII
    /// block. Checking a block costs twice as many registers where they are half as
    /// wide, so 16-byte registers test sooner. As nothing is measured in this way, a
    /// window now and then is checked by mask to see whether the text is still dense
    /// ([`FULL_RUN`]).
    Full,
    /// [`check_by_mask`] by blocks: every other text. Before another window by mask, the
    /// blocks are checked during that window's mask pass instead
    /// ([`mask_checking_pending`]).
    Mask,
    /// A window after one by mask or by branches whose mask repeats and is at least half
    /// non-ASCII ([`is_crowded`], [`period`]): [`check_by_branches`], a branch per block,
    /// which the predictor learns where non-ASCII characters come at a regular spacing
    /// whose blocks repeat within 8 blocks (32 in long inputs), crowded: every 96 B (two
    /// non-ASCII blocks in three), 100 B (16 in 25) or 128 B (one in two), for example.
    /// There a window by mask has many pending blocks, whose checks mostly come after the
    /// next window's mask pass, in a loop whose exit no predictor learns.
    /// Four builds on Zen 3 (`docs/design.md`, session 44): regular spacings of 96 B 1.03x
    /// to 1.32x faster, of 128 B 1.10x to 1.25x from 256 KiB (at 64 KiB 0.99x to 1.07x);
    /// real files and jittered spacings unchanged. Where a window has fewer non-ASCII
    /// blocks (regular spacings of 192 to 448 B), learned branches were 0.80x to 1.00x
    /// the windows by mask, so the gate asks for half.
    Branches,
}

/// The shortest period in blocks of `mask`, the mask of a whole [`is_crowded`] window,
/// from 2 to [`SHORT_PERIOD`], or to [`MAX_PERIOD`] if `long`; 0 if it has none. With a
/// period the next window goes by branches ([`Way::Branches`]). First `known`, the last
/// window's period (0 for none): in periodic text one comparison per window. Then each
/// period up to [`SHORT_PERIOD`], or, if `long`, the periods that the mask's first
/// [`FILTERED_BITS`] bits allow, from the shortest: a few comparisons rather than one per
/// period up to 32, whose cost per window lost more than the long periods gained
/// (`docs/design.md`, session 44).
#[inline(always)]
fn period(mask: BlockMask, known: usize, long: bool) -> usize {
    debug_assert!(is_crowded(mask));
    if known != 0 && repeats_every(mask, known) {
        return known;
    }
    if !long {
        return (2..=SHORT_PERIOD)
            .find(|&period| repeats_every(mask, period))
            .unwrap_or(0);
    }
    // Bit `p`: a period `p` that bits 0 to `FILTERED_BITS - 1` of the mask agree with.
    let mut candidates: BlockMask = full_mask(MAX_PERIOD + 1) & !full_mask(2);
    for i in 0..FILTERED_BITS {
        // Bit `p` of `from_i`, or of its complement where bit `i` is 0, is bit `i + p`.
        let from_i = mask >> i;
        candidates &= from_i ^ (from_i & 1).wrapping_sub(1);
    }
    while candidates != 0 {
        let period = candidates.trailing_zeros() as usize;
        if repeats_every(mask, period) {
            return period;
        }
        candidates &= candidates - 1;
    }
    0
}

/// Is `mask`, the mask of a whole window, crowded enough for [`Way::Branches`]: at least
/// half of its blocks non-ASCII, but not all? (Without the half, the regular spacings of
/// 192 to 448 B lost up to 20% by branches; with "at least half" and no period, jittered
/// spacings of 96 and 128 B lost 30% to 35% to mispredicted branches: `docs/design.md`,
/// session 43.) The count rejects the masks of most text (with 16-byte registers, built
/// without POPCNT, it takes a dozen instructions, once per window of 4 KiB) before any
/// period is looked for.
#[inline(always)]
fn is_crowded(mask: BlockMask) -> bool {
    mask.count_ones() >= WINDOW as u32 / 2 && mask != full_mask(WINDOW)
}

/// Is `mask`, the mask of a whole window, the same every `period` blocks (`0 < period <
/// WINDOW`)?
#[inline(always)]
fn repeats_every(mask: BlockMask, period: usize) -> bool {
    let compared = full_mask(WINDOW - period);
    (mask >> period) & compared == mask & compared
}

/// The longest period in blocks of a mask that [`period`] looks for where the input has
/// fewer than [`LONG_PERIODS_LEFT`] bytes left: the predictor learns the branches of a
/// short period within a window.
const SHORT_PERIOD: usize = 8;

/// The longest period in blocks of a mask that [`period`] looks for from a window by
/// branches, or where the input has at least [`LONG_PERIODS_LEFT`] bytes left: 32, half a
/// window, so that a period shows twice in a window's mask. Regular spacings of 100 B
/// repeat every 25 blocks; by branches, at 1 MiB, they were 1.23x to 1.31x faster with
/// AVX2 and 1.07x to 1.11x with SSE4.1 (session 45); in short inputs, where the
/// predictor's learning of so long a pattern is spread over few windows, they lose
/// ([`LONG_PERIODS_LEFT`]; both in `docs/design.md`).
const MAX_PERIOD: usize = 32;

/// Bytes left after a window from which [`period`] looks for periods up to
/// [`MAX_PERIOD`] blocks, not only [`SHORT_PERIOD`]: 48 KiB, 12 windows, enough to repay
/// the predictor's learning of a long period. Against 128 KiB (session 48, Zen 3, medians
/// of eight builds, `is_valid` / AVX2 / SSE4.1): regular spacings of 100 B in 128 KiB
/// 1.03x, 1.05x, 1.06x; in 64 KiB 0.97x to 1.03x, 0.98x to 1.04x, 1.01x to 1.05x (words
/// gain, `é` and `€` may lose); jittered spacings and pieces of 64 KiB of real text
/// 0.99x to 1.02x. With 16 KiB, inputs of 32 KiB read 0.94x to 1.00x at the same spacing.
const LONG_PERIODS_LEFT: usize = 48 * 1024;

/// Crowded windows after one without a period of up to [`MAX_PERIOD`] blocks during
/// which [`period`] looks only for periods of up to [`SHORT_PERIOD`]: text that is
/// crowded but not periodic (mixed text such as Russian man pages, jittered spacings)
/// pays for the longer search once in 17 windows, not at each.
const LONG_SEARCH_PAUSE: u32 = 16;

/// Bits of a mask that [`period`] filters its candidate periods by before comparing the
/// whole mask: 8. (With 4, jittered spacings lost up to 6%, by more candidates and a
/// loop exit no predictor learns; with 8 and only the shortest candidate compared, the
/// periods of 100 B spacings, 25 blocks, were missed behind a shorter candidate of 3.)
const FILTERED_BITS: usize = 8;

/// Checks the window of `W` blocks at `pos` a block at a time, with a branch per block
/// ([`Way::Branches`]): an ASCII block gets the end check of the bytes before it
/// ([`unfinished_before`]), any other block its checks ([`check_block`], which read the
/// bytes before it too). Returns the window's mask and error bits; the bytes after the
/// window are the next window's (or the rest's) to judge, as with [`check_by_mask`].
/// Each block comes with a [`prefetch`] of the line `ahead` bytes after it
/// ([`window_ahead`]).
///
/// # Safety
/// `BYTES <= pos` and `pos + W * BLOCK <= bytes.len()`; `W <= WINDOW`; the CPU must
/// support `V`.
#[inline(always)]
unsafe fn check_by_branches<V: Vector, const W: usize>(
    k: &Constants<V>,
    bytes: &[u8],
    pos: usize,
    ahead: usize,
) -> (BlockMask, V) {
    // SAFETY: each block and the register before it lie within the window and the
    // register before it (caller's guarantee); the CPU supports `V`.
    unsafe {
        let mut errors = V::splat(0);
        let mut mask: BlockMask = 0;
        for i in 0..W {
            let at = pos + i * BLOCK;
            prefetch(bytes.as_ptr().wrapping_add(at + ahead));
            if is_ascii::<V>(bytes.as_ptr().add(at), BLOCK) {
                errors = errors.or(unfinished_before(k, bytes, at));
            } else {
                errors = errors.or(check_block(k, bytes.as_ptr().add(at)));
                mask |= 1 << i;
            }
        }
        (mask, errors)
    }
}

/// The main loop's choice of [`Way`], from the shape of the last window (a change of way
/// is itself a mispredicted branch, so it follows the text, not each block).
struct Mode {
    way: Way,
    /// Windows left in [`Way::Full`] before one is checked by mask again.
    full_left: u32,
    /// No window has been checked yet, and the input starts with ASCII: the blocks after
    /// the last window are the whole input after its head, and [`check_rest`]
    /// skips its ASCII pairs before its mask.
    ascii_start: bool,
    /// With cheap checks: was the last window checked by blocks mostly ASCII
    /// ([`is_mostly_ascii`])? Then the blocks after the last window are checked by mask
    /// ([`check_rest`]).
    mostly_ascii: bool,
    /// The period of the last window's mask if the next window is by branches
    /// ([`period`]), else 0.
    period: usize,
    /// Crowded windows left before [`period`] looks for long periods again
    /// ([`LONG_SEARCH_PAUSE`]).
    long_pause: u32,
}

impl Mode {
    /// The mode of the first window, from whether the input starts with ASCII: its head
    /// ([`head_end`]), or with cheap checks the pair of blocks after a head that is
    /// not. Text that starts with non-ASCII bytes is most often dense (text in a non-Latin
    /// script): with cheap checks the first window is checked in [`Way::Full`]. Any other
    /// text starts by mask, which measures it. (Starting dense text in a skipping loop took
    /// up to four windows to reach [`Way::Full`]: 4 KiB pieces of Cyrillic and CJK text
    /// were then 1.2 to 1.3 times slower. Mostly-ASCII text that starts with a non-ASCII
    /// word, a piece cut in the middle of one, has its next pair ASCII: by mask.)
    #[inline(always)]
    fn first<V: Vector>(starts_ascii: bool) -> Mode {
        let way = if !starts_ascii && cheap_checks::<V>() {
            Way::Full
        } else {
            Way::Mask
        };
        Mode {
            way,
            full_left: 0,
            ascii_start: starts_ascii,
            mostly_ascii: false,
            period: 0,
            long_pause: 0,
        }
    }

    /// Chooses the way of the next window from the mask of the last one, of `blocks`
    /// blocks, with `left` bytes of input after it.
    #[inline(always)]
    fn after_blocks<V: Vector>(&mut self, mask: BlockMask, blocks: usize, left: usize) {
        self.ascii_start = false;
        self.mostly_ascii = is_mostly_ascii::<V>(mask, blocks);
        if is_dense::<V>(mask, blocks) {
            self.way = Way::Full;
            self.full_left = FULL_RUN;
            self.period = 0;
        } else if blocks == WINDOW && is_crowded(mask) {
            let long = self.long_periods(left);
            self.period = period(mask, self.period, long);
            if self.period == 0 && long {
                self.long_pause = LONG_SEARCH_PAUSE;
            }
            self.way = match self.period {
                0 => Way::Mask,
                _ => Way::Branches,
            };
        } else {
            self.period = 0;
            self.way = Way::Mask;
        }
    }

    /// Is [`period`] to look for periods of up to [`MAX_PERIOD`] blocks in a crowded
    /// window with `left` bytes after it, not only [`SHORT_PERIOD`]? In a run of windows by
    /// branches, which has learned its pattern, or where enough input is left to learn
    /// one and no search for one has failed in the last [`LONG_SEARCH_PAUSE`] crowded
    /// windows.
    #[inline(always)]
    fn long_periods(&mut self, left: usize) -> bool {
        if self.way == Way::Branches {
            true
        } else if self.long_pause > 0 {
            self.long_pause -= 1;
            false
        } else {
            left >= LONG_PERIODS_LEFT
        }
    }

    /// After a window in [`Way::Full`]: after [`FULL_RUN`] of them, one by mask.
    #[inline(always)]
    fn after_full(&mut self) {
        self.ascii_start = false;
        if self.full_left == 0 {
            self.way = Way::Mask;
        } else {
            self.full_left -= 1;
        }
    }
}

/// Checks the windows of `W` blocks from `pos` on while they fit. Returns the position
/// after the last window, or `Err(checkpoint)` at the first error: the first failing
/// block ([`first_bad_block`]).
///
/// # Safety
/// `BYTES <= pos`; the CPU must support `V`.
#[inline(always)]
unsafe fn windows<V: Vector, const W: usize>(
    k: &Constants<V>,
    bytes: &[u8],
    mut pos: usize,
    mode: &mut Mode,
) -> Result<usize, usize> {
    // The last window by mask, if the next one is by mask too: its checks run during that
    // window's mask pass ([`mask_checking_pending`]). `Way::Full` and `Way::Branches`
    // check their windows at once, so this is `None` in their arms. Not in
    // `validate_early`'s windows, which are to stop within one window of an error.
    let mut pending: Option<Pending> = None;
    while pos + W * BLOCK <= bytes.len() {
        debug_assert!(pending.is_none() || mode.way == Way::Mask);
        let ahead = window_ahead::<W>(bytes, pos);
        // SAFETY: `BYTES <= pos` and `pos + W * BLOCK <= len`, so the window and the
        // register before it are in bounds; the CPU supports `V`.
        let errors = unsafe {
            match mode.way {
                Way::Full => {
                    mode.after_full();
                    check_every_block::<V, W>(k, bytes, pos, ahead)
                }
                Way::Mask => {
                    let mask = match pending {
                        None => non_ascii_units::<V, 1>(bytes, pos, W, Some(ahead)),
                        Some(window) => {
                            let (mask, before) =
                                mask_checking_pending::<V, W>(k, bytes, pos, window, ahead);
                            if !before.is_zero() {
                                return Err(first_bad_block(
                                    k,
                                    bytes,
                                    window.pos,
                                    window.pos + W * BLOCK,
                                ));
                            }
                            mask
                        }
                    };
                    mode.after_blocks::<V>(mask, W, bytes.len() - pos - W * BLOCK);
                    if mode.way == Way::Mask && W == WINDOW {
                        pending = Some(Pending {
                            pos,
                            non_ascii: mask,
                        });
                        V::splat(0)
                    } else {
                        pending = None;
                        check_by_mask::<V, 1>(k, bytes, pos, W, mask)
                    }
                }
                Way::Branches => {
                    let (mask, errors) = check_by_branches::<V, W>(k, bytes, pos, ahead);
                    mode.after_blocks::<V>(mask, W, bytes.len() - pos - W * BLOCK);
                    errors
                }
            }
        };
        // SAFETY: the CPU supports `V`.
        if !unsafe { errors.is_zero() } {
            // SAFETY: the window is in bounds, as above; the CPU supports `V`.
            return Err(unsafe { first_bad_block(k, bytes, pos, pos + W * BLOCK) });
        }
        pos += W * BLOCK;
    }
    if let Some(window) = pending {
        // SAFETY: the pending window is one of the loop's windows, in bounds with the
        // register before it; the CPU supports `V`.
        unsafe {
            let errors = check_by_mask::<V, 1>(k, bytes, window.pos, W, window.non_ascii);
            if !errors.is_zero() {
                return Err(first_bad_block(
                    k,
                    bytes,
                    window.pos,
                    window.pos + W * BLOCK,
                ));
            }
        }
    }
    Ok(pos)
}

/// The first of the blocks from `pos` to `end` (a window) that shows an error, given that
/// they do: the checkpoint the main loop returns, so that
/// the exact error is looked for in at most a block and not from the window's start. The
/// same checks as the window's, one block at a time, run only where there is an error.
/// (Inlined like the rest: a function of its own would not have the kernel's target
/// features.)
///
/// # Safety
/// `BYTES <= pos` and `end <= bytes.len()`, `end - pos` a multiple of [`BLOCK`]; the CPU
/// must support `V`.
#[inline(always)]
unsafe fn first_bad_block<V: Vector>(
    k: &Constants<V>,
    bytes: &[u8],
    pos: usize,
    end: usize,
) -> usize {
    // SAFETY: every block and the register before it lie within the blocks and the
    // register before them (caller's guarantee); the CPU supports `V`.
    unsafe {
        for block in (pos..end).step_by(BLOCK) {
            let errors = if is_ascii::<V>(bytes.as_ptr().add(block), BLOCK) {
                unfinished_before(k, bytes, block)
            } else {
                check_block(k, bytes.as_ptr().add(block))
            };
            if !errors.is_zero() {
                return block;
            }
        }
    }
    // Unreachable while the window's checks are these; the window's start is still a
    // valid checkpoint.
    pos
}

/// Checks the bytes after the last window, `bytes[pos..]`: fewer than `WINDOW` blocks and
/// a tail (also the whole input after its head, for inputs under a window that
/// are not [`validate_medium`]'s). Where checks are cheap, the input is not ASCII so far
/// (`ascii_start`, [`Mode`]) and the last window was not mostly ASCII (`mostly_ascii`),
/// pairs of ASCII blocks are skipped up to the first that is not, and everything from
/// there is checked ([`check_after_ascii`]); otherwise by mask ([`check_rest_by_mask`]),
/// where the input is ASCII so far from the first pair of blocks that is not ASCII if at
/// least [`HALF_WINDOW`] blocks are left. By mask after mostly-ASCII windows too: so, 6
/// KiB pieces of HTML in Latin scripts and of JSON were 1.00x to 1.11x faster with AVX2,
/// in both corpora, and mixed text 0.95x to 1.05x; after every window by mask, mixed and
/// dense text were 0.90x to 0.96x (`docs/design.md`, session 38). (A mask costs an
/// instruction or two per ASCII block more than the skip: by mask from the start, 2.5 to 4 KiB pieces of
/// ASCII text were 13 to 15% slower; skipping before shorter rests made 1.5 KiB pieces of
/// mixed text 5% slower with 16-byte registers, most likely by the skip's mispredicted
/// exit.)
///
/// The windows' ways learn the text over a few windows, at a mispredicted branch or two
/// per change of way; for these few blocks a way chosen once is faster. With narrow
/// windows of 4 blocks instead (the loop until this change), inputs of 300 B to 8 KiB of
/// real text were 1.05 to 1.35 times slower (`docs/design.md`).
///
/// Returns `Err(checkpoint)` as [`validate_from`] does.
///
/// # Safety
/// `BYTES <= pos <= bytes.len()` and `bytes.len() >= BYTES + 3`; the CPU must support `V`.
#[inline(always)]
unsafe fn check_rest<V: Vector>(
    k: &Constants<V>,
    bytes: &[u8],
    pos: usize,
    ascii_start: bool,
    mostly_ascii: bool,
) -> Result<(), usize> {
    // SAFETY: the caller's guarantee is that of each function called here
    // (`check_after_ascii`, `skip_ascii`, `check_rest_by_mask`); `skip_ascii`
    // returns a position from `pos` to `bytes.len()`, so it holds after the skip too.
    unsafe {
        if cheap_checks::<V>() && !ascii_start && !mostly_ascii {
            check_after_ascii(k, bytes, pos)
        } else if ascii_start && bytes.len() - pos >= HALF_WINDOW * BLOCK {
            check_rest_by_mask(k, bytes, skip_ascii(k, bytes, pos)?)
        } else {
            check_rest_by_mask(k, bytes, pos)
        }
    }
}

/// Skips the pairs of ASCII blocks at `pos` ([`skip_ascii_pairs`]): returns where they
/// end, or `Err(pos)` if a sequence started before `pos` needs bytes from them.
///
/// The first pair is tested on its own, so that the end check needs no comparison of
/// where the skip stopped with where it started: for that comparison LLVM kept a second
/// counter in the skipping loop. Without it, on Zen 4 at 64 KiB over four code
/// placements, regular spacings of 640 B to 4 KiB ran 1.02x to 1.03x faster (AVX-512;
/// AVX2 0.99x to 1.02x), jittered ones 0.99x to 1.07x.
///
/// # Safety
/// `BYTES <= pos <= bytes.len()`; the CPU must support `V`.
#[inline(always)]
unsafe fn skip_ascii<V: Vector>(
    k: &Constants<V>,
    bytes: &[u8],
    pos: usize,
) -> Result<usize, usize> {
    // SAFETY: the skip tests blocks that end by `bytes.len()`; the end check reads
    // `pos - BYTES .. pos`, within `bytes` (caller's guarantee); the CPU supports `V`.
    unsafe {
        let len = bytes.len();
        if pos + 2 * BLOCK > len || !is_ascii::<V>(bytes.as_ptr().add(pos), 2 * BLOCK) {
            return Ok(pos);
        }
        // Skipped ASCII blocks end any sequence started before them.
        if ends_incomplete(k, bytes, pos) {
            return Err(pos);
        }
        Ok(skip_ascii_pairs::<V>(bytes, pos + 2 * BLOCK, len))
    }
}

/// Checks `bytes[pos..]` by skipping its pairs of ASCII blocks up to the first that is
/// not, then checking every register from there to the end ([`tail_errors`]; fewer than
/// two blocks left: [`tail_has_errors`], which tests them for ASCII first): no branch that
/// depends on the data after the skip loop's exit. Where the first non-ASCII block comes early,
/// this checks ASCII blocks too, which costs less with 32-byte registers than the
/// mispredicted exits of a mask's loops on a few blocks.
///
/// # Safety
/// As [`check_rest`].
#[inline(always)]
unsafe fn check_after_ascii<V: Vector>(
    k: &Constants<V>,
    bytes: &[u8],
    pos: usize,
) -> Result<(), usize> {
    let len = bytes.len();
    // SAFETY: each block tested ends by `len`; the end checks and `tail_errors` read at or
    // after `pos - BYTES >= 0` and within `bytes`, whose length is at least `BYTES + 3`
    // (caller's guarantee); the CPU supports `V`.
    unsafe {
        let start = skip_ascii(k, bytes, pos)?;
        let errors = if start + 2 * BLOCK > len {
            tail_has_errors(k, bytes, start)
        } else {
            !tail_errors(k, bytes, start).is_zero()
        };
        match errors {
            true => Err(start),
            false => Ok(()),
        }
    }
}

/// Checks `bytes[pos..]` by the mask of its whole blocks ([`check_by_mask`]), or every
/// register if they are dense ([`full_ascii_quarters`]), then the tail after them
/// ([`tail_has_errors`]).
///
/// # Safety
/// As [`check_rest`].
#[inline(always)]
unsafe fn check_rest_by_mask<V: Vector>(
    k: &Constants<V>,
    bytes: &[u8],
    pos: usize,
) -> Result<(), usize> {
    let blocks = (bytes.len() - pos) / BLOCK;
    let end = pos + blocks * BLOCK;
    // SAFETY: the blocks lie within `bytes` (`end <= len`), fewer than `WINDOW` of them;
    // the checks and end checks read at or after `pos - BYTES >= 0`, and `bytes.len() >=
    // BYTES + 3` (caller's guarantee); the CPU supports `V`.
    let errors = unsafe {
        if blocks < 2 {
            tail_has_errors(k, bytes, pos)
        } else {
            let non_ascii = non_ascii_units::<V, 1>(bytes, pos, blocks, None);
            if non_ascii == 0 {
                // (`check_by_mask` would check a block anyway.)
                ends_incomplete(k, bytes, pos) || tail_has_errors(k, bytes, end)
            } else if is_dense::<V>(non_ascii, blocks) {
                !tail_errors(k, bytes, pos).is_zero()
            } else {
                !check_by_mask::<V, 1>(k, bytes, pos, blocks, non_ascii).is_zero()
                    || tail_has_errors(k, bytes, end)
            }
        }
    };
    match errors {
        true => Err(pos),
        false => Ok(()),
    }
}

/// The first half of validating `bytes` (at least [`windows_from`] long): if its head
/// ([`head_end`]) is ASCII, from a window on, its pairs of ASCII blocks after the head
/// skipped in one loop ([`skip_ascii_pairs`]), before the windows' choice of a way, so
/// that pure ASCII takes few branches (`docs/design.md`, session 36). `None` if the input
/// is ASCII to its end (valid); else `Some((start, head_ascii))` for [`validate_from`]:
/// the windows start at `start`, on the grid of blocks from the head's end, before which
/// all is ASCII or the head, and whether the head is ASCII.
///
/// A kernel's `validate` and `from_utf8` run this inline and call [`validate_from`] out
/// of line (`entry_points!` in `arch/mod.rs`): pure ASCII runs a few cache lines of code
/// that save no registers and load no constants. Inside the windows' function (12 KB of
/// code) it ran a prologue of six pushes and the constants' loads (with AVX-512, 64-byte
/// broadcasts), then jumped twice to blocks kilobytes away: the first call after other
/// work waited for those lines. Pure ASCII of 4 KiB to 256 KiB after the benchmarks'
/// scrub, on an Intel Xeon (session 49): with AVX-512 1.01x to 1.37x faster than that (it
/// had read 0.72x to 0.95x `simdutf8::basic` at 4 to 64 KiB, now 1.21x to 1.38x), with
/// SSE4.1 1.00x to 1.10x, with AVX2 1.00x to 1.03x; real text unchanged (whole files 0.99x
/// to 1.00x, pieces of 2 to 16 KiB 0.97x to 1.03x). Not measured on Zen 3.
///
/// # Safety
/// The CPU must support `V`; `bytes.len() >= windows_from::<V>()`.
#[inline(always)]
pub(crate) unsafe fn ascii_start<V: Vector>(bytes: &[u8]) -> Option<(usize, bool)> {
    // SAFETY: the caller's guarantee.
    unsafe { ascii_start_in::<V, WINDOW>(bytes) }
}

/// [`ascii_start`] before windows of `W` blocks: inputs shorter than a window skip nothing
/// (mixed text shorter than a window lost 3% to 5% to the skip's exit).
///
/// # Safety
/// As [`ascii_start`].
#[inline(always)]
unsafe fn ascii_start_in<V: Vector, const W: usize>(bytes: &[u8]) -> Option<(usize, bool)> {
    let len = bytes.len();
    debug_assert!(len >= windows_from::<V>());
    // SAFETY: the head's two registers (`head <= 2 * BYTES - 1 < len`) and the pairs that
    // the skip reads end by `len`; the tail test reads from `start` on and the last
    // register, within `bytes` (`len >= BYTES`); the CPU supports `V` (caller's guarantee).
    unsafe {
        let head = head_end::<V>(bytes);
        let head_ascii = head_is_ascii::<V>(bytes);
        if len < W * BLOCK || !head_ascii {
            return Some((head, head_ascii));
        }
        let start = skip_ascii_pairs::<V>(bytes, head, len);
        // ASCII to the end: the bytes before the tail leave nothing open.
        if start + 2 * BLOCK > len && is_ascii_from::<V>(bytes, start) {
            return None;
        }
        Some((start, true))
    }
}

/// Where the head of a long input ends: the first position from `BYTES` on whose address
/// is a multiple of `BYTES`, from `BYTES` to `2 * BYTES - 1`. The head is checked on its
/// own ([`head_errors`]) and everything after it on a grid of blocks that starts there
/// (the ASCII skip, the windows, the blocks after them), so that the registers of the
/// main loop are loaded from addresses that are multiples of their width: such a load
/// never crosses a cache line, where one at any other address crosses one in every
/// `64 / BYTES` loads, and a load that crosses a line costs two.
///
/// On an Intel Xeon (Emerald Rapids, session 51), against the grid at `BYTES` from the
/// start, eight builds: text with a character every 1 to 4 KiB at odd addresses 1.20x to
/// 1.38x faster with AVX2, 1.09x to 1.12x with SSE4.1, 1.24x to 1.32x with AVX-512; every
/// 192 B 1.08x, 1.01x and 1.15x; dense text 1.01x to 1.07x; pieces of 16 KiB of real text
/// 1.06x, 1.04x and 1.10x (four builds; `docs/design.md`). Not measured on Zen 3.
#[inline(always)]
fn head_end<V: Vector>(bytes: &[u8]) -> usize {
    let misaligned = bytes.as_ptr() as usize % V::BYTES;
    V::BYTES + (V::BYTES - misaligned) % V::BYTES
}

/// Is the head of `bytes` ([`head_end`]) all ASCII? Its first register and the one that
/// ends it, ORed.
///
/// # Safety
/// `bytes.len() >= 2 * BYTES`; the CPU must support `V`.
#[inline(always)]
unsafe fn head_is_ascii<V: Vector>(bytes: &[u8]) -> bool {
    let ptr = bytes.as_ptr();
    // SAFETY: both registers end by `head_end <= 2 * BYTES - 1`, within `bytes` (caller's
    // guarantee); the CPU supports `V`.
    unsafe {
        V::load(ptr)
            .or(V::load(ptr.add(head_end::<V>(bytes) - V::BYTES)))
            .is_ascii()
    }
}

/// The error bits of the head of `bytes`, `bytes[..head_end]` ([`head_end`]): its first
/// register, with zeros before it, and the register that ends the head, with the bytes
/// before it from memory (or, where fewer than three stand before it, the register from
/// byte 3, which still reaches the head's end).
///
/// # Safety
/// `bytes.len() >= 2 * BYTES + 3`; the CPU must support `V`.
#[inline(always)]
unsafe fn head_errors<V: Vector>(k: &Constants<V>, bytes: &[u8]) -> V {
    let ptr = bytes.as_ptr();
    // `head_end <= 2 * BYTES - 1`: from `second`, at most `BYTES + 2`, the register reaches
    // it and ends within `bytes`; the three bytes before it are in bounds.
    let second = (head_end::<V>(bytes) - V::BYTES).max(3);
    // SAFETY: both registers and the bytes before the second lie within `bytes`, as above
    // (caller's guarantee); the CPU supports `V`.
    unsafe {
        check_in_registers(k, V::load(ptr), V::splat(0)).or(check_in_memory(k, ptr.add(second)))
    }
}

/// The second half of validating `bytes`, after [`ascii_start`] (`start` and
/// `head_ascii` are its answer): the main loop's windows, the blocks after them and the
/// end. Returns `Ok(())` if `bytes` is UTF-8, else `Err(checkpoint)` with no rule broken
/// before `checkpoint` (see the module documentation).
///
/// # Safety
/// The CPU must support `V`; `bytes.len() >= windows_from::<V>()`, and `(start,
/// head_ascii)` is [`ascii_start`]'s answer for `bytes`.
#[inline(always)]
pub(crate) unsafe fn validate_from<V: Vector>(
    bytes: &[u8],
    start: usize,
    head_ascii: bool,
) -> Result<(), usize> {
    // SAFETY: the caller's guarantee.
    unsafe { validate_from_in::<V, WINDOW>(bytes, start, head_ascii) }
}

/// Validates `bytes` as a kernel's `validate` does ([`ascii_start`], [`validate_from`]),
/// with windows of [`EARLY_WINDOW`] blocks: it stops within 512 bytes of the first
/// error, where [`validate_from`] checks the rest of its
/// 4 KiB window and then that window again up to the failing block
/// ([`first_bad_block`]). Clean text costs a few percent more (the error test and the
/// choice of the next window's way come 8 times as often). This is the chunk walker's
/// search over long windows after an error (`src/chunks.rs`), where the text is known to
/// have errors and one is often near.
///
/// # Safety
/// The CPU must support `V`.
#[inline(always)]
pub(crate) unsafe fn validate_early<V: Vector>(bytes: &[u8]) -> Result<(), usize> {
    // SAFETY: the CPU supports `V` (caller's guarantee), and `ascii_start_in` answers for
    // inputs of `windows_from` and longer, for which `validate_from_in` takes its
    // answer.
    unsafe {
        if bytes.len() < windows_from::<V>() {
            return validate_without_windows::<V>(bytes);
        }
        match ascii_start_in::<V, EARLY_WINDOW>(bytes) {
            None => Ok(()),
            Some((start, head_ascii)) => {
                validate_from_in::<V, EARLY_WINDOW>(bytes, start, head_ascii)
            }
        }
    }
}

/// The length from which a kernel's `validate` runs [`ascii_start`] and the windows;
/// shorter inputs take [`validate_without_windows`].
#[inline(always)]
pub(crate) fn windows_from<V: Vector>() -> usize {
    V::BYTES + medium_blocks::<V>() * BLOCK
}

/// Validation of inputs shorter than [`windows_from`]: straight-line code and short
/// loops, which keep no more registers than the caller gives them. A kernel's `validate`
/// entry point runs this inline and calls an out-of-line function for longer inputs
/// (`entry_points!` in `arch/mod.rs`), so that short inputs save no registers.
///
/// # Safety
/// The CPU must support `V`; `bytes.len() < windows_from::<V>()`.
#[inline(always)]
pub(crate) unsafe fn validate_without_windows<V: Vector>(bytes: &[u8]) -> Result<(), usize> {
    let len = bytes.len();
    // SAFETY: the CPU supports `V` (caller's guarantee).
    unsafe {
        if len < V::BYTES + 3 {
            return validate_short(&Constants::<V>::new(), bytes);
        }
        // Three calls of the same function: inlined under `len <= BLOCK` and under
        // `len <= short_blocks * BLOCK`, the first two become straight-line code (the
        // compiler sees that no loop in them repeats more than a few times).
        if len <= BLOCK {
            return validate_medium::<V>(bytes);
        }
        if len <= short_blocks::<V>() * BLOCK {
            return validate_medium::<V>(bytes);
        }
        validate_medium::<V>(bytes)
    }
}

/// A kernel's [`crate::kernel::ExactFn`] for inputs shorter than [`windows_from`]:
/// [`validate_without_windows`] and `scalar::exact` in one.
///
/// The input's bytes are needed after the check, for the exact error, so a function that
/// checks and then looks for the error keeps them in registers that it must save on
/// entry: six pushes and pops, as LLVM saves them on every path if any path needs them
/// (for 128 bytes of ASCII, `from_utf8` took 5.4 ns against `is_valid`'s 3.1 ns). The
/// straight-line paths for shorter inputs need no such registers: they keep the bytes
/// where they came in, and the error search is called from a cold block that saves what
/// it needs itself. So a kernel's entry point (`entry_points!`) runs this inline
/// and calls an out-of-line function for longer inputs, which alone saves registers.
/// (A direct call: passed to a generic function as a function pointer, LLVM inlined it.)
///
/// # Safety
/// The CPU must support `V`; `bytes.len() < windows_from::<V>()`.
#[inline(always)]
pub(crate) unsafe fn from_utf8_without_windows<V: Vector>(bytes: &[u8]) -> Result<(), Utf8Error> {
    // SAFETY: the CPU supports `V`, and the input is short enough (caller's guarantee).
    unsafe { scalar::exact(bytes, validate_without_windows::<V>(bytes)) }
}

/// [`validate_from`] with windows of `W` blocks.
///
/// # Safety
/// As [`validate_from`]; `W` is a multiple of 4 and at most [`WINDOW`] (as
/// [`mask_checking_pending`] and [`check_every_block`] need).
#[inline(always)]
unsafe fn validate_from_in<V: Vector, const W: usize>(
    bytes: &[u8],
    start: usize,
    head_ascii: bool,
) -> Result<(), usize> {
    let len = bytes.len();
    let ptr = bytes.as_ptr();
    // SAFETY: the CPU supports `V` (caller's guarantee). Every load is in
    // bounds: see the comment at each one.
    unsafe {
        let k = Constants::<V>::new();
        // Skipped to the end, with a tail that is not ASCII (`ascii_start`): the bytes
        // before it are ASCII and leave nothing open. (Only after a skip: from the head's
        // end, under `2 * BYTES`, two blocks fit, as `len >= windows_from`. `tail_errors`
        // needs `BYTES <= start` and `len >= BYTES + 3`.)
        if start + 2 * BLOCK > len {
            return match tail_errors(&k, bytes, start).is_zero() {
                true => Ok(()),
                false => Err(start),
            };
        }
        // The head (`len >= windows_from >= 2 * BYTES + 3`).
        if !head_ascii && !head_errors(&k, bytes).is_zero() {
            return Err(0);
        }
        // `start >= BYTES >= 3` from here on, so the three bytes (and the register) before
        // each block are in bounds.
        // (`len >= windows_from`: the pair after the head is in bounds.)
        let starts_ascii =
            head_ascii || (cheap_checks::<V>() && is_ascii::<V>(ptr.add(start), 2 * BLOCK));
        let mut mode = Mode::first::<V>(starts_ascii);
        let pos = windows::<V, W>(&k, bytes, start, &mut mode)?;
        check_rest(&k, bytes, pos, mode.ascii_start, mode.mostly_ascii)
    }
}

/// Reads `len < 16` bytes at `ptr` into two little-endian words, zero-filled, without
/// reading outside `ptr..ptr + len` (overlapping word loads instead of a byte loop or a
/// copy). The kernels build their partial registers from it.
///
/// # Safety
/// `ptr..ptr + len` must be readable.
#[inline(always)]
pub(crate) unsafe fn read_partial_words(ptr: *const u8, len: usize) -> (u64, u64) {
    debug_assert!(len < 16);
    // SAFETY: every read below lies within `ptr..ptr + len`, readable by
    // the caller's guarantee; `read_unaligned` needs no alignment.
    unsafe {
        let u64_at = |i: usize| u64::from_le(ptr.add(i).cast::<u64>().read_unaligned());
        let u32_at = |i: usize| u64::from(u32::from_le(ptr.add(i).cast::<u32>().read_unaligned()));
        let u8_at = |i: usize| u64::from(*ptr.add(i));
        if len >= 8 {
            // Bytes 8..len are the top `len - 8` bytes of the word ending at `len`.
            let high = u64_at(len - 8)
                .checked_shr(8 * (16 - len) as u32)
                .unwrap_or(0);
            (u64_at(0), high)
        } else if len >= 4 {
            // Two words that overlap: bytes 0..4 and len-4..len.
            (u32_at(0) | u32_at(len - 4) << (8 * (len - 4)), 0)
        } else if len > 0 {
            // The first, middle and last byte cover lengths 1 to 3.
            (
                u8_at(0) | u8_at(len / 2) << (8 * (len / 2)) | u8_at(len - 1) << (8 * (len - 1)),
                0,
            )
        } else {
            (0, 0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortest period of 2 to `longest` blocks of a crowded mask, found by comparing
    /// every one: what [`period`] must find with its filter.
    fn shortest_period(mask: BlockMask, longest: usize) -> usize {
        (2..=longest)
            .find(|&p| (0..WINDOW - p).all(|i| (mask >> i) & 1 == (mask >> (i + p)) & 1))
            .unwrap_or(0)
    }

    #[test]
    fn period_is_the_shortest_one() {
        // Random masks of two densities, and masks that repeat a random pattern of every
        // length from 2 to 41 (half of them with a few bits flipped, which most periods do
        // not survive).
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut found = [0usize; MAX_PERIOD + 1];
        for round in 0..40_000 {
            let mut mask = next();
            if round % 4 == 0 {
                mask |= next();
            } else if round % 4 >= 2 {
                let length = 2 + (next() % 40) as usize;
                let pattern = next() | next();
                mask = (0..WINDOW).fold(0, |m, i| m | ((pattern >> (i % length)) & 1) << i);
                if round % 4 == 3 {
                    mask ^= next() & next() & next() & next();
                }
            }
            if !is_crowded(mask) {
                continue;
            }
            for (long, longest) in [(false, SHORT_PERIOD), (true, MAX_PERIOD)] {
                let expected = shortest_period(mask, longest);
                assert_eq!(
                    period(mask, 0, long),
                    expected,
                    "{mask:#x}, up to {longest}"
                );
                found[expected] += 1;
                if expected != 0 {
                    // A known period that holds is kept; one that does not is replaced.
                    if 2 * expected < WINDOW {
                        assert_eq!(period(mask, 2 * expected, long), 2 * expected);
                    }
                    let other = expected + 1;
                    let kept = if repeats_every(mask, other) {
                        other
                    } else {
                        expected
                    };
                    assert_eq!(period(mask, other, long), kept, "{mask:#x}");
                }
            }
        }
        assert!(found[2..].iter().all(|&n| n > 0), "{found:?}");
    }

    #[test]
    fn partial_words_read_exactly_the_bytes() {
        let data: [u8; 16] = core::array::from_fn(|i| 0xA0 + i as u8);
        for len in 0..16 {
            // SAFETY: `data` has 16 readable bytes.
            let (low, high) = unsafe { read_partial_words(data.as_ptr(), len) };
            let mut expected = [0u8; 16];
            expected[..len].copy_from_slice(&data[..len]);
            assert_eq!(low.to_le_bytes(), expected[..8], "len {len}");
            assert_eq!(high.to_le_bytes(), expected[8..], "len {len}");
        }
    }
}
