//! BERT's normalizer (`BertNormalizer`) and the per-character normalizers it
//! is made of (`Lowercase`, `NFD`, `NFKD`, `StripAccents`), alone or in a
//! `Sequence`, with the `tokenizers` crate's semantics: the same character
//! tables (its `unicode_categories` and `unicode-normalization-alignments`
//! dependencies) and the same alignment of each output character to an
//! input character (`NormalizedString::transform`), which decides the spans.

use std::collections::VecDeque;

use tokenizers::NormalizerWrapper;
use unicode_categories::UnicodeCategories;
use unicode_normalization_alignments::char::{
    canonical_combining_class, decompose_canonical, decompose_compatible, is_combining_mark,
};

/// One per-character step, applied to the whole text before the next one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// BertNormalizer's `clean_text`: drop NUL, U+FFFD and control
    /// characters, turn whitespace into a space.
    CleanText,
    /// BertNormalizer's `handle_chinese_chars`: a space on both sides of
    /// each CJK ideograph.
    SpaceCjk,
    /// NFD (canonical) or NFKD (compatibility) decomposition, combining
    /// marks in canonical order.
    Decompose { compatible: bool },
    /// BertNormalizer's accent stripping (after NFD): drop nonspacing marks.
    DropNonspacingMarks,
    /// The StripAccents normalizer: drop combining marks.
    DropCombiningMarks,
    /// `char::to_lowercase`.
    Lowercase,
}

/// A character and the input offset of the character it is aligned to.
type Item = (char, usize);

/// A run of normalized bytes from `out` on: copied from consecutive input
/// bytes from `input` on, or all aligned to the input character at `input`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    out: usize,
    input: usize,
    copied: bool,
}

/// Where each byte of a normalized text comes from, as runs.
#[derive(Clone, Debug, Default)]
pub(crate) struct Alignments {
    runs: Vec<Run>,
}

impl Alignments {
    /// Forgets all runs.
    pub(crate) fn clear(&mut self) {
        self.runs.clear();
    }

    /// Normalized bytes from `out` on are copies of input bytes from `input`
    /// on (until the next run).
    pub(crate) fn copied(&mut self, out: usize, input: usize) {
        self.runs.push(Run {
            out,
            input,
            copied: true,
        });
    }

    /// Normalized bytes from `out` on are aligned to the input character at
    /// `input` (until the next run).
    fn aligned(&mut self, out: usize, input: usize) {
        if let Some(last) = self.runs.last() {
            if !last.copied && last.input == input {
                return;
            }
        }
        self.runs.push(Run {
            out,
            input,
            copied: false,
        });
    }

    /// The input offset that normalized byte `out` comes from (for a copied
    /// multi-byte character, possibly inside it). `run` is where to start
    /// looking, updated for the next call: calls with increasing `out` walk
    /// the runs once.
    pub(crate) fn source(&self, out: usize, run: &mut usize) -> usize {
        if self.runs.get(*run).is_none_or(|r| r.out > out) {
            *run = self
                .runs
                .partition_point(|r| r.out <= out)
                .saturating_sub(1);
        }
        while self.runs.get(*run + 1).is_some_and(|r| r.out <= out) {
            *run += 1;
        }
        match self.runs.get(*run) {
            Some(r) if r.copied => r.input + out.saturating_sub(r.out),
            Some(r) => r.input,
            None => 0,
        }
    }
}

/// BertNormalizer's whitespace: `\t`, `\n`, `\r` and Unicode whitespace.
fn is_bert_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

/// BertNormalizer's control characters: Unicode "other" (C*) but for
/// `\t`, `\n`, `\r`.
fn is_bert_control(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r') && c.is_other()
}

/// The CJK ideograph blocks BertNormalizer puts spaces around.
fn is_cjk_ideograph(c: char) -> bool {
    matches!(
        c as u32,
        0x4E00..=0x9FFF
            | 0x3400..=0x4DBF
            | 0x20000..=0x2A6DF
            | 0x2A700..=0x2B73F
            | 0x2B740..=0x2B81F
            | 0x2B920..=0x2CEAF
            | 0xF900..=0xFAFF
            | 0x2F800..=0x2FA1F
    )
}

/// The decomposition stage: a block (a starter and the combining marks after
/// it) is held until the next starter and then emitted sorted by combining
/// class, as `unicode-normalization-alignments` does. Output characters are
/// aligned by position, as `NormalizedString::transform` aligns them: the
/// first character of each decomposition takes the next input character's
/// alignment, the others the alignment of the last one taken.
#[derive(Debug, Default)]
struct Decomposer {
    /// Combining class, character, first of its decomposition.
    pending: Vec<(u8, char, bool)>,
    /// Alignments of the characters fed and not yet taken.
    sources: VecDeque<usize>,
    last: usize,
}

impl Decomposer {
    fn push(&mut self, (c, align): Item, compatible: bool, out: &mut Vec<Item>) {
        self.sources.push_back(align);
        let mut first = true;
        let mut accept = |d: char| {
            let class = canonical_combining_class(d);
            if class == 0 {
                self.release(out);
            }
            self.pending.push((class, d, first));
            first = false;
        };
        if compatible {
            decompose_compatible(c, &mut accept);
        } else {
            decompose_canonical(c, &mut accept);
        }
        // A lone starter cannot move: emit it now.
        if let [(0, _, _)] = self.pending.as_slice() {
            self.release(out);
        }
    }

    /// Emits the held block in canonical order.
    fn release(&mut self, out: &mut Vec<Item>) {
        self.pending.sort_by_key(|&(class, _, _)| class);
        for &(_, d, first) in &self.pending {
            if first {
                self.last = self.sources.pop_front().unwrap_or(self.last);
            }
            out.push((d, self.last));
        }
        self.pending.clear();
    }
}

/// Scratch state of one normalization.
#[derive(Debug, Default)]
struct State {
    current: Vec<Item>,
    next: Vec<Item>,
    /// One per step (used by decomposition steps only).
    decomposers: Vec<Decomposer>,
}

impl State {
    fn holds_characters(&self) -> bool {
        self.decomposers.iter().any(|d| !d.pending.is_empty())
    }
}

/// A normalizer made of per-character steps.
#[derive(Clone, Debug)]
pub(crate) struct BertNormalizer {
    steps: Vec<Step>,
    /// What each ASCII character becomes when no decomposition holds
    /// characters (`None`: dropped); `None` if some ASCII character becomes
    /// anything but one ASCII character or nothing.
    ascii: Option<[Option<u8>; 128]>,
}

impl BertNormalizer {
    /// The normalizer for `normalizer`, if it is made only of the steps
    /// implemented here.
    pub(crate) fn from_wrapper(normalizer: &NormalizerWrapper) -> Option<BertNormalizer> {
        let mut steps = Vec::new();
        collect_steps(normalizer, &mut steps)?;
        let mut this = BertNormalizer { steps, ascii: None };
        this.ascii = this.ascii_table();
        Some(this)
    }

    fn ascii_table(&self) -> Option<[Option<u8>; 128]> {
        let mut table = [None; 128];
        let mut out = String::new();
        for b in 0..128u8 {
            out.clear();
            self.normalize_slowly(&[b], &mut out, &mut Alignments::default());
            table[b as usize] = match out.as_bytes() {
                [] => None,
                [o] if o.is_ascii() => Some(*o),
                _ => return None,
            };
        }
        Some(table)
    }

    /// Appends the normalized form of `text` to `out` and, with
    /// `alignments`, where each byte appended comes from (by position in
    /// `out`, as offsets in `text`).
    pub(crate) fn normalize(
        &self,
        text: &str,
        out: &mut String,
        alignments: Option<&mut Alignments>,
    ) {
        let mut scratch = Alignments::default();
        let alignments = alignments.unwrap_or(&mut scratch);
        let Some(ascii) = &self.ascii else {
            return self.normalize_slowly(text.as_bytes(), out, alignments);
        };
        out.reserve(text.len());
        let mut state = self.state();
        let mut holding = false;
        // Whether the last byte appended was copied from the byte before `at`.
        let mut copying = false;
        let mut at = 0;
        while let Some(&b) = text.as_bytes().get(at) {
            if b.is_ascii() && !holding {
                match ascii[b as usize] {
                    Some(o) => {
                        if !copying {
                            alignments.copied(out.len(), at);
                            copying = true;
                        }
                        out.push(char::from(o));
                    }
                    None => copying = false,
                }
                at += 1;
                continue;
            }
            copying = false;
            let Some(c) = text[at..].chars().next() else {
                break;
            };
            self.feed(&mut state, (c, at), out, alignments);
            holding = state.holds_characters();
            at += c.len_utf8();
        }
        self.finish(&mut state, out, alignments);
    }

    /// `normalize` one character at a time (`text` is UTF-8; bytes so that
    /// the ASCII table can be built from single bytes).
    fn normalize_slowly(&self, text: &[u8], out: &mut String, alignments: &mut Alignments) {
        let text = String::from_utf8_lossy(text);
        let mut state = self.state();
        for (at, c) in text.char_indices() {
            self.feed(&mut state, (c, at), out, alignments);
        }
        self.finish(&mut state, out, alignments);
    }

    fn state(&self) -> State {
        State {
            decomposers: self.steps.iter().map(|_| Decomposer::default()).collect(),
            ..State::default()
        }
    }

    /// Runs one input character through all steps.
    fn feed(&self, state: &mut State, item: Item, out: &mut String, alignments: &mut Alignments) {
        state.current.clear();
        state.current.push(item);
        self.run(0, state, out, alignments);
    }

    /// Emits what decompositions still hold, through the steps after them.
    fn finish(&self, state: &mut State, out: &mut String, alignments: &mut Alignments) {
        for k in 0..self.steps.len() {
            if matches!(self.steps[k], Step::Decompose { .. }) {
                state.current.clear();
                state.decomposers[k].release(&mut state.current);
                self.run(k + 1, state, out, alignments);
            }
        }
    }

    /// Runs `state.current` through the steps from `from` on and appends
    /// what comes out.
    fn run(&self, from: usize, state: &mut State, out: &mut String, alignments: &mut Alignments) {
        for (k, step) in self.steps.iter().enumerate().skip(from) {
            if state.current.is_empty() {
                return;
            }
            state.next.clear();
            let next = &mut state.next;
            for &(c, align) in &state.current {
                match *step {
                    Step::CleanText => {
                        if !(c == '\0' || c == '\u{FFFD}' || is_bert_control(c)) {
                            next.push((if is_bert_whitespace(c) { ' ' } else { c }, align));
                        }
                    }
                    Step::SpaceCjk if is_cjk_ideograph(c) => {
                        next.extend([(' ', align), (c, align), (' ', align)]);
                    }
                    Step::SpaceCjk => next.push((c, align)),
                    Step::Decompose { compatible } => {
                        state.decomposers[k].push((c, align), compatible, next);
                    }
                    Step::DropNonspacingMarks => {
                        if !c.is_mark_nonspacing() {
                            next.push((c, align));
                        }
                    }
                    Step::DropCombiningMarks => {
                        if !is_combining_mark(c) {
                            next.push((c, align));
                        }
                    }
                    Step::Lowercase => next.extend(c.to_lowercase().map(|l| (l, align))),
                }
            }
            std::mem::swap(&mut state.current, &mut state.next);
        }
        for &(c, align) in &state.current {
            alignments.aligned(out.len(), align);
            out.push(c);
        }
    }
}

/// Appends the steps of `normalizer`; `None` for a normalizer not made of
/// them.
fn collect_steps(normalizer: &NormalizerWrapper, steps: &mut Vec<Step>) -> Option<()> {
    match normalizer {
        NormalizerWrapper::BertNormalizer(bert) => {
            if bert.clean_text {
                steps.push(Step::CleanText);
            }
            if bert.handle_chinese_chars {
                steps.push(Step::SpaceCjk);
            }
            if bert.strip_accents.unwrap_or(bert.lowercase) {
                steps.push(Step::Decompose { compatible: false });
                steps.push(Step::DropNonspacingMarks);
            }
            if bert.lowercase {
                steps.push(Step::Lowercase);
            }
        }
        NormalizerWrapper::Lowercase(_) => steps.push(Step::Lowercase),
        NormalizerWrapper::NFD(_) => steps.push(Step::Decompose { compatible: false }),
        NormalizerWrapper::NFKD(_) => steps.push(Step::Decompose { compatible: true }),
        NormalizerWrapper::StripAccents(_) => steps.push(Step::DropCombiningMarks),
        NormalizerWrapper::Sequence(sequence) => {
            for inner in sequence.as_ref() {
                collect_steps(inner, steps)?;
            }
        }
        _ => return None,
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokenizers::normalizers::BertNormalizer as HfBert;

    fn bert(strip_accents: Option<bool>, lowercase: bool) -> BertNormalizer {
        let hf = HfBert::new(true, true, strip_accents, lowercase);
        BertNormalizer::from_wrapper(&NormalizerWrapper::BertNormalizer(hf)).unwrap()
    }

    /// The normalized text and, for each byte, the input offset it comes
    /// from.
    fn normalized(n: &BertNormalizer, text: &str) -> (String, Vec<usize>) {
        let mut out = String::new();
        let mut alignments = Alignments::default();
        n.normalize(text, &mut out, Some(&mut alignments));
        let mut run = 0;
        let sources = (0..out.len())
            .map(|i| alignments.source(i, &mut run))
            .collect();
        (out, sources)
    }

    #[test]
    fn cleans_spaces_cjk_and_lowercases() {
        let n = bert(None, true);
        let (out, offsets) = normalized(&n, "A\u{1}\tÉ中");
        assert_eq!(out, "a e 中 ");
        assert_eq!(offsets, [0, 2, 3, 5, 5, 5, 5, 5]);
        assert_eq!(normalized(&bert(Some(false), true), "É").0, "é");
        assert_eq!(normalized(&bert(None, false), "É\u{fffd}").0, "É");
    }

    #[test]
    fn reorders_marks_by_combining_class() {
        let n = bert(Some(false), false);
        let nfd =
            BertNormalizer::from_wrapper(&NormalizerWrapper::NFD(tokenizers::normalizers::NFD));
        let (out, offsets) = normalized(&nfd.unwrap(), "a\u{301}\u{316}b");
        assert_eq!(out, "a\u{316}\u{301}b");
        // Aligned by position, as `NormalizedString::transform` does.
        assert_eq!(offsets, [0, 1, 1, 3, 3, 5]);
        assert_eq!(normalized(&n, "a\u{301}").0, "a\u{301}");
    }
}
