//! The bytecode verifier's register checks (issue #31) and the FlatBuffer
//! verifier's checks (issue #46), on minimal inputs: committed modules
//! patched at run time. Each expected
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

/// Reads a little-endian u32 / u16 / i32 of `b` at `o`.
fn u32_at(b: &[u8], o: usize) -> usize {
    u32::from_le_bytes(b[o..o + 4].try_into().unwrap()) as usize
}
fn u16_at(b: &[u8], o: usize) -> usize {
    u16::from_le_bytes(b[o..o + 2].try_into().unwrap()) as usize
}

/// The absolute position of field `vt` (vtable offset) of the table at `t`.
fn field(b: &[u8], t: usize, vt: usize) -> usize {
    let vtable = (t as i64 - i32::from_le_bytes(b[t..t + 4].try_into().unwrap()) as i64) as usize;
    assert!(vt < u16_at(b, vtable));
    let off = u16_at(b, vtable + vt);
    assert_ne!(off, 0);
    t + off
}

/// The position of `debug_database.location_table_type`'s first element in
/// a ZIP-wrapped 3.13 `.vmfb` (BytecodeModuleDef field 15 is the debug
/// database; its fields 0 and 1 the location type and table vectors).
fn first_location_type(b: &[u8]) -> usize {
    let start = 30 + u16_at(b, 26) + u16_at(b, 28) + 4;
    let root = start + u32_at(b, start);
    let db_field = field(b, root, 34);
    let db = db_field + u32_at(b, db_field);
    let types_field = field(b, db, 4);
    let types = types_field + u32_at(b, types_field);
    assert!(u32_at(b, types) > 0);
    types + 4
}

/// A location table entry tagged NONE but holding a table: upstream
/// INVALID_ARGUMENT "FlatBuffer verification failed: union element present
/// with type NONE".
#[test]
fn union_element_present_with_type_none() {
    let mut bytes = include_bytes!("../../../testdata/vm/arith_i32.vmfb").to_vec();
    let at = first_location_type(&bytes);
    assert_eq!(bytes[at], 2, "a FileLineColLocDef");
    load_code(bytes.clone()).unwrap();
    bytes[at] = 0;
    let (code, message) = load_code(bytes).unwrap_err();
    assert_eq!(code, StatusCode::InvalidArgument, "{message}");
    assert!(
        message.contains("union element present with type NONE"),
        "{message}"
    );
}

/// The root table and its vtable in a ZIP-wrapped `.vmfb`.
fn root_table(b: &[u8]) -> (usize, usize) {
    let start = 30 + u16_at(b, 26) + u16_at(b, 28) + 4;
    let root = start + u32_at(b, start);
    let vtable =
        (root as i64 - i32::from_le_bytes(b[root..root + 4].try_into().unwrap()) as i64) as usize;
    (root, vtable)
}

/// Loads `arith_i32.vmfb` with `patch` applied to its root table's vtable
/// and returns the status message, checking the code is INVALID_ARGUMENT.
fn load_with_root_vtable(patch: impl FnOnce(&mut [u8], usize)) -> String {
    let mut bytes = include_bytes!("../../../testdata/vm/arith_i32.vmfb").to_vec();
    let (_, vtable) = root_table(&bytes);
    patch(&mut bytes, vtable);
    let (code, message) = load_code(bytes).unwrap_err();
    assert_eq!(code, StatusCode::InvalidArgument, "{message}");
    message
}

/// The root vtable shortened to 2 bytes (shorter than its own header):
/// upstream INVALID_ARGUMENT "FlatBuffer verification failed: vtable header
/// too small" (flatcc's verifier; the `flatbuffers` crate's reads on).
#[test]
fn vtable_header_too_small() {
    let message = load_with_root_vtable(|b, vt| b[vt..vt + 2].copy_from_slice(&2u16.to_le_bytes()));
    assert!(
        message.contains("FlatBuffer verification failed: vtable header too small"),
        "{message}"
    );
}

/// The root table's size cut to 4 bytes, so its fields lie past its end:
/// upstream INVALID_ARGUMENT "FlatBuffer verification failed: table field
/// out of range" (the module ran to exit 0 before).
#[test]
fn table_field_out_of_range() {
    let message =
        load_with_root_vtable(|b, vt| b[vt + 2..vt + 4].copy_from_slice(&4u16.to_le_bytes()));
    assert!(
        message.contains("FlatBuffer verification failed: table field out of range"),
        "{message}"
    );
}

/// A wrong file identifier: upstream INVALID_ARGUMENT "FlatBuffer
/// verification failed: identifier mismatch".
#[test]
fn identifier_mismatch() {
    let mut bytes = include_bytes!("../../../testdata/vm/arith_i32.vmfb").to_vec();
    let at = bytes.windows(4).position(|w| w == b"IREE").unwrap();
    bytes[at] = b'X';
    let (code, message) = load_code(bytes).unwrap_err();
    assert_eq!(code, StatusCode::InvalidArgument, "{message}");
    assert!(
        message.contains("FlatBuffer verification failed: identifier mismatch"),
        "{message}"
    );
}
