//! Generated text for the benchmarks: deterministic, in several scripts, with the mix of
//! ASCII punctuation, spaces and newlines that real text in each script has.
//!
//! Shared by the benchmarks with `#[path = "common/corpus.rs"] mod corpus;`.

#![allow(dead_code)] // each benchmark uses part of it

/// A kind of text.
#[derive(Copy, Clone, Debug)]
pub enum Text {
    /// English: ASCII only.
    Ascii,
    /// French/German/Polish-like: mostly ASCII, some 2-byte letters.
    Latin,
    /// Russian-like: 2-byte letters, ASCII spaces and punctuation.
    Cyrillic,
    /// Chinese/Japanese-like: 3-byte characters, few ASCII bytes.
    Cjk,
    /// Chat-like: ASCII words with 4-byte emoji.
    Emoji,
    /// Random characters of 1 to 4 bytes, equally likely.
    Mixed,
}

impl Text {
    pub const ALL: [Text; 6] = [
        Text::Ascii,
        Text::Latin,
        Text::Cyrillic,
        Text::Cjk,
        Text::Emoji,
        Text::Mixed,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Text::Ascii => "ascii",
            Text::Latin => "latin",
            Text::Cyrillic => "cyrillic",
            Text::Cjk => "cjk",
            Text::Emoji => "emoji",
            Text::Mixed => "mixed",
        }
    }

    pub fn is_ascii(self) -> bool {
        matches!(self, Text::Ascii)
    }
}

/// A small xorshift generator: the corpora are the same in every run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: u32) -> u32 {
        (self.next_u64() % u64::from(n)) as u32
    }

    fn pick(&mut self, chars: &[char]) -> char {
        chars[self.below(chars.len() as u32) as usize]
    }
}

const LATIN_ACCENTED: &[char] = &[
    'é', 'è', 'à', 'ç', 'ô', 'ü', 'ö', 'ä', 'ß', 'ñ', 'ł', 'ś', 'ż', 'ő', 'ø', 'å',
];
const PUNCTUATION: &[char] = &[',', '.', ' ', ' ', ' ', '\n', '!', '?', ';', '-', '"'];

fn random_char(rng: &mut Rng, range: core::ops::RangeInclusive<u32>) -> char {
    loop {
        let start = *range.start();
        let code = start + rng.below(range.end() - start + 1);
        if let Some(c) = char::from_u32(code) {
            return c;
        }
    }
}

/// One word (with the separator after it) of the given kind.
fn push_word(rng: &mut Rng, kind: Text, out: &mut String) {
    let len = 2 + rng.below(8);
    for _ in 0..len {
        let c = match kind {
            Text::Ascii => random_char(rng, 'a' as u32..='z' as u32),
            Text::Latin => {
                if rng.below(7) == 0 {
                    rng.pick(LATIN_ACCENTED)
                } else {
                    random_char(rng, 'a' as u32..='z' as u32)
                }
            }
            Text::Cyrillic => random_char(rng, 0x430..=0x44F),
            Text::Cjk => random_char(rng, 0x4E00..=0x9FFF),
            Text::Emoji => {
                if rng.below(4) == 0 {
                    random_char(rng, 0x1F300..=0x1F64F)
                } else {
                    random_char(rng, 'a' as u32..='z' as u32)
                }
            }
            Text::Mixed => match rng.below(4) {
                0 => random_char(rng, 0x20..=0x7E),
                1 => random_char(rng, 0x80..=0x7FF),
                2 => random_char(rng, 0x800..=0xFFFF),
                _ => random_char(rng, 0x10000..=0x10FFFF),
            },
        };
        out.push(c);
    }
    match kind {
        // CJK has no spaces between words; its punctuation is CJK too.
        Text::Cjk => {
            if rng.below(3) == 0 {
                out.push(if rng.below(8) == 0 { '\n' } else { '，' });
            }
        }
        Text::Mixed => {}
        _ => out.push(rng.pick(PUNCTUATION)),
    }
}

/// Valid UTF-8 text of exactly `len` bytes (padded with ASCII where the last character
/// would not fit).
pub fn text(kind: Text, len: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed ^ kind as u64);
    let mut out = String::with_capacity(len + 64);
    while out.len() < len {
        push_word(&mut rng, kind, &mut out);
    }
    let mut cut = len;
    while !out.is_char_boundary(cut) {
        cut -= 1;
    }
    out.truncate(cut);
    while out.len() < len {
        out.push('x');
    }
    out.into_bytes()
}

/// `count` different valid texts of `len` bytes each.
pub fn texts(kind: Text, len: usize, count: usize) -> Vec<Vec<u8>> {
    (0..count as u64)
        .map(|i| text(kind, len, 0x9E37_79B9 + i))
        .collect()
}

/// `count` different texts of `len` bytes in one buffer, the i-th followed by `i % 13`
/// spaces so that the slices start at every offset within a cache line (as the fields of
/// a message do); returns the buffer and the slices' ranges.
pub fn slices(kind: Text, len: usize, count: usize) -> (Vec<u8>, Vec<core::ops::Range<usize>>) {
    let mut buffer = Vec::new();
    let mut ranges = Vec::new();
    for (i, text) in texts(kind, len, count).into_iter().enumerate() {
        ranges.push(buffer.len()..buffer.len() + text.len());
        buffer.extend_from_slice(&text);
        buffer.resize(buffer.len() + i % 13, b' ');
    }
    (buffer, ranges)
}

/// Slices per buffer, each starting at an odd offset in another part of a cache line.
pub const SWEEP_OFFSETS: [usize; 4] = [1, 19, 37, 55];

/// The density sweep's text (`benches/density.rs`, `compare/commit`): `len` bytes of
/// ASCII text with `insert` every `spacing` bytes (or at jittered gaps of mean
/// `spacing`), then `SWEEP_OFFSETS.last()` more bytes so that every slice fits.
pub fn sweep_text(insert: &str, spacing: usize, jitter: bool, len: usize) -> Vec<u8> {
    let total = len + SWEEP_OFFSETS[SWEEP_OFFSETS.len() - 1] + 4;
    let ascii = text(Text::Ascii, total, 7);
    let mut rng = Rng::new(spacing as u64);
    let mut out = Vec::with_capacity(total + 64);
    let mut next = 0;
    while out.len() < total {
        if out.len() >= next {
            out.extend_from_slice(insert.as_bytes());
            let gap = if jitter {
                spacing / 2 + rng.below(spacing as u32 + 1) as usize
            } else {
                spacing
            };
            next += gap.max(1);
        } else {
            out.push(ascii[out.len()]);
        }
    }
    // Cut at a character boundary, then pad with ASCII.
    out.truncate(total);
    while std::str::from_utf8(&out).is_err() {
        out.pop();
    }
    out.resize(total, b'x');
    out
}

/// A slice of about `size` bytes at each of `SWEEP_OFFSETS`, moved forward to the next
/// character boundary and shortened to end at one.
pub fn sweep_slices(buffer: &[u8], size: usize) -> Vec<core::ops::Range<usize>> {
    let boundary = |i: usize| i == buffer.len() || (buffer[i] as i8) >= -0x40;
    SWEEP_OFFSETS
        .iter()
        .map(|&offset| {
            let start = (offset..).find(|&i| boundary(i)).unwrap();
            let end = (start..=(start + size).min(buffer.len()))
                .rev()
                .find(|&i| boundary(i))
                .unwrap();
            start..end
        })
        .collect()
}
