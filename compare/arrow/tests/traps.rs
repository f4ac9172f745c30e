//! Every contender's verdict on the traps of string-column validation, against the
//! per-row oracle (each row checked on its own with `std::str::from_utf8`, offsets checked
//! for sign, order and bounds). Prints a table (`cargo test --release -- --nocapture`)
//! and asserts each verdict, including where a contender is wrong.
//!
//! Where they differ:
//! * the split character (`"caf\xC3"` + `"\xA9"`): only the naive concatenation check
//!   accepts it;
//! * a continuation byte right after the span: Polars' `try_check_utf8` tests the byte
//!   at the last offset too (which belongs to no row) and rejects a valid column;
//! * structural errors: arrow-rs cannot even hold negative or decreasing offsets (its
//!   `OffsetBuffer::new` panics), Polars' check assumes them checked before.

use utf8check_compare_arrow::{arrow, concatenation_only, polars};

/// What the oracle says: is every row in bounds and UTF-8 on its own?
fn oracle(values: &[u8], offsets: &[i64]) -> bool {
    offsets.windows(2).all(|w| {
        0 <= w[0]
            && w[0] <= w[1]
            && (w[1] as usize) <= values.len()
            && std::str::from_utf8(&values[w[0] as usize..w[1] as usize]).is_ok()
    })
}

/// A verdict: accepted, rejected, or cannot be asked (the layout cannot be built).
fn show(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "ok",
        Some(false) => "rejected",
        None => "n/a",
    }
}

struct Trap {
    name: &'static str,
    values: &'static [u8],
    offsets: &'static [i64],
    /// The verdicts known to differ from the oracle: (contender, its verdict).
    wrong: &'static [(&'static str, bool)],
}

const TRAPS: &[Trap] = &[
    Trap {
        name: "valid rows",
        values: "cafénaïve".as_bytes(),
        offsets: &[0, 5, 5, 11],
        wrong: &[],
    },
    Trap {
        name: "split character",
        values: b"caf\xC3\xA9",
        offsets: &[0, 4, 5],
        wrong: &[("concatenation", true)],
    },
    Trap {
        name: "split 4-byte character",
        values: "x😀y".as_bytes(),
        offsets: &[0, 3, 6],
        wrong: &[("concatenation", true)],
    },
    Trap {
        name: "row starts with continuation after empty row",
        values: b"ab\xC3\xA9",
        offsets: &[0, 3, 3, 4],
        wrong: &[("concatenation", true)],
    },
    Trap {
        name: "invalid bytes outside the span",
        values: b"\xFF\x80ok\xC3",
        offsets: &[2, 4],
        wrong: &[],
    },
    Trap {
        name: "continuation byte after the span",
        values: b"\xC3\xA9\xA9",
        offsets: &[0, 2],
        wrong: &[("polars", false)],
    },
    Trap {
        name: "trailing empty row before a continuation byte",
        values: b"\xC3\xA9\xA9",
        offsets: &[0, 2, 2],
        wrong: &[("polars", false)],
    },
    Trap {
        name: "invalid row",
        values: b"ok\xFFno",
        offsets: &[0, 2, 5],
        wrong: &[],
    },
    Trap {
        name: "truncated last row",
        values: b"ok\xE2\x82",
        offsets: &[0, 2, 4],
        wrong: &[],
    },
    Trap {
        name: "empty rows only",
        values: b"",
        offsets: &[0, 0, 0],
        wrong: &[],
    },
    Trap {
        name: "no rows",
        values: b"\xFF",
        offsets: &[0],
        wrong: &[],
    },
    Trap {
        name: "offset past the end",
        values: b"abc",
        offsets: &[0, 4],
        wrong: &[],
    },
    Trap {
        name: "decreasing offsets",
        values: b"abc",
        offsets: &[0, 2, 1, 3],
        wrong: &[("concatenation", true)],
    },
    Trap {
        name: "negative offset",
        values: b"abc",
        offsets: &[-1, 2],
        wrong: &[],
    },
];

#[test]
fn verdicts_on_the_traps() {
    println!(
        "\n| trap | oracle | utf8check | arrow-rs validate | arrow-rs try_new | Polars try_check_utf8 | concatenation only |"
    );
    println!("|---|---|---|---|---|---|---|");
    for trap in TRAPS {
        let want = oracle(trap.values, trap.offsets);
        let ours = utf8check::columnar::validate_offsets(trap.values, trap.offsets).is_ok();
        let offsets32: Vec<i32> = trap.offsets.iter().map(|&o| o as i32).collect();
        let buffer = arrow_buffer::Buffer::from(trap.values.to_vec());
        let arrow_offsets = arrow::offset_buffer(&offsets32);
        let arrow_validate = arrow_offsets.as_ref().map(|o| arrow::validate(&buffer, o));
        let arrow_try_new = arrow_offsets.as_ref().map(|o| arrow::try_new(&buffer, o));
        // Polars' check runs on offsets its OffsetsBuffer accepted: the same as arrow-rs's.
        let polars = arrow_offsets
            .is_some()
            .then(|| polars::try_check_utf8(&offsets32, trap.values));
        let concatenation = concatenation_only(trap.values, trap.offsets);
        println!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            trap.name,
            show(Some(want)),
            show(Some(ours)),
            show(arrow_validate),
            show(arrow_try_new),
            show(polars),
            show(Some(concatenation)),
        );
        assert_eq!(ours, want, "utf8check on {}", trap.name);
        let expect = |who: &str| {
            trap.wrong
                .iter()
                .find(|(w, _)| *w == who)
                .map_or(want, |&(_, v)| v)
        };
        if let Some(v) = arrow_validate {
            assert_eq!(v, expect("arrow"), "arrow-rs validate on {}", trap.name);
        }
        if let Some(v) = arrow_try_new {
            assert_eq!(v, expect("arrow"), "arrow-rs try_new on {}", trap.name);
        }
        if let Some(v) = polars {
            assert_eq!(v, expect("polars"), "Polars on {}", trap.name);
        }
        assert_eq!(
            concatenation,
            expect("concatenation"),
            "concatenation on {}",
            trap.name
        );
        // Where arrow-rs cannot build the offsets, the layout is malformed.
        if arrow_offsets.is_none() {
            assert!(!want);
        }
    }
}

fn inline(s: &[u8]) -> u128 {
    let mut bytes = [0u8; 16];
    bytes[..4].copy_from_slice(&(s.len() as u32).to_le_bytes());
    bytes[4..4 + s.len()].copy_from_slice(s);
    u128::from_le_bytes(bytes)
}

fn long(len: u32, prefix: [u8; 4], buffer: u32, offset: u32) -> u128 {
    u128::from(len)
        | u128::from(u32::from_le_bytes(prefix)) << 32
        | u128::from(buffer) << 64
        | u128::from(offset) << 96
}

#[test]
fn verdicts_on_view_traps() {
    let data = arrow_buffer::Buffer::from("0123456789abcdé0123456789abcdef".as_bytes().to_vec());
    let buffers = [data];
    let cases: &[(&str, Vec<u128>, bool)] = &[
        (
            "valid",
            vec![inline("née".as_bytes()), long(16, *b"0123", 0, 0)],
            true,
        ),
        // Two long strings, contiguous in the buffer, splitting "é" between them.
        (
            "split character across long strings",
            vec![
                long(15, *b"0123", 0, 0),
                long(17, [0xA9, b'0', b'1', b'2'], 0, 15),
            ],
            false,
        ),
        // An inline string cut inside a character, then a long view of 169 bytes (whose
        // first length byte, 0xA9, would complete it if the views were one text).
        (
            "truncated inline before length 169",
            vec![inline(b"abcdefghijk\xC3"), long(169, *b"0123", 0, 0)],
            false,
        ),
        (
            "non-zero padding",
            vec![inline(b"ab") | 1u128 << 127],
            false,
        ),
        (
            "buffer index out of bounds",
            vec![long(16, *b"0123", 1, 0)],
            false,
        ),
        ("range out of bounds", vec![long(40, *b"0123", 0, 0)], false),
        ("prefix mismatch", vec![long(16, *b"0124", 0, 0)], false),
        ("invalid inline", vec![inline(b"\xC0\xAF")], false),
    ];
    println!("\n| view trap | expected | utf8check | arrow-rs | Polars |");
    println!("|---|---|---|---|---|");
    for (name, views, want) in cases {
        let ours = utf8check::columnar::validate_views(views, &buffers).is_ok();
        let arrow = arrow::validate_views(views, &buffers);
        let polars = polars::validate_utf8_view(views, &buffers);
        println!(
            "| {name} | {} | {} | {} | {} |",
            show(Some(*want)),
            show(Some(ours)),
            show(Some(arrow)),
            show(Some(polars))
        );
        // The data buffer of the long views in "truncated inline before length 169" is too
        // short for 169 bytes: every contender rejects it for that, or for the inline view.
        assert_eq!((ours, arrow, polars), (*want, *want, *want), "{name}");
    }
}

/// The contenders agree with utf8check on random columns of real-looking text with a
/// bad byte here and there (not only on hand-picked traps).
#[test]
fn contenders_agree_on_random_columns() {
    let text = "Grüße, Καλημέρα, Здравствуйте, 世界, 🌍🎉! naïve café "
        .repeat(50)
        .into_bytes();
    let words = utf8check_compare_arrow_words(&text);
    let mut seed = 0x1234_5678u64;
    for case in 0..300 {
        let mut column = utf8check_compare_arrow::Column::new(&text, &words, 1 + case * 3);
        let mut values = column.values.to_vec();
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        if case % 2 == 1 && !values.is_empty() {
            let at = (seed as usize) % values.len();
            values[at] = [0x80, 0xC3, 0xFF, b'a'][(seed >> 40) as usize % 4];
            column.values = arrow_buffer::Buffer::from(values.clone());
        }
        let want = oracle(&values, &column.offsets64);
        assert_eq!(
            utf8check::columnar::validate_offsets(&values, &column.offsets32).is_ok(),
            want
        );
        assert_eq!(arrow::validate(&column.values, &column.arrow32), want);
        assert_eq!(polars::try_check_utf8(&column.offsets64, &values), want);
    }
}

fn utf8check_compare_arrow_words(text: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut ranges = Vec::new();
    let mut start = 0;
    for (i, &b) in text.iter().enumerate() {
        if b == b' ' {
            if i > start {
                ranges.push(start..i);
            }
            start = i + 1;
        }
    }
    ranges
}
