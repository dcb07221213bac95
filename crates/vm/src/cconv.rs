//! Calling-convention strings (`0rIIiiCID_r`): parsing and argument checks.
//!
//! Grammar: a version character `0`, the argument types, then optionally `_`
//! and the result types. Types are `i` (i32), `I` (i64), `f` (f32), `F` (f64),
//! `r` (ref) and `v` (void, a placeholder for "none"). `C...D` encloses a
//! variadic list of tuples of the enclosed types. Flattened, a variadic span
//! is an i32 count followed by `count` tuples, as in upstream's native ABI.

use std::fmt;

use iree_base::{Result, Status, StatusCode};

use crate::value::Value;

/// One element of a calling convention.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CconvType {
    /// `i`
    I32,
    /// `I`
    I64,
    /// `f`
    F32,
    /// `F`
    F64,
    /// `r`
    Ref,
    /// `C...D`: a count followed by that many tuples of these types.
    Variadic(Vec<CconvType>),
}

impl CconvType {
    fn push_char(&self, out: &mut String) {
        match self {
            CconvType::I32 => out.push('i'),
            CconvType::I64 => out.push('I'),
            CconvType::F32 => out.push('f'),
            CconvType::F64 => out.push('F'),
            CconvType::Ref => out.push('r'),
            CconvType::Variadic(tuple) => {
                out.push('C');
                for t in tuple {
                    t.push_char(out);
                }
                out.push('D');
            }
        }
    }

    /// True when `value` has this (non-variadic) type.
    pub fn accepts(&self, value: &Value) -> bool {
        matches!(
            (self, value),
            (CconvType::I32, Value::I32(_))
                | (CconvType::I64, Value::I64(_))
                | (CconvType::F32, Value::F32(_))
                | (CconvType::F64, Value::F64(_))
                | (CconvType::Ref, Value::Ref(_))
        )
    }
}

/// A parsed calling convention.
#[derive(Clone, PartialEq, Eq)]
pub struct Cconv {
    /// Argument types.
    pub args: Vec<CconvType>,
    /// Result types.
    pub results: Vec<CconvType>,
}

impl Cconv {
    /// Parses a cconv string; fails with INVALID_ARGUMENT on malformed text.
    pub fn parse(text: &str) -> Result<Cconv> {
        let bad = |why: &str| {
            Status::new(
                StatusCode::InvalidArgument,
                format!("invalid calling convention '{text}': {why}"),
            )
        };
        let bytes = text.as_bytes();
        if bytes.first() != Some(&b'0') {
            return Err(bad("unsupported version (expected '0')"));
        }
        let body = &bytes[1..];
        let (arg_text, result_text) = match body.iter().position(|&c| c == b'_') {
            Some(p) => (&body[..p], Some(&body[p + 1..])),
            None => (body, None),
        };
        let args = parse_list(arg_text, true).map_err(&bad)?;
        let results = match result_text {
            Some(r) => parse_list(r, false).map_err(bad)?,
            None => Vec::new(),
        };
        Ok(Cconv { args, results })
    }

    /// The canonical string form.
    pub fn to_cconv_string(&self) -> String {
        let mut s = String::from("0");
        if self.args.is_empty() {
            s.push('v');
        }
        for a in &self.args {
            a.push_char(&mut s);
        }
        s.push('_');
        if self.results.is_empty() {
            s.push('v');
        }
        for r in &self.results {
            r.push_char(&mut s);
        }
        s
    }

    /// Checks a flattened argument list against `types` (variadic spans as
    /// an i32 count followed by the tuples). `what` names the list in errors.
    pub fn check_values(types: &[CconvType], values: &[Value], what: &str) -> Result<()> {
        let mut i = 0usize;
        for (n, ty) in types.iter().enumerate() {
            match ty {
                CconvType::Variadic(tuple) => {
                    let count = match values.get(i) {
                        Some(Value::I32(c)) if *c >= 0 => *c as usize,
                        _ => {
                            return Err(Status::new(
                                StatusCode::InvalidArgument,
                                format!("{what} {n}: expected a variadic span count"),
                            ))
                        }
                    };
                    i += 1;
                    for _ in 0..count {
                        for t in tuple {
                            check_one(t, values.get(i), what, n)?;
                            i += 1;
                        }
                    }
                }
                _ => {
                    check_one(ty, values.get(i), what, n)?;
                    i += 1;
                }
            }
        }
        if i != values.len() {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "{what} count mismatch: expected {i} values but have {}",
                    values.len()
                ),
            ));
        }
        Ok(())
    }
}

fn check_one(ty: &CconvType, value: Option<&Value>, what: &str, n: usize) -> Result<()> {
    match value {
        Some(v) if ty.accepts(v) => Ok(()),
        Some(v) => Err(Status::new(
            StatusCode::InvalidArgument,
            format!("{what} {n} type mismatch: expected {ty:?} but have {v:?}"),
        )),
        None => Err(Status::new(
            StatusCode::InvalidArgument,
            format!("{what} count mismatch: missing {what} {n}"),
        )),
    }
}

fn parse_list(text: &[u8], _is_args: bool) -> std::result::Result<Vec<CconvType>, &'static str> {
    let mut out = Vec::new();
    let mut i = 0;
    parse_seq(text, &mut i, &mut out, false)?;
    // A lone `v` means "none".
    Ok(out)
}

fn parse_seq(
    text: &[u8],
    i: &mut usize,
    out: &mut Vec<CconvType>,
    in_variadic: bool,
) -> std::result::Result<(), &'static str> {
    while *i < text.len() {
        let c = text[*i];
        *i += 1;
        let ty = match c {
            b'i' => CconvType::I32,
            b'I' => CconvType::I64,
            b'f' => CconvType::F32,
            b'F' => CconvType::F64,
            b'r' => CconvType::Ref,
            b'v' => continue,
            b'C' => {
                if in_variadic {
                    return Err("nested variadic spans are not supported");
                }
                let mut tuple = Vec::new();
                parse_seq(text, i, &mut tuple, true)?;
                if tuple.is_empty() {
                    return Err("empty variadic span");
                }
                CconvType::Variadic(tuple)
            }
            b'D' if in_variadic => return Ok(()),
            _ => return Err("unexpected character"),
        };
        out.push(ty);
    }
    if in_variadic {
        Err("unterminated variadic span")
    } else {
        Ok(())
    }
}

impl fmt::Debug for Cconv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_cconv_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_variadic() {
        let c = Cconv::parse("0rIIiiCID_r").unwrap();
        assert_eq!(c.args.len(), 6);
        assert_eq!(c.args[5], CconvType::Variadic(vec![CconvType::I64]));
        assert_eq!(c.results, vec![CconvType::Ref]);
        assert_eq!(c.to_cconv_string(), "0rIIiiCID_r");
        let v = Cconv::parse("0v_i").unwrap();
        assert!(v.args.is_empty());
        assert_eq!(v.to_cconv_string(), "0v_i");
        assert!(Cconv::parse("1i_i").is_err());
        assert!(Cconv::parse("0Ci_i").is_err());
        assert!(Cconv::parse("0x").is_err());
    }

    #[test]
    fn checks_flattened_values() {
        let c = Cconv::parse("0iCiID_v").unwrap();
        let ok = [
            Value::I32(1),
            Value::I32(2),
            Value::I32(3),
            Value::I64(4),
            Value::I32(5),
            Value::I64(6),
        ];
        Cconv::check_values(&c.args, &ok, "argument").unwrap();
        let bad = [Value::I32(1), Value::I32(1), Value::I32(3), Value::I32(4)];
        assert!(Cconv::check_values(&c.args, &bad, "argument").is_err());
    }
}
