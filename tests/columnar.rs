//! `utf8check::columnar` (and `par::validate_offsets`) against a per-row oracle: each row
//! checked on its own with `core::str::from_utf8`, the structural rules of the
//! specification (issue 12) written out again here, and the lowest bad row wins.
//!
//! Random columns are built from fragments that hit every trap: characters split across
//! rows, rows that start with a continuation byte, invalid bytes outside the span, empty
//! rows, no rows, each structural error, each kind of bad view, Parquet pages with bad
//! lengths; for every offset type, across the chunk boundaries of the implementation and
//! the piece boundaries of `par`.

use utf8check::columnar::{
    valid_rows, valid_views, validate_offsets, validate_plain, validate_views, ColumnError,
    ColumnErrorKind, Offset, CHUNK_ROWS, VIEW_BATCH,
};

/// What the oracle says about a column: `Ok`, or the lowest bad row and why.
type Want = Result<(), (usize, Why)>;

/// Why a row is bad, as the oracle sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Why {
    Structure(ColumnErrorKind),
    /// std's `valid_up_to` and `error_len` for the row alone.
    Utf8(usize, Option<usize>),
}

fn std_why(bytes: &[u8]) -> Option<Why> {
    std::str::from_utf8(bytes)
        .err()
        .map(|e| Why::Utf8(e.valid_up_to(), e.error_len()))
}

/// Panics unless `got` is `want`, with a std-identical `utf8_error` and a message that
/// names the row.
#[track_caller]
fn check(what: &str, got: Result<(), ColumnError>, want: &Want) {
    let got_parts = got.map_err(|e| {
        let why = match e.utf8_error() {
            Some(u) => {
                assert_eq!(e.kind(), ColumnErrorKind::Utf8, "{what}");
                Why::Utf8(u.valid_up_to(), u.error_len())
            }
            None => Why::Structure(e.kind()),
        };
        (e.row(), why)
    });
    assert_eq!(&got_parts, want, "{what}");
    if let Err(err) = got {
        let message = err.to_string();
        let prefix = format!("row {}: ", err.row());
        assert!(message.starts_with(&prefix), "{what}: {message}");
        if let Some(u) = err.utf8_error() {
            assert_eq!(message, format!("{prefix}{u}"));
        } else {
            assert_eq!(message, format!("{prefix}{}", err.kind()));
        }
    }
}

/// The number of random cases: fewer where every test runs slowly (unoptimized builds,
/// sanitizers: `UTF8CHECK_SMALL_TESTS`, set by `.ci/run`, and Miri).
fn cases(full: usize) -> usize {
    let small = cfg!(miri) || std::env::var_os("UTF8CHECK_SMALL_TESTS").is_some_and(|v| v != "0");
    if small {
        full / 10
    } else {
        full
    }
}

// --- random numbers --------------------------------------------------------------------

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// Text fragments: ASCII, every encoded length, and bad bytes.
const GOOD: &[&str] = &[
    "a",
    "word",
    "Grüße",
    "é",
    "€",
    "😀",
    "世界",
    "naïve",
    "",
    " ",
    "\u{7FF}",
    "\u{FFFF}",
    "\u{10FFFF}",
    "0123456789abcdef",
    "Καλημέρα",
];
const BAD: &[&[u8]] = &[
    b"\xFF",
    b"\xC0\xAF",
    b"\x80",
    b"\xE2\x82",
    b"\xED\xA0\x80",
    b"\xF4\x90\x80\x80",
    b"\xC3",
    b"\xE0\x80\xAF",
    b"\xF0\x9F\x98",
    b"\xBF\xBF",
];

/// A random row: mostly valid, sometimes bad, sometimes long.
fn row(rng: &mut Rng, bad_one_in: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let parts = match rng.below(10) {
        0 => 0,
        1 => 20 + rng.below(40),
        _ => 1 + rng.below(4),
    };
    for _ in 0..parts {
        if rng.chance(bad_one_in) {
            out.extend_from_slice(rng.pick(BAD));
        } else {
            out.extend_from_slice(rng.pick(GOOD).as_bytes());
        }
    }
    out
}

// --- offsets ---------------------------------------------------------------------------

/// The oracle for the offsets layout, on offsets widened to `i128`.
fn want_offsets(values: &[u8], offsets: &[i128]) -> Want {
    for (row, pair) in offsets.windows(2).enumerate() {
        let (a, b) = (pair[0], pair[1]);
        let why = if a < 0 || b < 0 {
            Why::Structure(ColumnErrorKind::NegativeOffset)
        } else if b < a {
            Why::Structure(ColumnErrorKind::DecreasingOffsets)
        } else if b > values.len() as i128 {
            Why::Structure(ColumnErrorKind::OffsetOutOfBounds)
        } else if let Some(why) = std_why(&values[a as usize..b as usize]) {
            why
        } else {
            continue;
        };
        return Err((row, why));
    }
    Ok(())
}

/// The oracle for `valid_rows`: the bitmap bits and the count, or the structural error.
fn want_valid_rows(values: &[u8], offsets: &[i128]) -> (Vec<bool>, Result<usize, (usize, Why)>) {
    let mut bits = Vec::new();
    for (row, pair) in offsets.windows(2).enumerate() {
        let prefix = &offsets[..=row + 1];
        match want_offsets(values, &prefix[row..]) {
            Err((_, Why::Structure(kind))) => return (bits, Err((row, Why::Structure(kind)))),
            result => bits.push(result.is_ok()),
        }
        let _ = pair;
    }
    let invalid = bits.iter().filter(|&&b| !b).count();
    (bits, Ok(invalid))
}

/// Runs every offsets API on `offsets` converted to `O` and compares with the oracle.
fn check_offsets_as<O: Offset + TryFrom<i128>>(values: &[u8], wide: &[i128], want: &Want) {
    let Ok(offsets) = wide
        .iter()
        .map(|&o| O::try_from(o))
        .collect::<Result<Vec<O>, _>>()
    else {
        return; // not representable in this type (negative for unsigned types)
    };
    let name = std::any::type_name::<O>();
    check(
        &format!("validate_offsets::<{name}>"),
        validate_offsets(values, &offsets),
        want,
    );
    #[cfg(feature = "rayon")]
    {
        check(
            &format!("par::validate_offsets::<{name}>"),
            utf8check::par::validate_offsets(values, &offsets),
            want,
        );
        for piece_len in [1, 7, 64, 1000] {
            check(
                &format!("par::validate_offsets_with_piece_len::<{name}>({piece_len})"),
                utf8check::par::validate_offsets_with_piece_len(values, &offsets, piece_len),
                want,
            );
        }
    }
    // valid_rows: bits of the rows, the bits after them untouched.
    let (want_bits, want_result) = want_valid_rows(values, wide);
    let rows = wide.len().saturating_sub(1);
    for fill in [0x00u8, 0xFF, 0x5A] {
        let mut validity = vec![fill; rows / 8 + 2];
        let got = valid_rows(values, &offsets, &mut validity);
        let got_parts = got.map_err(|e| (e.row(), Why::Structure(e.kind())));
        assert_eq!(got_parts, want_result, "valid_rows::<{name}>");
        for (i, &bit) in want_bits.iter().enumerate() {
            assert_eq!(
                validity[i / 8] >> (i % 8) & 1 == 1,
                bit,
                "valid_rows::<{name}> bit {i}"
            );
        }
        // Rows after a structural error, and bits after the last row, are left alone.
        for i in want_bits.len()..validity.len() * 8 {
            assert_eq!(
                validity[i / 8] >> (i % 8) & 1,
                fill >> (i % 8) & 1,
                "valid_rows::<{name}> touched bit {i}"
            );
        }
    }
}

fn check_offsets(values: &[u8], wide: &[i128]) {
    let want = want_offsets(values, wide);
    check_offsets_as::<i32>(values, wide, &want);
    check_offsets_as::<i64>(values, wide, &want);
    check_offsets_as::<u32>(values, wide, &want);
    check_offsets_as::<u64>(values, wide, &want);
    check_offsets_as::<usize>(values, wide, &want);
}

/// A column of `rows` random rows with junk before and after the span, and offsets.
fn column(rng: &mut Rng, rows: usize, bad_one_in: usize) -> (Vec<u8>, Vec<i128>) {
    let mut values = Vec::new();
    // Bytes outside the span: never read, whatever they are.
    for _ in 0..rng.below(4) {
        values.extend_from_slice(rng.pick(BAD));
    }
    let mut offsets = vec![values.len() as i128];
    for _ in 0..rows {
        values.extend(row(rng, bad_one_in));
        offsets.push(values.len() as i128);
    }
    for _ in 0..rng.below(4) {
        values.extend_from_slice(rng.pick(BAD));
    }
    (values, offsets)
}

/// Moves one row boundary into a character (the split-character trap), or makes a row
/// start with a continuation byte.
fn split_a_character(rng: &mut Rng, values: &[u8], offsets: &mut [i128]) {
    if offsets.len() < 3 {
        return;
    }
    let i = 1 + rng.below(offsets.len() - 2);
    let at = offsets[i] as usize;
    // Move the boundary onto a continuation byte within 3 bytes, if there is one and the
    // offsets stay ascending.
    for delta in [1usize, 2, 3] {
        for target in [at.wrapping_sub(delta), at + delta] {
            if target < values.len()
                && values[target] & 0xC0 == 0x80
                && offsets[i - 1] <= target as i128
                && target as i128 <= offsets[i + 1]
            {
                offsets[i] = target as i128;
                return;
            }
        }
    }
}

/// Breaks the structure of one row in one of the ways the specification lists.
fn break_structure(rng: &mut Rng, values: &[u8], offsets: &mut [i128]) {
    let i = rng.below(offsets.len());
    match rng.below(5) {
        0 => offsets[i] = -1 - rng.below(3) as i128,
        1 if i > 0 => offsets[i] = offsets[i - 1] - 1 - rng.below(2) as i128,
        2 => offsets[i] = values.len() as i128 + 1 + rng.below(5) as i128,
        3 => offsets[i] = i32::MAX as i128 + rng.below(2) as i128,
        _ => {
            if i + 1 < offsets.len() {
                offsets.swap(i, i + 1);
            }
        }
    }
}

#[test]
fn offsets_hand_picked_traps() {
    let cases: &[(&[u8], &[i128])] = &[
        // The split character: the concatenation is "café".
        (b"caf\xC3\xA9", &[0, 4, 5]),
        (b"caf\xC3\xA9", &[0, 3, 5]),
        (b"caf\xC3\xA9", &[0, 5]),
        // A row starting with a continuation byte after an empty row.
        (b"ab\xC3\xA9", &[0, 3, 3, 4]),
        (b"ab\xC3\xA9", &[0, 2, 2, 4]),
        // A 4-byte character cut at every byte.
        ("x😀y".as_bytes(), &[0, 2, 6]),
        ("x😀y".as_bytes(), &[0, 3, 6]),
        ("x😀y".as_bytes(), &[0, 4, 6]),
        ("x😀y".as_bytes(), &[0, 1, 5, 6]),
        // Invalid bytes outside the span.
        (b"\xFF\x80ok\xC3", &[2, 4]),
        (b"\xFFok\x80", &[1, 3, 3]),
        // A continuation byte right after the span: a trailing empty row starts there.
        (b"\xC3\xA9\xA9", &[0, 2, 2]),
        (b"\xC3\xA9\xA9", &[0, 2]),
        // Empty rows and no rows.
        (b"", &[]),
        (b"", &[0]),
        (b"", &[0, 0, 0]),
        (b"\xFF", &[0]),
        (b"\xFF", &[1, 1]),
        // Structure: negative, decreasing, out of bounds, and against a later bad row.
        (b"abc", &[-1, 2]),
        (b"abc", &[0, -1]),
        (b"abc", &[0, 2, 1, 3]),
        (b"abc", &[0, 4]),
        (b"abc", &[4, 4]),
        (b"ab\xFF", &[0, 3, 2]),
        (b"\xFFbc", &[0, 1, 0]),
        (b"a\xFFc", &[0, 1, 3, 9]),
        (b"abc", &[0, 1, 3, 9]),
    ];
    for &(values, offsets) in cases {
        check_offsets(values, offsets);
    }
    let err = validate_offsets(b"caf\xC3\xA9", &[0i32, 4, 5]).unwrap_err();
    assert_eq!(err.row(), 0);
    assert_eq!(
        err.to_string(),
        "row 0: incomplete utf-8 byte sequence from index 3 (truncated sequence)"
    );
}

/// Offsets at the extremes of each type, where a difference of two offsets overflows or
/// a value of an unsigned type reads as negative in a signed one: the structure check
/// works on the sign bits of the offsets and their differences.
#[test]
fn offsets_extreme_values() {
    let extremes: [i128; 12] = [
        i32::MAX as i128,
        i32::MIN as i128,
        1 << 31,
        u32::MAX as i128,
        1 << 32,
        i64::MAX as i128,
        i64::MIN as i128,
        1 << 63,
        (1 << 63) + 1,
        u64::MAX as i128,
        -2,
        -(1 << 31) - 1,
    ];
    for e in extremes {
        for offsets in [
            [0, e, 1, 3],
            [0, 1, e, 3],
            [e, 1, 2, 3],
            [0, 1, 2, e],
            [0, e, -2, 2],
            [0, e, e, 3],
            [e, e, e, e],
        ] {
            check_offsets(b"abc", &offsets);
        }
    }
}

#[test]
fn offsets_random_columns() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for case in 0..cases(3000) {
        let rows = match case % 5 {
            0 => rng.below(4),
            1 => rng.below(40),
            2 => CHUNK_ROWS - 2 + rng.below(5),
            3 => 2 * CHUNK_ROWS - 2 + rng.below(5),
            _ => rng.below(1500),
        };
        let bad_one_in = rng.pick(&[3, 50, 1000, usize::MAX]);
        let (values, mut offsets) = column(&mut rng, rows, bad_one_in);
        if rng.chance(2) {
            split_a_character(&mut rng, &values, &mut offsets);
        }
        if rng.chance(6) {
            break_structure(&mut rng, &values, &mut offsets);
        }
        check_offsets(&values, &offsets);
    }
}

/// One bad row (or one structural error) at every row near the chunk boundaries.
#[test]
fn offsets_error_at_every_row_near_chunk_boundaries() {
    let mut rng = Rng(7);
    let rows = 2 * CHUNK_ROWS + 3;
    let (values, offsets) = column(&mut rng, rows, usize::MAX);
    let near = |r: usize| r < 3 || r.abs_diff(CHUNK_ROWS) < 3 || r.abs_diff(2 * CHUNK_ROWS) < 3;
    for r in (0..rows).filter(|&r| near(r)) {
        // A continuation byte at the row's start (if it is not empty).
        let mut bad = values.clone();
        let (a, b) = (offsets[r] as usize, offsets[r + 1] as usize);
        if a < b {
            bad[a] = 0xA9;
            check_offsets(&bad, &offsets);
            // A truncated character at its end.
            let mut bad = values.clone();
            bad[b - 1] = 0xE2;
            check_offsets(&bad, &offsets);
        }
        let mut broken = offsets.clone();
        broken[r + 1] = broken[r] - 1;
        check_offsets(&values, &broken);
    }
}

/// Long all-ASCII starts (which the implementation skips a block of 512 bytes at a
/// time) followed by every trap, with the row boundaries on both sides of the ASCII
/// blocks' edges.
#[test]
fn offsets_after_ascii_runs() {
    for ascii_len in [500, 511, 512, 513, 1023, 1024, 1025, 2000] {
        for row_len in [1, 7, 13, 64] {
            for trap in [
                &b"caf\xC3"[..],
                b"\xA9x",
                b"\xFF",
                "é".as_bytes(),
                b"\xE2\x82",
            ] {
                let mut values = vec![b'a'; ascii_len];
                values.extend_from_slice(trap);
                values.extend_from_slice("ünï".as_bytes());
                values.extend_from_slice(&[b'z'; 600]);
                let len = values.len() as i128;
                let mut offsets: Vec<i128> = (0..len).step_by(row_len).collect();
                offsets.push(len);
                check_offsets(&values, &offsets);
                // And with a boundary moved into the trap.
                let mut moved = offsets.clone();
                if let Some(i) = moved.iter().position(|&o| o > ascii_len as i128) {
                    if i + 1 < moved.len() && moved[i - 1] <= ascii_len as i128 + 1 {
                        moved[i] = ascii_len as i128 + 1;
                        check_offsets(&values, &moved);
                    }
                }
            }
        }
    }
}

/// `par` on columns of several MiB that cross its default piece length.
#[cfg(feature = "rayon")]
#[test]
fn par_offsets_large_columns() {
    let mut values = Vec::new();
    let mut offsets = vec![0i64];
    let mut i = 0u64;
    while values.len() < 3 << 20 {
        values.extend_from_slice(GOOD[(i % GOOD.len() as u64) as usize].as_bytes());
        values.extend_from_slice(b" x");
        offsets.push(values.len() as i64);
        i += 1;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let rows = offsets.len() - 1;
    assert_eq!(
        pool.install(|| utf8check::par::validate_offsets(&values, &offsets)),
        Ok(())
    );
    for row in [0, 1, rows / 3, rows / 2 + 17, rows - 1] {
        // Around 64 KiB multiples, too: the rows that hold those bytes.
        for r in [
            row,
            offsets
                .partition_point(|&o| o < ((row as i64 + 1) << 16))
                .min(rows - 1),
        ] {
            let mut bad = values.clone();
            bad[offsets[r + 1] as usize - 1] = 0xC3; // "x" becomes a truncated lead byte
            let want = validate_offsets(&bad, &offsets);
            assert_eq!(want.unwrap_err().row(), r);
            assert_eq!(
                pool.install(|| utf8check::par::validate_offsets(&bad, &offsets)),
                want
            );
            let mut broken = offsets.clone();
            broken[r + 1] = -5;
            let want = validate_offsets(&values, &broken);
            assert_eq!(
                pool.install(|| utf8check::par::validate_offsets(&values, &broken)),
                want
            );
        }
    }
}

// --- views -----------------------------------------------------------------------------

fn inline_view(s: &[u8]) -> u128 {
    assert!(s.len() <= 12);
    let mut bytes = [0u8; 16];
    bytes[..4].copy_from_slice(&(s.len() as u32).to_le_bytes());
    bytes[4..4 + s.len()].copy_from_slice(s);
    u128::from_le_bytes(bytes)
}

fn long_view(len: u32, prefix: [u8; 4], buffer: u32, offset: u32) -> u128 {
    u128::from(len)
        | u128::from(u32::from_le_bytes(prefix)) << 32
        | u128::from(buffer) << 64
        | u128::from(offset) << 96
}

/// The oracle for one view.
fn view_why(view: u128, buffers: &[Vec<u8>]) -> Option<Why> {
    let len = view as u32;
    let bytes = view.to_le_bytes();
    if len <= 12 {
        if bytes[4 + len as usize..].iter().any(|&b| b != 0) {
            return Some(Why::Structure(ColumnErrorKind::NonZeroPadding));
        }
        return std_why(&bytes[4..4 + len as usize]);
    }
    let index = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
    let offset = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let Some(buffer) = buffers.get(index) else {
        return Some(Why::Structure(ColumnErrorKind::BufferIndexOutOfBounds));
    };
    let Some(data) = buffer.get(offset..offset + len as usize) else {
        return Some(Why::Structure(ColumnErrorKind::ViewOutOfBounds));
    };
    if data[..4] != bytes[4..8] {
        return Some(Why::Structure(ColumnErrorKind::PrefixMismatch));
    }
    std_why(data)
}

fn check_views(views: &[u128], buffers: &[Vec<u8>]) {
    let whys: Vec<Option<Why>> = views.iter().map(|&v| view_why(v, buffers)).collect();
    let want = whys
        .iter()
        .enumerate()
        .find_map(|(i, w)| w.map(|w| (i, w)))
        .map_or(Ok(()), Err);
    check("validate_views", validate_views(views, buffers), &want);
    let slices: Vec<&[u8]> = buffers.iter().map(Vec::as_slice).collect();
    check(
        "validate_views(&[&[u8]])",
        validate_views(views, &slices),
        &want,
    );
    // valid_views
    let first_structure = whys
        .iter()
        .position(|w| matches!(w, Some(Why::Structure(_))));
    let known = first_structure.unwrap_or(views.len());
    for fill in [0x00u8, 0xFF] {
        let mut validity = vec![fill; views.len() / 8 + 2];
        let got = valid_views(views, buffers, &mut validity);
        match first_structure {
            Some(row) => {
                let err = got.unwrap_err();
                assert_eq!(
                    (err.row(), Some(Why::Structure(err.kind()))),
                    (row, whys[row])
                );
            }
            None => {
                let invalid = whys.iter().filter(|w| w.is_some()).count();
                assert_eq!(got, Ok(invalid), "valid_views");
            }
        }
        for i in 0..validity.len() * 8 {
            let bit = validity[i / 8] >> (i % 8) & 1;
            if i < known {
                assert_eq!(bit == 1, whys[i].is_none(), "valid_views bit {i}");
            } else if i >= views.len() {
                assert_eq!(bit, fill >> (i % 8) & 1, "valid_views touched bit {i}");
            }
        }
    }
}

/// A random column of views: inline strings, long strings written one after another into
/// a few buffers (as builders do), with junk between some of them.
fn views_column(rng: &mut Rng, count: usize, bad_one_in: usize) -> (Vec<u128>, Vec<Vec<u8>>) {
    let mut buffers = vec![Vec::new(), Vec::new()];
    let mut views = Vec::new();
    for _ in 0..count {
        let s = row(rng, bad_one_in);
        if s.len() <= 12 {
            views.push(inline_view(&s));
        } else {
            let b = rng.below(buffers.len());
            if rng.chance(8) {
                // A gap: the next string is not contiguous with the last.
                buffers[b].extend_from_slice(rng.pick(BAD));
            }
            let offset = buffers[b].len() as u32;
            buffers[b].extend_from_slice(&s);
            views.push(long_view(
                s.len() as u32,
                s[..4].try_into().unwrap(),
                b as u32,
                offset,
            ));
        }
    }
    (views, buffers)
}

/// Spoils one view in one of the ways the specification lists (or with bytes that are
/// only bad together with a neighbour).
fn spoil_view(rng: &mut Rng, views: &mut [u128], buffers: &mut [Vec<u8>]) {
    if views.is_empty() {
        return;
    }
    let i = rng.below(views.len());
    let v = views[i];
    let len = v as u32;
    match rng.below(8) {
        // Padding: one non-zero byte after an inline string.
        0 if len < 12 => {
            views[i] = v | 1u128 << (8 * (4 + len + rng.below(12 - len as usize) as u32))
        }
        1 if len > 12 => {
            views[i] = v & !(u128::from(u32::MAX) << 64) | u128::from(2 + rng.below(3) as u32) << 64
        }
        2 if len > 12 => {
            let offset =
                [u32::MAX - 3, (v >> 96) as u32 + 1 + rng.below(1000) as u32][rng.below(2)];
            views[i] = v & !(u128::from(u32::MAX) << 96) | u128::from(offset) << 96;
        }
        3 if len > 12 => views[i] = v ^ 1u128 << (32 + rng.below(32)),
        // A long string's data changed under its prefix, or after it.
        4 if len > 12 => {
            let (b, o) = ((v >> 64) as u32 as usize, (v >> 96) as u32 as usize);
            let at = o + rng.below(len as usize);
            // (Unless an earlier spoil moved the view out of its buffer.)
            if let Some(byte) = buffers.get_mut(b).and_then(|buffer| buffer.get_mut(at)) {
                *byte = rng.pick(&[0x80, 0xA9, 0xC3, 0xFF, 0xE2]);
            }
        }
        // An inline string cut inside a character, before a long view whose length byte is a
        // continuation byte (169 = 0xA9).
        5 if i + 1 < views.len() => {
            views[i] = inline_view(b"abcdefghijk\xC3");
            let data = [b'x'; 169];
            let b = rng.below(buffers.len());
            let offset = buffers[b].len() as u32;
            buffers[b].extend_from_slice(&data);
            views[i + 1] = long_view(169, *b"xxxx", b as u32, offset);
        }
        // Two contiguous long strings that split a character between them.
        6 if i + 1 < views.len() => {
            let b = rng.below(buffers.len());
            let offset = buffers[b].len() as u32;
            buffers[b].extend_from_slice("0123456789abcdé0123456789abcdef".as_bytes());
            views[i] = long_view(15, *b"0123", b as u32, offset);
            views[i + 1] = long_view(17, [0xA9, b'0', b'1', b'2'], b as u32, offset + 15);
        }
        _ => views[i] = inline_view(rng.pick(BAD)),
    }
}

#[test]
fn views_hand_picked() {
    let data = "0123456789abcdé0123456789abcdef".as_bytes().to_vec();
    let buffers = vec![data.clone()];
    let cases: Vec<Vec<u128>> = vec![
        vec![],
        vec![inline_view(b"")],
        vec![inline_view("née".as_bytes()), long_view(16, *b"0123", 0, 0)],
        // Split character across two contiguous long strings.
        vec![
            long_view(15, *b"0123", 0, 0),
            long_view(17, [0xA9, b'0', b'1', b'2'], 0, 15),
        ],
        vec![
            long_view(16, *b"0123", 0, 0),
            long_view(16, *b"0123", 0, 16),
        ],
        // Out of bounds: index, range, overflowing range.
        vec![long_view(16, *b"0123", 1, 0)],
        vec![long_view(40, *b"0123", 0, 0)],
        vec![long_view(16, *b"0123", 0, u32::MAX - 3)],
        vec![long_view(16, *b"0124", 0, 0)],
        // Padding, and a length of 12 (no padding at all).
        vec![inline_view(b"ab") | 1u128 << 127],
        vec![inline_view(b"abcdefghijkl")],
        vec![inline_view(b"abcdefghijk\xC3")],
        vec![inline_view(b"\xA9")],
    ];
    for views in &cases {
        check_views(views, &buffers);
    }
}

#[test]
fn views_random_columns() {
    let mut rng = Rng(0xDEAD_BEEF_1234_5678);
    for case in 0..cases(3000) {
        let count = match case % 4 {
            0 => rng.below(5),
            1 => VIEW_BATCH - 2 + rng.below(5),
            2 => 3 * VIEW_BATCH + rng.below(3),
            _ => rng.below(300),
        };
        let bad_one_in = rng.pick(&[3, 100, usize::MAX]);
        let (mut views, mut buffers) = views_column(&mut rng, count, bad_one_in);
        for _ in 0..rng.below(3) {
            spoil_view(&mut rng, &mut views, &mut buffers);
        }
        check_views(&views, &buffers);
    }
}

/// A valid column of `count` views that mixes every kind the batched check sorts apart:
/// inline ASCII strings of every length, inline strings that are not ASCII (so that they
/// need the closer look), and long strings written one after another into buffer 0.
/// Buffer 1 is for the views a test plants.
fn mixed_views(count: usize) -> (Vec<u128>, Vec<Vec<u8>>) {
    let mut buffers = vec![Vec::new(), Vec::new()];
    let views = (0..count)
        .map(|i| match i % 5 {
            0 | 3 => inline_view(&b"abcdefghijkl"[..i % 13]),
            1 => inline_view(["née", "ça", "€", "😀x"][i % 4].as_bytes()),
            _ => {
                // 13 bytes (the shortest long string) and more.
                let s = ["13 bytes long", "una línea más larga", "0123456789ab€"][i % 3];
                let offset = buffers[0].len() as u32;
                buffers[0].extend_from_slice(s.as_bytes());
                long_view(
                    s.len() as u32,
                    s.as_bytes()[..4].try_into().unwrap(),
                    0,
                    offset,
                )
            }
        })
        .collect();
    (views, buffers)
}

/// The places a planted view is tried at: the first and last view of a batch, the first
/// of the next one, and a view in the middle, in columns of one view, one batch, a batch
/// and one, and two batches.
const PLACES: [(usize, usize); 6] = [
    (0, 1),
    (0, VIEW_BATCH),
    (VIEW_BATCH - 1, VIEW_BATCH),
    (VIEW_BATCH / 2 + 3, VIEW_BATCH + 1),
    (VIEW_BATCH, VIEW_BATCH + 1),
    (VIEW_BATCH + 7, 2 * VIEW_BATCH),
];

/// Every inline length with, at every byte after the length field, the bytes that the
/// batched check tells apart: ASCII, a zero (inside the string it is a valid character,
/// in the padding it is padding), the high bit (the closer look), bits in the padding.
#[test]
fn views_inline_every_length_and_byte() {
    for len in 0..=12 {
        for at in 4..16 {
            for byte in [0x00, 0x01, 0x7F, 0x80, 0xA9, 0xC3, 0xE2, 0xFF] {
                let mut bytes = inline_view(&b"abcdefghijkl"[..len]).to_le_bytes();
                bytes[at] = byte;
                let view = u128::from_le_bytes(bytes);
                for (place, count) in PLACES {
                    let (mut views, buffers) = mixed_views(count);
                    views[place] = view;
                    check_views(&views, &buffers);
                }
            }
        }
    }
}

/// A good or bad view of each kind planted at every position of the first two batches
/// and the start of the third: the sorting of a batch into lists, the closer look, the
/// spans of long views and the per-view search after a failed batch all see it there.
#[test]
fn views_planted_at_every_position() {
    let count = 2 * VIEW_BATCH + 2;
    for place in 0..count {
        for plant in 0..9 {
            let (mut views, mut buffers) = mixed_views(count);
            let mut long_in_buffer_1 = |data: &[u8], prefix: [u8; 4]| {
                let offset = buffers[1].len() as u32;
                buffers[1].extend_from_slice(data);
                long_view(data.len() as u32, prefix, 1, offset)
            };
            views[place] = match plant {
                0 => inline_view("ça va".as_bytes()),
                1 => inline_view(b"ab\xE2\x82"),
                2 => inline_view(b"abc") | 1u128 << 120,
                3 => inline_view(b"\xA9"),
                // A long view that breaks the span of its neighbours, good or bad.
                4 => long_in_buffer_1("élan, a long one".as_bytes(), *b"\xC3\xA9la"),
                5 => long_in_buffer_1(b"bad data \xFF!!!", *b"bad "),
                6 => long_in_buffer_1(b"wrong prefix here", *b"wroN"),
                7 => long_view(13, *b"abcd", 1, u32::MAX - 10),
                _ => long_view(20, *b"abcd", 2, 0),
            };
            check_views(&views, &buffers);
        }
    }
}

/// Several bad views in one column, sparse and dense, with and without a structural
/// error after them: `valid_views` halves a failing batch and checks the halves as
/// batches again, and each bad view must be marked wherever the halves fall.
#[test]
fn views_many_bad_views() {
    let count = 3 * VIEW_BATCH + 5;
    let mut rng = Rng(0x05EE_D0FB_ADF1_E1D5);
    for every in [2, 3, 17, 31, 64, 65, 100, 200, count] {
        for structural in [None, Some(count / 2), Some(count - 1)] {
            let (mut views, buffers) = mixed_views(count);
            let offset = rng.below(every);
            for i in (offset..count).step_by(every) {
                views[i] = inline_view(rng.pick(BAD));
            }
            if let Some(i) = structural {
                views[i] = long_view(20, *b"abcd", 7, 0);
            }
            check_views(&views, &buffers);
        }
    }
}

// --- Parquet PLAIN ---------------------------------------------------------------------

/// The oracle for a PLAIN page: bytes consumed, or the lowest bad value.
fn want_plain(page: &[u8], num_values: usize) -> Result<usize, (usize, Why)> {
    let mut pos = 0usize;
    for value in 0..num_values {
        let past_end = Err((value, Why::Structure(ColumnErrorKind::PastEndOfPage)));
        let Some(len) = page.get(pos..pos + 4) else {
            return past_end;
        };
        let len = u32::from_le_bytes(len.try_into().unwrap()) as usize;
        let Some(data) = page.get(pos + 4..pos + 4 + len) else {
            return past_end;
        };
        if let Some(why) = std_why(data) {
            return Err((value, why));
        }
        pos += 4 + len;
    }
    Ok(pos)
}

fn check_plain(page: &[u8], num_values: usize) {
    let want = want_plain(page, num_values);
    let got = validate_plain(page, num_values);
    let consumed = got.map_err(|e| {
        let why = match e.utf8_error() {
            Some(u) => Why::Utf8(u.valid_up_to(), u.error_len()),
            None => Why::Structure(e.kind()),
        };
        (e.row(), why)
    });
    assert_eq!(
        consumed,
        want,
        "validate_plain({num_values}) of {} bytes",
        page.len()
    );
}

fn plain_page(rng: &mut Rng, count: usize, bad_one_in: usize) -> Vec<u8> {
    let mut page = Vec::new();
    for _ in 0..count {
        let mut value = row(rng, bad_one_in);
        if rng.chance(20) {
            // 128 bytes or more: a length byte with its high bit set.
            value.extend_from_slice(&[b'y'; 160]);
            if rng.chance(2) {
                value.extend_from_slice("é".repeat(rng.below(40)).as_bytes());
            }
        }
        page.extend_from_slice(&(value.len() as u32).to_le_bytes());
        page.extend_from_slice(&value);
    }
    page
}

#[test]
fn plain_hand_picked() {
    let value = |s: &[u8]| {
        let mut v = (s.len() as u32).to_le_bytes().to_vec();
        v.extend_from_slice(s);
        v
    };
    // A value cut inside a character, then a value of 169 bytes (length byte 0xA9).
    let mut page = value(b"caf\xC3");
    page.extend(value(&[b'z'; 169]));
    check_plain(&page, 2);
    check_plain(&page, 1);
    check_plain(&page, 0);
    check_plain(&page, 3);
    check_plain(b"", 0);
    check_plain(b"", 1);
    check_plain(b"\x01\x00\x00", 1);
    check_plain(b"\x05\x00\x00\x00abc", 1);
    check_plain(b"\xFF\xFF\xFF\xFFabc", 1);
    check_plain(b"\x00\x00\x00\x00\x01\x00\x00\x00\x80", 2);
    let mut page = value("ok".as_bytes());
    page.extend(value(b"\xA9"));
    check_plain(&page, 2);
}

#[test]
fn plain_random_pages() {
    let mut rng = Rng(42);
    for case in 0..cases(3000) {
        let count = if case % 10 == 0 { 3000 } else { rng.below(60) };
        let bad_one_in = rng.pick(&[3, 200, usize::MAX]);
        let mut page = plain_page(&mut rng, count, bad_one_in);
        let mut num_values = count;
        match rng.below(6) {
            0 => num_values += 1 + rng.below(2),
            1 if !page.is_empty() => {
                let cut = rng.below(page.len());
                page.truncate(cut);
            }
            2 if !page.is_empty() => {
                let at = rng.below(page.len());
                page[at] = rng.next() as u8;
            }
            3 => num_values = rng.below(count + 1),
            _ => {}
        }
        check_plain(&page, num_values);
    }
}

// --- properties ------------------------------------------------------------------------

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Rows of arbitrary bytes with a bias towards UTF-8 text.
    fn rows() -> impl Strategy<Value = Vec<Vec<u8>>> {
        let row = prop_oneof![
            3 => "\\PC{0,12}".prop_map(String::into_bytes),
            1 => proptest::collection::vec(any::<u8>(), 0..6),
            1 => "\\PC{13,40}".prop_map(String::into_bytes),
        ];
        proptest::collection::vec(row, 0..80)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Any rows, any boundaries moved by a few bytes: the oracle's answer.
        #[test]
        fn offsets_match_the_oracle(rows in rows(), nudges in proptest::collection::vec((any::<usize>(), -3i128..=3), 0..4)) {
            let mut values = b"\x80".to_vec();
            let mut offsets = vec![1i128];
            for r in &rows {
                values.extend_from_slice(r);
                offsets.push(values.len() as i128);
            }
            values.push(0xC3);
            for (at, by) in nudges {
                let i = at % offsets.len();
                offsets[i] += by;
            }
            check_offsets(&values, &offsets);
        }

        #[test]
        fn views_match_the_oracle(rows in rows(), spoil in any::<u64>()) {
            let mut buffer = Vec::new();
            let mut views = Vec::new();
            for r in &rows {
                if r.len() <= 12 {
                    views.push(inline_view(r));
                } else {
                    views.push(long_view(r.len() as u32, r[..4].try_into().unwrap(), 0, buffer.len() as u32));
                    buffer.extend_from_slice(r);
                }
            }
            let mut buffers = vec![buffer];
            let mut rng = Rng(spoil | 1);
            if rng.chance(2) {
                spoil_view(&mut rng, &mut views, &mut buffers);
            }
            check_views(&views, &buffers);
        }

        #[test]
        fn plain_matches_the_oracle(rows in rows(), extra in 0usize..3, cut in any::<usize>()) {
            let mut page = Vec::new();
            for r in &rows {
                page.extend_from_slice(&(r.len() as u32).to_le_bytes());
                page.extend_from_slice(r);
            }
            if cut % 4 == 0 && !page.is_empty() {
                page.truncate(cut % page.len());
            }
            check_plain(&page, rows.len() + extra);
        }
    }
}

#[test]
#[should_panic(expected = "validity bitmap too short")]
fn valid_rows_panics_on_a_short_bitmap() {
    let mut validity = [0u8; 1];
    let _ = valid_rows(
        b"abcdefghi",
        &[0u32, 1, 2, 3, 4, 5, 6, 7, 8, 9],
        &mut validity,
    );
}

#[test]
#[should_panic(expected = "validity bitmap too short")]
fn valid_views_panics_on_a_short_bitmap() {
    let mut validity = [];
    let _ = valid_views::<&[u8]>(&[0u128], &[], &mut validity);
}

#[test]
fn error_traits() {
    fn assert_traits<
        T: Clone
            + Eq
            + std::fmt::Debug
            + std::fmt::Display
            + std::error::Error
            + Send
            + Sync
            + 'static,
    >() {
    }
    assert_traits::<ColumnError>();
    let err = validate_offsets(b"ab\xFFcd", &[0usize, 2, 5]).unwrap_err();
    assert_eq!(err.row(), 1);
    assert_eq!(err.utf8_error(), utf8check::from_utf8(b"\xFFcd").err());
    assert_eq!(
        err.to_string(),
        "row 1: invalid utf-8 sequence of 1 bytes from index 0 (invalid byte)"
    );
    let boxed: Box<dyn std::error::Error> = Box::new(err);
    assert!(boxed.to_string().starts_with("row 1"));
    let err = validate_offsets(b"ab", &[0u64, 3]).unwrap_err();
    assert_eq!(err.to_string(), "row 0: ends past the end of the values");
    assert_eq!(err.utf8_error(), None);
}
