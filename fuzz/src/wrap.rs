//! The module wrapper of the `verify_bytecode` target.

use flatbuffers::FlatBufferBuilder;
use iree_vm_bytecode::format::schema;

/// Calling conventions the header bytes index into.
pub const CCONVS: &[&str] = &[
    "0v_v", "0i_i", "0ii_i", "0I_I", "0II_I", "0f_f", "0F_F", "0r_r", "0rr_r", "0ir_ri",
    "0iIfFr_iIfFr", "0rI_v", "0v_rr", "0CiD_i", "0rCrID_v", "0iCiiD_r", "0_", "0", "0ff_i",
];

/// The module's type table.
pub const TYPES: &[&str] =
    &["i32", "i64", "f32", "f64", "!vm.buffer", "!vm.list<?>", "!vm.list<i32>", "!vm.opaque", "!vm.list<!vm.buffer>"];

fn cconv(b: u8) -> &'static str {
    CCONVS[b as usize % CCONVS.len()]
}

/// Wraps function bytecode in a well-formed module (see the
/// `verify_bytecode` target for the header layout).
pub fn wrap_bytecode(header: &[u8; 9], code: &[u8]) -> Vec<u8> {
    let mut fbb = FlatBufferBuilder::new();
    let name = fbb.create_string("fuzz");
    let types: Vec<_> = TYPES
        .iter()
        .map(|t| {
            let full_name = Some(fbb.create_string(t));
            schema::TypeDef::create(&mut fbb, &schema::TypeDefArgs { full_name })
        })
        .collect();
    let types = fbb.create_vector(&types);
    let sigs: Vec<_> = [header[4], header[5]]
        .iter()
        .map(|&c| {
            let calling_convention = Some(fbb.create_string(cconv(c)));
            schema::FunctionSignatureDef::create(
                &mut fbb,
                &schema::FunctionSignatureDefArgs { calling_convention, attrs: None },
            )
        })
        .collect();
    let sigs = fbb.create_vector(&sigs);
    let exports: Vec<_> = [("main", 0), ("helper", 1)]
        .iter()
        .map(|&(n, internal_ordinal)| {
            let local_name = Some(fbb.create_string(n));
            schema::ExportFunctionDef::create(
                &mut fbb,
                &schema::ExportFunctionDefArgs { local_name, internal_ordinal },
            )
        })
        .collect();
    let exports = fbb.create_vector(&exports);
    let imports: Vec<_> = [("other.a", header[6], schema::ImportFlagBits::REQUIRED), ("other.b", header[7], schema::ImportFlagBits::OPTIONAL)]
        .iter()
        .map(|&(n, c, flags)| {
            let full_name = Some(fbb.create_string(n));
            let calling_convention = Some(fbb.create_string(cconv(c)));
            let signature = Some(schema::FunctionSignatureDef::create(
                &mut fbb,
                &schema::FunctionSignatureDefArgs { calling_convention, attrs: None },
            ));
            schema::ImportFunctionDef::create(
                &mut fbb,
                &schema::ImportFunctionDefArgs { full_name, signature, flags },
            )
        })
        .collect();
    let imports = fbb.create_vector(&imports);
    let rodata: Vec<_> = [&b"hello rodata"[..], &[0u8; 64][..]]
        .iter()
        .map(|bytes| {
            let embedded_data = Some(fbb.create_vector(bytes));
            schema::RodataSegmentDef::create(
                &mut fbb,
                &schema::RodataSegmentDefArgs { embedded_data, ..Default::default() },
            )
        })
        .collect();
    let rodata = fbb.create_vector(&rodata);
    let module_state = schema::ModuleStateDef::create(
        &mut fbb,
        &schema::ModuleStateDefArgs { global_bytes_capacity: 64, global_ref_count: 4 },
    );
    let features = schema::FeatureBits::EXT_F32 | schema::FeatureBits::EXT_F64;
    let helper = [0x79u8, 0x5A, 0x00, 0x00];
    let mut bytecode = code.to_vec();
    let helper_offset = bytecode.len().next_multiple_of(4);
    bytecode.resize(helper_offset, 0);
    bytecode.extend_from_slice(&helper);
    let descriptors = [
        schema::FunctionDescriptor::new(
            0,
            code.len() as i32,
            features,
            0,
            i16::from(header[8]),
            i16::from_le_bytes([header[0], header[1]]),
            i16::from_le_bytes([header[2], header[3]]),
        ),
        schema::FunctionDescriptor::new(helper_offset as i32, helper.len() as i32, features, 0, 1, 8, 8),
    ];
    let descriptors = fbb.create_vector(&descriptors);
    let bytecode = fbb.create_vector(&bytecode);
    let root = schema::BytecodeModuleDef::create(
        &mut fbb,
        &schema::BytecodeModuleDefArgs {
            name: Some(name),
            requirements: features,
            types: Some(types),
            imported_functions: Some(imports),
            exported_functions: Some(exports),
            function_signatures: Some(sigs),
            rodata_segments: Some(rodata),
            module_state: Some(module_state),
            function_descriptors: Some(descriptors),
            bytecode_version: 0x0011_0000,
            bytecode_data: Some(bytecode),
            ..Default::default()
        },
    );
    schema::finish_size_prefixed_bytecode_module_def_buffer(&mut fbb, root);
    let mut file = fbb.finished_data().to_vec();
    file.resize(file.len().next_multiple_of(64), 0);
    file
}

