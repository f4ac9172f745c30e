//! `utf8check::columnar` against arrow-rs and Polars on string columns of real text.
//!
//! ```sh
//! bash benches/corpus/real.sh            # once, in the repository root: target/corpus/real
//! cd compare/arrow && cargo bench         # or: cargo bench -- offsets | views | plain | errors
//! ```
//!
//! Columns: the rows are the words of the word lists (`words-*`), the lines of the other
//! files (man pages, fortunes, HTML) and JSON-string-like fields cut from those lines
//! (`fields`, 4 to 36 bytes), in corpus order, repeated to 8 Ki and 1 Mi rows; offsets as
//! `i32` and `i64`, and views as arrow-rs's `StringViewBuilder` lays them out.
//!
//! Interleaved rounds (every contender once per round, in turn, each timed call preceded
//! by the shared scrub of `benches/common/measure.rs`, which evicts the column from the
//! L2 cache and retrains the branch predictor on other text), medians, direct calls.
//! Prints markdown tables: GB/s of row bytes, and utf8check's speed over the best other.

#[path = "../../../benches/common/measure.rs"]
#[macro_use]
mod measure;
#[path = "../../../benches/common/real.rs"]
mod real;

use std::hint::black_box;
use std::ops::Range;
use std::time::Instant;

use utf8check::columnar;
use utf8check_compare_arrow::{arrow, polars, Column};

const ROWS: [usize; 2] = [8 << 10, 1 << 20];

/// Rounds for columns of 8 Ki rows and of 1 Mi rows.
fn rounds(rows: usize) -> usize {
    if rows <= 8 << 10 {
        151
    } else {
        15
    }
}

/// Seconds per call of each closure, median over `rounds` interleaved rounds; each call
/// must return `$ok`.
macro_rules! interleave {
    ($rounds:expr, $ok:expr; $($f:expr),+ $(,)?) => {{
        let count = [$(stringify!($f)),+].len();
        let mut samples = vec![Vec::with_capacity($rounds); count];
        for _ in 0..$rounds {
            let mut i = 0;
            $(
                measure::scrub();
                let start = Instant::now();
                let ok = black_box($f());
                samples[i].push(start.elapsed().as_secs_f64());
                assert_eq!(ok, $ok, "{}", stringify!($f));
                i += 1;
            )+
            let _ = i;
        }
        samples.into_iter().map(measure::median).collect::<Vec<f64>>()
    }};
}

struct Kind {
    name: &'static str,
    text: Vec<u8>,
    ranges: Vec<Range<usize>>,
}

fn kinds() -> Vec<Kind> {
    if std::env::var_os("UTF8CHECK_REAL_CORPUS").is_none() {
        // The corpus of the repository this crate lives in.
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/corpus/real");
        std::env::set_var("UTF8CHECK_REAL_CORPUS", dir);
    }
    let files = real::files();
    let (words, prose): (Vec<real::File>, Vec<real::File>) = files
        .into_iter()
        .partition(|f| f.name.starts_with("words-"));
    let kind = |name, files: &[real::File], split: fn(&[u8]) -> Vec<Range<usize>>| {
        let (text, ranges) = real::pieces(files, split);
        Kind { name, text, ranges }
    };
    vec![
        kind("words", &words, real::lines),
        kind("lines", &prose, real::lines),
        kind("fields", &prose, real::fields),
    ]
}

fn gbps(bytes: usize, seconds: f64) -> f64 {
    bytes as f64 / seconds / 1e9
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wants = |section: &str| args.is_empty() || args.iter().any(|a| a == section);
    let kinds = kinds();
    for kind in &kinds {
        let mean =
            kind.ranges.iter().map(|r| r.len()).sum::<usize>() as f64 / kind.ranges.len() as f64;
        println!(
            "{}: {} pieces, mean {:.1} bytes",
            kind.name,
            kind.ranges.len(),
            mean
        );
    }
    println!();
    if wants("offsets") {
        bench_offsets(&kinds);
    }
    if wants("views") {
        bench_views(&kinds);
    }
    if wants("plain") {
        bench_plain(&kinds);
    }
    if wants("errors") {
        bench_errors(&kinds);
    }
}

/// Parquet PLAIN pages of the same rows (one page per column, as a reader sees a column
/// chunk's pages back to back): `validate_plain` against a loop that follows the lengths
/// and validates each value with std or simdutf8 (no library exports a PLAIN check).
fn bench_plain(kinds: &[Kind]) {
    println!("## Parquet PLAIN pages (GB/s of page bytes)\n");
    println!("| column | values | MB | utf8check | per value, std | per value, simdutf8 | utf8check / best |");
    println!("|---|---|---|---|---|---|---|");
    let mut ratios = Vec::new();
    for kind in kinds {
        for rows in ROWS {
            let mut page = Vec::new();
            for r in kind.ranges.iter().cycle().take(rows) {
                page.extend_from_slice(&(r.len() as u32).to_le_bytes());
                page.extend_from_slice(&kind.text[r.clone()]);
            }
            let page = &page[..];
            let t = interleave!(rounds(rows), true;
                || columnar::validate_plain(black_box(page), rows) == Ok(page.len()),
                || per_value(black_box(page), rows, |v| std::str::from_utf8(v).is_ok()),
                || per_value(black_box(page), rows, |v| simdutf8::basic::from_utf8(v).is_ok()),
            );
            let ratio = t[1].min(t[2]) / t[0];
            ratios.push(ratio);
            println!(
                "| {} | {} | {:.1} | {:.2} | {:.2} | {:.2} | {:.2}x |",
                kind.name,
                rows,
                page.len() as f64 / 1e6,
                gbps(page.len(), t[0]),
                gbps(page.len(), t[1]),
                gbps(page.len(), t[2]),
                ratio
            );
        }
    }
    println!(
        "\nutf8check over the best per-value loop: geometric mean {:.2}x\n",
        measure::geomean(&ratios)
    );
}

/// Follows the lengths of a PLAIN page and validates each value with `validate`.
#[inline(always)]
fn per_value(page: &[u8], values: usize, validate: impl Fn(&[u8]) -> bool) -> bool {
    let mut pos = 0;
    for _ in 0..values {
        let Some(len) = page.get(pos..pos + 4) else {
            return false;
        };
        let len = u32::from_le_bytes(len.try_into().unwrap()) as usize;
        let Some(value) = page.get(pos + 4..pos + 4 + len) else {
            return false;
        };
        if !validate(value) {
            return false;
        }
        pos += 4 + len;
    }
    true
}

fn bench_offsets(kinds: &[Kind]) {
    println!("## Offsets columns (GB/s of row bytes)\n");
    println!("| column | rows | offsets | MB | utf8check | arrow-rs validate | arrow-rs try_new | Polars | utf8check / best | Polars with its offsets check | utf8check / that |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let mut ratios = Vec::new();
    let mut same_work = Vec::new();
    for kind in kinds {
        for rows in ROWS {
            let c = Column::new(&kind.text, &kind.ranges, rows);
            let values: &[u8] = &c.values;
            let r = rounds(rows);
            let t32 = interleave!(r, true;
                || columnar::validate_offsets(black_box(values), black_box(&c.offsets32)).is_ok(),
                || arrow::validate(black_box(&c.values), black_box(&c.arrow32)),
                || arrow::try_new(black_box(&c.values), black_box(&c.arrow32)),
                || polars::try_check_utf8(black_box(&c.offsets32), black_box(values)),
                || polars::try_check_offsets(black_box(&c.offsets32))
                    && polars::try_check_utf8(black_box(&c.offsets32), black_box(values)),
            );
            let t64 = interleave!(r, true;
                || columnar::validate_offsets(black_box(values), black_box(&c.offsets64)).is_ok(),
                || arrow::validate(black_box(&c.values), black_box(&c.arrow64)),
                || arrow::try_new(black_box(&c.values), black_box(&c.arrow64)),
                || polars::try_check_utf8(black_box(&c.offsets64), black_box(values)),
                || polars::try_check_offsets(black_box(&c.offsets64))
                    && polars::try_check_utf8(black_box(&c.offsets64), black_box(values)),
            );
            for (name, t) in [("i32", t32), ("i64", t64)] {
                let best = t[1..4].iter().copied().fold(f64::INFINITY, f64::min);
                let ratio = best / t[0];
                ratios.push(ratio);
                same_work.push(t[4] / t[0]);
                println!(
                    "| {} | {} | {} | {:.1} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2}x | {:.2} | {:.2}x |",
                    kind.name,
                    rows,
                    name,
                    c.bytes as f64 / 1e6,
                    gbps(c.bytes, t[0]),
                    gbps(c.bytes, t[1]),
                    gbps(c.bytes, t[2]),
                    gbps(c.bytes, t[3]),
                    ratio,
                    gbps(c.bytes, t[4]),
                    t[4] / t[0]
                );
            }
        }
    }
    let min = ratios.iter().copied().fold(f64::INFINITY, f64::min);
    println!(
        "\nutf8check over the best of arrow-rs and Polars: geometric mean {:.2}x, lowest {:.2}x (targets: 1.3x, 1.0x)",
        measure::geomean(&ratios),
        min
    );
    println!(
        "utf8check over Polars with its offsets check (the same work): geometric mean {:.2}x, lowest {:.2}x\n",
        measure::geomean(&same_work),
        same_work.iter().copied().fold(f64::INFINITY, f64::min)
    );
}

fn bench_views(kinds: &[Kind]) {
    println!("## Views columns (GB/s of string bytes)\n");
    println!(
        "| column | rows | inline share | MB | utf8check | arrow-rs | Polars | utf8check / best |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let mut ratios = Vec::new();
    for kind in kinds {
        for rows in ROWS {
            let c = Column::new(&kind.text, &kind.ranges, rows);
            let inline = c.views.iter().filter(|&&v| v as u32 <= 12).count() as f64 / rows as f64;
            let t = interleave!(rounds(rows), true;
                || columnar::validate_views(black_box(&c.views), black_box(&c.buffers)).is_ok(),
                || arrow::validate_views(black_box(&c.views), black_box(&c.buffers)),
                || polars::validate_utf8_view(black_box(&c.views), black_box(&c.buffers)),
            );
            let best = t[1].min(t[2]);
            let ratio = best / t[0];
            ratios.push(ratio);
            println!(
                "| {} | {} | {:.0}% | {:.1} | {:.2} | {:.2} | {:.2} | {:.2}x |",
                kind.name,
                rows,
                inline * 100.0,
                c.bytes as f64 / 1e6,
                gbps(c.bytes, t[0]),
                gbps(c.bytes, t[1]),
                gbps(c.bytes, t[2]),
                ratio
            );
        }
    }
    let min = ratios.iter().copied().fold(f64::INFINITY, f64::min);
    println!(
        "\nutf8check over the best of arrow-rs and Polars: geometric mean {:.2}x, lowest {:.2}x (targets: 4x, 2x)\n",
        measure::geomean(&ratios),
        min
    );
}

/// One bad row (an 0xFF in its middle) at the start, the middle and the end of 1 Mi rows:
/// time of the failing call over the time of the valid column's.
fn bench_errors(kinds: &[Kind]) {
    println!("## Error path, 1 Mi rows (time with one bad row / time of the valid column)\n");
    println!("| column | layout | valid (ms) | bad row at start | middle | end |");
    println!("|---|---|---|---|---|---|");
    let rows = 1 << 20;
    let mut worst: f64 = 0.0;
    for kind in kinds {
        let c = Column::new(&kind.text, &kind.ranges, rows);
        let valid: &[u8] = &c.values;
        let bad_rows = [0, rows / 2, rows - 1];
        let spoiled: Vec<Vec<u8>> = bad_rows
            .iter()
            .map(|&row| {
                let mut v = valid.to_vec();
                let (a, b) = (c.offsets32[row] as usize, c.offsets32[row + 1] as usize);
                v[(a + b) / 2] = 0xFF;
                v
            })
            .collect();
        let r = rounds(rows);
        let (o, s) = (&c.offsets32, &spoiled);
        let t = interleave!(r, true;
            || columnar::validate_offsets(black_box(valid), black_box(o)).is_ok(),
            || columnar::validate_offsets(black_box(&s[0]), black_box(o)).is_err(),
            || columnar::validate_offsets(black_box(&s[1]), black_box(o)).is_err(),
            || columnar::validate_offsets(black_box(&s[2]), black_box(o)).is_err(),
        );
        for (i, &row) in bad_rows.iter().enumerate() {
            assert_eq!(columnar::validate_offsets(&s[i], o).unwrap_err().row(), row);
        }
        worst = worst.max(t[3] / t[0]);
        println!(
            "| {} | offsets i32 | {:.2} | {:.2} | {:.2} | {:.2} |",
            kind.name,
            t[0] * 1e3,
            t[1] / t[0],
            t[2] / t[0],
            t[3] / t[0]
        );
        // Views: the same rows spoiled, inline or in their buffer.
        let spoil_view = |row: usize| {
            let mut views = c.views.clone();
            let mut buffers: Vec<Vec<u8>> = c.buffers.iter().map(|b| b.to_vec()).collect();
            let v = views[row];
            let len = v as u32 as usize;
            if len <= 12 {
                let mut bytes = v.to_le_bytes();
                bytes[4 + len / 2] = 0xFF;
                views[row] = u128::from_le_bytes(bytes);
            } else {
                let (b, off) = ((v >> 64) as u32 as usize, (v >> 96) as u32 as usize);
                buffers[b][off + len / 2 + 2] = 0xFF;
            }
            let buffers: Vec<arrow_buffer::Buffer> = buffers
                .into_iter()
                .map(arrow_buffer::Buffer::from_vec)
                .collect();
            (views, buffers)
        };
        let sv: Vec<_> = bad_rows.iter().map(|&row| spoil_view(row)).collect();
        let t = interleave!(r, true;
            || columnar::validate_views(black_box(&c.views), black_box(&c.buffers)).is_ok(),
            || columnar::validate_views(black_box(&sv[0].0), black_box(&sv[0].1)).is_err(),
            || columnar::validate_views(black_box(&sv[1].0), black_box(&sv[1].1)).is_err(),
            || columnar::validate_views(black_box(&sv[2].0), black_box(&sv[2].1)).is_err(),
        );
        for (i, &row) in bad_rows.iter().enumerate() {
            assert_eq!(
                columnar::validate_views(&sv[i].0, &sv[i].1)
                    .unwrap_err()
                    .row(),
                row
            );
        }
        worst = worst.max(t[3] / t[0]);
        println!(
            "| {} | views | {:.2} | {:.2} | {:.2} | {:.2} |",
            kind.name,
            t[0] * 1e3,
            t[1] / t[0],
            t[2] / t[0],
            t[3] / t[0]
        );
    }
    println!("\nworst error path over valid path: {worst:.2} (target: at most 1.2)\n");
}
