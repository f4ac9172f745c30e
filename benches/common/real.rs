//! The real-text corpus of the benchmarks (built by `benches/corpus/real.sh`) and the
//! inputs cut from it: whole files, lines, words, JSON string fields and 64-byte slices.
//!
//! Files are grouped into classes by their share of all-ASCII 64-byte blocks, the
//! quantity that decides how often a validator switches between its ASCII path and its
//! full check.
//!
//! Shared by the benchmarks with `#[path = "common/real.rs"] mod real;`.

#![allow(dead_code)] // each benchmark uses part of it

use std::ops::Range;
use std::path::PathBuf;

/// The corpus directory: `$UTF8CHECK_REAL_CORPUS`, else `target/corpus/real`.
pub fn dir() -> PathBuf {
    match std::env::var_os("UTF8CHECK_REAL_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/corpus/real"),
    }
}

/// A class of text by its share of all-ASCII 64-byte blocks.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// Under a quarter of the blocks are ASCII (Cyrillic, Czech, Bulgarian prose).
    Dense,
    /// A quarter to 60% (CJK HTML, word lists, most man pages, Polish and Spanish prose).
    Mixed,
    /// 60% and more (HTML in Latin-script languages, Italian man pages, plain ASCII).
    MostlyAscii,
}

impl Class {
    pub const ALL: [Class; 3] = [Class::Dense, Class::Mixed, Class::MostlyAscii];

    pub fn of(ascii_blocks: f64) -> Class {
        if ascii_blocks < 0.25 {
            Class::Dense
        } else if ascii_blocks < 0.6 {
            Class::Mixed
        } else {
            Class::MostlyAscii
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Class::Dense => "dense",
            Class::Mixed => "mixed",
            Class::MostlyAscii => "mostly-ascii",
        }
    }
}

/// One file of the corpus.
pub struct File {
    pub name: String,
    pub bytes: Vec<u8>,
    /// The share of its 64-byte blocks that are all ASCII.
    pub ascii_blocks: f64,
    pub class: Class,
}

/// The share of the whole 64-byte blocks of `bytes` that are all ASCII.
pub fn ascii_block_share(bytes: &[u8]) -> f64 {
    let blocks = bytes.chunks_exact(64);
    let total = blocks.len().max(1);
    blocks.filter(|block| block.is_ascii()).count() as f64 / total as f64
}

/// Every file of the corpus, sorted by name; exits with instructions if there is none.
pub fn files() -> Vec<File> {
    let dir = dir();
    let mut paths: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries.filter_map(|e| e.ok()).map(|e| e.path()).collect(),
        Err(_) => Vec::new(),
    };
    paths.sort();
    if paths.is_empty() {
        eprintln!(
            "no real-text corpus in {}: build it with benches/corpus/real.sh (or point \
             UTF8CHECK_REAL_CORPUS at one)",
            dir.display()
        );
        std::process::exit(2);
    }
    paths
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).expect("read a corpus file");
            assert!(
                std::str::from_utf8(&bytes).is_ok(),
                "{} is not UTF-8",
                path.display()
            );
            let ascii_blocks = ascii_block_share(&bytes);
            File {
                name: path.file_name().unwrap().to_string_lossy().into_owned(),
                class: Class::of(ascii_blocks),
                ascii_blocks,
                bytes,
            }
        })
        .collect()
}

/// The files one after the other in one buffer, with the ranges of the pieces `split`
/// cuts from each (offsets into the file); pieces keep their position (and so their
/// alignment) within their file.
pub fn pieces(
    files: &[File],
    split: impl Fn(&[u8]) -> Vec<Range<usize>>,
) -> (Vec<u8>, Vec<Range<usize>>) {
    joined(
        files
            .iter()
            .map(|file| (&file.bytes[..], split(&file.bytes))),
    )
}

/// Texts one after the other in one buffer, each with its pieces (offsets into the text),
/// and the pieces' ranges in the buffer: [`pieces`], and `compare/commit`'s `JOIN=1`.
pub fn joined<'a>(
    texts: impl IntoIterator<Item = (&'a [u8], Vec<Range<usize>>)>,
) -> (Vec<u8>, Vec<Range<usize>>) {
    let mut buffer = Vec::new();
    let mut ranges = Vec::new();
    for (bytes, pieces) in texts {
        let base = buffer.len();
        buffer.extend_from_slice(bytes);
        ranges.extend(pieces.into_iter().map(|r| base + r.start..base + r.end));
    }
    (buffer, ranges)
}

/// Every line (without its `\n`), one piece each; empty lines are left out.
pub fn lines(bytes: &[u8]) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' {
            if i > start {
                ranges.push(start..i);
            }
            start = i + 1;
        }
    }
    if start < bytes.len() {
        ranges.push(start..bytes.len());
    }
    ranges
}

/// Every word: a maximal run of bytes that are not ASCII whitespace.
pub fn words(bytes: &[u8]) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut start = None;
    for (i, &b) in bytes.iter().enumerate() {
        match (b.is_ascii_whitespace(), start) {
            (true, Some(s)) => {
                ranges.push(s..i);
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        ranges.push(s..bytes.len());
    }
    ranges
}

/// JSON-string-field-like pieces: runs of whole words on one line (names, titles, short
/// values), each grown word by word up to a length drawn from 4 to 36 bytes (mean about
/// 20), the space after a piece left out.
pub fn fields(bytes: &[u8]) -> Vec<Range<usize>> {
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut next_len = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        4 + (rng % 33) as usize
    };
    let mut ranges = Vec::new();
    for line in lines(bytes) {
        let mut field: Option<Range<usize>> = None;
        let mut target = next_len();
        for word in words(&bytes[line.clone()]) {
            let word = line.start + word.start..line.start + word.end;
            let grown = match field.take() {
                Some(f) => f.start..word.end,
                None => word,
            };
            if grown.len() >= target {
                ranges.push(grown);
                target = next_len();
            } else {
                field = Some(grown);
            }
        }
        ranges.extend(field);
    }
    ranges
}

/// The lines ([`lines`]) whose length is in `lengths`: the lines by length of the
/// real-text benchmark and of `compare/commit` (`LINES=lo-hi`).
pub fn lines_of_lengths(lengths: Range<usize>) -> impl Fn(&[u8]) -> Vec<Range<usize>> {
    move |bytes: &[u8]| {
        lines(bytes)
            .into_iter()
            .filter(|line| lengths.contains(&line.len()))
            .collect()
    }
}

/// Slices of exactly `len` bytes that start and end at character boundaries, about one
/// every `len + 3` bytes (so they start at every offset within a cache line).
pub fn slices_of(len: usize) -> impl Fn(&[u8]) -> Vec<Range<usize>> {
    move |bytes: &[u8]| {
        let boundary = |i: usize| i == bytes.len() || (bytes[i] as i8) >= -0x40;
        let mut ranges = Vec::new();
        let mut start = 0;
        while start + len <= bytes.len() {
            if boundary(start) && boundary(start + len) {
                ranges.push(start..start + len);
                start += len + 3;
            } else {
                start += 1;
            }
        }
        ranges
    }
}
