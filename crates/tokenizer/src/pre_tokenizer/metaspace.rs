//! The Metaspace pre-tokenizer: spaces become the replacement character
//! (`▁`), which is prepended to a piece by the prepend scheme and, with
//! `split`, starts each piece (the `tokenizers` crate's MergedWithNext).

use serde_json::Value;

use crate::normalizer::sentencepiece::Mapped;

/// When the replacement character is prepended to a piece of text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PrependScheme {
    /// Before every piece not starting with it.
    Always,
    /// Before the piece at the start of the input only.
    First,
    /// Never.
    Never,
}

/// The Metaspace configuration.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Metaspace {
    pub replacement: char,
    pub prepend: PrependScheme,
    pub split: bool,
}

impl Metaspace {
    /// Reads a tokenizer.json Metaspace object (canonical form, as the
    /// pre-tokenizer or the decoder).
    pub(crate) fn from_json(value: &Value) -> Option<Metaspace> {
        if value.get("type")?.as_str()? != "Metaspace" {
            return None;
        }
        let mut chars = value.get("replacement")?.as_str()?.chars();
        let replacement = chars.next()?;
        if chars.next().is_some() {
            return None;
        }
        let prepend = match value.get("prepend_scheme")?.as_str()? {
            "always" => PrependScheme::Always,
            "first" => PrependScheme::First,
            "never" => PrependScheme::Never,
            _ => return None,
        };
        let split = value.get("split")?.as_bool()?;
        Some(Metaspace {
            replacement,
            prepend,
            split,
        })
    }

    /// Pre-tokenizes `text` (normalized text of one section, with the input
    /// offset of each byte in `origin`) into `out`
    /// (cleared first), appending the byte ranges of its pieces in `out` to
    /// `pieces`. `at_input_start`: the text begins at input offset 0 (the
    /// `first` scheme).
    pub(crate) fn pre_tokenize(
        &self,
        text: &str,
        origin: &[usize],
        at_input_start: bool,
        out: &mut Mapped,
        pieces: &mut Vec<(usize, usize)>,
    ) {
        out.clear();
        let mut utf8 = [0u8; 4];
        let rep: &str = self.replacement.encode_utf8(&mut utf8);
        let prepend = match self.prepend {
            PrependScheme::Always => true,
            PrependScheme::First => at_input_start,
            PrependScheme::Never => false,
        };
        // The replacement of spaces, then the prepend test on its result.
        let starts_with_rep = text
            .chars()
            .next()
            .is_some_and(|c| c == ' ' || c == self.replacement);
        if prepend && !starts_with_rep && !text.is_empty() {
            out.push(rep, origin[0]);
        }
        let mut at = 0;
        for (start, _) in text.match_indices(' ') {
            out.copy_from(text, origin, at, start);
            out.push(rep, origin[start]);
            at = start + 1;
        }
        out.copy_from(text, origin, at, text.len());
        if !self.split {
            if !out.text.is_empty() {
                pieces.push((0, out.text.len()));
            }
            return;
        }
        let mut start = 0;
        for (at, _) in out.text.match_indices(rep) {
            if at > start {
                pieces.push((start, at));
            }
            start = at;
        }
        if out.text.len() > start {
            pieces.push((start, out.text.len()));
        }
    }
}
