//! From the command line's paths to checked inputs: walking directories, opening files,
//! and choosing how each input is read.
//!
//! * A regular file of at least [`MAP_FROM`] bytes is memory-mapped and validated in
//!   place. Smaller regular files are read into a reused buffer, which is cheaper than
//!   mapping them; this also covers empty files (a mapping cannot be empty) and files
//!   such as those in `/proc` that say they are empty but are not.
//! * Anything else that can be read (a pipe, a FIFO, a terminal, a character device) is
//!   streamed in large reads, and so is every file with `--no-mmap`.
//! * Standard input is treated the same way: `utf8check < file` maps the file (from the
//!   current position of standard input).
//!
//! # Files that change while they are mapped
//! A mapped file's length and modification time are read before and after it is
//! validated; if either changed, the input is reported as an error (exit status 2), not
//! as valid or invalid, since the bytes seen may mix two versions. A file that *shrinks*
//! while mapped is worse: reading a page past its new end raises `SIGBUS`, which would
//! kill the process; [`crate::sigbus`] turns that into a one-line message naming the file
//! and exit status 2. `--no-mmap` avoids both for files that are being written to.

use std::fs::{self, File, Metadata};
use std::io::{self, BufWriter, Read, Write};
use std::path::Path;

use memmap2::{Advice, Mmap, MmapOptions};
use walkdir::WalkDir;

use crate::check::{check_slice, check_stream, Engine, Outcome};
use crate::progress::Progress;
use crate::repair::{self, repair_slice, repair_stream, StreamError};
use crate::report::Reporter;
use crate::sigbus;

/// Regular files at least this long are mapped; shorter ones are read.
pub const MAP_FROM: u64 = 64 << 10;

/// The name under which standard input is reported.
pub const STDIN_NAME: &str = "<stdin>";

/// How the inputs are checked.
#[derive(Clone, Debug)]
pub struct Settings {
    pub engine: Engine,
    /// The most invalid sequences listed per input.
    pub limit: usize,
    pub recursive: bool,
    /// Follow symbolic links met while walking directories.
    pub follow: bool,
    /// Map regular files (not `--no-mmap`).
    pub mmap: bool,
    /// Show progress bars (not `--quiet`).
    pub progress: bool,
    /// `--repair`: write the inputs, repaired, to standard output instead of checking.
    pub repair: Option<repair::Mode>,
}

/// The size of the buffer of the repaired output.
const OUTPUT_BUFFER: usize = 1 << 20;

/// Why an input could not be checked: a one-line reason.
type Failure = String;

/// Checks inputs one after the other and remembers what it found.
pub struct Inputs {
    settings: Settings,
    reporter: Reporter,
    /// The buffer small files are read into.
    buffer: Vec<u8>,
    /// With `--repair`: standard output, and the error that stopped writing to it.
    output: Option<BufWriter<Box<dyn Write>>>,
    output_error: Option<io::Error>,
    /// Inputs checked, and their bytes.
    pub checked: u64,
    pub bytes: u64,
    /// Was any input invalid? Could any not be checked?
    pub any_invalid: bool,
    pub any_failure: bool,
}

impl Inputs {
    pub fn new(settings: Settings, reporter: Reporter) -> Inputs {
        let output = settings
            .repair
            .map(|_| BufWriter::with_capacity(OUTPUT_BUFFER, stdout_writer()));
        Inputs {
            settings,
            reporter,
            buffer: Vec::new(),
            output,
            output_error: None,
            checked: 0,
            bytes: 0,
            any_invalid: false,
            any_failure: false,
        }
    }

    /// Checks a path from the command line: a file, or with `-r` a directory's files, in
    /// the order of their names.
    ///
    /// # Errors
    /// Only when writing to standard output fails: a problem with an input is reported,
    /// and the next one is checked.
    pub fn path(&mut self, path: &Path) -> io::Result<()> {
        if !(self.settings.recursive && fs::metadata(path).is_ok_and(|meta| meta.is_dir())) {
            return self.file(path);
        }
        let walk = WalkDir::new(path)
            .follow_links(self.settings.follow)
            .sort_by_file_name();
        for entry in walk {
            match entry {
                Ok(entry) if entry.file_type().is_file() => self.file(entry.path())?,
                // Directories are walked into. Links that are not followed, FIFOs (which
                // could block), devices and sockets are not checked.
                Ok(_) => {}
                Err(err) => {
                    let name = err.path().unwrap_or(path).display().to_string();
                    let reason = match (err.loop_ancestor(), err.io_error()) {
                        (Some(ancestor), _) => {
                            format!("link loop (back to {})", ancestor.display())
                        }
                        (None, Some(io)) => describe(io),
                        (None, None) => err.to_string(),
                    };
                    self.failed(&name, &reason)?;
                }
            }
        }
        Ok(())
    }

    /// Checks standard input.
    ///
    /// # Errors
    /// As [`Inputs::path`].
    pub fn stdin(&mut self) -> io::Result<()> {
        let result = self.check_stdin();
        self.report(STDIN_NAME, result)
    }

    #[cfg(unix)]
    fn check_stdin(&mut self) -> Result<Outcome, Failure> {
        use std::io::Seek;
        use std::os::fd::AsFd;

        // A duplicate of descriptor 0 as a `File`, to map it if it is a regular file.
        let fd = io::stdin()
            .as_fd()
            .try_clone_to_owned()
            .map_err(|e| describe(&e))?;
        let mut file = File::from(fd);
        let offset = match file.metadata() {
            Ok(meta) if meta.is_file() => file.stream_position().unwrap_or(0),
            _ => 0,
        };
        self.check_file(STDIN_NAME, &file, offset)
    }

    #[cfg(not(unix))]
    fn check_stdin(&mut self) -> Result<Outcome, Failure> {
        self.check_reader(STDIN_NAME, &mut io::stdin().lock(), None, true)
    }

    /// Checks the file at `path`.
    fn file(&mut self, path: &Path) -> io::Result<()> {
        let name = path.display().to_string();
        let result = File::open(path)
            .map_err(|err| describe(&err))
            .and_then(|file| self.check_file(&name, &file, 0));
        self.report(&name, result)
    }

    /// Checks an open file from byte `offset` on, choosing how to read it.
    fn check_file(&mut self, name: &str, file: &File, offset: u64) -> Result<Outcome, Failure> {
        let before = file.metadata().map_err(|err| describe(&err))?;
        if before.is_dir() {
            return Err("is a directory (use -r to check the files in it)".into());
        }
        if !before.is_file() {
            return self.check_reader(name, &mut &*file, None, drains(&before));
        }
        let len = before.len().saturating_sub(offset);
        match usize::try_from(len) {
            Ok(len) if self.settings.mmap && len as u64 >= MAP_FROM => {
                self.check_mapped(name, file, &before, offset, len)
            }
            _ if !self.settings.mmap => self.check_reader(name, &mut &*file, Some(len), true),
            _ => {
                // Small (or, on a 32-bit system, too large to map): read it.
                let mut buffer = std::mem::take(&mut self.buffer);
                buffer.clear();
                let result = (&*file).read_to_end(&mut buffer);
                let outcome = result.map(|_| self.check_bytes(name, &buffer));
                self.buffer = buffer;
                outcome.map_err(|err| describe(&err))
            }
        }
    }

    /// Maps `len` bytes of `file` from `offset` on and checks them.
    fn check_mapped(
        &mut self,
        name: &str,
        file: &File,
        before: &Metadata,
        offset: u64,
        len: usize,
    ) -> Result<Outcome, Failure> {
        // SAFETY: the mapping is only read, through the slice that `check_bytes` borrows
        // for the duration of the check. Another process may still change the file
        // meanwhile: the length and modification time are compared afterwards and a
        // change is reported instead of the result, and a shrinking file's `SIGBUS` is
        // caught by `sigbus` (see the module documentation).
        let map: Mmap = unsafe { MmapOptions::new().offset(offset).len(len).map(file) }
            .map_err(|err| format!("cannot map: {}", describe(&err)))?;
        // Only a hint to the kernel's read-ahead: its failure changes nothing.
        let _ = map.advise(Advice::Sequential);
        let watch = sigbus::Watch::new(&map, name);
        let outcome = self.check_bytes(name, &map);
        drop(watch);
        drop(map);
        let after = file.metadata().map_err(|err| describe(&err))?;
        if after.len() != before.len() {
            return Err(format!(
                "changed size while being checked ({} bytes, then {}); try again, or use --no-mmap",
                before.len(),
                after.len()
            ));
        }
        if after.modified().ok() != before.modified().ok() {
            return Err("was modified while being checked; try again".into());
        }
        Ok(outcome)
    }

    /// Checks (or repairs) bytes in memory, with a progress bar if it takes long.
    fn check_bytes(&mut self, name: &str, data: &[u8]) -> Outcome {
        let mut progress = Progress::new(name, Some(data.len() as u64), self.settings.progress);
        if let (Some(mode), Some(out)) = (self.settings.repair, &mut self.output) {
            let result = repair_slice(data, mode, out, &mut |done| progress.set(done));
            progress.finish();
            let repaired = result.unwrap_or_else(|err| {
                self.output_error = Some(err);
                0
            });
            return Outcome::repaired(data.len() as u64, repaired);
        }
        let outcome = check_slice(
            data,
            self.settings.engine,
            self.settings.limit,
            &mut |done| progress.set(done),
        );
        progress.finish();
        outcome
    }

    /// Streams `reader` (`len` bytes long, if known) and checks it; `drain`: read it to
    /// its end even when nothing more is to be found (see [`drains`]).
    fn check_reader(
        &mut self,
        name: &str,
        reader: &mut dyn Read,
        len: Option<u64>,
        drain: bool,
    ) -> Result<Outcome, Failure> {
        let mut progress = Progress::new(name, len, self.settings.progress);
        if let (Some(mode), Some(out)) = (self.settings.repair, &mut self.output) {
            let result = repair_stream(reader, mode, out, &mut |done| progress.set(done));
            progress.finish();
            return match result {
                Ok((repaired, len)) => Ok(Outcome::repaired(len, repaired)),
                Err(StreamError::Read(err)) => Err(format!("read error: {}", describe(&err))),
                Err(StreamError::Write(err)) => {
                    self.output_error = Some(err);
                    Ok(Outcome::default())
                }
            };
        }
        let (engine, limit) = (self.settings.engine, self.settings.limit);
        let outcome = check_stream(reader, engine, limit, drain, &mut |done| progress.set(done));
        progress.finish();
        outcome.map_err(|err| format!("read error: {}", describe(&err)))
    }

    /// Reports the result of checking the input `name`.
    fn report(&mut self, name: &str, result: Result<Outcome, Failure>) -> io::Result<()> {
        // With `--repair`, the input's text comes first, then any problem with it.
        if let Some(err) = self.output_error.take() {
            return Err(err);
        }
        if let Some(out) = &mut self.output {
            out.flush()?;
        }
        match result {
            Ok(outcome) => {
                self.checked += 1;
                self.bytes += outcome.len;
                self.any_invalid |= !outcome.is_valid();
                self.reporter.outcome(name, &outcome)
            }
            Err(reason) => self.failed(name, &reason),
        }
    }

    fn failed(&mut self, name: &str, reason: &str) -> io::Result<()> {
        self.any_failure = true;
        self.reporter.failure(name, reason)
    }
}

/// Is a stream of this type read to its end once the check is done? Pipes, FIFOs and
/// sockets are, so that the program writing to them does not fail (and the byte count is
/// whole); character devices are not, since `/dev/urandom` has no end.
fn drains(meta: &Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        !meta.file_type().is_char_device()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        true
    }
}

/// Standard output for the repaired text: on Unix a duplicate of descriptor 1, written
/// to without the line buffering of `io::stdout()`.
fn stdout_writer() -> Box<dyn Write> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = io::stdout().as_fd().try_clone_to_owned() {
            return Box::new(File::from(fd));
        }
    }
    Box::new(io::stdout())
}

/// An I/O error's message without the "(os error N)" that `io::Error` appends.
pub fn describe(err: &io::Error) -> String {
    let message = err.to_string();
    match err.raw_os_error() {
        Some(code) => message
            .strip_suffix(&format!(" (os error {code})"))
            .unwrap_or(&message)
            .to_owned(),
        None => message,
    }
}
