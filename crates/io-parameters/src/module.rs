//! The `io_parameters` VM module (version 0): `load`, `gather` and
//! `scatter`, with upstream's calling conventions.
//!
//! Programs describe their parameters with three `!vm.buffer`s: a key
//! table of `{u32 offset, u32 length}` string entries, the key bytes they
//! point into, and a span table of `{u64 parameter_offset, u64
//! buffer_offset, u64 length}` entries; the span table's size sets the
//! count. All three come from the program and are checked here.

use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use iree_hal::{BufferParams, BufferUsage, MemoryType};
use iree_modules_hal::{buffer_type, deref, device_arg, fence_or_empty, HalBuffer};
use iree_vm::buffer::Buffer as VmBuffer;
use iree_vm::list::{List, ListElementType};
use iree_vm::native::NativeModuleBuilder;
use iree_vm::{Module, Ref};

use crate::provider::{ParameterProvider, Span};

/// The module version compiled programs require (`io_parameters >= 0`).
pub const IO_PARAMETERS_MODULE_VERSION: u32 = 0;

/// Bytes per key table entry (`{u32 offset, u32 length}`).
const STRING_ENTRY_SIZE: usize = 8;
/// Bytes per span entry (`{u64 parameter_offset, u64 buffer_offset, u64 length}`).
const SPAN_ENTRY_SIZE: usize = 24;

/// Per-context state: the providers, shared by every context.
pub struct ParametersModuleState {
    providers: Arc<[Arc<dyn ParameterProvider>]>,
}

impl ParametersModuleState {
    /// The first provider serving `scope`.
    fn provider(&self, scope: &[u8]) -> Result<&Arc<dyn ParameterProvider>> {
        self.providers
            .iter()
            .find(|p| p.supports_scope(scope))
            .ok_or_else(|| {
                Status::new(
                    StatusCode::NotFound,
                    format!(
                        "no provider registered that handles scopes like '{}'",
                        String::from_utf8_lossy(scope)
                    ),
                )
            })
    }
}

/// The keys and spans of one call, copied out of the program's buffers.
struct SpanTable {
    key_data: Vec<u8>,
    /// `(key offset, key length, parameter offset, buffer offset, length)`.
    rows: Vec<(usize, usize, u64, u64, u64)>,
}

impl SpanTable {
    /// Reads and checks the three tables, as upstream does: the span table
    /// must hold whole entries, the key table at least one entry per span,
    /// and every key must lie inside the key data.
    fn read(tables: [&VmBuffer; 3]) -> Result<SpanTable> {
        let [key_table, key_data, spans] = tables;
        if !spans.len().is_multiple_of(SPAN_ENTRY_SIZE) {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                "buffer span storage must be aligned to iree_io_parameters_span_entry_t",
            ));
        }
        let count = spans.len() / SPAN_ENTRY_SIZE;
        if key_table.len() / STRING_ENTRY_SIZE < count {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                "key string table must have enough data to service all defined spans",
            ));
        }
        let key_data = key_data.with_bytes(|bytes| bytes.to_vec());
        let table = key_table.with_bytes(|bytes| bytes[..count * STRING_ENTRY_SIZE].to_vec());
        let span_bytes = spans.with_bytes(|bytes| bytes.to_vec());
        let u32_at =
            |b: &[u8], i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        let u64_at =
            |b: &[u8], i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        let mut rows = Vec::with_capacity(count);
        for i in 0..count {
            let key_offset = u32_at(&table, i * STRING_ENTRY_SIZE);
            let key_length = u32_at(&table, i * STRING_ENTRY_SIZE + 4);
            let capacity = key_data.len();
            if key_offset as usize > capacity {
                return Err(Status::new(
                    StatusCode::OutOfRange,
                    format!(
                        "attempted to access an address off the end of the valid buffer range (offset={key_offset}, length={key_length}, data_capacity={capacity})"
                    ),
                ));
            }
            let end = u64::from(key_offset) + u64::from(key_length);
            if key_length != 0 && end > capacity as u64 {
                return Err(Status::new(
                    StatusCode::OutOfRange,
                    format!(
                        "attempted to access an address outside of the valid buffer range (offset={key_offset}, length={key_length}, end(inc)={}, data_capacity={capacity})",
                        end - 1
                    ),
                ));
            }
            let base = i * SPAN_ENTRY_SIZE;
            rows.push((
                key_offset as usize,
                key_length as usize,
                u64_at(&span_bytes, base),
                u64_at(&span_bytes, base + 8),
                u64_at(&span_bytes, base + 16),
            ));
        }
        Ok(SpanTable { key_data, rows })
    }

    fn spans(&self) -> Vec<Span<'_>> {
        self.rows
            .iter()
            .map(
                |&(key_offset, key_length, parameter_offset, buffer_offset, length)| Span {
                    key: &self.key_data[key_offset..key_offset + key_length],
                    parameter_offset,
                    buffer_offset,
                    length,
                },
            )
            .collect()
    }
}

/// The key table, key data and span table arguments, type-checked (before
/// the provider is looked up, as upstream orders its checks).
fn table_args<'a>(
    key_table: &'a Option<Ref>,
    key_data: &'a Option<Ref>,
    spans: &'a Option<Ref>,
) -> Result<[&'a VmBuffer; 3]> {
    Ok([
        deref(key_table, iree_vm::buffer::buffer_type(), "key table")?,
        deref(key_data, iree_vm::buffer::buffer_type(), "key data")?,
        deref(spans, iree_vm::buffer::buffer_type(), "span table")?,
    ])
}

/// The scope named by a `!vm.buffer` (null is the empty scope).
fn scope_arg(value: &Option<Ref>) -> Result<Vec<u8>> {
    match value {
        None => Ok(Vec::new()),
        Some(_) => {
            let buffer: &VmBuffer = deref(value, iree_vm::buffer::buffer_type(), "scope")?;
            Ok(buffer.with_bytes(|bytes| bytes.to_vec()))
        }
    }
}

/// `load` arguments.
type LoadArgs = (
    Option<Ref>,
    i64,
    Option<Ref>,
    Option<Ref>,
    Option<Ref>,
    i64,
    i32,
    i32,
    Option<Ref>,
    Option<Ref>,
    Option<Ref>,
);
/// `gather` / `scatter` arguments.
type TransferArgs = (
    Option<Ref>,
    i64,
    Option<Ref>,
    Option<Ref>,
    Option<Ref>,
    Option<Ref>,
    Option<Ref>,
    Option<Ref>,
    Option<Ref>,
);

/// Builds the `io_parameters` module over `providers` (searched in order
/// for the first that serves a scope).
pub fn create_io_parameters_module(
    providers: Vec<Arc<dyn ParameterProvider>>,
) -> Result<Arc<dyn Module>> {
    let providers: Arc<[Arc<dyn ParameterProvider>]> = providers.into();
    let module = NativeModuleBuilder::<ParametersModuleState>::new("io_parameters", IO_PARAMETERS_MODULE_VERSION)
        .export(
            "gather",
            "0rIrrrrrrr_v",
            |state, (device, _affinity, wait, signal, scope, target, key_table, key_data, spans): TransferArgs| {
                let device = device_arg(&device)?;
                let (wait, signal) = (fence_or_empty(&wait)?, fence_or_empty(&signal)?);
                let scope = scope_arg(&scope)?;
                let _span = tracing::debug_span!("io_parameters.gather", scope = %String::from_utf8_lossy(&scope)).entered();
                let target = deref::<HalBuffer>(&target, buffer_type(), "target buffer")?.0.clone();
                let tables = table_args(&key_table, &key_data, &spans)?;
                let provider = state.provider(&scope)?;
                let table = SpanTable::read(tables)?;
                provider.gather(device, wait, signal, &target, &table.spans())
            },
        )?
        .export(
            "load",
            "0rIrrrIiirrr_r",
            |state, (device, _affinity, wait, signal, scope, _target_affinity, memory_types, usage, key_table, key_data, spans): LoadArgs| {
                let device = device_arg(&device)?;
                let (wait, signal) = (fence_or_empty(&wait)?, fence_or_empty(&signal)?);
                let scope = scope_arg(&scope)?;
                let _span = tracing::debug_span!("io_parameters.load", scope = %String::from_utf8_lossy(&scope)).entered();
                let tables = table_args(&key_table, &key_data, &spans)?;
                let provider = state.provider(&scope)?;
                let table = SpanTable::read(tables)?;
                let params = BufferParams {
                    memory_type: MemoryType(memory_types as u32),
                    usage: BufferUsage(usage as u32),
                    ..Default::default()
                };
                let buffers = provider.load(device, wait, signal, params, &table.spans())?;
                let list = List::with_capacity(ListElementType::Ref(buffer_type()), buffers.len())?;
                list.resize_len(buffers.len())?;
                for (i, buffer) in buffers.into_iter().enumerate() {
                    list.set_ref_at(i, Some(Ref::new(HalBuffer(buffer))))?;
                }
                Ok(Ref::new(list))
            },
        )?
        .export(
            "scatter",
            "0rIrrrrrrr_v",
            |state, (device, _affinity, wait, signal, source, scope, key_table, key_data, spans): TransferArgs| {
                let device = device_arg(&device)?;
                let (wait, signal) = (fence_or_empty(&wait)?, fence_or_empty(&signal)?);
                let source = deref::<HalBuffer>(&source, buffer_type(), "source buffer")?.0.clone();
                let scope = scope_arg(&scope)?;
                let _span = tracing::debug_span!("io_parameters.scatter", scope = %String::from_utf8_lossy(&scope)).entered();
                let tables = table_args(&key_table, &key_data, &spans)?;
                let provider = state.provider(&scope)?;
                let table = SpanTable::read(tables)?;
                provider.scatter(device, wait, signal, &source, &table.spans())
            },
        )?
        .build(move |_| {
            Ok(ParametersModuleState {
                providers: providers.clone(),
            })
        });
    Ok(module)
}
