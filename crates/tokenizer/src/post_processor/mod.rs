//! Post-processors: the special tokens placed around an encoded sequence
//! (e.g. `[CLS] ... [SEP]`, `<s> ... </s>`), applied when
//! `add_special_tokens` is requested.

use tokenizers::{Encoding, PostProcessor, Token};

/// The tokens a post-processor puts before and after a single sequence.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Affixes {
    /// Tokens before the sequence.
    pub prefix: Vec<u32>,
    /// Tokens after the sequence.
    pub suffix: Vec<u32>,
}

/// The affixes `processor` adds to a single sequence, or `None` when its
/// output is not "prefix, sequence, suffix".
pub(crate) fn affixes_of(processor: &impl PostProcessor) -> Option<Affixes> {
    const PROBE: u32 = u32::MAX;
    let probe = Encoding::from_tokens(vec![Token::new(PROBE, String::new(), (0, 0))], 0);
    let processed = processor.process(probe, None, true).ok()?;
    let ids = processed.get_ids();
    let at = ids.iter().position(|&id| id == PROBE)?;
    if ids[at + 1..].contains(&PROBE) {
        return None;
    }
    Some(Affixes {
        prefix: ids[..at].to_vec(),
        suffix: ids[at + 1..].to_vec(),
    })
}
