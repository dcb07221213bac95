//! Text tokenizers for IREE: Hugging Face `tokenizer.json` (BPE, WordPiece,
//! WordLevel and Unigram models with their normalizers, pre-tokenizers,
//! post-processors, decoders and added tokens) and tiktoken files, with
//! one-shot and streaming encode and decode.
//!
//! ```no_run
//! use iree_tokenizer::{EncodeOptions, Tokenizer};
//! let tokenizer = Tokenizer::from_file("tokenizer.json")?;
//! let ids = tokenizer.encode("Hello world", EncodeOptions::default())?;
//! assert_eq!(tokenizer.decode(&ids, false)?, "Hello world");
//! # Ok::<(), iree_tokenizer::Error>(())
//! ```
//!
//! The pipeline stages of `tokenizer.json` are run by the `tokenizers`
//! crate; this crate adds the tiktoken format, direct encoders and decoders
//! for the configurations real models use, streaming, and an API with
//! errors as values (`docs/tokenizer.md` explains the split).

pub mod added_tokens;
pub mod decoder;
mod error;
pub mod format;
pub mod model;
pub mod normalizer;
mod pipeline;
pub mod post_processor;
pub mod pre_tokenizer;
pub mod stream;

use std::path::Path;
use std::sync::{Arc, OnceLock};

use tokenizers::{PostProcessor, PostProcessorWrapper};

pub use error::{Error, ErrorKind, Result};
pub use stream::{DecodeStream, EncodeStream};

use added_tokens::AddedTokens;
use error::{from_hf, guard};
use pipeline::{Decode, Encode};
use post_processor::Affixes;

/// Options of [`Tokenizer::encode`] and [`Tokenizer::encode_stream`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EncodeOptions {
    /// Add the post-processor's special tokens (e.g. BOS/EOS, CLS/SEP).
    pub add_special_tokens: bool,
    /// Treat special tokens in the text as ordinary text (like tiktoken's
    /// `encode_ordinary`).
    pub no_special_token_matching: bool,
}

/// The ids of well-known special tokens, `None` where not configured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpecialIds {
    /// Beginning of sequence.
    pub bos: Option<u32>,
    /// End of sequence.
    pub eos: Option<u32>,
    /// Unknown token.
    pub unk: Option<u32>,
    /// Padding.
    pub pad: Option<u32>,
    /// Separator.
    pub sep: Option<u32>,
    /// Classification.
    pub cls: Option<u32>,
    /// Mask.
    pub mask: Option<u32>,
}

/// One token of an encoding with its byte span in the input text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenSpan {
    /// The token id.
    pub id: u32,
    /// Byte offsets `start..end` in the input.
    pub start: usize,
    /// End byte offset (exclusive).
    pub end: usize,
    /// The pre-tokenizer segment ("word") the token belongs to.
    pub word: Option<u32>,
}

/// A loaded tokenizer. Immutable and cheap to clone (clones share state);
/// usable from many threads at once.
#[derive(Clone)]
pub struct Tokenizer {
    inner: Arc<Inner>,
}

struct Inner {
    /// The pipeline, without its post-processor (applied separately).
    pipeline: tokenizers::Tokenizer,
    /// The pipeline with special-token matching off, built on first use.
    literal: OnceLock<tokenizers::Tokenizer>,
    post_processor: Option<PostProcessorWrapper>,
    affixes: Option<Affixes>,
    added: AddedTokens,
    model_type: &'static str,
    /// `pipeline.get_vocab_size(true)`, which copies the vocabulary.
    vocab_size: usize,
    /// BPE merge rules in the source (0 for other models).
    merge_count: usize,
    special_ids: SpecialIds,
    /// Direct encoder, for configurations it reproduces (`pipeline.rs`).
    fast_encoder: Option<Arc<dyn Encode>>,
    /// Direct decoder, for configurations it reproduces.
    fast_decoder: Option<Arc<dyn Decode>>,
    /// Per id, whether it is a `<0xNN>` token that the decoder's
    /// ByteFallback step turns into a byte (empty without ByteFallback).
    byte_fallback: Arc<[bool]>,
}

impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokenizer")
            .field("model_type", &self.model_type())
            .field("vocab_size", &self.vocab_size())
            .finish()
    }
}

impl Tokenizer {
    /// Loads a tokenizer file: `*.tiktoken` files as tiktoken (the encoding
    /// named by the file stem, e.g. `cl100k_base.tiktoken`), anything else as
    /// Hugging Face `tokenizer.json`.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let shown = path.display();
        let data = std::fs::read(path).map_err(|e| {
            let kind = match e.kind() {
                std::io::ErrorKind::NotFound => ErrorKind::NotFound,
                _ => ErrorKind::InvalidArgument,
            };
            Error::new(kind, format!("Failed to open file: {shown}: {e}"))
        })?;
        let name = path.to_string_lossy();
        if let Some(without_ext) = name.strip_suffix(".tiktoken") {
            let stem = without_ext
                .rsplit(['/', '\\'])
                .next()
                .unwrap_or(without_ext);
            let encoding = format::tiktoken::encoding_by_name(stem).ok_or_else(|| {
                Error::invalid(format!(
                    "Unknown tiktoken encoding in filename: {shown}. Expected one of: {}",
                    format::tiktoken::ENCODING_NAMES
                ))
            })?;
            return Self::from_tiktoken(&data, encoding.name)
                .map_err(|e| e.context(format!("Failed to load tokenizer: {shown}")));
        }
        let text = std::str::from_utf8(&data).map_err(|e| {
            Error::invalid(format!("Failed to load tokenizer: {shown}; not UTF-8: {e}"))
        })?;
        Self::from_huggingface_json(text)
            .map_err(|e| e.context(format!("Failed to load tokenizer: {shown}")))
    }

    /// Parses a Hugging Face `tokenizer.json` document.
    pub fn from_huggingface_json(json: &str) -> Result<Self> {
        guard("tokenizer.json parse", || {
            let (pipeline, unk, source) = format::huggingface::parse(json)?;
            Self::from_pipeline(pipeline, unk, source)
        })
    }

    /// Parses tiktoken data (`<base64> <rank>` lines) under the named
    /// encoding (`cl100k_base`, `o200k_base`, `o200k_harmony`, `r50k_base`,
    /// `gpt2`, `p50k_base`, `p50k_edit`).
    pub fn from_tiktoken(data: impl AsRef<[u8]>, encoding: &str) -> Result<Self> {
        let config = format::tiktoken::encoding_by_name(encoding).ok_or_else(|| {
            Error::invalid(format!(
                "Unknown tiktoken encoding: {encoding}. Expected one of: {}",
                format::tiktoken::ENCODING_NAMES
            ))
        })?;
        guard("tiktoken parse", || {
            let (pipeline, source) = format::tiktoken::build(data.as_ref(), config)?;
            Self::from_pipeline(pipeline, None, Some(source))
        })
    }

    fn from_pipeline(
        mut pipeline: tokenizers::Tokenizer,
        unk: Option<u32>,
        source: Option<model::byte_bpe::BpeSource>,
    ) -> Result<Self> {
        use tokenizers::models::ModelWrapper;
        let model_type = match pipeline.get_model() {
            ModelWrapper::BPE(_) => "BPE",
            ModelWrapper::WordPiece(_) => "WordPiece",
            ModelWrapper::WordLevel(_) => "WordLevel",
            ModelWrapper::Unigram(_) => "Unigram",
        };
        // Truncation and padding are batch-shaping options of the Python
        // `tokenizers` package; IREE's tokenizer does not apply them.
        pipeline
            .with_truncation(None)
            .map_err(|e| from_hf(ErrorKind::Internal, e))?;
        pipeline.with_padding(None);
        let post_processor = pipeline.get_post_processor().cloned();
        pipeline.with_post_processor(None::<PostProcessorWrapper>);
        let affixes = post_processor.as_ref().and_then(post_processor::affixes_of);
        let added = AddedTokens::of(&pipeline);
        let fast_encoder = pipeline::encoder(&pipeline, source.as_ref());
        let fast_decoder = pipeline::decoder(&pipeline);
        let vocab_size = pipeline.get_vocab_size(true);
        let byte_fallback = decoder::byte_fallback_tokens(&pipeline).into();
        let merge_count = match model_type {
            "BPE" => source.as_ref().map_or(0, |source| source.merges.len()),
            _ => 0,
        };
        Ok(Tokenizer {
            inner: Arc::new(Inner {
                pipeline,
                literal: OnceLock::new(),
                post_processor,
                affixes,
                added,
                model_type,
                vocab_size,
                merge_count,
                special_ids: SpecialIds {
                    unk,
                    ..SpecialIds::default()
                },
                fast_encoder,
                fast_decoder,
                byte_fallback,
            }),
        })
    }

    fn pipeline(&self, match_special: bool) -> &tokenizers::Tokenizer {
        if match_special {
            return &self.inner.pipeline;
        }
        self.inner.literal.get_or_init(|| {
            let mut literal = self.inner.pipeline.clone();
            literal.set_encode_special_tokens(true);
            literal
        })
    }

    /// Encodes `text` to token ids.
    pub fn encode(&self, text: &str, options: EncodeOptions) -> Result<Vec<u32>> {
        if let Some(fast) = &self.inner.fast_encoder {
            let affixes = self
                .inner
                .affixes
                .as_ref()
                .filter(|_| options.add_special_tokens);
            let mut ids = Vec::with_capacity(text.len() / 3 + 4);
            if let Some(affixes) = affixes {
                ids.extend_from_slice(&affixes.prefix);
            }
            guard("encode", || {
                fast.encode_ids(text, !options.no_special_token_matching, &mut ids);
                Ok(())
            })?;
            if let Some(affixes) = affixes {
                ids.extend_from_slice(&affixes.suffix);
            }
            if options.add_special_tokens
                && affixes.is_none()
                && self.inner.post_processor.is_some()
            {
                // A post-processor whose output is not prefix + ids + suffix.
                return self.encode_general(text, options);
            }
            return Ok(ids);
        }
        self.encode_general(text, options)
    }

    fn encode_general(&self, text: &str, options: EncodeOptions) -> Result<Vec<u32>> {
        guard("encode", || {
            let encoding = self
                .pipeline(!options.no_special_token_matching)
                .encode_fast(text, false)
                .map_err(|e| from_hf(ErrorKind::InvalidArgument, e))?;
            if !options.add_special_tokens {
                return Ok(encoding.get_ids().to_vec());
            }
            self.add_special_tokens(encoding)
        })
    }

    fn add_special_tokens(&self, encoding: tokenizers::Encoding) -> Result<Vec<u32>> {
        if let Some(affixes) = &self.inner.affixes {
            let ids = encoding.get_ids();
            let mut out =
                Vec::with_capacity(affixes.prefix.len() + ids.len() + affixes.suffix.len());
            out.extend_from_slice(&affixes.prefix);
            out.extend_from_slice(ids);
            out.extend_from_slice(&affixes.suffix);
            return Ok(out);
        }
        match &self.inner.post_processor {
            Some(processor) => Ok(processor
                .process(encoding, None, true)
                .map_err(|e| from_hf(ErrorKind::InvalidArgument, e))?
                .get_ids()
                .to_vec()),
            None => Ok(encoding.get_ids().to_vec()),
        }
    }

    /// Encodes several texts (in parallel where it pays).
    pub fn encode_batch<S: AsRef<str> + Sync>(
        &self,
        texts: &[S],
        options: EncodeOptions,
    ) -> Result<Vec<Vec<u32>>> {
        let total: usize = texts.iter().map(|t| t.as_ref().len()).sum();
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        if texts.len() < 2 || total < (64 << 10) || threads < 2 {
            return texts
                .iter()
                .map(|t| self.encode(t.as_ref(), options))
                .collect();
        }
        // Texts are handed out CHUNK at a time, so a slow stretch of texts
        // does not leave a thread idle; the calling thread works too, with
        // its warm piece cache.
        const CHUNK: usize = 32;
        let next = std::sync::atomic::AtomicUsize::new(0);
        let work = || {
            let mut done = Vec::new();
            loop {
                let start = next.fetch_add(CHUNK, std::sync::atomic::Ordering::Relaxed);
                if start >= texts.len() {
                    return done;
                }
                let end = (start + CHUNK).min(texts.len());
                for (i, text) in texts[start..end].iter().enumerate() {
                    done.push((start + i, self.encode(text.as_ref(), options)));
                }
            }
        };
        std::thread::scope(|scope| {
            let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
            let mut results: Vec<Option<Result<Vec<u32>>>> = Vec::new();
            results.resize_with(texts.len(), || None);
            for (i, result) in work() {
                results[i] = Some(result);
            }
            for helper in helpers {
                let done = helper
                    .join()
                    .map_err(|_| Error::new(ErrorKind::Internal, "encode worker panicked"))?;
                for (i, result) in done {
                    results[i] = Some(result);
                }
            }
            results
                .into_iter()
                .map(|r| {
                    r.unwrap_or_else(|| Err(Error::new(ErrorKind::Internal, "text not encoded")))
                })
                .collect()
        })
    }

    /// Encodes `text` (without post-processor tokens) and returns each
    /// token's byte span and segment.
    pub fn encode_spans(&self, text: &str, match_special_tokens: bool) -> Result<Vec<TokenSpan>> {
        if let Some(fast) = &self.inner.fast_encoder {
            let mut spans = Vec::new();
            guard("encode", || {
                fast.encode(text, match_special_tokens, &mut spans);
                Ok(())
            })?;
            return Ok(spans);
        }
        let encoding = guard("encode", || {
            self.pipeline(match_special_tokens)
                .encode(text, false)
                .map_err(|e| from_hf(ErrorKind::InvalidArgument, e))
        })?;
        Ok(encoding
            .get_ids()
            .iter()
            .zip(encoding.get_offsets())
            .zip(encoding.get_word_ids())
            .map(|((&id, &(start, end)), &word)| TokenSpan {
                id,
                start,
                end,
                word,
            })
            .collect())
    }

    /// Decodes token ids to text. Ids outside the vocabulary are skipped;
    /// byte sequences that are not UTF-8 become U+FFFD.
    pub fn decode(&self, ids: &[u32], skip_special_tokens: bool) -> Result<String> {
        if ids.is_empty() {
            return Ok(String::new());
        }
        if let Some(fast) = &self.inner.fast_decoder {
            return guard("decode", || Ok(fast.decode(ids, skip_special_tokens)));
        }
        guard("decode", || {
            self.inner
                .pipeline
                .decode(ids, skip_special_tokens)
                .map_err(|e| from_hf(ErrorKind::InvalidArgument, e))
        })
    }

    /// The bytes whose lossy UTF-8 reading is [`Tokenizer::decode`]: for a
    /// caller that turns them into a string elsewhere and validates them
    /// there once (the Python binding).
    pub fn decode_bytes(&self, ids: &[u32], skip_special_tokens: bool) -> Result<Vec<u8>> {
        if let Some(fast) = &self.inner.fast_decoder {
            return guard("decode", || Ok(fast.decode_bytes(ids, skip_special_tokens)));
        }
        self.decode(ids, skip_special_tokens)
            .map(String::into_bytes)
    }

    /// A streaming encoder: feed text in chunks, get ids as they are final.
    pub fn encode_stream(&self, options: EncodeOptions) -> EncodeStream {
        EncodeStream::new(self.clone(), options)
    }

    /// A streaming decoder: feed ids, get text as it is complete.
    pub fn decode_stream(&self, skip_special_tokens: bool) -> DecodeStream {
        DecodeStream::new(self.clone(), skip_special_tokens)
    }

    /// The number of tokens in the vocabulary, added tokens included.
    pub fn vocab_size(&self) -> usize {
        self.inner.vocab_size
    }

    /// The model's name: `BPE`, `WordPiece`, `WordLevel` or `Unigram`.
    pub fn model_type(&self) -> &'static str {
        self.inner.model_type
    }

    /// One more than the largest token id, added tokens included (upstream's
    /// vocabulary "capacity", which `iree-tokenize --info` reports as
    /// `vocab_size`). Equals [`vocab_size`](Self::vocab_size) unless the ids
    /// have gaps (tiktoken special tokens far above the ranks, for example).
    /// Walks the vocabulary on each call.
    pub fn vocab_capacity(&self) -> usize {
        self.inner
            .pipeline
            .get_vocab(true)
            .values()
            .max()
            .map_or(0, |&id| id as usize + 1)
    }

    /// The number of merge rules of a BPE model as its file gives them (for
    /// a tiktoken file: the merges reconstructed from its ranks); 0 for
    /// other models.
    pub fn merge_count(&self) -> usize {
        self.inner.merge_count
    }

    /// The vocabulary string of token `id`.
    pub fn id_to_token(&self, id: u32) -> Option<String> {
        self.inner.pipeline.id_to_token(id)
    }

    /// The id of the vocabulary string `token`.
    pub fn token_to_id(&self, token: &str) -> Option<u32> {
        self.inner.pipeline.token_to_id(token)
    }

    /// The well-known special token ids.
    pub fn special_ids(&self) -> SpecialIds {
        self.inner.special_ids
    }

    /// The post-processor's tokens around a single sequence, if it adds any.
    pub fn affixes(&self) -> Option<&Affixes> {
        self.inner.affixes.as_ref()
    }

    /// This tokenizer as a Hugging Face `tokenizer.json` document (for a
    /// tiktoken file: its byte-level BPE form).
    pub fn to_huggingface_json(&self, pretty: bool) -> Result<String> {
        let mut full = self.inner.pipeline.clone();
        full.with_post_processor(self.inner.post_processor.clone());
        full.to_string(pretty)
            .map_err(|e| from_hf(ErrorKind::Internal, e))
    }

    /// A copy that runs everything through the general pipeline (no
    /// byte-level fast paths); for tests that compare the two.
    #[doc(hidden)]
    pub fn general_pipeline_only(&self) -> Tokenizer {
        let inner = &self.inner;
        Tokenizer {
            inner: Arc::new(Inner {
                pipeline: inner.pipeline.clone(),
                literal: OnceLock::new(),
                post_processor: inner.post_processor.clone(),
                affixes: inner.affixes.clone(),
                added: inner.added.clone(),
                model_type: inner.model_type,
                vocab_size: inner.vocab_size,
                merge_count: inner.merge_count,
                special_ids: inner.special_ids,
                fast_encoder: None,
                fast_decoder: None,
                byte_fallback: inner.byte_fallback.clone(),
            }),
        }
    }

    /// Whether encode and decode take the direct paths (`pipeline.rs`)
    /// instead of the general pipeline.
    pub fn uses_fast_paths(&self) -> (bool, bool) {
        (
            self.inner.fast_encoder.is_some(),
            self.inner.fast_decoder.is_some(),
        )
    }

    /// The direct decoder, if it is a concatenation of per-id bytes
    /// (see `Decode::is_concatenation`).
    pub(crate) fn concatenating_decoder(&self) -> Option<&dyn Decode> {
        self.inner
            .fast_decoder
            .as_deref()
            .filter(|d| d.is_concatenation())
    }

    /// Whether `id` is a byte token of a ByteFallback decoder.
    pub(crate) fn is_byte_fallback_token(&self, id: u32) -> bool {
        self.inner
            .byte_fallback
            .get(id as usize)
            .copied()
            .unwrap_or(false)
    }

    /// The added tokens (matched in raw text).
    pub fn added_tokens(&self) -> &AddedTokens {
        &self.inner.added
    }
}
