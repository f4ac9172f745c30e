//! One module per instruction set: each wraps a register type in [`crate::generic::Vector`]
//! and exports a `validate` entry point that enables its instruction set and runs the
//! generic algorithm. Nothing else lives here.

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) mod avx2;
// (Only with Rust 1.89 and later, `build.rs`: Clippy judges it by those compilers.)
#[cfg(all(utf8check_avx512, target_arch = "x86_64"))]
#[clippy::msrv = "1.89"]
pub(crate) mod avx512;
#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
pub(crate) mod neon;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) mod sse41;
