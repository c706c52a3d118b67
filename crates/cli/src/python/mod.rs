//! Python on the command line runs in worker processes, as in the page it runs in Web Workers.
//!
//! The process that reads an API key (`run`, `perturb --wrong-answers model`, `build generate`)
//! must never run model- or dataset-written Python itself: RustPython is no security boundary
//! (a bug in it is a way into the process's memory), and some programs cannot even be stopped
//! inside it (`time.sleep(1e9)` and a huge power are single builtin calls that never reach the
//! watchdog's check; a memory bomb aborts the whole process). So every subcommand that runs such
//! code hands it to workers: this binary started again as `execbench __python-worker`, with an
//! empty environment, a memory limit, one interpreter each, killed at the run's deadline and
//! started again for the next run (`process.rs`; the worker's loop is `worker.rs`). Each worker
//! is held by the kernel's rules before it reads its first job (`crates/sandbox`: Landlock and
//! seccomp), so that an escape from RustPython finds no files, network, programs or processes.

mod process;
mod worker;

pub use process::WorkerEngine;
pub use worker::serve;

use std::path::PathBuf;

use execbench_core::{RunRequest, RunResult};
use execbench_run::io::{BlockingPython, Python};
use execbench_run::threaded_python::ThreadedPython;

/// The hidden subcommand a worker runs; not in the usage text, as no one types it.
pub const WORKER_COMMAND: &str = "__python-worker";

/// Makes engines, each a worker process of this binary.
#[derive(Clone, Debug)]
pub struct Workers {
    program: PathBuf,
}

impl Workers {
    /// Workers of the running `execbench` binary.
    pub fn of_this_binary() -> Result<Workers, String> {
        let program = std::env::current_exe()
            .map_err(|e| format!("cannot find the execbench binary to start Python workers from: {e}"))?;
        Ok(Workers { program })
    }

    /// One engine: one worker process, started on its first run, alone on the machine's RAM.
    pub fn engine(&self) -> WorkerEngine {
        WorkerEngine::new(self.program.clone(), process::memory_limit(1))
    }

    /// The run engine's `Python` for `--jobs`: one worker driven from this thread, or `jobs`
    /// workers, each driven by a thread of its own, sharing the machine's RAM (fewer if `jobs`
    /// would leave each less than the least a program needs).
    pub fn python(&self, jobs: usize) -> CliPython {
        let workers = process::workers_that_fit(jobs.max(1));
        if workers < jobs {
            eprintln!(
                "execbench: {jobs} Python workers would leave each less than {} of this machine's memory; \
                 running {workers} at once",
                process::in_words(process::MEMORY_LIMIT_MIN_BYTES)
            );
        }
        let (program, memory_limit) = (self.program.clone(), process::memory_limit(workers));
        if workers <= 1 {
            CliPython::One(Box::new(BlockingPython::new(WorkerEngine::new(program, memory_limit))))
        } else {
            CliPython::Pool(ThreadedPython::new(workers, move || WorkerEngine::new(program.clone(), memory_limit)))
        }
    }
}

/// One worker (`--jobs 1`) or a pool of them.
pub enum CliPython {
    One(Box<BlockingPython<WorkerEngine>>),
    Pool(ThreadedPython),
}

impl Python for CliPython {
    async fn run(&self, request: RunRequest) -> RunResult {
        match self {
            CliPython::One(python) => python.run(request).await,
            CliPython::Pool(python) => python.run(request).await,
        }
    }

    fn runs_at_once(&self) -> usize {
        match self {
            CliPython::One(python) => python.runs_at_once(),
            CliPython::Pool(python) => python.runs_at_once(),
        }
    }
}
