//! Tokenizers: `Tokenizer`, `TokenizerEncodeStream` and
//! `TokenizerDecodeStream`, upstream's `iree.runtime` tokenizer API over the
//! `iree-tokenizer` crate.

use std::sync::Mutex;

use iree_tokenizer::{EncodeOptions, Error, ErrorKind};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

/// Inputs at least this long are processed with the GIL released.
const RELEASE_GIL_BYTES: usize = 1024;

/// Adds the tokenizer classes to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Tokenizer>()?;
    m.add_class::<TokenizerEncodeStream>()?;
    m.add_class::<TokenizerDecodeStream>()?;
    Ok(())
}

/// ValueError for bad input and misuse (as upstream), RuntimeError for
/// internal failures; `context` prefixes the message.
fn to_py(err: Error, context: &str) -> PyErr {
    let message = if context.is_empty() {
        err.message().to_string()
    } else {
        format!("{context}: {}", err.message())
    };
    match err.kind() {
        ErrorKind::InvalidArgument | ErrorKind::NotFound | ErrorKind::FailedPrecondition => {
            PyValueError::new_err(message)
        }
        ErrorKind::Unimplemented | ErrorKind::Internal => PyRuntimeError::new_err(message),
    }
}

/// Runs `f` with the GIL released when `size` is large.
fn maybe_detached<T: Send>(py: Python<'_>, size: usize, f: impl FnOnce() -> T + Send) -> T {
    if size >= RELEASE_GIL_BYTES {
        py.allow_threads(f)
    } else {
        f()
    }
}

/// Runs `f` on a stream behind its lock (a poisoned lock still holds a
/// consistent stream: its methods return errors, they do not panic).
fn locked<S, T>(stream: &Mutex<S>, f: impl FnOnce(&mut S) -> T) -> T {
    f(&mut iree_base::sync::lock(stream))
}

/// Token ids from Python ints; ids no vocabulary can hold (negative or
/// beyond 32 bits) are dropped, as unknown ids are.
fn to_ids(ids: &[i64]) -> Vec<u32> {
    ids.iter()
        .filter_map(|&id| u32::try_from(id).ok())
        .collect()
}

/// Token ids from a Python sequence of ints, as [`to_ids`] takes them. A
/// list of plain ints (the common case: `encode`'s own result) is read
/// without a reference count or a conversion object per element, which
/// was most of a decode call's time; anything else goes through PyO3's
/// extraction, with its errors.
fn ids_from(ids: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    if let Ok(list) = ids.downcast::<PyList>() {
        if let Some(fast) = plain_int_list(list) {
            return Ok(fast);
        }
    }
    Ok(to_ids(&ids.extract::<Vec<i64>>()?))
}

/// The ids of `list` if every element is exactly an `int` (a type pointer
/// comparison; `PyLong_Check` is a function call under the limited API)
/// that fits in 64 bits; `None` otherwise (the caller then extracts the
/// slow way, which also takes `bool` and other `int` subclasses).
fn plain_int_list(list: &Bound<'_, PyList>) -> Option<Vec<u32>> {
    use pyo3::ffi;
    let mut out = Vec::with_capacity(list.len());
    for index in 0..list.len() {
        // SAFETY: the GIL is held (`list` is a `Bound`) and `list` is a
        // list. The item is a borrowed reference, used only before any
        // Python code can run: `PyLong_CheckExact` (a type comparison) runs none, and
        // `PyLong_AsLongLong` runs none for an exact `int` (only `__index__` of
        // other types would). The index is in range because nothing ran
        // since `len()`; a NULL (out of range) still ends the fast path.
        let id = unsafe {
            let item = ffi::PyList_GetItem(list.as_ptr(), index as ffi::Py_ssize_t);
            if item.is_null() || ffi::PyLong_CheckExact(item) == 0 {
                ffi::PyErr_Clear();
                return None;
            }
            let value = ffi::PyLong_AsLongLong(item);
            if value == -1 && !ffi::PyErr_Occurred().is_null() {
                ffi::PyErr_Clear();
                return None;
            }
            value
        };
        out.extend(u32::try_from(id).ok());
    }
    Some(out)
}

/// `bytes` as a Python `str`, validated once by CPython's decoder; invalid
/// UTF-8 (byte-level tokens cut mid-character) becomes U+FFFD per invalid
/// sequence, as `Tokenizer::decode` gives it.
fn utf8_to_str(py: Python<'_>, bytes: &[u8]) -> Py<PyString> {
    use pyo3::ffi;
    // SAFETY: the GIL is held (`py`); the pointer and length describe
    // `bytes`, which outlives the call; a NULL errors argument means
    // "strict". The result is a new reference or NULL with an error set,
    // which is cleared before any other Python call.
    let strict = unsafe {
        let object = ffi::PyUnicode_DecodeUTF8(
            bytes.as_ptr().cast(),
            bytes.len() as ffi::Py_ssize_t,
            std::ptr::null(),
        );
        if object.is_null() {
            ffi::PyErr_Clear();
            None
        } else {
            Some(Py::<PyString>::from_owned_ptr(py, object))
        }
    };
    strict.unwrap_or_else(|| PyString::new(py, &String::from_utf8_lossy(bytes)).unbind())
}

/// A text tokenizer (Hugging Face tokenizer.json or tiktoken). Immutable
/// and safe to share between threads.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct Tokenizer {
    inner: iree_tokenizer::Tokenizer,
}

#[pymethods]
impl Tokenizer {
    /// Loads a tokenizer from a path (str, bytes or os.PathLike); files
    /// ending in `.tiktoken` are tiktoken (encoding from the file name),
    /// others Hugging Face JSON.
    #[staticmethod]
    fn from_file(py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<Self> {
        let fspath = py.import("os")?.getattr("fspath")?.call1((path,))?;
        let path: String = match fspath.downcast::<PyBytes>() {
            Ok(bytes) => String::from_utf8_lossy(bytes.as_bytes()).into_owned(),
            Err(_) => fspath.extract()?,
        };
        let inner = py
            .allow_threads(|| iree_tokenizer::Tokenizer::from_file(&path))
            .map_err(|e| to_py(e, ""))?;
        Ok(Tokenizer { inner })
    }

    /// Creates a tokenizer from a Hugging Face tokenizer.json string.
    #[staticmethod]
    fn from_huggingface_json(py: Python<'_>, json: PyBackedStr) -> PyResult<Self> {
        let inner = py
            .allow_threads(|| iree_tokenizer::Tokenizer::from_huggingface_json(&json))
            .map_err(|e| to_py(e, "Failed to parse HuggingFace tokenizer JSON"))?;
        Ok(Tokenizer { inner })
    }

    /// Creates a tokenizer from tiktoken data and an encoding name
    /// (cl100k_base, o200k_base, o200k_harmony, r50k_base, gpt2, p50k_base,
    /// p50k_edit).
    #[staticmethod]
    fn from_tiktoken(py: Python<'_>, data: PyBackedStr, encoding: PyBackedStr) -> PyResult<Self> {
        if iree_tokenizer::format::tiktoken::encoding_by_name(&encoding).is_none() {
            return Err(PyValueError::new_err(format!(
                "Unknown tiktoken encoding: {}. Expected one of: {}",
                &*encoding,
                iree_tokenizer::format::tiktoken::ENCODING_NAMES
            )));
        }
        let inner = py
            .allow_threads(|| iree_tokenizer::Tokenizer::from_tiktoken(data.as_bytes(), &encoding))
            .map_err(|e| to_py(e, "Failed to parse tiktoken data"))?;
        Ok(Tokenizer { inner })
    }

    /// Encodes text to token ids. `no_special_token_matching` treats
    /// special tokens as literal text (like tiktoken's encode_ordinary).
    #[pyo3(signature = (text, add_special_tokens = false, no_special_token_matching = false))]
    fn encode(
        &self,
        py: Python<'_>,
        text: PyBackedStr,
        add_special_tokens: bool,
        no_special_token_matching: bool,
    ) -> PyResult<Vec<u32>> {
        let options = EncodeOptions {
            add_special_tokens,
            no_special_token_matching,
        };
        maybe_detached(py, text.len(), || self.inner.encode(&text, options))
            .map_err(|e| to_py(e, "Tokenizer encode failed"))
    }

    /// Encodes each text of a sequence (on all cores for large batches, with
    /// the GIL released). Not in upstream's API: a Python loop over `encode`
    /// gives the same lists.
    #[pyo3(signature = (texts, add_special_tokens = false, no_special_token_matching = false))]
    fn encode_batch(
        &self,
        py: Python<'_>,
        texts: Vec<PyBackedStr>,
        add_special_tokens: bool,
        no_special_token_matching: bool,
    ) -> PyResult<Vec<Vec<u32>>> {
        let options = EncodeOptions {
            add_special_tokens,
            no_special_token_matching,
        };
        let size = texts.iter().map(|t| t.len()).sum();
        let texts: Vec<&str> = texts.iter().map(|t| &**t).collect();
        maybe_detached(py, size, || self.inner.encode_batch(&texts, options))
            .map_err(|e| to_py(e, "Tokenizer encode failed"))
    }

    /// Decodes token ids to text.
    #[pyo3(signature = (token_ids, skip_special_tokens = false))]
    fn decode(
        &self,
        py: Python<'_>,
        token_ids: &Bound<'_, PyAny>,
        skip_special_tokens: bool,
    ) -> PyResult<Py<PyString>> {
        let ids = ids_from(token_ids)?;
        let bytes = maybe_detached(py, ids.len() * 4, || {
            self.inner.decode_bytes(&ids, skip_special_tokens)
        })
        .map_err(|e| to_py(e, "Tokenizer decode failed"))?;
        Ok(utf8_to_str(py, &bytes))
    }

    /// Creates a streaming encoder.
    #[pyo3(signature = (add_special_tokens = false, no_special_token_matching = false))]
    fn encode_stream(
        &self,
        add_special_tokens: bool,
        no_special_token_matching: bool,
    ) -> TokenizerEncodeStream {
        let options = EncodeOptions {
            add_special_tokens,
            no_special_token_matching,
        };
        TokenizerEncodeStream {
            stream: Mutex::new(self.inner.encode_stream(options)),
        }
    }

    /// Creates a streaming decoder.
    #[pyo3(signature = (skip_special_tokens = false))]
    fn decode_stream(&self, skip_special_tokens: bool) -> TokenizerDecodeStream {
        TokenizerDecodeStream {
            stream: Mutex::new(self.inner.decode_stream(skip_special_tokens)),
        }
    }

    /// Number of active tokens in the vocabulary.
    #[getter]
    fn vocab_size(&self) -> usize {
        self.inner.vocab_size()
    }

    /// Model type name ('BPE', 'WordPiece', 'Unigram', ...).
    #[getter]
    fn model_type(&self) -> &'static str {
        self.inner.model_type()
    }

    /// The text of a token id, or None if there is no such token.
    fn id_to_token(&self, token_id: i64) -> Option<String> {
        u32::try_from(token_id)
            .ok()
            .and_then(|id| self.inner.id_to_token(id))
    }

    /// The id of a token string, or None if it is not in the vocabulary.
    fn token_to_id(&self, token: &str) -> Option<u32> {
        self.inner.token_to_id(token)
    }

    /// Dict of special token ids (bos, eos, unk, pad, sep, cls, mask); None
    /// where absent.
    #[getter]
    fn special_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let ids = self.inner.special_ids();
        let dict = PyDict::new(py);
        for (name, id) in [
            ("bos", ids.bos),
            ("eos", ids.eos),
            ("unk", ids.unk),
            ("pad", ids.pad),
            ("sep", ids.sep),
            ("cls", ids.cls),
            ("mask", ids.mask),
        ] {
            dict.set_item(name, id)?;
        }
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        format!(
            "<Tokenizer model_type='{}' vocab_size={}>",
            self.inner.model_type(),
            self.inner.vocab_size()
        )
    }
}

/// A streaming encoder: `feed` text chunks, then `finalize` once.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct TokenizerEncodeStream {
    stream: Mutex<iree_tokenizer::EncodeStream>,
}

#[pymethods]
impl TokenizerEncodeStream {
    /// Feeds a text chunk; returns the tokens it completed.
    fn feed(&self, py: Python<'_>, chunk: PyBackedStr) -> PyResult<Vec<u32>> {
        maybe_detached(py, chunk.len(), || locked(&self.stream, |s| s.feed(&chunk)))
            .map_err(|e| to_py(e, ""))
    }

    /// Flushes the remaining tokens; call once, after all input is fed.
    fn finalize(&self, py: Python<'_>) -> PyResult<Vec<u32>> {
        py.allow_threads(|| locked(&self.stream, |s| s.finalize()))
            .map_err(|e| to_py(e, ""))
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Finalizes (discarding the result) if not done yet.
    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, PyTuple>) {
        py.allow_threads(|| {
            locked(&self.stream, |s| {
                if !s.is_finalized() {
                    let _ = s.finalize();
                }
            })
        });
    }

    fn __repr__(&self) -> &'static str {
        "<TokenizerEncodeStream>"
    }
}

/// A streaming decoder: `feed` token ids, then `finalize` once.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct TokenizerDecodeStream {
    stream: Mutex<iree_tokenizer::DecodeStream>,
}

#[pymethods]
impl TokenizerDecodeStream {
    /// Feeds token ids; returns the text they completed.
    fn feed(&self, py: Python<'_>, token_ids: &Bound<'_, PyAny>) -> PyResult<String> {
        let ids = ids_from(token_ids)?;
        maybe_detached(py, ids.len() * 4, || locked(&self.stream, |s| s.feed(&ids)))
            .map_err(|e| to_py(e, ""))
    }

    /// Feeds one token id (per-token LLM decoding).
    fn feed_one(&self, token_id: i64) -> PyResult<String> {
        let ids = to_ids(&[token_id]);
        locked(&self.stream, |s| s.feed(&ids)).map_err(|e| to_py(e, ""))
    }

    /// Flushes the remaining text; call once, after all tokens are fed.
    fn finalize(&self) -> PyResult<String> {
        locked(&self.stream, |s| s.finalize()).map_err(|e| to_py(e, ""))
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Finalizes (discarding the result) if not done yet.
    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, PyTuple>) {
        locked(&self.stream, |s| {
            if !s.is_finalized() {
                let _ = s.finalize();
            }
        });
    }

    fn __repr__(&self) -> &'static str {
        "<TokenizerDecodeStream>"
    }
}
