//! Each failure class of flatcc's verifier on a minimal buffer built with
//! the `flatbuffers` builder, then corrupted in one place.

use flatbuffers::{FlatBufferBuilder, UnionWIPOffset, WIPOffset};
use iree_flatbuffer_verifier::{verify_root, Error, Limits, Schema};

const SCHEMA: &str = r#"
attribute "wire_string";
attribute "union_vector";
namespace test;
file_identifier "TEST";

struct Pair { a:int; b:int; }
enum Tag : ubyte { NONE = 0, Leaf = 1 }

table Leaf { name:string; value:long; }
union Choice { Leaf }
table Inner { leaf:Leaf; }

table Root {
  name:string (required);   // id 0
  big:ulong;                // id 1
  pairs:[Pair];             // id 2
  names:[string];           // id 3
  leaves:[Leaf];            // id 4
  choice:Choice;            // ids 5 (type) and 6
  tags:[Tag];               // id 7
  values:[Leaf] (union_vector);  // id 8
  bytes:[ubyte] (wire_string);   // id 9
  nested:[ubyte] (nested_flatbuffer: "Inner");  // id 10
  old:int (deprecated);     // id 11
  inner:Inner;              // id 12
}
root_type Root;
"#;

fn schema() -> Schema {
    Schema::parse(&[("test.fbs", SCHEMA)]).expect("test schema parses")
}

fn vt(id: u16) -> u16 {
    4 + 2 * id
}

fn leaf<'a>(b: &mut FlatBufferBuilder<'a>, name: &str, value: i64) -> WIPOffset<UnionWIPOffset> {
    let name = b.create_string(name);
    let start = b.start_table();
    b.push_slot_always(vt(0), name);
    b.push_slot::<i64>(vt(1), value, 0);
    b.end_table(start).as_union_value()
}

/// A buffer with every kind of field present.
fn full() -> Vec<u8> {
    let mut nested = FlatBufferBuilder::new();
    let l = leaf(&mut nested, "nested", 0);
    let start = nested.start_table();
    nested.push_slot_always(vt(0), l);
    let inner = nested.end_table(start);
    nested.finish_minimal(inner);
    let nested_bytes = nested.finished_data().to_vec();

    let mut b = FlatBufferBuilder::new();
    let name = b.create_string("root");
    let pairs = {
        b.start_vector::<u64>(2);
        for v in [1u64 | (2 << 32), 3 | (4 << 32)] {
            b.push(v);
        }
        b.end_vector::<u64>(2)
    };
    let n1 = b.create_string("a");
    let n2 = b.create_string("b");
    let names = b.create_vector(&[n1, n2]);
    let l1 = leaf(&mut b, "x", 1);
    let l2 = leaf(&mut b, "y", 2);
    let leaves = b.create_vector(&[l1, l2]);
    let choice = leaf(&mut b, "c", 5);
    let tags = b.create_vector(&[1u8, 0u8]);
    let v1 = leaf(&mut b, "v", 6);
    let values = {
        b.start_vector::<WIPOffset<UnionWIPOffset>>(2);
        b.push(0u32); // NONE
        b.push(v1);
        b.end_vector::<u32>(2)
    };
    let bytes = b.create_vector(b"text\0".as_slice());
    let nested = b.create_vector(nested_bytes.as_slice());
    let inner_leaf = leaf(&mut b, "i", 7);
    let inner = {
        let start = b.start_table();
        b.push_slot_always(vt(0), inner_leaf);
        b.end_table(start)
    };
    let start = b.start_table();
    b.push_slot::<u64>(vt(1), 0x1234, 0);
    b.push_slot_always(vt(0), name);
    b.push_slot_always(vt(2), pairs);
    b.push_slot_always(vt(3), names);
    b.push_slot_always(vt(4), leaves);
    b.push_slot::<u8>(vt(5), 1, 0);
    b.push_slot_always(vt(6), choice);
    b.push_slot_always(vt(7), tags);
    b.push_slot_always(vt(8), values);
    b.push_slot_always(vt(9), bytes);
    b.push_slot_always(vt(10), nested);
    b.push_slot::<i32>(vt(11), 9, 0);
    b.push_slot_always(vt(12), inner);
    let root = b.end_table(start);
    b.finish(root, Some("TEST"));
    let mut out = b.finished_data().to_vec();
    // Make `bytes` a string: length 4, then "text" and the NUL.
    let (table, vtable) = root_table(&out);
    let at = field_pos(&out, table, vtable, 9);
    let vec = at + u32_at(&out, at) as usize;
    out[vec..vec + 4].copy_from_slice(&4u32.to_le_bytes());
    out
}

fn u32_at(buf: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(buf[at..at + 4].try_into().unwrap())
}

fn u16_at(buf: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(buf[at..at + 2].try_into().unwrap())
}

/// The root table's position and its vtable's.
fn root_table(buf: &[u8]) -> (usize, usize) {
    let table = u32_at(buf, 0) as usize;
    let vtable = (table as i64
        - i32::from_le_bytes(buf[table..table + 4].try_into().unwrap()) as i64)
        as usize;
    (table, vtable)
}

fn field_pos(buf: &[u8], table: usize, vtable: usize, id: u16) -> usize {
    let entry = u16_at(buf, vtable + vt(id) as usize);
    assert_ne!(entry, 0, "field {id} present");
    table + entry as usize
}

fn check(buf: &[u8]) -> Result<(), Error> {
    verify_root(&schema(), buf, 0, &Limits::for_len(buf.len()))
}

/// Copies `buf`, applies `edit` to the copy and verifies it.
fn check_edit(edit: impl FnOnce(&mut Vec<u8>, usize, usize)) -> Result<(), Error> {
    let mut buf = full();
    let (table, vtable) = root_table(&buf);
    edit(&mut buf, table, vtable);
    check(&buf)
}

fn set_u16(buf: &mut [u8], at: usize, v: u16) {
    buf[at..at + 2].copy_from_slice(&v.to_le_bytes());
}

fn set_u32(buf: &mut [u8], at: usize, v: u32) {
    buf[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn a_well_formed_buffer_verifies() {
    assert_eq!(check(&full()), Ok(()));
}

#[test]
fn buffer_header_and_identifier() {
    assert_eq!(check(&[0; 7]), Err(Error::BufferHeaderTooSmall));
    assert_eq!(
        check_edit(|b, _, _| b[4] = b'X'),
        Err(Error::IdentifierMismatch)
    );
    let buf = full();
    assert_eq!(
        verify_root(&schema(), &buf, 2, &Limits::for_len(buf.len())),
        Err(Error::RuntimeBufferHeaderNotAligned)
    );
}

#[test]
fn vtable_and_table_headers() {
    assert_eq!(
        check_edit(|b, _, vt| set_u16(b, vt, 2)),
        Err(Error::VtableHeaderTooSmall)
    );
    assert_eq!(
        check_edit(|b, _, vt| set_u16(b, vt, 3)),
        Err(Error::VtableSizeOutOfRangeOrUnaligned)
    );
    assert_eq!(
        check_edit(|b, _, vt| set_u16(b, vt, 0xfffe)),
        Err(Error::VtableSizeOutOfRangeOrUnaligned)
    );
    assert_eq!(
        check_edit(|b, _, vt| set_u16(b, vt + 2, 0xfff0)),
        Err(Error::TableSizeOutOfRange)
    );
    assert_eq!(
        check_edit(|b, t, _| set_u32(b, t, (t as u32).wrapping_add(1))),
        Err(Error::VtableOffsetOutOfRangeOrUnaligned)
    );
    assert_eq!(
        check_edit(|b, t, _| set_u32(b, t, (t as i32 - 0x1000_0000) as u32)),
        Err(Error::VtableHeaderOutOfRange)
    );
    assert_eq!(
        check_edit(|b, _, _| set_u32(b, 0, 2)),
        Err(Error::TableHeaderOutOfRangeOrUnaligned)
    );
    assert_eq!(
        check_edit(|b, _, _| set_u32(b, 0, 0)),
        Err(Error::TableHeaderOutOfRangeOrUnaligned)
    );
}

#[test]
fn inline_fields() {
    // The table claims 4 bytes: every field lies outside it.
    assert_eq!(
        check_edit(|b, _, vt| set_u16(b, vt + 2, 4)),
        Err(Error::TableFieldOutOfRange)
    );
    // The 8-byte field at an address that is 4 mod 8.
    let buf = full();
    assert_eq!(
        verify_root(&schema(), &buf, 4, &Limits::for_len(buf.len())),
        Err(Error::TableFieldNotAligned)
    );
    // The same buffer at 8 mod 8 is fine.
    assert_eq!(
        verify_root(&schema(), &buf, 8, &Limits::for_len(buf.len())),
        Ok(())
    );
    // An offset field moved off 4-byte alignment.
    assert_eq!(
        check_edit(|b, _, vt| {
            let e = u16_at(b, vt + 4);
            set_u16(b, vt + 4, e + 1)
        }),
        Err(Error::TableFieldNotAligned)
    );
}

#[test]
fn required_fields() {
    assert_eq!(
        check_edit(|b, _, vt| set_u16(b, vt + vt_usize(0), 0)),
        Err(Error::RequiredFieldMissing)
    );
}

fn vt_usize(id: u16) -> usize {
    vt(id) as usize
}

#[test]
fn strings() {
    let name = |b: &mut Vec<u8>, t: usize, vt: usize| {
        let at = field_pos(b, t, vt, 0);
        at + u32_at(b, at) as usize
    };
    assert_eq!(
        check_edit(|b, t, vt| {
            let s = name(b, t, vt);
            b[s + 4 + 4] = b'!'
        }),
        Err(Error::StringNotZeroTerminated)
    );
    assert_eq!(
        check_edit(|b, t, vt| {
            let s = name(b, t, vt);
            let n = (b.len() - s - 4) as u32;
            set_u32(b, s, n)
        }),
        Err(Error::StringOutOfRange)
    );
    assert_eq!(
        check_edit(|b, t, vt| {
            let at = field_pos(b, t, vt, 0);
            set_u32(b, at, 0x10_0000)
        }),
        Err(Error::StringHeaderOutOfRangeOrUnaligned)
    );
    // Near 4 GiB, where flatcc's 32-bit sum wraps and it reads out of bounds.
    assert_eq!(
        check_edit(|b, t, vt| {
            let at = field_pos(b, t, vt, 0);
            set_u32(b, at, (u32::MAX - 3) - at as u32)
        }),
        Err(Error::StringHeaderOutOfRangeOrUnaligned)
    );
    // The wire-string byte vector without its NUL.
    assert_eq!(
        check_edit(|b, t, vt| {
            let at = field_pos(b, t, vt, 9);
            let v = at + u32_at(b, at) as usize;
            b[v + 4 + 4] = b'!'
        }),
        Err(Error::StringNotZeroTerminated)
    );
}

#[test]
fn vectors() {
    let pairs = |b: &mut Vec<u8>, t: usize, vt: usize| {
        let at = field_pos(b, t, vt, 2);
        at + u32_at(b, at) as usize
    };
    assert_eq!(
        check_edit(|b, t, vt| {
            let v = pairs(b, t, vt);
            set_u32(b, v, 1000)
        }),
        Err(Error::VectorOutOfRange)
    );
    assert_eq!(
        check_edit(|b, t, vt| {
            let v = pairs(b, t, vt);
            set_u32(b, v, u32::MAX / 4)
        }),
        Err(Error::VectorCountExceedsRepresentableVectorSize)
    );
    assert_eq!(
        check_edit(|b, t, vt| {
            let at = field_pos(b, t, vt, 2);
            let off = u32_at(b, at);
            set_u32(b, at, off + 2)
        }),
        Err(Error::VectorHeaderOutOfRangeOrUnaligned)
    );
    // A table vector whose element's vtable is too small.
    assert_eq!(
        check_edit(|b, t, vt| {
            let at = field_pos(b, t, vt, 4);
            let v = at + u32_at(b, at) as usize;
            let elem = v + 4;
            let table = elem + u32_at(b, elem) as usize;
            let vtable = (table as i64
                - i32::from_le_bytes(b[table..table + 4].try_into().unwrap()) as i64)
                as usize;
            set_u16(b, vtable, 0)
        }),
        Err(Error::VtableHeaderTooSmall)
    );
}

#[test]
fn unions() {
    // A value whose type is NONE.
    assert_eq!(
        check_edit(|b, t, vt| {
            let at = field_pos(b, t, vt, 5);
            b[at] = 0
        }),
        Err(Error::UnionTypeNoneCannotHaveAValue)
    );
    // A value without a type field.
    assert_eq!(
        check_edit(|b, _, vt| set_u16(b, vt + vt_usize(5), 0)),
        Err(Error::UnionCannotHaveATableWithoutAType)
    );
    // An unknown type is accepted unverified.
    assert_eq!(
        check_edit(|b, t, vt| {
            let at = field_pos(b, t, vt, 5);
            b[at] = 7
        }),
        Ok(())
    );
}

#[test]
fn union_vectors() {
    let tags = |b: &mut Vec<u8>, t: usize, vt: usize| {
        let at = field_pos(b, t, vt, 7);
        at + u32_at(b, at) as usize
    };
    // Tags [1, 0] against values [NULL, leaf].
    assert_eq!(
        check_edit(|b, t, vt| {
            let v = tags(b, t, vt);
            set_u32(b, v, 1)
        }),
        Err(Error::UnionVectorLengthMismatch)
    );
    // Values are [leaf, NULL] against tags [1, 0].
    assert_eq!(
        check_edit(|b, t, vt| {
            let v = tags(b, t, vt);
            b[v + 5] = 1;
        }),
        Err(Error::UnionElementAbsentWithoutTypeNone)
    );
    assert_eq!(
        check_edit(|b, t, vt| {
            let v = tags(b, t, vt);
            b[v + 4] = 0;
        }),
        Err(Error::UnionElementPresentWithTypeNone)
    );
}

#[test]
fn nested_buffers() {
    assert_eq!(
        check_edit(|b, t, vt| {
            let at = field_pos(b, t, vt, 10);
            let v = at + u32_at(b, at) as usize;
            // The nested root offset points past the nested buffer.
            set_u32(b, v + 4, 0x100)
        }),
        Err(Error::TableHeaderOutOfRangeOrUnaligned)
    );
    assert_eq!(
        check_edit(|b, t, vt| {
            let at = field_pos(b, t, vt, 10);
            let v = at + u32_at(b, at) as usize;
            set_u32(b, v, 7)
        }),
        Err(Error::BufferHeaderTooSmall)
    );
}

#[test]
fn nesting_and_work_limits() {
    let schema =
        Schema::parse(&[("list.fbs", "table Node { next:Node; } root_type Node;")]).unwrap();
    let chain = |depth: usize| {
        let mut b = FlatBufferBuilder::new();
        let mut next: Option<WIPOffset<flatbuffers::TableFinishedWIPOffset>> = None;
        for _ in 0..depth {
            let start = b.start_table();
            if let Some(n) = next {
                b.push_slot_always(vt(0), n);
            }
            next = Some(b.end_table(start));
        }
        b.finish_minimal(next.unwrap());
        b.finished_data().to_vec()
    };
    let ok = chain(99);
    assert_eq!(
        verify_root(&schema, &ok, 0, &Limits::for_len(ok.len())),
        Ok(())
    );
    let deep = chain(100);
    assert_eq!(
        verify_root(&schema, &deep, 0, &Limits::for_len(deep.len())),
        Err(Error::MaxNestingLevelReached)
    );
    let few = Limits {
        max_tables: 10,
        max_apparent_size: usize::MAX,
    };
    assert_eq!(
        verify_root(&schema, &ok, 0, &few),
        Err(Error::TooManyTables)
    );
    let small = Limits {
        max_tables: usize::MAX,
        max_apparent_size: 64,
    };
    assert_eq!(
        verify_root(&schema, &ok, 0, &small),
        Err(Error::ApparentSizeTooLarge)
    );
}

#[test]
fn schema_errors_name_the_problem() {
    let err = |text: &str| Schema::parse(&[("s.fbs", text)]).unwrap_err().to_string();
    assert!(err("table T { a:Missing; } root_type T;").contains("unknown type `Missing`"));
    assert!(err("table T { a:int; }").contains("no root_type"));
    assert!(err("table T { a:[ubyte] (union_vector); } root_type T;").contains("union_vector"));
    assert!(err("include \"other.fbs\"; table T {} root_type T;").contains("other.fbs"));
    assert!(err("table T { a:int (id: 1); b:int; } root_type T;").contains("ids to some fields"));
}
