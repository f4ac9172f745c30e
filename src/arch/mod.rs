//! One module per instruction set: each wraps a register type in [`crate::generic::Vector`]
//! and exports a `validate` entry point that enables its instruction set and runs the
//! generic algorithm. Nothing else lives here.

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) mod avx2;
#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
pub(crate) mod neon;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) mod sse41;
