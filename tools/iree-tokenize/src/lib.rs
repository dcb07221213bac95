//! `iree-tokenize`: encodes text to token ids and decodes ids to text with a
//! Hugging Face `tokenizer.json` or a tiktoken file, as upstream IREE's tool
//! of the same name does: the same flags (names, defaults, meanings), the
//! same output on stdout, the same error texts and exit codes for misuse.
//!
//! Modes, in the order they are chosen: `--info` (tokenizer facts as one
//! JSON line), `--benchmark=oneshot|stream|decode` (timings of the first
//! argument), `--stream` (stdin encoded continuously through the streaming
//! encoder), `--batch` (each stdin line encoded or, with `--decode`, decoded),
//! otherwise the first argument is encoded or, with `--decode`, decoded.
//!
//! The command line is read as upstream's flag parser reads it: a word
//! starting with `--` is a flag (`--name=value`; a bool flag alone means
//! true, and `true` or `1` are true and anything else false; an int flag
//! takes C `atoi`'s reading), every other word is an argument and the first
//! one is the input, wherever it stands (so text may begin with one dash).
//!
//! Deliberate differences from upstream 3.13:
//!
//! * No fixed caps: upstream's encode fills at most 8192 ids and `--decode`
//!   reads at most 8192 ids (RESOURCE_EXHAUSTED beyond); here both grow.
//! * An id in `--decode` outside the 32-bit range is an error naming its
//!   position (upstream's parser overflows silently).
//! * Text must be UTF-8 (the argument after `--json_string` unescaping, each
//!   `--batch` line, `--stream` input); other bytes are an
//!   INVALID_ARGUMENT error. `--decode` prints bytes that are not UTF-8 as
//!   U+FFFD (upstream writes the raw bytes).
//! * `--benchmark_iterations` must be positive (upstream divides by zero)
//!   and so must `--benchmark_chunk_size` for `--benchmark=stream` (upstream
//!   loops forever on 0). Chunks end on character boundaries (a chunk may
//!   exceed the size by up to three bytes).
//! * `peak_memory_bytes` counts the buffers the benchmark loop holds (ids,
//!   decoded text, the stream's input chunk), not upstream's preallocated
//!   buffers.
//! * `--offsets` reports each token's bytes as the Hugging Face pipeline
//!   tracks them (before any post-processor offset trimming): a character
//!   that byte-level BPE splits over several tokens gives each of them the
//!   whole character's span. The post-processor's tokens get `[0:0]`.
//!
//! As upstream's tool, `--encoding` (and a file name standing for it)
//! takes only `cl100k_base`, `o200k_base`, `r50k_base` and `p50k_base`,
//! though the tokenizer crate knows more encodings.
//! * An unknown flag is reported as upstream words it, without upstream's
//!   decorative `FLAGS ERROR` line; `--help` prints this tool's own flag
//!   listing in upstream's layout.

use std::ffi::{OsStr, OsString};
use std::io::{BufRead, Read, Write};
use std::time::Instant;

use clap::{CommandFactory, FromArgMatches};
use iree_base::{Status, StatusCode};
use iree_tokenizer::{EncodeOptions, Tokenizer};

type Result<T> = std::result::Result<T, Status>;

const USAGE: &str = "Usage: iree-tokenize --tokenizer=<file> [flags] <text>";

/// The tiktoken encodings `--encoding` (or the file name) may name.
const TIKTOKEN_ENCODINGS: [&str; 4] = ["cl100k_base", "o200k_base", "r50k_base", "p50k_base"];

const ABOUT: &str = "\
Encodes text to token ids, or decodes ids to text, with a Hugging Face
tokenizer.json or an OpenAI tiktoken file. Prints comma-separated ids
(--json: {\"ids\":[...]}).

  iree-tokenize --tokenizer=tokenizer.json \"some text\"
  iree-tokenize --tokenizer=tokenizer.json --offsets \"some text\"
  iree-tokenize --tokenizer=tokenizer.json --decode \"1,2,3\"
  iree-tokenize --tokenizer=cl100k_base.tiktoken --info
  printf 'one\\ntwo\\n' | iree-tokenize --tokenizer=tokenizer.json --batch
  cat big.txt | iree-tokenize --tokenizer=tokenizer.json --stream
  iree-tokenize --tokenizer=tokenizer.json --benchmark=oneshot \"some text\"";

/// The flags, spelled as upstream spells them. Values are kept as text and
/// read as upstream's parser reads them ([`Options::from_flags`]).
#[derive(clap::Parser, Debug)]
#[command(name = "iree-tokenize", about = ABOUT, args_override_self = true)]
struct Flags {
    /// Decode mode: the input is comma-separated token ids.
    #[arg(long = "decode", require_equals = true, num_args = 0..=1, default_missing_value = "true", default_value = "false")]
    decode: String,
    /// With --decode: keep special tokens (BOS/EOS, ...) in the text.
    #[arg(long = "decode_special", require_equals = true, num_args = 0..=1, default_missing_value = "true", default_value = "false")]
    decode_special: String,
    /// Add the post-processor's special tokens (BOS/EOS, CLS/SEP).
    #[arg(long = "special", require_equals = true, num_args = 0..=1, default_missing_value = "true", default_value = "true")]
    special: String,
    /// Match special tokens written in the text; false encodes text such as
    /// <|endoftext|> as ordinary characters.
    #[arg(long = "match_special", require_equals = true, num_args = 0..=1, default_missing_value = "true", default_value = "true")]
    match_special: String,
    /// Batch mode: each line of stdin is one input.
    #[arg(long = "batch", require_equals = true, num_args = 0..=1, default_missing_value = "true", default_value = "false")]
    batch: String,
    /// Stream mode: encode all of stdin as one text, printing ids as they
    /// become final.
    #[arg(long = "stream", require_equals = true, num_args = 0..=1, default_missing_value = "true", default_value = "false")]
    stream: String,
    /// Keep at most this many ids of each encoding (0: all).
    #[arg(long = "max_length", require_equals = true, num_args = 0..=1, default_missing_value = "", default_value = "0")]
    max_length: String,
    /// Print the tokenizer's vocabulary size, model type, merge count and
    /// special ids as JSON instead of encoding.
    #[arg(long = "info", require_equals = true, num_args = 0..=1, default_missing_value = "true", default_value = "false")]
    info: String,
    /// Print JSON ({"ids":[...]}, {"text":"..."}) instead of plain text.
    #[arg(long = "json", require_equals = true, num_args = 0..=1, default_missing_value = "true", default_value = "false")]
    json: String,
    /// The input argument is a JSON string (quotes optional; \uXXXX and the
    /// other JSON escapes are decoded).
    #[arg(long = "json_string", require_equals = true, num_args = 0..=1, default_missing_value = "true", default_value = "false")]
    json_string: String,
    /// The tokenizer file: *.tiktoken for tiktoken, anything else is read as
    /// Hugging Face tokenizer.json.
    #[arg(long = "tokenizer", require_equals = true, num_args = 0..=1, default_missing_value = "", default_value = "", value_parser = clap::value_parser!(OsString))]
    tokenizer: OsString,
    /// The tiktoken encoding (cl100k_base, o200k_base, r50k_base,
    /// p50k_base); by default the file name's stem. Ignored for
    /// tokenizer.json.
    #[arg(long = "encoding", require_equals = true, num_args = 0..=1, default_missing_value = "", default_value = "")]
    encoding: String,
    /// Print each id with the input bytes it covers: id[start:end].
    #[arg(long = "offsets", require_equals = true, num_args = 0..=1, default_missing_value = "true", default_value = "false")]
    offsets: String,
    /// Benchmark mode: oneshot, stream or decode, on the input argument.
    #[arg(long = "benchmark", require_equals = true, num_args = 0..=1, default_missing_value = "", default_value = "")]
    benchmark: String,
    /// Timed iterations of --benchmark.
    #[arg(long = "benchmark_iterations", require_equals = true, num_args = 0..=1, default_missing_value = "", default_value = "100")]
    benchmark_iterations: String,
    /// Untimed iterations of --benchmark before the timed ones.
    #[arg(long = "benchmark_warmup", require_equals = true, num_args = 0..=1, default_missing_value = "", default_value = "5")]
    benchmark_warmup: String,
    /// Bytes per feed of --benchmark=stream.
    #[arg(long = "benchmark_chunk_size", require_equals = true, num_args = 0..=1, default_missing_value = "", default_value = "4096")]
    benchmark_chunk_size: String,
}

/// The flags' values, read as upstream reads them.
#[derive(Clone, Debug)]
struct Options {
    decode: bool,
    decode_special: bool,
    special: bool,
    match_special: bool,
    batch: bool,
    stream: bool,
    max_length: i32,
    info: bool,
    json: bool,
    json_string: bool,
    tokenizer: OsString,
    encoding: String,
    offsets: bool,
    benchmark: String,
    benchmark_iterations: i32,
    benchmark_warmup: i32,
    benchmark_chunk_size: i32,
}

/// A bool flag's value: empty (the flag alone), `true` or `1` are true;
/// anything else is false.
fn flag_bool(value: &str) -> bool {
    matches!(value, "" | "true" | "1")
}

/// An int flag's value as C's `atoi` reads it: leading whitespace, a sign,
/// then digits up to the first non-digit; 0 when there are none. Values
/// beyond 32 bits saturate.
fn flag_int(value: &str) -> i32 {
    let text = value.trim_start_matches([' ', '\t', '\n', '\r', '\u{b}', '\u{c}']);
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let mut magnitude: i64 = 0;
    for b in digits.bytes().take_while(u8::is_ascii_digit) {
        magnitude = (magnitude * 10 + i64::from(b - b'0')).min(1 << 32);
    }
    let value = if negative { -magnitude } else { magnitude };
    value.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

impl Options {
    fn from_flags(flags: Flags) -> Options {
        Options {
            decode: flag_bool(&flags.decode),
            decode_special: flag_bool(&flags.decode_special),
            special: flag_bool(&flags.special),
            match_special: flag_bool(&flags.match_special),
            batch: flag_bool(&flags.batch),
            stream: flag_bool(&flags.stream),
            max_length: flag_int(&flags.max_length),
            info: flag_bool(&flags.info),
            json: flag_bool(&flags.json),
            json_string: flag_bool(&flags.json_string),
            tokenizer: flags.tokenizer,
            encoding: flags.encoding,
            offsets: flag_bool(&flags.offsets),
            benchmark: flags.benchmark,
            benchmark_iterations: flag_int(&flags.benchmark_iterations),
            benchmark_warmup: flag_int(&flags.benchmark_warmup),
            benchmark_chunk_size: flag_int(&flags.benchmark_chunk_size),
        }
    }

    fn encode_options(&self) -> EncodeOptions {
        EncodeOptions {
            add_special_tokens: self.special,
            no_special_token_matching: !self.match_special,
        }
    }
}

/// What the command line asks for: the options and the arguments that are
/// not flags. Err is the exit code after printing (`--help`, a bad flag).
fn parse_command_line(
    args: impl IntoIterator<Item = OsString>,
) -> std::result::Result<(Options, Vec<OsString>), u8> {
    let args = iree_base::flagfile::expand_args(args).map_err(|message| {
        eprintln!("{message}");
        1u8
    })?;
    let command = Flags::command();
    let known: Vec<&str> = command
        .get_arguments()
        .filter_map(|a| a.get_long())
        .collect();
    let mut flag_args: Vec<OsString> = vec![OsString::from("iree-tokenize")];
    let mut positional = Vec::new();
    for arg in args.into_iter().skip(1) {
        let bytes = arg.as_encoded_bytes();
        let trimmed = bytes.trim_ascii();
        let Some(body) = trimmed.strip_prefix(b"--") else {
            positional.push(arg);
            continue;
        };
        let (name, value) = match body.iter().position(|&b| b == b'=') {
            Some(at) => (&body[..at], Some(&body[at + 1..])),
            None => (body, None),
        };
        let name = String::from_utf8_lossy(name.trim_ascii()).into_owned();
        if name == "help" {
            print!("{}", iree_tooling::help::upstream_layout_help(&command));
            return Err(0);
        }
        if !known.contains(&name.as_str()) {
            let status = Status::new(
                StatusCode::InvalidArgument,
                format!("flag '{name}' not recognized"),
            );
            eprintln!("{status}");
            return Err(1);
        }
        let mut flag = b"--".to_vec();
        flag.extend_from_slice(name.as_bytes());
        if let Some(value) = value {
            flag.push(b'=');
            flag.extend_from_slice(value.trim_ascii());
        }
        flag_args.push(os_string(flag));
    }
    let flags = command
        .try_get_matches_from(flag_args)
        .and_then(|mut matches| Flags::from_arg_matches_mut(&mut matches))
        .map_err(|e| {
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or("error: invalid arguments");
            eprintln!("{first} (see --help)");
            1u8
        })?;
    Ok((Options::from_flags(flags), positional))
}

/// Bytes of a command-line word (taken from an `OsStr`) as an `OsString`.
#[cfg(unix)]
fn os_string(bytes: Vec<u8>) -> OsString {
    std::os::unix::ffi::OsStringExt::from_vec(bytes)
}

/// Bytes of a command-line word as an `OsString` (not UTF-8: lossily).
#[cfg(not(unix))]
fn os_string(bytes: Vec<u8>) -> OsString {
    OsString::from(String::from_utf8_lossy(&bytes).into_owned())
}

/// Runs `iree-tokenize` with the command line `args` (the program name
/// first, as `std::env::args_os()` gives it) and returns its exit status.
/// Output goes to this process's stdout and stderr.
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> u8 {
    iree_base::tool_setup::init();
    let (options, positional) = match parse_command_line(args) {
        Ok(parsed) => parsed,
        Err(code) => return code,
    };
    if options.tokenizer.is_empty() {
        eprintln!(
            "Error: missing --tokenizer=<file> flag\n{USAGE}\nRun with --help for more information."
        );
        return 1;
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let result = run(
        &options,
        positional.first().map(OsString::as_os_str),
        &mut out,
    );
    let flushed = out.flush();
    let result = result.and_then(|()| flushed.map_err(write_error));
    match result {
        Ok(()) => 0,
        Err(status) => {
            eprintln!("{status}");
            1
        }
    }
}

fn invalid(message: impl Into<String>) -> Status {
    Status::new(StatusCode::InvalidArgument, message)
}

fn write_error(e: std::io::Error) -> Status {
    Status::new(StatusCode::Unavailable, format!("writing stdout: {e}"))
}

fn read_error(e: std::io::Error) -> Status {
    Status::new(StatusCode::Unavailable, format!("reading stdin: {e}"))
}

/// A tokenizer error as a status of the same code.
fn tokenizer_status(error: iree_tokenizer::Error) -> Status {
    use iree_tokenizer::ErrorKind;
    let code = match error.kind() {
        ErrorKind::InvalidArgument => StatusCode::InvalidArgument,
        ErrorKind::NotFound => StatusCode::NotFound,
        ErrorKind::FailedPrecondition => StatusCode::FailedPrecondition,
        ErrorKind::Unimplemented => StatusCode::Unimplemented,
        _ => StatusCode::Internal,
    };
    Status::new(code, error.message())
}

/// Loads `path`: tiktoken under `encoding` (or the encoding the file name
/// names) for `*.tiktoken`, Hugging Face tokenizer.json otherwise.
fn load_tokenizer(path: &OsStr, encoding: &str) -> Result<Tokenizer> {
    let data = std::fs::read(path).map_err(|e| iree_tooling::run::open_error(path, e))?;
    let shown = path.to_string_lossy();
    if let Some(without_extension) = shown.strip_suffix(".tiktoken") {
        let encoding = if encoding.is_empty() {
            without_extension
                .rsplit(['/', '\\'])
                .next()
                .unwrap_or(without_extension)
        } else {
            encoding
        };
        if !TIKTOKEN_ENCODINGS.contains(&encoding) {
            return Err(invalid(format!(
                "unknown tiktoken encoding '{encoding}'; use --encoding with one of: {}",
                TIKTOKEN_ENCODINGS.join(", ")
            )));
        }
        return Tokenizer::from_tiktoken(&data, encoding).map_err(tokenizer_status);
    }
    let text = std::str::from_utf8(&data).map_err(|e| {
        invalid(format!(
            "tokenizer file '{shown}' is not UTF-8 (byte {})",
            e.valid_up_to()
        ))
    })?;
    Tokenizer::from_huggingface_json(text).map_err(tokenizer_status)
}

fn run(options: &Options, input: Option<&OsStr>, out: &mut impl Write) -> Result<()> {
    let tokenizer = load_tokenizer(&options.tokenizer, &options.encoding)?;
    if options.json_string {
        if options.batch || options.stream {
            eprintln!(
                "Error: --json_string is not supported with --batch/--stream\n\
                 (file/stdin input preserves UTF-8; use --json_string only for command-line arguments)"
            );
            return Err(invalid("--json_string requires single input mode"));
        } else if options.decode {
            eprintln!(
                "Error: --json_string is not supported with --decode\n\
                 (decode takes numeric IDs, not text)"
            );
            return Err(invalid("--json_string requires encode mode"));
        }
    }
    let tool = Tool::new(tokenizer, options);
    if options.info {
        return tool.info(out);
    }
    if !options.benchmark.is_empty() {
        let Some(input) = input else {
            eprintln!("Error: --benchmark requires input text argument");
            return Err(invalid("--benchmark requires input text"));
        };
        let text = input_text(input.as_encoded_bytes(), options.json_string)?;
        return tool.benchmark(&text, out);
    }
    if options.stream {
        if options.decode {
            eprintln!("Error: --stream is not supported with --decode");
            return Err(invalid("--stream requires encode mode"));
        }
        return tool.stream(&mut std::io::stdin().lock(), out);
    }
    if options.batch {
        return tool.batch(&mut std::io::stdin().lock(), out);
    }
    let Some(input) = input else {
        eprintln!("Error: missing input text\n{USAGE}");
        return Err(invalid("missing input"));
    };
    let bytes = input.as_encoded_bytes();
    let record = if options.decode {
        tool.decode_record(bytes)?
    } else {
        tool.encode_record(&input_text(bytes, options.json_string)?)?
    };
    out.write_all(record.as_bytes()).map_err(write_error)
}

/// The text of an input argument: JSON-unescaped with `--json_string`,
/// and UTF-8 in any case.
fn input_text(bytes: &[u8], json_string: bool) -> Result<String> {
    let unescaped;
    let bytes = if json_string {
        unescaped = unescape_json_string(bytes)?;
        &unescaped[..]
    } else {
        bytes
    };
    String::from_utf8(bytes.to_vec()).map_err(|e| {
        invalid(format!(
            "input text is not valid UTF-8 (byte {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Decodes a JSON string's escapes (`\n`, `\uXXXX` with surrogate pairs,
/// ...); surrounding double quotes are optional. Errors as upstream words
/// them.
fn unescape_json_string(raw: &[u8]) -> Result<Vec<u8>> {
    let text = match raw {
        [b'"', inner @ .., b'"'] => inner,
        _ => raw,
    };
    let hex4 = |digits: &[u8]| -> Result<u32> {
        let mut value = 0u32;
        for &c in digits {
            let digit = (c as char).to_digit(16).ok_or_else(|| {
                invalid(format!(
                    "invalid hex digit '{}' in unicode escape",
                    String::from_utf8_lossy(&[c])
                ))
            })?;
            value = value << 4 | digit;
        }
        Ok(value)
    };
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let Some(&escape) = text.get(i + 1) else {
            return Err(invalid("escape sequence at end of string"));
        };
        i += 2;
        let simple = match escape {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let Some(digits) = text.get(i..i + 4) else {
                    return Err(invalid("truncated unicode escape"));
                };
                let mut code = hex4(digits)?;
                i += 4;
                if (0xD800..=0xDBFF).contains(&code) {
                    if text.get(i..i + 2) != Some(b"\\u") || i + 6 > text.len() {
                        return Err(invalid("high surrogate not followed by low surrogate"));
                    }
                    let low = hex4(&text[i + 2..i + 6])?;
                    i += 6;
                    if !(0xDC00..=0xDFFF).contains(&low) {
                        return Err(invalid(format!("invalid low surrogate 0x{low:04X}")));
                    }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                } else if (0xDC00..=0xDFFF).contains(&code) {
                    return Err(invalid(format!("unexpected low surrogate 0x{code:04X}")));
                }
                let c = char::from_u32(code)
                    .ok_or_else(|| invalid(format!("invalid unicode codepoint 0x{code:X}")))?;
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                continue;
            }
            other => {
                return Err(invalid(format!(
                    "unrecognized escape sequence '\\{}'",
                    String::from_utf8_lossy(&[other])
                )))
            }
        };
        out.push(simple);
    }
    Ok(out)
}

/// Parses `--decode` input: integers separated by commas and/or blanks
/// (spaces, tabs); a trailing comma is fine. Errors name the byte position,
/// as upstream's do.
fn parse_ids(text: &[u8]) -> Result<Vec<i32>> {
    let blank = |b: u8| b == b' ' || b == b'\t';
    let mut ids = Vec::new();
    let mut at = 0;
    while at < text.len() {
        while at < text.len() && blank(text[at]) {
            at += 1;
        }
        if at >= text.len() {
            break;
        }
        let start = at;
        let negative = text[at] == b'-';
        if negative {
            at += 1;
        }
        let mut magnitude: i64 = 0;
        let digits_start = at;
        while at < text.len() && text[at].is_ascii_digit() {
            magnitude = magnitude * 10 + i64::from(text[at] - b'0');
            if magnitude > 1 << 31 {
                return Err(invalid(format!("number out of range at position {start}")));
            }
            at += 1;
        }
        if at == digits_start {
            return Err(invalid(format!("expected number at position {at}")));
        }
        let value = if negative { -magnitude } else { magnitude };
        let value = i32::try_from(value)
            .map_err(|_| invalid(format!("number out of range at position {start}")))?;
        ids.push(value);
        while at < text.len() && blank(text[at]) {
            at += 1;
        }
        if at < text.len() && text[at] == b',' {
            at += 1;
        }
    }
    Ok(ids)
}

/// Appends `ids` to `line` comma-separated, each with `[start:end]` when
/// offsets are given; `first` says whether nothing precedes them.
fn push_ids(line: &mut String, ids: &[u32], offsets: Option<&[(usize, usize)]>, first: &mut bool) {
    use std::fmt::Write as _;
    for (i, id) in ids.iter().enumerate() {
        if !*first {
            line.push(',');
        }
        *first = false;
        let _ = write!(line, "{id}");
        if let Some((start, end)) = offsets.and_then(|o| o.get(i)) {
            let _ = write!(line, "[{start}:{end}]");
        }
    }
}

/// A JSON number as C's `%.{precision}f` prints it (`inf`, `nan` included).
fn c_float(value: f64, precision: usize) -> String {
    if value.is_nan() {
        "nan".to_string()
    } else if value.is_infinite() {
        if value > 0.0 { "inf" } else { "-inf" }.to_string()
    } else {
        format!("{value:.precision$}")
    }
}

/// Timings of one benchmark.
struct Stats {
    min_ns: i64,
    max_ns: i64,
    total_ns: i64,
    iterations: i32,
    total_input_bytes: usize,
    total_tokens: usize,
    peak_memory: usize,
}

impl Stats {
    fn new() -> Stats {
        Stats {
            min_ns: i64::MAX,
            max_ns: 0,
            total_ns: 0,
            iterations: 0,
            total_input_bytes: 0,
            total_tokens: 0,
            peak_memory: 0,
        }
    }

    fn record(&mut self, started: Instant, input_bytes: usize, tokens: usize) {
        let elapsed = i64::try_from(started.elapsed().as_nanos()).unwrap_or(i64::MAX);
        self.min_ns = self.min_ns.min(elapsed);
        self.max_ns = self.max_ns.max(elapsed);
        self.total_ns = self.total_ns.saturating_add(elapsed);
        self.iterations += 1;
        self.total_input_bytes += input_bytes;
        self.total_tokens += tokens;
    }

    /// The report: one JSON line on stdout with `--json`, otherwise a block
    /// on stderr.
    fn print(&self, mode: &str, json: bool, out: &mut impl Write) -> Result<()> {
        let average_ns = self.total_ns / i64::from(self.iterations.max(1));
        let seconds = self.total_ns as f64 / 1e9;
        let tokens_per_sec = c_float(self.total_tokens as f64 / seconds, 1);
        let mb_per_sec = c_float(self.total_input_bytes as f64 / seconds / 1e6, 3);
        if json {
            writeln!(
                out,
                "{{\"mode\":\"{mode}\",\"iterations\":{},\"total_input_bytes\":{},\"total_tokens\":{},\
                 \"min_ns\":{},\"avg_ns\":{average_ns},\"max_ns\":{},\
                 \"tokens_per_sec\":{tokens_per_sec},\"mb_per_sec\":{mb_per_sec},\"peak_memory_bytes\":{}}}",
                self.iterations,
                self.total_input_bytes,
                self.total_tokens,
                self.min_ns,
                self.max_ns,
                self.peak_memory
            )
            .map_err(write_error)
        } else {
            eprint!(
                "Benchmark: {mode}\n  Iterations:    {}\n  Input bytes:   {} total\n  Tokens:        {} total\n  \
                 Latency (ns):  min={} avg={average_ns} max={}\n  \
                 Throughput:    {tokens_per_sec} tokens/sec, {mb_per_sec} MB/sec\n  Peak memory:   {} bytes\n",
                self.iterations,
                self.total_input_bytes,
                self.total_tokens,
                self.min_ns,
                self.max_ns,
                self.peak_memory
            );
            Ok(())
        }
    }
}

/// The pieces of `text` for a stream benchmark: about `size` bytes each,
/// each ending on a character boundary.
fn char_chunks(text: &str, size: usize) -> Vec<&str> {
    let mut chunks = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let mut end = (at + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        chunks.push(&text[at..end]);
        at = end;
    }
    chunks
}

/// The longest UTF-8 prefix of `bytes`, where the bytes after it may be the
/// start of a character still arriving. Err is the position of a byte that
/// can never be UTF-8.
fn utf8_prefix(bytes: &[u8]) -> std::result::Result<&str, usize> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(e) if e.error_len().is_some() => Err(e.valid_up_to()),
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).map_err(|e| e.valid_up_to()),
    }
}

/// Byte spans `(start, end)` of the input, one per id.
type Offsets = Vec<(usize, usize)>;

/// The loaded tokenizer and the options that shape its output.
struct Tool<'a> {
    tokenizer: Tokenizer,
    /// The general pipeline, whose spans are per token, for `--offsets`.
    general: Option<Tokenizer>,
    options: &'a Options,
}

impl<'a> Tool<'a> {
    fn new(tokenizer: Tokenizer, options: &'a Options) -> Tool<'a> {
        let general = options.offsets.then(|| tokenizer.general_pipeline_only());
        Tool {
            tokenizer,
            general,
            options,
        }
    }

    /// `--info`: `{"vocab_size":N,"model_type":"BPE","merge_count":M,...}`
    /// with the special ids that are configured.
    fn info(&self, out: &mut impl Write) -> Result<()> {
        use std::fmt::Write as _;
        let tokenizer = &self.tokenizer;
        let mut line = format!(
            "{{\"vocab_size\":{},\"model_type\":\"{}\"",
            tokenizer.vocab_capacity(),
            tokenizer.model_type()
        );
        let merges = tokenizer.merge_count();
        if merges > 0 {
            let _ = write!(line, ",\"merge_count\":{merges}");
        }
        let special = tokenizer.special_ids();
        for (name, id) in [
            ("bos_id", special.bos),
            ("eos_id", special.eos),
            ("unk_id", special.unk),
            ("pad_id", special.pad),
            ("cls_id", special.cls),
            ("sep_id", special.sep),
            ("mask_id", special.mask),
        ] {
            if let Some(id) = id {
                let _ = write!(line, ",\"{name}\":{id}");
            }
        }
        line.push_str("}\n");
        out.write_all(line.as_bytes()).map_err(write_error)
    }

    /// The ids of `text` and, with `--offsets`, their byte spans.
    fn encode_ids(&self, text: &str) -> Result<(Vec<u32>, Option<Offsets>)> {
        let options = self.options.encode_options();
        let Some(general) = &self.general else {
            let ids = self
                .tokenizer
                .encode(text, options)
                .map_err(tokenizer_status)?;
            return Ok((ids, None));
        };
        let spans = general
            .encode_spans(text, !options.no_special_token_matching)
            .map_err(tokenizer_status)?;
        let mut ids: Vec<u32> = spans.iter().map(|s| s.id).collect();
        let mut offsets: Vec<(usize, usize)> = spans.iter().map(|s| (s.start, s.end)).collect();
        if !options.add_special_tokens {
            return Ok((ids, Some(offsets)));
        }
        if let Some(affixes) = general.affixes() {
            ids.splice(0..0, affixes.prefix.iter().copied());
            ids.extend_from_slice(&affixes.suffix);
            offsets.splice(0..0, affixes.prefix.iter().map(|_| (0, 0)));
            offsets.extend(affixes.suffix.iter().map(|_| (0, 0)));
            return Ok((ids, Some(offsets)));
        }
        // A post-processor that does not just wrap the sequence: place the
        // text's tokens where they appear in its output.
        let full = general.encode(text, options).map_err(tokenizer_status)?;
        let at = if ids.is_empty() {
            Some(0)
        } else {
            full.windows(ids.len()).position(|w| w == ids.as_slice())
        };
        let at = at.ok_or_else(|| {
            Status::new(
                StatusCode::Unimplemented,
                "--offsets: the post-processor's output does not contain the text's tokens in order",
            )
        })?;
        let mut all = vec![(0, 0); full.len()];
        all[at..at + offsets.len()].copy_from_slice(&offsets);
        Ok((full, Some(all)))
    }

    /// One encoding as printed: ids (`id[start:end]` with `--offsets`) and
    /// a newline, or the JSON object.
    fn encode_record(&self, text: &str) -> Result<String> {
        use std::fmt::Write as _;
        let (mut ids, mut offsets) = self.encode_ids(text)?;
        if let Ok(max) = usize::try_from(self.options.max_length) {
            if max > 0 && ids.len() > max {
                ids.truncate(max);
                if let Some(offsets) = &mut offsets {
                    offsets.truncate(max);
                }
            }
        }
        let mut line = String::with_capacity(ids.len() * 8 + 16);
        if self.options.json {
            line.push_str("{\"ids\":[");
            let mut first = true;
            push_ids(&mut line, &ids, None, &mut first);
            line.push(']');
            if let Some(offsets) = &offsets {
                line.push_str(",\"offsets\":[");
                for (i, (start, end)) in offsets.iter().enumerate() {
                    if i > 0 {
                        line.push(',');
                    }
                    let _ = write!(line, "[{start},{end}]");
                }
                line.push(']');
            }
            line.push_str("}\n");
        } else {
            let mut first = true;
            push_ids(&mut line, &ids, offsets.as_deref(), &mut first);
            line.push('\n');
        }
        Ok(line)
    }

    /// One decoding as printed: the text and a newline, or
    /// `{"text":"..."}`.
    fn decode_record(&self, input: &[u8]) -> Result<String> {
        let ids: Vec<u32> = parse_ids(input)?
            .into_iter()
            .filter_map(|id| u32::try_from(id).ok())
            .collect();
        let text = self
            .tokenizer
            .decode(&ids, !self.options.decode_special)
            .map_err(tokenizer_status)?;
        if self.options.json {
            let mut line = String::from("{\"text\":");
            iree_base::json::push_string(&mut line, &text);
            line.push_str("}\n");
            Ok(line)
        } else {
            Ok(text + "\n")
        }
    }

    /// `--batch`: each line of `input` (without its `\n`; a `\r` stays) is
    /// one input; stops at the first failure.
    fn batch(&self, input: &mut impl BufRead, out: &mut impl Write) -> Result<()> {
        let mut line = Vec::new();
        for number in 1.. {
            line.clear();
            if input.read_until(b'\n', &mut line).map_err(read_error)? == 0 {
                break;
            }
            if line.last() == Some(&b'\n') {
                line.pop();
            }
            let record = if self.options.decode {
                self.decode_record(&line)?
            } else {
                let text = std::str::from_utf8(&line).map_err(|e| {
                    invalid(format!(
                        "line {number} of stdin is not valid UTF-8 (byte {})",
                        e.valid_up_to()
                    ))
                })?;
                self.encode_record(text)?
            };
            out.write_all(record.as_bytes()).map_err(write_error)?;
        }
        Ok(())
    }

    /// `--stream`: all of `input` as one text through the streaming
    /// encoder, ids printed (and flushed) as they become final. The output
    /// is closed (`\n`, or `]}` and `\n`) even when encoding fails.
    fn stream(&self, input: &mut impl Read, out: &mut impl Write) -> Result<()> {
        if self.options.json {
            out.write_all(b"{\"ids\":[").map_err(write_error)?;
        }
        let mut first = true;
        let result = self.stream_ids(input, out, &mut first);
        let close: &[u8] = if self.options.json { b"]}\n" } else { b"\n" };
        let closed = out.write_all(close).map_err(write_error);
        result.and(closed)
    }

    fn stream_ids(
        &self,
        input: &mut impl Read,
        out: &mut impl Write,
        first: &mut bool,
    ) -> Result<()> {
        let mut stream = self.tokenizer.encode_stream(self.options.encode_options());
        let mut emit = |ids: Vec<u32>, out: &mut dyn Write| -> Result<()> {
            if ids.is_empty() {
                return Ok(());
            }
            let mut text = String::with_capacity(ids.len() * 8);
            push_ids(&mut text, &ids, None, first);
            out.write_all(text.as_bytes()).map_err(write_error)?;
            out.flush().map_err(write_error)
        };
        let mut buffer = vec![0u8; 8192];
        let mut pending: Vec<u8> = Vec::new();
        let mut consumed = 0usize;
        loop {
            let read = match input.read(&mut buffer) {
                Ok(0) => break,
                Ok(read) => read,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(read_error(e)),
            };
            pending.extend_from_slice(&buffer[..read]);
            let text = utf8_prefix(&pending).map_err(|at| {
                invalid(format!("stdin is not valid UTF-8 (byte {})", consumed + at))
            })?;
            let ids = stream.feed(text).map_err(tokenizer_status)?;
            let used = text.len();
            emit(ids, out)?;
            pending.drain(..used);
            consumed += used;
        }
        if !pending.is_empty() {
            return Err(invalid(format!(
                "stdin is not valid UTF-8 (byte {}: a character cut short at the end)",
                consumed
            )));
        }
        let ids = stream.finalize().map_err(tokenizer_status)?;
        emit(ids, out)
    }

    /// `--benchmark=MODE` on `text`.
    fn benchmark(&self, text: &str, out: &mut impl Write) -> Result<()> {
        let mode = self.options.benchmark.as_str();
        if !matches!(mode, "oneshot" | "stream" | "decode") {
            return Err(invalid(format!(
                "unknown benchmark mode '{mode}' (expected: oneshot, stream, decode)"
            )));
        }
        if self.options.benchmark_iterations <= 0 {
            return Err(invalid(format!(
                "--benchmark_iterations must be positive (got {})",
                self.options.benchmark_iterations
            )));
        }
        let stats = match mode {
            "oneshot" => self.benchmark_oneshot(text)?,
            "stream" => self.benchmark_stream(text)?,
            _ => self.benchmark_decode(text)?,
        };
        stats.print(mode, self.options.json, out)
    }

    fn encode_plain(&self, text: &str) -> Result<Vec<u32>> {
        self.tokenizer
            .encode(text, self.options.encode_options())
            .map_err(tokenizer_status)
    }

    fn benchmark_oneshot(&self, text: &str) -> Result<Stats> {
        let mut stats = Stats::new();
        for _ in 0..self.options.benchmark_warmup.max(0) {
            self.encode_plain(text)?;
        }
        for _ in 0..self.options.benchmark_iterations {
            let started = Instant::now();
            let ids = self.encode_plain(text)?;
            stats.record(started, text.len(), ids.len());
            stats.peak_memory = stats.peak_memory.max(ids.capacity() * 4);
        }
        Ok(stats)
    }

    fn benchmark_stream(&self, text: &str) -> Result<Stats> {
        let chunk_size = usize::try_from(self.options.benchmark_chunk_size)
            .ok()
            .filter(|&size| size > 0)
            .ok_or_else(|| {
                invalid(format!(
                    "--benchmark_chunk_size must be positive (got {})",
                    self.options.benchmark_chunk_size
                ))
            })?;
        let chunks = char_chunks(text, chunk_size);
        let largest_chunk = chunks.iter().map(|c| c.len()).max().unwrap_or(0);
        let mut stats = Stats::new();
        let warmup = self.options.benchmark_warmup.max(0);
        for iteration in 0..warmup.saturating_add(self.options.benchmark_iterations) {
            let started = Instant::now();
            let mut stream = self.tokenizer.encode_stream(self.options.encode_options());
            let mut tokens = 0;
            let mut largest_output = 0;
            for chunk in &chunks {
                let ids = stream.feed(chunk).map_err(tokenizer_status)?;
                tokens += ids.len();
                largest_output = largest_output.max(ids.capacity() * 4);
            }
            let ids = stream.finalize().map_err(tokenizer_status)?;
            tokens += ids.len();
            largest_output = largest_output.max(ids.capacity() * 4);
            if iteration >= warmup {
                stats.record(started, text.len(), tokens);
                stats.peak_memory = stats.peak_memory.max(largest_chunk + largest_output);
            }
        }
        Ok(stats)
    }

    fn benchmark_decode(&self, text: &str) -> Result<Stats> {
        let ids = self.encode_plain(text)?;
        let skip_special = !self.options.decode_special;
        let mut stats = Stats::new();
        for _ in 0..self.options.benchmark_warmup.max(0) {
            self.tokenizer
                .decode(&ids, skip_special)
                .map_err(tokenizer_status)?;
        }
        for _ in 0..self.options.benchmark_iterations {
            let started = Instant::now();
            let decoded = self
                .tokenizer
                .decode(&ids, skip_special)
                .map_err(tokenizer_status)?;
            stats.record(started, decoded.len(), ids.len());
            stats.peak_memory = stats.peak_memory.max(ids.len() * 4 + decoded.capacity());
        }
        Ok(stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_values_read_as_upstream() {
        assert!(flag_bool("") && flag_bool("true") && flag_bool("1"));
        assert!(!flag_bool("false") && !flag_bool("0") && !flag_bool("yes") && !flag_bool("TRUE"));
        assert_eq!(flag_int("42"), 42);
        assert_eq!(flag_int("  -7x"), -7);
        assert_eq!(flag_int("abc"), 0);
        assert_eq!(flag_int(""), 0);
        assert_eq!(flag_int("99999999999"), i32::MAX);
    }

    #[test]
    fn id_lists() {
        assert_eq!(parse_ids(b"0,19, 21 ,1").unwrap(), vec![0, 19, 21, 1]);
        assert_eq!(parse_ids(b"1 2\t3,").unwrap(), vec![1, 2, 3]);
        assert_eq!(parse_ids(b"").unwrap(), Vec::<i32>::new());
        assert_eq!(parse_ids(b"-1,-2147483648").unwrap(), vec![-1, i32::MIN]);
        let message = |text: &[u8]| parse_ids(text).unwrap_err().message().to_string();
        assert_eq!(message(b"1,,2"), "expected number at position 2");
        assert_eq!(message(b"abc"), "expected number at position 0");
        assert_eq!(message(b"1,-x"), "expected number at position 3");
        assert_eq!(message(b"2147483648"), "number out of range at position 0");
        assert_eq!(
            message(b"5,99999999999999999999"),
            "number out of range at position 2"
        );
    }

    #[test]
    fn json_strings() {
        let un = |s: &str| unescape_json_string(s.as_bytes());
        assert_eq!(un("\"a\\nb\"").unwrap(), b"a\nb");
        assert_eq!(un("caf\\u00e9").unwrap(), "café".as_bytes());
        assert_eq!(un("\\ud83d\\ude00").unwrap(), "😀".as_bytes());
        assert_eq!(un("\\/\\\"\\\\\\b\\f\\r\\t").unwrap(), b"/\"\\\x08\x0c\r\t");
        assert_eq!(un("\"").unwrap(), b"\"");
        let message = |s: &str| un(s).unwrap_err().message().to_string();
        assert_eq!(message("a\\"), "escape sequence at end of string");
        assert_eq!(message("\\u12"), "truncated unicode escape");
        assert_eq!(
            message("\\u12g4"),
            "invalid hex digit 'g' in unicode escape"
        );
        assert_eq!(
            message("\\ud83dx"),
            "high surrogate not followed by low surrogate"
        );
        assert_eq!(message("\\ud83d\\u0041"), "invalid low surrogate 0x0041");
        assert_eq!(message("\\ude00"), "unexpected low surrogate 0xDE00");
        assert_eq!(message("\\q"), "unrecognized escape sequence '\\q'");
    }

    #[test]
    fn chunks_end_on_characters() {
        let text = "aé€😀b";
        for size in 1..12 {
            let chunks = char_chunks(text, size);
            assert_eq!(chunks.concat(), text);
            let (last, full) = chunks.split_last().unwrap();
            assert!(full.iter().all(|c| c.len() >= size && c.len() < size + 4));
            assert!(!last.is_empty() && last.len() < size + 4);
        }
        assert_eq!(utf8_prefix("ab".as_bytes()), Ok("ab"));
        assert_eq!(utf8_prefix(&[b'a', 0xE2, 0x82]), Ok("a"));
        assert_eq!(utf8_prefix(&[b'a', 0xFF, b'b']), Err(1));
    }

    #[test]
    fn c_floats() {
        assert_eq!(c_float(1.26, 1), "1.3");
        assert_eq!(c_float(f64::INFINITY, 3), "inf");
        assert_eq!(c_float(f64::NAN, 1), "nan");
    }
}
