//! Refs moved into slots typed by the module's type table (issue #46):
//! `global.store.ref`, `global.load.ref`, `select.ref` and `switch.ref`
//! check the ref against their `type_of` operand as upstream's
//! `iree_vm_ref_retain_or_move_checked` does. Each input is a committed
//! module with one type ordinal patched (to `i32`, a value type, or to
//! `!vm.list<i32>`, another ref type); upstream 3.13 fails every one of them
//! with INVALID_ARGUMENT "source ref type mismatch" (checked by running its
//! `iree-run-module` on the same patched files).

use std::sync::Arc;

use iree_base::StatusCode;
use iree_vm::{Context, Instance, Module, Value};
use iree_vm_bytecode::BytecodeModule;

const REF_SLOTS: &[u8] = include_bytes!("../../../testdata/vm/ref_slots.vmfb");
const GLOBALS: &[u8] = include_bytes!("../../../testdata/vm/globals.vmfb");

/// `ref_slots`' type table: 0 `i32`, 1 `i64`, 2 `!vm.buffer`, 3 `!vm.list<i32>`.
const I32: u8 = 0;
const BUFFER: u8 = 2;
const LIST: u8 = 3;

/// The position of the only `opcode` whose type operand (after `skip`
/// bytes of other operands) is `!vm.buffer`.
fn type_operand(bytes: &[u8], opcode: u8, skip: &[u8]) -> usize {
    let mut key = vec![opcode];
    key.extend_from_slice(skip);
    key.extend_from_slice(&[BUFFER, 0, 0, 0]);
    let hits: Vec<usize> = (0..bytes.len() - key.len())
        .filter(|&i| bytes[i..].starts_with(&key))
        .collect();
    assert_eq!(hits.len(), 1, "opcode {opcode:#x}");
    hits[0] + 1 + skip.len()
}

/// Loads `bytes` and calls `function(args)`; the first error's code and
/// message, or the i32 result.
fn call(bytes: Vec<u8>, function: &str, args: &[i32]) -> Result<i32, (StatusCode, String)> {
    let instance = Instance::new();
    let fail = |e: iree_base::Status| (e.code(), e.message().to_string());
    let module = BytecodeModule::from_vec(&instance, bytes).map_err(fail)?;
    let context = Context::with_modules(instance, [module as Arc<dyn Module>]).map_err(fail)?;
    let function = context.lookup_function(function).map_err(fail)?;
    let inputs: Vec<Value> = args.iter().map(|&a| Value::I32(a)).collect();
    match context.invoke(&function, &inputs).map_err(fail)?.as_slice() {
        [Value::I32(v)] => Ok(*v),
        other => panic!("unexpected results {other:?}"),
    }
}

fn patched(at: usize, ty: u8) -> Vec<u8> {
    let mut bytes = REF_SLOTS.to_vec();
    bytes[at] = ty;
    bytes
}

fn assert_mismatch(result: Result<i32, (StatusCode, String)>) {
    let (code, message) = result.unwrap_err();
    assert_eq!(code, StatusCode::InvalidArgument, "{message}");
    assert_eq!(message, "source ref type mismatch");
}

#[test]
fn matching_types_run() {
    assert_eq!(call(REF_SLOTS.to_vec(), "select", &[1]), Ok(4));
    assert_eq!(call(REF_SLOTS.to_vec(), "select", &[0]), Ok(8));
    assert_eq!(call(REF_SLOTS.to_vec(), "switch", &[1]), Ok(8));
    assert_eq!(call(REF_SLOTS.to_vec(), "switch", &[7]), Ok(12));
    assert_eq!(call(REF_SLOTS.to_vec(), "store", &[]), Ok(4));
}

/// `select.ref %c, %a, %b : <type>` (opcode 0x1E; the type follows the
/// condition register).
#[test]
fn select_ref() {
    let at = type_operand(REF_SLOTS, 0x1E, &[0, 0]);
    for ty in [I32, LIST] {
        assert_mismatch(call(patched(at, ty), "select", &[1]));
    }
}

/// `switch.ref %i[...] else %d : <type>` (opcode 0x21), for a case and for
/// the default.
#[test]
fn switch_ref() {
    let at = type_operand(REF_SLOTS, 0x21, &[0, 0]);
    for ty in [I32, LIST] {
        assert_mismatch(call(patched(at, ty), "switch", &[0]));
        assert_mismatch(call(patched(at, ty), "switch", &[9]));
    }
}

/// `global.store.ref` and `global.load.ref` (opcodes 0x09 and 0x08; the
/// type follows the global ordinal 0).
#[test]
fn global_store_and_load_ref() {
    for opcode in [0x09, 0x08] {
        let at = type_operand(REF_SLOTS, opcode, &[0, 0, 0, 0]);
        for ty in [I32, LIST] {
            assert_mismatch(call(patched(at, ty), "store", &[]));
        }
    }
}

/// `globals`' initializer storing its buffer into `@gbuf` with the type
/// patched to `i32`: creating the context fails, as upstream's does
/// ("source ref type mismatch; creating VM context"), where this module
/// used to load and run.
#[test]
fn initializer_storing_a_ref_into_a_value_typed_slot() {
    let mut bytes = GLOBALS.to_vec();
    let at = type_operand(GLOBALS, 0x09, &[0, 0, 0, 0]);
    bytes[at] = 0;
    assert_mismatch(call(bytes, "initial", &[]));
}
