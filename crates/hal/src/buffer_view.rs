//! [`BufferView`]: a buffer with a shape, an element type and an encoding.

use iree_base::{Result, Status, StatusCode};

use crate::buffer::Buffer;
use crate::buffer_view_text::{compute_view_size, format_buffer_view};
use crate::element_type::{ElementType, EncodingType};

/// A typed, shaped view of a buffer's bytes (`iree_hal_buffer_view_t`).
#[derive(Clone, Debug)]
pub struct BufferView {
    buffer: Buffer,
    shape: Vec<usize>,
    element_type: ElementType,
    encoding: EncodingType,
}

impl BufferView {
    /// A view of `buffer` as `shape` x `element_type`
    /// (`iree_hal_buffer_view_create`). A dense row-major view must fit in
    /// its buffer, as upstream 3.13 checks; other encodings are not sized.
    ///
    /// Errors: those of [`compute_view_size`] (INVALID_ARGUMENT for an
    /// opaque element type, OUT_OF_RANGE for counts past 64 bits), and
    /// OUT_OF_RANGE "buffer view byte length N exceeds backing buffer byte
    /// length M".
    pub fn new(
        buffer: Buffer,
        shape: Vec<usize>,
        element_type: ElementType,
        encoding: EncodingType,
    ) -> Result<BufferView> {
        if encoding == EncodingType::DENSE_ROW_MAJOR {
            let byte_length = compute_view_size(&shape, element_type, encoding)? as u64;
            if byte_length > buffer.byte_length() {
                return Err(Status::new(
                    StatusCode::OutOfRange,
                    format!(
                        "buffer view byte length {byte_length} exceeds backing buffer byte length {}",
                        buffer.byte_length()
                    ),
                ));
            }
        }
        Ok(BufferView {
            buffer,
            shape,
            element_type,
            encoding,
        })
    }

    /// The viewed buffer.
    pub fn buffer(&self) -> &Buffer {
        &self.buffer
    }

    /// The dimensions, outermost first.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The rank.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Dimension `index`.
    pub fn dim(&self, index: usize) -> Result<usize> {
        self.shape.get(index).copied().ok_or_else(|| {
            Status::new(
                StatusCode::OutOfRange,
                format!(
                    "dimension index {index} out of bounds (rank {})",
                    self.shape.len()
                ),
            )
        })
    }

    /// The element type.
    pub fn element_type(&self) -> ElementType {
        self.element_type
    }

    /// The encoding.
    pub fn encoding(&self) -> EncodingType {
        self.encoding
    }

    /// The element count (product of the dimensions).
    pub fn element_count(&self) -> usize {
        self.shape.iter().product()
    }

    /// The contents in upstream's text form, eliding past `max_element_count`.
    /// The buffer is read in place (mapped), not copied.
    pub fn format(&self, max_element_count: usize) -> Result<String> {
        self.buffer
            .map_read(0, self.buffer.byte_length(), |bytes| {
                format_buffer_view(&self.shape, self.element_type, bytes, max_element_count)
            })
            .and_then(|text| text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::{BufferUsage, MemoryAccess, MemoryType};
    use crate::buffer_view_text::parse_buffer_view_text;

    #[test]
    fn round_trips_through_a_host_buffer() {
        let (shape, element_type, bytes) = parse_buffer_view_text("2x2xf32=[1 2][3 4.5]").unwrap();
        let buffer = Buffer::allocate_host(
            bytes.len() as u64,
            MemoryType::HOST_LOCAL | MemoryType::DEVICE_VISIBLE,
            BufferUsage::DEFAULT | BufferUsage::MAPPING,
            MemoryAccess::ALL,
        )
        .unwrap();
        buffer.write(0, &bytes).unwrap();
        let view =
            BufferView::new(buffer, shape, element_type, EncodingType::DENSE_ROW_MAJOR).unwrap();
        assert_eq!(view.rank(), 2);
        assert_eq!(view.dim(1).unwrap(), 2);
        assert_eq!(view.dim(2).unwrap_err().code(), StatusCode::OutOfRange);
        assert_eq!(view.element_count(), 4);
        assert_eq!(view.format(1024).unwrap(), "2x2xf32=[1 2][3 4.5]");
        assert_eq!(view.format(3).unwrap(), "2x2xf32=[1 2][3...]");
    }

    fn host_buffer(len: u64) -> Buffer {
        Buffer::allocate_host(
            len,
            MemoryType::HOST_LOCAL | MemoryType::DEVICE_VISIBLE,
            BufferUsage::DEFAULT | BufferUsage::MAPPING,
            MemoryAccess::ALL,
        )
        .unwrap()
    }

    /// Upstream 3.13's `iree_hal_buffer_view_create` on a 16-byte buffer
    /// (each status and message as its `hal.buffer_view.create` reports,
    /// `testdata/vm-hal/buffer_view_create`).
    #[test]
    fn a_dense_view_must_fit_its_buffer() {
        let view = |shape: &[usize], ty: ElementType, encoding: EncodingType| {
            BufferView::new(host_buffer(16), shape.to_vec(), ty, encoding)
                .map(|_| ())
                .map_err(|e| (e.code(), e.message().to_string()))
        };
        let dense = EncodingType::DENSE_ROW_MAJOR;
        assert_eq!(view(&[2, 2], ElementType::FLOAT_32, dense), Ok(()));
        assert_eq!(
            view(&[2, 3], ElementType::FLOAT_32, dense),
            Err((
                StatusCode::OutOfRange,
                "buffer view byte length 24 exceeds backing buffer byte length 16".into()
            ))
        );
        // Sub-byte elements are packed: 32 i4 fit, 33 take 17 bytes.
        assert_eq!(view(&[4, 8], ElementType::INT_4, dense), Ok(()));
        assert_eq!(
            view(&[33], ElementType::INT_4, dense).unwrap_err().1,
            "buffer view byte length 17 exceeds backing buffer byte length 16"
        );
        assert_eq!(
            view(&[65536, 65536], ElementType::FLOAT_32, dense).unwrap_err(),
            (
                StatusCode::OutOfRange,
                "buffer view byte length 17179869184 exceeds backing buffer byte length 16".into()
            )
        );
        assert_eq!(
            view(&[usize::MAX, usize::MAX], ElementType::FLOAT_32, dense).unwrap_err(),
            (
                StatusCode::OutOfRange,
                "shape element count overflows device size at dimension 1".into()
            )
        );
        assert_eq!(
            view(&[1 << 62, 1], ElementType::FLOAT_32, dense).unwrap_err(),
            (
                StatusCode::OutOfRange,
                "packed byte count overflows device size".into()
            )
        );
        assert_eq!(
            view(&[1000], ElementType(0), dense).unwrap_err(),
            (
                StatusCode::InvalidArgument,
                "opaque element types cannot be indexed".into()
            )
        );
        // Other encodings are not sized.
        assert_eq!(
            view(&[2, 3], ElementType::FLOAT_32, EncodingType(0)),
            Ok(())
        );
        assert_eq!(view(&[0, usize::MAX], ElementType::FLOAT_32, dense), Ok(()));
    }
}
