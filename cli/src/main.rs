//! `utf8check`: checks that files, directories and pipes are UTF-8, and says exactly where
//! and why they are not. `utf8check --help` documents the behaviour; the modules:
//!
//! * `inputs`: walking directories, opening inputs, mapping or streaming them;
//! * `check`: validating one input and locating its invalid sequences;
//! * `repair`: `--repair`, writing inputs with their invalid sequences replaced;
//! * `report`: text, `-l` and JSON output;
//! * `progress`: the progress bar of slow inputs;
//! * `sigbus`: a clean exit when a mapped file shrinks while being read.

#![warn(clippy::undocumented_unsafe_blocks)]

mod check;
mod inputs;
mod progress;
mod repair;
mod report;
mod sigbus;

use std::io::{self, Write};
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use utf8check::Kernel;

use check::Engine;
use inputs::{describe, Inputs, Settings};
use report::{Format, Reporter};

const AFTER_HELP: &str = "\
OUTPUT:
  For each invalid sequence (only the first one of a file without --all):
    PATH:LINE:COLUMN: invalid UTF-8 (KIND) at byte OFFSET: XX XX
  LINE and COLUMN count from 1; lines end at \\n (CRLF files count the same); COLUMN
  counts characters, each earlier invalid sequence on the line counting as one, as lossy
  decoding shows it. OFFSET counts bytes from 0. The hex bytes are the invalid sequence
  (the bytes lossy decoding replaces with one U+FFFD), or the unfinished sequence at the
  end of the input. Standard input is named <stdin>.

  KIND is one of:
    unexpected_continuation  a continuation byte (80..BF) where a character should start
    invalid_byte             a byte that never occurs in UTF-8 (C0, C1, F5..FF)
    truncated                the input ends inside a multi-byte sequence
    overlong                 an overlong encoding (E0 80..9F, F0 80..8F)
    surrogate                an encoded UTF-16 surrogate (ED A0..BF)
    too_large                a code point above U+10FFFF (F4 90..BF)
    too_short                a sequence cut short by a byte that is not a continuation byte

  --json prints one JSON object per input and line:
    {\"path\":\"a.txt\",\"valid\":false,\"bytes\":1234,\"errors\":[{\"offset\":7,\"line\":1,
     \"column\":8,\"kind\":\"invalid_byte\",\"bytes\":\"FF\"}],\"truncated\":false}
  \"truncated\" is true when the input has more invalid sequences than listed. An input
  that cannot be checked gives {\"path\":...,\"error\":\"reason\"}.

  Problems (missing or unreadable files, directories without -r, files that change while
  being checked) are reported on standard error as `utf8check: PATH: REASON`, and the
  other inputs are still checked.

INPUTS:
  Regular files are memory-mapped (small ones are read) and large ones validated on all
  threads; pipes, FIFOs and terminals are streamed. With -r, directories are walked in
  name order; symbolic links (unless -L), FIFOs, sockets and devices met while walking are
  skipped. A file that shrinks while mapped cannot be read to its end: that is reported as
  a problem; use --no-mmap for files that are still being written.

REPAIR:
  --repair writes every input to standard output, one after the other as `cat` does, with
  each invalid sequence (the bytes listed above, as lossy decoding finds them) replaced by
  U+FFFD; --repair=drop removes them instead, as `iconv -c` does. Nothing else is printed
  on standard output; problems go to standard error as usual, and the other inputs are
  still written. Exit status: 0 if nothing needed repair, 1 if something did, 2 if an
  input could not be read.

EXIT STATUS:
  0  every input is valid UTF-8
  1  some input is not valid UTF-8
  2  a usage error, or some input could not be checked (this wins over 1)
  If standard output is closed early (`utf8check -l -r . | head -1`), the program stops
  quietly with the status of what it found so far.

EXAMPLES:
  utf8check notes.txt                  check one file
  utf8check -r --stats data/           check a tree, print the speed
  utf8check -l -r . | xargs ...        list invalid files
  utf8check --all --max-errors 10 f    the first 10 invalid sequences of f
  zcat dump.gz | utf8check             check a stream
  utf8check --repair a.txt > fixed.txt  replace invalid sequences with U+FFFD
  utf8check --repair=drop < in > out   remove them
  utf8check --json -r logs | jq ...    machine-readable results";

/// Check that files are valid UTF-8, fast, and say exactly where and why they are not.
///
/// Prints nothing for valid inputs (unless -v), a line per problem otherwise, and sets the
/// exit status: 0 all valid, 1 some invalid, 2 on errors.
#[derive(Parser, Debug)]
#[command(name = "utf8check", version, after_long_help = AFTER_HELP)]
#[command(after_help = "Output format, JSON, exit status and examples: utf8check --help")]
struct Args {
    /// Files (or directories, with -r) to check; `-` or none reads standard input
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,

    /// Check the files in directories, recursively
    #[arg(short, long)]
    recursive: bool,

    /// Follow symbolic links while walking directories (loops are detected)
    #[arg(short = 'L', long, requires = "recursive")]
    follow: bool,

    /// Report every invalid sequence of each file, not just the first
    ///
    /// After an invalid sequence, checking resumes right after it, as lossy decoding
    /// (one U+FFFD per invalid sequence) does.
    #[arg(short, long)]
    all: bool,

    /// Report at most N invalid sequences per file (implies --all)
    #[arg(short, long, value_name = "N")]
    max_errors: Option<NonZeroUsize>,

    /// Print only the names of invalid files, one per line
    #[arg(short = 'l', long, conflicts_with_all = ["quiet", "json", "verbose"])]
    files_with_errors: bool,

    /// Print nothing on standard output; only the exit status tells
    #[arg(short, long, conflicts_with_all = ["json", "verbose"])]
    quiet: bool,

    /// Also print a line for each valid input
    #[arg(short, long)]
    verbose: bool,

    /// Print one JSON object per input (JSON Lines); see --help for the fields
    #[arg(long)]
    json: bool,

    /// Print bytes, time, speed, kernel and threads on standard error at the end
    #[arg(long)]
    stats: bool,

    /// Validate with this kernel: scalar, sse4.1, avx2, avx512 (x86) or neon (Arm)
    ///
    /// The default is the fastest kernel this CPU supports, on all threads for large
    /// files. A named kernel runs on one thread, for every input. Naming a kernel this
    /// CPU cannot run is an error.
    #[arg(long, value_name = "NAME", value_parser = parse_kernel)]
    kernel: Option<Kernel>,

    /// Validate large files on N threads (default: one per CPU)
    #[arg(short = 'j', long, value_name = "N")]
    threads: Option<NonZeroUsize>,

    /// Read regular files instead of memory-mapping them (slower; safe for files that
    /// are being written to)
    #[arg(long)]
    no_mmap: bool,

    /// Write the inputs to standard output with each invalid sequence replaced by U+FFFD
    /// (`--repair=drop`: removed); see --help
    #[arg(
        long,
        value_name = "HOW",
        value_enum,
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "replace",
        conflicts_with_all = ["all", "max_errors", "files_with_errors", "quiet", "verbose", "json", "kernel"]
    )]
    repair: Option<repair::Mode>,
}

/// Parses `--kernel`: a kernel's name, which this CPU must support.
fn parse_kernel(name: &str) -> Result<Kernel, String> {
    let available = || {
        Kernel::available()
            .map(Kernel::name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let kernel: Kernel = name
        .parse()
        .map_err(|err| format!("{err}; this CPU runs: {}", available()))?;
    if !kernel.is_supported() {
        return Err(format!(
            "this CPU cannot run the {kernel} kernel; it runs: {}",
            available()
        ));
    }
    Ok(kernel)
}

fn main() -> ExitCode {
    let args = Args::parse();
    let started = Instant::now();
    if let Some(threads) = args.threads {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.get());
        if let Err(err) = pool.build_global() {
            let _ = writeln!(
                io::stderr(),
                "utf8check: cannot start {threads} threads: {err}"
            );
            return ExitCode::from(2);
        }
    }
    sigbus::install();

    let format = if args.quiet || args.repair.is_some() {
        Format::Quiet
    } else if args.files_with_errors {
        Format::FilesWithErrors
    } else if args.json {
        Format::Json
    } else {
        Format::Text {
            verbose: args.verbose,
        }
    };
    let engine = args.kernel.map_or(Engine::Fastest, Engine::Kernel);
    let max_errors = args.max_errors.map(NonZeroUsize::get);
    let settings = Settings {
        engine,
        limit: max_errors.unwrap_or(if args.all { usize::MAX } else { 1 }),
        recursive: args.recursive,
        follow: args.follow,
        mmap: !args.no_mmap,
        progress: !args.quiet,
        repair: args.repair,
    };
    let mut inputs = Inputs::new(settings, Reporter::new(format, max_errors));

    let stdin_only = [PathBuf::from("-")];
    let paths = if args.paths.is_empty() {
        &stdin_only[..]
    } else {
        &args.paths[..]
    };
    let mut output_closed = false;
    for path in paths {
        let result = if path.as_os_str() == "-" {
            inputs.stdin()
        } else {
            inputs.path(path)
        };
        if let Err(err) = result {
            // Nobody reads the output any more: stop. Any other write error is a failure.
            if err.kind() != io::ErrorKind::BrokenPipe {
                let _ = writeln!(io::stderr(), "utf8check: cannot write: {}", describe(&err));
                inputs.any_failure = true;
            }
            output_closed = true;
            break;
        }
    }

    if args.stats && !output_closed {
        let seconds = started.elapsed().as_secs_f64();
        let _ = writeln!(
            io::stderr(),
            "utf8check: {} inputs, {} bytes in {:.3} s, {:.2} GB/s, kernel {}, {} threads",
            inputs.checked,
            inputs.bytes,
            seconds,
            inputs.bytes as f64 / seconds.max(1e-9) / 1e9,
            engine.kernel(),
            engine.threads(),
        );
    }
    if inputs.any_failure {
        ExitCode::from(2)
    } else if inputs.any_invalid {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
