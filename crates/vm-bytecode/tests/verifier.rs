//! The bytecode verifier's register checks (issue #31), on minimal inputs:
//! `testdata/verifier/registers.vmfb` patched at run time. Each expected
//! status code is upstream 3.13's for the same patched file
//! (`runtime/src/iree/vm/bytecode/verifier.c`).

use iree_base::StatusCode;
use iree_vm::Instance;
use iree_vm_bytecode::BytecodeModule;

const MODULE: &[u8] = include_bytes!("../../../testdata/verifier/registers.vmfb");

/// The byte offset of the function descriptor whose bytecode lies at
/// `offset` with `length` (offset 0 of the 20-byte struct; the i32 register
/// count is at +16).
fn descriptor(bytes: &[u8], offset: i32, length: i32) -> usize {
    let mut key = offset.to_le_bytes().to_vec();
    key.extend_from_slice(&length.to_le_bytes());
    let hits: Vec<usize> = (0..bytes.len() - key.len())
        .filter(|&i| bytes[i..].starts_with(&key) && bytes[i + 14..i + 16] == [1, 0])
        .collect();
    assert_eq!(hits.len(), 1, "descriptor ({offset}, {length})");
    hits[0]
}

/// The offset of `@wide`'s `vm.return %i0` (opcode 0x5A, one register).
fn wide_return(bytes: &[u8]) -> usize {
    let key = [0x5A, 1, 0, 0, 0];
    let hits: Vec<usize> = (0..bytes.len() - key.len())
        .filter(|&i| bytes[i..].starts_with(&key))
        .collect();
    assert_eq!(hits.len(), 1);
    hits[0]
}

fn load_code(bytes: Vec<u8>) -> Result<(), (StatusCode, String)> {
    BytecodeModule::from_vec(&Instance::new(), bytes)
        .map(|_| ())
        .map_err(|e| (e.code(), e.to_string()))
}

#[test]
fn the_unpatched_module_loads() {
    load_code(MODULE.to_vec()).unwrap();
}

/// `@add2(i32, i32)` declaring one i32 register: upstream INVALID_ARGUMENT
/// "insufficient register storage for function arguments/results".
#[test]
fn too_few_registers_for_arguments() {
    let mut bytes = MODULE.to_vec();
    let d = descriptor(&bytes, 0, 14);
    assert_eq!(bytes[d + 16..d + 18], [2, 0]);
    bytes[d + 16..d + 18].copy_from_slice(&1u16.to_le_bytes());
    let (code, message) = load_code(bytes).unwrap_err();
    assert_eq!(code, StatusCode::InvalidArgument, "{message}");
    assert!(
        message.contains("insufficient register storage"),
        "{message}"
    );
}

/// `@wide` returning its i64 from register 2 of 2: upstream OUT_OF_RANGE
/// "i32 register ordinal 2 out of range 2".
#[test]
fn result_register_beyond_the_count() {
    let mut bytes = MODULE.to_vec();
    let r = wide_return(&bytes);
    bytes[r + 3] = 2;
    let (code, message) = load_code(bytes).unwrap_err();
    assert_eq!(code, StatusCode::OutOfRange, "{message}");
}

/// `@wide` returning its i64 from register 1: upstream INVALID_ARGUMENT
/// "i64/f64 register ordinal 1 not 8-byte aligned".
#[test]
fn misaligned_i64_result() {
    let mut bytes = MODULE.to_vec();
    let r = wide_return(&bytes);
    bytes[r + 3] = 1;
    let (code, message) = load_code(bytes).unwrap_err();
    assert_eq!(code, StatusCode::InvalidArgument, "{message}");
    assert!(message.contains("not 8-byte aligned"), "{message}");
}
