//! [`Tensor`]: a shaped, typed buffer that calls take and return.

use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use iree_hal::{
    Allocator, BufferParams, BufferUsage, BufferView, Device, ElementType, EncodingType,
    HeapAllocator, MemoryType,
};

use crate::element::Element;

/// A dense row-major tensor in device-local host memory (what the local
/// devices use directly). `Clone` shares the buffer.
#[derive(Clone, Debug)]
pub struct Tensor {
    view: BufferView,
}

impl Tensor {
    /// A tensor of `shape` holding a copy of `data` (row-major), whose
    /// element type follows from `T` ([`Element::ELEMENT_TYPE`]).
    pub fn from_slice<T: Element>(shape: &[usize], data: &[T]) -> Result<Tensor> {
        let count = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
        if count != Some(data.len()) {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "tensor shape {shape:?} holds {} elements but {} were given",
                    count.map_or_else(|| "too many".to_string(), |n| n.to_string()),
                    data.len()
                ),
            ));
        }
        match T::as_le_bytes(data) {
            Some(bytes) => Tensor::from_bytes(shape, T::ELEMENT_TYPE, bytes),
            None => {
                let mut bytes = Vec::new();
                T::write_le(data, &mut bytes);
                Tensor::from_bytes(shape, T::ELEMENT_TYPE, &bytes)
            }
        }
    }

    /// A tensor of `shape` and `element_type` holding a copy of `bytes`
    /// (row-major, little-endian elements).
    pub fn from_bytes(shape: &[usize], element_type: ElementType, bytes: &[u8]) -> Result<Tensor> {
        let expected = shape
            .iter()
            .try_fold(1usize, |n, &d| n.checked_mul(d))
            .and_then(|count| element_type.packed_byte_count(count));
        if expected != Some(bytes.len()) {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "a {shape:?} tensor of {element_type} needs {} bytes, got {}",
                    expected.map_or_else(|| "too many".to_string(), |n| n.to_string()),
                    bytes.len()
                ),
            ));
        }
        Tensor::allocated(
            &*host_allocator(),
            shape.to_vec(),
            element_type,
            EncodingType::DENSE_ROW_MAJOR,
            bytes,
        )
    }

    /// A tensor of `bytes` in a buffer of `allocator` (device-local memory).
    fn allocated(
        allocator: &dyn Allocator,
        shape: Vec<usize>,
        element_type: ElementType,
        encoding: EncodingType,
        bytes: &[u8],
    ) -> Result<Tensor> {
        let params = BufferParams {
            memory_type: MemoryType::DEVICE_LOCAL,
            usage: BufferUsage::DEFAULT,
            ..Default::default()
        };
        let buffer = allocator.allocate_buffer_with(params, bytes)?;
        Ok(Tensor {
            view: BufferView::new(buffer, shape, element_type, encoding)?,
        })
    }

    /// A copy of the tensor's bytes (packed, row-major), wherever its
    /// memory is.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let buffer = self.view.buffer();
        let length = usize::try_from(buffer.byte_length()).map_err(|_| {
            Status::new(
                StatusCode::ResourceExhausted,
                "tensor too large for this host",
            )
        })?;
        let mut bytes = vec![0u8; length];
        buffer.read(0, &mut bytes)?;
        Ok(bytes)
    }

    /// This tensor where `device` can use it: as it is when its memory is
    /// device memory already or the device runs on the host (the local
    /// devices use host memory in place: no copy), else a copy in memory of
    /// the device's own allocator (a GPU's). Calls do this for their
    /// inputs; doing it once ahead saves the copy on every call.
    pub fn to_device(&self, device: &dyn Device) -> Result<Tensor> {
        let buffer = self.view.buffer();
        if buffer.device_memory().is_some() || device.id().starts_with("local") {
            return Ok(self.clone());
        }
        Tensor::allocated(
            &*device.allocator(),
            self.view.shape().to_vec(),
            self.view.element_type(),
            self.view.encoding(),
            &self.to_bytes()?,
        )
    }

    /// This tensor in host memory: as it is when it is there already, else a
    /// copy read back from its device.
    pub fn to_host(&self) -> Result<Tensor> {
        let buffer = self.view.buffer();
        if buffer.device_memory().is_none() {
            return Ok(self.clone());
        }
        Tensor::from_bytes(
            self.view.shape(),
            self.view.element_type(),
            &self.to_bytes()?,
        )
    }

    /// Wraps a HAL buffer view.
    pub fn from_view(view: BufferView) -> Tensor {
        Tensor { view }
    }

    /// The HAL buffer view.
    pub fn view(&self) -> &BufferView {
        &self.view
    }

    /// The dimensions.
    pub fn shape(&self) -> &[usize] {
        self.view.shape()
    }

    /// The element type.
    pub fn element_type(&self) -> ElementType {
        self.view.element_type()
    }

    /// A copy of the elements as `T`; an error when `T` does not match the
    /// element type.
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        if !T::accepts(self.element_type()) {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "cannot read a tensor of {} as {}",
                    self.element_type(),
                    std::any::type_name::<T>()
                ),
            ));
        }
        let length = self.view.element_count() * std::mem::size_of::<T>();
        self.view.buffer().map_read(0, length as u64, T::read_le)
    }
}

#[cfg(feature = "ndarray")]
impl Tensor {
    /// A tensor holding a copy of `array` (in its logical row-major order).
    pub fn from_array<T: Element>(array: &ndarray::ArrayD<T>) -> Result<Tensor> {
        let data: Vec<T> = array.iter().copied().collect();
        Tensor::from_slice(array.shape(), &data)
    }

    /// A copy of the elements as an array of the tensor's shape.
    pub fn to_array<T: Element>(&self) -> Result<ndarray::ArrayD<T>> {
        let data = self.to_vec::<T>()?;
        ndarray::ArrayD::from_shape_vec(self.shape().to_vec(), data)
            .map_err(|e| Status::new(StatusCode::Internal, format!("tensor to array: {e}")))
    }
}

/// The allocator host tensors come from: heap memory the local devices use
/// in place.
fn host_allocator() -> Arc<dyn Allocator> {
    static ALLOCATOR: std::sync::OnceLock<Arc<dyn Allocator>> = std::sync::OnceLock::new();
    ALLOCATOR
        .get_or_init(|| HeapAllocator::new() as Arc<dyn Allocator>)
        .clone()
}
