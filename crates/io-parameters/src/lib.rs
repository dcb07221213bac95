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

use std::ffi::OsStr;
use std::path::Path;
use std::sync::Arc;

use iree_base::Result;

pub use file::{FileMode, ParameterFile};
pub use formats::irpa::{BuilderEntry, DataContents, IrpaBuilder};
pub use formats::{append_file_to_index, Format, ParsedEntry, ParsedSource};
pub use index::{EntryStorage, IndexEntry, ParameterIndex, ScopeMap};
pub use module::{create_io_parameters_module, IO_PARAMETERS_MODULE_VERSION};
pub use provider::{IndexProvider, ParameterProvider, Span};

/// Splits a `--parameters=` value into `(scope, path)`: `scope=path`, or
/// just `path` for the unscoped (empty) scope. The path may hold any bytes
/// the OS allows; a scope must be UTF-8 (INVALID_ARGUMENT otherwise).
pub fn split_parameters_flag(flag: &OsStr) -> Result<(&str, &Path)> {
    match iree_base::os_args::split_once(flag, b'=') {
        Some((scope, path)) => Ok((
            iree_base::os_args::to_text(scope, "--parameters scope")?,
            Path::new(path),
        )),
        None => Ok(("", Path::new(flag))),
    }
}

/// Opens and indexes every `--parameters=` file: one index per scope, in
/// the order scopes are first named.
pub fn scope_map_from_flags(flags: &[impl AsRef<OsStr>], mode: FileMode) -> Result<ScopeMap> {
    let mut scopes = ScopeMap::new();
    for flag in flags {
        let (scope, path) = split_parameters_flag(flag.as_ref())?;
        let _span =
            tracing::debug_span!("io_parameters.open", scope, path = %path.display()).entered();
        append_file_to_index(path, mode, scopes.scope_index(scope))?;
    }
    Ok(scopes)
}

/// Indexes every `--parameters=` file ([`scope_map_from_flags`]) and
/// returns one provider per scope, as upstream's tools do.
pub fn providers_from_flags(
    flags: &[impl AsRef<OsStr>],
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
