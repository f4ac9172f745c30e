//! [`Kernel`]: the implementations this crate carries, which of them this CPU can run,
//! and a way to run each one directly (for tests and benchmarks).

use core::fmt;
use core::str::FromStr;

use crate::error::Utf8Error;
use crate::scalar::{self, RawError};

/// A kernel's entry point: `Ok(())` if the bytes are UTF-8, else `Err(checkpoint)`, where
/// no byte before `checkpoint` breaks a rule given the bytes before it (the exact error
/// is then found by `scalar::exact`).
///
/// # Safety
/// The CPU must support the kernel's instruction set.
pub(crate) type ValidateFn = unsafe fn(&[u8]) -> Result<(), usize>;

/// A kernel's entry point for [`crate::from_utf8`]: a [`ValidateFn`] and `scalar::exact`
/// in one call, so that the caller keeps nothing alive across it (with a `ValidateFn`,
/// the bytes are needed after the call, for the exact error). The kernel's answer for
/// valid input takes the same path as its `ValidateFn`'s; the search for the exact error
/// is out of line, and the answer comes back in two registers (see `Utf8Error`'s layout).
///
/// # Safety
/// The CPU must support the kernel's instruction set.
pub(crate) type ExactFn = unsafe fn(&[u8]) -> Result<(), Utf8Error>;

/// A kernel's second entry point, for walking every error (see `src/chunks.rs`): `None`
/// if the bytes are UTF-8, else the first invalid sequence exactly as `from_utf8` reports
/// it (where it starts, and its `error_len`: `None` when the bytes end inside it). The
/// SIMD kernels find the first byte whose check fails (a byte fails where it, with the
/// three before it, breaks a rule) and decode the few bytes before it with the scalar
/// decoder, in the same call. The bytes must start at a character boundary. The work
/// grows with the distance to the error, not with the length of the bytes.
///
/// # Safety
/// The CPU must support the kernel's instruction set.
pub(crate) type FirstErrorFn = unsafe fn(&[u8]) -> Option<RawError>;

/// How many bytes a [`BlockErrorsFn`] reads: a block of 64 and the 3 after it, into which
/// a sequence that starts in the block may reach.
pub(crate) const BLOCK_READ: usize = crate::generic::BLOCK + 3;

/// A kernel's third entry point, for walking dense errors (see `src/chunks.rs`): every
/// invalid sequence that starts in the block `bytes[..64]`, exactly as std's decoder
/// splits the bytes into characters and invalid sequences (each the maximal subpart that
/// `Utf8Error::error_len` describes), with no branch per error.
///
/// `carry` is the previous block's [`BlockErrors::carry`] when the block continues it (the
/// first bytes of this block that a sequence started there takes), or 0 when the block
/// starts at a character boundary. The answer is written to the third argument. Past the
/// end of the input the caller passes zeros, which no lead byte takes: a sequence that the
/// end cuts is an invalid one here, and the caller decides whether it is unfinished.
///
/// # Safety
/// The CPU must support the kernel's instruction set.
pub(crate) type BlockErrorsFn = unsafe fn(&[u8; BLOCK_READ], u64, &mut BlockErrors);

/// The invalid sequences of a block (see [`BlockErrorsFn`]), bit `i` for byte `i`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct BlockErrors {
    /// Where an invalid sequence starts.
    pub(crate) starts: u64,
    /// Of `starts`, those of 2 or 3 bytes (a lead byte and the second byte it accepts).
    pub(crate) two: u64,
    /// Of `two`, those of 3 bytes (and the third byte).
    pub(crate) three: u64,
    /// The bytes after the block taken by a sequence that starts in it: bits `0..j` for
    /// the first `j` bytes after it (at most 3).
    pub(crate) carry: u64,
}

impl BlockErrors {
    /// The length of the invalid sequence at byte `i`, one of [`starts`](Self::starts).
    #[inline(always)]
    pub(crate) fn len_at(&self, i: u32) -> usize {
        1 + (self.two >> i & 1) as usize + (self.three >> i & 1) as usize
    }
}

/// A kernel's entry points.
///
/// The chunk walker's two are read by the run-time dispatch (`dispatch.rs`) and by tests;
/// where the compile-time target fixes the kernel (NEON on 64-bit Arm, `-C
/// target-cpu=x86-64-v3`), the dispatch calls them directly and nothing else reads them.
#[derive(Copy, Clone)]
pub(crate) struct EntryPoints {
    pub(crate) validate: ValidateFn,
    pub(crate) from_utf8: ExactFn,
    /// A second [`ValidateFn`], for the chunk walker's long windows after an error: the
    /// same answer, but it stops within a few hundred bytes of the first error, for a few
    /// percent more per byte of clean text (`generic::validate_early`).
    #[allow(dead_code)]
    pub(crate) validate_early: ValidateFn,
    #[allow(dead_code)]
    pub(crate) first_invalid: FirstErrorFn,
    #[allow(dead_code)]
    pub(crate) block_errors: BlockErrorsFn,
}

impl EntryPoints {
    /// The scalar kernel's, which every CPU runs.
    pub(crate) const SCALAR: EntryPoints = EntryPoints {
        validate: scalar::validate,
        from_utf8: scalar::from_utf8,
        validate_early: scalar::validate,
        first_invalid: scalar::first_invalid,
        block_errors: scalar::block_errors,
    };
}

/// An implementation of the validator.
///
/// [`crate::from_utf8`] runs [`Kernel::detected()`]; the methods here run one kernel
/// alone, so that tests and benchmarks can compare every kernel on one machine.
///
/// ```
/// use utf8check::Kernel;
///
/// for kernel in Kernel::available() {
///     assert_eq!(kernel.from_utf8(b"h\xC3\xA9llo"), Ok("héllo"), "{}", kernel.name());
///     assert!(!kernel.is_valid(b"\xED\xA0\x80"));
/// }
/// assert!(Kernel::available().any(|k| k == Kernel::Scalar));
/// assert_eq!("avx2".parse(), Ok(Kernel::Avx2));
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kernel {
    /// Portable code: a byte-at-a-time decoder with word-at-a-time ASCII skipping.
    Scalar,
    /// 16-byte SSE4.1 (and SSSE3) registers, on x86 and x86-64.
    Sse41,
    /// 32-byte AVX2 registers, on x86 and x86-64 (with BMI1 and POPCNT, which every AVX2
    /// CPU has).
    Avx2,
    /// 16-byte NEON registers, on 64-bit Arm.
    Neon,
    /// 64-byte AVX-512 registers (AVX-512F, AVX-512BW and AVX-512 VBMI, with BMI1, BMI2
    /// and POPCNT), on x86-64 CPUs that also have AVX-512 VBMI2: Intel from Ice Lake on,
    /// AMD from Zen 4 on. (Skylake-SP and Cascade Lake, whose 512-bit instructions slow
    /// the whole core down, run the AVX2 kernel.) Only in builds with Rust 1.89 or later,
    /// where the AVX-512 intrinsics are stable: with an older compiler the crate is built
    /// without it, and no CPU supports it.
    Avx512,
}

/// Every kernel, fastest first.
const ALL: [Kernel; 5] = [
    Kernel::Avx512,
    Kernel::Avx2,
    Kernel::Neon,
    Kernel::Sse41,
    Kernel::Scalar,
];

impl Kernel {
    /// Every kernel this CPU can run, fastest first; [`Kernel::Scalar`] is always among them.
    pub fn available() -> impl Iterator<Item = Kernel> {
        ALL.into_iter().filter(|kernel| kernel.is_supported())
    }

    /// The kernel that [`crate::from_utf8`] and [`crate::is_valid`] use on this CPU: the
    /// fastest available one.
    pub fn detected() -> Kernel {
        Kernel::available().next().unwrap_or(Kernel::Scalar)
    }

    /// Can this CPU run this kernel?
    pub fn is_supported(self) -> bool {
        self.validate_fn().is_some()
    }

    /// The kernel's name: `"scalar"`, `"sse4.1"`, `"avx2"`, `"avx512"` or `"neon"` (what
    /// [`FromStr`] accepts).
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Scalar => "scalar",
            Kernel::Sse41 => "sse4.1",
            Kernel::Avx2 => "avx2",
            Kernel::Neon => "neon",
            Kernel::Avx512 => "avx512",
        }
    }

    /// [`crate::from_utf8`] with this kernel.
    ///
    /// # Panics
    /// If this CPU cannot run the kernel (see [`Kernel::is_supported`]). No instruction
    /// of the kernel is executed then.
    #[inline]
    pub fn from_utf8(self, v: &[u8]) -> Result<&str, Utf8Error> {
        let from_utf8 = self.supported().from_utf8;
        // SAFETY: `supported` only returns kernels this CPU supports.
        unsafe { from_utf8(v) }?;
        // SAFETY: the kernel returned `Ok`: `v` is UTF-8.
        Ok(unsafe { core::str::from_utf8_unchecked(v) })
    }

    /// [`crate::is_valid`] with this kernel.
    ///
    /// # Panics
    /// If this CPU cannot run the kernel (see [`Kernel::is_supported`]).
    #[inline]
    pub fn is_valid(self, v: &[u8]) -> bool {
        let validate = self.supported().validate;
        // SAFETY: `supported` only returns kernels this CPU supports.
        unsafe { validate(v) }.is_ok()
    }

    /// The kernel's entry points; panics if this CPU does not support it.
    ///
    /// Inlined with [`Kernel::is_valid`] and [`Kernel::from_utf8`], so that where the
    /// kernel is a constant (`Kernel::Avx2.is_valid(v)`) the match folds away and the
    /// call is a direct one after the CPU test: through a function pointer, and with the
    /// match's jump table, a cold call cost about 250 ticks of the time-stamp counter
    /// more (Zen 4, branch predictor scrubbed; `docs/design.md`, session 36).
    #[inline]
    fn supported(self) -> EntryPoints {
        match self.entry_points() {
            Some(entry) => entry,
            None => self.unsupported(),
        }
    }

    /// The panic of a kernel this CPU does not support, out of the callers' way.
    #[cold]
    #[inline(never)]
    fn unsupported(self) -> ! {
        panic!(
            "utf8check: the {} kernel is not supported by this CPU (see Kernel::available())",
            self.name()
        )
    }

    /// The kernel's validating entry point, if this CPU supports it.
    pub(crate) fn validate_fn(self) -> Option<ValidateFn> {
        self.entry_points().map(|entry| entry.validate)
    }

    /// The kernel's entry points, if this CPU supports it.
    #[inline]
    pub(crate) fn entry_points(self) -> Option<EntryPoints> {
        macro_rules! entry_points {
            ($kernel:ident) => {
                EntryPoints {
                    validate: crate::arch::$kernel::validate,
                    from_utf8: crate::arch::$kernel::from_utf8,
                    validate_early: crate::arch::$kernel::validate_early,
                    first_invalid: crate::arch::$kernel::first_invalid,
                    block_errors: crate::arch::$kernel::block_errors,
                }
            };
        }
        match self {
            Kernel::Scalar => Some(EntryPoints::SCALAR),
            #[cfg(all(utf8check_avx512, target_arch = "x86_64"))]
            Kernel::Avx512 if crate::cpu::has_avx512() => Some(entry_points!(avx512)),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Kernel::Avx2 if crate::cpu::has_avx2() => Some(entry_points!(avx2)),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Kernel::Sse41 if crate::cpu::has_sse41() => Some(entry_points!(sse41)),
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Kernel::Neon if has_neon() => Some(entry_points!(neon)),
            _ => None,
        }
    }
}

#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
fn has_neon() -> bool {
    cfg_if::cfg_if! {
        if #[cfg(target_feature = "neon")] {
            true
        } else if #[cfg(feature = "std")] {
            std::arch::is_aarch64_feature_detected!("neon")
        } else {
            false
        }
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing a [`Kernel`] from a name it does not have.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseKernelError;

impl fmt::Display for ParseKernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unknown kernel (expected one of: scalar, sse4.1, avx2, avx512, neon)")
    }
}

#[cfg(utf8check_core_error)]
impl core::error::Error for ParseKernelError {}

#[cfg(all(not(utf8check_core_error), feature = "std"))]
impl std::error::Error for ParseKernelError {}

impl FromStr for Kernel {
    type Err = ParseKernelError;

    /// Parses a kernel's [`name`](Kernel::name); `"sse41"` is accepted too.
    fn from_str(name: &str) -> Result<Kernel, ParseKernelError> {
        match name {
            "sse41" => Ok(Kernel::Sse41),
            _ => ALL
                .into_iter()
                .find(|kernel| kernel.name() == name)
                .ok_or(ParseKernelError),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::generic::BLOCK;

    /// Bytes of every class the check tells apart: ASCII, continuation bytes of each
    /// range that a lead restricts, and leads of every kind, valid or not.
    pub(crate) const CLASSES: [u8; 25] = [
        0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
        0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
    ];

    /// Calls `f` with every byte, every pair of bytes and every triple of [`CLASSES`].
    fn for_each_short_sequence(mut f: impl FnMut(&[u8])) {
        for a in 0..=255u8 {
            f(&[a]);
            for b in 0..=255u8 {
                f(&[a, b]);
            }
        }
        for a in CLASSES {
            for b in CLASSES {
                for c in CLASSES {
                    f(&[a, b, c]);
                }
            }
        }
    }

    /// Checks every kernel's `first_invalid` on `bytes` against std: `None` exactly
    /// when `bytes` is UTF-8, else std's error (where it starts and its `error_len`).
    fn check_first_invalid(bytes: &[u8]) {
        let expected = core::str::from_utf8(bytes)
            .err()
            .map(|e| (e.valid_up_to(), e.error_len().map(|len| len as u8)));
        for kernel in Kernel::available() {
            let find = kernel.entry_points().unwrap().first_invalid;
            // SAFETY: `available` lists only kernels this CPU supports.
            let found = unsafe { find(bytes) };
            assert_eq!(
                found, expected,
                "{kernel}: {found:?}, std's error {expected:?}: {bytes:02X?}"
            );
        }
    }

    /// The invalid sequences of the block `bytes[..64]` from std's chunks of the bytes
    /// from `start` on (the first `start` bytes are taken by a sequence before the block).
    fn std_block_errors(bytes: &[u8; BLOCK_READ], start: usize) -> BlockErrors {
        let mut expected = BlockErrors::default();
        let mut pos = start;
        let mut step = |pos: &mut usize, len: usize, invalid: bool| {
            if *pos < BLOCK {
                if invalid {
                    expected.starts |= 1 << *pos;
                    expected.two |= u64::from(len >= 2) << *pos;
                    expected.three |= u64::from(len >= 3) << *pos;
                }
                if *pos + len > BLOCK {
                    expected.carry = (1 << (*pos + len - BLOCK)) - 1;
                }
            }
            *pos += len;
        };
        for chunk in bytes[start..].utf8_chunks() {
            for c in chunk.valid().chars() {
                step(&mut pos, c.len_utf8(), false);
            }
            if !chunk.invalid().is_empty() {
                step(&mut pos, chunk.invalid().len(), true);
            }
        }
        expected
    }

    /// Checks every kernel's `block_errors` on `bytes` against std, with no carry and, if
    /// the block starts with continuation bytes, with them taken by a sequence before it.
    fn check_block_errors(bytes: &[u8; BLOCK_READ]) {
        for taken in 0..=3 {
            if !bytes[..taken].iter().all(|&b| scalar::is_continuation(b)) {
                break;
            }
            let expected = std_block_errors(bytes, taken);
            for kernel in Kernel::available() {
                let split = kernel.entry_points().unwrap().block_errors;
                let mut found = BlockErrors::default();
                // SAFETY: `available` lists only kernels this CPU supports.
                unsafe { split(bytes, (1 << taken) - 1, &mut found) };
                assert_eq!(
                    found, expected,
                    "{kernel}, {taken} taken: {found:x?}, std's {expected:x?}: {bytes:02X?}"
                );
            }
        }
    }

    /// Every byte pair, and every triple of byte classes, at each offset around the
    /// registers' boundaries (16 and 32 bytes) and the block's end (and in the 3 bytes
    /// after it), after ASCII and after 3-byte characters; and blocks of random classes.
    #[test]
    fn block_errors_agree_with_std() {
        let offsets = [
            0, 1, 2, 3, 14, 15, 16, 17, 30, 31, 32, 33, 46, 47, 48, 49, 60, 61, 62, 63, 64, 65, 66,
        ];
        let fillers: [&[u8]; 2] = [b"a", "\u{20AC}".as_bytes()];
        for filler in fillers {
            let mut base = [0; BLOCK_READ];
            for (byte, fill) in base.iter_mut().zip(filler.iter().cycle()) {
                *byte = *fill;
            }
            let place = |sequence: &[u8]| {
                for offset in offsets {
                    let mut bytes = base;
                    let end = (offset + sequence.len()).min(BLOCK_READ);
                    bytes[offset..end].copy_from_slice(&sequence[..end - offset]);
                    check_block_errors(&bytes);
                }
            };
            for_each_short_sequence(place);
        }
        // Dense errors of every kind: blocks of bytes drawn from the classes.
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        for _ in 0..100_000 {
            let mut bytes = [0; BLOCK_READ];
            for byte in &mut bytes {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                *byte = CLASSES[(state % CLASSES.len() as u64) as usize];
            }
            check_block_errors(&bytes);
        }
    }

    /// Every byte pair, and every triple of byte classes, at each offset around the
    /// registers' boundaries (16 and 32 bytes, and 48, the last 128-bit lane of a 64-byte
    /// register, whose bytes before it come from a shift across lanes), the first two
    /// 64-byte blocks' ends (the
    /// search goes a block at a time, then a register at a time after the last whole
    /// block) and at the end of the input, after ASCII and after 3-byte characters.
    #[test]
    fn first_invalid_agrees_with_std() {
        let offsets = [
            0, 1, 2, 13, 14, 15, 16, 17, 29, 30, 31, 32, 33, 34, 45, 46, 47, 48, 62, 63, 64, 95,
            96, 97, 126, 127, 128, 129, 130,
        ];
        let fillers: [&[u8]; 2] = [b"a", "€".as_bytes()];
        for filler in fillers {
            let mut base = [0; 160];
            for (byte, fill) in base.iter_mut().zip(filler.iter().cycle()) {
                *byte = *fill;
            }
            let place = |sequence: &[u8]| {
                for offset in offsets.map(|o| o - o % filler.len()) {
                    // Inside the input, and ending the input.
                    let mut bytes = base;
                    bytes[offset..offset + sequence.len()].copy_from_slice(sequence);
                    check_first_invalid(&bytes);
                    check_first_invalid(&bytes[..offset + sequence.len()]);
                }
            };
            for_each_short_sequence(place);
        }
    }

    /// Are fewer placements asked for (`UTF8CHECK_SMALL_TESTS`: unoptimized, sanitized and
    /// emulated runs in `.ci/run`)?
    #[cfg(feature = "std")]
    fn small_tests() -> bool {
        std::env::var_os("UTF8CHECK_SMALL_TESTS").is_some_and(|v| v != "0")
    }

    #[cfg(not(feature = "std"))]
    fn small_tests() -> bool {
        false
    }

    /// Windows of 8 blocks in a [`validate_early_agrees_with_std`] input.
    const EARLY_WINDOWS: usize = 9;

    /// The length of a [`validate_early_agrees_with_std`] input: a register, its windows,
    /// 5 blocks and a tail of 40 bytes.
    const fn early_len(register: usize) -> usize {
        register + (EARLY_WINDOWS * 8 + 5) * BLOCK + 40
    }

    /// The bytes of a [`validate_early_agrees_with_std`] input (the first
    /// [`early_len`]): ASCII, with an `é` in the middle of each block that `layout` marks
    /// (bit `i % 8` of `layout[i / 8]`: a window of 8 blocks a byte), after a first
    /// register of `register` bytes that holds an `é` if `first_non_ascii`.
    fn early_input(
        register: usize,
        layout: &[u8; EARLY_WINDOWS],
        first_non_ascii: bool,
    ) -> [u8; early_len(64)] {
        let text = b"The quick brown fox jumps over the lazy dog. ";
        let mut bytes: [u8; early_len(64)] = core::array::from_fn(|i| text[i % text.len()]);
        let mut put = |at: usize| bytes[at..at + 2].copy_from_slice("é".as_bytes());
        if first_non_ascii {
            put(register / 2);
        }
        for block in 0..EARLY_WINDOWS * 8 {
            if layout[block / 8] >> (block % 8) & 1 != 0 {
                put(register + block * BLOCK + BLOCK / 2);
            }
        }
        bytes
    }

    /// `validate_early` (windows of 8 blocks, `generic::validate_early`) on every triple of
    /// [`CLASSES`] across each boundary of its windows and of the blocks after them (both
    /// splits), and every byte pair across a window's start, in inputs of several layouts
    /// of non-ASCII blocks: all ASCII, one non-ASCII block per window, equal gaps,
    /// repeated and changing masks, every block, and text that starts non-ASCII. (Until
    /// session 39 the main loop had five ways and these layouts took each of them; now
    /// they take both, by mask and every block checked, and each change between them.)
    /// The answer must be std's (through `scalar::exact`, as
    /// `from_utf8` finds it), and an error is reported at most a window and a block
    /// before it: the point of this entry point.
    #[test]
    fn validate_early_agrees_with_std() {
        let layouts: [([u8; EARLY_WINDOWS], bool); 8] = [
            ([0; 9], false),
            (
                [0x10, 0x01, 0x80, 0x04, 0x20, 0x02, 0x40, 0x08, 0x01],
                false,
            ),
            ([0x11; 9], false),
            ([0xFF; 9], false),
            (
                [0xB2, 0x4D, 0xB2, 0x4D, 0xB2, 0x4D, 0xB2, 0x4D, 0xB2],
                false,
            ),
            (
                [0x93, 0x2C, 0x71, 0xE4, 0x0B, 0x9A, 0x35, 0xC6, 0x58],
                false,
            ),
            ([0xFF, 0xFF, 0x5A, 0xFF, 0x00, 0xFF, 0xA5, 0xFF, 0xFF], true),
            (
                [0x00, 0x00, 0xFF, 0xFF, 0x00, 0x81, 0x00, 0xFF, 0x18],
                false,
            ),
        ];
        for kernel in Kernel::available() {
            let validate_early = kernel.entry_points().unwrap().validate_early;
            let register = match kernel {
                Kernel::Avx512 => 64,
                Kernel::Avx2 => 32,
                _ => 16,
            };
            for (layout, first_non_ascii) in layouts {
                let len = early_len(register);
                let base = early_input(register, &layout, first_non_ascii);
                let mut bytes = base;
                // The bytes from 4 before `at` to 8 after it are ASCII but for the 3 at
                // `at`, and the rest is valid: std's answer on them is std's on the whole.
                let check = |bytes: &[u8], at: usize| {
                    let bytes = &bytes[..len];
                    // SAFETY: `available` lists only kernels this CPU supports.
                    let found = unsafe { validate_early(bytes) };
                    let expected = core::str::from_utf8(&bytes[at - 4..at + 8])
                        .map(|_| ())
                        .map_err(|e| (at - 4 + e.valid_up_to(), e.error_len()));
                    let exact = scalar::exact(bytes, found);
                    assert_eq!(
                        exact.map_err(|e| (e.valid_up_to(), e.error_len())),
                        expected,
                        "{kernel}: {found:?}, layout {layout:02X?}, {:02X?} at {at}",
                        &bytes[at..at + 3]
                    );
                    if let (Err(checkpoint), Err((error, _))) = (found, expected) {
                        assert!(
                            error <= checkpoint + 9 * BLOCK,
                            "{kernel}: checkpoint {checkpoint}, error at {error}"
                        );
                    }
                };
                // The window boundaries from the fourth window on (the ways are set up by
                // then), and the block boundaries after the last window.
                // (Where few tests are asked for: the first window under test and the start
                // of the blocks after the last, one split.)
                let small = small_tests();
                let windows = (3..=EARLY_WINDOWS)
                    .filter(|&window| !small || window == 3 || window == EARLY_WINDOWS)
                    .map(|window| register + window * 8 * BLOCK);
                let after = (1..=if small { 0 } else { 5 })
                    .map(|block| register + (EARLY_WINDOWS * 8 + block) * BLOCK);
                for boundary in windows.chain(after) {
                    for split in if small { 1..=1 } else { 1..=2 } {
                        let at = boundary - split;
                        for a in CLASSES {
                            for b in CLASSES {
                                for c in CLASSES {
                                    bytes[at..at + 3].copy_from_slice(&[a, b, c]);
                                    check(&bytes, at);
                                    bytes[at..at + 3].copy_from_slice(&base[at..at + 3]);
                                }
                            }
                        }
                    }
                }
                let at = register + 4 * 8 * BLOCK - 1;
                for a in 0..=if small { 0 } else { 255 } {
                    for b in 0..=255u8 {
                        bytes[at..at + 2].copy_from_slice(&[a, b]);
                        check(&bytes, at);
                    }
                }
            }
        }
    }
}
