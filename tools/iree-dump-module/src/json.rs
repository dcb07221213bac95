//! `--output=flatbuffer-json`: the module flatbuffer as JSON in the layout of
//! flatcc's JSON printer (which upstream uses): fields in schema order,
//! scalars equal to their default left out, enums and bit flags by name,
//! unions as a `<field>_type` name and the value, and with `--pretty`
//! flatcc's indentation (two spaces a level, vectors of tables opening on
//! the same line as `[`).

use std::fmt::Write;

use flatbuffers::{ForwardsUOffset, Table, VOffsetT, Vector};
use iree_base::Result;
use iree_vm_bytecode::format::schema::{
    AttrDef, BytecodeLocationDef, BytecodeModuleDef, CompressionTypeDef, DebugDatabaseDef,
    ExportFunctionDef, FunctionDescriptor, FunctionSignatureDef, FunctionSourceMapDef,
    ImportFunctionDef, LocationTypeDef, ModuleDependencyDef, ModuleStateDef, RodataSegmentDef,
    RwdataSegmentDef, TypeDef,
};
use iree_vm_bytecode::format::{debug_location_table, DebugLocation};

/// Writes JSON text with flatcc's spacing.
struct Printer {
    out: String,
    pretty: bool,
    level: usize,
}

/// The fields of one open table or struct (for the commas between them).
struct Fields {
    any: bool,
}

impl Printer {
    fn newline(&mut self) {
        if self.pretty {
            self.out.push('\n');
            let _ = write!(self.out, "{:1$}", "", self.level * 2);
        }
    }

    fn start(&mut self, c: char) {
        self.level += 1;
        self.out.push(c);
    }

    fn end(&mut self, c: char) {
        self.level -= 1;
        if self.pretty {
            self.newline();
        }
        self.out.push(c);
    }

    fn string(&mut self, text: &str) {
        iree_base::json::push_string(&mut self.out, text);
    }

    /// Starts the next field of a table or struct: comma, line, name.
    fn field(&mut self, fields: &mut Fields, name: &str) {
        if fields.any {
            self.out.push(',');
        }
        fields.any = true;
        self.newline();
        let _ = write!(self.out, "\"{name}\":");
        if self.pretty {
            self.out.push(' ');
        }
    }

    fn raw_field(&mut self, fields: &mut Fields, name: &str, value: impl std::fmt::Display) {
        self.field(fields, name);
        let _ = write!(self.out, "{value}");
    }

    fn string_field(&mut self, fields: &mut Fields, name: &str, value: Option<&str>) {
        if let Some(value) = value {
            self.field(fields, name);
            self.string(value);
        }
    }

    /// A vector of scalars or structs: each element on its own line.
    fn inline_vector<T>(
        &mut self,
        items: impl Iterator<Item = T>,
        mut item: impl FnMut(&mut Self, T),
    ) {
        self.start('[');
        for (i, value) in items.enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.newline();
            item(self, value);
        }
        self.end(']');
    }

    /// A vector of tables: elements follow `[` and `,` directly.
    fn table_vector<T>(
        &mut self,
        items: impl Iterator<Item = T>,
        mut item: impl FnMut(&mut Self, T),
    ) {
        self.start('[');
        for (i, value) in items.enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            item(self, value);
        }
        self.end(']');
    }

    fn table(&mut self, body: impl FnOnce(&mut Self, &mut Fields)) {
        self.start('{');
        let mut fields = Fields { any: false };
        body(self, &mut fields);
        self.end('}');
    }
}

/// Whether `table` has field `field`.
fn present(table: &Table<'_>, field: VOffsetT) -> bool {
    table.vtable().get(field) != 0
}

/// Bit flags as flatcc prints them: the names of the set bits in a quoted,
/// space-separated list, or the number when no bit (or an unknown one) is
/// set.
fn flags(bits: u32, names: &[(u32, &str)]) -> String {
    let known = names.iter().fold(0, |all, (bit, _)| all | bit);
    if bits == 0 || bits & !known != 0 {
        return bits.to_string();
    }
    let set: Vec<&str> = names
        .iter()
        .filter(|(bit, _)| bits & bit != 0)
        .map(|(_, name)| *name)
        .collect();
    format!("\"{}\"", set.join(" "))
}

const FEATURE_BITS: [(u32, &str); 4] =
    [(1, "EXT_F32"), (2, "EXT_F64"), (4, "YIELD"), (8, "UNWIND")];
const DEPENDENCY_FLAG_BITS: [(u32, &str); 2] = [(1, "REQUIRED"), (2, "OPTIONAL")];

/// A scalar table field: printed when present and not the default.
fn scalar<T: PartialEq + std::fmt::Display>(
    p: &mut Printer,
    fields: &mut Fields,
    table: &Table<'_>,
    field: VOffsetT,
    name: &str,
    value: T,
    default: T,
) {
    if present(table, field) && value != default {
        p.raw_field(fields, name, value);
    }
}

fn attrs(
    p: &mut Printer,
    fields: &mut Fields,
    name: &str,
    defs: Option<Vector<'_, ForwardsUOffset<AttrDef<'_>>>>,
) {
    if let Some(defs) = defs {
        p.field(fields, name);
        p.table_vector(defs.iter(), |p, attr| {
            p.table(|p, f| {
                p.string_field(f, "key", attr.key());
                p.string_field(f, "value", attr.value());
            })
        });
    }
}

fn signature(p: &mut Printer, def: FunctionSignatureDef<'_>) {
    p.table(|p, f| {
        p.string_field(f, "calling_convention", def.calling_convention());
        attrs(p, f, "attrs", def.attrs());
    });
}

fn bytes(p: &mut Printer, fields: &mut Fields, name: &str, data: Option<Vector<'_, u8>>) {
    if let Some(data) = data {
        p.field(fields, name);
        p.inline_vector(data.bytes().iter(), |p, b| {
            let _ = write!(p.out, "{b}");
        });
    }
}

fn function_descriptor(p: &mut Printer, d: &FunctionDescriptor) {
    p.table(|p, f| {
        p.raw_field(f, "bytecode_offset", d.bytecode_offset());
        p.raw_field(f, "bytecode_length", d.bytecode_length());
        p.raw_field(
            f,
            "requirements",
            flags(d.requirements().bits(), &FEATURE_BITS),
        );
        p.raw_field(f, "reserved", d.reserved());
        p.raw_field(f, "block_count", d.block_count());
        p.raw_field(f, "i32_register_count", d.i32_register_count());
        p.raw_field(f, "ref_register_count", d.ref_register_count());
    });
}

fn debug_database(p: &mut Printer, db: DebugDatabaseDef<'_>, locations: &[DebugLocation<'_>]) {
    p.table(|p, f| {
        if let Some(types) = db.location_table_type() {
            p.field(f, "location_table_type");
            p.inline_vector(types.iter(), |p, tag| {
                let name = match tag {
                    LocationTypeDef::NONE => "NONE",
                    LocationTypeDef::CallSiteLocDef => "CallSiteLocDef",
                    LocationTypeDef::FileLineColLocDef => "FileLineColLocDef",
                    LocationTypeDef::FusedLocDef => "FusedLocDef",
                    LocationTypeDef::NameLocDef => "NameLocDef",
                    _ => "",
                };
                if name.is_empty() {
                    let _ = write!(p.out, "{}", tag.0);
                } else {
                    let _ = write!(p.out, "\"{name}\"");
                }
            });
        }
        if db.location_table().is_some() {
            p.field(f, "location_table");
            p.table_vector(locations.iter(), |p, location| match location {
                DebugLocation::None => p.out.push_str("null"),
                DebugLocation::CallSite(l) => p.table(|p, f| {
                    scalar(p, f, &l._tab, 4, "callee", l.callee(), 0);
                    scalar(p, f, &l._tab, 6, "caller", l.caller(), 0);
                }),
                DebugLocation::FileLineCol(l) => p.table(|p, f| {
                    p.string_field(f, "filename", l.filename());
                    scalar(p, f, &l._tab, 6, "line", l.line(), 0);
                    scalar(p, f, &l._tab, 8, "column", l.column(), 0);
                }),
                DebugLocation::Fused(l) => p.table(|p, f| {
                    p.string_field(f, "metadata", l.metadata());
                    if let Some(locations) = l.locations() {
                        p.field(f, "locations");
                        p.inline_vector(locations.iter(), |p, v| {
                            let _ = write!(p.out, "{v}");
                        });
                    }
                }),
                DebugLocation::Name(l) => p.table(|p, f| {
                    p.string_field(f, "name", l.name());
                    scalar(p, f, &l._tab, 6, "child_location", l.child_location(), 0);
                }),
            });
        }
        if let Some(functions) = db.functions() {
            p.field(f, "functions");
            p.table_vector(functions.iter(), |p, function: FunctionSourceMapDef<'_>| {
                p.table(|p, f| {
                    p.string_field(f, "local_name", function.local_name());
                    if let Some(locations) = function.locations() {
                        p.field(f, "locations");
                        p.inline_vector(locations.iter(), |p, l: &BytecodeLocationDef| {
                            p.table(|p, f| {
                                p.raw_field(f, "bytecode_offset", l.bytecode_offset());
                                p.raw_field(f, "location", l.location());
                            })
                        });
                    }
                })
            });
        }
    });
}

/// Writes `module` as JSON.
pub fn write(out: &mut String, module: BytecodeModuleDef<'_>, pretty: bool) -> Result<()> {
    let mut p = Printer {
        out: String::new(),
        pretty,
        level: 0,
    };
    let t = module._tab;
    // Verified before anything is printed, so that a bad table is an error
    // rather than half a document.
    let locations = match module.debug_database() {
        Some(db) => debug_location_table(&db)?,
        None => Vec::new(),
    };
    p.table(|p, f| {
        p.string_field(f, "name", Some(module.name()));
        scalar(
            p,
            f,
            &t,
            BytecodeModuleDef::VT_VERSION,
            "version",
            module.version(),
            0,
        );
        let requirements = module.requirements().bits();
        if present(&t, BytecodeModuleDef::VT_REQUIREMENTS) && requirements != 0 {
            p.raw_field(f, "requirements", flags(requirements, &FEATURE_BITS));
        }
        attrs(p, f, "attrs", module.attrs());
        if let Some(types) = module.types() {
            p.field(f, "types");
            p.table_vector(types.iter(), |p, t: TypeDef<'_>| {
                p.table(|p, f| p.string_field(f, "full_name", t.full_name()))
            });
        }
        if let Some(dependencies) = module.dependencies() {
            p.field(f, "dependencies");
            p.table_vector(dependencies.iter(), |p, d: ModuleDependencyDef<'_>| {
                p.table(|p, f| {
                    p.string_field(f, "name", d.name());
                    scalar(
                        p,
                        f,
                        &d._tab,
                        ModuleDependencyDef::VT_MINIMUM_VERSION,
                        "minimum_version",
                        d.minimum_version(),
                        0,
                    );
                    let bits = d.flags().bits();
                    if present(&d._tab, ModuleDependencyDef::VT_FLAGS) && bits != 1 {
                        p.raw_field(f, "flags", flags(bits, &DEPENDENCY_FLAG_BITS));
                    }
                })
            });
        }
        if let Some(imports) = module.imported_functions() {
            p.field(f, "imported_functions");
            p.table_vector(imports.iter(), |p, i: ImportFunctionDef<'_>| {
                p.table(|p, f| {
                    p.string_field(f, "full_name", i.full_name());
                    if let Some(sig) = i.signature() {
                        p.field(f, "signature");
                        signature(p, sig);
                    }
                    let bits = i.flags().bits();
                    if present(&i._tab, ImportFunctionDef::VT_FLAGS) && bits != 1 {
                        p.raw_field(f, "flags", flags(bits, &DEPENDENCY_FLAG_BITS));
                    }
                })
            });
        }
        if let Some(exports) = module.exported_functions() {
            p.field(f, "exported_functions");
            p.table_vector(exports.iter(), |p, e: ExportFunctionDef<'_>| {
                p.table(|p, f| {
                    p.string_field(f, "local_name", e.local_name());
                    scalar(
                        p,
                        f,
                        &e._tab,
                        ExportFunctionDef::VT_INTERNAL_ORDINAL,
                        "internal_ordinal",
                        e.internal_ordinal(),
                        0,
                    );
                })
            });
        }
        if let Some(signatures) = module.function_signatures() {
            p.field(f, "function_signatures");
            p.table_vector(signatures.iter(), signature);
        }
        if let Some(segments) = module.rodata_segments() {
            p.field(f, "rodata_segments");
            p.table_vector(segments.iter(), |p, s: RodataSegmentDef<'_>| {
                p.table(|p, f| {
                    let kind = s.compression_type_type();
                    if kind != CompressionTypeDef::NONE {
                        match kind {
                            CompressionTypeDef::UncompressedDataDef => {
                                p.raw_field(f, "compression_type_type", "\"UncompressedDataDef\"")
                            }
                            other => p.raw_field(f, "compression_type_type", other.0),
                        }
                        if s.compression_type().is_some() {
                            p.field(f, "compression_type");
                            p.table(|_, _| {});
                        }
                    }
                    bytes(p, f, "embedded_data", s.embedded_data());
                    scalar(
                        p,
                        f,
                        &s._tab,
                        RodataSegmentDef::VT_EXTERNAL_DATA_OFFSET,
                        "external_data_offset",
                        s.external_data_offset(),
                        0,
                    );
                    scalar(
                        p,
                        f,
                        &s._tab,
                        RodataSegmentDef::VT_EXTERNAL_DATA_LENGTH,
                        "external_data_length",
                        s.external_data_length(),
                        0,
                    );
                })
            });
        }
        if let Some(segments) = module.rwdata_segments() {
            p.field(f, "rwdata_segments");
            p.table_vector(segments.iter(), |p, s: RwdataSegmentDef<'_>| {
                p.table(|p, f| {
                    scalar(
                        p,
                        f,
                        &s._tab,
                        RwdataSegmentDef::VT_BYTE_SIZE,
                        "byte_size",
                        s.byte_size(),
                        0,
                    )
                })
            });
        }
        if let Some(state) = module.module_state() {
            let s: ModuleStateDef<'_> = state;
            p.field(f, "module_state");
            p.table(|p, f| {
                scalar(
                    p,
                    f,
                    &s._tab,
                    ModuleStateDef::VT_GLOBAL_BYTES_CAPACITY,
                    "global_bytes_capacity",
                    s.global_bytes_capacity(),
                    0,
                );
                scalar(
                    p,
                    f,
                    &s._tab,
                    ModuleStateDef::VT_GLOBAL_REF_COUNT,
                    "global_ref_count",
                    s.global_ref_count(),
                    0,
                );
            });
        }
        if let Some(descriptors) = module.function_descriptors() {
            p.field(f, "function_descriptors");
            p.inline_vector(descriptors.iter(), function_descriptor);
        }
        scalar(
            p,
            f,
            &t,
            BytecodeModuleDef::VT_BYTECODE_VERSION,
            "bytecode_version",
            module.bytecode_version(),
            0,
        );
        bytes(p, f, "bytecode_data", module.bytecode_data());
        if let Some(db) = module.debug_database() {
            p.field(f, "debug_database");
            debug_database(p, db, &locations);
        }
    });
    if pretty {
        p.out.push('\n');
    }
    out.push_str(&p.out);
    Ok(())
}
