//! Interleaved timing for the benchmarks that compare implementations on a noisy machine:
//! every implementation runs once per round, in turn, for many rounds, and each one's
//! median is reported. (A VM whose speed drifts by tens of percent over seconds would
//! otherwise tilt a comparison made one implementation after the other.)
//!
//! Each implementation is called directly from the timed loop ([`time_slices`] is generic
//! over the closure, so every call is inlined or direct): a function pointer would add an
//! indirect call to every implementation and hide differences on short inputs.
//!
//! Shared by the benchmarks with `#[path = "common/measure.rs"] mod measure;`.

#![allow(dead_code)] // each benchmark uses part of it

use std::hint::black_box;
use std::ops::Range;
use std::time::Instant;

/// Bytes of padding in the benchmark's own code, which moves all code linked after it
/// (utf8check's, simdutf8's, std's): code placement moves the speed of short loops by tens
/// of percent, and this is the way to measure at several placements. Set at build time
/// with `UTF8CHECK_BENCH_SHIFT`; 0 by default.
pub const SHIFT: usize = parse_shift(option_env!("UTF8CHECK_BENCH_SHIFT"));

const fn parse_shift(value: Option<&str>) -> usize {
    let Some(value) = value else { return 0 };
    let (digits, mut n, mut i) = (value.as_bytes(), 0, 0);
    while i < digits.len() {
        assert!(
            digits[i].is_ascii_digit(),
            "UTF8CHECK_BENCH_SHIFT: not a number"
        );
        n = n * 10 + (digits[i] - b'0') as usize;
        i += 1;
    }
    n
}

/// `SHIFT` bytes of code, jumped over.
#[inline(never)]
pub fn shift_code() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a jump over padding that is never executed; no register or memory is used.
    unsafe {
        std::arch::asm!("jmp 2f", ".skip {shift}, 0xcc", "2:", shift = const SHIFT, options(nomem, nostack));
    }
}

/// Nanoseconds per slice of one pass of `validate` over every slice of `buffer`; panics if
/// `validate` rejects one (every benchmark input is valid UTF-8 unless said otherwise).
#[inline(never)]
pub fn time_slices(
    buffer: &[u8],
    ranges: &[Range<usize>],
    validate: impl Fn(&[u8]) -> bool,
) -> f64 {
    let start = Instant::now();
    for range in ranges {
        assert!(validate(black_box(&buffer[range.clone()])));
    }
    start.elapsed().as_secs_f64() * 1e9 / ranges.len() as f64
}

/// Reads one byte of each cache line of `v` and returns `true`: about the time the bytes
/// of a piece take to arrive, with no work on them (the `memory` column of the real-text
/// benchmark's pieces). The loads do not depend on each other, so as many are in flight
/// as the core allows. Where a row's validators take little more, the row measures the
/// memory, not them: on a host whose memory was slow (session 43) their ratios fell
/// towards 1.0x. (Not for whole files: over megabytes, streams of vector loads outran
/// these byte loads.)
pub fn touch_lines(v: &[u8]) -> bool {
    let mut any = v.last().copied().unwrap_or(0);
    let mut i = 0;
    while i < v.len() {
        any |= v[i];
        i += 64;
    }
    black_box(any);
    true
}

/// The order in which round `round` of an interleaved benchmark times its `count`
/// implementations: a permutation of `0..count` drawn for that round (from a seed that
/// is the round's number, so that runs repeat).
///
/// Why not a fixed order, or one rotated a place per round: a place in the round is worth
/// a few percent (on Zen 4, `from_utf8` and `is_valid`, timed one after the other in a
/// fixed order, read 2% to 4% apart in favour of the second), and so is the implementation
/// that ran last. Rotated, each implementation still always follows the same one, and on
/// Zen 3 (session 55) a pass right after another of the same code on the same input was
/// faster even with [`scrub`] between them: on the six dense files of the real-text
/// corpora, `from_utf8` read 0.85x to 1.02x `is_valid` (median 0.92x) when it ran right
/// before it every round, and 0.99x to 1.10x (median 1.05x) when it ran right after it (the
/// same kernel). Drawn afresh, an implementation follows each other one in about as many
/// rounds, and the median comes from rounds that no neighbour warmed.
pub fn round_order(round: usize, count: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..count).collect();
    // xorshift64 from a seed that is never zero; Fisher-Yates.
    let mut state = (round as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    for i in (1..count).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        order.swap(i, (state % (i as u64 + 1)) as usize);
    }
    order
}

/// The median of `samples`.
pub fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// The geometric mean of `values` (1 for none).
pub fn geomean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 1.0;
    }
    (values.iter().map(|v| v.ln()).sum::<f64>() / values.len() as f64).exp()
}

/// A summary cell of ratios: their geometric mean and, in parentheses, the lowest, as
/// `1.23x (0.98x)`; `-` where the column was not measured on this CPU.
pub fn summary_cell(ratios: impl Iterator<Item = f64>, measured: bool) -> String {
    if !measured {
        return "-".into();
    }
    let values: Vec<f64> = ratios.collect();
    let lowest = values.iter().copied().fold(f64::INFINITY, f64::min);
    format!("{:.2}x ({lowest:.2}x)", geomean(&values))
}

/// Writes `contents` to `target/bench/NAME` (the directory made if missing): the CSV
/// files of the benchmarks, which `benches/chart.py`, `benches/density_runs.py` and
/// `benches/targets.py` read.
pub fn write_csv(name: &str, contents: &str) {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench");
    std::fs::create_dir_all(&dir).expect("create target/bench");
    std::fs::write(dir.join(name), contents).unwrap_or_else(|e| panic!("write {name}: {e}"));
}

/// The CSV fields of one row of GB/s, three decimals each, empty where the column was not
/// measured on this CPU (`benches/chart.py` reads an empty field as no data).
pub fn csv_fields(gbps: &[f64], measured: &[bool]) -> String {
    gbps.iter()
        .zip(measured)
        .map(|(g, &m)| if m { format!("{g:.3}") } else { String::new() })
        .collect::<Vec<_>>()
        .join(",")
}

/// Runs `rounds` rounds over the slices; each round times every listed implementation
/// once, in turn, each timed pass preceded by [`scrub`]. Evaluates to the median
/// nanoseconds per slice of each, in order.
///
/// Each round runs them in an order of its own ([`round_order`]), so that no
/// implementation always runs at the same place or after the same one.
///
/// ```ignore
/// let ns = interleaved!(rounds, &buffer, &ranges; |v| std::str::from_utf8(v).is_ok(), utf8check::is_valid);
/// ```
#[macro_export]
macro_rules! interleaved {
    ($rounds:expr, $buffer:expr, $ranges:expr; $($validate:expr),+ $(,)?) => {{
        let (buffer, ranges): (&[u8], &[::std::ops::Range<usize>]) = ($buffer, $ranges);
        let count = [$(stringify!($validate)),+].len();
        let mut samples = vec![Vec::with_capacity($rounds); count];
        for round in 0..$rounds {
            for which in measure::round_order(round, count) {
                let mut i = 0;
                $(
                    if i == which {
                        measure::scrub();
                        samples[i].push(measure::time_slices(buffer, ranges, $validate));
                    }
                    i += 1;
                )+
                let _ = i;
            }
        }
        samples.into_iter().map(measure::median).collect::<Vec<f64>>()
    }};
}

/// Runs every implementation on other text (256 KiB of mixed density, whole and in
/// pieces of 1 to 300 bytes) before each timed pass.
///
/// Zen 3's branch predictor remembers enough of a 1 MiB pass to make a second pass of
/// the same code over the same bytes up to 1.6 times faster: timed back to back,
/// `from_utf8` and `is_valid` (the same kernel) differed by that much, in favour of
/// whichever ran second. Applications validate new bytes each time, so every timed pass
/// here starts from a predictor trained on something else, and from a cache that holds
/// something else (the scrub text evicts the previous input from L2).
///
/// `UTF8CHECK_SCRUB` (at run time) takes the two apart, to see which one a result depends
/// on: `cache` only reads 4 MiB of other memory (the input leaves L1 and L2, the
/// predictor keeps what it learned), `predictor` only runs the implementations on the
/// pieces of the first 16 KiB of the scrub text (the input stays in L2), `none` does
/// nothing, and `full` (the default) runs them on all of the scrub text, as above.
///
/// Every implementation that is timed, the AVX2 column's kernel too ([`avx2_column`]):
/// until session 35 the scrub left it out, and on the Zen 4 host (where `is_valid` is
/// the AVX-512 kernel) it was the one implementation whose code and branches the scrub
/// did not touch, which the timed pass then paid for. Pure ASCII at 64 KiB read 0.84x to
/// 0.92x `simdutf8::basic` that way, and 0.92x to 1.01x with it in the scrub, in the
/// same runs (`docs/benchmarks.md`). On Zen 3 that kernel is `is_valid`, which the
/// scrub always ran.
#[inline(never)]
pub fn scrub() {
    evict_if_asked();
    let text = &scrub_text().0;
    let sse = has_sse42() && utf8check::Kernel::Sse41.is_supported();
    let avx2 = avx2_column();
    for range in scrub_ranges() {
        let v = std::hint::black_box(&text[range.clone()]);
        std::hint::black_box((
            std::str::from_utf8(v).is_ok(),
            simdutf8::basic::from_utf8(v).is_ok(),
            simdutf8::compat::from_utf8(v).is_ok(),
            utf8check::from_utf8(v).is_ok(),
            utf8check::is_valid(v),
        ));
        if sse {
            #[cfg(target_arch = "x86_64")]
            std::hint::black_box((utf8check::Kernel::Sse41.is_valid(v), simdutf8_sse42(v)));
        }
        if avx2 {
            std::hint::black_box((
                utf8check::Kernel::Avx2.is_valid(v),
                utf8check::Kernel::Avx2.from_utf8(v).is_ok(),
            ));
        }
    }
}

/// With `UTF8CHECK_SCRUB=cache`, reads 4 MiB of other memory, so that the input leaves L1
/// and L2; otherwise nothing.
pub fn evict_if_asked() {
    if scrub_kind() == Scrub::Cache {
        evict();
    }
}

/// Reads 4 MiB of other memory, a byte per cache line, so that the input leaves L1 and L2
/// (and code and tables with it).
pub fn evict() {
    let other = evict_buffer();
    let sum = (0..other.len())
        .step_by(64)
        .map(|i| u64::from(other[i]))
        .sum::<u64>();
    std::hint::black_box(sum);
}

/// The pieces of [`scrub_text`] that a scrub validates with every implementation: all of
/// them (`UTF8CHECK_SCRUB=full`, the default), the short pieces within its first 16 KiB
/// and not the whole text (`predictor`), none (`none`, `cache`).
pub fn scrub_ranges() -> &'static [Range<usize>] {
    let ranges = &scrub_text().1[..];
    match scrub_kind() {
        Scrub::Full => ranges,
        Scrub::Predictor => {
            let small = ranges[1..].iter().take_while(|r| r.end <= 16 << 10).count();
            &ranges[1..1 + small]
        }
        Scrub::None | Scrub::Cache => &[],
    }
}

/// What [`scrub`] does (`UTF8CHECK_SCRUB`).
#[derive(Copy, Clone, PartialEq, Eq)]
enum Scrub {
    Full,
    None,
    Cache,
    Predictor,
}

/// `UTF8CHECK_SCRUB`, read once.
fn scrub_kind() -> Scrub {
    use std::sync::OnceLock;
    static KIND: OnceLock<Scrub> = OnceLock::new();
    *KIND.get_or_init(|| match std::env::var("UTF8CHECK_SCRUB").as_deref() {
        Err(_) | Ok("full") => Scrub::Full,
        Ok("none") => Scrub::None,
        Ok("cache") => Scrub::Cache,
        Ok("predictor") => Scrub::Predictor,
        Ok(other) => panic!("UTF8CHECK_SCRUB: full, none, cache or predictor, not {other:?}"),
    })
}

/// The 4 MiB that `UTF8CHECK_SCRUB=cache` reads (more than L2, less than Zen 3's L3).
fn evict_buffer() -> &'static [u8] {
    use std::sync::OnceLock;
    static OTHER: OnceLock<Vec<u8>> = OnceLock::new();
    OTHER.get_or_init(|| (0..4 << 20).map(|i| (i % 251) as u8).collect())
}

/// The text [`scrub`] runs on, and its pieces (the whole, then pieces of 1 to 300 bytes),
/// made once.
pub fn scrub_text() -> &'static (Vec<u8>, Vec<Range<usize>>) {
    use std::sync::OnceLock;
    static SCRUB: OnceLock<(Vec<u8>, Vec<Range<usize>>)> = OnceLock::new();
    SCRUB.get_or_init(|| {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let inserts = ["é", "€", "😀", "żółć", "日本語", "Привет"];
        let mut text = String::new();
        while text.len() < 256 << 10 {
            for _ in 0..next(200) {
                text.push((b'a' + next(26) as u8) as char);
                if next(6) == 0 {
                    text.push(' ');
                }
            }
            text.push_str(inserts[next(inserts.len() as u64) as usize]);
        }
        let text = text.into_bytes();
        let mut ranges = Vec::with_capacity(1024);
        ranges.push(0..text.len());
        let mut start = 0;
        while start + 300 < text.len() {
            let end = start + 1 + next(300) as usize;
            ranges.push(start..end);
            start = end;
        }
        (text, ranges)
    })
}

/// The SSE kernel of simdutf8 (its `public_imp` feature), called directly, for comparing
/// kernels of the same width.
#[cfg(target_arch = "x86_64")]
pub fn simdutf8_sse42(bytes: &[u8]) -> bool {
    // SAFETY: only called after `has_sse42()` returned true.
    unsafe { simdutf8::basic::imp::x86::sse42::validate_utf8(bytes).is_ok() }
}

/// Is the AVX2 kernel measured in a column of its own? Where this CPU has it but
/// `utf8check` picks another (AVX-512): that is the kernel Zen 3 and every CPU without
/// AVX-512 runs, and without this column a host with AVX-512 never shows it. Its
/// `is_valid` is compared with `simdutf8::basic` and its `from_utf8` with
/// `simdutf8::compat`, whose AVX2 code every such CPU runs. Where AVX2 is what
/// `utf8check` picks, `is_valid` and `from_utf8` are already those columns.
pub fn avx2_column() -> bool {
    utf8check::Kernel::Avx2.is_supported()
        && utf8check::Kernel::detected() != utf8check::Kernel::Avx2
}

/// Can this CPU run [`simdutf8_sse42`] and utf8check's SSE4.1 kernel?
pub fn has_sse42() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("sse4.2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
