//! Parameters kept outside of modules: parameter files (`.irpa`,
//! `.safetensors`, `.gguf`), the index of named entries they hold,
//! providers that serve scopes of parameters to devices, and the
//! `io_parameters` VM module compiled programs import to load them.
//!
//! ```text
//! --parameters=scope=file.irpa  ─┐
//! --parameters=other.gguf       ─┼─> ScopeMap ─> IndexProvider per scope ─> io_parameters module
//!                                │     (ParameterIndex of IndexEntry, each a splat
//!                                │      or a range of a mapped ParameterFile)
//! ```

pub mod file;
pub mod formats;
pub mod index;
pub mod module;
pub mod provider;

use std::sync::Arc;

use iree_base::Result;

pub use file::{FileMode, ParameterFile};
pub use formats::irpa::{BuilderEntry, DataContents, IrpaBuilder};
pub use formats::{append_file_to_index, Format, ParsedEntry, ParsedSource};
pub use index::{EntryStorage, IndexEntry, ParameterIndex, ScopeMap};
pub use module::{create_io_parameters_module, IO_PARAMETERS_MODULE_VERSION};
pub use provider::{IndexProvider, ParameterProvider, Span};

/// Splits a `--parameters=` value into `(scope, path)`: `scope=path`, or
/// just `path` for the unscoped (empty) scope.
pub fn split_parameters_flag(flag: &str) -> (&str, &str) {
    match flag.split_once('=') {
        Some((scope, path)) => (scope, path),
        None => ("", flag),
    }
}

/// Opens and indexes every `--parameters=` file: one index per scope, in
/// the order scopes are first named.
pub fn scope_map_from_flags(flags: &[String], mode: FileMode) -> Result<ScopeMap> {
    let mut scopes = ScopeMap::new();
    for flag in flags {
        let (scope, path) = split_parameters_flag(flag);
        let _span = tracing::debug_span!("io_parameters.open", scope, path).entered();
        append_file_to_index(path, mode, scopes.scope_index(scope))?;
    }
    Ok(scopes)
}

/// Indexes every `--parameters=` file ([`scope_map_from_flags`]) and
/// returns one provider per scope, as upstream's tools do.
pub fn providers_from_flags(
    flags: &[String],
    mode: FileMode,
) -> Result<Vec<Arc<dyn ParameterProvider>>> {
    let scopes = scope_map_from_flags(flags, mode)?;
    Ok(scopes
        .into_scopes()
        .into_iter()
        .map(|(scope, index)| {
            Arc::new(IndexProvider::new(scope.into_bytes(), index)) as Arc<dyn ParameterProvider>
        })
        .collect())
}
