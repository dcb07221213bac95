//! The parameter index: named entries and where their bytes live.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};

use crate::file::ParameterFile;

/// Where an entry's bytes come from.
#[derive(Clone, Debug)]
pub enum EntryStorage {
    /// A repeating pattern of 1 to 16 bytes; read-only.
    Splat {
        /// The pattern bytes (only the first `pattern_length` are used).
        pattern: [u8; 16],
        /// How many bytes of `pattern` are valid.
        pattern_length: u8,
    },
    /// A byte range of a file.
    File {
        /// The file holding the bytes.
        file: Arc<ParameterFile>,
        /// Byte offset of the entry in the file.
        offset: u64,
    },
}

/// One named parameter.
#[derive(Clone, Debug)]
pub struct IndexEntry {
    /// The key (arbitrary bytes; usually UTF-8).
    pub key: Box<[u8]>,
    /// Format-specific metadata (IRPA entries may carry some).
    pub metadata: Box<[u8]>,
    /// Length of the parameter in bytes.
    pub length: u64,
    /// Where the bytes are.
    pub storage: EntryStorage,
}

impl IndexEntry {
    /// The key for messages (lossy for non-UTF-8 keys).
    pub fn key_str(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.key)
    }
}

/// An ordered set of entries; the first entry of a key wins lookups, as
/// upstream's linear search does.
#[derive(Clone, Default, Debug)]
pub struct ParameterIndex {
    entries: Vec<IndexEntry>,
    by_key: HashMap<Box<[u8]>, usize>,
}

impl ParameterIndex {
    /// An empty index.
    pub fn new() -> ParameterIndex {
        ParameterIndex::default()
    }

    /// Appends an entry. A key already present keeps its first entry for
    /// lookups.
    pub fn add(&mut self, entry: IndexEntry) {
        let position = self.entries.len();
        self.by_key.entry(entry.key.clone()).or_insert(position);
        self.entries.push(entry);
    }

    /// Number of entries (duplicates included).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True with no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// All entries in the order they were added.
    pub fn entries(&self) -> &[IndexEntry] {
        &self.entries
    }

    /// The entry for `key`: NOT_FOUND when absent.
    pub fn lookup(&self, key: &[u8]) -> Result<&IndexEntry> {
        self.by_key
            .get(key)
            .map(|&i| &self.entries[i])
            .ok_or_else(|| {
                Status::new(
                    StatusCode::NotFound,
                    format!(
                        "no parameter found in index with key '{}'",
                        String::from_utf8_lossy(key)
                    ),
                )
            })
    }

    /// A table of the entries in upstream's `iree-dump-parameters` layout.
    pub fn dump(&self, scope: &str) -> String {
        let total: u64 = self.entries.iter().map(|e| e.length).sum();
        let mut out = String::new();
        out.push_str("//===--------------------------------------------------------------------------------------------------------------===//\n");
        let scope = if scope.is_empty() {
            "<global>".to_string()
        } else {
            format!("`{scope}`")
        };
        let _ = writeln!(
            out,
            "// Parameter scope {scope} ({} entries, {total} total bytes)",
            self.entries.len()
        );
        out.push_str("//===------------+------------------+------------------+-----------------------------------------------------------===//\n");
        out.push_str("//         Start |              End |           Length | Key\n");
        out.push_str("//---------------+------------------+------------------+--------------------------------------------------------------//\n");
        for entry in &self.entries {
            match &entry.storage {
                EntryStorage::Splat { .. } => {
                    let _ = writeln!(
                        out,
                        "               - |                - | {:>16} | `{}`",
                        entry.length,
                        entry.key_str()
                    );
                }
                EntryStorage::File { offset, .. } => {
                    let _ = writeln!(
                        out,
                        "{offset:>16} | {:>16} | {:>16} | `{}`",
                        offset + entry.length,
                        entry.length,
                        entry.key_str()
                    );
                }
            }
        }
        out.push('\n');
        out
    }
}

/// Indices by scope, in the order scopes were first named (`--parameters`
/// creates one per scope; the unscoped form uses the empty scope).
#[derive(Default, Debug)]
pub struct ScopeMap {
    scopes: Vec<(String, ParameterIndex)>,
}

impl ScopeMap {
    /// An empty map.
    pub fn new() -> ScopeMap {
        ScopeMap::default()
    }

    /// The index of `scope`, created empty on first use.
    pub fn scope_index(&mut self, scope: &str) -> &mut ParameterIndex {
        let position = match self.scopes.iter().position(|(s, _)| s == scope) {
            Some(position) => position,
            None => {
                self.scopes.push((scope.to_string(), ParameterIndex::new()));
                self.scopes.len() - 1
            }
        };
        &mut self.scopes[position].1
    }

    /// The scopes and their indices, in order.
    pub fn scopes(&self) -> &[(String, ParameterIndex)] {
        &self.scopes
    }

    /// The scopes and their indices.
    pub fn into_scopes(self) -> Vec<(String, ParameterIndex)> {
        self.scopes
    }

    /// Every scope's [`ParameterIndex::dump`], in order (what upstream's
    /// `iree-dump-parameters` prints).
    pub fn dump(&self) -> String {
        self.scopes
            .iter()
            .map(|(scope, index)| index.dump(scope))
            .collect()
    }
}
