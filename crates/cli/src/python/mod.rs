//! Python on the command line runs in worker processes, as in the page it runs in Web Workers.
//!
//! The process that reads an API key (`run`, `perturb --wrong-answers model`, `build generate`)
//! must never run model- or dataset-written Python itself: RustPython is no security boundary
//! (a bug in it is a way into the process's memory), and some programs cannot even be stopped
//! inside it (`time.sleep(1e9)` and a huge power are single builtin calls that never reach the
//! watchdog's check; a memory bomb aborts the whole process). So every subcommand that runs such
//! code hands it to workers: this binary started again as `execbench __python-worker`, with an
//! empty environment, a memory limit, one interpreter each, killed at the run's deadline and
//! started again for the next run (`process.rs`; the worker's loop is `worker.rs`).

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

    /// One engine: one worker process, started on its first run.
    pub fn engine(&self) -> WorkerEngine {
        WorkerEngine::new(self.program.clone())
    }

    /// The run engine's `Python` for `--jobs`: one worker driven from this thread, or `jobs`
    /// workers, each driven by a thread of its own.
    pub fn python(&self, jobs: usize) -> CliPython {
        if jobs <= 1 {
            CliPython::One(Box::new(BlockingPython::new(self.engine())))
        } else {
            let workers = self.clone();
            CliPython::Pool(ThreadedPython::new(jobs, move || workers.engine()))
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
