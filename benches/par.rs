//! Parallel validation (`utf8check::par`) against single-threaded `utf8check::from_utf8`,
//! with the memory read bandwidth of the machine measured in the same run: a plain loop
//! that sums the buffer as `u64` words, on one thread and on the rayon pool.
//!
//! A plain program (`harness = false`) that prints Markdown tables for
//! `docs/benchmarks.md`:
//!
//! 1. Throughput on buffers of 64 MiB and 1 GiB (larger than the last-level cache) of
//!    ASCII, CJK and mixed text (`benches/common/corpus.rs`), for every thread count from
//!    1 to the number of CPUs: with 1, single-threaded `from_utf8` and read loop; with
//!    more, `par::from_utf8` and the parallel read loop on a pool of that many threads.
//!    The ratios are those the targets of issue 3 are stated in: validation / read loop
//!    at the same thread count, and the speed-up over single-threaded `from_utf8`.
//! 2. Early exit: the time `par::from_utf8` and `par::is_valid` take with one error at
//!    several places, relative to the valid buffer.
//! 3. Piece lengths (through the hidden `par::from_utf8_with_chunk_len`) on 64 MiB.
//! 4. Where parallel validation starts to pay: single-threaded `from_utf8` against forced
//!    parallel validation on small buffers, called back to back ("hot": the pool's threads
//!    are spinning) and 2 ms apart ("cold": they have gone to sleep), and `par::from_utf8`
//!    with its serial threshold.
//!
//! Every number is a median over repetitions; within a repetition the implementations run
//! one after another, so slow phases of a shared machine hit them all alike.
//!
//! ```text
//! cargo bench --features rayon --bench par            # everything (about a minute)
//! cargo bench --features rayon --bench par -- --quick # 64 MiB only, fewer repetitions
//! ```

#[path = "common/corpus.rs"]
mod corpus;

use std::hint::black_box;
use std::time::{Duration, Instant};

use corpus::Text;
use rayon::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};
use utf8check::{par, Kernel};

const MIB: usize = 1 << 20;

/// The texts of the throughput table.
const TEXTS: [Text; 3] = [Text::Ascii, Text::Cjk, Text::Mixed];

fn main() {
    let quick = std::env::args().any(|arg| arg == "--quick");
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pools: Vec<ThreadPool> = (1..=cpus)
        .map(|n| ThreadPoolBuilder::new().num_threads(n).build().unwrap())
        .collect();
    println!(
        "utf8check::par benchmark: {cpus} CPUs, kernel {}, {}; load average at the start: {}",
        Kernel::detected().name(),
        cpu_model(),
        load_average()
    );

    println!("\n### Throughput (GB/s)\n");
    println!(
        "Threads = 1: `from_utf8` and the read loop on the calling thread; more: `par::from_utf8`"
    );
    println!("and the read loop on a rayon pool of that many threads.\n");
    println!("| buffer | text | threads | read loop | validation | validation / read | speed-up |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    let sizes: &[usize] = if quick {
        &[64 * MIB]
    } else {
        &[64 * MIB, 1024 * MIB]
    };
    for &size in sizes {
        for text in TEXTS {
            throughput(size, text, &pools, quick);
        }
    }

    println!(
        "\n### Early exit (64 MiB `mixed`, {cpus} threads, time / time on the valid buffer)\n"
    );
    early_exit(pools.last().unwrap(), quick);

    println!("\n### Piece length (64 MiB, {cpus} threads, GB/s)\n");
    piece_lengths(pools.last().unwrap(), quick);

    if cpus > 1 {
        println!("\n### Serial threshold ({cpus} threads, microseconds per call)\n");
        threshold(pools.last().unwrap(), quick);
    }
    println!("\nLoad average at the end: {}", load_average());
}

/// Repetitions for a buffer of `size` bytes: about a second of work per implementation.
fn reps(quick: bool, size: usize) -> usize {
    let reps = if size >= 256 * MIB { 7 } else { 21 };
    if quick {
        reps / 2
    } else {
        reps
    }
}

/// `size` bytes of `text`: 8 MiB generated, repeated (generating 1 GiB one character at a
/// time would take longer than the benchmark). The period is longer than any cache.
fn buffer(text: Text, size: usize) -> Vec<u8> {
    let period = corpus::text(text, (8 * MIB).min(size), 42);
    assert!(std::str::from_utf8(&period).is_ok());
    let mut out = Vec::with_capacity(size);
    while out.len() + period.len() <= size {
        out.extend_from_slice(&period);
    }
    // Valid: whole copies of valid text, then ASCII.
    out.resize(size, b' ');
    out
}

/// Sums `bytes` as little-endian `u64` words: a read of every byte with (almost) no work,
/// which the compiler turns into vector loads and adds.
fn sum_words(bytes: &[u8]) -> u64 {
    let words = bytes.chunks_exact(8);
    let tail = words.remainder().iter().map(|&b| u64::from(b)).sum::<u64>();
    words
        .map(|w| u64::from_le_bytes(w.try_into().unwrap()))
        .fold(tail, u64::wrapping_add)
}

/// The read loop on the current pool, in pieces of the length `par` uses.
fn par_sum_words(bytes: &[u8]) -> u64 {
    bytes
        .par_chunks(64 * 1024)
        .map(sum_words)
        .reduce(|| 0, u64::wrapping_add)
}

/// Seconds per call of each of `tasks`: median over `reps` rounds, each round running every
/// task once, in order.
fn time_interleaved(reps: usize, tasks: &mut [&mut dyn FnMut()]) -> Vec<f64> {
    let mut samples = vec![Vec::with_capacity(reps); tasks.len()];
    for task in tasks.iter_mut() {
        task(); // warm up: page faults, first-call dispatch, thread start
    }
    for _ in 0..reps {
        for (task, samples) in tasks.iter_mut().zip(&mut samples) {
            let start = Instant::now();
            task();
            samples.push(start.elapsed().as_secs_f64());
        }
    }
    samples.into_iter().map(median).collect()
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn gbps(bytes: usize, seconds: f64) -> f64 {
    bytes as f64 / seconds / 1e9
}

fn throughput(size: usize, text: Text, pools: &[ThreadPool], quick: bool) {
    let v = buffer(text, size);
    let v = &v[..];
    // Threads = 1: the single-threaded read loop and `from_utf8`, on the calling thread.
    // (`par` on a pool of one thread runs `from_utf8` on it.) Then per pool of 2 or more
    // threads, the parallel ones.
    let mut tasks: Vec<Box<dyn FnMut() + '_>> = vec![
        Box::new(|| {
            black_box(sum_words(black_box(v)));
        }),
        Box::new(|| assert!(utf8check::from_utf8(black_box(v)).is_ok())),
    ];
    for pool in &pools[1..] {
        tasks.push(Box::new(|| {
            black_box(pool.install(|| par_sum_words(black_box(v))));
        }));
        tasks.push(Box::new(|| {
            assert!(pool.install(|| par::from_utf8(black_box(v))).is_ok())
        }));
    }
    let mut refs: Vec<&mut dyn FnMut()> = tasks.iter_mut().map(|t| &mut **t as _).collect();
    let times = time_interleaved(reps(quick, size), &mut refs);
    let single = gbps(size, times[1]);
    for (threads, pair) in (1..).zip(times.chunks(2)) {
        let [read, validate] = [gbps(size, pair[0]), gbps(size, pair[1])];
        println!(
            "| {} MiB | {} | {threads} | {read:.1} | {validate:.1} | {:.2} | {:.2} |",
            size / MIB,
            text.name(),
            validate / read,
            validate / single,
        );
    }
}

/// Early exit: `par::from_utf8` and `par::is_valid` on 64 MiB with one error, against
/// `par::from_utf8` on the valid buffer.
fn early_exit(pool: &ThreadPool, quick: bool) {
    let valid = buffer(Text::Mixed, 64 * MIB);
    let places = [1, 4, 8, 12, 15]; // sixteenths
    println!("| error at | `par::from_utf8` | `par::is_valid` |");
    println!("|---:|---:|---:|");
    let mut broken: Vec<Vec<u8>> = places
        .iter()
        .map(|&sixteenths| {
            let mut v = valid.clone();
            // A character boundary near the place; the byte can never occur in UTF-8.
            let mut at = v.len() / 16 * sixteenths;
            while (v[at] as i8) < -64 {
                at += 1;
            }
            v[at] = 0xFF;
            v
        })
        .collect();
    broken.insert(0, valid);
    let mut tasks: Vec<Box<dyn FnMut() + '_>> = Vec::new();
    for v in &broken {
        tasks.push(Box::new(move || {
            black_box(pool.install(|| par::from_utf8(black_box(v)).is_ok()));
        }));
        tasks.push(Box::new(move || {
            black_box(pool.install(|| par::is_valid(black_box(v))));
        }));
    }
    let mut refs: Vec<&mut dyn FnMut()> = tasks.iter_mut().map(|t| &mut **t as _).collect();
    let times = time_interleaved(reps(quick, 64 * MIB), &mut refs);
    let full = times[0];
    for (i, pair) in times.chunks(2).enumerate() {
        let place = match i {
            0 => "none (valid)".to_string(),
            _ => format!("{}/16", places[i - 1]),
        };
        println!(
            "| {place} | {:.2} | {:.2} |",
            pair[0] / full,
            pair[1] / full
        );
    }
}

fn piece_lengths(pool: &ThreadPool, quick: bool) {
    let lens = [4 << 10, 16 << 10, 64 << 10, 256 << 10, MIB, 4 * MIB];
    println!("| text | {} |", lens.map(human).join(" | "));
    println!("|---|{}", "---:|".repeat(lens.len()));
    for text in [Text::Ascii, Text::Mixed] {
        let v = buffer(text, 64 * MIB);
        let v = &v[..];
        let mut tasks: Vec<Box<dyn FnMut() + '_>> = lens
            .iter()
            .map(|&len| {
                Box::new(move || {
                    let result = pool.install(|| par::from_utf8_with_chunk_len(black_box(v), len));
                    assert!(result.is_ok());
                }) as Box<dyn FnMut()>
            })
            .collect();
        let mut refs: Vec<&mut dyn FnMut()> = tasks.iter_mut().map(|t| &mut **t as _).collect();
        let times = time_interleaved(reps(quick, 64 * MIB), &mut refs);
        let cells: Vec<String> = times
            .iter()
            .map(|&t| format!("{:.1}", gbps(v.len(), t)))
            .collect();
        println!("| {} | {} |", text.name(), cells.join(" | "));
    }
}

fn human(len: usize) -> String {
    if len >= MIB {
        format!("{} MiB", len / MIB)
    } else {
        format!("{} KiB", len >> 10)
    }
}

/// Microseconds per call on `mixed` text of sizes around the threshold: single-threaded,
/// forced parallel (64 KiB pieces, as `par` uses) and `par::from_utf8`, which switches to
/// parallel at its threshold.
fn threshold(pool: &ThreadPool, quick: bool) {
    println!(
        "| size | single-threaded | parallel, hot | parallel, cold | `par::from_utf8`, cold |"
    );
    println!("|---:|---:|---:|---:|---:|");
    let sizes = [
        64 << 10,
        128 << 10,
        256 << 10,
        512 << 10,
        MIB,
        2 * MIB,
        4 * MIB,
    ];
    for size in sizes {
        let v = buffer(Text::Mixed, size);
        let v = &v[..];
        let calls = (64 * MIB / size).max(1); // per sample: ~64 MiB, well above timer noise
        let reps = if quick { 5 } else { 11 };
        let single = || assert!(utf8check::from_utf8(black_box(v)).is_ok());
        let forced = || assert!(par::from_utf8_with_chunk_len(black_box(v), 64 << 10).is_ok());
        let public = || assert!(par::from_utf8(black_box(v)).is_ok());
        let hot = |f: &(dyn Fn() + Sync)| {
            pool.install(|| {
                let start = Instant::now();
                for _ in 0..calls {
                    f();
                }
                start.elapsed().as_secs_f64() / calls as f64
            })
        };
        // The pool's threads sleep after about a millisecond without work; each call
        // then wakes them. Only the call is timed.
        let cold = |f: &(dyn Fn() + Sync)| {
            let mut total = 0.0;
            let calls = calls.min(50);
            for _ in 0..calls {
                std::thread::sleep(Duration::from_millis(2));
                total += pool.install(|| {
                    let start = Instant::now();
                    f();
                    start.elapsed().as_secs_f64()
                });
            }
            total / calls as f64
        };
        let mut samples = [vec![], vec![], vec![], vec![]];
        for _ in 0..reps {
            samples[0].push(hot(&single));
            samples[1].push(hot(&forced));
            samples[2].push(cold(&forced));
            samples[3].push(cold(&public));
        }
        let [a, b, c, d] = samples.map(|s| median(s) * 1e6);
        println!("| {} | {a:.0} | {b:.0} | {c:.0} | {d:.0} |", human(size));
    }
}

/// The CPU's name, from `/proc/cpuinfo` where there is one.
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|line| line.starts_with("model name"))
                .and_then(|line| line.split(':').nth(1))
                .map(|name| name.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

/// The 1-, 5- and 15-minute load averages, from `/proc/loadavg` where there is one: a
/// busy machine makes the parallel numbers meaningless.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|avg| avg.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".into())
}
