//! [`Value`]: a VM register value, primitive or ref.

use crate::refs::Ref;
use crate::types::ValueType;

/// A single VM value: a primitive or a (possibly null) ref.
#[derive(Clone, Debug)]
pub enum Value {
    /// 8-bit integer (list elements only).
    I8(i8),
    /// 16-bit integer (list elements only).
    I16(i16),
    /// 32-bit integer (also i1 booleans).
    I32(i32),
    /// 64-bit integer.
    I64(i64),
    /// 32-bit float.
    F32(f32),
    /// 64-bit float.
    F64(f64),
    /// A reference; `None` is the null ref.
    Ref(Option<Ref>),
}

impl Value {
    /// The null ref.
    pub const NULL: Value = Value::Ref(None);

    /// The primitive type, or `None` for refs.
    pub fn value_type(&self) -> Option<ValueType> {
        Some(match self {
            Value::I8(_) => ValueType::I8,
            Value::I16(_) => ValueType::I16,
            Value::I32(_) => ValueType::I32,
            Value::I64(_) => ValueType::I64,
            Value::F32(_) => ValueType::F32,
            Value::F64(_) => ValueType::F64,
            Value::Ref(_) => return None,
        })
    }

    /// The zero value of a primitive type.
    pub fn zero(ty: ValueType) -> Value {
        match ty {
            ValueType::I8 => Value::I8(0),
            ValueType::I16 => Value::I16(0),
            ValueType::I32 => Value::I32(0),
            ValueType::I64 => Value::I64(0),
            ValueType::F32 => Value::F32(0.0),
            ValueType::F64 => Value::F64(0.0),
        }
    }

    /// True for `Value::Ref`.
    pub fn is_ref(&self) -> bool {
        matches!(self, Value::Ref(_))
    }
}

impl Default for Value {
    fn default() -> Value {
        Value::NULL
    }
}

impl From<i32> for Value {
    fn from(v: i32) -> Value {
        Value::I32(v)
    }
}
impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::I64(v)
    }
}
impl From<f32> for Value {
    fn from(v: f32) -> Value {
        Value::F32(v)
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::F64(v)
    }
}
impl From<Ref> for Value {
    fn from(v: Ref) -> Value {
        Value::Ref(Some(v))
    }
}
impl From<Option<Ref>> for Value {
    fn from(v: Option<Ref>) -> Value {
        Value::Ref(v)
    }
}
