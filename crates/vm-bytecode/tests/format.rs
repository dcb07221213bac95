//! Tests of the `.vmfb` format layer against files written by the upstream
//! 3.13 compiler (tests/data, see tests/data/regen.sh) and against modules
//! built here with the generated flatbuffer builders.

use std::ops::Range;
use std::path::PathBuf;

use flatbuffers::{FlatBufferBuilder, WIPOffset};
use iree_base::StatusCode;
use iree_vm_bytecode::format::schema;
use iree_vm_bytecode::format::{
    infer_archive_size, parse_archive_header, parse_module, Attr, Dependency, ExportDef,
    FeatureBits, FunctionDescriptor, ImportDef, ModuleMetadata, Signature,
};

fn data(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

const SAMPLES: &[&str] = &[
    "add_zip.vmfb",
    "add_bare.vmfb",
    "rodata_zip.vmfb",
    "rodata_bare.vmfb",
    "imports.vmfb",
    "locs.vmfb",
    "three.vmfb",
];

/// Bytecode of `add` as dumped by iree-dump-module (function bytes only).
const ADD_BYTECODE: [u8; 14] = [121, 34, 0, 0, 1, 0, 1, 0, 90, 0, 1, 0, 1, 0];

fn check_add(m: &ModuleMetadata, file: &[u8]) {
    assert_eq!(m.name, "add_module");
    assert_eq!(m.version, 0);
    assert_eq!(m.requirements, FeatureBits::empty());
    assert!(m.attrs.is_empty());
    assert_eq!(m.types, ["i32"]);
    assert!(m.dependencies.is_empty());
    assert!(m.imports.is_empty());
    assert_eq!(
        m.exports,
        [ExportDef {
            local_name: "add".into(),
            internal_ordinal: 0
        }]
    );
    assert_eq!(
        m.function_signatures,
        [Signature {
            calling_convention: "0ii_i".into(),
            attrs: vec![]
        }]
    );
    assert!(m.rodata.is_empty());
    assert!(m.rwdata.is_empty());
    assert_eq!((m.global_bytes_capacity, m.global_ref_count), (0, 0));
    assert_eq!(
        m.functions,
        [FunctionDescriptor {
            bytecode_offset: 0,
            bytecode_length: 14,
            requirements: FeatureBits::empty(),
            block_count: 1,
            i32_register_count: 2,
            ref_register_count: 0,
        }]
    );
    assert_eq!(m.bytecode_version, (17, 0));
    assert_eq!(m.bytecode.len(), 16);
    assert_eq!(&file[m.function_range(0).unwrap()], &ADD_BYTECODE);
    assert_eq!(m.source_maps.len(), 1);
    let map = &m.source_maps[0];
    assert_eq!(map.local_name, "add");
    let locs: Vec<(u32, &str)> = map
        .locations
        .iter()
        .map(|l| (l.bytecode_offset, &*l.location))
        .collect();
    assert_eq!(locs, [(1, "add.mlir:4:10"), (8, "add.mlir:5:5")]);
    assert_eq!(
        m.source_map("add").unwrap().location_at(8),
        Some("add.mlir:5:5")
    );
}

#[test]
fn parses_zip_form() {
    let file = data("add_zip.vmfb");
    let m = parse_module(&file).unwrap();
    check_add(&m, &file);
    assert!(m.zip_wrapped);
    // The ZIP header is sized so that the size prefix sits at offset 64.
    assert_eq!(m.flatbuffer.start, 68);
    assert_eq!(m.rodata_base, m.flatbuffer.end.next_multiple_of(64));
}

#[test]
fn parses_bare_form() {
    let file = data("add_bare.vmfb");
    let m = parse_module(&file).unwrap();
    check_add(&m, &file);
    assert!(!m.zip_wrapped);
    assert_eq!(m.flatbuffer.start, 4);
}

#[test]
fn external_rodata_resolves_in_both_forms() {
    for (name, base) in [("rodata_zip.vmfb", 704), ("rodata_bare.vmfb", 640)] {
        let file = data(name);
        let m = parse_module(&file).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(m.rodata_base, base, "{name}");
        assert_eq!(m.rodata.len(), 2, "{name}");
        assert_eq!(m.rodata_external, [false, true], "{name}");
        assert_eq!(
            m.rodata_bytes(&file, 0).unwrap(),
            &[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0],
            "{name}"
        );
        // Embedded data lies inside the flatbuffer.
        assert!(m.rodata[0].start >= m.flatbuffer.start && m.rodata[0].end <= m.flatbuffer.end);
        let big = m.rodata_bytes(&file, 1).unwrap();
        assert_eq!(big.len(), 4096, "{name}");
        assert!(big.iter().all(|&b| b == 7), "{name}");
        assert!(m.rodata[1].start >= m.rodata_base);
        assert_eq!(
            infer_archive_size(&file).unwrap(),
            m.rodata[1].end,
            "{name}"
        );
        // Only the header and flatbuffer are needed to infer the size.
        assert_eq!(
            infer_archive_size(&file[..m.flatbuffer.end]).unwrap(),
            m.rodata[1].end
        );
        assert_eq!(m.types, ["!vm.buffer"]);
        assert_eq!(m.exports.len(), 2);
        assert_eq!(m.exports[1].internal_ordinal, 1);
    }
    // The ZIP form puts a local file header for the blob in front of it, so
    // its offset is 64; the bare form stores the blob right at the base.
    let zip = parse_module(&data("rodata_zip.vmfb")).unwrap();
    assert_eq!(zip.rodata[1], 768..4864);
    let bare = parse_module(&data("rodata_bare.vmfb")).unwrap();
    assert_eq!(bare.rodata[1], 640..4736);
}

#[test]
fn imports_dependencies_state_and_attrs() {
    let file = data("imports.vmfb");
    let m = parse_module(&file).unwrap();
    assert_eq!(m.name, "imports_module");
    assert_eq!(m.version, 3);
    assert_eq!(m.requirements, FeatureBits::EXT_F32 | FeatureBits::UNWIND);
    assert_eq!(m.requirements.names(), "EXT_F32|UNWIND");
    assert_eq!(m.types, ["f32", "i32", "!vm.buffer"]);
    assert_eq!(
        m.dependencies,
        [
            Dependency {
                name: "opt".into(),
                minimum_version: 0,
                optional: true
            },
            Dependency {
                name: "dep".into(),
                minimum_version: 4,
                optional: false
            },
        ]
    );
    let sig = |cc: &str| Signature {
        calling_convention: cc.into(),
        attrs: vec![],
    };
    assert_eq!(
        m.imports,
        [
            ImportDef {
                full_name: "dep.required_fn".into(),
                signature: sig("0i_i"),
                optional: false
            },
            ImportDef {
                full_name: "opt.maybe_fn".into(),
                signature: sig("0i_i"),
                optional: true
            },
        ]
    );
    assert_eq!(
        m.function_signatures,
        [Signature {
            calling_convention: "0fi_fi".into(),
            attrs: vec![Attr {
                key: "note".into(),
                value: "hello".into()
            }],
        }]
    );
    assert_eq!((m.global_bytes_capacity, m.global_ref_count), (4, 1));
    assert_eq!(m.rodata_bytes(&file, 0).unwrap(), &[5, 6, 7, 8]);
    assert_eq!(
        m.functions[0].requirements,
        FeatureBits::EXT_F32 | FeatureBits::UNWIND
    );
    assert_eq!(m.functions[0].ref_register_count, 1);
}

#[test]
fn renders_every_location_kind() {
    let m = parse_module(&data("locs.vmfb")).unwrap();
    let map = m.source_map("f").unwrap();
    let locs: Vec<(u32, &str)> = map
        .locations
        .iter()
        .map(|l| (l.bytecode_offset, &*l.location))
        .collect();
    assert_eq!(
        locs,
        [
            // The compiler leaves out child_location = 0 (the default), so
            // the child of this name location is lost, as upstream shows it.
            (1, "\"named\""),
            (8, "<\"meta\">[\n    x.mlir:1:2,\n    y.mlir:3:4\n  ]"),
            (15, "callee.mlir:5:6\n      at caller.mlir:8:9"),
            (22, "\"bare_name\"([unknown])"),
            (29, "[unknown]"),
        ]
    );
}

#[test]
fn source_maps_are_not_one_per_function() {
    // The 3.13 compiler writes a single source map (for the last function).
    let m = parse_module(&data("three.vmfb")).unwrap();
    assert_eq!(m.functions.len(), 3);
    let names: Vec<&str> = m.exports.iter().map(|e| e.local_name.as_str()).collect();
    assert_eq!(names, ["a", "b", "d"]);
    assert_eq!(m.source_maps.len(), 1);
    assert_eq!(m.source_maps[0].local_name, "d");
    assert!(m.source_map("a").is_none());
}

/// The smallest prefix of `file` that still holds everything the module
/// references.
fn needed_len(m: &ModuleMetadata) -> usize {
    m.rodata
        .iter()
        .map(|r| r.end)
        .chain([m.flatbuffer.end])
        .max()
        .unwrap()
}

#[test]
fn every_truncation_is_an_error_or_still_complete() {
    for name in SAMPLES {
        let file = data(name);
        let needed = needed_len(&parse_module(&file).unwrap());
        for len in 0..file.len() {
            let result = parse_module(&file[..len]);
            if len < needed {
                assert!(result.is_err(), "{name} truncated to {len} bytes parsed");
            } else {
                // Only the ZIP trailer or padding is missing.
                assert!(
                    result.is_ok(),
                    "{name} truncated to {len}: {}",
                    result.unwrap_err()
                );
            }
            let _ = infer_archive_size(&file[..len]);
        }
    }
}

#[test]
fn truncation_errors_are_invalid_argument() {
    let file = data("add_zip.vmfb");
    let err = parse_module(&file[..100]).unwrap_err();
    assert_eq!(err.code(), StatusCode::InvalidArgument);
    assert!(
        err.message().contains("length prefix out of bounds"),
        "{err}"
    );
    let err = parse_module(&file[..40]).unwrap_err();
    assert!(err.message().contains("self-reports as a zip"), "{err}");
    let err = parse_module(&[]).unwrap_err();
    assert!(err.message().contains("less than 16 bytes"), "{err}");
}

/// xorshift64*: a tiny deterministic generator so the test needs no crates.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn random_byte_flips_never_panic() {
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    let mut outcomes = [0usize; 2];
    for name in SAMPLES {
        let original = data(name);
        let fb = parse_module(&original).unwrap().flatbuffer;
        for round in 0..3000 {
            let mut file = original.clone();
            for _ in 0..1 + rng.below(4) {
                // Mostly hit the flatbuffer, where the structure is.
                let at = if round % 4 == 0 {
                    rng.below(file.len())
                } else {
                    fb.start - 4 + rng.below(fb.len() + 4)
                };
                let value = match rng.below(4) {
                    0 => 0,
                    1 => 0xFF,
                    2 => file[at] ^ (1 << rng.below(8)),
                    _ => rng.next() as u8,
                };
                file[at] = value;
            }
            let result = parse_module(&file);
            outcomes[result.is_ok() as usize] += 1;
            if let Ok(m) = result {
                // Every range handed out must slice the file.
                for r in m.rodata.iter().chain([&m.bytecode, &m.flatbuffer]) {
                    assert!(file.get(r.clone()).is_some(), "{name}: {r:?}");
                }
                for i in 0..m.functions.len() {
                    let r = m.function_range(i).unwrap();
                    assert!(r.start >= m.bytecode.start && r.end <= m.bytecode.end);
                }
            }
            let _ = infer_archive_size(&file);
        }
    }
    // Both outcomes must actually occur for the test to mean anything.
    assert!(outcomes[0] > 100 && outcomes[1] > 100, "{outcomes:?}");
}

#[test]
fn random_garbage_never_panics() {
    let mut rng = Rng(42);
    for _ in 0..5000 {
        let len = rng.below(512);
        let mut file: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        if len >= 12 && rng.below(2) == 0 {
            let n = (len - 4) as u32;
            file[0..4].copy_from_slice(&n.to_le_bytes());
            file[8..12].copy_from_slice(b"IREE");
        }
        let _ = parse_module(&file);
        let _ = infer_archive_size(&file);
    }
}

// ---------------------------------------------------------------------------
// Synthetic modules built with the generated builders.
// ---------------------------------------------------------------------------

#[derive(Clone)]
enum Loc {
    File(&'static str, i32, i32),
    Name(&'static str, Option<i32>),
    CallSite(i32, i32),
    Fused(Option<&'static str>, Vec<i32>),
}

#[derive(Clone)]
struct Spec {
    name: Option<&'static str>,
    bytecode_version: u32,
    signature_count: usize,
    descriptors: Vec<schema::FunctionDescriptor>,
    bytecode: Vec<u8>,
    exports: Vec<(&'static str, i32)>,
    imports: Vec<&'static str>,
    types: Vec<&'static str>,
    rodata_external: Vec<(u64, u64)>,
    rwdata: Vec<i32>,
    module_state: Option<(i32, i32)>,
    locations: Vec<Loc>,
    /// Overrides the location type tags (to make them disagree).
    location_tags: Option<Vec<u8>>,
    source_map: Vec<(i32, i32)>,
    /// Bytes appended at the rodata base.
    external_data: Vec<u8>,
}

fn descriptor(offset: i32, length: i32, blocks: i16, i32_regs: i16) -> schema::FunctionDescriptor {
    schema::FunctionDescriptor::new(
        offset,
        length,
        schema::FeatureBits::empty(),
        0,
        blocks,
        i32_regs,
        0,
    )
}

fn spec() -> Spec {
    Spec {
        name: Some("synthetic"),
        bytecode_version: 0x0011_0000,
        signature_count: 1,
        descriptors: vec![descriptor(0, 8, 1, 2)],
        bytecode: vec![0; 16],
        exports: vec![("f", 0)],
        imports: vec![],
        types: vec!["i32"],
        rodata_external: vec![],
        rwdata: vec![],
        module_state: None,
        locations: vec![],
        location_tags: None,
        source_map: vec![],
        external_data: vec![],
    }
}

/// Writes `spec` as a bare (size-prefixed) module file.
fn build(spec: &Spec) -> Vec<u8> {
    let mut fbb = FlatBufferBuilder::new();
    let name = spec.name.map(|n| fbb.create_string(n));
    let types: Vec<_> = spec
        .types
        .iter()
        .map(|t| {
            let full_name = Some(fbb.create_string(t));
            schema::TypeDef::create(&mut fbb, &schema::TypeDefArgs { full_name })
        })
        .collect();
    let types = fbb.create_vector(&types);
    let sigs: Vec<_> = (0..spec.signature_count)
        .map(|_| {
            let cc = Some(fbb.create_string("0i_i"));
            schema::FunctionSignatureDef::create(
                &mut fbb,
                &schema::FunctionSignatureDefArgs {
                    calling_convention: cc,
                    attrs: None,
                },
            )
        })
        .collect();
    let sigs = fbb.create_vector(&sigs);
    let exports: Vec<_> = spec
        .exports
        .iter()
        .map(|&(n, ordinal)| {
            let local_name = Some(fbb.create_string(n));
            schema::ExportFunctionDef::create(
                &mut fbb,
                &schema::ExportFunctionDefArgs {
                    local_name,
                    internal_ordinal: ordinal,
                },
            )
        })
        .collect();
    let exports = fbb.create_vector(&exports);
    let imports: Vec<_> = spec
        .imports
        .iter()
        .map(|n| {
            let full_name = Some(fbb.create_string(n));
            schema::ImportFunctionDef::create(
                &mut fbb,
                &schema::ImportFunctionDefArgs {
                    full_name,
                    signature: None,
                    flags: schema::ImportFlagBits::REQUIRED,
                },
            )
        })
        .collect();
    let imports = fbb.create_vector(&imports);
    let rodata: Vec<_> = spec
        .rodata_external
        .iter()
        .map(|&(offset, length)| {
            schema::RodataSegmentDef::create(
                &mut fbb,
                &schema::RodataSegmentDefArgs {
                    external_data_offset: offset,
                    external_data_length: length,
                    ..Default::default()
                },
            )
        })
        .collect();
    let rodata = fbb.create_vector(&rodata);
    let rwdata: Vec<_> = spec
        .rwdata
        .iter()
        .map(|&byte_size| {
            schema::RwdataSegmentDef::create(&mut fbb, &schema::RwdataSegmentDefArgs { byte_size })
        })
        .collect();
    let rwdata = fbb.create_vector(&rwdata);
    let module_state = spec.module_state.map(|(bytes, refs)| {
        schema::ModuleStateDef::create(
            &mut fbb,
            &schema::ModuleStateDefArgs {
                global_bytes_capacity: bytes,
                global_ref_count: refs,
            },
        )
    });
    let descriptors = fbb.create_vector(&spec.descriptors);
    let bytecode = fbb.create_vector(&spec.bytecode);

    let debug_database = (!spec.locations.is_empty() || !spec.source_map.is_empty()).then(|| {
        let mut tags = Vec::new();
        let mut entries: Vec<WIPOffset<schema::AnyTableDef>> = Vec::new();
        for loc in &spec.locations {
            let (tag, table) = match loc {
                Loc::File(f, line, column) => {
                    let filename = Some(fbb.create_string(f));
                    let t = schema::FileLineColLocDef::create(
                        &mut fbb,
                        &schema::FileLineColLocDefArgs {
                            filename,
                            line: *line,
                            column: *column,
                        },
                    );
                    (schema::LocationTypeDef::FileLineColLocDef, t.value())
                }
                Loc::Name(n, child) => {
                    let name = fbb.create_string(n);
                    let start = fbb.start_table();
                    fbb.push_slot_always(schema::NameLocDef::VT_NAME, name);
                    if let Some(child) = child {
                        fbb.push_slot_always(schema::NameLocDef::VT_CHILD_LOCATION, *child);
                    }
                    let t = fbb.end_table(start);
                    (schema::LocationTypeDef::NameLocDef, t.value())
                }
                Loc::CallSite(callee, caller) => {
                    let t = schema::CallSiteLocDef::create(
                        &mut fbb,
                        &schema::CallSiteLocDefArgs {
                            callee: *callee,
                            caller: *caller,
                        },
                    );
                    (schema::LocationTypeDef::CallSiteLocDef, t.value())
                }
                Loc::Fused(metadata, children) => {
                    let metadata = metadata.map(|m| fbb.create_string(m));
                    let locations = Some(fbb.create_vector(children));
                    let t = schema::FusedLocDef::create(
                        &mut fbb,
                        &schema::FusedLocDefArgs {
                            metadata,
                            locations,
                        },
                    );
                    (schema::LocationTypeDef::FusedLocDef, t.value())
                }
            };
            tags.push(tag);
            entries.push(WIPOffset::new(table));
        }
        if let Some(raw) = &spec.location_tags {
            tags = raw.iter().map(|&t| schema::LocationTypeDef(t)).collect();
        }
        let location_table_type = Some(fbb.create_vector(&tags));
        let location_table = Some(fbb.create_vector(&entries));
        let locations: Vec<_> = spec
            .source_map
            .iter()
            .map(|&(offset, loc)| schema::BytecodeLocationDef::new(offset, loc))
            .collect();
        let locations = Some(fbb.create_vector(&locations));
        let local_name = Some(fbb.create_string("f"));
        let map = schema::FunctionSourceMapDef::create(
            &mut fbb,
            &schema::FunctionSourceMapDefArgs {
                local_name,
                locations,
            },
        );
        let functions = Some(fbb.create_vector(&[map]));
        schema::DebugDatabaseDef::create(
            &mut fbb,
            &schema::DebugDatabaseDefArgs {
                location_table_type,
                location_table,
                functions,
            },
        )
    });

    let args = schema::BytecodeModuleDefArgs {
        name,
        types: Some(types),
        imported_functions: Some(imports),
        exported_functions: Some(exports),
        function_signatures: Some(sigs),
        rodata_segments: Some(rodata),
        rwdata_segments: Some(rwdata),
        module_state,
        function_descriptors: Some(descriptors),
        bytecode_version: spec.bytecode_version,
        bytecode_data: Some(bytecode),
        debug_database,
        ..Default::default()
    };
    // The builder asserts on a missing required field, so build that case
    // by hand below instead.
    let root = if args.name.is_some() {
        schema::BytecodeModuleDef::create(&mut fbb, &args)
    } else {
        let start = fbb.start_table();
        fbb.push_slot::<u32>(
            schema::BytecodeModuleDef::VT_BYTECODE_VERSION,
            spec.bytecode_version,
            0,
        );
        WIPOffset::new(fbb.end_table(start).value())
    };
    schema::finish_size_prefixed_bytecode_module_def_buffer(&mut fbb, root);
    let mut file = fbb.finished_data().to_vec();
    file.resize(file.len().next_multiple_of(64), 0);
    file.extend_from_slice(&spec.external_data);
    file
}

#[track_caller]
fn expect_err(spec: &Spec, code: StatusCode, needle: &str) {
    let err = parse_module(&build(spec)).unwrap_err();
    assert_eq!(err.code(), code, "{err}");
    assert!(
        err.message().contains(needle),
        "message {:?} lacks {needle:?}",
        err.message()
    );
}

#[test]
fn synthetic_module_round_trips() {
    let mut s = spec();
    s.imports = vec!["other.fn"];
    s.rwdata = vec![32, 0];
    s.module_state = Some((16, 3));
    s.rodata_external = vec![(0, 3), (8, 0)];
    s.external_data = vec![9, 8, 7, 6, 5, 4, 3, 2];
    let file = build(&s);
    let m = parse_module(&file).unwrap();
    assert_eq!(m.name, "synthetic");
    assert_eq!(m.imports[0].full_name, "other.fn");
    assert_eq!(m.imports[0].signature, Signature::default());
    assert_eq!(m.rwdata, [32, 0]);
    assert_eq!((m.global_bytes_capacity, m.global_ref_count), (16, 3));
    assert_eq!(m.rodata_bytes(&file, 0).unwrap(), &[9, 8, 7]);
    assert_eq!(m.rodata_bytes(&file, 1).unwrap(), &[] as &[u8]);
    assert_eq!(m.rodata[1].start, file.len());
    assert_eq!(infer_archive_size(&file).unwrap(), file.len());
    assert_eq!(
        parse_archive_header(&file).unwrap().rodata_base,
        m.rodata_base
    );
}

#[test]
fn version_mismatch_is_invalid_argument() {
    let mut s = spec();
    s.bytecode_version = 0x0010_0001;
    expect_err(
        &s,
        StatusCode::InvalidArgument,
        "bytecode version mismatch; runtime supports 17.0, module has 16.1",
    );
    s.bytecode_version = 0x0011_0001;
    expect_err(&s, StatusCode::InvalidArgument, "module has 17.1");
}

#[test]
fn identifier_must_be_iree() {
    let mut file = build(&spec());
    file[8..12].copy_from_slice(b"NOPE");
    let err = parse_module(&file).unwrap_err();
    assert_eq!(err.code(), StatusCode::InvalidArgument);
    assert!(err.message().contains("identifier"), "{err}");
}

#[test]
fn missing_or_empty_names_are_errors() {
    let mut s = spec();
    s.name = None;
    expect_err(
        &s,
        StatusCode::InvalidArgument,
        "FlatBuffer verification failed",
    );
    s.name = Some("");
    expect_err(&s, StatusCode::InvalidArgument, "module missing name field");
    let mut s = spec();
    s.types = vec!["i32", ""];
    expect_err(&s, StatusCode::InvalidArgument, "types[1] missing name");
    let mut s = spec();
    s.exports = vec![("", 0)];
    expect_err(
        &s,
        StatusCode::InvalidArgument,
        "exports[0] missing local_name",
    );
    let mut s = spec();
    s.imports = vec!["ok.fn", ""];
    expect_err(
        &s,
        StatusCode::InvalidArgument,
        "imports[1] missing full_name",
    );
}

#[test]
fn function_tables_must_agree() {
    let mut s = spec();
    s.signature_count = 2;
    expect_err(&s, StatusCode::InvalidArgument, "length mismatch (2 vs 1)");
    let mut s = spec();
    s.exports = vec![("f", 1)];
    expect_err(
        &s,
        StatusCode::InvalidArgument,
        "exports[0] internal_ordinal out of bounds",
    );
    s.exports = vec![("f", -1)];
    expect_err(
        &s,
        StatusCode::InvalidArgument,
        "exports[0] internal_ordinal out of bounds",
    );
}

#[test]
fn function_descriptors_are_checked() {
    let cases: [(schema::FunctionDescriptor, &str); 7] = [
        (descriptor(0, 8, 0, 0), "block count is 0"),
        (descriptor(0, 8, -1, 0), "block count out of range"),
        (descriptor(0, 0, 1, 0), "reports 0 length"),
        (descriptor(12, 8, 1, 0), "span out of range"),
        (descriptor(-4, 8, 1, 0), "span out of range"),
        (descriptor(i32::MAX, i32::MAX, 1, 0), "span out of range"),
        (descriptor(0, 8, 1, -1), "register count out of range"),
    ];
    for (d, needle) in cases {
        let mut s = spec();
        s.descriptors = vec![d];
        expect_err(&s, StatusCode::InvalidArgument, needle);
    }
    let mut s = spec();
    s.descriptors = vec![descriptor(8, 8, 1, 0x7FFF)];
    let m = parse_module(&build(&s)).unwrap();
    assert_eq!(
        m.function_range(0).unwrap(),
        m.bytecode.start + 8..m.bytecode.end
    );
}

#[test]
fn external_rodata_ranges_are_checked() {
    let mut s = spec();
    s.external_data = vec![0; 16];
    s.rodata_external = vec![(0, 16), (8, 9)];
    expect_err(
        &s,
        StatusCode::InvalidArgument,
        "rodata[1] external reference out of range",
    );
    s.rodata_external = vec![(u64::MAX, 1)];
    expect_err(
        &s,
        StatusCode::InvalidArgument,
        "rodata[0] external reference out of range",
    );
    s.rodata_external = vec![(1, u64::MAX)];
    expect_err(
        &s,
        StatusCode::InvalidArgument,
        "rodata[0] external reference out of range",
    );
    assert!(infer_archive_size(&build(&s)).is_err());
    s.rodata_external = vec![(0, 16), (16, 0)];
    assert!(parse_module(&build(&s)).is_ok());
}

#[test]
fn negative_sizes_are_errors() {
    let mut s = spec();
    s.rwdata = vec![4, -1];
    expect_err(
        &s,
        StatusCode::InvalidArgument,
        "rwdata[1] byte_size is negative",
    );
    let mut s = spec();
    s.module_state = Some((-8, 0));
    expect_err(
        &s,
        StatusCode::InvalidArgument,
        "global_bytes_capacity is negative",
    );
}

#[test]
fn location_table_is_verified_and_bounded() {
    let mut s = spec();
    s.locations = vec![
        Loc::File("a.mlir", 1, 2),
        Loc::Name("n", Some(0)),
        Loc::Fused(None, vec![0, 99]),
    ];
    s.source_map = vec![(0, 1), (4, 2)];
    let m = parse_module(&build(&s)).unwrap();
    let map = m.source_map("f").unwrap();
    assert_eq!(map.location_at(0), Some("\"n\"(a.mlir:1:2)"));
    assert_eq!(
        map.location_at(4),
        Some("[\n    a.mlir:1:2,\n    [unknown]\n  ]")
    );

    // Cycles and self references end instead of recursing forever.
    let mut s = spec();
    s.locations = vec![Loc::CallSite(0, 0), Loc::Fused(Some("m"), vec![1, 1, 1, 1])];
    s.source_map = vec![(0, 0), (1, 1)];
    let m = parse_module(&build(&s)).unwrap();
    for l in &m.source_maps[0].locations {
        assert!(l.location.len() <= 4096 + 3, "{}", l.location.len());
        assert!(l.location.ends_with("..."), "{}", l.location);
    }

    // Tags that disagree with the entries (count or type) are errors.
    let mut s = spec();
    s.locations = vec![Loc::File("a.mlir", 1, 2)];
    s.location_tags = Some(vec![2, 2]);
    expect_err(
        &s,
        StatusCode::InvalidArgument,
        "FlatBuffer verification failed: union type and table vectors have different lengths",
    );
    // A CallSiteLocDef read as a FileLineColLocDef has an int where a string
    // offset should be: verification must catch it.
    let mut s = spec();
    s.locations = vec![Loc::CallSite(1000, 0)];
    s.location_tags = Some(vec![2]);
    s.source_map = vec![(0, 0)];
    expect_err(
        &s,
        StatusCode::InvalidArgument,
        "FlatBuffer verification failed: string header out of range or unaligned",
    );

    // Source maps must reference existing locations.
    let mut s = spec();
    s.locations = vec![Loc::File("a.mlir", 1, 2)];
    s.source_map = vec![(0, 1)];
    expect_err(&s, StatusCode::InvalidArgument, "references location 1");
    s.source_map = vec![(-1, 0)];
    expect_err(&s, StatusCode::InvalidArgument, "negative bytecode offset");
}

#[test]
fn zip_wrapping_a_synthetic_module() {
    // A ZIP local header with a 9-byte name and 25-byte extra field puts the
    // size prefix at 64, like the compiler's output.
    let bare = build(&spec());
    let mut file = vec![0u8; 64];
    file[0..4].copy_from_slice(b"PK\x03\x04");
    file[26..28].copy_from_slice(&9u16.to_le_bytes());
    file[28..30].copy_from_slice(&25u16.to_le_bytes());
    file.extend_from_slice(&bare);
    let m = parse_module(&file).unwrap();
    assert!(m.zip_wrapped);
    assert_eq!(m.flatbuffer.start, 68);
    let range: Range<usize> = m.bytecode.clone();
    assert_eq!(range.len(), 16);
}

/// Finishes a module whose root has the given extra fields; everything
/// else minimal but valid.
fn finish_root(
    fbb: &mut FlatBufferBuilder<'_>,
    sigs: WIPOffset<
        flatbuffers::Vector<'_, flatbuffers::ForwardsUOffset<schema::FunctionSignatureDef<'_>>>,
    >,
    descriptors: &[schema::FunctionDescriptor],
    debug_database: Option<WIPOffset<schema::DebugDatabaseDef<'_>>>,
) -> Vec<u8> {
    let name = Some(fbb.create_string("shared"));
    let descriptors = Some(fbb.create_vector(descriptors));
    let bytecode_data = Some(fbb.create_vector(&[0u8; 16]));
    let root = schema::BytecodeModuleDef::create(
        fbb,
        &schema::BytecodeModuleDefArgs {
            name,
            function_signatures: Some(sigs),
            function_descriptors: descriptors,
            bytecode_version: 0x0011_0000,
            bytecode_data,
            debug_database,
            ..Default::default()
        },
    );
    schema::finish_size_prefixed_bytecode_module_def_buffer(fbb, root);
    fbb.finished_data().to_vec()
}

#[test]
fn shared_objects_cannot_amplify_work() {
    // 2000 signatures that are all the same table, whose 2000 attributes are
    // all the same table with a 1000-byte key: 4e9 bytes if expanded.
    let mut fbb = FlatBufferBuilder::new();
    let key = Some(fbb.create_string(&"k".repeat(1000)));
    let attr = schema::AttrDef::create(&mut fbb, &schema::AttrDefArgs { key, value: None });
    let attrs = Some(fbb.create_vector(&vec![attr; 2000]));
    let sig = schema::FunctionSignatureDef::create(
        &mut fbb,
        &schema::FunctionSignatureDefArgs {
            calling_convention: None,
            attrs,
        },
    );
    let sigs = fbb.create_vector(&vec![sig; 2000]);
    let file = finish_root(&mut fbb, sigs, &vec![descriptor(0, 8, 1, 0); 2000], None);
    let started = std::time::Instant::now();
    let err = parse_module(&file).unwrap_err();
    assert!(
        err.message().contains("FlatBuffer verification failed"),
        "{err}"
    );
    assert!(started.elapsed().as_secs() < 5);

    // 20000 location entries that are all one location with a 64 KiB file
    // name, each used by the source map.
    let mut fbb = FlatBufferBuilder::new();
    let filename = Some(fbb.create_string(&"f".repeat(64 << 10)));
    let loc = schema::FileLineColLocDef::create(
        &mut fbb,
        &schema::FileLineColLocDefArgs {
            filename,
            line: 1,
            column: 1,
        },
    );
    let entries = vec![WIPOffset::<schema::AnyTableDef>::new(loc.value()); 20000];
    let location_table = Some(fbb.create_vector(&entries));
    let location_table_type =
        Some(fbb.create_vector(&vec![schema::LocationTypeDef::FileLineColLocDef; 20000]));
    let locations: Vec<_> = (0..20000)
        .map(|i| schema::BytecodeLocationDef::new(i, i))
        .collect();
    let locations = Some(fbb.create_vector(&locations));
    let local_name = Some(fbb.create_string("f"));
    let map = schema::FunctionSourceMapDef::create(
        &mut fbb,
        &schema::FunctionSourceMapDefArgs {
            local_name,
            locations,
        },
    );
    let functions = Some(fbb.create_vector(&[map]));
    let db = schema::DebugDatabaseDef::create(
        &mut fbb,
        &schema::DebugDatabaseDefArgs {
            location_table_type,
            location_table,
            functions,
        },
    );
    let cc = Some(fbb.create_string("0v_v"));
    let sig = schema::FunctionSignatureDef::create(
        &mut fbb,
        &schema::FunctionSignatureDefArgs {
            calling_convention: cc,
            attrs: None,
        },
    );
    let sigs = fbb.create_vector(&[sig]);
    let file = finish_root(&mut fbb, sigs, &[descriptor(0, 8, 1, 0)], Some(db));
    let started = std::time::Instant::now();
    let err = parse_module(&file).unwrap_err();
    assert!(
        err.message()
            .contains("FlatBuffer verification failed: apparent size too large"),
        "{err}"
    );
    assert!(started.elapsed().as_secs() < 5);
}

#[test]
fn many_distinct_locations_are_fine() {
    let count = 20000;
    let mut fbb = FlatBufferBuilder::new();
    let mut entries = Vec::new();
    for i in 0..count {
        let filename = Some(fbb.create_string(&format!("file{i}.mlir")));
        let loc = schema::FileLineColLocDef::create(
            &mut fbb,
            &schema::FileLineColLocDefArgs {
                filename,
                line: i,
                column: 1,
            },
        );
        entries.push(WIPOffset::<schema::AnyTableDef>::new(loc.value()));
    }
    let location_table = Some(fbb.create_vector(&entries));
    let location_table_type = Some(fbb.create_vector(&vec![
        schema::LocationTypeDef::FileLineColLocDef;
        count as usize
    ]));
    let locations: Vec<_> = (0..count)
        .map(|i| schema::BytecodeLocationDef::new(i * 8, i))
        .collect();
    let locations = Some(fbb.create_vector(&locations));
    let local_name = Some(fbb.create_string("f"));
    let map = schema::FunctionSourceMapDef::create(
        &mut fbb,
        &schema::FunctionSourceMapDefArgs {
            local_name,
            locations,
        },
    );
    let functions = Some(fbb.create_vector(&[map]));
    let db = schema::DebugDatabaseDef::create(
        &mut fbb,
        &schema::DebugDatabaseDefArgs {
            location_table_type,
            location_table,
            functions,
        },
    );
    let cc = Some(fbb.create_string("0v_v"));
    let sig = schema::FunctionSignatureDef::create(
        &mut fbb,
        &schema::FunctionSignatureDefArgs {
            calling_convention: cc,
            attrs: None,
        },
    );
    let sigs = fbb.create_vector(&[sig]);
    let file = finish_root(&mut fbb, sigs, &[descriptor(0, 8, 1, 0)], Some(db));
    let m = parse_module(&file).unwrap();
    let map = m.source_map("f").unwrap();
    assert_eq!(map.locations.len(), count as usize);
    assert_eq!(map.location_at(8 * 19999), Some("file19999.mlir:19999:1"));
}

/// Upstream's block structure rules (`verifier.c`): every op lies in a
/// block, a block marker only starts a block after a terminator, and the
/// last block ends in one (else the interpreter would run past the
/// function's ops; the execution fuzz target found a module whose last op
/// was a plain call). Each message is upstream's.
#[test]
fn ops_lie_in_terminated_blocks() {
    let load = |bytecode: &[u8]| {
        let mut s = spec();
        s.descriptors = vec![descriptor(0, bytecode.len() as i32, 1, 2)];
        s.bytecode = bytecode.to_vec();
        s.bytecode.resize(bytecode.len().next_multiple_of(16), 0);
        iree_vm_bytecode::BytecodeModule::from_vec(&iree_vm::Instance::new(), build(&s))
            .map(|_| ())
            .map_err(|e| (e.code(), e.message().to_string()))
    };
    let ret = [0x5A, 1, 0, 0, 0];
    let block = 0x79;
    assert_eq!(load(&[&[block][..], &ret].concat()), Ok(()));
    let invalid = |m: &str| Err((StatusCode::InvalidArgument, m.to_string()));
    assert_eq!(
        load(&[&[block][..], &ret, &ret].concat()),
        invalid("op at pc 00000006 is not in a block")
    );
    assert_eq!(
        load(&[&[block, block][..], &ret].concat()),
        invalid("op at pc 00000001 is a block while still in a block")
    );
    // `const.i32.zero %i0` and nothing after it.
    assert_eq!(
        load(&[block, 0x0C, 0, 0]),
        invalid("function missing terminator in the last block")
    );
    assert_eq!(
        load(&[ret[0]]),
        invalid("op at pc 00000000 is not in a block")
    );
    // Upstream walks ops while `pc < length - 1`: one byte after the last
    // terminator is never read, two are an op outside every block, zeros
    // or not (the verify_bytecode fuzz target found zero padding accepted
    // here while the disassembler walked it as ops).
    assert_eq!(load(&[&[block][..], &ret, &[0]].concat()), Ok(()));
    assert_eq!(
        load(&[&[block][..], &ret, &[0, 0]].concat()),
        invalid("op at pc 00000006 is not in a block")
    );
    assert_eq!(
        load(&[&[block][..], &ret, &[0; 7]].concat()),
        invalid("op at pc 00000006 is not in a block")
    );
    // The descriptor's block count is the number of blocks (`block_list.c`).
    let blocks = |count: i16, bytecode: &[u8]| {
        let mut s = spec();
        s.descriptors = vec![descriptor(0, bytecode.len() as i32, count, 2)];
        s.bytecode = bytecode.to_vec();
        s.bytecode.resize(bytecode.len().next_multiple_of(16), 0);
        iree_vm_bytecode::BytecodeModule::from_vec(&iree_vm::Instance::new(), build(&s))
            .map(|_| ())
            .map_err(|e| (e.code(), e.message().to_string()))
    };
    let two_blocks = [&[block][..], &ret, &[block], &ret].concat();
    assert_eq!(blocks(2, &two_blocks), Ok(()));
    assert_eq!(
        blocks(1, &two_blocks),
        invalid("invalid descriptor block count 1; found at least 2 blocks")
    );
    assert_eq!(
        blocks(3, &two_blocks),
        invalid("invalid descriptor block count 3; found 2 blocks")
    );
}

/// An extension op (here `add.f32 %i0, %i0 -> %i0`) needs its extension
/// among its function's declared requirements, as upstream's verifier
/// checks (`IREE_VM_VERIFY_REQUIREMENT`, with its message).
#[test]
fn extension_ops_need_their_function_to_require_the_extension() {
    let load = |requirements: schema::FeatureBits| {
        let bytecode = [0x79, 0xE0, 0x0A, 0, 0, 0, 0, 0, 0, 0x5A, 1, 0, 0, 0];
        let mut s = spec();
        s.descriptors = vec![schema::FunctionDescriptor::new(
            0,
            bytecode.len() as i32,
            requirements,
            0,
            1,
            2,
            0,
        )];
        s.bytecode = bytecode.to_vec();
        s.bytecode.resize(16, 0);
        iree_vm_bytecode::BytecodeModule::from_vec(&iree_vm::Instance::new(), build(&s))
            .map(|_| ())
            .map_err(|e| (e.code(), e.message().to_string()))
    };
    assert_eq!(load(schema::FeatureBits::EXT_F32), Ok(()));
    assert_eq!(
        load(schema::FeatureBits::empty()),
        Err((
            StatusCode::InvalidArgument,
            "required module features [EXT_F32] are not available in this runtime \
             configuration; have [] while module requires [EXT_F32]"
                .to_string()
        ))
    );
}
