//! The GPT-2 byte-level alphabet: each byte maps to one printable Unicode
//! character, so arbitrary bytes can be vocabulary strings.

use std::collections::HashMap;
use std::sync::OnceLock;

/// The character that stands for `byte` in byte-level vocabularies.
pub fn byte_to_char(byte: u8) -> char {
    table()[byte as usize]
}

/// The byte that `c` stands for, if it is in the byte-level alphabet.
pub fn char_to_byte(c: char) -> Option<u8> {
    static REVERSE: OnceLock<HashMap<char, u8>> = OnceLock::new();
    REVERSE
        .get_or_init(|| (0..=255u8).map(|b| (byte_to_char(b), b)).collect())
        .get(&c)
        .copied()
}

/// Appends the byte-level spelling of `bytes` to `out`.
pub fn encode_into(bytes: &[u8], out: &mut String) {
    let table = table();
    for &b in bytes {
        out.push(table[b as usize]);
    }
}

/// The byte-level spelling of `bytes`.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    encode_into(bytes, &mut out);
    out
}

fn table() -> &'static [char; 256] {
    static TABLE: OnceLock<[char; 256]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = ['\0'; 256];
        let printable = |b: u8| matches!(b, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF);
        let mut next = 256u32;
        for b in 0..=255u8 {
            table[b as usize] = if printable(b) {
                char::from(b)
            } else {
                let c = char::from_u32(next).unwrap_or('\u{FFFD}');
                next += 1;
                c
            };
        }
        table
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alphabet_matches_gpt2() {
        assert_eq!(byte_to_char(b'A'), 'A');
        assert_eq!(byte_to_char(b' '), '\u{0120}'); // 'Ġ'
        assert_eq!(byte_to_char(b'\n'), '\u{010A}'); // 'Ċ'
        assert_eq!(byte_to_char(0), '\u{0100}');
        assert_eq!(byte_to_char(0xAD), '\u{0143}');
        let distinct: std::collections::HashSet<char> = (0..=255u8).map(byte_to_char).collect();
        assert_eq!(distinct.len(), 256);
    }
}
