//! [`Value`]: what calls take and return.

use iree_base::{Result, Status, StatusCode};
use iree_modules_hal::HalBufferView;
use iree_vm::list::{List, ListElementType};
use iree_vm::Ref;

use crate::tensor::Tensor;

/// A function argument or result: a scalar, a tensor, or another VM ref
/// (lists, buffers, HAL objects) for the lower-level paths.
#[derive(Clone, Debug)]
pub enum Value {
    /// `i32`
    I32(i32),
    /// `i64`
    I64(i64),
    /// `f32`
    F32(f32),
    /// `f64`
    F64(f64),
    /// `tensor<...>` (a `!hal.buffer_view`).
    Tensor(Tensor),
    /// A `!vm.list<?>` of values (results of any list type come back as
    /// this too).
    List(Vec<Value>),
    /// Any other ref; `None` is the null ref.
    Ref(Option<Ref>),
}

impl Value {
    /// The VM value this is (tensors become `!hal.buffer_view` refs).
    pub(crate) fn into_vm(self) -> Result<iree_vm::Value> {
        Ok(match self {
            Value::I32(v) => iree_vm::Value::I32(v),
            Value::I64(v) => iree_vm::Value::I64(v),
            Value::F32(v) => iree_vm::Value::F32(v),
            Value::F64(v) => iree_vm::Value::F64(v),
            Value::Tensor(t) => {
                iree_vm::Value::Ref(Some(Ref::new(HalBufferView(t.view().clone()))))
            }
            Value::List(values) => {
                let list = List::with_capacity(ListElementType::Variant, values.len())?;
                for value in values {
                    list.push(value.into_vm()?)?;
                }
                iree_vm::Value::Ref(Some(Ref::new(list)))
            }
            Value::Ref(r) => iree_vm::Value::Ref(r),
        })
    }

    /// The value a VM result is (buffer views become tensors).
    pub(crate) fn from_vm(value: iree_vm::Value) -> Result<Value> {
        Ok(match value {
            iree_vm::Value::I32(v) => Value::I32(v),
            iree_vm::Value::I64(v) => Value::I64(v),
            iree_vm::Value::F32(v) => Value::F32(v),
            iree_vm::Value::F64(v) => Value::F64(v),
            iree_vm::Value::Ref(Some(r)) => {
                if let Some(view) = r.downcast::<HalBufferView>() {
                    Value::Tensor(Tensor::from_view(view.0.clone()))
                } else if let Some(list) = r.downcast::<List>() {
                    Value::List(
                        list.to_values()
                            .into_iter()
                            .map(Value::from_vm)
                            .collect::<Result<_>>()?,
                    )
                } else {
                    Value::Ref(Some(r))
                }
            }
            iree_vm::Value::Ref(None) => Value::Ref(None),
            other => {
                return Err(Status::new(
                    StatusCode::Unimplemented,
                    format!("unsupported result value {other:?}"),
                ))
            }
        })
    }
}

impl From<Tensor> for Value {
    fn from(tensor: Tensor) -> Value {
        Value::Tensor(tensor)
    }
}

macro_rules! scalar_conversions {
    ($($t:ty => $variant:ident),*) => {$(
        impl From<$t> for Value {
            fn from(value: $t) -> Value {
                Value::$variant(value)
            }
        }

        impl TryFrom<Value> for $t {
            type Error = Status;

            fn try_from(value: Value) -> Result<$t> {
                match value {
                    Value::$variant(v) => Ok(v),
                    other => Err(mismatch(stringify!($t), &other)),
                }
            }
        }
    )*};
}
scalar_conversions!(i32 => I32, i64 => I64, f32 => F32, f64 => F64);

impl From<Vec<Value>> for Value {
    fn from(values: Vec<Value>) -> Value {
        Value::List(values)
    }
}

impl TryFrom<Value> for Vec<Value> {
    type Error = Status;

    fn try_from(value: Value) -> Result<Vec<Value>> {
        match value {
            Value::List(values) => Ok(values),
            other => Err(mismatch("a list", &other)),
        }
    }
}

impl TryFrom<Value> for Tensor {
    type Error = Status;

    fn try_from(value: Value) -> Result<Tensor> {
        match value {
            Value::Tensor(t) => Ok(t),
            other => Err(mismatch("a tensor", &other)),
        }
    }
}

fn mismatch(wanted: &str, got: &Value) -> Status {
    let got = match got {
        Value::I32(_) => "an i32",
        Value::I64(_) => "an i64",
        Value::F32(_) => "an f32",
        Value::F64(_) => "an f64",
        Value::Tensor(_) => "a tensor",
        Value::List(_) => "a list",
        Value::Ref(None) => "a null ref",
        Value::Ref(Some(_)) => "a ref",
    };
    Status::new(
        StatusCode::InvalidArgument,
        format!("expected {wanted} but the value is {got}"),
    )
}
