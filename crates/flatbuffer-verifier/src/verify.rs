//! The walk: every table, field, vector, string and union reachable from the
//! root, checked in the order and with the rules of flatcc's verifier (the
//! library upstream IREE links), so that a malformed buffer fails with the
//! error upstream reports for it.
//!
//! Positions are `u64` so no sum can wrap: where flatcc's 32-bit offset
//! arithmetic wraps (a header offset ending just below 4 GiB), flatcc reads
//! out of bounds and this walk reports the header out of range.

use std::fmt;

use crate::schema::{Kind, Schema, Table};

/// Why a buffer failed verification. `Display` gives flatcc's text for the
/// same failure (`flatcc_verify_error_string`), except for the two work
/// limits, which flatcc does not have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// Fewer than 8 bytes (root offset and identifier).
    BufferHeaderTooSmall,
    /// The identifier at bytes 4..8 is not the schema's.
    IdentifierMismatch,
    /// More than 100 levels of tables (vectors and unions count a level).
    MaxNestingLevelReached,
    /// A `required` field is absent.
    RequiredFieldMissing,
    /// The buffer does not start at a 4-byte aligned address.
    RuntimeBufferHeaderNotAligned,
    /// The buffer is too large for 32-bit offsets.
    RuntimeBufferSizeTooLarge,
    /// A string's last byte is not NUL.
    StringNotZeroTerminated,
    /// A string's bytes (and NUL) run past the end.
    StringOutOfRange,
    /// An inline field is not aligned to its size (or struct alignment).
    TableFieldNotAligned,
    /// An inline field reaches past the table's size.
    TableFieldOutOfRange,
    /// A table's offset is zero, past the end or misaligned.
    TableHeaderOutOfRangeOrUnaligned,
    /// A vector's offset is zero, past the end or misaligned.
    VectorHeaderOutOfRangeOrUnaligned,
    /// A string's offset is zero, past the end or misaligned.
    StringHeaderOutOfRangeOrUnaligned,
    /// A table's size reaches past the end.
    TableSizeOutOfRange,
    /// A required union has no type field.
    TypeFieldAbsentFromRequiredUnionField,
    /// A required union vector has neither type nor value vector.
    TypeFieldAbsentFromRequiredUnionVectorField,
    /// A union value without a type field.
    UnionCannotHaveATableWithoutAType,
    /// A union value whose type is NONE.
    UnionTypeNoneCannotHaveAValue,
    /// A vector's element count times element size exceeds 32 bits.
    VectorCountExceedsRepresentableVectorSize,
    /// A vector's elements run past the end.
    VectorOutOfRange,
    /// A vtable's first two entries run past the end.
    VtableHeaderOutOfRange,
    /// A vtable too small for its own two header entries.
    VtableHeaderTooSmall,
    /// A vtable before the buffer's start or at an odd position.
    VtableOffsetOutOfRangeOrUnaligned,
    /// A vtable whose size is odd or runs past the end.
    VtableSizeOutOfRangeOrUnaligned,
    /// A union vector element that is absent while its type is not NONE.
    UnionElementAbsentWithoutTypeNone,
    /// A union vector element that is present while its type is NONE.
    UnionElementPresentWithTypeNone,
    /// A union vector whose type and value vectors differ in length.
    UnionVectorLengthMismatch,
    /// More tables visited than [`Limits::max_tables`] allows.
    TooManyTables,
    /// More bytes visited than [`Limits::max_apparent_size`] allows.
    ApparentSizeTooLarge,
}

impl Error {
    /// The error's text (flatcc's wording).
    pub fn as_str(self) -> &'static str {
        match self {
            Error::BufferHeaderTooSmall => "buffer header too small",
            Error::IdentifierMismatch => "identifier mismatch",
            Error::MaxNestingLevelReached => "max nesting level reached",
            Error::RequiredFieldMissing => "required field missing",
            Error::RuntimeBufferHeaderNotAligned => "runtime: buffer header not aligned",
            Error::RuntimeBufferSizeTooLarge => "runtime: buffer size too large",
            Error::StringNotZeroTerminated => "string not zero terminated",
            Error::StringOutOfRange => "string out of range",
            Error::TableFieldNotAligned => "table field not aligned",
            Error::TableFieldOutOfRange => "table field out of range",
            Error::TableHeaderOutOfRangeOrUnaligned => "table header out of range or unaligned",
            Error::VectorHeaderOutOfRangeOrUnaligned => "vector header out of range or unaligned",
            Error::StringHeaderOutOfRangeOrUnaligned => "string header out of range or unaligned",
            Error::TableSizeOutOfRange => "table size out of range",
            Error::TypeFieldAbsentFromRequiredUnionField => {
                "type field absent from required union field"
            }
            Error::TypeFieldAbsentFromRequiredUnionVectorField => {
                "type field absent from required union vector field"
            }
            Error::UnionCannotHaveATableWithoutAType => "union cannot have a table without a type",
            Error::UnionTypeNoneCannotHaveAValue => "union value field present with type NONE",
            Error::VectorCountExceedsRepresentableVectorSize => {
                "vector count exceeds representable vector size"
            }
            Error::VectorOutOfRange => "vector out of range",
            Error::VtableHeaderOutOfRange => "vtable header out of range",
            Error::VtableHeaderTooSmall => "vtable header too small",
            Error::VtableOffsetOutOfRangeOrUnaligned => "vtable offset out of range or unaligned",
            Error::VtableSizeOutOfRangeOrUnaligned => "vtable size out of range or unaligned",
            Error::UnionElementAbsentWithoutTypeNone => "union element absent without type NONE",
            Error::UnionElementPresentWithTypeNone => "union element present with type NONE",
            Error::UnionVectorLengthMismatch => {
                "union type and table vectors have different lengths"
            }
            Error::TooManyTables => "too many tables",
            Error::ApparentSizeTooLarge => "apparent size too large",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::error::Error for Error {}

/// Bounds on the work one verification does. A buffer can reference the
/// same objects many times, so without them a small crafted buffer could
/// make verification (or a copy made afterwards) take forever; flatcc has
/// no such bounds and hangs on such input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most tables visited (a shared table counts on every visit).
    pub max_tables: usize,
    /// Most bytes of tables, vectors and strings visited (shared ones count
    /// on every visit).
    pub max_apparent_size: usize,
}

impl Limits {
    /// Limits scaled to a buffer of `len` bytes: generous for anything a
    /// FlatBuffers builder writes (every table takes at least 4 bytes;
    /// sharing is rare), small enough that crafted sharing stays cheap.
    pub fn for_len(len: usize) -> Limits {
        Limits {
            max_tables: len / 4 + 1024,
            max_apparent_size: len.saturating_mul(8).saturating_add(1 << 20),
        }
    }

    /// The same limits for the `flatbuffers` crate's verifier (which the
    /// generated Rust accessors need to have run).
    pub fn verifier_options(&self) -> flatbuffers::VerifierOptions {
        flatbuffers::VerifierOptions {
            max_depth: MAX_LEVELS as usize,
            max_tables: self.max_tables,
            max_apparent_size: self.max_apparent_size,
            ignore_missing_null_terminator: false,
        }
    }
}

/// flatcc's `FLATCC_VERIFIER_MAX_LEVELS`.
const MAX_LEVELS: i32 = 100;
/// Size of an offset (`uoffset_t`).
const OFFSET: u64 = 4;
/// flatcc's `FLATBUFFERS_UOFFSET_MAX`.
const UOFFSET_MAX: u64 = u32::MAX as u64;

/// Verifies `buf` as a buffer whose root is `schema`'s root table, with
/// `schema`'s file identifier if it declares one (flatcc's
/// `<root>_verify_as_root`).
///
/// `address` is where the buffer starts in memory, or any number congruent
/// to that modulo 8: flatcc checks inline fields for alignment against
/// their memory address (and offsets and vectors against their position in
/// the buffer). Pass the buffer's offset in the file it came from when the
/// file is loaded at an aligned address, as upstream loads files; that
/// keeps the outcome independent of where this process put the bytes.
pub fn verify_root(
    schema: &Schema,
    buf: &[u8],
    address: usize,
    limits: &Limits,
) -> Result<(), Error> {
    let mut budget = Budget {
        tables: limits.max_tables,
        bytes: limits.max_apparent_size,
    };
    let walk = Walk {
        schema,
        buf,
        end: buf.len() as u64,
        address: address as u64,
    };
    walk.header(schema.identifier())?;
    let root = walk.u32(0)?;
    walk.table(&mut budget, 0, root, MAX_LEVELS, schema.root)
}

struct Budget {
    tables: usize,
    bytes: usize,
}

impl Budget {
    fn spend_bytes(&mut self, n: u64) -> Result<(), Error> {
        let n = usize::try_from(n).map_err(|_| Error::ApparentSizeTooLarge)?;
        self.bytes = self
            .bytes
            .checked_sub(n)
            .ok_or(Error::ApparentSizeTooLarge)?;
        Ok(())
    }
}

/// One buffer (the root one or a nested one).
struct Walk<'a> {
    schema: &'a Schema,
    buf: &'a [u8],
    end: u64,
    address: u64,
}

/// A table whose header has been verified (flatcc's
/// `flatcc_table_verifier_descriptor_t`).
struct TableAt {
    table: u64,
    vtable: u64,
    vsize: u64,
    tsize: u64,
    ttl: i32,
}

fn ensure(condition: bool, error: Error) -> Result<(), Error> {
    if condition {
        Ok(())
    } else {
        Err(error)
    }
}

impl Walk<'_> {
    fn bytes<const N: usize>(&self, at: u64) -> Result<[u8; N], Error> {
        // Callers only read what an earlier check put inside the buffer;
        // the fallback keeps a mistake from becoming a panic.
        usize::try_from(at)
            .ok()
            .and_then(|at| self.buf.get(at..at.checked_add(N)?))
            .and_then(|b| b.try_into().ok())
            .ok_or(Error::VectorOutOfRange)
    }

    fn u32(&self, at: u64) -> Result<u32, Error> {
        self.bytes::<4>(at).map(u32::from_le_bytes)
    }

    fn u16(&self, at: u64) -> Result<u16, Error> {
        self.bytes::<2>(at).map(u16::from_le_bytes)
    }

    fn u8(&self, at: u64) -> Result<u8, Error> {
        self.bytes::<1>(at).map(|[b]| b)
    }

    /// `flatcc_verify_buffer_header`.
    fn header(&self, identifier: Option<[u8; 4]>) -> Result<(), Error> {
        ensure(
            self.address.is_multiple_of(OFFSET),
            Error::RuntimeBufferHeaderNotAligned,
        )?;
        ensure(
            self.end <= UOFFSET_MAX - 8,
            Error::RuntimeBufferSizeTooLarge,
        )?;
        ensure(self.end >= 8, Error::BufferHeaderTooSmall)?;
        if let Some(expected) = identifier {
            ensure(self.bytes::<4>(4)? == expected, Error::IdentifierMismatch)?;
        }
        Ok(())
    }

    /// flatcc's `check_header`: a non-zero offset from `base` to a
    /// 4-aligned position with 4 bytes before the end.
    fn check_header(&self, base: u64, offset: u32) -> bool {
        let k = base + u64::from(offset);
        k > base && k + OFFSET <= self.end && k.is_multiple_of(OFFSET)
    }

    /// `verify_table`.
    fn table(
        &self,
        budget: &mut Budget,
        base: u64,
        offset: u32,
        ttl: i32,
        table: usize,
    ) -> Result<(), Error> {
        let ttl = ttl - 1;
        ensure(ttl != 0, Error::MaxNestingLevelReached)?;
        ensure(
            self.check_header(base, offset),
            Error::TableHeaderOutOfRangeOrUnaligned,
        )?;
        let at = base + u64::from(offset);
        // The vtable is at `table - soffset`, computed as flatcc does in
        // 32 bits: a result at or above 2 GiB (a negative one wrapped
        // included) is out of range.
        let vtable = u64::from((at as u32).wrapping_sub(self.u32(at)?));
        ensure(
            vtable < 1 << 31 && vtable.is_multiple_of(2),
            Error::VtableOffsetOutOfRangeOrUnaligned,
        )?;
        ensure(vtable + 2 <= self.end, Error::VtableHeaderOutOfRange)?;
        let vsize = u64::from(self.u16(vtable)?);
        ensure(
            vtable + vsize <= self.end && vsize.is_multiple_of(2),
            Error::VtableSizeOutOfRangeOrUnaligned,
        )?;
        ensure(vsize >= 4, Error::VtableHeaderTooSmall)?;
        let tsize = u64::from(self.u16(vtable + 2)?);
        ensure(self.end - at >= tsize, Error::TableSizeOutOfRange)?;
        budget.tables = budget.tables.checked_sub(1).ok_or(Error::TooManyTables)?;
        budget.spend_bytes(vsize + tsize)?;
        let td = TableAt {
            table: at,
            vtable,
            vsize,
            tsize,
            ttl,
        };
        let schema: &Table = &self.schema.tables[table];
        for field in &schema.fields {
            self.field(budget, &td, field.id, field.required, field.kind)?;
        }
        Ok(())
    }

    /// `read_vt_entry`: the field's offset in the table, 0 when absent.
    fn vt_entry(&self, td: &TableAt, id: u16) -> Result<u64, Error> {
        let vo = (u64::from(id) + 2) * 2;
        if vo >= td.vsize {
            return Ok(0);
        }
        Ok(u64::from(self.u16(td.vtable + vo)?))
    }

    /// `verify_field`: an inline field of `size` bytes inside the table,
    /// aligned in memory.
    fn inline_field(&self, td: &TableAt, id: u16, size: u32, align: u32) -> Result<(), Error> {
        let vte = self.vt_entry(td, id)?;
        if vte == 0 {
            return Ok(());
        }
        ensure(
            vte + u64::from(size) <= td.tsize,
            Error::TableFieldOutOfRange,
        )?;
        let address = self.address + td.table + vte;
        ensure(
            address.is_multiple_of(u64::from(align.max(1))),
            Error::TableFieldNotAligned,
        )
    }

    /// `get_offset_field`: the position of an offset field, `None` when it
    /// is absent (an error when it is required).
    fn offset_field(&self, td: &TableAt, id: u16, required: bool) -> Result<Option<u64>, Error> {
        let vte = self.vt_entry(td, id)?;
        if vte == 0 {
            ensure(!required, Error::RequiredFieldMissing)?;
            return Ok(None);
        }
        ensure(vte + OFFSET <= td.tsize, Error::TableFieldOutOfRange)?;
        let at = td.table + vte;
        ensure(at.is_multiple_of(OFFSET), Error::TableFieldNotAligned)?;
        Ok(Some(at))
    }

    fn field(
        &self,
        budget: &mut Budget,
        td: &TableAt,
        id: u16,
        required: bool,
        kind: Kind,
    ) -> Result<(), Error> {
        match kind {
            Kind::Inline { size, align } => self.inline_field(td, id, size, align),
            Kind::Union(union) => self.union_field(budget, td, id, required, union),
            Kind::UnionVector(union) => self.union_vector_field(budget, td, id, required, union),
            _ => {
                let Some(at) = self.offset_field(td, id, required)? else {
                    return Ok(());
                };
                let offset = self.u32(at)?;
                match kind {
                    Kind::String => self.string(budget, at, offset),
                    Kind::Table(table) => self.table(budget, at, offset, td.ttl, table),
                    Kind::Vector { size, align } => {
                        self.vector(budget, at, offset, size, align).map(|_| ())
                    }
                    Kind::StringVector => {
                        let (data, n) = self.vector(budget, at, offset, 4, 4)?;
                        for i in 0..n {
                            let elem = data + i * OFFSET;
                            self.string(budget, elem, self.u32(elem)?)?;
                        }
                        Ok(())
                    }
                    Kind::TableVector(table) => {
                        ensure(td.ttl > 0, Error::MaxNestingLevelReached)?;
                        let ttl = td.ttl - 1;
                        let (data, n) = self.vector(budget, at, offset, 4, 4)?;
                        for i in 0..n {
                            let elem = data + i * OFFSET;
                            self.table(budget, elem, self.u32(elem)?, ttl, table)?;
                        }
                        Ok(())
                    }
                    Kind::Nested(table) => {
                        let (data, n) = self.vector(budget, at, offset, 1, 1)?;
                        self.nested(budget, data, n, td.ttl, table)
                    }
                    Kind::Inline { .. } | Kind::Union(_) | Kind::UnionVector(_) => {
                        unreachable!("handled above")
                    }
                }
            }
        }
    }

    /// `verify_string`.
    fn string(&self, budget: &mut Budget, base: u64, offset: u32) -> Result<(), Error> {
        ensure(
            self.check_header(base, offset),
            Error::StringHeaderOutOfRangeOrUnaligned,
        )?;
        let at = base + u64::from(offset);
        let n = u64::from(self.u32(at)?);
        let data = at + OFFSET;
        ensure(self.end - data > n, Error::StringOutOfRange)?;
        ensure(self.u8(data + n)? == 0, Error::StringNotZeroTerminated)?;
        budget.spend_bytes(OFFSET + n + 1)
    }

    /// `verify_vector`: returns the position of the first element and the
    /// element count.
    fn vector(
        &self,
        budget: &mut Budget,
        base: u64,
        offset: u32,
        elem_size: u32,
        align: u32,
    ) -> Result<(u64, u64), Error> {
        ensure(
            self.check_header(base, offset),
            Error::VectorHeaderOutOfRangeOrUnaligned,
        )?;
        let at = base + u64::from(offset);
        let n = u64::from(self.u32(at)?);
        let data = at + OFFSET;
        let align = u64::from(align).max(OFFSET);
        ensure(
            data.is_multiple_of(align),
            Error::VectorHeaderOutOfRangeOrUnaligned,
        )?;
        let elem_size = u64::from(elem_size.max(1));
        ensure(
            n <= UOFFSET_MAX / elem_size,
            Error::VectorCountExceedsRepresentableVectorSize,
        )?;
        ensure(self.end - data >= n * elem_size, Error::VectorOutOfRange)?;
        budget.spend_bytes(OFFSET + n * elem_size)?;
        Ok((data, n))
    }

    /// `flatcc_verify_union_field`: the tag is field `id - 1`.
    fn union_field(
        &self,
        budget: &mut Budget,
        td: &TableAt,
        id: u16,
        required: bool,
        union: usize,
    ) -> Result<(), Error> {
        let tag_id = id - 1;
        let vte_type = self.vt_entry(td, tag_id)?;
        if vte_type == 0 {
            ensure(
                self.vt_entry(td, id)? == 0,
                Error::UnionCannotHaveATableWithoutAType,
            )?;
            ensure(!required, Error::TypeFieldAbsentFromRequiredUnionField)?;
            return Ok(());
        }
        self.inline_field(td, tag_id, 1, 1)?;
        let tag = self.u8(td.table + vte_type)?;
        ensure(
            tag != 0 || self.vt_entry(td, id)? == 0,
            Error::UnionTypeNoneCannotHaveAValue,
        )?;
        if tag == 0 {
            return Ok(());
        }
        let Some(at) = self.offset_field(td, id, required)? else {
            return Ok(());
        };
        match self.schema.unions[union].member(tag) {
            Some(table) => self.table(budget, at, self.u32(at)?, td.ttl, table),
            None => Ok(()),
        }
    }

    /// `flatcc_verify_union_vector_field`: the tags are field `id - 1`.
    fn union_vector_field(
        &self,
        budget: &mut Budget,
        td: &TableAt,
        id: u16,
        required: bool,
        union: usize,
    ) -> Result<(), Error> {
        let tag_id = id - 1;
        if self.vt_entry(td, tag_id)? == 0 && self.vt_entry(td, id)? == 0 {
            ensure(
                !required,
                Error::TypeFieldAbsentFromRequiredUnionVectorField,
            )?;
        }
        let Some(tags_at) = self.offset_field(td, tag_id, required)? else {
            return Ok(());
        };
        let (tags, count) = self.vector(budget, tags_at, self.u32(tags_at)?, 1, 1)?;
        let Some(at) = self.offset_field(td, id, required)? else {
            return Ok(());
        };
        ensure(td.ttl > 0, Error::MaxNestingLevelReached)?;
        let ttl = td.ttl - 1;
        let (data, n) = self.vector(budget, at, self.u32(at)?, 4, 4)?;
        ensure(n == count, Error::UnionVectorLengthMismatch)?;
        for i in 0..n {
            let elem = data + i * OFFSET;
            let offset = self.u32(elem)?;
            let tag = self.u8(tags + i)?;
            if offset == 0 {
                ensure(tag == 0, Error::UnionElementAbsentWithoutTypeNone)?;
                continue;
            }
            ensure(tag != 0, Error::UnionElementPresentWithTypeNone)?;
            if let Some(table) = self.schema.unions[union].member(tag) {
                self.table(budget, elem, offset, ttl, table)?;
            }
        }
        Ok(())
    }

    /// `flatcc_verify_table_as_nested_root`: a buffer inside a byte
    /// vector, without an identifier check.
    fn nested(
        &self,
        budget: &mut Budget,
        data: u64,
        len: u64,
        ttl: i32,
        table: usize,
    ) -> Result<(), Error> {
        let start = usize::try_from(data).map_err(|_| Error::VectorOutOfRange)?;
        let len_usize = usize::try_from(len).map_err(|_| Error::VectorOutOfRange)?;
        let buf = self
            .buf
            .get(start..start.saturating_add(len_usize))
            .ok_or(Error::VectorOutOfRange)?;
        let nested = Walk {
            schema: self.schema,
            buf,
            end: len,
            address: self.address + data,
        };
        nested.header(None)?;
        let root = nested.u32(0)?;
        nested.table(budget, 0, root, ttl, table)
    }
}
