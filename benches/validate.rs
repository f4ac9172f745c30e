//! Single-threaded validation: utf8check (dispatched, `is_valid`, and each kernel) against
//! `std::str::from_utf8` and simdutf8 (`basic` and `compat`), on generated text of six
//! kinds and sizes from 16 B to 64 MiB.
//!
//! Inputs below 64 KiB are measured over many different slices (about 256 KiB in all
//! per iteration), not one slice repeated: short inputs in real use are different every
//! time, and the branch predictor would learn a single one. The slices lie one after the
//! other in one buffer, a few bytes apart, so that they start at every alignment, as the
//! fields of a message do. Each implementation is called directly, the way an
//! application calls it (no function pointer between the loop and the call), and a
//! `baseline` that only reads each slice's length measures what the loop itself costs.
//!
//! `cargo bench --bench validate` runs everything (about 12 minutes);
//! `cargo bench --bench validate -- 'cjk/1KiB'` filters. `benches/report.py` turns the
//! results into the table of `docs/benchmarks.md`.

#[path = "common/corpus.rs"]
mod corpus;

use std::hint::black_box;
use std::ops::Range;
use std::time::Duration;

use corpus::Text;
use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
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

/// Measures `validate` on every slice in turn.
fn bench_one(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    buffer: &[u8],
    ranges: &[Range<usize>],
    validate: impl Fn(&[u8]) -> bool,
) {
    group.bench_function(name, |b| {
        b.iter(|| {
            for range in ranges {
                assert!(validate(black_box(&buffer[range.clone()])));
            }
        })
    });
}

fn bench(c: &mut Criterion) {
    for kind in Text::ALL {
        for (size, size_name) in SIZES {
            let (buffer, ranges) = corpus::slices(kind, size, (BATCH / size).max(1));
            let total = (ranges.len() * size) as u64;
            let mut group = c.benchmark_group(format!("{}/{}", kind.name(), size_name));
            group.throughput(Throughput::Bytes(total));
            if total > BATCH as u64 {
                group.sample_size(10);
            }
            let g = &mut group;
            let (buffer, ranges) = (&buffer[..], &ranges[..]);
            bench_one(g, "baseline", buffer, ranges, |v| !v.is_empty());
            bench_one(g, "std", buffer, ranges, |v| std::str::from_utf8(v).is_ok());
            bench_one(g, "simdutf8-basic", buffer, ranges, |v| {
                simdutf8::basic::from_utf8(v).is_ok()
            });
            bench_one(g, "simdutf8-compat", buffer, ranges, |v| {
                simdutf8::compat::from_utf8(v).is_ok()
            });
            bench_one(g, "from_utf8", buffer, ranges, |v| {
                utf8check::from_utf8(v).is_ok()
            });
            bench_one(g, "is_valid", buffer, ranges, utf8check::is_valid);
            for kernel in Kernel::available() {
                let name = format!("kernel-{}", kernel.name());
                bench_one(g, &name, buffer, ranges, |v| kernel.from_utf8(v).is_ok());
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
