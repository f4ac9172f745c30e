//! Every error: `utf8_chunks`, `from_utf8_lossy` and `io::LossyReader` against std's
//! `<[u8]>::utf8_chunks()` and `String::from_utf8_lossy` on the real-text corpus
//! (`benches/corpus/real.sh`), valid and damaged.
//!
//! ```sh
//! benches/corpus/real.sh            # once: writes target/corpus/real
//! cargo bench --bench lossy         # every section
//! cargo bench --bench lossy -- valid damaged lines
//! ```
//!
//! * `valid`: each file whole. `from_utf8` is the floor (one kernel call). The reader reads
//!   an inner `&[u8]` 64 KiB at a time, through `fill_buf`/`consume` (into its buffer) and
//!   through `read` into a 64 KiB buffer of the caller's (straight into it); `copy` is what
//!   any reader costs at least, the inner `&[u8]` read into that buffer and nothing else, so
//!   `read / (copy + lossy)` compares the reader with copying the input and converting it.
//! * `damaged`: each file with one byte in about every `D` bytes (4096, 64 and 16)
//!   overwritten by a byte that makes it invalid (a Latin-1 letter, a stray continuation
//!   byte, `FF`, a cut lead byte), at pseudo-random places (gaps uniform in 1..2D); and
//!   1 MiB of random bytes.
//! * `lines`: every line of every file, one call each.
//!
//! Interleaved rounds, medians, direct calls (`common/measure.rs`). Ratios are std's time
//! over utf8check's (>1: utf8check is faster); geometric means over the files.
//!
//! std's byte loops are precompiled in the standard library and linked into this binary
//! where the linker puts them; on the damaged inputs the same code measured 1.5 times
//! faster at an address 48 mod 64 than at 0 mod 64 (two builds of this benchmark that
//! differed only in utf8check's code), so ratios against std move with unrelated changes.
//! The benchmark prints where they are; `UTF8CHECK_BENCH_SHIFT` (bytes of padding before
//! them, at build time: `measure::shift_code`) moves them, and
//! `benches/lossy-placements.sh` runs it at each placement.

// std's `utf8_chunks` (Rust 1.79) is what is measured against; the benchmarks build with
// the current compiler, not the library's MSRV.
#![allow(clippy::incompatible_msrv)]

#[path = "common/measure.rs"]
#[macro_use]
mod measure;
#[path = "common/real.rs"]
mod real;

use std::borrow::Cow;
use std::cell::RefCell;
use std::io::{BufRead, Read};

use real::File;
use utf8check::io::LossyReader;

const FILE_ROUNDS: usize = 31;
const LINE_ROUNDS: usize = 21;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wants = |section: &str| args.is_empty() || args.iter().any(|a| a == section);
    // The same code of std runs up to 1.5 times faster or slower depending on where this
    // binary places it (see the module documentation): say where it is.
    let next = <std::str::Utf8Chunks<'_> as Iterator>::next as fn(&mut _) -> _;
    let lossy = String::from_utf8_lossy as fn(&[u8]) -> Cow<'_, str>;
    println!(
        "std's Utf8Chunks::next at {:#x} ({} mod 64), String::from_utf8_lossy at {:#x} ({} mod 64)\n",
        next as usize,
        next as usize % 64,
        lossy as usize,
        lossy as usize % 64
    );
    measure::shift_code();
    let files = real::files();
    if wants("valid") {
        bench_valid(&files);
    }
    if wants("damaged") {
        bench_damaged(&files);
    }
    if wants("lines") {
        bench_lines(&files);
    }
}

/// The number of chunks with their valid bytes, so that nothing is optimized away (`sum`
/// folds: dense errors are walked in `Utf8Chunks::fold`'s loop).
#[inline(always)]
fn walk_ours(v: &[u8]) -> bool {
    utf8check::utf8_chunks(v)
        .map(|c| c.valid().len() + c.invalid().len())
        .sum::<usize>()
        == v.len()
}

/// [`walk_ours`] with `next` (a `for` loop), which does not fold: dense errors are walked
/// a call of `next` each.
#[inline(always)]
fn walk_ours_next(v: &[u8]) -> bool {
    let mut total = 0;
    for c in utf8check::utf8_chunks(v) {
        total += c.valid().len() + c.invalid().len();
    }
    total == v.len()
}

#[inline(always)]
fn walk_std(v: &[u8]) -> bool {
    v.utf8_chunks()
        .map(|c| c.valid().len() + c.invalid().len())
        .sum::<usize>()
        == v.len()
}

/// The length of the reads of the reader benchmarks (and of the reader's buffer).
const READ: usize = 64 << 10;

/// Reads all of `v` through a `LossyReader`'s `fill_buf`/`consume` (64 KiB buffer, so 64
/// KiB reads from `v` into it).
#[inline(always)]
fn fill_buf_lossy(v: &[u8]) -> bool {
    let mut reader = LossyReader::new(v);
    let mut total = 0;
    loop {
        let n = reader.fill_buf().unwrap().len();
        if n == 0 {
            return total >= v.len();
        }
        total += n;
        reader.consume(n);
    }
}

/// Reads all of `v` through a `LossyReader`'s `read` into `out` (64 KiB reads).
#[inline(always)]
fn read_lossy(v: &[u8], out: &mut [u8]) -> bool {
    let mut reader = LossyReader::new(v);
    let mut total = 0;
    loop {
        let n = reader.read(out).unwrap();
        if n == 0 {
            return total >= v.len();
        }
        total += n;
    }
}

/// What any reader over `v` costs at least: `v` copied into `out`, 64 KiB at a time, by
/// `<&[u8] as Read>::read` (no check).
#[inline(always)]
fn read_copy(mut v: &[u8], out: &mut [u8]) -> bool {
    let mut total = 0;
    loop {
        let n = v.read(out).unwrap();
        if n == 0 {
            return total > 0 || out.is_empty();
        }
        total += std::hint::black_box(n);
    }
}

fn gbps(bytes: usize, ns: f64) -> f64 {
    bytes as f64 / ns
}

fn bench_valid(files: &[File]) {
    println!("## Valid real text, whole files (GB/s)\n");
    println!("| file | from_utf8 | std lossy | from_utf8_lossy | std chunks | utf8_chunks | copy | LossyReader fill_buf | LossyReader read | lossy / std | chunks / std | fill_buf / lossy | read / lossy | read / (copy + lossy) |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let out = RefCell::new(vec![0u8; READ]);
    let mut ratios = vec![Vec::new(); 5];
    for file in files {
        let v = &file.bytes[..];
        let whole = 0..v.len();
        let ns = interleaved!(FILE_ROUNDS, v, std::slice::from_ref(&whole);
            |v| utf8check::from_utf8(v).is_ok(),
            |v| matches!(String::from_utf8_lossy(v), Cow::Borrowed(_)),
            |v| matches!(utf8check::from_utf8_lossy(v), Cow::Borrowed(_)),
            walk_std,
            walk_ours,
            |v| read_copy(v, &mut out.borrow_mut()),
            fill_buf_lossy,
            |v| read_lossy(v, &mut out.borrow_mut()),
        );
        let row = [
            ns[1] / ns[2],
            ns[3] / ns[4],
            ns[2] / ns[6],
            ns[2] / ns[7],
            (ns[5] + ns[2]) / ns[7],
        ];
        for (all, ratio) in ratios.iter_mut().zip(row) {
            all.push(ratio);
        }
        let cells: Vec<String> = ns
            .iter()
            .map(|&ns| format!("{:.2}", gbps(v.len(), ns)))
            .chain(row.iter().map(|ratio| format!("{ratio:.2}x")))
            .collect();
        println!("| {} | {} |", file.name, cells.join(" | "));
    }
    let means: Vec<String> = ratios
        .iter()
        .map(|all| format!("**{:.2}x**", measure::geomean(all)))
        .collect();
    println!("| **geomean** | | | | | | | | | {} |\n", means.join(" | "));
}

/// `bytes` with one byte in about every `gap` overwritten by a byte that breaks UTF-8.
fn damage(bytes: &[u8], gap: usize, seed: u64) -> Vec<u8> {
    let mut state = seed | 1;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let mut out = bytes.to_vec();
    let mut i = next(gap);
    while i < out.len() {
        out[i] = match next(4) {
            0 => 0xE9,                  // Latin-1 'é'
            1 => 0x80 | next(64) as u8, // a stray continuation byte
            2 => 0xFF,                  // never in UTF-8
            _ => 0xC3,                  // a lead byte cut short
        };
        i += 1 + next(2 * gap - 1);
    }
    out
}

fn bench_damaged(files: &[File]) {
    println!("## Damaged real text (GB/s; ratios: std time / utf8check time)\n");
    println!("| input | errors | std lossy | from_utf8_lossy | std chunks | utf8_chunks | utf8_chunks, `next` | lossy / std | chunks / std | `next` / std |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for gap in [4096, 64, 16] {
        let (mut lossy, mut chunks, mut next) = (Vec::new(), Vec::new(), Vec::new());
        for file in files {
            let v = damage(&file.bytes, gap, file.bytes.len() as u64);
            let errors = v.utf8_chunks().filter(|c| !c.invalid().is_empty()).count();
            let ns = damaged_row(&v);
            lossy.push(ns[0] / ns[1]);
            chunks.push(ns[2] / ns[3]);
            next.push(ns[2] / ns[4]);
            print_row(&format!("{}, 1/{gap}", file.name), errors, v.len(), &ns);
        }
        println!(
            "| **geomean, 1 per {gap} B** | | | | | | | **{:.2}x** | **{:.2}x** | **{:.2}x** |",
            measure::geomean(&lossy),
            measure::geomean(&chunks),
            measure::geomean(&next)
        );
    }
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let random: Vec<u8> = (0..1 << 20)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    let errors = random
        .utf8_chunks()
        .filter(|c| !c.invalid().is_empty())
        .count();
    let ns = damaged_row(&random);
    print_row("random bytes, 1 MiB", errors, random.len(), &ns);
    println!();
}

fn damaged_row(v: &[u8]) -> Vec<f64> {
    let whole = 0..v.len();
    interleaved!(FILE_ROUNDS, v, std::slice::from_ref(&whole);
        |v| !String::from_utf8_lossy(v).is_empty(),
        |v| !utf8check::from_utf8_lossy(v).is_empty(),
        walk_std,
        walk_ours,
        walk_ours_next,
    )
}

fn print_row(name: &str, errors: usize, len: usize, ns: &[f64]) {
    let cells: Vec<String> = ns
        .iter()
        .map(|&ns| format!("{:.2}", gbps(len, ns)))
        .collect();
    println!(
        "| {name} | {errors} | {} | {:.2}x | {:.2}x | {:.2}x |",
        cells.join(" | "),
        ns[0] / ns[1],
        ns[2] / ns[3],
        ns[2] / ns[4]
    );
}

fn bench_lines(files: &[File]) {
    println!("## Lines of real text, one call each (ns per line)\n");
    println!("| lines | mean bytes | std lossy | from_utf8_lossy | std chunks | utf8_chunks | lossy / std | chunks / std |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    let (buffer, ranges) = real::pieces(files, real::lines);
    let mean = ranges.iter().map(|r| r.len()).sum::<usize>() as f64 / ranges.len() as f64;
    let ns = interleaved!(LINE_ROUNDS, &buffer, &ranges;
        |v| matches!(String::from_utf8_lossy(v), Cow::Borrowed(_)),
        |v| matches!(utf8check::from_utf8_lossy(v), Cow::Borrowed(_)),
        walk_std,
        walk_ours,
    );
    println!(
        "| {} | {mean:.1} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2}x | {:.2}x |\n",
        ranges.len(),
        ns[0],
        ns[1],
        ns[2],
        ns[3],
        ns[0] / ns[1],
        ns[2] / ns[3]
    );
}
