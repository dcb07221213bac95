//! SentencePiece-style normalizers: Prepend, Replace (string pattern) and
//! Precompiled (a SentencePiece charsmap), alone or in a Sequence, as the
//! `tokenizers` crate applies them. Each output byte records the input byte
//! offset of the text it came from, so that encoders can report spans in
//! the input.

use serde_json::Value;
use spm_precompiled::Precompiled;
use unicode_segmentation::UnicodeSegmentation;

/// One normalizer step.
enum Step {
    /// Prepends the string to non-empty text.
    Prepend(String),
    /// Replaces every (non-overlapping, leftmost) occurrence of `pattern`.
    Replace { pattern: String, content: String },
    /// Replaces every match of a regex that cannot match empty text.
    ReplaceRegex {
        regex: fancy_regex::Regex,
        content: String,
    },
    /// Removes whitespace at the start and/or the end.
    Strip { left: bool, right: bool },
    /// SentencePiece's charsmap, applied per grapheme then per character.
    Precompiled(Box<Charsmap>),
}

/// A sequence of normalizer steps.
pub(crate) struct SpNormalizer {
    steps: Vec<Step>,
}

/// Text with, per byte, the input offset it came from.
#[derive(Default)]
pub(crate) struct Mapped {
    /// The text.
    pub text: String,
    /// Per byte of `text`: the input byte offset of its source.
    pub origin: Vec<usize>,
}

impl Mapped {
    /// Clears text and offsets.
    pub fn clear(&mut self) {
        self.text.clear();
        self.origin.clear();
    }

    /// Appends `s`, every byte coming from input offset `from`.
    pub fn push(&mut self, s: &str, from: usize) {
        self.text.push_str(s);
        self.origin.extend(std::iter::repeat_n(from, s.len()));
    }

    /// Appends `source[start..end]` with its own offsets.
    pub fn copy(&mut self, source: &Mapped, start: usize, end: usize) {
        self.copy_from(&source.text, &source.origin, start, end);
    }

    /// Appends `text[start..end]` with the offsets `origin[start..end]`.
    pub fn copy_from(&mut self, text: &str, origin: &[usize], start: usize, end: usize) {
        self.text.push_str(&text[start..end]);
        self.origin.extend_from_slice(&origin[start..end]);
    }
}

impl SpNormalizer {
    /// The normalizer for a tokenizer.json `normalizer` (canonical form);
    /// `None` where a step is not one of those reproduced here. A missing
    /// normalizer is an empty sequence.
    pub(crate) fn from_json(normalizer: Option<&Value>) -> Option<SpNormalizer> {
        let mut steps = Vec::new();
        if let Some(normalizer) = normalizer {
            push_steps(normalizer, &mut steps)?;
        }
        Some(SpNormalizer { steps })
    }

    /// Whether there is no step.
    pub(crate) fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Normalizes `text` (its bytes at input offsets `base..`) into `out`
    /// (cleared first); `scratch` is working space.
    pub(crate) fn normalize(
        &self,
        text: &str,
        base: usize,
        out: &mut Mapped,
        scratch: &mut Mapped,
    ) {
        out.clear();
        out.text.push_str(text);
        out.origin.extend(base..base + text.len());
        for step in &self.steps {
            scratch.clear();
            match step {
                Step::Prepend(prefix) => prepend(prefix, out, scratch),
                Step::Replace { pattern, content } => replace(pattern, content, out, scratch),
                Step::Precompiled(map) => charsmap(map, out, scratch),
                Step::ReplaceRegex { regex, content } => {
                    replace_regex(regex, content, out, scratch)
                }
                Step::Strip { left, right } => strip(*left, *right, out, scratch),
            }
            std::mem::swap(out, scratch);
        }
    }

    /// The normalized form of an added token's content.
    pub(crate) fn normalize_str(&self, text: &str) -> String {
        let (mut out, mut scratch) = (Mapped::default(), Mapped::default());
        self.normalize(text, 0, &mut out, &mut scratch);
        out.text
    }
}

fn push_steps(normalizer: &Value, steps: &mut Vec<Step>) -> Option<()> {
    match normalizer.get("type")?.as_str()? {
        "Sequence" => {
            for inner in normalizer.get("normalizers")?.as_array()? {
                push_steps(inner, steps)?;
            }
        }
        "Prepend" => steps.push(Step::Prepend(
            normalizer.get("prepend")?.as_str()?.to_string(),
        )),
        "Replace" => {
            let content = normalizer.get("content")?.as_str()?.to_string();
            let pattern = normalizer.get("pattern")?;
            if let Some(regex) = pattern.get("Regex") {
                let regex = simple_regex(regex.as_str()?)?;
                steps.push(Step::ReplaceRegex { regex, content });
            } else {
                let pattern = pattern.get("String")?.as_str()?;
                if pattern.is_empty() {
                    return None;
                }
                let pattern = pattern.to_string();
                steps.push(Step::Replace { pattern, content });
            }
        }
        "Strip" => steps.push(Step::Strip {
            left: normalizer.get("strip_left")?.as_bool()?,
            right: normalizer.get("strip_right")?.as_bool()?,
        }),
        "Precompiled" => {
            // Its deserializer borrows the base64 text: from a string.
            let map: Precompiled = serde_json::from_str(&normalizer.to_string()).ok()?;
            steps.push(Step::Precompiled(Box::new(Charsmap::new(map))));
        }
        _ => return None,
    }
    Some(())
}

fn prepend(prefix: &str, input: &Mapped, out: &mut Mapped) {
    if let Some(&first) = input.origin.first() {
        out.push(prefix, first);
        out.copy(input, 0, input.text.len());
    }
}

fn replace(pattern: &str, content: &str, input: &Mapped, out: &mut Mapped) {
    let mut at = 0;
    for (start, matched) in input.text.match_indices(pattern) {
        out.copy(input, at, start);
        out.push(content, input.origin[start]);
        at = start + matched.len();
    }
    out.copy(input, at, input.text.len());
}

/// A Replace regex without anchors, word boundaries, lookaround or
/// backreferences that does not match empty text (so that its matches are
/// the same wherever the text is cut), compiled as the crate compiles it.
fn simple_regex(pattern: &str) -> Option<fancy_regex::Regex> {
    if pattern.contains(['^', '$', '\\']) || pattern.contains("(?") {
        return None;
    }
    let regex = fancy_regex::Regex::new(pattern).ok()?;
    (!regex.is_match("").ok()?).then_some(regex)
}

fn replace_regex(regex: &fancy_regex::Regex, content: &str, input: &Mapped, out: &mut Mapped) {
    let mut at = 0;
    for m in regex.find_iter(&input.text) {
        let Ok(m) = m else { break };
        out.copy(input, at, m.start());
        out.push(content, input.origin[m.start()]);
        at = m.end();
    }
    out.copy(input, at, input.text.len());
}

fn strip(left: bool, right: bool, input: &Mapped, out: &mut Mapped) {
    let mut text = input.text.as_str();
    if left {
        text = text.trim_start_matches(char::is_whitespace);
    }
    let start = input.text.len() - text.len();
    if right {
        text = text.trim_end_matches(char::is_whitespace);
    }
    out.copy(input, start, start + text.len());
}

/// Whether every lookup `spm_precompiled` can make in the charsmap `bytes`
/// (decoded base64) stays inside its trie and its normalized strings: its
/// lookups index without checks and panic on a malformed map. The walk
/// follows its double array from the root over every byte, as
/// `DoubleArray::common_prefix_search` and `Precompiled::transform` read it.
pub(crate) fn charsmap_is_safe(bytes: &[u8]) -> bool {
    let Some((header, rest)) = bytes.split_first_chunk::<4>() else {
        return false;
    };
    let trie_size = u32::from_le_bytes(*header) as usize;
    if trie_size > rest.len() {
        return false;
    }
    let (trie, normalized) = rest.split_at(trie_size);
    let units: Vec<usize> = trie
        .chunks_exact(4)
        .map(|u| u32::from_le_bytes([u[0], u[1], u[2], u[3]]) as usize)
        .collect();
    let Ok(normalized) = std::str::from_utf8(normalized) else {
        return false;
    };
    let offset = |u: usize| (u >> 10) << ((u & (1 << 9)) >> 6);
    let Some(&root) = units.first() else {
        return false;
    };
    let mut seen = vec![false; (units.len() | 0xFF) + 1];
    let mut pending = vec![offset(root)];
    while let Some(node) = pending.pop() {
        match seen.get_mut(node) {
            None => return false,
            Some(true) => continue,
            Some(visited) => *visited = true,
        }
        for c in 1..=255usize {
            let Some(&unit) = units.get(node ^ c) else {
                return false;
            };
            if unit & ((1 << 31) | 0xFF) != c {
                continue;
            }
            let next = node ^ c ^ offset(unit);
            if (unit >> 8) & 1 == 1 {
                let Some(&leaf) = units.get(next) else {
                    return false;
                };
                let index = leaf & ((1 << 31) - 1);
                if !normalized.is_char_boundary(index) {
                    return false;
                }
            }
            pending.push(next);
        }
    }
    true
}

/// A charsmap with the ASCII characters it leaves alone.
pub(crate) struct Charsmap {
    map: Precompiled,
    ascii_kept: [bool; 128],
}

impl Charsmap {
    fn new(map: Precompiled) -> Charsmap {
        // Loading checked that lookups stay inside the map
        // (`charsmap_is_safe`).
        let kept = |b: u8| {
            map.transform(char::from(b).encode_utf8(&mut [0; 4]))
                .is_none()
        };
        let ascii_kept = std::array::from_fn(|b| kept(b as u8));
        Charsmap { map, ascii_kept }
    }

    /// Whether the byte at `at` is an ASCII character that is a grapheme of
    /// its own (the next character is ASCII, and not CR LF) and that the
    /// map leaves alone: copied as is.
    fn kept(&self, bytes: &[u8], at: usize) -> bool {
        let b = bytes[at];
        b.is_ascii()
            && self.ascii_kept[b as usize]
            && bytes
                .get(at + 1)
                .is_none_or(|&next| next.is_ascii() && !(b == b'\r' && next == b'\n'))
    }
}

/// The charsmap as `tokenizers` applies it: a grapheme shorter than 6 bytes
/// that the map knows is replaced whole, otherwise each of its characters
/// that the map knows is. Runs of ASCII characters that are graphemes of
/// their own and that the map keeps are copied directly.
fn charsmap(map: &Charsmap, input: &Mapped, out: &mut Mapped) {
    let bytes = input.text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let start = at;
        while at < bytes.len() && map.kept(bytes, at) {
            at += 1;
        }
        out.copy(input, start, at);
        if at == bytes.len() {
            break;
        }
        // The rest up to a grapheme boundary between two ASCII characters.
        let mut end = at + 1;
        while end < bytes.len()
            && !(bytes[end - 1].is_ascii()
                && bytes[end].is_ascii()
                && !(bytes[end - 1] == b'\r' && bytes[end] == b'\n'))
        {
            end += 1;
        }
        charsmap_graphemes(&map.map, input, at, end, out);
        at = end;
    }
}

/// The charsmap on `input.text[from..to]`, grapheme by grapheme.
fn charsmap_graphemes(map: &Precompiled, input: &Mapped, from: usize, to: usize, out: &mut Mapped) {
    for (offset, grapheme) in input.text[from..to].grapheme_indices(true) {
        let start = from + offset;
        if grapheme.len() < 6 {
            if let Some(norm) = map.transform(grapheme) {
                out.push(norm, input.origin[start]);
                continue;
            }
        }
        for (offset, c) in grapheme.char_indices() {
            let at = start + offset;
            let part = &grapheme[offset..offset + c.len_utf8()];
            match map.transform(part) {
                Some(norm) => out.push(norm, input.origin[at]),
                None => out.copy(input, at, at + part.len()),
            }
        }
    }
}
