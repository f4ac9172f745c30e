//! The density sweep: ASCII text with non-ASCII characters placed every `k` bytes, for
//! `k` from 2 to 4096, where a validator's switching between its ASCII path and its full
//! check decides the speed. Real text sits all along this axis: prose in Latin scripts
//! has an accented letter every 20 to 200 bytes, HTML and code every few hundred to
//! thousands, logs and JSON rarely.
//!
//! Inserts: a single 2-, 3- or 4-byte character (`é`, `€`, `😀`) or a word of several
//! (`żółć`, `日本語`), every `k` bytes exactly (`regular`: branch predictors learn the
//! period) or at gaps drawn from `k/2..3k/2` (`jittered`: as in real text). Buffers of
//! 64 KiB, 256 KiB and 1 MiB, four slices per buffer at odd offsets.
//!
//! The spacings are powers of two, multiples of the 64-byte block, and (since session
//! 32) spacings that are not a multiple of a block (100 to 3000 bytes: records and lines
//! of fixed length). At a multiple of a block the non-ASCII blocks repeat with a period of
//! a few blocks; at 300 bytes they come 4 or 5 blocks apart in a sequence that repeats
//! only every 75 blocks, which a branch predictor still learns and a mask of blocks does
//! not see as a period.
//!
//! ```sh
//! cargo bench --bench density            # every size
//! cargo bench --bench density -- 262144  # one size
//! cargo bench --bench density -- 262144 spacing=1024 regular  # one spacing, one placement
//! ```
//!
//! Interleaved rounds, medians, direct calls (`common/measure.rs`). Prints markdown
//! tables of GB/s and ratios, and writes `target/bench/density.csv` (whole sweeps only) for
//! `benches/chart.py`. Where `utf8check` picks AVX-512, each cell has a fourth and a fifth
//! ratio: the AVX2 kernel, which Zen 3 runs, its `is_valid` against `simdutf8::basic` and
//! its `from_utf8` against `simdutf8::compat` ([`measure::avx2_column`]; at sparse
//! spacings compat ran 1.2 to 1.8 times as fast as basic in session 37's sweep, so the
//! fourth ratio alone flatters the kernel's `from_utf8`).
//! (`RUSTFLAGS="-C target-cpu=x86-64-v3"` builds both crates for AVX2 alone: the AVX2
//! kernel through the ordinary entry points.)

#[path = "common/corpus.rs"]
mod corpus;
#[path = "common/measure.rs"]
#[macro_use]
mod measure;

use std::fmt::Write as _;

use corpus::{sweep_slices, sweep_text};
use utf8check::Kernel;

const ROUNDS: usize = 31;
const SPACINGS: [usize; 28] = [
    2, 4, 8, 16, 24, 32, 48, 64, 96, 100, 128, 192, 200, 256, 300, 320, 384, 448, 500, 512, 700,
    768, 1000, 1024, 1500, 2048, 3000, 4096,
];
const INSERTS: [(&str, &str); 5] = [
    ("é", "é"),
    ("€", "€"),
    ("😀", "😀"),
    ("word żółć", "żółć"),
    ("word 日本語", "日本語"),
];
fn main() {
    measure::shift_code();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut sizes: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    // Filters: `spacing=N` (any number of them) and `regular` or `jittered`.
    let spacings: Vec<usize> = args
        .iter()
        .filter_map(|a| a.strip_prefix("spacing=")?.parse().ok())
        .collect();
    let placements: Vec<&str> = ["regular", "jittered"]
        .into_iter()
        .filter(|p| args.iter().any(|a| a == p))
        .collect();
    if sizes.is_empty() {
        sizes = vec![64 << 10, 256 << 10, 1 << 20];
    }
    let sse = measure::has_sse42() && Kernel::Sse41.is_supported();
    let avx2 = measure::avx2_column();
    let mut csv = String::from("size,insert,placement,spacing,std,simdutf8_basic,simdutf8_compat,from_utf8,is_valid,sse41,simdutf8_sse42,avx2,avx2_from_utf8\n");
    let mut summary: Vec<(usize, [f64; 5])> = Vec::new();
    for &size in &sizes {
        println!(
            "## Density sweep, {} KiB (is_valid / simdutf8-basic, from_utf8 / simdutf8-compat, sse4.1 / simdutf8-sse42{})\n",
            size >> 10,
            if avx2 {
                ", avx2 / simdutf8-basic, avx2 from_utf8 / simdutf8-compat"
            } else {
                ""
            }
        );
        let header: Vec<String> = INSERTS
            .iter()
            .flat_map(|(name, _)| ["regular", "jittered"].map(|p| format!("{name}, {p}")))
            .collect();
        println!("| every k bytes | {} |", header.join(" | "));
        println!("|---:|{}", "---:|".repeat(header.len()));
        for spacing in SPACINGS {
            if !spacings.is_empty() && !spacings.contains(&spacing) {
                continue;
            }
            let mut row = format!("| {spacing} |");
            for (name, insert) in INSERTS {
                for (placement, jitter) in [("regular", false), ("jittered", true)] {
                    if !placements.is_empty() && !placements.contains(&placement) {
                        row.push_str(" |");
                        continue;
                    }
                    if insert.len() > spacing {
                        row.push_str(" - |");
                        continue;
                    }
                    let buffer = sweep_text(insert, spacing, jitter, size);
                    let ranges = sweep_slices(&buffer, size);
                    let ns = interleaved!(ROUNDS, &buffer, &ranges;
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
                    let mean_len =
                        ranges.iter().map(|r| r.len()).sum::<usize>() as f64 / ranges.len() as f64;
                    let gbps: Vec<f64> = ns.iter().map(|ns| mean_len / ns).collect();
                    let r = [
                        gbps[4] / gbps[1],
                        gbps[3] / gbps[2],
                        gbps[5] / gbps[6],
                        gbps[7] / gbps[1],
                        gbps[8] / gbps[2],
                    ];
                    summary.push((size, r));
                    // (`-` on a CPU without SSE4.1: nothing was measured.)
                    let sse_ratio = if sse {
                        format!("{:.2}", r[2])
                    } else {
                        "-".into()
                    };
                    let _ = write!(row, " {:.2} / {:.2} / {sse_ratio}", r[0], r[1]);
                    if avx2 {
                        let _ = write!(row, " / {:.2} / {:.2}", r[3], r[4]);
                    }
                    row.push_str(" |");
                    // Columns not measured on this CPU are left empty.
                    let measured = [true, true, true, true, true, sse, sse, avx2, avx2];
                    let _ = writeln!(
                        csv,
                        "{size},{name},{placement},{spacing},{}",
                        measure::csv_fields(&gbps, &measured)
                    );
                }
            }
            println!("{row}");
        }
        println!();
    }
    println!("**Over the sweep**: geometric mean (lowest cell) of each ratio\n");
    println!(
        "| size | is_valid / basic | from_utf8 / compat | sse4.1 / simdutf8-sse42 | avx2 / basic | avx2 from_utf8 / compat |"
    );
    println!("|---:|---:|---:|---:|---:|---:|");
    for &size in &sizes {
        let cell = |i: usize, measured: bool| {
            let of_size = summary.iter().filter(|(s, _)| *s == size);
            measure::summary_cell(of_size.map(|(_, r)| r[i]), measured)
        };
        println!(
            "| {} KiB | {} | {} | {} | {} | {} |",
            size >> 10,
            cell(0, true),
            cell(1, true),
            cell(2, sse),
            cell(3, avx2),
            cell(4, avx2)
        );
    }
    if !spacings.is_empty() || !placements.is_empty() {
        // A part of the sweep: `target/bench/density.csv` (the charts' input) stays whole.
        return;
    }
    measure::write_csv("density.csv", &csv);
}
