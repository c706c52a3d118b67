//! The owner's side: [`WorkerEngine`], a `PythonEngine` whose runs happen in a worker process.

use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use execbench_core::{Outcome, PythonEngine, RunRequest, RunResult};
use execbench_worker_protocol::{FromWorker, RunMessage, RunOutput, ToWorker};

use execbench_sandbox as sandbox;

use super::WORKER_COMMAND;

/// How long past a run's time limit its worker is given before it is killed. The interpreter
/// stops a run itself at the limit between two bytecodes, and answers at once; only a run stuck
/// inside one long call (`time.sleep`, a huge power) is still going a second later.
pub const KILL_MARGIN_MS: u64 = 1_000;

/// The most address space a worker gets: enough for any benchmark program, small enough that a
/// memory bomb fails inside the worker instead of exhausting the machine.
pub const MEMORY_LIMIT_MAX_BYTES: u64 = 4 << 30;

/// The least: a worker running a program already reserves about 700 MiB (the engine thread's
/// 512 MiB stack, `worker.rs`; the binary; the allocator's arenas), which leaves some 300 MiB for
/// the program's data.
pub const MEMORY_LIMIT_MIN_BYTES: u64 = 1 << 30;

/// The part of the machine's RAM that all workers together may reserve: the rest is left to
/// `execbench` itself (which may hold a local model) and to the system.
const WORKERS_SHARE_OF_RAM: (u64, u64) = (3, 4);

/// The largest reply line read from a worker: a run that prints more is reported as a crash
/// instead of being held in the memory of the process that holds the API key.
pub const MAX_REPLY_BYTES: u64 = 64 << 20;

/// How long a new worker may take to start its interpreter (tens of milliseconds, normally).
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// One worker process of this binary (`execbench __python-worker`), started on the first run and
/// again after it was killed or died. Every run gets a hard deadline: its time limit plus
/// [`KILL_MARGIN_MS`]; past that the worker is killed and the run has timed out. A worker that
/// dies (a memory bomb hitting its [`memory_limit`], a native stack overflow, an engine abort)
/// makes its run `Crashed` with the reason. Either way the next run gets a fresh worker.
pub struct WorkerEngine {
    program: PathBuf,
    /// The worker's address-space limit, in bytes.
    memory_limit: u64,
    live: Option<Live>,
    next_id: u64,
}

/// A started worker: its stdin for requests, its stdout for replies (read on this thread, waiting
/// with `poll` so that a deadline needs no other thread).
struct Live {
    child: Child,
    /// Its address-space limit, in bytes (for the words of its death).
    memory_limit: u64,
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
    /// An engine whose worker is `program __python-worker` (this binary: `std::env::current_exe`),
    /// limited to `memory_limit` bytes of address space (see [`memory_limit`]).
    pub fn new(program: PathBuf, memory_limit: u64) -> Self {
        WorkerEngine { program, memory_limit, live: None, next_id: 0 }
    }

    fn ask(&mut self, request: &RunRequest) -> Result<RunResult, (Failure, Instant)> {
        if self.live.is_none() {
            let started = Live::start(&self.program, self.memory_limit);
            self.live = Some(started.map_err(|why| (Failure::Crashed(why), Instant::now()))?);
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
                RunResult {
                    outcome,
                    stdout: String::new(),
                    elapsed_ms: sent.elapsed().as_secs_f64() * 1000.0,
                    trace: None,
                }
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
    fn start(program: &Path, memory_limit: u64) -> Result<Live, String> {
        sandbox::note_missing_rules();
        let mut command = Command::new(program);
        command
            .arg(WORKER_COMMAND)
            // Nothing of this process's environment (an API key's variable above all) reaches the worker.
            .env_clear()
            .current_dir("/")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        limit(&mut command, memory_limit);
        let mut child =
            command.spawn().map_err(|e| format!("the Python worker could not be started ({e}); no run was made"))?;
        let (requests, output) = match (child.stdin.take(), child.stdout.take()) {
            (Some(requests), Some(output)) => (requests, output),
            _ => unreachable!("both pipes were asked for"),
        };
        let mut live =
            Live { child, memory_limit, requests, replies: Replies { output, buffer: Vec::new(), searched: 0 } };
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
                Ok(Some(status)) => return Failure::Crashed(exit_reason(status, self.memory_limit)),
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(_) => break,
            }
        }
        Failure::Crashed(format!("the Python worker broke the protocol: {what}"))
    }

    /// The worker's output ended: it has exited (or is about to). How, in words.
    fn died(&mut self) -> String {
        match self.child.wait() {
            Ok(status) => exit_reason(status, self.memory_limit),
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
fn exit_reason(status: ExitStatus, memory_limit: u64) -> String {
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let what = match signal {
                libc::SIGABRT => format!(
                    "aborted: out of memory (each worker may use {}), a native stack overflow or an engine failure",
                    in_words(memory_limit)
                ),
                libc::SIGKILL => "killed, by the system (out of memory?) or by hand".to_string(),
                libc::SIGSEGV | libc::SIGBUS => "a memory access fault inside the engine".to_string(),
                _ => "stopped by a signal".to_string(),
            };
            return format!("the Python worker process died ({what}; signal {signal})");
        }
    }
    format!("the Python worker process exited during the run ({status})")
}

/// The address-space limit of each worker when `workers` run at once: an even part of the
/// [`WORKERS_SHARE_OF_RAM`], in whole MiB, at most [`MEMORY_LIMIT_MAX_BYTES`] and at least
/// [`MEMORY_LIMIT_MIN_BYTES`] (no more workers than [`workers_that_fit`] are started, so that the
/// least still fits). So all workers together never reserve more than that part of the machine's
/// RAM, however many there are.
pub fn memory_limit(workers: usize) -> u64 {
    let even_part = workers_share_of_ram() / workers.max(1) as u64;
    (even_part >> 20 << 20).clamp(MEMORY_LIMIT_MIN_BYTES, MEMORY_LIMIT_MAX_BYTES)
}

/// How many of `wanted` workers fit at once, each with [`MEMORY_LIMIT_MIN_BYTES`] (at least one).
pub fn workers_that_fit(wanted: usize) -> usize {
    let fit = workers_share_of_ram() / MEMORY_LIMIT_MIN_BYTES;
    wanted.min(usize::try_from(fit).unwrap_or(usize::MAX).max(1))
}

/// [`WORKERS_SHARE_OF_RAM`] of the machine's RAM, in bytes; unlimited where the system does not
/// say how much RAM there is.
pub fn workers_share_of_ram() -> u64 {
    let (part, whole) = WORKERS_SHARE_OF_RAM;
    physical_memory().map_or(u64::MAX, |ram| ram / whole * part)
}

/// The machine's RAM in bytes, as the system counts it.
fn physical_memory() -> Option<u64> {
    // SAFETY: sysconf reads no memory of ours.
    let (pages, page_bytes) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
    let (pages, page_bytes) = (u64::try_from(pages).ok()?, u64::try_from(page_bytes).ok()?);
    pages.checked_mul(page_bytes).filter(|&bytes| bytes > 0)
}

/// A memory size for people: whole GiB, else whole MiB.
pub fn in_words(bytes: u64) -> String {
    if bytes.is_multiple_of(1 << 30) { format!("{} GiB", bytes >> 30) } else { format!("{} MiB", bytes >> 20) }
}

/// The worker's limits, set in the child between fork and exec: its address space, no core file,
/// and (on Linux) death when the thread that started it ends, so that no worker outlives a
/// killed `execbench`.
fn limit(command: &mut Command, memory_limit: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the forked child before exec and only makes async-signal-safe
    // system calls (setrlimit, prctl) on values on its stack.
    unsafe {
        command.pre_exec(move || {
            let memory = libc::rlimit { rlim_cur: memory_limit as _, rlim_max: memory_limit as _ };
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

#[cfg(test)]
mod tests {
    use super::*;

    /// However many workers are asked for, those started reserve no more than the workers' share
    /// of this machine's RAM together (or the least one worker needs, on a very small machine),
    /// and none reserves more than 4 GiB or less than 1 GiB.
    #[test]
    fn all_workers_together_fit_in_the_workers_share_of_ram() {
        let share = workers_share_of_ram().max(MEMORY_LIMIT_MIN_BYTES);
        for wanted in [1, 2, 3, 4, 7, 16, 64, 1000] {
            let started = workers_that_fit(wanted);
            let each = memory_limit(started);
            assert!((1..=wanted).contains(&started), "{wanted} asked for, {started} started");
            assert!((MEMORY_LIMIT_MIN_BYTES..=MEMORY_LIMIT_MAX_BYTES).contains(&each), "{each}");
            assert!(each * started as u64 <= share, "{started} × {each} bytes > {share}");
        }
    }

    #[test]
    fn the_limit_is_said_as_it_is() {
        assert_eq!(in_words(4 << 30), "4 GiB");
        assert_eq!(in_words(1063 << 20), "1063 MiB");
    }
}
