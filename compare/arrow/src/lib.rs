//! The contenders that `utf8check::columnar` is compared with, and the string columns the
//! comparison runs on.
//!
//! * [`arrow`]: arrow-rs's own checks, called as arrow-rs calls them:
//!   `GenericStringType::<O>::validate` (what `StringArray::try_new` runs),
//!   `GenericByteArray::try_new`, and `arrow_data::validate_string_view` (what
//!   `StringViewArray::try_new` runs).
//! * [`polars`]: Polars' checks, re-implemented (see that module for why and from where).
//! * [`concatenation_only`]: the naive check that validates the concatenation of the rows
//!   and nothing else, which the split-character trap defeats.
//! * [`Column`]: a string column in both Arrow layouts (offsets and views), built from
//!   pieces of text the way Arrow's builders lay them out.

use std::sync::Arc;

use arrow_array::types::{GenericStringType, StringViewType};
use arrow_array::{GenericByteArray, GenericByteViewArray, OffsetSizeTrait};
use arrow_buffer::{Buffer, OffsetBuffer, ScalarBuffer};

/// arrow-rs's checks, called directly.
pub mod arrow {
    use super::*;
    use arrow_array::types::ByteArrayType;

    /// `GenericStringType::<O>::validate`: the check `GenericStringArray::try_new` runs
    /// (`std::str::from_utf8` over the span, then `is_char_boundary` at every offset).
    /// The offsets are an `OffsetBuffer`, whose constructor has already checked that they
    /// are non-negative and ascending.
    #[inline]
    pub fn validate<O: OffsetSizeTrait>(values: &Buffer, offsets: &OffsetBuffer<O>) -> bool {
        GenericStringType::<O>::validate(offsets, values).is_ok()
    }

    /// `GenericByteArray::<GenericStringType<O>>::try_new`: [`validate`] plus building the
    /// array (two reference-count increments for the buffers it takes).
    #[inline]
    pub fn try_new<O: OffsetSizeTrait>(values: &Buffer, offsets: &OffsetBuffer<O>) -> bool {
        GenericByteArray::<GenericStringType<O>>::try_new(offsets.clone(), values.clone(), None)
            .is_ok()
    }

    /// `arrow_data::validate_string_view`: what `StringViewArray::try_new`
    /// runs, one view at a time with `std::str::from_utf8`.
    #[inline]
    pub fn validate_views(views: &[u128], buffers: &[Buffer]) -> bool {
        arrow_data::validate_string_view(views, buffers).is_ok()
    }

    /// An arrow-rs `OffsetBuffer` of `offsets`, or `None` where arrow-rs refuses them
    /// (negative or decreasing offsets: `OffsetBuffer::new` would panic).
    pub fn offset_buffer<O: OffsetSizeTrait>(offsets: &[O]) -> Option<OffsetBuffer<O>> {
        let well_formed = !offsets.is_empty()
            && offsets[0] >= O::usize_as(0)
            && offsets.windows(2).all(|w| w[0] <= w[1]);
        well_formed.then(|| OffsetBuffer::new(ScalarBuffer::from(offsets.to_vec())))
    }

    /// A `StringViewArray` of the views, built without a second check: the way to plug
    /// utf8check in (see `examples/plug_in.rs`).
    pub fn view_array(views: &[u128], buffers: &[Buffer]) -> GenericByteViewArray<StringViewType> {
        utf8check::columnar::validate_views(views, buffers).expect("valid views");
        // SAFETY: validate_views accepted the views and buffers: every view is in bounds,
        // has zero padding and a matching prefix, and is UTF-8, which is what try_new checks.
        unsafe {
            GenericByteViewArray::new_unchecked(
                ScalarBuffer::from(views.to_vec()),
                Arc::from(buffers.to_vec()),
                None,
            )
        }
    }
}

/// Polars' UTF-8 checks of string columns, re-implemented.
///
/// `polars-arrow` is not a dependency: it pulls in most of Polars (and its pinned
/// toolchain features), far too heavy to build here for two functions. These are
/// faithful re-implementations of the two functions, as read in the Polars repository
/// (`pola-rs/polars`, `crates/polars-arrow/src/array/specification.rs` for
/// `try_check_utf8`, and `crates/polars-arrow/src/array/binview/view.rs` for
/// `validate_utf8_view`), same algorithm and same calls (`is_ascii`, `simdutf8::basic`),
/// with Polars' error types replaced by `bool`.
pub mod polars {
    /// The offsets types Polars' check takes (`i32`, `i64`).
    pub trait Offset: Copy {
        fn to_usize(self) -> usize;
    }
    impl Offset for i32 {
        #[inline(always)]
        fn to_usize(self) -> usize {
            self as usize
        }
    }
    impl Offset for i64 {
        #[inline(always)]
        fn to_usize(self) -> usize {
            self as usize
        }
    }

    /// `try_check_utf8`, which `Utf8Array::try_new` runs on offsets that an
    /// `OffsetsBuffer` already holds (so non-negative and ascending, and non-empty): the
    /// last offset within the values; the span all ASCII, or else valid by
    /// `simdutf8::basic` and no offset below `values.len()` (up to the last such one) at a
    /// continuation byte.
    ///
    /// Note the last test reads `values[end]`, the byte right after the span, whenever
    /// the span ends before `values.len()`: a byte that belongs to no row.
    #[inline]
    pub fn try_check_utf8<O: Offset>(offsets: &[O], values: &[u8]) -> bool {
        if offsets.len() == 1 {
            return true;
        }
        assert!(offsets.len() > 1);
        let end = offsets[offsets.len() - 1].to_usize();
        let start = offsets[0].to_usize();
        if end > values.len() {
            return false;
        }
        let span = &values[start..end];
        if span.is_ascii() {
            return true;
        }
        if simdutf8::basic::from_utf8(span).is_err() {
            return false;
        }
        // The last offset (after the first) that is below values.len().
        let Some(last) = offsets
            .iter()
            .enumerate()
            .skip(1)
            .rev()
            .find_map(|(i, o)| (o.to_usize() < values.len()).then_some(i))
        else {
            return true;
        };
        let mut any_invalid = false;
        for o in &offsets[..=last] {
            // Polars reads this byte unchecked: in bounds by the search above.
            let b = values[o.to_usize()];
            any_invalid |= (b as i8) < -0x40;
        }
        !any_invalid
    }

    /// `try_check_offsets`, which `OffsetsBuffer::try_from` runs before `try_check_utf8`
    /// ever sees the offsets (`crates/polars-arrow/src/offset.rs`): the first is not
    /// negative and none decreases, in a loop without a break (it vectorizes).
    #[inline]
    pub fn try_check_offsets<O: Offset + PartialOrd + Default>(offsets: &[O]) -> bool {
        let Some(&first) = offsets.first() else {
            return false;
        };
        if first < O::default() {
            return false;
        }
        let mut previous = first;
        let mut any_invalid = false;
        for &offset in offsets {
            any_invalid |= previous > offset;
            previous = offset;
        }
        !any_invalid
    }

    /// `validate_utf8_view` (Polars' `validate_view` with `simdutf8::basic` per view),
    /// which `BinaryViewArrayGeneric::<str>::try_new` runs: per view, the padding of an
    /// inline string; the buffer index, range and prefix of a long one; then its bytes.
    #[inline]
    pub fn validate_utf8_view<B: AsRef<[u8]>>(views: &[u128], buffers: &[B]) -> bool {
        for &view in views {
            let len = view as u32;
            if len <= 12 {
                if len < 12 && view >> (32 + len * 8) != 0 {
                    return false;
                }
                // A copy on the stack, as Polars' `to_le_bytes()[4..4 + len]` is.
                let le = view.to_le_bytes();
                if simdutf8::basic::from_utf8(&le[4..4 + len as usize]).is_err() {
                    return false;
                }
            } else {
                let index = (view >> 64) as u32 as usize;
                let offset = (view >> 96) as u32 as usize;
                let prefix = ((view >> 32) as u32).to_le_bytes();
                let Some(data) = buffers.get(index) else {
                    return false;
                };
                let Some(b) = data.as_ref().get(offset..offset + len as usize) else {
                    return false;
                };
                if !b.starts_with(&prefix) || simdutf8::basic::from_utf8(b).is_err() {
                    return false;
                }
            }
        }
        true
    }
}

/// The concatenation of the rows validated, and nothing else: the check that the
/// split-character trap defeats (the issue names arrow-rs's Parquet
/// `DELTA_LENGTH_BYTE_ARRAY` reader, and DuckDB before its PR 25853).
pub fn concatenation_only(values: &[u8], offsets: &[i64]) -> bool {
    match (offsets.first(), offsets.last()) {
        (Some(&a), Some(&b)) if 0 <= a && a <= b && b as usize <= values.len() => {
            std::str::from_utf8(&values[a as usize..b as usize]).is_ok()
        }
        (None, _) => true,
        _ => false,
    }
}

/// A string column in Arrow's two layouts.
pub struct Column {
    /// Offsets layout: the values buffer and its `i32` and `i64` offsets.
    pub values: Buffer,
    pub offsets32: Vec<i32>,
    pub offsets64: Vec<i64>,
    pub arrow32: OffsetBuffer<i32>,
    pub arrow64: OffsetBuffer<i64>,
    /// Views layout: the views and their data buffers.
    pub views: Vec<u128>,
    pub buffers: Vec<Buffer>,
    /// The bytes of all rows.
    pub bytes: usize,
}

/// The longest data buffer of a views column, as arrow-rs's `StringViewBuilder` grows
/// them (its blocks double from 8 KiB up to 2 MiB).
const VIEW_BUFFER_MAX: usize = 2 << 20;

impl Column {
    /// A column of `rows` rows: the pieces `ranges` of `text` in order, repeated as often
    /// as needed.
    pub fn new(text: &[u8], ranges: &[std::ops::Range<usize>], rows: usize) -> Column {
        let pieces = || ranges.iter().cycle().take(rows).map(|r| &text[r.clone()]);
        let mut values = Vec::new();
        let mut offsets64 = Vec::with_capacity(rows + 1);
        offsets64.push(0i64);
        for piece in pieces() {
            values.extend_from_slice(piece);
            offsets64.push(values.len() as i64);
        }
        let offsets32: Vec<i32> = offsets64.iter().map(|&o| o as i32).collect();
        assert!(values.len() <= i32::MAX as usize);
        let mut views = Vec::with_capacity(rows);
        let mut buffers: Vec<Vec<u8>> = Vec::new();
        let mut block = 8 << 10;
        for piece in pieces() {
            views.push(if piece.len() <= 12 {
                let mut bytes = [0u8; 16];
                bytes[..4].copy_from_slice(&(piece.len() as u32).to_le_bytes());
                bytes[4..4 + piece.len()].copy_from_slice(piece);
                u128::from_le_bytes(bytes)
            } else {
                if buffers
                    .last()
                    .is_none_or(|b| b.len() + piece.len() > b.capacity())
                {
                    buffers.push(Vec::with_capacity(block.max(piece.len())));
                    block = (block * 2).min(VIEW_BUFFER_MAX);
                }
                let index = buffers.len() - 1;
                let buffer = &mut buffers[index];
                let offset = buffer.len();
                buffer.extend_from_slice(piece);
                u128::from(piece.len() as u32)
                    | u128::from(u32::from_le_bytes(piece[..4].try_into().unwrap())) << 32
                    | (index as u128) << 64
                    | (offset as u128) << 96
            });
        }
        Column {
            bytes: values.len(),
            arrow32: OffsetBuffer::new(ScalarBuffer::from(offsets32.clone())),
            arrow64: OffsetBuffer::new(ScalarBuffer::from(offsets64.clone())),
            values: Buffer::from_vec(values),
            offsets32,
            offsets64,
            views,
            buffers: buffers.into_iter().map(Buffer::from_vec).collect(),
        }
    }
}
