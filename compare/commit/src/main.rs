//! The working tree's kernels against an earlier commit's, linked into one binary and
//! called directly, in interleaved rounds (each in an order of its own), medians. See
//! `run.sh`, which writes both copies: `new/` (the package `utf8check`) and `base/`
//! (`utf8check_base`), or, built with `UTF8CHECK_COMPARE_SWAPPED` set, the other way round,
//! so that each version runs from the other slot's place in the binary.

use std::hint::black_box;
use std::ops::Range;
use std::time::Instant;

#[path = "../../../benches/common/corpus.rs"]
mod corpus;
#[path = "../../../benches/common/measure.rs"]
mod measure;
#[path = "../../../benches/common/real.rs"]
mod real;

/// One implementation under test: `validate` for the scrub, `time` for the timed passes,
/// with the implementation called directly in its loop ([`contender!`]).
struct Contender {
    name: &'static str,
    validate: fn(&[u8]) -> bool,
    time: Timer,
}

/// Seconds for one pass over the pieces of some bytes (see [`time`]).
type Timer = fn(&[u8], &[Range<usize>]) -> f64;

/// A [`Contender`] named `$name` that validates with `$validate`. Its [`Timer`] calls
/// `$validate` directly in the timed loop: [`time`] is instantiated for it, so the call is
/// not through a function pointer, which would add about 1.4 ns to every call and hide
/// differences of that size between short-input paths.
macro_rules! contender {
    ($name:expr, $validate:expr) => {
        Contender {
            name: $name,
            validate: $validate,
            time: |bytes: &[u8], pieces: &[Range<usize>]| time($validate, bytes, pieces),
        }
    };
}

/// Runs every contender over the benchmarks' scrub text before each timed pass, as
/// `measure::scrub` does for the benchmarks: a pass repeated over the same bytes would
/// find the branch predictor trained on them (up to 1.6x faster on Zen 3), most of all
/// for the loops with a branch per block, and the input in L2. `UTF8CHECK_SCRUB` chooses
/// the scrub as for the benchmarks: `predictor` leaves the input in L2 (the speed of
/// inputs just written or read), `none` does nothing, `cache` only evicts the input.
fn scrub(all: &[&Contender]) {
    measure::evict_if_asked();
    let text = &measure::scrub_text().0;
    for range in measure::scrub_ranges() {
        for contender in all {
            black_box((contender.validate)(black_box(&text[range.clone()])));
        }
    }
}

/// Seconds for one pass of `validate` over the `pieces` of `bytes` (one call each), right
/// after a scrub.
#[inline(always)]
fn time(validate: impl Fn(&[u8]) -> bool, bytes: &[u8], pieces: &[Range<usize>]) -> f64 {
    let start = Instant::now();
    for piece in pieces {
        assert!(
            validate(black_box(&bytes[piece.clone()])),
            "an input is not UTF-8"
        );
    }
    start.elapsed().as_secs_f64()
}

/// Which copy holds which version: without `UTF8CHECK_COMPARE_SWAPPED` (at build time)
/// `utf8check` is the new one, with it `utf8check_base` is. Where a function lands in
/// the binary moves its speed: the same code in both copies read 0.82x to 1.24x in single
/// runs on the Zen 4 host, so `run.sh` builds both ways and takes the geometric mean.
const SWAPPED: bool = option_env!("UTF8CHECK_COMPARE_SWAPPED").is_some();

/// An input: its name, its bytes and the pieces validated one call each.
struct Input {
    name: String,
    bytes: Vec<u8>,
    pieces: Vec<Range<usize>>,
}

impl Input {
    /// `density:INSERT:SPACING:SIZE[:jittered]`, the density sweep's text
    /// (`benches/density.rs`: its four slices of `SIZE` bytes at odd offsets), or a file,
    /// whole or in pieces ([`Split`]).
    fn new(arg: &str, split: &Split) -> Input {
        if let Some(spec) = arg.strip_prefix("density:") {
            let fields: Vec<&str> = spec.split(':').collect();
            let number = |i: usize| -> usize {
                fields
                    .get(i)
                    .and_then(|f| f.parse().ok())
                    .unwrap_or_else(|| panic!("{arg}: not density:INSERT:SPACING:SIZE[:jittered]"))
            };
            let (spacing, size) = (number(1), number(2));
            let jittered = fields.get(3) == Some(&"jittered");
            let bytes = corpus::sweep_text(fields[0], spacing, jittered, size);
            let pieces = corpus::sweep_slices(&bytes, size);
            return Input {
                name: arg.to_string(),
                bytes,
                pieces,
            };
        }
        let bytes = std::fs::read(arg).unwrap_or_else(|e| panic!("{arg}: {e}"));
        let pieces = match *split {
            Split::Slices(len) => real::slices_of(len)(&bytes),
            Split::Lines(ref lengths) => real::lines_of_lengths(lengths.clone())(&bytes),
            Split::Whole => std::iter::once(0..bytes.len()).collect(),
        };
        Input {
            name: arg.rsplit('/').next().unwrap_or(arg).to_string(),
            bytes,
            pieces,
        }
    }

    /// `JOIN=1`: every input's pieces as one input, in one buffer, as the real-text
    /// benchmark takes its pieces from all files together (`real::pieces`). A pass then
    /// reads more than L2 holds, where one file's pieces may stay in it.
    fn joined(args: &[String], split: &Split) -> Input {
        let inputs: Vec<Input> = args.iter().map(|arg| Input::new(arg, split)).collect();
        let (bytes, pieces) = real::joined(
            inputs
                .iter()
                .map(|input| (&input.bytes[..], input.pieces.clone())),
        );
        Input {
            name: format!("{} inputs joined", args.len()),
            bytes,
            pieces,
        }
    }
}

/// `JOIN`: `1` joins every input's pieces into one input ([`Input::joined`]); unset,
/// empty or `0` does not.
fn joins() -> bool {
    match std::env::var("JOIN").as_deref() {
        Err(_) | Ok("") | Ok("0") => false,
        Ok("1") => true,
        Ok(other) => panic!("JOIN={other}: 1 or 0"),
    }
}

/// How a file is validated: whole, or in pieces, one call each.
enum Split {
    Whole,
    /// `PIECES=n`: the real-text benchmark's slices of exactly `n` bytes at character
    /// boundaries.
    Slices(usize),
    /// `LINES=lo-hi`: the lines (without their `\n`) of `lo` to `hi - 1` bytes, as the
    /// real-text benchmark's lines by length.
    Lines(Range<usize>),
}

impl Split {
    fn from_env() -> Split {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        match (var("PIECES"), var("LINES")) {
            (Some(_), Some(_)) => panic!("PIECES and LINES: set one of them"),
            (Some(n), None) => Split::Slices(
                n.parse()
                    .unwrap_or_else(|_| panic!("PIECES={n}: not a length")),
            ),
            (None, Some(band)) => {
                let bounds = band
                    .split_once('-')
                    .and_then(|(lo, hi)| Some(lo.parse().ok()?..hi.parse().ok()?))
                    .filter(|lengths: &Range<usize>| lengths.start < lengths.end);
                Split::Lines(bounds.unwrap_or_else(|| panic!("LINES={band}: not lo-hi")))
            }
            (None, None) => Split::Whole,
        }
    }

    fn describe(&self) -> String {
        match self {
            Split::Whole => String::from("whole files"),
            Split::Slices(n) => format!("files in {n}-byte pieces, one call each"),
            Split::Lines(b) => {
                format!("lines of {} to {} bytes, one call each", b.start, b.end - 1)
            }
        }
    }
}

/// `[base, new, peer]`, named `names`, from the two copies' contenders (`utf8check`'s
/// first).
fn by_role(names: [&'static str; 2], copies: [Contender; 2], peer: Contender) -> [Contender; 3] {
    let [first, second] = copies;
    let [base, new] = if SWAPPED {
        [first, second]
    } else {
        [second, first]
    };
    [
        Contender {
            name: names[0],
            ..base
        },
        Contender {
            name: names[1],
            ..new
        },
        peer,
    ]
}

/// The contenders in groups of three: base, new, simdutf8's matching kernel (for the
/// public `is_valid`, with its dispatch and short-input paths, `simdutf8::basic`; for the
/// public `from_utf8`, `simdutf8::compat`, which also finds the exact error).
fn contenders() -> Vec<[Contender; 3]> {
    let mut groups = vec![by_role(
        ["is_valid base", "is_valid new"],
        [
            contender!("", utf8check::is_valid),
            contender!("", utf8check_base::is_valid),
        ],
        contender!("simdutf8-basic", |v| simdutf8::basic::from_utf8(v).is_ok()),
    )];
    groups.push(by_role(
        ["from_utf8 base", "from_utf8 new"],
        [
            contender!("", |v| utf8check::from_utf8(v).is_ok()),
            contender!("", |v| utf8check_base::from_utf8(v).is_ok()),
        ],
        contender!("simdutf8-compat", |v| simdutf8::compat::from_utf8(v)
            .is_ok()),
    ));
    if utf8check::Kernel::Avx2.is_supported() {
        groups.push(by_role(
            ["avx2 base", "avx2 new"],
            [
                contender!("", |v| utf8check::Kernel::Avx2.is_valid(v)),
                contender!("", |v| utf8check_base::Kernel::Avx2.is_valid(v)),
            ],
            contender!("simdutf8-basic", |v| simdutf8::basic::from_utf8(v).is_ok()),
        ));
    }
    #[cfg(target_arch = "x86_64")]
    if utf8check::Kernel::Sse41.is_supported() && measure::has_sse42() {
        groups.push(by_role(
            ["sse4.1 base", "sse4.1 new"],
            [
                contender!("", |v| utf8check::Kernel::Sse41.is_valid(v)),
                contender!("", |v| utf8check_base::Kernel::Sse41.is_valid(v)),
            ],
            contender!("simdutf8-sse42", measure::simdutf8_sse42),
        ));
    }
    groups
}

fn main() {
    measure::shift_code();
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(31);
    let split = Split::from_env();
    // Where `run.sh` collects every build's ratios, one line per input and group.
    let mut ratios_out = std::env::var("COMPARE_RATIOS").ok().map(|path| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .unwrap_or_else(|e| panic!("{path}: {e}"))
    });
    let args: Vec<String> = std::env::args().skip(1).collect();
    let groups = contenders();
    let all: Vec<&Contender> = groups.iter().flatten().collect();
    let mut header = String::from("| input |");
    for group in &groups {
        header += &format!(
            " {} | {} | {} | new / base | new / {} |",
            group[0].name, group[1].name, group[2].name, group[2].name
        );
    }
    let what = split.describe();
    let slots = if SWAPPED {
        "the new version in the second copy"
    } else {
        "the new version in the first copy"
    };
    println!(
        "GB/s ({what}), medians of {rounds} interleaved rounds, {slots}, code shifted by {} bytes\n\n{header}",
        measure::SHIFT
    );
    println!("|---|{}", "---:|".repeat(5 * groups.len()));
    let mut log_sums = vec![[0.0f64; 2]; groups.len()];
    let mut rows = 0;
    // One input at a time, each read when its turn comes, or all joined in one.
    let inputs: Box<dyn Iterator<Item = Input>> = if joins() {
        Box::new(std::iter::once(Input::joined(&args, &split)))
    } else {
        Box::new(args.iter().map(|arg| Input::new(arg, &split)))
    };
    for Input {
        name,
        bytes,
        pieces,
    } in inputs
    {
        let piece_bytes: usize = pieces.iter().map(|r| r.len()).sum();
        if piece_bytes == 0 {
            // (A file without such pieces, lines of those lengths or a slice: no row,
            // and no NaN in the means.)
            continue;
        }
        let mut times = vec![Vec::with_capacity(rounds); all.len()];
        for round in 0..rounds {
            for i in measure::round_order(round, all.len()) {
                scrub(&all);
                times[i].push((all[i].time)(&bytes, &pieces));
            }
        }
        let medians: Vec<f64> = times.into_iter().map(measure::median).collect();
        let mut row = format!("| {name} |");
        for (g, sums) in log_sums.iter_mut().enumerate() {
            let [base, new, peer] = [medians[3 * g], medians[3 * g + 1], medians[3 * g + 2]];
            let gbs = |t: f64| piece_bytes as f64 / t / 1e9;
            row += &format!(
                " {:.2} | {:.2} | {:.2} | {:.3}x | {:.3}x |",
                gbs(base),
                gbs(new),
                gbs(peer),
                base / new,
                peer / new
            );
            sums[0] += (base / new).ln();
            sums[1] += (peer / new).ln();
            if let Some(out) = ratios_out.as_mut() {
                use std::io::Write as _;
                writeln!(
                    out,
                    "{name}\t{}\t{}\t{}",
                    groups[g][1].name,
                    base / new,
                    peer / new
                )
                .expect("write COMPARE_RATIOS");
            }
        }
        println!("{row}");
        rows += 1;
    }
    if rows == 0 {
        println!("\nNo input has such pieces.");
        return;
    }
    let n = rows as f64;
    for (group, sums) in groups.iter().zip(&log_sums) {
        println!(
            "\n{}: geometric mean new / base {:.3}x, new / {} {:.3}x",
            group[1].name,
            (sums[0] / n).exp(),
            group[2].name,
            (sums[1] / n).exp()
        );
    }
}
