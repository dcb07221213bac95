//! [`Instance`]: the process-level VM root that owns the type registry.

use std::sync::Arc;

use iree_base::Result;

use crate::types::{RefType, TypeRegistry};

/// Shared VM state for every context created from it: today, the registry of
/// reference types. Builtin types (`vm.buffer`, `vm.list`) are registered on
/// creation.
pub struct Instance {
    types: TypeRegistry,
}

impl Instance {
    /// Creates an instance with the builtin types registered.
    pub fn new() -> Arc<Instance> {
        let instance = Instance {
            types: TypeRegistry::default(),
        };
        for ty in [crate::buffer::buffer_type(), crate::list::list_type()] {
            instance
                .types
                .register(ty)
                .expect("builtin types are distinct");
        }
        Arc::new(instance)
    }

    /// The type registry.
    pub fn types(&self) -> &TypeRegistry {
        &self.types
    }

    /// Registers an extra reference type (done by modules such as `hal`).
    pub fn register_type(&self, ty: RefType) -> Result<()> {
        self.types.register(ty)
    }
}
