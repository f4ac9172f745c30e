//! Plugging utf8check into arrow-rs: validate a column with `utf8check::columnar`, then
//! build the array with `new_unchecked`, so that arrow-rs does not validate it again; and
//! tolerant ingest, where the rows that are not UTF-8 become nulls.
//!
//! ```sh
//! cd compare/arrow && cargo run --release --example plug_in
//! ```

use std::sync::Arc;

use arrow_array::{Array, StringArray, StringViewArray};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use utf8check::columnar;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A column as a reader decodes it: a values buffer and offsets.
    let values = Buffer::from("Grüße東京naïve".as_bytes().to_vec());
    let offsets = OffsetBuffer::new(ScalarBuffer::from(vec![0i32, 7, 13, 19]));

    // One pass, the exact bad row on failure...
    columnar::validate_offsets(&values, &offsets)?;
    // SAFETY: validate_offsets accepted the column: every row lies within `values` and is
    // UTF-8 on its own, which is all `StringArray::try_new` would check.
    let array = unsafe { StringArray::new_unchecked(offsets, values, None) };
    println!("{array:?}");
    assert_eq!(array.value(1), "東京");

    // The same for views (StringViewArray): views and their data buffers.
    let long = "a string longer than twelve bytes";
    let data = Buffer::from(long.as_bytes().to_vec());
    let mut short = [0u8; 16];
    short[0] = 3;
    short[4..7].copy_from_slice(b"abc");
    let views = vec![
        u128::from_le_bytes(short),
        u128::from(long.len() as u32)
            | u128::from(u32::from_le_bytes(long.as_bytes()[..4].try_into()?)) << 32,
    ];
    let buffers = vec![data];
    columnar::validate_views(&views, &buffers)?;
    // SAFETY: validate_views accepted every view: padding, buffer index, range, prefix and
    // UTF-8, which is what `StringViewArray::try_new` checks.
    let array = unsafe {
        StringViewArray::new_unchecked(ScalarBuffer::from(views.clone()), Arc::from(buffers), None)
    };
    assert_eq!(array.value(1), long);

    // Tolerant ingest: bad rows become nulls instead of failing the whole batch. arrow-rs
    // requires every slot to be UTF-8, null or not; with views, a bad view is replaced by
    // the empty string (the view 0) without touching the data.
    let mut views = views;
    views[0] =
        u128::from_le_bytes(*b"\x03\x00\x00\x00\xC0\xAFa\x00\x00\x00\x00\x00\x00\x00\x00\x00");
    let buffers = vec![Buffer::from(long.as_bytes().to_vec())];
    let mut validity = vec![0u8; 1];
    let bad_rows = columnar::valid_views(&views, &buffers, &mut validity)?;
    for (i, view) in views.iter_mut().enumerate() {
        if validity[i / 8] >> (i % 8) & 1 == 0 {
            *view = 0;
        }
    }
    let nulls = NullBuffer::new(BooleanBuffer::new(Buffer::from(validity), 0, views.len()));
    // SAFETY: valid_views returned Ok: every view is well-formed, every view that was not
    // UTF-8 is now the empty string, and the others are UTF-8.
    let array = unsafe {
        StringViewArray::new_unchecked(ScalarBuffer::from(views), Arc::from(buffers), Some(nulls))
    };
    assert_eq!(bad_rows, 1);
    assert!(array.is_null(0));
    assert_eq!(array.value(1), long);
    println!("{array:?}");

    // And an error names the row and the reason.
    let err = columnar::validate_offsets(b"ok\xC3", &[0i32, 2, 3]).unwrap_err();
    println!("{err}");
    assert_eq!(err.row(), 1);
    Ok(())
}
