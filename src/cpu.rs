//! Run-time CPU feature detection for the x86 kernels, through `cpuid` and `xgetbv` from
//! `core::arch`, so that it works without std. The answer is computed once and cached.
//!
//! The AVX2 kernel needs four things: the CPU implements AVX2 (`cpuid` leaf 7), and BMI1
//! and POPCNT, which the kernel also uses (every AVX2 CPU has them: all three are part of
//! x86-64-v3); the CPU supports `xgetbv` (OSXSAVE); and the operating system saves the
//! upper halves of the YMM registers on context switches (XCR0 bits 1 and 2). Skipping
//! the last check would run AVX2 code that an OS without AVX support silently corrupts.
//! SSE4.1 is gated on SSE4.1 itself (and SSSE3, which the kernel uses for `pshufb`), not on
//! SSE4.2.
//!
//! The AVX-512 kernel needs what the AVX2 kernel needs, and AVX-512F, AVX-512BW, AVX-512
//! VBMI (`vpermb`, the table lookups) and BMI2 (`cpuid` leaf 7; BMI2's `bzhi` makes the
//! mask of a masked load), and the OS must also save the opmask registers and all 512
//! bits of the 32 ZMM registers (XCR0 bits 5, 6 and 7). It is chosen only where the CPU
//! also has AVX-512 VBMI2, which it does not use: that marks the CPUs whose 512-bit integer
//! instructions do not lower the core's clock (Intel from Ice Lake on, AMD from Zen 4 on;
//! Skylake-SP and Cascade Lake have AVX-512F and BW but slow the whole core down while
//! they run, and for a while after). simdutf chooses its AVX-512 kernel the same way.

#[cfg(target_arch = "x86")]
use core::arch::x86::{__cpuid_count, _xgetbv, CpuidResult};
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::{__cpuid_count, _xgetbv, CpuidResult};
use core::sync::atomic::{AtomicU8, Ordering};

const KNOWN: u8 = 1;
const SSE41: u8 = 2;
const AVX2: u8 = 4;
const AVX: u8 = 8;
const AVX512: u8 = 16;

static FEATURES: AtomicU8 = AtomicU8::new(0);

/// Does this CPU (and OS) support the SSE4.1 kernel?
#[inline]
pub(crate) fn has_sse41() -> bool {
    features() & SSE41 != 0
}

/// Does this CPU (and OS) support AVX (for the lossy conversion's AVX version)?
#[cfg(all(feature = "alloc", not(target_feature = "avx")))]
#[inline]
pub(crate) fn has_avx() -> bool {
    features() & AVX != 0
}

/// Does this CPU (and OS) support the AVX2 kernel (AVX2, BMI1 and POPCNT)?
#[inline]
pub(crate) fn has_avx2() -> bool {
    features() & AVX2 != 0
}

/// Does this CPU (and OS) support the AVX-512 kernel (AVX-512F, AVX-512BW, AVX-512 VBMI,
/// BMI1, BMI2 and POPCNT), and is it one where the kernel is chosen (AVX-512 VBMI2: see
/// above)?
#[cfg(all(utf8check_avx512, target_arch = "x86_64"))]
#[inline]
pub(crate) fn has_avx512() -> bool {
    features() & AVX512 != 0
}

#[inline]
fn features() -> u8 {
    let cached = FEATURES.load(Ordering::Relaxed);
    if cached & KNOWN != 0 {
        return cached;
    }
    detect_once()
}

/// The first call's detection, out of the callers' way.
#[cold]
#[inline(never)]
fn detect_once() -> u8 {
    // Racing threads compute the same value; any of them may store it.
    let detected = detect() | KNOWN;
    FEATURES.store(detected, Ordering::Relaxed);
    detected
}

fn detect() -> u8 {
    // Every x86-64 CPU has `cpuid`; on 32-bit x86 the kernels are compiled only for
    // targets with SSE2 (see `kernel.rs`), all of which have it too.
    // (`__cpuid_count` is a safe function on newer compilers.)
    #[allow(unused_unsafe)]
    let leaf = |eax: u32, ecx: u32| -> CpuidResult {
        // SAFETY: `cpuid` exists on every CPU this is compiled for (see above); it only
        // reads identification registers.
        unsafe { __cpuid_count(eax, ecx) }
    };
    let max_leaf = leaf(0, 0).eax;
    if max_leaf < 1 {
        return 0;
    }
    let basic = leaf(1, 0);
    let bit = |word: u32, n: u32| word & (1 << n) != 0;
    let mut found = 0;
    if bit(basic.ecx, 9) && bit(basic.ecx, 19) {
        found |= SSE41; // SSSE3 and SSE4.1
    }
    let avx_and_osxsave = bit(basic.ecx, 28) && bit(basic.ecx, 27);
    let popcnt = bit(basic.ecx, 23);
    // Leaf 7: AVX2 is EBX bit 5, BMI1 bit 3, BMI2 bit 8, AVX-512F bit 16, AVX-512BW bit
    // 30; AVX-512 VBMI is ECX bit 1, VBMI2 ECX bit 6.
    let extended = if max_leaf >= 7 {
        leaf(7, 0)
    } else {
        CpuidResult {
            eax: 0,
            ebx: 0,
            ecx: 0,
            edx: 0,
        }
    };
    let avx2_and_bmi1 = bit(extended.ebx, 5) && bit(extended.ebx, 3);
    let avx512 = bit(extended.ebx, 16)
        && bit(extended.ebx, 30)
        && bit(extended.ebx, 8)
        && bit(extended.ecx, 1)
        && bit(extended.ecx, 6);
    if !avx_and_osxsave {
        return found;
    }
    // SAFETY: OSXSAVE (checked first) means the OS enabled `xgetbv`.
    let saved = unsafe { _xgetbv(0) };
    // The OS saves XMM and YMM state (XCR0 bits 1 and 2).
    if saved & 0b110 == 0b110 {
        found |= AVX;
        if popcnt && avx2_and_bmi1 {
            found |= AVX2;
            // And the opmask registers and all of the ZMM registers (bits 5, 6 and 7).
            if avx512 && saved & 0b1110_0000 == 0b1110_0000 {
                found |= AVX512;
            }
        }
    }
    found
}

#[cfg(all(test, feature = "std"))]
mod tests {
    /// The no_std detection agrees with std's.
    #[test]
    fn agrees_with_std() {
        assert_eq!(super::has_sse41(), std::is_x86_feature_detected!("sse4.1"));
        #[cfg(not(target_feature = "avx"))]
        assert_eq!(super::has_avx(), std::is_x86_feature_detected!("avx"));
        assert_eq!(
            super::has_avx2(),
            std::is_x86_feature_detected!("avx2")
                && std::is_x86_feature_detected!("bmi1")
                && std::is_x86_feature_detected!("popcnt")
        );
        #[cfg(all(utf8check_avx512, target_arch = "x86_64"))]
        assert_eq!(
            super::has_avx512(),
            super::has_avx2()
                && std::is_x86_feature_detected!("avx512f")
                && std::is_x86_feature_detected!("avx512bw")
                && std::is_x86_feature_detected!("bmi2")
                && std::is_x86_feature_detected!("avx512vbmi")
                && std::is_x86_feature_detected!("avx512vbmi2")
        );
    }
}
