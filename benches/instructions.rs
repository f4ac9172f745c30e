//! Instructions per byte, the measure of Keiser and Lemire's paper, counted exactly by
//! callgrind (timings on a shared machine are noisy; instruction counts are not).
//!
//! `benches/instructions.sh` runs this program under `valgrind --tool=callgrind`, which
//! counts only the instructions executed inside `measured`. Usage of the program itself:
//! `instructions IMPLEMENTATION TEXT SIZE REPEAT`.

#[path = "common/corpus.rs"]
mod corpus;

use std::hint::black_box;

use corpus::Text;
use utf8check::Kernel;

#[inline(never)]
fn measured(validate: fn(&[u8]) -> bool, input: &[u8], repeat: usize) -> usize {
    let mut valid = 0;
    for _ in 0..repeat {
        valid += usize::from(validate(black_box(input)));
    }
    valid
}

fn implementation(name: &str) -> fn(&[u8]) -> bool {
    match name {
        "std" => |v| std::str::from_utf8(v).is_ok(),
        "simdutf8-basic" => |v| simdutf8::basic::from_utf8(v).is_ok(),
        "simdutf8-compat" => |v| simdutf8::compat::from_utf8(v).is_ok(),
        "from_utf8" => |v| utf8check::from_utf8(v).is_ok(),
        "is_valid" => utf8check::is_valid,
        "kernel-avx2" => |v| Kernel::Avx2.from_utf8(v).is_ok(),
        "kernel-sse4.1" => |v| Kernel::Sse41.from_utf8(v).is_ok(),
        "kernel-scalar" => |v| Kernel::Scalar.from_utf8(v).is_ok(),
        // SAFETY: only run on CPUs with SSE 4.2 (this machine's).
        #[cfg(target_arch = "x86_64")]
        "simdutf8-sse42" => {
            |v| unsafe { simdutf8::basic::imp::x86::sse42::validate_utf8(v).is_ok() }
        }
        _ => panic!("unknown implementation {name}"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 4 {
        eprintln!("usage: instructions IMPLEMENTATION TEXT SIZE REPEAT");
        std::process::exit(2);
    }
    let validate = implementation(&args[0]);
    let kind = Text::ALL
        .into_iter()
        .find(|t| t.name() == args[1])
        .expect("unknown text kind");
    let size: usize = args[2].parse().expect("size");
    let repeat: usize = args[3].parse().expect("repeat");
    let input = corpus::text(kind, size, 1);
    // Warm up the dispatcher outside the measured function.
    assert!(validate(&input));
    let valid = measured(validate, &input, repeat);
    assert_eq!(valid, repeat);
}
