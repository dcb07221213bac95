//! [`BufferView`]: a buffer with a shape, an element type and an encoding.

use iree_base::{Result, Status, StatusCode};

use crate::buffer::Buffer;
use crate::buffer_view_text::format_buffer_view;
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
    /// A view of `buffer` as `shape` x `element_type`.
    pub fn new(
        buffer: Buffer,
        shape: Vec<usize>,
        element_type: ElementType,
        encoding: EncodingType,
    ) -> BufferView {
        BufferView {
            buffer,
            shape,
            element_type,
            encoding,
        }
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
        let view = BufferView::new(buffer, shape, element_type, EncodingType::DENSE_ROW_MAJOR);
        assert_eq!(view.rank(), 2);
        assert_eq!(view.dim(1).unwrap(), 2);
        assert_eq!(view.dim(2).unwrap_err().code(), StatusCode::OutOfRange);
        assert_eq!(view.element_count(), 4);
        assert_eq!(view.format(1024).unwrap(), "2x2xf32=[1 2][3 4.5]");
        assert_eq!(view.format(3).unwrap(), "2x2xf32=[1 2][3...]");
    }
}
