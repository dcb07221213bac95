//! Value and reference types, and the registry that names reference types.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use parking_lot::RwLock;

/// A primitive value type (`iree_vm_value_type_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueType {
    /// 8-bit integer.
    I8,
    /// 16-bit integer.
    I16,
    /// 32-bit integer.
    I32,
    /// 64-bit integer.
    I64,
    /// 32-bit IEEE float.
    F32,
    /// 64-bit IEEE float.
    F64,
}

impl ValueType {
    /// Size of one element in bytes.
    pub fn byte_size(self) -> usize {
        match self {
            ValueType::I8 => 1,
            ValueType::I16 => 2,
            ValueType::I32 | ValueType::F32 => 4,
            ValueType::I64 | ValueType::F64 => 8,
        }
    }

    /// The name used in type tables and printed output (`i32`, `f64`).
    pub fn name(self) -> &'static str {
        match self {
            ValueType::I8 => "i8",
            ValueType::I16 => "i16",
            ValueType::I32 => "i32",
            ValueType::I64 => "i64",
            ValueType::F32 => "f32",
            ValueType::F64 => "f64",
        }
    }

    /// Parses a type-table name (`i32`); `None` for anything else.
    pub fn from_name(name: &str) -> Option<ValueType> {
        Some(match name {
            "i8" => ValueType::I8,
            "i16" => ValueType::I16,
            "i32" => ValueType::I32,
            "i64" => ValueType::I64,
            "f32" => ValueType::F32,
            "f64" => ValueType::F64,
            _ => return None,
        })
    }

    /// True for the floating-point types.
    pub fn is_float(self) -> bool {
        matches!(self, ValueType::F32 | ValueType::F64)
    }
}

/// The static description of a reference type: its registered name.
#[derive(Debug)]
pub struct RefTypeDescriptor {
    /// The fully-qualified type name without the `!` (`vm.buffer`, `hal.buffer_view`).
    pub name: &'static str,
}

/// A registered reference type; compares by identity of its descriptor.
#[derive(Clone, Copy)]
pub struct RefType(&'static RefTypeDescriptor);

impl RefType {
    /// Wraps a static descriptor. Each descriptor must be a distinct `static`.
    pub const fn new(descriptor: &'static RefTypeDescriptor) -> RefType {
        RefType(descriptor)
    }

    /// The type name (`vm.buffer`).
    pub fn name(self) -> &'static str {
        self.0.name
    }
}

impl PartialEq for RefType {
    fn eq(&self, other: &RefType) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}
impl Eq for RefType {}

impl std::hash::Hash for RefType {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::ptr::hash(self.0, state)
    }
}

impl fmt::Debug for RefType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "!{}", self.0.name)
    }
}

/// What a module's type table entry resolves to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeDef {
    /// A primitive value type.
    Value(ValueType),
    /// A specific registered reference type.
    Ref(RefType),
    /// Any reference (`!vm.opaque`, or an element type erased by the compiler).
    AnyRef,
}

/// Maps reference type names to registered types. One per [`crate::Instance`].
#[derive(Default)]
pub struct TypeRegistry {
    types: RwLock<HashMap<&'static str, RefType>>,
}

impl TypeRegistry {
    /// Registers `ty`; registering the same type twice is harmless, while a
    /// different type under an existing name is an error.
    pub fn register(&self, ty: RefType) -> Result<()> {
        let mut types = self.types.write();
        match types.get(ty.name()) {
            Some(existing) if *existing != ty => Err(Status::new(
                StatusCode::AlreadyExists,
                format!("a different type is already registered as '{}'", ty.name()),
            )),
            _ => {
                types.insert(ty.name(), ty);
                Ok(())
            }
        }
    }

    /// Looks up a reference type by name (with or without a leading `!`).
    pub fn lookup(&self, name: &str) -> Option<RefType> {
        let name = name.strip_prefix('!').unwrap_or(name);
        self.types.read().get(name).copied()
    }

    /// Resolves a type-table entry name as the bytecode loader sees it
    /// (`i32`, `!vm.opaque`, `!vm.list<i32>`, `!hal.buffer`).
    pub fn resolve_type_name(&self, name: &str) -> Result<TypeDef> {
        if let Some(v) = ValueType::from_name(name) {
            return Ok(TypeDef::Value(v));
        }
        let bare = name.strip_prefix('!').unwrap_or(name);
        if bare == "vm.opaque" {
            return Ok(TypeDef::AnyRef);
        }
        // Parameterized types (`vm.list<i32>`) are registered by their base name.
        let base = bare.split('<').next().unwrap_or(bare);
        self.lookup(base).map(TypeDef::Ref).ok_or_else(|| {
            Status::new(
                StatusCode::NotFound,
                format!("no type registered with name '{name}'"),
            )
        })
    }
}

/// Shared, reference-counted handle to a type registry.
pub type SharedTypeRegistry = Arc<TypeRegistry>;
