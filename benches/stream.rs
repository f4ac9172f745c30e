//! Streaming validation: a `Validator` fed 1 MiB of multilingual text in chunks of 64 B,
//! 1 KiB and 64 KiB, against `from_utf8` on the whole buffer, in the same run.
//!
//! The text is 16 generated pieces of 64 KiB, cycling through the six kinds of
//! `common/corpus.rs` (ASCII, Latin, Cyrillic, CJK, emoji, mixed), so chunks end inside
//! characters of every length.
//!
//! `cargo bench --bench stream` runs it (about a minute); the ratios
//! (`from_utf8` time / `Validator` time) go into `docs/benchmarks.md`.

#[path = "common/corpus.rs"]
mod corpus;

use std::hint::black_box;
use std::time::Duration;

use corpus::Text;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use utf8check::Validator;

const LEN: usize = 1 << 20;
const PIECE: usize = 64 << 10;

/// 1 MiB of valid text in several scripts.
fn multilingual() -> Vec<u8> {
    let text: Vec<u8> = (0..LEN / PIECE)
        .flat_map(|i| corpus::text(Text::ALL[i % Text::ALL.len()], PIECE, i as u64))
        .collect();
    assert!(utf8check::from_utf8(&text).is_ok());
    text
}

/// Validates `text` in chunks of `chunk_len` bytes.
fn stream(text: &[u8], chunk_len: usize) -> bool {
    let mut validator = Validator::new();
    text.chunks(chunk_len)
        .all(|chunk| validator.update(chunk).is_ok())
        && validator.finish().is_ok()
}

fn bench(c: &mut Criterion) {
    let text = multilingual();
    let mut group = c.benchmark_group("stream/1MiB");
    group.throughput(Throughput::Bytes(LEN as u64));
    group.bench_function("from_utf8", |b| {
        b.iter(|| utf8check::from_utf8(black_box(&text)).is_ok())
    });
    for (chunk_len, name) in [(64, "64B"), (1 << 10, "1KiB"), (64 << 10, "64KiB")] {
        group.bench_function(BenchmarkId::new("Validator", name), |b| {
            b.iter(|| stream(black_box(&text), chunk_len))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .sample_size(50);
    targets = bench
}
criterion_main!(benches);
