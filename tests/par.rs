//! Differential tests of `utf8check::par` against `core::str::from_utf8`: the parallel
//! functions must give std's `valid_up_to` and `error_len`, and the single-threaded
//! crate's `ErrorKind`, on every input, with every chunk length and thread count.
//!
//! Errors are injected at every offset within 4 bytes of every split point (with small
//! forced chunk lengths, through `par::from_utf8_with_chunk_len`), around split points of
//! the default chunking in buffers of 1 to 64 MiB, at random places, several at once, in
//! truncated tails, and as runs of continuation bytes; every check runs on pools of 1, 2,
//! 3 and 8 threads.
//!
//! Where the tests run emulated (any target but x86-64, e.g. aarch64 under qemu) or when
//! `UTF8CHECK_SMALL_TESTS` is set (e.g. under a sanitizer), the largest buffers shrink
//! from 64 MiB to 4 MiB.

#![cfg(feature = "rayon")]

use rayon::{ThreadPool, ThreadPoolBuilder};
use utf8check::{par, ErrorKind, Utf8Error};

/// The piece length of the default chunking, documented in `src/par.rs`: its split points
/// are within 3 bytes below the multiples of it.
const DEFAULT_CHUNK_LEN: usize = 64 * 1024;

const MIB: usize = 1024 * 1024;

/// Errors to write over valid text, one of each kind and length (cut short where they
/// would run past the end of the buffer, which makes truncated sequences).
const ERRORS: &[&[u8]] = &[
    b"\x80",             // unexpected continuation
    b"\xBF\xBF",         // two of them
    b"\xFF",             // invalid byte
    b"\xC0\xAF",         // invalid byte (overlong 2-byte form)
    b"\xE0\x80\xAF",     // overlong
    b"\xED\xA0\x80",     // surrogate
    b"\xF4\x90\x80\x80", // too large
    b"\xC3x",            // too short, error_len 1
    b"\xE2\x82x",        // too short, error_len 2
    b"\xF0\x9F\x98x",    // too short, error_len 3
    b"\xE2",             // a lead byte over whatever follows
    b"\xF0\x9F",
];

/// The thread counts every check runs with.
const THREADS: [usize; 4] = [1, 2, 3, 8];

/// What every API must answer: `Ok`, or `(valid_up_to, error_len, kind)`.
type Answer = Result<(), (usize, Option<usize>, ErrorKind)>;

fn answer(result: Result<&str, Utf8Error>, input: &[u8]) -> Answer {
    match result {
        Ok(text) => {
            assert_eq!(text.as_ptr(), input.as_ptr());
            assert_eq!(text.len(), input.len());
            Ok(())
        }
        Err(err) => Err((err.valid_up_to(), err.error_len(), err.kind())),
    }
}

/// std's position and length; the kind that single-threaded `utf8check::from_utf8` gives
/// for the bytes at the error (a pure function of at most 4 bytes there).
fn expected(v: &[u8]) -> Answer {
    match std::str::from_utf8(v) {
        Ok(_) => Ok(()),
        Err(err) => {
            let at = err.valid_up_to();
            let window = &v[at..v.len().min(at + 4)];
            let local = utf8check::from_utf8(window).unwrap_err();
            assert_eq!(
                (local.valid_up_to(), local.error_len()),
                (0, err.error_len())
            );
            Err((at, err.error_len(), local.kind()))
        }
    }
}

fn pools() -> Vec<ThreadPool> {
    THREADS
        .iter()
        .map(|&n| ThreadPoolBuilder::new().num_threads(n).build().unwrap())
        .collect()
}

/// Runs `cases` inside each pool (one `install` per pool).
fn in_every_pool(cases: impl Fn(usize) + Sync) {
    for pool in pools() {
        let threads = pool.current_num_threads();
        pool.install(|| cases(threads));
    }
}

/// Checks `par::from_utf8`, `par::is_valid` and `par::from_utf8_with_chunk_len` for each
/// of `chunk_lens` on `v` (in the current pool) against `want`.
fn check(v: &[u8], want: Answer, chunk_lens: &[usize], context: &dyn Fn() -> String) {
    assert_eq!(
        answer(par::from_utf8(v), v),
        want,
        "default chunks; {}",
        context()
    );
    assert_eq!(par::is_valid(v), want.is_ok(), "is_valid; {}", context());
    for &chunk_len in chunk_lens {
        let got = answer(par::from_utf8_with_chunk_len(v, chunk_len), v);
        assert_eq!(got, want, "chunk_len {chunk_len}; {}", context());
    }
}

/// xorshift64*: deterministic, good enough to place errors.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// `len` bytes of valid text: ASCII with `percent_multibyte`% of characters taken from
/// Latin, Greek, Cyrillic, CJK, Hangul and emoji (2, 3 and 4 bytes long).
fn text(len: usize, percent_multibyte: usize, seed: u64) -> Vec<u8> {
    const WIDE: &[&str] = &[
        "é", "ß", "ñ", "λ", "Ж", "ש", "ع", "€", "中", "文", "한", "ー", "😀", "𝄞", "🌍",
    ];
    const ASCII: &[u8] = b"abcdefghijklmnopqrstuvwxyz ,.\n0123456789";
    let mut rng = Rng(seed | 1);
    let mut out = Vec::with_capacity(len);
    while out.len() + 4 <= len {
        if rng.below(100) < percent_multibyte {
            out.extend_from_slice(WIDE[rng.below(WIDE.len())].as_bytes());
        } else {
            out.push(ASCII[rng.below(ASCII.len())]);
        }
    }
    out.resize(len, b'.');
    out
}

/// Overwrites `v[at..]` with `error` (as much of it as fits), runs `f`, restores `v`.
fn with_error<R>(v: &mut [u8], at: usize, error: &[u8], f: impl FnOnce(&[u8]) -> R) -> R {
    let n = error.len().min(v.len() - at);
    let saved: Vec<u8> = v[at..at + n].to_vec();
    v[at..at + n].copy_from_slice(&error[..n]);
    let result = f(v);
    v[at..at + n].copy_from_slice(&saved);
    result
}

/// The size of the largest buffers: 64 MiB natively, 4 MiB emulated or when asked.
fn max_len() -> usize {
    let small = cfg!(not(target_arch = "x86_64"))
        || std::env::var_os("UTF8CHECK_SMALL_TESTS").is_some_and(|v| v != "0");
    if small {
        4 * MIB
    } else {
        64 * MIB
    }
}

/// The offsets within 4 bytes of each nominal split point `k * chunk_len` of `len` bytes.
fn around_splits(len: usize, chunk_len: usize) -> impl Iterator<Item = usize> {
    (chunk_len..len)
        .step_by(chunk_len)
        .flat_map(|split| split.saturating_sub(4)..=split + 4)
        .filter(move |&at| at < len)
}

#[test]
fn every_error_at_every_offset_around_forced_splits() {
    let base = text(3000, 40, 1);
    let chunk_lens = [61, 64, 97, 256, 1000];
    // Expected answers first (std is single-threaded), then every pool.
    let mut cases = Vec::new();
    let mut v = base.clone();
    for chunk_len in chunk_lens {
        for at in around_splits(v.len(), chunk_len) {
            for (e, error) in ERRORS.iter().enumerate() {
                let want = with_error(&mut v, at, error, expected);
                cases.push((chunk_len, at, e, want));
            }
        }
    }
    in_every_pool(|threads| {
        let mut v = base.clone();
        for &(chunk_len, at, e, want) in &cases {
            with_error(&mut v, at, ERRORS[e], |v| {
                check(v, want, &[chunk_len], &|| {
                    format!("{threads} threads, error {:02X?} at {at}", ERRORS[e])
                })
            });
        }
    });
}

#[test]
fn every_error_at_every_position_with_tiny_chunks() {
    let base = "aé€😀 ß中🌍x".repeat(5).into_bytes();
    let chunk_lens = [1, 2, 3, 4, 5, 7, 8];
    in_every_pool(|threads| {
        let mut v = base.clone();
        check(&v, Ok(()), &chunk_lens, &|| {
            format!("{threads} threads, valid")
        });
        for at in 0..v.len() {
            for error in ERRORS {
                with_error(&mut v, at, error, |v| {
                    check(v, expected(v), &chunk_lens, &|| {
                        format!("{threads} threads, error {error:02X?} at {at}")
                    })
                });
            }
        }
    });
}

#[test]
fn chunk_len_zero_and_huge_are_accepted() {
    let v = text(5000, 50, 2);
    in_every_pool(|_| {
        for chunk_len in [0, 1, usize::MAX / 2, usize::MAX] {
            assert!(par::from_utf8_with_chunk_len(&v, chunk_len).is_ok());
            let bad = b"ab\xFFc";
            let got = answer(par::from_utf8_with_chunk_len(bad, chunk_len), bad);
            assert_eq!(got, Err((2, Some(1), ErrorKind::InvalidByte)));
        }
        assert!(par::from_utf8_with_chunk_len(b"", 0).is_ok());
        assert!(par::from_utf8(b"").is_ok() && par::is_valid(b""));
    });
}

#[test]
fn runs_of_continuation_bytes_across_splits() {
    // After ASCII, and after each lead byte that takes 1, 2 or 3 of them legitimately.
    let leads: [&[u8]; 4] = [b"a", b"\xC3", b"\xE2", b"\xF0"];
    let chunk_lens = [16, 17, 64];
    in_every_pool(|threads| {
        for lead in leads {
            for run in 1..=9 {
                for &chunk_len in &chunk_lens {
                    for at in around_splits(200, chunk_len) {
                        let mut v = text(200, 0, 3);
                        let mut piece = lead.to_vec();
                        piece.resize(lead.len() + run, 0x9F);
                        let end = v.len().min(at + piece.len());
                        v[at..end].copy_from_slice(&piece[..end - at]);
                        check(&v, expected(&v), &[chunk_len], &|| {
                            format!("{threads} threads, {lead:02X?} + {run} continuations at {at}")
                        });
                    }
                }
            }
        }
    });
}

#[test]
fn all_continuation_buffers() {
    let len = max_len() / 8;
    let mut cases = Vec::new();
    for byte in [0x80, 0xBF] {
        cases.push(vec![byte; len]);
        for prefix in ["a", "é", "€", "😀"] {
            let mut v = prefix.as_bytes().to_vec();
            v.resize(len, byte);
            cases.push(v);
        }
    }
    // Valid text up to the middle of a piece, then continuation bytes to the end.
    let mut v = text(len / 2 + 1000, 30, 4);
    v.resize(len, 0x80);
    cases.push(v);
    let wants: Vec<Answer> = cases.iter().map(|v| expected(v)).collect();
    in_every_pool(|threads| {
        for (v, &want) in cases.iter().zip(&wants) {
            check(v, want, &[4096, 65_537], &|| {
                format!("{threads} threads, {:02X?}...", &v[..4])
            });
        }
    });
}

#[test]
fn truncated_tails() {
    let tails: [&[u8]; 6] = [
        b"\xC3",
        b"\xE2",
        b"\xE2\x82",
        b"\xF0",
        b"\xF0\x9F",
        b"\xF0\x9F\x98",
    ];
    let sizes = [100, 127, 128, 129, DEFAULT_CHUNK_LEN * 9 - 2, MIB + 3];
    in_every_pool(|threads| {
        for &size in &sizes {
            let body = text(size, if size < 1000 { 30 } else { 1 }, size as u64);
            for tail in tails {
                // The tail alone, then the tail with each of its bytes but the first cut
                // off: every way a buffer can end inside a sequence.
                for keep in 1..=tail.len() {
                    let mut v = body.clone();
                    v.extend_from_slice(&tail[..keep]);
                    let want = Err((size, None, ErrorKind::Truncated));
                    assert_eq!(expected(&v), want);
                    let mut chunk_lens = vec![32, v.len() - 1, v.len() - 2, v.len() - 3];
                    if size < 1000 {
                        chunk_lens.extend([1, 3]);
                    }
                    check(&v, want, &chunk_lens, &|| {
                        format!("{threads} threads, {size} bytes + {:02X?}", &tail[..keep])
                    });
                }
            }
        }
    });
}

#[test]
fn valid_multilingual_text_of_many_sizes() {
    let sizes = [
        0,
        1,
        63,
        64,
        65,
        1000,
        4096,
        100_000,
        511 * 1024,
        512 * 1024,
        3 * MIB + 7,
    ];
    let texts: Vec<Vec<u8>> = sizes
        .iter()
        .flat_map(|&len| [0, 30, 100].map(|share| text(len, share, len as u64 + share as u64)))
        .collect();
    in_every_pool(|threads| {
        for v in &texts {
            assert!(std::str::from_utf8(v).is_ok());
            check(v, Ok(()), &[1000, 4093, 65_536], &|| {
                format!("{threads} threads, {} bytes", v.len())
            });
        }
    });
}

/// Errors around split points of the default chunking and at random places, one at a
/// time, in buffers of 1 to 64 MiB.
#[test]
fn big_buffers_with_the_default_chunking() {
    let mut rng = Rng(5);
    // Mostly ASCII in the biggest buffer (like logs), which keeps std, the reference,
    // fast: it takes about 20 times longer on text with many multi-byte characters.
    for (len, share) in [
        (MIB, 40),
        (2 * MIB + 5, 100),
        (max_len() / 4 + 1, 0),
        (max_len(), 1),
    ] {
        let mut v = text(len, share, len as u64);
        // Offsets around split points: the first, the middle ones (where rayon's first
        // split of the work between threads falls) and the last.
        let last = (len - 1) / DEFAULT_CHUNK_LEN * DEFAULT_CHUNK_LEN;
        let middle = len / 2 / DEFAULT_CHUNK_LEN * DEFAULT_CHUNK_LEN;
        let mut places: Vec<usize> = [DEFAULT_CHUNK_LEN, middle, middle + DEFAULT_CHUNK_LEN, last]
            .iter()
            .flat_map(|&split| split - 4..=(split + 4).min(len - 1))
            .collect();
        places.extend((0..4).map(|_| rng.below(len)));
        places.extend([0, 1, len - 1]);
        let mut cases = Vec::new();
        for &at in &places {
            let error = ERRORS[rng.below(ERRORS.len())];
            cases.push((at, error, with_error(&mut v, at, error, expected)));
        }
        assert_eq!(expected(&v), Ok(()));
        in_every_pool(|threads| {
            let mut v = v.clone();
            check(&v, Ok(()), &[], &|| {
                format!("{threads} threads, {len} bytes, valid")
            });
            for &(at, error, want) in &cases {
                with_error(&mut v, at, error, |v| {
                    check(v, want, &[], &|| {
                        format!("{threads} threads, {len} bytes, {error:02X?} at {at}")
                    })
                });
            }
        });
    }
}

/// Several errors at once: the first must win even when a later piece (likely on another
/// thread, e.g. at the start of the second half) fails first.
#[test]
fn several_errors_at_once() {
    let len = max_len() / 8;
    let base = text(len, 10, 6);
    let mut rng = Rng(7);
    let mut cases = Vec::new();
    for round in 0..18 {
        let mut v = base.clone();
        let errors = 2 + rng.below(4);
        for _ in 0..errors {
            // Early rounds put an error at the start of the second half, which a second
            // thread reaches long before the first thread reaches the other errors.
            let at = match round % 3 {
                0 => len / 2 + rng.below(8),
                _ => rng.below(len),
            };
            let error = ERRORS[rng.below(ERRORS.len())];
            let n = error.len().min(len - at);
            v[at..at + n].copy_from_slice(&error[..n]);
        }
        let want = expected(&v);
        let chunk_len = 1000 + rng.below(200_000);
        cases.push((v, want, chunk_len));
    }
    in_every_pool(|threads| {
        for (round, (v, want, chunk_len)) in cases.iter().enumerate() {
            check(v, *want, &[*chunk_len], &|| {
                format!("{threads} threads, round {round}")
            });
        }
    });
}

/// An error in every piece: whichever pieces fail, in whatever order, the first error is
/// the one reported.
#[test]
fn an_error_in_every_piece() {
    let len = max_len() / 16;
    let mut rng = Rng(9);
    let mut cases = Vec::new();
    for spacing in [977, 4096, 50_000] {
        let mut v = text(len, 20, spacing as u64);
        let mut at = rng.below(spacing);
        while at < len {
            let error = ERRORS[rng.below(ERRORS.len())];
            let n = error.len().min(len - at);
            v[at..at + n].copy_from_slice(&error[..n]);
            at += spacing;
        }
        let want = expected(&v);
        cases.push((v, want, spacing));
    }
    in_every_pool(|threads| {
        for _ in 0..20 {
            for (v, want, spacing) in &cases {
                check(v, *want, &[1000, 4096, 65_536], &|| {
                    format!("{threads} threads, an error every {spacing} bytes")
                });
            }
        }
    });
}

/// Every piece fails near its end: the later pieces, started on other threads a little
/// after the first, record their failures after the first piece does.
#[test]
fn a_later_failure_recorded_last_does_not_win() {
    let chunk_len = max_len() / 16;
    let mut v = text(8 * chunk_len, 0, 10);
    v[chunk_len - 20] = 0xFF;
    for piece in 1..8 {
        v[(piece + 1) * chunk_len - 10] = 0x80;
    }
    let want = Err((chunk_len - 20, Some(1), ErrorKind::InvalidByte));
    assert_eq!(expected(&v), want);
    in_every_pool(|threads| {
        // A race: repeat it.
        for _ in 0..40 {
            check(&v, want, &[chunk_len], &|| format!("{threads} threads"));
        }
    });
}

/// Outside any `install`: rayon's global pool.
#[test]
fn on_the_global_pool() {
    let mut v = text(2 * MIB + 1, 30, 11);
    assert!(par::from_utf8(&v).is_ok() && par::is_valid(&v));
    for at in [0, MIB - 1, MIB, 2 * MIB] {
        with_error(&mut v, at, b"\xF0\x9F\x98x", |v| {
            check(v, expected(v), &[4096], &|| {
                format!("global pool, error at {at}")
            })
        });
    }
}

#[test]
fn from_utf8_mut_gives_the_same_answers() {
    let len = MIB + 17;
    let base = text(len, 50, 8);
    in_every_pool(|threads| {
        let mut v = base.clone();
        let text = par::from_utf8_mut(&mut v).unwrap();
        text.make_ascii_uppercase();
        assert_eq!(v, base.to_ascii_uppercase());
        for at in [0, len / 3, len / 2 + 1, len - 1] {
            let mut v = base.clone();
            v[at] = 0xFE;
            let want = expected(&v);
            let got = par::from_utf8_mut(&mut v).map(|_| ());
            let got = got.map_err(|e| (e.valid_up_to(), e.error_len(), e.kind()));
            assert_eq!(got, want, "{threads} threads, error at {at}");
        }
    });
}
