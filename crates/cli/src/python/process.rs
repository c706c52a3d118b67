//! The owner's side: [`WorkerEngine`], a `PythonEngine` whose runs happen in a worker process.

use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use execbench_core::{Outcome, PythonEngine, RunRequest, RunResult};
use execbench_worker_protocol::{FromWorker, RunMessage, RunOutput, ToWorker};

use super::WORKER_COMMAND;

/// How long past a run's time limit its worker is given before it is killed. The interpreter
/// stops a run itself at the limit between two bytecodes, and answers at once; only a run stuck
/// inside one long call (`time.sleep`, a huge power) is still going a second later.
pub const KILL_MARGIN_MS: u64 = 1_000;

/// A worker's address space: enough for any benchmark program, small enough that a memory bomb
/// fails inside the worker instead of exhausting the machine.
pub const MEMORY_LIMIT_BYTES: u64 = 4 << 30;

/// The largest reply line read from a worker: a run that prints more is reported as a crash
/// instead of being held in the memory of the process that holds the API key.
pub const MAX_REPLY_BYTES: u64 = 64 << 20;

/// How long a new worker may take to start its interpreter (tens of milliseconds, normally).
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// One worker process of this binary (`execbench __python-worker`), started on the first run and
/// again after it was killed or died. Every run gets a hard deadline: its time limit plus
/// [`KILL_MARGIN_MS`]; past that the worker is killed and the run has timed out. A worker that
/// dies (a memory bomb hitting [`MEMORY_LIMIT_BYTES`], a native stack overflow, an engine abort)
/// makes its run `Crashed` with the reason. Either way the next run gets a fresh worker.
pub struct WorkerEngine {
    program: PathBuf,
    live: Option<Live>,
    next_id: u64,
}

/// A started worker: its stdin for requests, its stdout for replies (read on this thread, waiting
/// with `poll` so that a deadline needs no other thread).
struct Live {
    child: Child,
    requests: ChildStdin,
    replies: Replies,
}

/// The worker's stdout, cut into lines.
struct Replies {
    output: ChildStdout,
    buffer: Vec<u8>,
    /// How much of `buffer` is known to hold no line end.
    searched: usize,
}

enum Reply {
    Message(FromWorker),
    /// A line that is not a message: the worker is not speaking the protocol.
    Unreadable(String),
    TooLong,
    /// End of the worker's output: it has exited.
    Closed,
    /// Nothing (or no whole line) by the deadline.
    Late,
}

/// Why a worker had to go, which becomes its run's outcome.
enum Failure {
    /// Still running at the hard deadline.
    Deadline,
    /// Exited or broke the protocol; the reason.
    Crashed(String),
}

impl WorkerEngine {
    /// An engine whose worker is `program __python-worker` (this binary: `std::env::current_exe`).
    pub fn new(program: PathBuf) -> Self {
        WorkerEngine { program, live: None, next_id: 0 }
    }

    fn ask(&mut self, request: &RunRequest) -> Result<RunResult, (Failure, Instant)> {
        if self.live.is_none() {
            self.live = Some(Live::start(&self.program).map_err(|why| (Failure::Crashed(why), Instant::now()))?);
        }
        let live = self.live.as_mut().expect("started above");
        self.next_id += 1;
        let id = self.next_id;
        let sent = Instant::now();
        let message = ToWorker { runs: vec![RunMessage { id, request: request.clone() }], report_each: true };
        if let Err(e) = live.send(&message) {
            return Err((live.failure(format!("the request could not be sent ({e})")), sent));
        }
        let deadline = sent + Duration::from_millis(u64::from(request.limits.time_ms) + KILL_MARGIN_MS);
        match live.replies.next(deadline) {
            Reply::Message(FromWorker::Results { mut results }) if results.len() == 1 && results[0].id == id => {
                let RunOutput { result, .. } = results.remove(0);
                Ok(result)
            }
            Reply::Message(other) => Err(live.failure(format!("unexpected reply {}", kind_of(&other)))),
            Reply::Unreadable(why) => Err(live.failure(format!("unreadable reply ({why})"))),
            Reply::TooLong => {
                Err(live.failure(format!("the run's result is larger than {} MiB", MAX_REPLY_BYTES >> 20)))
            }
            Reply::Closed => Err(Failure::Crashed(live.died())),
            Reply::Late => Err(Failure::Deadline),
        }
        .map_err(|failure| (failure, sent))
    }
}

impl PythonEngine for WorkerEngine {
    fn run(&mut self, request: &RunRequest) -> RunResult {
        match self.ask(request) {
            Ok(result) => result,
            Err((failure, sent)) => {
                // Whatever went wrong, this worker is done: the next run starts another.
                if let Some(live) = self.live.take() {
                    live.stop();
                }
                let outcome = match failure {
                    Failure::Deadline => Outcome::TimedOut { limit_ms: request.limits.time_ms },
                    Failure::Crashed(reason) => Outcome::Crashed { reason },
                };
                RunResult { outcome, stdout: String::new(), elapsed_ms: sent.elapsed().as_secs_f64() * 1000.0 }
            }
        }
    }
}

impl Drop for WorkerEngine {
    fn drop(&mut self) {
        if let Some(live) = self.live.take() {
            live.stop();
        }
    }
}

impl Live {
    /// Starts a worker and waits for its `Ready`.
    fn start(program: &Path) -> Result<Live, String> {
        let mut command = Command::new(program);
        command
            .arg(WORKER_COMMAND)
            // Nothing of this process's environment (an API key's variable above all) reaches the worker.
            .env_clear()
            .current_dir("/")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        limit(&mut command);
        let mut child =
            command.spawn().map_err(|e| format!("the Python worker could not be started ({e}); no run was made"))?;
        let (requests, output) = match (child.stdin.take(), child.stdout.take()) {
            (Some(requests), Some(output)) => (requests, output),
            _ => unreachable!("both pipes were asked for"),
        };
        let mut live = Live { child, requests, replies: Replies { output, buffer: Vec::new(), searched: 0 } };
        match live.replies.next(Instant::now() + START_TIMEOUT) {
            Reply::Message(FromWorker::Ready { .. }) => Ok(live),
            Reply::Closed => {
                let why = live.died();
                live.stop();
                Err(format!("the Python worker did not start: {why}"))
            }
            _ => {
                live.stop();
                Err("the Python worker did not start: no ready message".to_string())
            }
        }
    }

    fn send(&mut self, message: &ToWorker) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(message).map_err(std::io::Error::other)?;
        line.push(b'\n');
        self.requests.write_all(&line)?;
        self.requests.flush()
    }

    /// A failure of the protocol; if the worker exits meanwhile (a closed pipe is often the first
    /// sign of its death), how it exited says more.
    fn failure(&mut self, what: String) -> Failure {
        let grace = Instant::now() + Duration::from_millis(200);
        while Instant::now() < grace {
            match self.child.try_wait() {
                Ok(Some(status)) => return Failure::Crashed(exit_reason(status)),
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(_) => break,
            }
        }
        Failure::Crashed(format!("the Python worker broke the protocol: {what}"))
    }

    /// The worker's output ended: it has exited (or is about to). How, in words.
    fn died(&mut self) -> String {
        match self.child.wait() {
            Ok(status) => exit_reason(status),
            Err(e) => format!("the Python worker stopped (its status is unknown: {e})"),
        }
    }

    /// Kills the worker (a no-op if it has exited) and collects it.
    fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Replies {
    /// The next line, parsed; `Late` if none is whole by `deadline`.
    fn next(&mut self, deadline: Instant) -> Reply {
        loop {
            if let Some(at) = self.buffer[self.searched..].iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buffer.drain(..=self.searched + at).collect();
                self.searched = 0;
                return match serde_json::from_slice::<FromWorker>(&line) {
                    Ok(message) => Reply::Message(message),
                    Err(e) => Reply::Unreadable(e.to_string()),
                };
            }
            self.searched = self.buffer.len();
            if self.buffer.len() as u64 > MAX_REPLY_BYTES {
                return Reply::TooLong;
            }
            match readable(&self.output, deadline) {
                Ok(true) => {}
                Ok(false) => return Reply::Late,
                Err(_) => return Reply::Closed,
            }
            let mut chunk = [0u8; 64 * 1024];
            match self.output.read(&mut chunk) {
                Ok(0) => return Reply::Closed,
                Ok(n) => self.buffer.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return Reply::Closed,
            }
        }
    }
}

/// Waits until `output` can be read without blocking (data, or its end), or `deadline` passes.
fn readable(output: &ChildStdout, deadline: Instant) -> std::io::Result<bool> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(false);
        }
        let mut poll = libc::pollfd { fd: output.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        let timeout_ms = left.as_millis().clamp(1, i32::MAX as u128) as libc::c_int;
        // SAFETY: one valid pollfd, for a descriptor this process owns for the call's duration.
        match unsafe { libc::poll(&mut poll, 1, timeout_ms) } {
            0 => continue,
            n if n > 0 => return Ok(true),
            _ => {
                let error = std::io::Error::last_os_error();
                if error.kind() != std::io::ErrorKind::Interrupted {
                    return Err(error);
                }
            }
        }
    }
}

fn kind_of(message: &FromWorker) -> &'static str {
    match message {
        FromWorker::Ready { .. } => "ready",
        FromWorker::Results { .. } => "results (of another run)",
        FromWorker::Idle { .. } => "idle",
        FromWorker::BadMessage { .. } => "bad message (it could not read the request)",
        FromWorker::Panic { .. } => "panic",
        FromWorker::StdlibDownload { .. } => "a standard library download (only in a browser)",
    }
}

/// How a worker that ended by itself ended, in words.
fn exit_reason(status: ExitStatus) -> String {
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let what = match signal {
                libc::SIGABRT => {
                    "aborted: out of memory (each worker may use 4 GiB), a native stack overflow or an engine failure"
                }
                libc::SIGKILL => "killed, by the system (out of memory?) or by hand",
                libc::SIGSEGV | libc::SIGBUS => "a memory access fault inside the engine",
                _ => "stopped by a signal",
            };
            return format!("the Python worker process died ({what}; signal {signal})");
        }
    }
    format!("the Python worker process exited during the run ({status})")
}

/// The worker's limits, set in the child between fork and exec: its address space, no core file,
/// and (on Linux) death when the thread that started it ends, so that no worker outlives a
/// killed `execbench`.
fn limit(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the forked child before exec and only makes async-signal-safe
    // system calls (setrlimit, prctl) on values on its stack.
    unsafe {
        command.pre_exec(|| {
            let memory = libc::rlimit { rlim_cur: MEMORY_LIMIT_BYTES as _, rlim_max: MEMORY_LIMIT_BYTES as _ };
            if libc::setrlimit(libc::RLIMIT_AS, &memory) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            let no_core = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
            if libc::setrlimit(libc::RLIMIT_CORE, &no_core) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            #[cfg(target_os = "linux")]
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}
