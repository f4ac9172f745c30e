//! `utf8check::columnar` (and `par::validate_offsets`) against a per-row oracle
//! (`utf8check_fuzz::columnar`): every row checked on its own with `core::str::from_utf8`,
//! the structural rules written out again, the lowest bad row wins.
//!
//! Input: a [`Header`] with up to 254 control bytes, then the text. The first control
//! byte picks the layout and a parameter; the others describe the rows:
//!
//! * offsets (`% 3 == 0`): the text is the values buffer; each control byte adds an offset
//!   (the previous plus `byte % 24`, or a negative, decreasing or out-of-bounds one for
//!   `0xF0..=0xF2`). Checked for `i32`, `i64`, `u32`, `u64`, `usize`, with `valid_rows`
//!   and with `par` (pieces of 1 to 16 bytes, and the default ones);
//! * views (`% 3 == 1`): pairs of control bytes describe views into the text (inline or
//!   long, spoiled by the second byte's bits: padding, buffer index, range, prefix),
//!   checked with `validate_views` and `valid_views`;
//! * PLAIN pages (`% 3 == 2`): the control bytes are value lengths (`0xFF`: 200 bytes,
//!   whose length has a byte with the high bit set), the values cut from the text; the
//!   page and the raw text are checked with `validate_plain` for a few value counts.

#![no_main]

use libfuzzer_sys::fuzz_target;
use utf8check::columnar::{self, Offset};
use utf8check_fuzz::columnar::{check, check_validity, first, offsets_row, plain, view, Why};
use utf8check_fuzz::Header;

fuzz_target!(|data: &[u8]| {
    let Header { control, text } = Header::parse(data, 254);
    let Some((&mode, rows)) = control.split_first() else {
        return;
    };
    match mode % 3 {
        0 => offsets(mode, rows, text),
        1 => views(rows, text),
        _ => pages(mode, rows, text),
    }
});

fn offsets(mode: u8, rows: &[u8], values: &[u8]) {
    let len = values.len() as i128;
    let mut offsets = vec![i128::from(mode / 3 % 5).min(len)];
    for &c in rows {
        let previous = offsets[offsets.len() - 1];
        offsets.push(match c {
            0xF0 => -1,
            0xF1 => previous - 1,
            0xF2 => len + 1,
            _ => previous + i128::from(c % 24),
        });
    }
    let whys: Vec<Option<Why>> = (0..offsets.len() - 1)
        .map(|row| offsets_row(values, &offsets, row))
        .collect();
    let piece_len = usize::from(mode / 16) + 1;
    check_as::<i32>(values, &offsets, &whys, piece_len);
    check_as::<i64>(values, &offsets, &whys, piece_len);
    check_as::<u32>(values, &offsets, &whys, piece_len);
    check_as::<u64>(values, &offsets, &whys, piece_len);
    check_as::<usize>(values, &offsets, &whys, piece_len);
}

fn check_as<O: Offset + TryFrom<i128>>(
    values: &[u8],
    wide: &[i128],
    whys: &[Option<Why>],
    piece_len: usize,
) {
    let Ok(offsets) = wide
        .iter()
        .map(|&o| O::try_from(o))
        .collect::<Result<Vec<O>, _>>()
    else {
        return;
    };
    let want = first(whys);
    check(
        "validate_offsets",
        columnar::validate_offsets(values, &offsets),
        &want,
    );
    check(
        "par::validate_offsets",
        utf8check::par::validate_offsets(values, &offsets),
        &want,
    );
    check(
        "par::validate_offsets_with_piece_len",
        utf8check::par::validate_offsets_with_piece_len(values, &offsets, piece_len),
        &want,
    );
    for fill in [0x00, 0xFF] {
        let mut validity = vec![fill; whys.len() / 8 + 1];
        let got = columnar::valid_rows(values, &offsets, &mut validity);
        check_validity("valid_rows", got, &validity, fill, whys);
    }
}

fn views(pairs: &[u8], text: &[u8]) {
    let buffers = [text, &text[text.len() / 2..]];
    let mut views = Vec::new();
    let mut pos = 0;
    for pair in pairs.chunks_exact(2) {
        let (c, flags) = (pair[0], pair[1]);
        let len = usize::from(c % 24);
        let Some(bytes) = text.get(pos..pos + len) else {
            break;
        };
        let mut v = [0u8; 16];
        v[..4].copy_from_slice(&(len as u32).to_le_bytes());
        if len <= 12 {
            v[4..4 + len].copy_from_slice(bytes);
            if flags & 0x80 != 0 && len < 12 {
                v[4 + len + usize::from(flags) % (12 - len)] = flags | 1;
            }
        } else {
            v[4..8].copy_from_slice(&bytes[..4]);
            let index = u32::from(flags & 0x40 != 0) + u32::from(flags & 0x20 != 0) * 2;
            let offset = match flags & 0x18 {
                0x08 => pos as u32 + u32::from(flags & 7),
                0x10 => u32::MAX - u32::from(flags & 7),
                _ => pos as u32,
            };
            v[8..12].copy_from_slice(&index.to_le_bytes());
            v[12..].copy_from_slice(&offset.to_le_bytes());
            if flags & 0x80 != 0 {
                v[4 + usize::from(flags) % 4] ^= flags;
            }
        }
        views.push(u128::from_le_bytes(v));
        // Overlapping and contiguous strings both: advance by part of the length.
        pos += len - len * usize::from(c >> 7) / 2;
    }
    let whys: Vec<Option<Why>> = views.iter().map(|&v| view(v, &buffers)).collect();
    check(
        "validate_views",
        columnar::validate_views(&views, &buffers),
        &first(&whys),
    );
    for fill in [0x00, 0xFF] {
        let mut validity = vec![fill; views.len() / 8 + 1];
        let got = columnar::valid_views(&views, &buffers, &mut validity);
        check_validity("valid_views", got, &validity, fill, &whys);
    }
}

fn pages(mode: u8, lengths: &[u8], text: &[u8]) {
    // The raw text as a page.
    for num_values in [0, 1, 2, usize::from(mode / 3)] {
        let got =
            columnar::validate_plain(text, num_values).map_err(utf8check_fuzz::columnar::parts);
        assert_eq!(
            got,
            plain(text, num_values),
            "validate_plain(raw, {num_values})"
        );
    }
    // A page of values cut from the text, with real lengths.
    let mut page = Vec::new();
    let mut pos = 0;
    for &c in lengths {
        let len = if c == 0xFF { 200 } else { usize::from(c % 40) };
        if text.is_empty() {
            break;
        }
        let value: Vec<u8> = (pos..pos + len).map(|i| text[i % text.len()]).collect();
        pos += len;
        page.extend_from_slice(&(len as u32).to_le_bytes());
        page.extend_from_slice(&value);
    }
    let count = lengths.len();
    for num_values in [count, count + 1, usize::from(mode / 3) % (count + 1)] {
        let got =
            columnar::validate_plain(&page, num_values).map_err(utf8check_fuzz::columnar::parts);
        assert_eq!(
            got,
            plain(&page, num_values),
            "validate_plain(page, {num_values})"
        );
    }
}
