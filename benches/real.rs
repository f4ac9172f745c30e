//! utf8check against std and simdutf8 on real text: the files of the corpus that
//! `benches/corpus/real.sh` builds from Debian packages (HTML, man pages, fortunes, word
//! lists in eight languages), and the lines (all, and by length), words, JSON-string-like
//! fields and 64-byte slices cut from them, one call each.
//!
//! ```sh
//! benches/corpus/real.sh                 # once: installs the packages, writes target/corpus/real
//! cargo bench --bench real               # every section
//! cargo bench --bench real -- files      # or: pieces
//! ```
//!
//! Interleaved rounds, medians, direct calls (`common/measure.rs`). Prints markdown
//! tables and writes `target/bench/real-files.csv` and `target/bench/real-pieces.csv`
//! for `benches/chart.py`.
//!
//! The pieces' `memory` column is the time of reading one byte of each cache line of every
//! piece and nothing else ([`measure::touch_lines`]). Where the validators take little
//! more, a row measures how fast the bytes arrive (which varies with the host's load more
//! than with the code), not the validators.
//!
//! Comparisons: `from_utf8` against `simdutf8::compat` (both find the error position),
//! `is_valid` against `simdutf8::basic` (yes or no), and the SSE4.1 kernel
//! (`Kernel::Sse41.is_valid`) against simdutf8's SSE 4.2 kernel (`public_imp`), for CPUs
//! or builds without AVX2. Where `utf8check` picks AVX-512, the files are also checked
//! with the AVX2 kernel, what Zen 3 runs ([`measure::avx2_column`]): its `is_valid`
//! against `simdutf8::basic` and its `from_utf8` against `simdutf8::compat`. The AVX2
//! kernel on short pieces, where `Kernel`'s indirect call would weigh, is measured with
//! the whole benchmark built for AVX2: `RUSTFLAGS="-C target-cpu=x86-64-v3" cargo bench
//! --bench real`.

#[path = "common/measure.rs"]
#[macro_use]
mod measure;
#[path = "common/real.rs"]
mod real;

use std::fmt::Write as _;
use std::ops::Range;

use real::{Class, File};
use utf8check::Kernel;

const FILE_ROUNDS: usize = 61;
const PIECE_ROUNDS: usize = 31;

fn main() {
    measure::shift_code();
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wants = |section: &str| args.is_empty() || args.iter().any(|a| a == section);
    let files = real::files();
    if wants("files") {
        bench_files(&files);
    }
    if wants("pieces") {
        bench_pieces(&files);
    }
}

/// GB/s of each implementation on each whole file, and the ratios per file and class.
fn bench_files(files: &[File]) {
    let sse = measure::has_sse42() && Kernel::Sse41.is_supported();
    let avx2 = measure::avx2_column();
    println!("## Real text, whole files (GB/s)\n");
    println!(
        "| file | class | ASCII blocks | std | simdutf8-basic | simdutf8-compat | from_utf8 | is_valid | sse4.1 | simdutf8-sse42 | avx2 | avx2 from_utf8 | from_utf8 / compat | is_valid / basic | sse4.1 / simdutf8-sse42 | avx2 / basic | avx2 from_utf8 / compat |"
    );
    println!(
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    let mut csv = String::from("file,class,ascii_blocks,std,simdutf8_basic,simdutf8_compat,from_utf8,is_valid,sse41,simdutf8_sse42,avx2,avx2_from_utf8\n");
    let mut ratios: Vec<(Class, [f64; 5])> = Vec::new();
    for file in files {
        let ranges = vec![Range {
            start: 0,
            end: file.bytes.len(),
        }];
        let ns = interleaved!(FILE_ROUNDS, &file.bytes, &ranges;
            |v| std::str::from_utf8(v).is_ok(),
            |v| simdutf8::basic::from_utf8(v).is_ok(),
            |v| simdutf8::compat::from_utf8(v).is_ok(),
            |v| utf8check::from_utf8(v).is_ok(),
            utf8check::is_valid,
            |v| !sse || Kernel::Sse41.is_valid(v),
            |v| !sse || measure::simdutf8_sse42(v),
            |v| !avx2 || Kernel::Avx2.is_valid(v),
            |v| !avx2 || Kernel::Avx2.from_utf8(v).is_ok(),
        );
        let gbps: Vec<f64> = ns.iter().map(|ns| file.bytes.len() as f64 / ns).collect();
        let r = [
            gbps[3] / gbps[2],
            gbps[4] / gbps[1],
            gbps[5] / gbps[6],
            gbps[7] / gbps[1],
            gbps[8] / gbps[2],
        ];
        ratios.push((file.class, r));
        // Columns not measured on this CPU are left empty.
        let measured = [true, true, true, true, true, sse, sse, avx2, avx2];
        let cells: Vec<String> = gbps
            .iter()
            .zip(measured)
            .map(|(g, m)| if m { format!("{g:.2}") } else { "-".into() })
            .collect();
        let ratio = |i: usize, m: bool| {
            if m {
                format!("{:.2}x", r[i])
            } else {
                "-".into()
            }
        };
        println!(
            "| {} | {} | {:.0}% | {} | {} | {} | {} | {} | {} |",
            file.name,
            file.class.name(),
            file.ascii_blocks * 100.0,
            cells.join(" | "),
            ratio(0, true),
            ratio(1, true),
            ratio(2, sse),
            ratio(3, avx2),
            ratio(4, avx2),
        );
        let _ = writeln!(
            csv,
            "{},{},{:.4},{}",
            file.name,
            file.class.name(),
            file.ascii_blocks,
            measure::csv_fields(&gbps, &measured)
        );
    }
    println!("\n**By class**: geometric mean (lowest file) of each ratio\n");
    println!("| class | files | from_utf8 / compat | is_valid / basic | sse4.1 / simdutf8-sse42 | avx2 / basic | avx2 from_utf8 / compat |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for class in Class::ALL {
        let of_class: Vec<&[f64; 5]> = ratios
            .iter()
            .filter(|(c, _)| *c == class)
            .map(|(_, r)| r)
            .collect();
        if of_class.is_empty() {
            continue;
        }
        let cell = |i: usize, measured: bool| {
            measure::summary_cell(of_class.iter().map(|r| r[i]), measured)
        };
        println!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            class.name(),
            of_class.len(),
            cell(0, true),
            cell(1, true),
            cell(2, sse),
            cell(3, avx2),
            cell(4, avx2)
        );
    }
    println!();
    measure::write_csv("real-files.csv", &csv);
}

/// Nanoseconds per call on pieces of the files, one call each.
fn bench_pieces(files: &[File]) {
    let mostly_ascii: Vec<File> = files
        .iter()
        .filter(|f| f.class == Class::MostlyAscii)
        .map(|f| File {
            name: f.name.clone(),
            bytes: f.bytes.clone(),
            ascii_blocks: f.ascii_blocks,
            class: f.class,
        })
        .collect();
    type Split = Box<dyn Fn(&[u8]) -> Vec<std::ops::Range<usize>>>;
    // Lines whose length is in `lo..hi`: the longer lines by length, about where the
    // short paths change (with AVX2: up to four blocks in straight lines, then pairs of
    // blocks skipped, from 2080 bytes the windows) and where the lines of prose and
    // markup in other text (about 200 bytes in Wikipedia) fall. A corpus without such
    // lines gets no row.
    let band = |lo: usize, hi: usize| -> Split { Box::new(real::lines_of_lengths(lo..hi)) };
    let inputs: [(&str, &[File], Split); 11] = [
        ("lines", files, Box::new(real::lines)),
        ("lines of 100 B or more", files, band(100, usize::MAX)),
        ("lines of 100 to 199 B", files, band(100, 200)),
        ("lines of 200 to 399 B", files, band(200, 400)),
        ("lines of 400 to 799 B", files, band(400, 800)),
        ("lines of 800 to 2079 B", files, band(800, 2080)),
        ("lines of 2080 B or more", files, band(2080, usize::MAX)),
        ("words", files, Box::new(real::words)),
        ("fields", files, Box::new(real::fields)),
        ("64 B, every file", files, Box::new(real::slices_of(64))),
        (
            "64 B, mostly-ASCII files",
            &mostly_ascii,
            Box::new(real::slices_of(64)),
        ),
    ];
    println!("## Real text, one call per piece (ns per call)\n");
    println!("| pieces | count | mean bytes | baseline | memory | std | simdutf8-basic | simdutf8-compat | from_utf8 | is_valid | from_utf8 / best peer | is_valid / best peer |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut csv = String::from(
        "pieces,count,mean_bytes,baseline,memory,std,simdutf8_basic,simdutf8_compat,from_utf8,is_valid\n",
    );
    for (name, files, split) in inputs {
        let (buffer, ranges) = real::pieces(files, split);
        if ranges.is_empty() {
            continue;
        }
        let mean = ranges.iter().map(|r| r.len()).sum::<usize>() as f64 / ranges.len() as f64;
        let ns = interleaved!(PIECE_ROUNDS, &buffer, &ranges;
            |v| !v.is_empty(),
            measure::touch_lines,
            |v| std::str::from_utf8(v).is_ok(),
            |v| simdutf8::basic::from_utf8(v).is_ok(),
            |v| simdutf8::compat::from_utf8(v).is_ok(),
            |v| utf8check::from_utf8(v).is_ok(),
            utf8check::is_valid,
        );
        let best_peer = ns[2].min(ns[3]).min(ns[4]);
        let cells: Vec<String> = ns.iter().map(|ns| format!("{ns:.2}")).collect();
        println!(
            "| {name} | {} | {mean:.1} | {} | {:.2}x | {:.2}x |",
            ranges.len(),
            cells.join(" | "),
            best_peer / ns[5],
            best_peer / ns[6]
        );
        // (Quoted: some names hold a comma.)
        let _ = writeln!(
            csv,
            "\"{name}\",{},{mean:.1},{}",
            ranges.len(),
            cells.join(",")
        );
    }
    println!();
    measure::write_csv("real-pieces.csv", &csv);
}
