//! Throughput of encode/decode (one-shot and streaming) on a text file, and
//! format conversion for parity checks.
//!
//! ```text
//! cargo run --release -p iree-tokenizer --example tokenizer_bench -- \
//!     TOKENIZER TEXT [--encoding NAME] [--ids OUT.json] [--to-json OUT.json]
//! ```
//! `--encoding` loads TOKENIZER as tiktoken data under that encoding name;
//! `--ids` writes the ids of each line of TEXT (JSON list of lists);
//! `--to-json` writes the tokenizer as tokenizer.json.

use std::time::Instant;

use iree_tokenizer::{EncodeOptions, Tokenizer};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let (Some(path), Some(text_path)) = (args.first(), args.get(1)) else {
        return Err(
            "usage: tokenizer_bench TOKENIZER TEXT [--encoding NAME] [--ids OUT] [--to-json OUT]"
                .into(),
        );
    };
    let start = Instant::now();
    let tok = match flag("--encoding") {
        Some(name) => Tokenizer::from_tiktoken(std::fs::read(path)?, &name)?,
        None => Tokenizer::from_file(path)?,
    };
    println!(
        "load: {:.1} ms ({tok:?})",
        start.elapsed().as_secs_f64() * 1e3
    );
    if let Some(out) = flag("--to-json") {
        std::fs::write(out, tok.to_huggingface_json(false)?)?;
    }
    let text = std::fs::read_to_string(text_path)?;
    let mb = text.len() as f64 / 1e6;
    let options = EncodeOptions::default();
    if let Some(out) = flag("--ids") {
        let lines: Vec<Vec<u32>> = text
            .lines()
            .map(|l| tok.encode(l, options))
            .collect::<Result<_, _>>()?;
        let json: Vec<String> = lines
            .iter()
            .map(|ids| {
                format!(
                    "[{}]",
                    ids.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
                )
            })
            .collect();
        std::fs::write(out, format!("[{}]", json.join(",\n")))?;
    }
    let best = |f: &mut dyn FnMut()| {
        (0..5)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
    };
    let mut ids = Vec::new();
    let t = best(&mut || ids = tok.encode(&text, options).unwrap());
    println!("encode: {:.2} MB/s ({} tokens)", mb / t, ids.len());
    let t = best(&mut || {
        tok.decode(&ids, false).unwrap();
    });
    println!("decode: {:.2} MB/s", mb / t);
    let t = best(&mut || {
        let mut stream = tok.encode_stream(options);
        let mut n = 0;
        let mut at = 0;
        while at < text.len() {
            let mut end = (at + 4096).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            n += stream.feed(&text[at..end]).unwrap().len();
            at = end;
        }
        n += stream.finalize().unwrap().len();
        assert_eq!(n, ids.len());
    });
    println!("stream encode (4 KiB chunks): {:.2} MB/s", mb / t);
    let t = best(&mut || {
        let mut stream = tok.decode_stream(false);
        let mut n = 0;
        for &id in &ids {
            n += stream.feed_one(id).unwrap().len();
        }
        n += stream.finalize().unwrap().len();
        std::hint::black_box(n);
    });
    println!(
        "stream decode (one id per call): {:.2} MB/s, {:.2} us/token",
        mb / t,
        t * 1e6 / ids.len() as f64
    );
    Ok(())
}
