//! [`Kernel`]: the implementations this crate carries, which of them this CPU can run,
//! and a way to run each one directly (for tests and benchmarks).

use core::fmt;
use core::str::FromStr;

use crate::error::Utf8Error;
use crate::scalar;

/// A kernel's entry point: `Ok(())` if the bytes are UTF-8, else `Err(checkpoint)`, where
/// no byte before `checkpoint` breaks a rule given the bytes before it (the exact error
/// is then found by `scalar::exact`).
///
/// # Safety
/// The CPU must support the kernel's instruction set.
pub(crate) type ValidateFn = unsafe fn(&[u8]) -> Result<(), usize>;

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
    /// 32-byte AVX2 registers, on x86 and x86-64.
    Avx2,
    /// 16-byte NEON registers, on 64-bit Arm.
    Neon,
}

/// Every kernel, fastest first.
const ALL: [Kernel; 4] = [Kernel::Avx2, Kernel::Neon, Kernel::Sse41, Kernel::Scalar];

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

    /// The kernel's name: `"scalar"`, `"sse4.1"`, `"avx2"` or `"neon"` (what
    /// [`FromStr`] accepts).
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Scalar => "scalar",
            Kernel::Sse41 => "sse4.1",
            Kernel::Avx2 => "avx2",
            Kernel::Neon => "neon",
        }
    }

    /// [`crate::from_utf8`] with this kernel.
    ///
    /// # Panics
    /// If this CPU cannot run the kernel (see [`Kernel::is_supported`]). No instruction
    /// of the kernel is executed then.
    pub fn from_utf8(self, v: &[u8]) -> Result<&str, Utf8Error> {
        let validate = self.supported_fn();
        // SAFETY: `supported_fn` only returns kernels this CPU supports.
        let result = unsafe { validate(v) };
        scalar::exact(v, result)?;
        // SAFETY: `exact` returned `Ok`: `v` is UTF-8.
        Ok(unsafe { core::str::from_utf8_unchecked(v) })
    }

    /// [`crate::is_valid`] with this kernel.
    ///
    /// # Panics
    /// If this CPU cannot run the kernel (see [`Kernel::is_supported`]).
    pub fn is_valid(self, v: &[u8]) -> bool {
        let validate = self.supported_fn();
        // SAFETY: `supported_fn` only returns kernels this CPU supports.
        unsafe { validate(v) }.is_ok()
    }

    fn supported_fn(self) -> ValidateFn {
        match self.validate_fn() {
            Some(validate) => validate,
            None => panic!(
                "utf8check: the {} kernel is not supported by this CPU (see Kernel::available())",
                self.name()
            ),
        }
    }

    /// The kernel's entry point, if this CPU supports it.
    pub(crate) fn validate_fn(self) -> Option<ValidateFn> {
        match self {
            Kernel::Scalar => Some(scalar::validate as ValidateFn),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Kernel::Avx2 if crate::cpu::has_avx2() => Some(crate::arch::avx2::validate),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Kernel::Sse41 if crate::cpu::has_sse41() => Some(crate::arch::sse41::validate),
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Kernel::Neon if has_neon() => Some(crate::arch::neon::validate),
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
        f.write_str("unknown kernel (expected one of: scalar, sse4.1, avx2, neon)")
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
