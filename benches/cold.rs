//! One call at a time, from cold: what a server pays to validate a fresh request body
//! after doing other work, or after waiting for it. The other benchmarks time passes over
//! many inputs after a scrub (`common/measure.rs`), which puts the input and the code out
//! of the predictor's and the caches' reach but leaves the core awake and its wide vector
//! units warm: the scrub itself runs every implementation just before. Here each sample is
//! one call, timed alone, after one of:
//!
//! * `warm`: nothing (the same call ran just before): the floor;
//! * `evict`: 4 MiB of other memory read, so that the input, the code and its tables
//!   leave L2 (on Zen 3, whose L3 is 32 MiB, they stay there);
//! * `other`: other work, without a pause: `std::str::from_utf8` over 256 KiB of other
//!   text (a scalar loop whose branches take the predictor's tables), then the 4 MiB of
//!   `evict`;
//! * `idle`: the thread sleeps 1 ms. On Intel's CPUs the upper halves of the vector units
//!   power down when idle and the first wide instructions after run slowly while they
//!   wake (session 49: the AVX-512 kernel on 4 KiB of ASCII after 1 ms idle, 0.64x to
//!   0.72x `simdutf8::basic` before the ASCII skip moved into the entry points, 0.85x to
//!   0.96x after; `docs/design.md`, "On an Intel host"); on a VM the core may also have
//!   run other work meanwhile.
//!
//! What these modes showed first (session 50, `docs/design.md`): on 4 KiB of non-ASCII
//! text every kernel lost to its peer after idle, where warm it wins 1.1x to 2x, and one
//! call of the AVX2 kernel ran code in 30 distinct cache lines against `simdutf8`'s 11.
//!
//! Implementations are interleaved (each round times each one once, in an order of its own)
//! and each cell is the median of [`SAMPLES`] calls, in ticks: the time-stamp counter on
//! x86-64 (fenced), nanoseconds elsewhere. The ratios compare like with like:
//! `is_valid` with `simdutf8::basic`, `from_utf8` with `simdutf8::compat`, and where
//! this CPU has them, the AVX2 kernel with `simdutf8::basic` (when `utf8check` picks
//! AVX-512) and the SSE4.1 kernel with `simdutf8`'s SSE 4.2 kernel.
//!
//! ```sh
//! cargo bench --bench cold              # every mode and input
//! cargo bench --bench cold -- idle      # one mode
//! ```

#[path = "common/corpus.rs"]
mod corpus;
#[path = "common/measure.rs"]
mod measure;

use std::hint::black_box;
use std::time::{Duration, Instant};

use corpus::Text;
use utf8check::Kernel;

/// Calls timed per implementation and cell.
const SAMPLES: usize = 201;

/// What runs before each timed call.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Mode {
    Warm,
    Evict,
    Other,
    Idle,
}

impl Mode {
    const ALL: [Mode; 4] = [Mode::Warm, Mode::Evict, Mode::Other, Mode::Idle];

    fn name(self) -> &'static str {
        match self {
            Mode::Warm => "warm",
            Mode::Evict => "evict",
            Mode::Other => "other",
            Mode::Idle => "idle",
        }
    }

    /// Gets the machine into this mode before a timed call.
    fn prepare(self) {
        match self {
            Mode::Warm => {}
            Mode::Evict => measure::evict(),
            Mode::Other => {
                let text = &measure::scrub_text().0;
                black_box(std::str::from_utf8(black_box(text)).is_ok());
                measure::evict();
            }
            Mode::Idle => std::thread::sleep(Duration::from_millis(1)),
        }
    }
}

/// The inputs: a name and the bytes.
fn inputs() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("ASCII, 4 KiB", corpus::text(Text::Ascii, 4 << 10, 1)),
        ("ASCII, 64 KiB", corpus::text(Text::Ascii, 64 << 10, 2)),
        ("Latin, 4 KiB", corpus::text(Text::Latin, 4 << 10, 3)),
        ("Cyrillic, 4 KiB", corpus::text(Text::Cyrillic, 4 << 10, 4)),
    ]
}

/// A reading of the clock: the time-stamp counter between fences on x86-64 (so that the
/// call neither starts before the first reading nor ends after the second), nanoseconds
/// since `origin` elsewhere.
#[inline(always)]
fn ticks(origin: Instant) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        let _ = origin;
        use std::arch::x86_64::{_mm_lfence, _rdtsc};
        // SAFETY: LFENCE and RDTSC are part of x86-64 (SSE2 and the base set).
        unsafe {
            _mm_lfence();
            let t = _rdtsc();
            _mm_lfence();
            t
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        origin.elapsed().as_nanos() as u64
    }
}

/// One implementation: its name, and whether the CPU has it.
type Contender = (&'static str, bool);

/// The ticks of one call of `validate` on `v`, which it must accept.
#[inline(always)]
fn timed(origin: Instant, v: &[u8], validate: impl Fn(&[u8]) -> bool) -> u64 {
    let start = ticks(origin);
    let ok = validate(black_box(v));
    let end = ticks(origin);
    assert!(ok);
    end - start
}

/// The ticks of one call of implementation `which` (an index into [`contenders`]) on `v`:
/// the choice is made before the clock starts, and the call is direct, as in the other
/// benchmarks.
fn time_one(which: usize, v: &[u8], origin: Instant) -> u64 {
    match which {
        0 => timed(origin, v, |v| simdutf8::basic::from_utf8(v).is_ok()),
        1 => timed(origin, v, utf8check::is_valid),
        2 => timed(origin, v, |v| simdutf8::compat::from_utf8(v).is_ok()),
        3 => timed(origin, v, |v| utf8check::from_utf8(v).is_ok()),
        4 => timed(origin, v, |v| Kernel::Avx2.is_valid(v)),
        #[cfg(target_arch = "x86_64")]
        5 => timed(origin, v, measure::simdutf8_sse42),
        6 => timed(origin, v, |v| Kernel::Sse41.is_valid(v)),
        _ => unreachable!("no implementation {which} on this target"),
    }
}

/// Every implementation, in [`time_one`]'s order, and the pairs compared: (ours, peer).
fn contenders() -> ([Contender; 7], [(usize, usize); 4]) {
    let sse = measure::has_sse42() && Kernel::Sse41.is_supported();
    let avx2 = measure::avx2_column();
    (
        [
            ("simdutf8-basic", true),
            ("is_valid", true),
            ("simdutf8-compat", true),
            ("from_utf8", true),
            ("avx2", avx2),
            ("simdutf8-sse42", sse),
            ("sse4.1", sse),
        ],
        [(1, 0), (3, 2), (4, 0), (6, 5)],
    )
}

/// The median ticks of one call of each implementation on `v` after `mode` (0 where the
/// CPU does not have it).
fn cell(v: &[u8], mode: Mode, origin: Instant) -> Vec<u64> {
    let (contenders, _) = contenders();
    let live: Vec<usize> = (0..contenders.len()).filter(|&i| contenders[i].1).collect();
    let mut samples = vec![Vec::with_capacity(SAMPLES); contenders.len()];
    for round in 0..SAMPLES {
        for step in measure::round_order(round, live.len()) {
            let which = live[step];
            mode.prepare();
            samples[which].push(time_one(which, v, origin));
        }
    }
    samples
        .into_iter()
        .map(|mut s| {
            s.sort_unstable();
            s.get(s.len() / 2).copied().unwrap_or(0)
        })
        .collect()
}

fn main() {
    measure::shift_code();
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let modes: Vec<Mode> = Mode::ALL
        .into_iter()
        .filter(|m| args.is_empty() || args.iter().any(|a| a == m.name()))
        .collect();
    let origin = Instant::now();
    let (contenders, pairs) = contenders();
    let unit = if cfg!(target_arch = "x86_64") {
        "time-stamp ticks"
    } else {
        "ns"
    };
    println!("## One call from cold ({unit} per call, medians of {SAMPLES})\n");
    let mut header = String::from("| input | mode |");
    let mut rule = String::from("|---|---|");
    for (name, _) in contenders.iter().filter(|c| c.1) {
        header += &format!(" {name} |");
        rule += "---:|";
    }
    for &(ours, peer) in pairs.iter().filter(|p| contenders[p.0].1) {
        header += &format!(" {} / {} |", contenders[ours].0, contenders[peer].0);
        rule += "---:|";
    }
    println!("{header}\n{rule}");
    for (name, v) in inputs() {
        for &mode in &modes {
            let ticks = cell(&v, mode, origin);
            let mut row = format!("| {name} | {} |", mode.name());
            for i in (0..contenders.len()).filter(|&i| contenders[i].1) {
                row += &format!(" {} |", ticks[i]);
            }
            for &(ours, peer) in pairs.iter().filter(|p| contenders[p.0].1) {
                row += &format!(" {:.2}x |", ticks[peer] as f64 / ticks[ours] as f64);
            }
            println!("{row}");
        }
    }
}
