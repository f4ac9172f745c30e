//! Probes the compiler so the crate keeps its MSRV while using newer features when the
//! compiler has them, and declares the custom cfgs it sets.
//!
//! * `utf8check_core_error`: `core::error::Error` exists (Rust 1.81), so `Utf8Error`
//!   implements `Error` even without `std`. Older compilers get `std::error::Error` under
//!   the `std` feature.
//! * `utf8check_avx512`: the AVX-512 intrinsics and target features are stable (Rust
//!   1.89), so the AVX-512 kernel is compiled.

use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=RUSTC");
    // Single-colon syntax: `cargo::` is only understood by Cargo 1.77 and later, and the
    // MSRV is older. Older Cargos ignore the check-cfg line.
    println!("cargo:rustc-check-cfg=cfg(utf8check_core_error)");
    println!("cargo:rustc-check-cfg=cfg(utf8check_avx512)");
    let minor = rustc_minor_version();
    if minor.is_some_and(|minor| minor >= 81) {
        println!("cargo:rustc-cfg=utf8check_core_error");
    }
    if minor.is_some_and(|minor| minor >= 89) {
        println!("cargo:rustc-cfg=utf8check_avx512");
    }
}

/// The minor version of the compiler Cargo builds the crate with (`RUSTC`), from
/// `rustc --version` ("rustc 1.95.0 (...)").
fn rustc_minor_version() -> Option<u32> {
    let rustc = env::var_os("RUSTC")?;
    let output = Command::new(rustc).arg("--version").output().ok()?;
    let version = String::from_utf8(output.stdout).ok()?;
    let mut numbers = version.strip_prefix("rustc ")?.split('.');
    if numbers.next()? != "1" {
        return None;
    }
    numbers.next()?.parse().ok()
}
