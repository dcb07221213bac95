//! The IREE virtual machine runtime: values and reference types, `vm.buffer`
//! and `vm.list`, the module model, native modules, contexts with import
//! resolution, and invocation.
//!
//! The VM knows nothing of devices: HAL objects enter it as reference types
//! registered by the `hal` module.

mod atomic_bytes;
mod atomic_vec;
pub mod buffer;
pub mod cconv;
pub mod context;
pub mod instance;
pub mod invocation;
pub mod list;
pub mod module;
pub mod native;
pub mod refs;
pub mod register_call;
pub mod testing;
pub mod types;
pub mod value;

pub use buffer::Buffer;
pub use cconv::{Cconv, CconvType};
pub use context::Context;
pub use instance::Instance;
pub use invocation::{invoke, invoke_with_stack, Function};
pub use list::List;
pub use module::{
    CallStatus, ExportInfo, ImportInfo, Module, ModuleDependency, ModuleInstance, ResolvedImport,
    Stack,
};
pub use refs::{Ref, RefObject, StaticRefObject};
pub use register_call::{CallSlot, FrameRegisters, RegisterCall};
pub use types::{RefType, RefTypeDescriptor, TypeDef, TypeRegistry, ValueType};
pub use value::Value;
