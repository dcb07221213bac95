//! `iree-run-module`'s job: load modules, build a context, parse inputs,
//! invoke one function and print its results exactly as upstream does.
//!
//! The flow and the error annotations follow upstream's tool so that failures
//! read the same: `loading modules and dependencies`, `creating VM context`,
//! `looking up function '…'`, `creating run context`, `parsing function
//! inputs`, `invoking function '…'`, and the function's ABI declaration.

use std::io::{Read, Write};
use std::sync::Arc;

use iree_base::{Result, ResultExt, Status, StatusCode};
use iree_vm::list::List;
use iree_vm::{CconvType, Context, Function, Instance, Module, Value};
use iree_vm_bytecode::BytecodeModule;

use crate::scalar;

/// Options of one run, as the flags give them.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// `--module=` values in order; `-` reads standard input.
    pub modules: Vec<String>,
    /// `--function=`; empty picks the single export.
    pub function: String,
    /// `--input=` values in order.
    pub inputs: Vec<String>,
}

/// Loads a `.vmfb` from a path, or from standard input for `-`.
pub fn load_module(instance: &Arc<Instance>, path: &str) -> Result<Arc<BytecodeModule>> {
    let bytes = if path == "-" {
        let mut bytes = Vec::new();
        std::io::stdin().read_to_end(&mut bytes).map_err(|e| {
            Status::new(
                StatusCode::Unavailable,
                format!("reading module from stdin: {e}"),
            )
        })?;
        bytes
    } else {
        std::fs::read(path).map_err(|e| {
            let code = if e.kind() == std::io::ErrorKind::NotFound {
                StatusCode::NotFound
            } else {
                StatusCode::Unavailable
            };
            Status::new(code, format!("failed to open file '{path}': {e}"))
        })?
    };
    BytecodeModule::from_vec(instance, bytes).annotate_with(|| format!("loading module '{path}'"))
}

/// Picks the only exported function, ignoring `__*` and names containing `$`.
pub fn find_single_export(module: &dyn Module) -> Result<u32> {
    let candidates: Vec<u32> = module
        .exports()
        .iter()
        .enumerate()
        .filter(|(_, e)| !e.name.starts_with("__") && !e.name.contains('$'))
        .map(|(i, _)| i as u32)
        .collect();
    match candidates.as_slice() {
        [one] => Ok(*one),
        [] => Err(Status::new(
            StatusCode::InvalidArgument,
            "no exported functions found in module; at least one must be present",
        )),
        _ => Err(Status::new(
            StatusCode::InvalidArgument,
            "more than one exported function present; --function= must be specified explicitly",
        )),
    }
}

/// Builds the context and resolves the function to run.
pub fn create_run_context(options: &RunOptions) -> Result<(Context, Function)> {
    let instance = Instance::new();
    let mut modules: Vec<Arc<dyn Module>> = Vec::new();
    for path in &options.modules {
        modules.push(load_module(&instance, path).annotate("loading modules and dependencies")?);
    }
    let main = modules.last().cloned().ok_or_else(|| {
        Status::new(
            StatusCode::InvalidArgument,
            "no user module specified; use --module=file.vmfb to load from a file or --module=- to load from stdin",
        )
    })?;
    let context = Context::with_modules(instance, modules).annotate("creating VM context")?;
    let instance = context
        .modules()
        .iter()
        .rev()
        .find(|m| std::ptr::addr_eq(m.module() as *const dyn Module, Arc::as_ptr(&main)))
        .cloned()
        .ok_or_else(|| Status::new(StatusCode::Internal, "main module missing from context"))?;
    let ordinal = if options.function.is_empty() {
        find_single_export(&*main)?
    } else {
        main.lookup_export(&options.function)
            .ok_or_else(|| {
                Status::new(
                    StatusCode::NotFound,
                    format!("no function `{}` exported by module", options.function),
                )
            })
            .annotate_with(|| format!("looking up function '{}'", options.function))?
    };
    Ok((context, Function::new(instance, ordinal)))
}

/// Parses `--input=` texts into argument values following the cconv, in
/// upstream's order of checks: empty text, `(null)`/`(ignored)`, file forms
/// (`@`, `+`, `*`), output storage (`&`), primitives, then tensors.
pub fn parse_inputs(args: &[CconvType], inputs: &[String]) -> Result<Vec<Value>> {
    let mut values = Vec::with_capacity(inputs.len());
    let mut next = args.iter();
    for text in inputs {
        let text = text.trim();
        parse_input(&mut next, text, &mut values)
            .annotate_with(|| format!("parsing input `{text}`"))?;
    }
    Ok(values)
}

fn consume<'a>(next: &mut std::slice::Iter<'a, CconvType>) -> Result<&'a CconvType> {
    next.next().ok_or_else(|| {
        Status::new(
            StatusCode::InvalidArgument,
            "function expected fewer input values",
        )
    })
}

fn parse_input(
    next: &mut std::slice::Iter<'_, CconvType>,
    text: &str,
    values: &mut Vec<Value>,
) -> Result<()> {
    if text.is_empty() {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "no value specified for input",
        ));
    }
    if text == "(null)" || text == "(ignored)" {
        // A null passed for a primitive argument arrives as zero.
        values.push(match consume(next)? {
            CconvType::I32 => Value::I32(0),
            CconvType::I64 => Value::I64(0),
            CconvType::F32 => Value::F32(0.0),
            CconvType::F64 => Value::F64(0.0),
            _ => Value::NULL,
        });
        return Ok(());
    }
    if text.starts_with(['@', '+', '*']) {
        if !text[1..].ends_with(".npy") {
            return Err(Status::new(
                StatusCode::Unimplemented,
                "only numpy (.npy) files are supported for metadata-less variant I/O",
            ));
        }
        return Err(Status::new(
            StatusCode::Unimplemented,
            "numpy inputs need a HAL device, which this build does not have",
        ));
    }
    if text.starts_with('&') {
        return Err(Status::new(
            StatusCode::Unimplemented,
            "output storage inputs need a HAL device, which this build does not have",
        ));
    }
    let value = match consume(next)? {
        CconvType::I32 => Value::I32(scalar::parse_i32(text)?),
        CconvType::I64 => Value::I64(scalar::parse_i64(text)?),
        CconvType::F32 => Value::F32(scalar::parse_f32(text)?),
        CconvType::F64 => Value::F64(scalar::parse_f64(text)?),
        CconvType::Ref => {
            return Err(Status::new(
                StatusCode::Unimplemented,
                "tensor inputs need a HAL device, which this build does not have",
            ))
        }
        CconvType::Variadic(_) => {
            return Err(Status::new(
                StatusCode::Unimplemented,
                "variadic function arguments are not supported",
            ))
        }
    };
    values.push(value);
    Ok(())
}

/// Formats one value the way upstream prints a result (`i32=1`, `(null)`,
/// `vm.list` followed by `child_list[i]: …` lines).
pub fn format_value(value: &Value, out: &mut String) {
    match value {
        Value::I8(v) => out.push_str(&scalar::format_scalar_i8(*v)),
        Value::I16(v) => out.push_str(&scalar::format_scalar_i16(*v)),
        Value::I32(v) => out.push_str(&scalar::format_scalar_i32(*v)),
        Value::I64(v) => out.push_str(&scalar::format_scalar_i64(*v)),
        Value::F32(v) => out.push_str(&scalar::format_scalar_f32(*v)),
        Value::F64(v) => out.push_str(&scalar::format_scalar_f64(*v)),
        Value::Ref(None) => out.push_str("(null)"),
        Value::Ref(Some(r)) => {
            out.push_str(r.ref_type().name());
            out.push('\n');
            match r.downcast::<List>() {
                Some(list) => {
                    for (i, element) in list.to_values().iter().enumerate() {
                        out.push_str(&format!("child_list[{i}]: "));
                        format_value(element, out);
                        out.push('\n');
                    }
                }
                // Upstream has printers only for lists and buffer views.
                None => out.push_str("(no printer)"),
            }
        }
    }
}

/// Runs the function named by `options`; prints to `out`. Returns the exit
/// code on success (0), or the error status.
pub fn run(options: &RunOptions, out: &mut dyn Write) -> Result<i32> {
    let (context, function) = create_run_context(options).annotate("creating run context")?;
    let result = run_function(&context, &function, options, out);
    let result = match (result, function.info().attr("iree.abi.declaration")) {
        (Err(e), Some(decl)) => Err(e.annotate(format!("`{decl}`"))),
        (r, _) => r,
    };
    drop(context);
    result
}

fn run_function(
    context: &Context,
    function: &Function,
    options: &RunOptions,
    out: &mut dyn Write,
) -> Result<i32> {
    let cconv = function.cconv()?;
    let inputs = parse_inputs(&cconv.args, &options.inputs).annotate("parsing function inputs")?;
    let name = function.info().name.clone();
    let io =
        |e: std::io::Error| Status::new(StatusCode::Unavailable, format!("writing output: {e}"));
    writeln!(out, "EXEC @{name}").map_err(io)?;
    out.flush().map_err(io)?;
    let outputs = invoke_checked(context, function, &cconv.args, &inputs)
        .annotate_with(|| format!("invoking function '{name}'"))?;
    let mut text = String::new();
    for (i, value) in outputs.iter().enumerate() {
        text.push_str(&format!("result[{i}]: "));
        format_value(value, &mut text);
        text.push('\n');
    }
    out.write_all(text.as_bytes()).map_err(io)?;
    Ok(0)
}

fn invoke_checked(
    context: &Context,
    function: &Function,
    args: &[CconvType],
    inputs: &[Value],
) -> Result<Vec<Value>> {
    if inputs.len() != args.len() {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!(
                "input list and function mismatch; expected {} arguments but passed {}",
                args.len(),
                inputs.len()
            ),
        ));
    }
    context.invoke(function, inputs)
}
