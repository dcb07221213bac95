//! `--output=metadata`: the module's name, requirements, attributes, types,
//! dependencies, imports and exports, a size breakdown of its sections, its
//! function table and the size of its debug database, in upstream's layout.

use std::fmt::Write;

use flatbuffers::{ForwardsUOffset, VOffsetT, Vector};
use iree_base::{bail, Result};
use iree_vm_bytecode::format::schema::{
    AttrDef, BytecodeModuleDef, CompressionTypeDef, ExportFunctionDef, FunctionSignatureDef,
    ImportFlagBits, ModuleDependencyFlagBits, RodataSegmentDef,
};

/// Size of an `iree_vm_ref_t` on a 64-bit host, which upstream counts per
/// ref global in the module state estimate.
const REF_SIZE: u64 = 16;

/// Longest prefix of a string-like rodata segment that is quoted.
const MAX_QUOTED_RODATA: usize = 32;

/// A section header: the module or section title between two rules.
fn section_header(out: &mut String, title: &str) {
    let rule = format!("//==={}===//\n", "-".repeat(110));
    out.push_str(&rule);
    let _ = writeln!(out, "// {title}");
    out.push_str(&rule);
}

/// Feature bits as upstream names them: `EXT_F32`, `EXT_F64`, then any other
/// bits as 8 hex digits, joined by ` | `. Returns the printed width, counting
/// the names and hex digits but not the separators (as upstream does, for
/// padding the function table).
fn feature_bits(out: &mut String, mut bits: u32) -> usize {
    let mut width = 0;
    for (bit, name) in [(1u32, "EXT_F32"), (2u32, "EXT_F64")] {
        if bits & bit != 0 {
            if width > 0 {
                out.push_str(" | ");
            }
            out.push_str(name);
            width += name.len();
            bits &= !bit;
        }
    }
    if bits != 0 {
        if width > 0 {
            out.push_str(" | ");
        }
        let _ = write!(out, "{bits:08X}");
        width += 8;
    }
    width
}

/// Whether a table has field `field` at all (upstream prints some sections
/// only for present fields, even when they hold the default value).
fn has_field(table: &flatbuffers::Table<'_>, field: VOffsetT) -> bool {
    table.vtable().get(field) != 0
}

fn attrs(out: &mut String, defs: Vector<'_, ForwardsUOffset<AttrDef<'_>>>, indent: usize) {
    for attr in defs {
        let _ = writeln!(
            out,
            "{:indent$}{}: {}",
            "",
            attr.key().unwrap_or(""),
            attr.value().unwrap_or("")
        );
    }
}

/// Prints one side of a calling convention string (`iIr`, `CiD`) as types:
/// `i32, i64, !vm.ref<?>`, spans as `tuple<...>...`.
fn cconv_fragment(out: &mut String, fragment: &[u8]) -> Result<()> {
    let mut i = 0;
    while i < fragment.len() {
        if i > 0 {
            out.push_str(", ");
        }
        match fragment[i] {
            b'v' => {}
            b'i' => out.push_str("i32"),
            b'f' => out.push_str("f32"),
            b'I' => out.push_str("i64"),
            b'F' => out.push_str("f64"),
            b'r' => out.push_str("!vm.ref<?>"),
            b'C' => {
                let Some(len) = fragment[i + 1..].iter().position(|&c| c == b'D') else {
                    bail!(FailedPrecondition, "unterminated cconv span");
                };
                out.push_str("tuple<");
                cconv_fragment(out, &fragment[i + 1..i + 1 + len])?;
                out.push_str(">...");
                i += len + 1;
            }
            other => bail!(
                Unimplemented,
                "unsupported cconv type '{}'",
                char::from(other)
            ),
        }
        i += 1;
    }
    Ok(())
}

/// Prints a calling convention (`0iI_r`) as `(i32, i64) -> (!vm.ref<?>)`.
fn cconv(out: &mut String, cconv: &str) -> Result<()> {
    let (arguments, results) = match cconv.as_bytes() {
        [] => (&[][..], &[][..]),
        [b'0', body @ ..] => match body.iter().position(|&c| c == b'_') {
            Some(split) => (&body[..split], &body[split + 1..]),
            None => (body, &[][..]),
        },
        [version, ..] => bail!(
            Unimplemented,
            "unsupported cconv version {}",
            char::from(*version)
        ),
    };
    out.push('(');
    cconv_fragment(out, arguments)?;
    out.push_str(") -> (");
    cconv_fragment(out, results)?;
    out.push(')');
    Ok(())
}

/// A function signature's cconv (if any) and newline, then its attributes.
fn signature(out: &mut String, def: Option<FunctionSignatureDef<'_>>, indent: usize) -> Result<()> {
    if let Some(convention) = def.and_then(|d| d.calling_convention()) {
        cconv(out, convention)?;
    }
    out.push('\n');
    if let Some(defs) = def.and_then(|d| d.attrs()) {
        attrs(out, defs, indent);
    }
    Ok(())
}

/// Whether rodata looks like a string: every byte before the first NUL (or
/// of all of it) printable ASCII. Returns that length.
fn printable_prefix(data: &[u8]) -> Option<usize> {
    let len = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    data[..len]
        .iter()
        .all(|b| (0x20..0x7F).contains(b))
        .then_some(len)
}

fn rodata_segment(out: &mut String, index: usize, segment: RodataSegmentDef<'_>) {
    let _ = write!(out, "  .rodata[{index:3}] ");
    if segment.compression_type_type() == CompressionTypeDef::UncompressedDataDef {
        out.push_str("uncompressed ");
    }
    if let Some(data) = segment.embedded_data() {
        let data = data.bytes();
        let _ = write!(out, "embedded {:8} bytes", data.len());
        if let Some(len) = printable_prefix(data) {
            let shown = &data[..len.min(MAX_QUOTED_RODATA)];
            let _ = write!(out, " `{}`", String::from_utf8_lossy(shown));
            if len >= MAX_QUOTED_RODATA {
                out.push_str("...");
            }
        }
    } else {
        let offset = segment.external_data_offset();
        let length = segment.external_data_length();
        let _ = write!(
            out,
            "external {length:8} bytes (offset {offset} / {offset:X}h to {:X}h)",
            offset.wrapping_add(length)
        );
    }
    out.push('\n');
}

/// The exports whose internal ordinal is `ordinal`, comma separated.
fn aliases(
    out: &mut String,
    exports: Option<Vector<'_, ForwardsUOffset<ExportFunctionDef<'_>>>>,
    ordinal: usize,
) {
    let mut first = true;
    for export in exports.iter().flatten() {
        if usize::try_from(export.internal_ordinal()).ok() == Some(ordinal) {
            if !first {
                out.push_str(", ");
            }
            out.push_str(export.local_name().unwrap_or(""));
            first = false;
        }
    }
}

/// Writes the metadata of `module`, whose flatbuffer (size prefix excluded)
/// is `flatbuffer_len` bytes long.
pub fn write(out: &mut String, module: BytecodeModuleDef<'_>, flatbuffer_len: usize) -> Result<()> {
    section_header(
        out,
        &format!("@{} : version {}", module.name(), module.version() as i32),
    );
    out.push('\n');

    if has_field(&module._tab, BytecodeModuleDef::VT_REQUIREMENTS) {
        out.push_str("Requirements: ");
        feature_bits(out, module.requirements().bits());
        out.push_str("\n\n");
    }
    if let Some(defs) = module.attrs() {
        out.push_str("Attributes:\n");
        attrs(out, defs, 2);
        out.push('\n');
    }
    if let Some(types) = module.types() {
        out.push_str("Required Types:\n");
        for (i, t) in types.iter().enumerate() {
            let _ = writeln!(out, "  [{i:3}] {}", t.full_name().unwrap_or(""));
        }
        out.push('\n');
    }
    if let Some(dependencies) = module.dependencies() {
        out.push_str("Module Dependencies:\n");
        for d in dependencies {
            let optional = d.flags().contains(ModuleDependencyFlagBits::OPTIONAL);
            let _ = writeln!(
                out,
                "  {}, version >= {}, {}",
                d.name().unwrap_or(""),
                d.minimum_version() as i32,
                if optional { "optional" } else { "required" }
            );
        }
        out.push('\n');
    }
    if let Some(imports) = module.imported_functions() {
        out.push_str("Imported Functions:\n");
        for (i, import) in imports.iter().enumerate() {
            let _ = write!(out, "  [{i:3}] ");
            if import.flags().contains(ImportFlagBits::OPTIONAL) {
                out.push('?');
            }
            out.push_str(import.full_name().unwrap_or(""));
            signature(out, import.signature(), 8)?;
        }
        out.push('\n');
    }
    if let Some(exports) = module.exported_functions() {
        out.push_str("Exported Functions:\n");
        let signatures = module.function_signatures();
        for (i, export) in exports.iter().enumerate() {
            let _ = write!(out, "  [{i:3}] {}", export.local_name().unwrap_or(""));
            let def = usize::try_from(export.internal_ordinal())
                .ok()
                .and_then(|ordinal| {
                    signatures
                        .filter(|s| ordinal < s.len())
                        .map(|s| s.get(ordinal))
                });
            signature(out, def, 8)?;
        }
        out.push('\n');
    }

    section_header(out, "Sections");
    out.push('\n');
    if let Some(state) = module.module_state() {
        let bytes = state.global_bytes_capacity();
        let refs = state.global_ref_count();
        let total = (bytes as u64).wrapping_add(REF_SIZE.wrapping_mul(refs as u64));
        let _ = writeln!(
            out,
            "Module State:\n  {bytes} bytes, {refs} refs, ~{total} bytes total\n"
        );
    }
    let _ = writeln!(out, "FlatBuffer: {flatbuffer_len} bytes");
    if let Some(bytecode) = module.bytecode_data() {
        let _ = writeln!(out, "  Bytecode: {} bytes", bytecode.len());
    }
    let mut external_size = 0u64;
    if let Some(segments) = module.rodata_segments() {
        for (i, segment) in segments.iter().enumerate() {
            rodata_segment(out, i, segment);
            if segment.embedded_data().is_none() {
                external_size = external_size.wrapping_add(segment.external_data_length());
            }
        }
    }
    if let Some(segments) = module.rwdata_segments() {
        for (i, segment) in segments.iter().enumerate() {
            let _ = writeln!(out, "  .rwdata[{i:3}] {} bytes", segment.byte_size());
        }
    }
    out.push('\n');
    if external_size > 0 {
        let _ = writeln!(out, "External .rodata: ~{external_size} bytes\n");
    }

    section_header(
        out,
        &format!("Bytecode : version {}", module.version() as i32),
    );
    out.push('\n');
    if let Some(descriptors) = module.function_descriptors() {
        out.push_str(
            "  # | Offset   |   Length | Blocks | i32 # | ref # | Requirements | Aliases\n",
        );
        let _ = writeln!(
            out,
            "----+----------+----------+--------+-------+-------+--------------+-{}",
            "-".repeat(52)
        );
        for (i, d) in descriptors.iter().enumerate() {
            let _ = write!(
                out,
                "{i:3} | {:08X} | {:8} | {:6} | {:5} | {:5} | ",
                d.bytecode_offset() as u32,
                d.bytecode_length(),
                d.block_count(),
                d.i32_register_count(),
                d.ref_register_count()
            );
            let width = feature_bits(out, d.requirements().bits());
            let _ = write!(out, "{:pad$} | ", "", pad = 12usize.saturating_sub(width));
            aliases(out, module.exported_functions(), i);
            out.push('\n');
        }
    }
    out.push('\n');

    if let Some(database) = module.debug_database() {
        section_header(out, "Debug Information");
        out.push_str(
            "// NOTE: debug databases are large and should be stripped in deployed artifacts.\n\n",
        );
        let locations = database.location_table().map_or(0, |t| t.len());
        let _ = writeln!(out, "Locations: {locations}\n");
    }
    Ok(())
}
