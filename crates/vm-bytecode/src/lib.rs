//! IREE VM bytecode modules: VMFB parsing ([`format`](mod@format)), a verifier that
//! decodes each function once into a trusted instruction form ([`decode`],
//! [`op`]), the interpreter that runs it, and a disassembler printing
//! upstream's text form ([`disasm`]); all per-opcode knowledge is in one
//! table ([`isa`]).
//!
//! ```no_run
//! use std::sync::Arc;
//! use iree_vm::{Context, Instance, Value};
//! let instance = Instance::new();
//! let bytes = std::fs::read("module.vmfb").unwrap();
//! let module = iree_vm_bytecode::BytecodeModule::from_vec(&instance, bytes).unwrap();
//! let context = Context::with_modules(instance, [module as Arc<dyn iree_vm::Module>]).unwrap();
//! let f = context.lookup_function("add").unwrap();
//! let results = context.invoke(&f, &[Value::I32(1), Value::I32(2)]).unwrap();
//! ```

pub mod checked;
#[cfg(feature = "opcode-coverage")]
pub mod coverage;
pub mod decode;
pub mod disasm;
pub mod format;
mod interp;
pub mod isa;
mod math;
mod module;
pub mod op;

pub use module::{BytecodeInstance, BytecodeModule};
