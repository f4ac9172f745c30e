//! Short inputs, measured so that a noisy machine cannot tilt the comparison: every
//! implementation runs once per round, in turn, for many rounds, and the table reports
//! each one's median. (criterion, in `validate.rs`, measures one implementation after
//! the other, a second each; on a shared VM whose speed drifts by tens of percent over
//! seconds, neighbouring cells can then come from different speeds.)
//!
//! Inputs as in `validate.rs`: 64 KiB per round of different texts of one length, one
//! after the other in one buffer at every alignment, each implementation called
//! directly from the loop. `baseline` is the loop alone (it reads each slice's length).
//!
//! `cargo bench --bench short` prints a markdown table: nanoseconds per call (medians),
//! and `from_utf8` / the best of std and simdutf8 (>1: utf8check is faster), and writes
//! the same medians to `target/bench/short.csv` (for `benches/targets.py`).
//! `cargo bench --bench short -- 16 64` measures only those lengths.

#[path = "common/corpus.rs"]
mod corpus;
#[path = "common/measure.rs"]
mod measure;

use std::fmt::Write as _;

use corpus::Text;
use measure::time_slices as time;

/// Bytes of text per round.
const BATCH: usize = 64 << 10;
const ROUNDS: usize = 301;
const NAMES: [&str; 6] = [
    "baseline",
    "std",
    "simdutf8-basic",
    "simdutf8-compat",
    "from_utf8",
    "is_valid",
];

fn main() {
    let mut sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|arg| arg.parse().ok())
        .collect();
    if sizes.is_empty() {
        sizes = vec![16, 32, 64, 128, 256];
    }
    println!(
        "| text | bytes | {} | from_utf8 / best peer |",
        NAMES.map(|name| format!("{name} (ns)")).join(" | ")
    );
    println!("|---|---:|{}---:|", "---:|".repeat(NAMES.len()));
    let mut csv = format!(
        "text,bytes,{}\n",
        NAMES.map(|n| n.replace('-', "_")).join(",")
    );
    for size in sizes {
        for kind in Text::ALL {
            let (buffer, ranges) = corpus::slices(kind, size, BATCH / size);
            let (b, r) = (&buffer[..], &ranges[..]);
            let mut samples = vec![Vec::with_capacity(ROUNDS); NAMES.len()];
            // Each round in an order of its own (`measure::round_order`, as in
            // `measure::interleaved!`).
            for round in 0..ROUNDS {
                for which in measure::round_order(round, NAMES.len()) {
                    samples[which].push(match which {
                        0 => time(b, r, |v| !v.is_empty()),
                        1 => time(b, r, |v| std::str::from_utf8(v).is_ok()),
                        2 => time(b, r, |v| simdutf8::basic::from_utf8(v).is_ok()),
                        3 => time(b, r, |v| simdutf8::compat::from_utf8(v).is_ok()),
                        4 => time(b, r, |v| utf8check::from_utf8(v).is_ok()),
                        _ => time(b, r, utf8check::is_valid),
                    });
                }
            }
            let medians: Vec<f64> = samples.into_iter().map(measure::median).collect();
            let best_peer = medians[1].min(medians[2]).min(medians[3]);
            let cells: Vec<String> = medians.iter().map(|ns| format!("{ns:.2}")).collect();
            let _ = writeln!(csv, "{},{size},{}", kind.name(), cells.join(","));
            println!(
                "| {} | {size} | {} | {:.2}x |",
                kind.name(),
                cells.join(" | "),
                best_peer / medians[4]
            );
        }
    }
    measure::write_csv("short.csv", &csv);
}
