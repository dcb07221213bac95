//! Parameter file formats, chosen by file extension as upstream does.
//!
//! Each parser turns the bytes of a whole file into [`ParsedEntry`] values
//! without touching the file system, so the parsers can be fuzzed and
//! tested on bytes alone; [`parse_file_index`] then resolves them against
//! the open file (and, for IRPA external entries, the files they name).

pub mod gguf;
pub mod irpa;
pub mod safetensors;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use iree_base::{Result, ResultExt, Status, StatusCode};

use crate::file::{FileMode, ParameterFile};
use crate::index::{EntryStorage, IndexEntry, ParameterIndex};

/// Where a parsed entry's bytes are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParsedSource {
    /// A repeating pattern (IRPA splat entries).
    Splat {
        /// Pattern bytes; the first `pattern_length` are used.
        pattern: [u8; 16],
        /// Valid bytes in `pattern` (1 to 16).
        pattern_length: u8,
    },
    /// A range of the file being parsed, at this absolute offset.
    Data {
        /// Absolute byte offset in the file.
        offset: u64,
    },
    /// A range of another file (IRPA external entries).
    External {
        /// The file's path as stored (relative paths are relative to the
        /// archive's directory).
        path: Box<[u8]>,
        /// Absolute byte offset in that file.
        offset: u64,
    },
}

/// One entry as a format describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedEntry {
    /// Parameter key.
    pub key: Box<[u8]>,
    /// Format metadata (may be empty).
    pub metadata: Box<[u8]>,
    /// Length in bytes.
    pub length: u64,
    /// Where the bytes are.
    pub source: ParsedSource,
}

/// The formats we read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// IREE parameter archive (`.irpa`).
    Irpa,
    /// GGML's GGUF (`.gguf`), versions 2 and 3.
    Gguf,
    /// Hugging Face safetensors (`.safetensors`).
    Safetensors,
}

impl Format {
    /// The format for a path's extension (or a bare extension, as upstream
    /// also accepts): UNIMPLEMENTED for anything else.
    pub fn from_path(path: &str) -> Result<Format> {
        let basename = path.rsplit('/').next().unwrap_or(path);
        let extension = match basename.rsplit_once('.') {
            Some((_, extension)) => extension,
            None => basename,
        };
        if extension.eq_ignore_ascii_case("irpa") {
            Ok(Format::Irpa)
        } else if extension.eq_ignore_ascii_case("gguf") {
            Ok(Format::Gguf)
        } else if extension.eq_ignore_ascii_case("safetensors") {
            Ok(Format::Safetensors)
        } else {
            Err(Status::new(
                StatusCode::Unimplemented,
                format!(
                    "unsupported file format `{extension}`; ensure the extension matches one of the supported formats: [.irpa, .gguf, .safetensors]"
                ),
            ))
        }
    }

    /// Parses the bytes of a whole file of this format.
    pub fn parse(self, bytes: &[u8]) -> Result<Vec<ParsedEntry>> {
        match self {
            Format::Irpa => irpa::parse(bytes),
            Format::Gguf => gguf::parse(bytes),
            Format::Safetensors => safetensors::parse(bytes),
        }
    }
}

/// Opens the parameter file at `path`, parses it by extension and appends
/// its entries to `index`. Errors name the file.
pub fn append_file_to_index(
    path: impl AsRef<std::path::Path>,
    mode: FileMode,
    index: &mut ParameterIndex,
) -> Result<()> {
    let path = path.as_ref();
    // Extensions are ASCII: the other bytes of a name do not matter here.
    let format = Format::from_path(&path.to_string_lossy())?;
    let file = Arc::new(ParameterFile::open(path, mode)?);
    parse_file_index(format, file, mode, index)
        .annotate_with(|| format!("parsing parameter file `{}`", path.display()))
}

/// Parses an open file in `format` and appends its entries to `index`.
/// External files named by the archive are opened with `mode`.
pub fn parse_file_index(
    format: Format,
    file: Arc<ParameterFile>,
    mode: FileMode,
    index: &mut ParameterIndex,
) -> Result<()> {
    let entries = format.parse(file.bytes())?;
    let mut externals: HashMap<PathBuf, Arc<ParameterFile>> = HashMap::new();
    for entry in entries {
        let storage = match entry.source {
            ParsedSource::Splat {
                pattern,
                pattern_length,
            } => EntryStorage::Splat {
                pattern,
                pattern_length,
            },
            ParsedSource::Data { offset } => {
                file.range(offset, entry.length).annotate_with(|| {
                    format!("parameter `{}`", String::from_utf8_lossy(&entry.key))
                })?;
                EntryStorage::File {
                    file: file.clone(),
                    offset,
                }
            }
            ParsedSource::External { path, offset } => {
                let path = resolve_external_path(file.path(), &path)?;
                let external = match externals.get(&path) {
                    Some(external) => external.clone(),
                    None => {
                        let opened = Arc::new(ParameterFile::open(&path, mode)?);
                        externals.insert(path.clone(), opened.clone());
                        opened
                    }
                };
                external.range(offset, entry.length).annotate_with(|| {
                    format!(
                        "external parameter `{}`",
                        String::from_utf8_lossy(&entry.key)
                    )
                })?;
                EntryStorage::File {
                    file: external,
                    offset,
                }
            }
        };
        index.add(IndexEntry {
            key: entry.key,
            metadata: entry.metadata,
            length: entry.length,
            storage,
        });
    }
    Ok(())
}

/// Resolves an external entry's path: absolute as is, relative against
/// the directory of the archive naming it.
fn resolve_external_path(archive: &Path, stored: &[u8]) -> Result<PathBuf> {
    let text = std::str::from_utf8(stored).map_err(|_| {
        Status::new(
            StatusCode::InvalidArgument,
            "external entry path is not valid UTF-8",
        )
    })?;
    if text.is_empty() {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "external entry has an empty path",
        ));
    }
    let path = Path::new(text);
    Ok(if path.is_absolute() {
        path.to_path_buf()
    } else {
        archive.parent().unwrap_or_else(|| Path::new("")).join(path)
    })
}

/// A little-endian reader over a byte slice whose every read is checked.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    position: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, position: 0 }
    }

    pub(crate) fn at(bytes: &'a [u8], position: u64, what: &str) -> Result<Self> {
        if position > bytes.len() as u64 {
            return Err(underrun(what, position, 0, bytes.len()));
        }
        Ok(Reader {
            bytes,
            position: position as usize,
        })
    }

    pub(crate) fn position(&self) -> usize {
        self.position
    }

    pub(crate) fn take(&mut self, length: u64, what: &str) -> Result<&'a [u8]> {
        let start = self.position;
        let end = (start as u64)
            .checked_add(length)
            .filter(|&end| end <= self.bytes.len() as u64)
            .ok_or_else(|| underrun(what, start as u64, length, self.bytes.len()))?
            as usize;
        self.position = end;
        Ok(&self.bytes[start..end])
    }

    pub(crate) fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        let bytes = self.take(N as u64, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    pub(crate) fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.array::<1>(what)?[0])
    }

    pub(crate) fn u16(&mut self, what: &str) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }

    pub(crate) fn u32(&mut self, what: &str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    pub(crate) fn u64(&mut self, what: &str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }
}

fn underrun(what: &str, offset: u64, length: u64, available: usize) -> Status {
    Status::new(
        StatusCode::OutOfRange,
        format!(
            "file truncated reading {what} ({length} bytes at offset {offset}, file is {available} bytes)"
        ),
    )
}
