//! Compiled sharded programs (`testdata/collectives/collectives.mlir`:
//! `flow.collective.*`, `flow.channel.split`) through `iree-run-module`,
//! one process per rank under `mpirun -n 2|4` and alone (rank 0 of 1), on
//! local-sync and local-task, against values computed here; and a rank that
//! fails ending the whole job. Without `mpirun` the tests that launch ranks
//! are reported as ignored, with the reason.

use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use iree_test_support::{require_mpirun, test, TestResult};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn module() -> String {
    root()
        .join("testdata/collectives/collectives.vmfb")
        .display()
        .to_string()
}

fn tool() -> &'static str {
    env!("CARGO_BIN_EXE_iree-run-module")
}

/// Runs `command` with a time limit; (success, stdout, stderr).
fn run(mut command: Command, limit: Duration) -> (bool, String, String) {
    let mut child = command
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!(
                "{command:?} ran past {limit:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn mpirun(ranks: usize) -> Command {
    let mut command = Command::new("mpirun");
    command
        .args([
            "--oversubscribe",
            "--allow-run-as-root",
            "--tag-output",
            "-n",
        ])
        .arg(ranks.to_string());
    command
}

/// The printed result lines of each rank (`result[i]: ` removed, buffer
/// view headers skipped), from `--tag-output` lines `[job,rank]<stdout>:`.
fn results_by_rank(stdout: &str, ranks: usize, tagged: bool) -> Vec<Vec<String>> {
    let mut by_rank = vec![Vec::new(); ranks];
    for line in stdout.lines() {
        let (rank, text) = if tagged {
            let Some(rest) = line.strip_prefix('[') else {
                continue;
            };
            let Some((tag, text)) = rest.split_once("]<stdout>:") else {
                continue;
            };
            let rank: usize = tag.split(',').nth(1).unwrap().parse().unwrap();
            (rank, text)
        } else {
            (0, line)
        };
        if let Some((_, value)) = text.split_once("]: ") {
            if value != "hal.buffer_view" {
                by_rank[rank].push(value.to_string());
            }
        } else if !text.starts_with("EXEC") {
            by_rank[rank].push(text.to_string());
        }
    }
    by_rank
}

/// A value as the tools print it.
fn fmt(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

fn tensor(shape: &str, ty: &str, values: &[f64]) -> String {
    let dims: Vec<usize> = shape.split('x').map(|d| d.parse().unwrap()).collect();
    let body = if dims.len() == 2 {
        values
            .chunks(dims[1])
            .map(|row| {
                format!(
                    "[{}]",
                    row.iter().map(|&v| fmt(v)).collect::<Vec<_>>().join(" ")
                )
            })
            .collect::<String>()
    } else {
        values.iter().map(|&v| fmt(v)).collect::<Vec<_>>().join(" ")
    };
    format!("{shape}x{ty}={body}")
}

/// One function: its input and what rank `r` of `n` prints.
struct Case {
    function: String,
    input: String,
    expected: Box<dyn Fn(usize, usize) -> Vec<String>>,
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    let in4 = [1.0, 2.0, 3.0, 4.0];
    // Each rank adds its rank, except in bf16 functions.
    let shift = |ty: &str, r: usize| if ty == "bf16" { 0.0 } else { r as f64 };
    cases.push(Case {
        function: "rank_and_count".into(),
        input: String::new(),
        expected: Box::new(|r, n| vec![format!("i64={r}"), format!("i64={n}")]),
    });
    for ty in ["f32", "f16", "bf16", "f64", "i8", "i16", "i32", "i64"] {
        let t = ty.to_string();
        cases.push(Case {
            function: format!("all_reduce_sum_{ty}"),
            input: format!("--input=4x{ty}=1,2,3,4"),
            expected: Box::new(move |_, n| {
                let v: Vec<f64> = in4
                    .iter()
                    .map(|x| (0..n).map(|j| x + shift(&t, j)).sum())
                    .collect();
                vec![tensor("4", &t, &v)]
            }),
        });
    }
    for reduction in ["product", "minimum", "maximum", "average"] {
        for ty in ["f32", "f16", "i32"] {
            let t = ty.to_string();
            cases.push(Case {
                function: format!("all_reduce_{reduction}_{ty}"),
                input: format!("--input=4x{ty}=1,2,3,4"),
                expected: Box::new(move |_, n| {
                    let v: Vec<f64> = in4
                        .iter()
                        .map(|x| {
                            let all = (0..n).map(|j| x + j as f64);
                            match reduction {
                                "product" => all.product(),
                                "minimum" => *x,
                                "maximum" => x + (n - 1) as f64,
                                _ if t == "i32" => (all.sum::<f64>() / n as f64).trunc(),
                                _ => all.sum::<f64>() / n as f64,
                            }
                        })
                        .collect();
                    vec![tensor("4", &t, &v)]
                }),
            });
        }
    }
    for n in [2usize, 4] {
        for ty in ["f32", "bf16", "i8"] {
            let t = ty.to_string();
            cases.push(Case {
                function: format!("all_gather_{n}_{ty}"),
                input: format!("--input=2x{ty}=1,2"),
                expected: Box::new(move |_, count| {
                    if count != n {
                        return vec!["(skipped)".into()];
                    }
                    let v: Vec<f64> = (0..2 * n)
                        .map(|k| [1.0, 2.0][k % 2] + shift(&t, k / 2))
                        .collect();
                    vec![tensor(&(2 * n).to_string(), &t, &v)]
                }),
            });
            let t = ty.to_string();
            cases.push(Case {
                function: format!("reduce_scatter_{n}_{ty}"),
                input: format!("--input=4x2x{ty}=1,2,3,4,5,6,7,8"),
                expected: Box::new(move |r, count| {
                    if count != n {
                        return vec!["(skipped)".into()];
                    }
                    let rows = 4 / n;
                    let v: Vec<f64> = (0..rows * 2)
                        .map(|k| {
                            let x = (r * rows * 2 + k + 1) as f64;
                            (0..n).map(|j| x + shift(&t, j)).sum()
                        })
                        .collect();
                    vec![tensor(&format!("{rows}x2"), &t, &v)]
                }),
            });
        }
    }
    for ty in ["f32", "i64", "f16"] {
        let t = ty.to_string();
        cases.push(Case {
            function: format!("all_to_all_{ty}"),
            input: format!("--input=4x{ty}=1,2,3,4"),
            expected: Box::new(move |r, n| {
                let part = 4 / n;
                let v: Vec<f64> = (0..4)
                    .map(|k| in4[r * part + k % part] + (k / part) as f64)
                    .collect();
                vec![tensor("4", &t, &v)]
            }),
        });
        let t = ty.to_string();
        cases.push(Case {
            function: format!("send_recv_ring_{ty}"),
            input: format!("--input=4x{ty}=1,2,3,4"),
            expected: Box::new(move |r, n| {
                let source = (r + n - 1) % n;
                let v: Vec<f64> = in4.iter().map(|x| x + source as f64).collect();
                vec![tensor("4", &t, &v)]
            }),
        });
    }
    cases.push(Case {
        function: "split_all_reduce".into(),
        input: "--input=4xf32=1,2,3,4".into(),
        expected: Box::new(move |r, n| {
            let members: Vec<usize> = (0..n).filter(|j| j % 2 == r % 2).collect();
            let v: Vec<f64> = in4
                .iter()
                .map(|x| members.iter().map(|&j| x + j as f64).sum())
                .collect();
            let position = members.iter().position(|&j| j == r).unwrap();
            vec![
                tensor("4", "f32", &v),
                format!("i64={position}"),
                format!("i64={}", members.len()),
            ]
        }),
    });
    cases.push(Case {
        function: "scale_reduce_scale".into(),
        input: "--input=4xf32=1,2,3,4".into(),
        expected: Box::new(move |_, n| {
            let v: Vec<f64> = in4
                .iter()
                .map(|x| (0..n).map(|j| 2.0 * (x + j as f64)).sum::<f64>() + x)
                .collect();
            vec![tensor("4", "f32", &v)]
        }),
    });
    cases
}

fn check_case(case: &Case, device: &str, ranks: usize) {
    let expected: Vec<Vec<String>> = (0..ranks).map(|r| (case.expected)(r, ranks)).collect();
    if expected[0] == ["(skipped)"] {
        return;
    }
    let mut command = if ranks == 1 {
        Command::new(tool())
    } else {
        let mut c = mpirun(ranks);
        c.arg(tool());
        c
    };
    command.args([
        format!("--device={device}"),
        format!("--module={}", module()),
        format!("--function={}", case.function),
    ]);
    if !case.input.is_empty() {
        command.arg(&case.input);
    }
    let (ok, stdout, stderr) = run(command, Duration::from_secs(120));
    assert!(
        ok,
        "{} on {device} x{ranks} failed:\n{stdout}\n{stderr}",
        case.function
    );
    let got = results_by_rank(&stdout, ranks, ranks > 1);
    assert_eq!(
        got, expected,
        "{} on {device} x{ranks}:\n{stdout}",
        case.function
    );
}

fn compiled_collectives_one_rank() -> TestResult {
    for case in cases() {
        for device in ["local-sync", "local-task"] {
            check_case(&case, device, 1);
        }
    }
    Ok(())
}

fn compiled_collectives_over_mpi() -> TestResult {
    require_mpirun()?;
    let cases = cases();
    for ranks in [2, 4] {
        for device in ["local-sync", "local-task"] {
            for case in &cases {
                // Four ranks: one device runs every function, the other a
                // sample, to keep the test short on small machines.
                let sampled = ranks == 4
                    && device == "local-sync"
                    && !["all_reduce_sum_f32", "split_all_reduce", "all_to_all_f32"]
                        .contains(&case.function.as_str());
                if !sampled {
                    check_case(case, device, ranks);
                }
            }
        }
    }
    Ok(())
}

/// Rank 1 gets a bad input and fails before the collective; rank 0, waiting
/// in it, is ended with the job, which exits with an error naming the
/// failure instead of hanging.
fn failing_rank_ends_the_job() -> TestResult {
    require_mpirun()?;
    let mut command = mpirun(1);
    let args = |input: &str| {
        vec![
            tool().to_string(),
            "--device=local-task".into(),
            format!("--module={}", module()),
            "--function=all_reduce_sum_f32".into(),
            input.to_string(),
        ]
    };
    command
        .args(args("--input=4xf32=1,2,3,4"))
        .args([":", "-n", "1"])
        .args(args("--input=3xf32=1,2,3"));
    let start = Instant::now();
    let (ok, stdout, stderr) = run(command, Duration::from_secs(60));
    assert!(!ok, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("INVALID_ARGUMENT") || stdout.contains("INVALID_ARGUMENT"),
        "{stdout}\n{stderr}"
    );
    assert!(start.elapsed() < Duration::from_secs(60));
    Ok(())
}

/// A row-parallel linear layer (`testdata/collectives/tp_linear.mlir`):
/// each rank multiplies its slice of the contraction dimension and an
/// all_reduce sums the partial products; every rank's result (`tp_linear`,
/// alone as rank 0 of 1 and under `mpirun`) must equal the unsharded
/// product (`dense`) computed by one process.
fn tp_linear(command: Command, device: &str, function: &str) -> Command {
    let mut command = command;
    let module = root()
        .join("testdata/collectives/tp_linear.vmfb")
        .display()
        .to_string();
    command.args([
        format!("--device={device}"),
        format!("--module={module}"),
        format!("--function={function}"),
    ]);
    command.args([
        "--input=2x8xf32=[1 2 3 4 5 6 7 8][-1 0.5 2 -3 4 0 1 2]",
        "--input=8x3xf32=[1 0 2][0 1 1][2 2 0][1 -1 1][0 3 1][2 0 0][1 1 1][-1 2 0.5]",
    ]);
    command
}

/// What the unsharded layer prints.
const TP_EXPECTED: &str = "2x3xf32=[22 42 24][-1 24.5 1.5]";

fn tensor_parallel_layer_equals_the_unsharded_one() -> TestResult {
    for (device, function) in [("local-sync", "dense"), ("local-task", "tp_linear")] {
        let (ok, stdout, stderr) = run(
            tp_linear(Command::new(tool()), device, function),
            Duration::from_secs(60),
        );
        assert!(ok, "{function} on {device}: {stderr}");
        assert_eq!(
            results_by_rank(&stdout, 1, false),
            [[TP_EXPECTED]],
            "{function} on {device}"
        );
    }
    Ok(())
}

fn tensor_parallel_layer_over_mpi() -> TestResult {
    require_mpirun()?;
    for ranks in [2, 4] {
        for device in ["local-sync", "local-task"] {
            let mut command = mpirun(ranks);
            command.arg(tool());
            let (ok, stdout, stderr) = run(
                tp_linear(command, device, "tp_linear"),
                Duration::from_secs(120),
            );
            assert!(ok, "{device} x{ranks}: {stdout}\n{stderr}");
            assert_eq!(
                results_by_rank(&stdout, ranks, true),
                vec![vec![TP_EXPECTED.to_string()]; ranks],
                "{device} x{ranks}:\n{stdout}"
            );
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    iree_test_support::run(vec![
        test(
            "compiled_collectives_one_rank",
            compiled_collectives_one_rank,
        ),
        test(
            "compiled_collectives_over_mpi",
            compiled_collectives_over_mpi,
        ),
        test("failing_rank_ends_the_job", failing_rank_ends_the_job),
        test(
            "tensor_parallel_layer_equals_the_unsharded_one",
            tensor_parallel_layer_equals_the_unsharded_one,
        ),
        test(
            "tensor_parallel_layer_over_mpi",
            tensor_parallel_layer_over_mpi,
        ),
    ])
}
