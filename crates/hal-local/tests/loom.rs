//! Model checks of the local device's queue and worker pool under every
//! interleaving loom explores. Run with
//! `RUSTFLAGS="--cfg loom" cargo test -p iree-hal-local --test loom --release`
//! (`cargo xtask loom` runs every loom test).
#![cfg(loom)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use iree_base::{Status, StatusCode};
use iree_hal::{Fence, Semaphore};
use iree_hal_local::{DeferredExecution, Queue, WorkerPool};
use loom::thread;

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(f);
}

/// An operation submitted before its wait is signaled (by another thread)
/// runs exactly once on the executor thread and then signals its fence; the
/// host waiting on that fence always wakes; dropping the queue joins the
/// executor.
#[test]
fn deferred_operation_completes_and_wakes_the_waiter() {
    model(|| {
        let queue = Queue::new(DeferredExecution::ExecutorThread);
        let semaphore = Semaphore::new(0);
        let mut wait = Fence::new();
        wait.insert(semaphore.clone(), 1);
        let signal = Fence::with_new_semaphore();
        let runs = Arc::new(AtomicUsize::new(0));
        {
            let runs = runs.clone();
            queue
                .submit(
                    &wait,
                    &signal,
                    Box::new(move || {
                        runs.fetch_add(1, Ordering::SeqCst);
                        Ok(())
                    }),
                )
                .unwrap();
        }
        let signaler = thread::spawn(move || semaphore.signal(1).unwrap());
        signal.wait(None).unwrap();
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        signaler.join().unwrap();
        drop(queue);
    });
}

/// A failing deferred operation fails its fence with the root cause, and a
/// second operation chained on that fence fails with it without running.
#[test]
fn failures_propagate_through_chained_operations() {
    model(|| {
        let queue = Queue::new(DeferredExecution::ExecutorThread);
        let host = Fence::with_new_semaphore();
        let first = Fence::with_new_semaphore();
        let second = Fence::with_new_semaphore();
        queue
            .submit(
                &host,
                &first,
                Box::new(|| Err(Status::new(StatusCode::DataLoss, "root cause"))),
            )
            .unwrap();
        let ran = Arc::new(AtomicUsize::new(0));
        {
            let ran = ran.clone();
            let _ = queue.submit(
                &first,
                &second,
                Box::new(move || {
                    ran.fetch_add(1, Ordering::SeqCst);
                    Ok(())
                }),
            );
        }
        let signaler = {
            let host = host.clone();
            thread::spawn(move || host.signal().unwrap())
        };
        let err = second.wait(None).unwrap_err();
        assert_eq!(err.code(), StatusCode::DataLoss);
        assert_eq!(ran.load(Ordering::SeqCst), 0);
        signaler.join().unwrap();
        drop(queue);
    });
}

/// Worker 0 runs each job; a helper joins at most once (here after
/// `wake_helpers`, or not at all if the job closes first); no call runs
/// after `run` returns; consecutive jobs never mix; dropping the pool joins
/// its helpers.
#[test]
fn pool_runs_each_job_once_per_worker() {
    model(|| {
        let pool = WorkerPool::new(2);
        for _ in 0..2 {
            let returned = AtomicUsize::new(0);
            let calls = AtomicUsize::new(0);
            let mask = AtomicUsize::new(0);
            pool.run(&|worker| {
                assert_eq!(returned.load(Ordering::SeqCst), 0);
                if worker == 0 {
                    pool.wake_helpers();
                }
                calls.fetch_add(1, Ordering::SeqCst);
                mask.fetch_or(1 << worker, Ordering::SeqCst);
            });
            returned.store(1, Ordering::SeqCst);
            assert!(calls.load(Ordering::SeqCst) <= 2);
            assert_eq!(mask.load(Ordering::SeqCst) & 1, 1);
        }
        drop(pool);
    });
}

/// A kernel for region models: counts runs per workgroup (x), failing the
/// workgroup `fail_at` when set.
struct CountingKernel {
    exports: Vec<iree_hal_local::ExportInfo>,
    runs: Vec<AtomicUsize>,
    fail_at: Option<u32>,
}

impl CountingKernel {
    fn new(workgroups: usize, fail_at: Option<u32>) -> CountingKernel {
        CountingKernel {
            exports: vec![iree_hal_local::ExportInfo::new(
                "count",
                iree_hal_local::DispatchAttrsV0::default(),
            )],
            runs: (0..workgroups).map(|_| AtomicUsize::new(0)).collect(),
            fail_at,
        }
    }
}

impl iree_hal_local::WorkgroupExecutable for CountingKernel {
    fn exports(&self) -> &[iree_hal_local::ExportInfo] {
        &self.exports
    }

    unsafe fn run_workgroup(
        &self,
        _ordinal: usize,
        _dispatch: &iree_hal_local::DispatchStateV0,
        workgroup: &iree_hal_local::WorkgroupStateV0,
    ) -> iree_base::Result<i32> {
        let x = workgroup.workgroup_id_x;
        self.runs[x as usize].fetch_add(1, Ordering::SeqCst);
        Ok(i32::from(self.fail_at == Some(x)))
    }
}

/// Runs one region of two grids (2 and 1 workgroups) on a two-worker pool.
fn run_region(
    first: &CountingKernel,
    second: &CountingKernel,
    pool: &WorkerPool,
) -> iree_base::Result<()> {
    use iree_hal_local::dispatch::{DeviceBindings, PreparedGrid, Region, Work, Workers};
    let mut guards = DeviceBindings::default();
    let items = vec![
        Work::Grid(PreparedGrid::new(
            first,
            0,
            &[],
            &[],
            [2, 1, 1],
            2,
            0,
            &mut guards,
        )?),
        Work::Grid(PreparedGrid::new(
            second,
            0,
            &[],
            &[],
            [1, 1, 1],
            2,
            0,
            &mut guards,
        )?),
    ];
    Region::new(&items, &guards)?.run(Workers::Pool(pool))
}

/// Workers claiming tiles of a region from one counter run every tile of
/// every item exactly once, whichever worker gets which.
#[test]
fn region_tiles_run_exactly_once() {
    model(|| {
        let pool = WorkerPool::new(2);
        let (first, second) = (CountingKernel::new(2, None), CountingKernel::new(1, None));
        run_region(&first, &second, &pool).unwrap();
        for runs in first.runs.iter().chain(&second.runs) {
            assert_eq!(runs.load(Ordering::SeqCst), 1);
        }
        drop(pool);
    });
}

/// A failing tile fails the region with its status; no tile runs twice,
/// whatever the other worker had claimed.
#[test]
fn a_failing_tile_fails_its_region_once() {
    model(|| {
        let pool = WorkerPool::new(2);
        let (first, second) = (
            CountingKernel::new(2, Some(0)),
            CountingKernel::new(1, None),
        );
        let error = run_region(&first, &second, &pool).unwrap_err();
        assert_eq!(error.code(), StatusCode::Internal);
        assert_eq!(first.runs[0].load(Ordering::SeqCst), 1);
        for runs in first.runs.iter().chain(&second.runs) {
            assert!(runs.load(Ordering::SeqCst) <= 1);
        }
        drop(pool);
    });
}

/// Tiles handed out in batches (34 workgroups: two per claim) still run
/// exactly once each, and a failing tile stops the region once.
#[test]
fn batched_claims_run_each_tile_once() {
    use iree_hal_local::dispatch::{DeviceBindings, PreparedGrid, Region, Work, Workers};
    for fail_at in [None, Some(5)] {
        model(move || {
            let pool = WorkerPool::new(2);
            let kernel = CountingKernel::new(34, fail_at);
            let result = (|| {
                let mut guards = DeviceBindings::default();
                let items = vec![Work::Grid(PreparedGrid::new(
                    &kernel,
                    0,
                    &[],
                    &[],
                    [34, 1, 1],
                    2,
                    0,
                    &mut guards,
                )?)];
                Region::new(&items, &guards)?.run(Workers::Pool(&pool))
            })();
            assert_eq!(result.is_err(), fail_at.is_some());
            for (x, runs) in kernel.runs.iter().enumerate() {
                let runs = runs.load(Ordering::SeqCst);
                match fail_at {
                    None => assert_eq!(runs, 1, "workgroup {x}"),
                    Some(_) => assert!(runs <= 1, "workgroup {x}"),
                }
            }
            drop(pool);
        });
    }
}
