//! Single-threaded validation: utf8check (dispatched, `is_valid`, and each kernel) against
//! `std::str::from_utf8` and simdutf8 (`basic` and `compat`), on generated text of six
//! kinds and sizes from 16 B to 64 MiB.
//!
//! Inputs below 64 KiB are measured over many different slices (about 1 MiB in all per
//! iteration), not one slice repeated: short inputs in real use are different every time,
//! and the branch predictor would learn a single one.
//!
//! `cargo bench --bench validate` runs everything (about 15 minutes);
//! `cargo bench --bench validate -- 'cjk/1KiB'` filters. `benches/report.py` turns the
//! results into the table of `docs/benchmarks.md`.

#[path = "common/corpus.rs"]
mod corpus;

use std::hint::black_box;
use std::time::Duration;

use corpus::Text;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use utf8check::Kernel;

const SIZES: [(usize, &str); 8] = [
    (16, "16B"),
    (64, "64B"),
    (256, "256B"),
    (1 << 10, "1KiB"),
    (4 << 10, "4KiB"),
    (64 << 10, "64KiB"),
    (1 << 20, "1MiB"),
    (64 << 20, "64MiB"),
];

/// Bytes of input per iteration for small sizes (spread over `BATCH / size` slices).
const BATCH: usize = 256 << 10;

type Validate = fn(&[u8]) -> bool;

fn implementations() -> Vec<(String, Validate)> {
    let mut all: Vec<(String, Validate)> = vec![
        ("std".into(), |v| std::str::from_utf8(v).is_ok()),
        ("simdutf8-basic".into(), |v| {
            simdutf8::basic::from_utf8(v).is_ok()
        }),
        ("simdutf8-compat".into(), |v| {
            simdutf8::compat::from_utf8(v).is_ok()
        }),
        ("from_utf8".into(), |v| utf8check::from_utf8(v).is_ok()),
        ("is_valid".into(), utf8check::is_valid),
    ];
    for kernel in Kernel::available() {
        let f: Validate = match kernel {
            Kernel::Avx2 => |v| Kernel::Avx2.from_utf8(v).is_ok(),
            Kernel::Sse41 => |v| Kernel::Sse41.from_utf8(v).is_ok(),
            Kernel::Neon => |v| Kernel::Neon.from_utf8(v).is_ok(),
            _ => |v| Kernel::Scalar.from_utf8(v).is_ok(),
        };
        all.push((format!("kernel-{}", kernel.name()), f));
    }
    all
}

fn bench(c: &mut Criterion) {
    let implementations = implementations();
    for kind in Text::ALL {
        for (size, size_name) in SIZES {
            let inputs = corpus::texts(kind, size, (BATCH / size).max(1));
            let total: usize = inputs.iter().map(Vec::len).sum();
            let mut group = c.benchmark_group(format!("{}/{}", kind.name(), size_name));
            group.throughput(Throughput::Bytes(total as u64));
            if total > BATCH {
                group.sample_size(10);
            }
            for (name, validate) in &implementations {
                group.bench_function(BenchmarkId::from_parameter(name), |b| {
                    b.iter(|| {
                        for input in &inputs {
                            assert!(validate(black_box(input)));
                        }
                    })
                });
            }
            group.finish();
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1000))
        .sample_size(20);
    targets = bench
}
criterion_main!(benches);
