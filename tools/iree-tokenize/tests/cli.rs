//! The `iree-tokenize` binary on our own fixtures, flag by flag and error
//! by error. Expected outputs follow upstream's formats and its lit tests
//! (`tools/test/iree-tokenize-{json,tiktoken}.txt`), re-expressed on:
//!
//! * `tests/data/pets_bpe.json`: byte-level BPE, 22 ids, 6 merges
//!   (`c a`, `ca t`, `Ġ d`, `o g`, `Ġd og`, `Ã ©`), a TemplateProcessing
//!   `<bos> $A <eos>` (ids 0 and 1), special added tokens `<bos>`, `<eos>`,
//!   `<unk>`, `<|end|>` (ids 0-3). "cat dog!" is `cat`=17 `Ġdog`=20 `!`=12.
//! * `tests/data/pets.tiktoken`: the 256 bytes and `ca`, `cat`, ` d`, `og`,
//!   ` dog` (ranks 256-260), loaded as cl100k_base (special tokens from
//!   100257 up to `<|endofprompt|>` = 100276).
//! * the tokenizer crate's `wordpiece_bert.json`: BERT (lowercasing
//!   normalizer, WordPiece, `[CLS] $A [SEP]`, `[UNK]` = 1).
//!
//! The ids, decoded texts, vocabulary sizes and special ids expected here
//! were checked against upstream's library (`iree.runtime.Tokenizer` of
//! `iree-base-runtime` 3.13, whose wheel has no `iree-tokenize` binary) on
//! these fixtures; the upstream lit tests' own expectations were checked by
//! hand on upstream's fixtures, which this repository does not carry.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn bpe() -> String {
    format!("--tokenizer={}", data("pets_bpe.json").display())
}

fn tiktoken() -> String {
    format!("--tokenizer={}", data("pets.tiktoken").display())
}

fn bert() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../crates/tokenizer/tests/data/wordpiece_bert.json");
    format!("--tokenizer={}", path.display())
}

/// What a run printed.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run_with_stdin(args: &[&str], stdin: &[u8]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_iree-tokenize"))
        .args(args)
        .env_remove("IREE_LOG")
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn iree-tokenize");
    let mut input = child.stdin.take().expect("stdin");
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let output = child.wait_with_output().expect("wait");
    writer.join().expect("stdin writer");
    let run = Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    };
    assert!(
        !run.stderr.contains("panicked"),
        "{args:?} panicked: {}",
        run.stderr
    );
    run
}

fn run(args: &[&str]) -> Run {
    run_with_stdin(args, b"")
}

/// stdout of a run that must succeed.
fn ok(args: &[&str]) -> String {
    let run = run(args);
    assert_eq!(run.code, 0, "{args:?} failed: {}", run.stderr);
    run.stdout
}

fn ok_stdin(args: &[&str], stdin: &[u8]) -> String {
    let run = run_with_stdin(args, stdin);
    assert_eq!(run.code, 0, "{args:?} failed: {}", run.stderr);
    run.stdout
}

/// stderr of a run that must fail with exit code 1.
fn fails(args: &[&str]) -> Run {
    fails_stdin(args, b"")
}

fn fails_stdin(args: &[&str], stdin: &[u8]) -> Run {
    let run = run_with_stdin(args, stdin);
    assert_eq!(
        run.code, 1,
        "{args:?} should fail: {}{}",
        run.stdout, run.stderr
    );
    run
}

// --- encode --------------------------------------------------------------

#[test]
fn encodes_with_special_tokens_by_default() {
    assert_eq!(ok(&[&bpe(), "cat dog!"]), "0,17,20,12,1\n");
    assert_eq!(ok(&[&bpe(), "--special", "cat dog!"]), "0,17,20,12,1\n");
    assert_eq!(
        ok(&[&bpe(), "--special=true", "cat dog!"]),
        "0,17,20,12,1\n"
    );
    assert_eq!(ok(&[&bert(), "Hello World"]), "2,81,82,3\n");
}

#[test]
fn special_false_leaves_out_the_post_processor_tokens() {
    assert_eq!(ok(&[&bpe(), "--special=false", "cat"]), "17\n");
    assert_eq!(ok(&[&bpe(), "--special=0", "cat"]), "17\n");
    // As upstream's parser: any value but "", "true" and "1" is false.
    assert_eq!(ok(&[&bpe(), "--special=no", "cat"]), "17\n");
    assert_eq!(ok(&[&bert(), "--special=false", "Hello World"]), "81,82\n");
}

#[test]
fn empty_text() {
    assert_eq!(ok(&[&bpe(), ""]), "0,1\n");
    assert_eq!(ok(&[&bpe(), "--special=false", ""]), "\n");
    assert_eq!(
        ok(&[&bpe(), "--json", "--special=false", ""]),
        "{\"ids\":[]}\n"
    );
}

#[test]
fn json_output() {
    assert_eq!(
        ok(&[&bpe(), "--json", "cat dog!"]),
        "{\"ids\":[0,17,20,12,1]}\n"
    );
    assert_eq!(
        ok(&[&bpe(), "--json", "--special=false", "cat"]),
        "{\"ids\":[17]}\n"
    );
}

#[test]
fn offsets_per_token() {
    // Special tokens [0:0]; a word with its leading space (Ġdog) from the
    // space on, as upstream's `0[0:0],19[0:5],21[5:11],1[0:0]`.
    assert_eq!(
        ok(&[&bpe(), "--offsets", "cat dog!"]),
        "0[0:0],17[0:3],20[3:7],12[7:8],1[0:0]\n"
    );
    assert_eq!(
        ok(&[&bpe(), "--offsets", "--special=false", "cats"]),
        "17[0:3],10[3:4]\n"
    );
    // A two-byte character is one token of two bytes.
    assert_eq!(
        ok(&[&bpe(), "--offsets", "--special=false", "é"]),
        "21[0:2]\n"
    );
    // Offsets are bytes of the original text through the normalizer
    // (BERT lowercases and strips the accent of "é", two bytes).
    assert_eq!(
        ok(&[&bert(), "--offsets", "Hello World"]),
        "2[0:0],81[0:5],82[6:11],3[0:0]\n"
    );
    assert_eq!(
        ok(&[&bert(), "--offsets", "--special=false", "Café"]),
        "27[0:1],51[1:2],56[2:3],55[3:5]\n"
    );
    // A special token in the text covers its bytes.
    assert_eq!(
        ok(&[&bpe(), "--offsets", "--special=false", "cat<|end|>"]),
        "17[0:3],3[3:10]\n"
    );
}

#[test]
fn offsets_json() {
    assert_eq!(
        ok(&[&bpe(), "--offsets", "--json", "cat dog!"]),
        "{\"ids\":[0,17,20,12,1],\"offsets\":[[0,0],[0,3],[3,7],[7,8],[0,0]]}\n"
    );
    assert_eq!(
        ok(&[&bpe(), "--offsets", "--json", "--special=false", ""]),
        "{\"ids\":[],\"offsets\":[]}\n"
    );
}

#[test]
fn offsets_and_max_length_and_tiktoken() {
    assert_eq!(
        ok(&[&bpe(), "--offsets", "--max_length=2", "cat dog!"]),
        "0[0:0],17[0:3]\n"
    );
    assert_eq!(
        ok(&[
            &tiktoken(),
            "--encoding=cl100k_base",
            "--offsets",
            "cat dog"
        ]),
        "257[0:3],260[3:7]\n"
    );
}

#[test]
fn max_length_truncates() {
    assert_eq!(ok(&[&bpe(), "--max_length=3", "cat dog!"]), "0,17,20\n");
    assert_eq!(
        ok(&[&bpe(), "--max_length=5", "cat dog!"]),
        "0,17,20,12,1\n"
    );
    assert_eq!(
        ok(&[&bpe(), "--max_length=50", "cat dog!"]),
        "0,17,20,12,1\n"
    );
    // 0 (and what atoi reads as 0 or less) means no limit.
    assert_eq!(
        ok(&[&bpe(), "--max_length=0", "cat dog!"]),
        "0,17,20,12,1\n"
    );
    assert_eq!(
        ok(&[&bpe(), "--max_length=-2", "cat dog!"]),
        "0,17,20,12,1\n"
    );
    assert_eq!(
        ok(&[&bpe(), "--max_length=abc", "cat dog!"]),
        "0,17,20,12,1\n"
    );
    assert_eq!(
        ok(&[&bpe(), "--max_length=1", "--json", "cat"]),
        "{\"ids\":[0]}\n"
    );
}

#[test]
fn match_special() {
    assert_eq!(ok(&[&bpe(), "--special=false", "cat<|end|>"]), "17,3\n");
    // Without matching, "<|end|>" is text; of its characters only "d" is
    // in this vocabulary (the model drops the others: it has no unknown
    // token).
    assert_eq!(
        ok(&[
            &bpe(),
            "--special=false",
            "--match_special=false",
            "cat<|end|>"
        ]),
        "17,7\n"
    );
    assert_eq!(
        ok(&[&tiktoken(), "--encoding=cl100k_base", "cat<|endoftext|>"]),
        "257,100257\n"
    );
    assert_eq!(
        ok(&[
            &tiktoken(),
            "--encoding=cl100k_base",
            "--match_special=false",
            "<|endoftext|>"
        ]),
        bytes_of("<|endoftext|>") + "\n"
    );
}

/// The byte ids (ranks) of `text` in the tiktoken fixture, which has no
/// merge for any of its pairs.
fn bytes_of(text: &str) -> String {
    text.bytes()
        .map(|b| b.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

#[test]
fn json_string_input() {
    // Escapes decode before encoding; surrounding quotes are optional.
    assert_eq!(
        ok(&[&bpe(), "--json_string", "\"cat\\u0020dog!\""]),
        "0,17,20,12,1\n"
    );
    assert_eq!(
        ok(&[&bpe(), "--json_string", "cat dog\\u0021"]),
        "0,17,20,12,1\n"
    );
    assert_eq!(
        ok(&[
            &bpe(),
            "--json_string",
            "--special=false",
            "--offsets",
            "\\u00e9"
        ]),
        "21[0:2]\n"
    );
    let bad = fails(&[&bpe(), "--json_string", "\\q"]);
    assert!(
        bad.stderr
            .contains("INVALID_ARGUMENT; unrecognized escape sequence '\\q'"),
        "{}",
        bad.stderr
    );
    let bad = fails(&[&bpe(), "--json_string", "\\ud800"]);
    assert!(
        bad.stderr
            .contains("high surrogate not followed by low surrogate"),
        "{}",
        bad.stderr
    );
}

#[test]
fn arguments_after_the_first_and_dash_text() {
    // The first argument is the input wherever it stands; the rest are ignored.
    assert_eq!(ok(&["cat", &bpe(), "dog", "--special=false"]), "17\n");
    // A word with one dash is text, as upstream reads it ("-" is byte 45).
    let enc = "--encoding=cl100k_base";
    assert_eq!(ok(&[&tiktoken(), enc, "-cat"]), "45,257\n");
    assert_eq!(ok(&[&tiktoken(), enc, "-h"]), "45,104\n");
}

// --- tiktoken ---------------------------------------------------------------

#[test]
fn tiktoken_encode_decode_info() {
    let enc = "--encoding=cl100k_base";
    assert_eq!(ok(&[&tiktoken(), enc, "cat dog"]), "257,260\n");
    assert_eq!(ok(&[&tiktoken(), enc, "--json", "ca"]), "{\"ids\":[256]}\n");
    assert_eq!(ok(&[&tiktoken(), enc, "--decode", "257,260"]), "cat dog\n");
    assert_eq!(
        ok(&[&tiktoken(), enc, "--info"]),
        "{\"vocab_size\":100277,\"model_type\":\"BPE\",\"merge_count\":5}\n"
    );
}

#[test]
fn tiktoken_encoding_from_the_file_name() {
    let dir = std::env::temp_dir().join(format!("iree-tokenize-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let named = dir.join("cl100k_base.tiktoken");
    std::fs::copy(data("pets.tiktoken"), &named).unwrap();
    let flag = format!("--tokenizer={}", named.display());
    assert_eq!(ok(&[&flag, "cat dog"]), "257,260\n");
    // --encoding wins over the name.
    assert_eq!(
        ok(&[&flag, "--encoding=r50k_base", "cat<|endoftext|>"]),
        "257,50256\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tiktoken_unknown_encoding() {
    let bad = fails(&[&tiktoken(), "cat"]);
    assert!(
        bad.stderr.contains(
            "INVALID_ARGUMENT; unknown tiktoken encoding 'pets'; use --encoding with one of: \
             cl100k_base, o200k_base, r50k_base, p50k_base"
        ),
        "{}",
        bad.stderr
    );
    let bad = fails(&[&tiktoken(), "--encoding=gpt3", "--info"]);
    assert!(
        bad.stderr.contains("unknown tiktoken encoding 'gpt3'"),
        "{}",
        bad.stderr
    );
    assert_eq!(bad.stdout, "");
}

// --- info -------------------------------------------------------------------

#[test]
fn info() {
    assert_eq!(
        ok(&[&bpe(), "--info"]),
        "{\"vocab_size\":22,\"model_type\":\"BPE\",\"merge_count\":6}\n"
    );
    // No merges for WordPiece; the model's unknown token.
    assert_eq!(
        ok(&[&bert(), "--info"]),
        "{\"vocab_size\":104,\"model_type\":\"WordPiece\",\"unk_id\":1}\n"
    );
    // --info wins over the other modes and needs no input.
    assert_eq!(
        ok(&[&bpe(), "--info", "--decode", "--batch", "--json"]),
        "{\"vocab_size\":22,\"model_type\":\"BPE\",\"merge_count\":6}\n"
    );
}

// --- decode -----------------------------------------------------------------

#[test]
fn decode() {
    assert_eq!(ok(&[&bpe(), "--decode", "0,17,20,12,1"]), "cat dog!\n");
    assert_eq!(
        ok(&[&bpe(), "--decode", "--decode_special", "0,17,20,12,1"]),
        "<bos>cat dog!<eos>\n"
    );
    assert_eq!(ok(&[&bert(), "--decode", "2,81,82,3"]), "hello world\n");
    // Blanks and a trailing comma are fine; so are spaces instead of commas.
    assert_eq!(ok(&[&bpe(), "--decode", " 17 , 20,"]), "cat dog\n");
    assert_eq!(ok(&[&bpe(), "--decode", "17 20"]), "cat dog\n");
    // Ids outside the vocabulary (negative ones too) are skipped.
    assert_eq!(ok(&[&bpe(), "--decode", "17,-1,9999,20"]), "cat dog\n");
    assert_eq!(ok(&[&bpe(), "--decode", ""]), "\n");
}

#[test]
fn decode_json_escapes() {
    assert_eq!(
        ok(&[&bpe(), "--decode", "--json", "17,20,12"]),
        "{\"text\":\"cat dog!\"}\n"
    );
    // Quotes, backslashes and control characters are escaped; other bytes
    // are written as they are.
    let tiktoken = tiktoken();
    let text = [34u8, 92, 10, 9, 1, 0xC3, 0xA9]
        .map(|b| b.to_string())
        .join(",");
    assert_eq!(
        ok(&[
            &tiktoken,
            "--encoding=cl100k_base",
            "--decode",
            "--json",
            &text
        ]),
        "{\"text\":\"\\\"\\\\\\n\\t\\u0001é\"}\n"
    );
    assert_eq!(
        ok(&[&tiktoken, "--encoding=cl100k_base", "--decode", &text]),
        "\"\\\n\t\u{1}é\n"
    );
}

#[test]
fn decode_bad_ids() {
    for (input, message) in [
        ("1,,2", "INVALID_ARGUMENT; expected number at position 2"),
        ("abc", "INVALID_ARGUMENT; expected number at position 0"),
        ("17,x", "INVALID_ARGUMENT; expected number at position 3"),
        ("-", "INVALID_ARGUMENT; expected number at position 1"),
        (
            "99999999999",
            "INVALID_ARGUMENT; number out of range at position 0",
        ),
    ] {
        let bad = fails(&[&bpe(), "--decode", input]);
        assert!(bad.stderr.contains(message), "{input}: {}", bad.stderr);
        assert_eq!(bad.stdout, "", "{input}");
    }
}

// --- batch ------------------------------------------------------------------

#[test]
fn batch_encodes_each_line() {
    assert_eq!(
        ok_stdin(&[&bpe(), "--batch"], b"cat\ndog\n"),
        "0,17,1\n0,7,19,1\n"
    );
    // The last line needs no newline; an empty line is an input.
    assert_eq!(
        ok_stdin(&[&bpe(), "--batch", "--special=false"], b"cat\n\ncats"),
        "17\n\n17,10\n"
    );
    assert_eq!(
        ok_stdin(&[&bpe(), "--batch", "--json", "--offsets"], b"cat\n dog\n"),
        "{\"ids\":[0,17,1],\"offsets\":[[0,0],[0,3],[0,0]]}\n\
         {\"ids\":[0,20,1],\"offsets\":[[0,0],[0,4],[0,0]]}\n"
    );
    assert_eq!(
        ok_stdin(&[&bpe(), "--batch", "--max_length=2"], b"cat dog\n"),
        "0,17\n"
    );
    assert_eq!(ok_stdin(&[&bpe(), "--batch"], b""), "");
    // An argument is ignored in batch mode.
    assert_eq!(
        ok_stdin(&[&bpe(), "--batch", "ignored"], b"cat\n"),
        "0,17,1\n"
    );
}

#[test]
fn batch_keeps_carriage_returns() {
    // Only \n ends a line; a \r before it is text (byte 13).
    let enc = "--encoding=cl100k_base";
    assert_eq!(
        ok_stdin(&[&tiktoken(), enc, "--batch"], b"cat\r\ndog\n"),
        "257,13\n100,259\n"
    );
}

#[test]
fn batch_decodes_each_line() {
    assert_eq!(
        ok_stdin(&[&bpe(), "--batch", "--decode"], b"0,17,1\n20,12\n"),
        "cat\n dog!\n"
    );
    assert_eq!(
        ok_stdin(&[&bpe(), "--batch", "--decode", "--json"], b"17\n"),
        "{\"text\":\"cat\"}\n"
    );
    // The first bad line stops the run; earlier lines were printed.
    let bad = fails_stdin(&[&bpe(), "--batch", "--decode"], b"17\n1,,2\n20\n");
    assert_eq!(bad.stdout, "cat\n");
    assert!(
        bad.stderr.contains("expected number at position 2"),
        "{}",
        bad.stderr
    );
}

#[test]
fn batch_rejects_invalid_utf8() {
    let bad = fails_stdin(&[&bpe(), "--batch"], b"cat\nc\xffat\n");
    assert_eq!(bad.stdout, "0,17,1\n");
    assert!(
        bad.stderr
            .contains("INVALID_ARGUMENT; line 2 of stdin is not valid UTF-8 (byte 1)"),
        "{}",
        bad.stderr
    );
}

// --- stream -----------------------------------------------------------------

#[test]
fn stream_encodes_all_of_stdin_as_one_text() {
    assert_eq!(
        ok_stdin(&[&bpe(), "--stream"], b"cat dog!"),
        "0,17,20,12,1\n"
    );
    assert_eq!(
        ok_stdin(&[&bpe(), "--stream", "--json"], b"cat dog!"),
        "{\"ids\":[0,17,20,12,1]}\n"
    );
    assert_eq!(
        ok_stdin(&[&bpe(), "--stream", "--special=false"], b""),
        "\n"
    );
    assert_eq!(
        ok_stdin(&[&bpe(), "--stream", "--json", "--special=false"], b""),
        "{\"ids\":[]}\n"
    );
    // Newlines are text, not separators.
    assert_eq!(
        ok_stdin(
            &[&tiktoken(), "--encoding=cl100k_base", "--stream"],
            b"cat\ndog"
        ),
        "257,10,100,259\n"
    );
}

#[test]
fn stream_equals_one_shot_over_many_chunks() {
    // Longer than the 8 KiB read buffer, with two-byte characters that
    // straddle read boundaries.
    let text = "cat dog! é cats, dog\u{e9}".repeat(1200);
    assert!(text.len() > 3 * 8192);
    let one_shot = {
        let run = run_with_stdin(&[&bpe(), "--batch"], text.as_bytes());
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout
    };
    assert_eq!(ok_stdin(&[&bpe(), "--stream"], text.as_bytes()), one_shot);
    let tiktoken = tiktoken();
    let args = [tiktoken.as_str(), "--encoding=cl100k_base"];
    let batch = ok_stdin(&[args[0], args[1], "--batch"], text.as_bytes());
    assert_eq!(
        ok_stdin(&[args[0], args[1], "--stream"], text.as_bytes()),
        batch
    );
}

#[test]
fn stream_prints_ids_before_stdin_ends() {
    use std::io::Read;
    let mut child = Command::new(env!("CARGO_BIN_EXE_iree-tokenize"))
        .args([&bpe(), "--stream", "--special=false"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    stdin.write_all("cat dog ".repeat(50).as_bytes()).unwrap();
    stdin.flush().unwrap();
    // Ids of the first words arrive while stdin is still open.
    let (sender, receiver) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut first = [0u8; 6];
        let read = stdout.read_exact(&mut first).map(|()| first);
        let _ = sender.send(read.is_ok());
        let mut rest = String::new();
        let _ = stdout.read_to_string(&mut rest);
        (first, rest)
    });
    let early = receiver
        .recv_timeout(std::time::Duration::from_secs(60))
        .unwrap_or(false);
    drop(stdin);
    let (first, rest) = reader.join().unwrap();
    assert!(child.wait().unwrap().success());
    assert!(early, "no ids before the end of stdin");
    let all = format!("{}{rest}", String::from_utf8_lossy(&first));
    // "cat" "Ġdog", then "Ġ" "cat" "Ġdog" (" cat" has no merge with the
    // space); the last space alone is "Ġ" (11).
    let expected = format!("{}\n", vec!["17,20,11"; 50].join(","));
    assert_eq!(all, expected);
}

#[test]
fn stream_ignores_offsets_and_max_length_like_upstream() {
    assert_eq!(
        ok_stdin(
            &[&bpe(), "--stream", "--offsets", "--max_length=1"],
            b"cat dog!"
        ),
        "0,17,20,12,1\n"
    );
}

#[test]
fn stream_rejects_invalid_utf8_and_closes_its_output() {
    let bad = fails_stdin(&[&bpe(), "--stream", "--json"], b"cat \xff dog");
    assert!(bad.stdout.starts_with("{\"ids\":["), "{}", bad.stdout);
    assert!(bad.stdout.ends_with("]}\n"), "{}", bad.stdout);
    assert!(
        bad.stderr.contains("stdin is not valid UTF-8 (byte 4)"),
        "{}",
        bad.stderr
    );
    let bad = fails_stdin(&[&bpe(), "--stream"], b"cat \xc3");
    assert!(bad.stdout.ends_with('\n'), "{}", bad.stdout);
    assert!(
        bad.stderr.contains("stdin is not valid UTF-8 (byte 4"),
        "{}",
        bad.stderr
    );
}

#[test]
fn stream_with_decode_is_an_error() {
    let bad = fails(&[&bpe(), "--stream", "--decode"]);
    assert!(
        bad.stderr
            .starts_with("Error: --stream is not supported with --decode\n"),
        "{}",
        bad.stderr
    );
    assert!(
        bad.stderr
            .contains("INVALID_ARGUMENT; --stream requires encode mode"),
        "{}",
        bad.stderr
    );
}

// --- benchmark --------------------------------------------------------------

fn benchmark_json(mode: &str, extra: &[&str]) -> String {
    let bench = format!("--benchmark={mode}");
    let mut args = vec![
        bpe(),
        bench,
        "--json".into(),
        "--benchmark_iterations=3".into(),
        "--benchmark_warmup=1".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    args.push("cat dog! cat dog!".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(&args)
}

/// The keys of a benchmark JSON line, in order, and its integer fields.
fn benchmark_fields(line: &str) -> Vec<(String, String)> {
    let body = line
        .trim_end()
        .strip_prefix('{')
        .unwrap()
        .strip_suffix('}')
        .unwrap();
    body.split(',')
        .map(|field| {
            let (key, value) = field.split_once(':').unwrap();
            (key.trim_matches('"').to_string(), value.to_string())
        })
        .collect()
}

#[test]
fn benchmark_json_lines() {
    for mode in ["oneshot", "stream", "decode"] {
        let line = benchmark_json(mode, &["--benchmark_chunk_size=3"]);
        assert!(line.ends_with("}\n") && line.lines().count() == 1, "{line}");
        let fields = benchmark_fields(&line);
        let keys: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "mode",
                "iterations",
                "total_input_bytes",
                "total_tokens",
                "min_ns",
                "avg_ns",
                "max_ns",
                "tokens_per_sec",
                "mb_per_sec",
                "peak_memory_bytes"
            ]
        );
        let get = |key: &str| fields.iter().find(|(k, _)| k == key).unwrap().1.clone();
        assert_eq!(get("mode"), format!("\"{mode}\""));
        assert_eq!(get("iterations"), "3");
        // 9 ids a run: <bos> cat Ġdog ! Ġ cat Ġdog ! <eos>. Decode counts
        // the decoded bytes (specials skipped): the 17 bytes again.
        assert_eq!(get("total_tokens"), "27");
        assert_eq!(get("total_input_bytes"), "51");
        let tokens_per_sec = get("tokens_per_sec");
        assert_eq!(tokens_per_sec.split_once('.').unwrap().1.len(), 1, "{line}");
        let mb_per_sec = get("mb_per_sec");
        assert_eq!(mb_per_sec.split_once('.').unwrap().1.len(), 3, "{line}");
        let min: i64 = get("min_ns").parse().unwrap();
        let avg: i64 = get("avg_ns").parse().unwrap();
        let max: i64 = get("max_ns").parse().unwrap();
        assert!(min <= avg && avg <= max, "{line}");
        assert!(get("peak_memory_bytes").parse::<u64>().unwrap() > 0);
    }
}

#[test]
fn benchmark_report_on_stderr() {
    let run = run(&[
        &bpe(),
        "--benchmark=oneshot",
        "--benchmark_iterations=2",
        "cat",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 7, "{}", run.stderr);
    assert_eq!(lines[0], "Benchmark: oneshot");
    assert_eq!(lines[1], "  Iterations:    2");
    assert_eq!(lines[2], "  Input bytes:   6 total");
    assert_eq!(lines[3], "  Tokens:        6 total");
    assert!(
        lines[4].starts_with("  Latency (ns):  min="),
        "{}",
        lines[4]
    );
    assert!(lines[4].contains(" avg=") && lines[4].contains(" max="));
    assert!(
        lines[5].starts_with("  Throughput:    ") && lines[5].ends_with(" MB/sec"),
        "{}",
        lines[5]
    );
    assert!(lines[5].contains(" tokens/sec, "));
    assert!(lines[6].starts_with("  Peak memory:   ") && lines[6].ends_with(" bytes"));
}

#[test]
fn benchmark_decodes_json_string_input() {
    let line = ok(&[
        &bpe(),
        "--benchmark=oneshot",
        "--json",
        "--json_string",
        "--benchmark_iterations=1",
        "--special=false",
        "\"cat\\u0020dog\"",
    ]);
    let fields = benchmark_fields(&line);
    assert!(
        fields.contains(&("total_input_bytes".into(), "7".into())),
        "{line}"
    );
    assert!(
        fields.contains(&("total_tokens".into(), "2".into())),
        "{line}"
    );
}

#[test]
fn benchmark_misuse() {
    let bad = fails(&[&bpe(), "--benchmark=oneshot"]);
    assert!(
        bad.stderr
            .starts_with("Error: --benchmark requires input text argument\n"),
        "{}",
        bad.stderr
    );
    assert!(
        bad.stderr
            .contains("INVALID_ARGUMENT; --benchmark requires input text"),
        "{}",
        bad.stderr
    );
    let bad = fails(&[&bpe(), "--benchmark=batch", "cat"]);
    assert!(
        bad.stderr.contains(
            "INVALID_ARGUMENT; unknown benchmark mode 'batch' (expected: oneshot, stream, decode)"
        ),
        "{}",
        bad.stderr
    );
    let bad = fails(&[
        &bpe(),
        "--benchmark=oneshot",
        "--benchmark_iterations=0",
        "cat",
    ]);
    assert!(
        bad.stderr
            .contains("--benchmark_iterations must be positive"),
        "{}",
        bad.stderr
    );
    let bad = fails(&[
        &bpe(),
        "--benchmark=stream",
        "--benchmark_chunk_size=0",
        "cat",
    ]);
    assert!(
        bad.stderr
            .contains("--benchmark_chunk_size must be positive"),
        "{}",
        bad.stderr
    );
}

// --- misuse and bad input ---------------------------------------------------

#[test]
fn missing_tokenizer() {
    for args in [
        &["cat"][..],
        &["--tokenizer", "cat"],
        &["--tokenizer=", "cat"],
    ] {
        let bad = fails(args);
        assert_eq!(
            bad.stderr,
            "Error: missing --tokenizer=<file> flag\n\
             Usage: iree-tokenize --tokenizer=<file> [flags] <text>\n\
             Run with --help for more information.\n"
        );
        assert_eq!(bad.stdout, "");
    }
}

#[test]
fn missing_input() {
    let bad = fails(&[&bpe()]);
    assert!(
        bad.stderr.starts_with(
            "Error: missing input text\nUsage: iree-tokenize --tokenizer=<file> [flags] <text>\n"
        ),
        "{}",
        bad.stderr
    );
    assert!(
        bad.stderr.contains("INVALID_ARGUMENT; missing input"),
        "{}",
        bad.stderr
    );
    let bad = fails(&[&bpe(), "--decode"]);
    assert!(
        bad.stderr.contains("INVALID_ARGUMENT; missing input"),
        "{}",
        bad.stderr
    );
}

#[test]
fn json_string_combinations() {
    for mode in ["--batch", "--stream"] {
        let bad = fails(&[&bpe(), "--json_string", mode]);
        assert!(
            bad.stderr.starts_with(
                "Error: --json_string is not supported with --batch/--stream\n\
                 (file/stdin input preserves UTF-8; use --json_string only for command-line arguments)\n"
            ),
            "{}",
            bad.stderr
        );
        assert!(bad
            .stderr
            .contains("INVALID_ARGUMENT; --json_string requires single input mode"));
    }
    let bad = fails(&[&bpe(), "--json_string", "--decode", "1"]);
    assert!(
        bad.stderr.starts_with(
            "Error: --json_string is not supported with --decode\n(decode takes numeric IDs, not text)\n"
        ),
        "{}",
        bad.stderr
    );
    assert!(bad
        .stderr
        .contains("INVALID_ARGUMENT; --json_string requires encode mode"));
    // Checked before --info, as upstream does.
    let bad = fails(&[&bpe(), "--json_string", "--batch", "--info"]);
    assert_eq!(bad.stdout, "");
}

#[test]
fn unreadable_tokenizer_file() {
    let missing = data("no-such-file.json");
    let flag = format!("--tokenizer={}", missing.display());
    let bad = fails(&[&flag, "cat"]);
    assert!(
        bad.stderr.contains(&format!(
            "NOT_FOUND; failed to open file '{}'",
            missing.display()
        )),
        "{}",
        bad.stderr
    );
    // The file is read before the encoding is looked at.
    let flag = format!("--tokenizer={}", data("missing.tiktoken").display());
    let bad = fails(&[&flag, "cat"]);
    assert!(
        bad.stderr.contains("NOT_FOUND; failed to open file"),
        "{}",
        bad.stderr
    );
    // A directory cannot be read either.
    let flag = format!("--tokenizer={}", data("").display());
    let bad = fails(&[&flag, "--info"]);
    assert!(bad.stderr.contains("failed to open file"), "{}", bad.stderr);
}

#[test]
fn malformed_tokenizer_files() {
    let dir = std::env::temp_dir().join(format!("iree-tokenize-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases: [(&str, &[u8]); 5] = [
        ("truncated.json", b"{\"model\": {\"type\": \"BPE\""),
        ("empty.json", b""),
        ("not_utf8.json", b"{\"model\": \"\xff\"}"),
        ("wrong_shape.json", b"[1, 2, 3]"),
        ("cl100k_base.tiktoken", b"not base64 at all\n"),
    ];
    for (name, contents) in cases {
        let path = dir.join(name);
        std::fs::write(&path, contents).unwrap();
        let flag = format!("--tokenizer={}", path.display());
        let bad = fails(&[&flag, "cat"]);
        assert!(
            bad.stderr.contains("INVALID_ARGUMENT"),
            "{name}: {}",
            bad.stderr
        );
        assert_eq!(bad.stdout, "", "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn invalid_utf8_argument() {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let output = Command::new(env!("CARGO_BIN_EXE_iree-tokenize"))
            .arg(bpe())
            .arg(std::ffi::OsStr::from_bytes(b"c\xffat"))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("INVALID_ARGUMENT; input text is not valid UTF-8 (byte 1)"),
            "{stderr}"
        );
        assert!(!stderr.contains("panicked"));
    }
}

#[test]
fn unknown_flags() {
    let bad = fails(&[&bpe(), "--jsonn", "cat"]);
    assert!(
        bad.stderr
            .contains("INVALID_ARGUMENT; flag 'jsonn' not recognized"),
        "{}",
        bad.stderr
    );
    let bad = fails(&[&bpe(), "--", "cat"]);
    assert!(
        bad.stderr.contains("flag '' not recognized"),
        "{}",
        bad.stderr
    );
}

#[test]
fn help_lists_the_flags() {
    let help = ok(&["--help"]);
    for flag in [
        "--decode=false",
        "--decode_special=false",
        "--special=true",
        "--match_special=true",
        "--batch=false",
        "--stream=false",
        "--max_length=0",
        "--info=false",
        "--json=false",
        "--json_string=false",
        "--tokenizer=\"\"",
        "--encoding=\"\"",
        "--offsets=false",
        "--benchmark=\"\"",
        "--benchmark_iterations=100",
        "--benchmark_warmup=5",
        "--benchmark_chunk_size=4096",
    ] {
        assert!(
            help.lines().any(|l| l == flag),
            "{flag} missing from:\n{help}"
        );
    }
}

#[test]
fn flagfile() {
    let dir = std::env::temp_dir().join(format!("iree-tokenize-flags-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("flags.txt");
    std::fs::write(&path, format!("# tokenizer\n{}\n--special=false\n", bpe())).unwrap();
    let flag = format!("--flagfile={}", path.display());
    assert_eq!(ok(&[&flag, "cat"]), "17\n");
    let _ = std::fs::remove_dir_all(&dir);
}
