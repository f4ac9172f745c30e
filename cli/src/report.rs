//! What the program prints about each input: the text lines, the names of invalid files,
//! or JSON Lines on standard output, and one-line problems on standard error.

use std::fmt::Write as _;
use std::io::{self, BufWriter, Stdout, Write};

use serde::Serialize;
use utf8check::ErrorKind;

use crate::check::{Invalid, Outcome};

/// The name of an [`ErrorKind`] in the output: stable `snake_case` words.
pub fn kind_name(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::UnexpectedContinuation => "unexpected_continuation",
        ErrorKind::InvalidByte => "invalid_byte",
        ErrorKind::Truncated => "truncated",
        ErrorKind::Overlong => "overlong",
        ErrorKind::Surrogate => "surrogate",
        ErrorKind::TooLarge => "too_large",
        ErrorKind::TooShort => "too_short",
        // `ErrorKind` is non-exhaustive; a kind added later is named here when it comes.
        _ => "other",
    }
}

/// Bytes as upper-case hex pairs separated by spaces: `E2 82`.
fn hex(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len() * 3);
    for (i, byte) in bytes.iter().enumerate() {
        let separator = if i == 0 { "" } else { " " };
        // Writing to a `String` cannot fail.
        let _ = write!(text, "{separator}{byte:02X}");
    }
    text
}

/// How results are printed on standard output.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// A line per invalid sequence; with `verbose`, a line per valid input too.
    Text { verbose: bool },
    /// The name of each invalid input (`-l`).
    FilesWithErrors,
    /// Nothing (`-q`).
    Quiet,
    /// A JSON object per input (`--json`).
    Json,
}

#[derive(Serialize)]
struct JsonInput<'a> {
    path: &'a str,
    valid: bool,
    bytes: u64,
    errors: Vec<JsonError>,
    truncated: bool,
}

#[derive(Serialize)]
struct JsonError {
    offset: u64,
    line: u64,
    column: u64,
    kind: &'static str,
    bytes: String,
}

impl From<&Invalid> for JsonError {
    fn from(invalid: &Invalid) -> JsonError {
        JsonError {
            offset: invalid.offset,
            line: invalid.line,
            column: invalid.column,
            kind: kind_name(invalid.kind),
            bytes: hex(&invalid.bytes),
        }
    }
}

#[derive(Serialize)]
struct JsonFailure<'a> {
    path: &'a str,
    error: &'a str,
}

/// Prints results as they come.
pub struct Reporter {
    format: Format,
    /// `--max-errors`, when given: a text report says when it stopped there.
    max_errors: Option<usize>,
    out: BufWriter<Stdout>,
}

impl Reporter {
    pub fn new(format: Format, max_errors: Option<usize>) -> Reporter {
        Reporter {
            format,
            max_errors,
            out: BufWriter::new(io::stdout()),
        }
    }

    /// Reports the outcome of checking the input `name`.
    ///
    /// # Errors
    /// Writing to standard output failed.
    pub fn outcome(&mut self, name: &str, outcome: &Outcome) -> io::Result<()> {
        match self.format {
            Format::Quiet => {}
            Format::FilesWithErrors if !outcome.is_valid() => writeln!(self.out, "{name}")?,
            Format::FilesWithErrors => {}
            Format::Text { verbose } => {
                if verbose && outcome.is_valid() {
                    writeln!(self.out, "{name}: valid UTF-8, {} bytes", outcome.len)?;
                }
                for invalid in &outcome.errors {
                    writeln!(
                        self.out,
                        "{name}:{}:{}: invalid UTF-8 ({}) at byte {}: {}",
                        invalid.line,
                        invalid.column,
                        kind_name(invalid.kind),
                        invalid.offset,
                        hex(&invalid.bytes)
                    )?;
                }
                if let (true, Some(max)) = (outcome.truncated, self.max_errors) {
                    self.problem(
                        name,
                        &format!("more invalid sequences after the first {max}"),
                    )?;
                }
            }
            Format::Json => {
                let input = JsonInput {
                    path: name,
                    valid: outcome.is_valid(),
                    bytes: outcome.len,
                    errors: outcome.errors.iter().map(JsonError::from).collect(),
                    truncated: outcome.truncated,
                };
                serde_json::to_writer(&mut self.out, &input)?;
                writeln!(self.out)?;
            }
        }
        // Results appear as each input is done, however long the next one takes.
        self.out.flush()
    }

    /// Reports that the input `name` could not be checked, on standard error (and as a
    /// JSON object with an `error` member in JSON mode).
    ///
    /// # Errors
    /// Writing to standard output failed.
    pub fn failure(&mut self, name: &str, reason: &str) -> io::Result<()> {
        if self.format == Format::Json {
            serde_json::to_writer(
                &mut self.out,
                &JsonFailure {
                    path: name,
                    error: reason,
                },
            )?;
            writeln!(self.out)?;
        }
        self.problem(name, reason)
    }

    /// Prints `utf8check: NAME: MESSAGE` on standard error, after what standard output
    /// has so far, so that a terminal shows both in order.
    fn problem(&mut self, name: &str, message: &str) -> io::Result<()> {
        self.out.flush()?;
        // Nothing sensible is left to do when standard error itself is closed.
        let _ = writeln!(io::stderr(), "utf8check: {name}: {message}");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_pairs() {
        assert_eq!(hex(b""), "");
        assert_eq!(hex(b"\x0F"), "0F");
        assert_eq!(hex(b"\xE2\x82\xAC"), "E2 82 AC");
    }
}
