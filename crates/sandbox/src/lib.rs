//! The kernel's rules for a process that runs untrusted Python. RustPython is no security
//! boundary: a bug in it is a way to run native code in the worker. These rules make such an
//! escape find nothing to use. The CLI's Python worker (`crates/cli/src/python/worker.rs`)
//! applies them ([`confine`]) at the start of its `serve`, before the engine's thread starts and
//! before the first job is read: both rules bind the thread that applies them and every thread it
//! starts later, and no other thread exists yet. The bench applies the same rules to a process of
//! its own to measure what they cost (`crates/bench/src/cli_jobs.rs`).
//!
//! - Landlock: no file or directory may be opened, made, changed or removed, no TCP or UDP port
//!   bound or connected to, no signal sent and no abstract Unix socket reached outside the worker.
//!   One file may be read: the local time zone (`/etc/localtime`, which RustPython's `time` reads
//!   when the engine starts and again for `localtime()` and `datetime.now()`). `strace -f` of
//!   workers running `time`, `datetime`, `random`, `re`, `json`, `hashlib`, `statistics` and
//!   `unicodedata` programs shows no other `open` after a worker's libraries are loaded:
//!   RustPython's standard library is frozen into this binary (the engine's start only looks,
//!   with `stat`, for a `Lib/` beside it, which Landlock does not govern), and randomness comes
//!   from `getrandom`. Pipes and descriptors the worker already holds keep working.
//! - seccomp (x86_64 and aarch64): no network (sockets of any kind), no programs (`execve`), no
//!   other processes (`ptrace`, their memory, signals to them, `fork`; threads stay allowed), no
//!   file opened for writing, made, renamed, removed or changed (so this holds where the kernel
//!   has no Landlock), no characters pushed into a terminal's input (`TIOCSTI`, a way out through
//!   an inherited stderr), none of the kernel's large attack surfaces (io_uring, which also
//!   bypasses seccomp, BPF, perf, userfaultfd, namespaces, keyrings) and none of root's powers
//!   over the machine (mounts, modules, the clock). The calls fail with EPERM (ENOSYS for the
//!   calls the C library then makes another way, and for x86_64's x32 numbers), so the worker
//!   (and `self_test`) sees the kernel's error instead of dying.
//!
//! Where the kernel has no Landlock (or there is no seccomp filter for the processor), the worker
//! says nothing: its stderr is its owner's, and a line from every worker (one more after each
//! run that was killed) would bury the run's own messages. The owner says it once instead
//! ([`note_missing_rules`]).

use serde_json::{Map, Value};

/// Set in a worker's environment (which its owner clears) to make it try what the rules deny,
/// report each error as JSON and exit instead of serving: the same rules, applied by the same
/// [`confine`], at the same place in `worker::serve`. It grants nothing.
pub const SELF_TEST_VARIABLE: &str = "EXECBENCH_WORKER_SELF_TEST";

/// What [`confine`] could apply; `Unavailable` is "not on this kernel or system".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code, reason = "only Linux has the rules"))]
pub enum Rule {
    Enforced,
    /// Landlock older than the rights asked for: those it knows are enforced.
    Partial,
    Unavailable,
}

impl Rule {
    pub fn word(self) -> &'static str {
        match self {
            Rule::Enforced => "enforced",
            Rule::Partial => "partial",
            Rule::Unavailable => "unavailable",
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Confinement {
    pub landlock: Rule,
    pub seccomp: Rule,
}

/// Applies the worker's rules to this thread and every thread it starts later. An error (a
/// kernel that refuses a filter it supports) means the worker must not serve.
pub fn confine() -> Result<Confinement, String> {
    let landlock = kernel::restrict_files()?;
    let seccomp = kernel::filter_system_calls()?;
    Ok(Confinement { landlock, seccomp })
}

/// In the owner, once per process: says which of the workers' rules this system lacks.
pub fn note_missing_rules() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if let Some(missing) = kernel::missing_rules() {
            eprintln!("execbench: {missing}");
        }
    });
}

/// The worker's part of the self-test (see [`SELF_TEST_VARIABLE`]): run on the engine's thread,
/// after [`confine`]. Prints one JSON object: each rule's state, and for each attempt "ok" or the
/// name of the error the kernel returned.
pub fn self_test(confinement: Confinement) -> i32 {
    let mut report = Map::new();
    report.insert("landlock".into(), confinement.landlock.word().into());
    report.insert("seccomp".into(), confinement.seccomp.word().into());
    for (name, outcome) in kernel::attempts() {
        report.insert(name.into(), Value::from(outcome));
    }
    println!("{}", Value::Object(report));
    0
}

#[cfg(target_os = "linux")]
mod kernel {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, RulesetAttr,
        RulesetCreatedAttr, RulesetStatus, Scope,
    };

    use super::Rule;

    /// The newest Landlock ABI this crate knows. Every right is handled and only reading one
    /// file granted, so a newer right can only deny more; an older kernel enforces the rights it
    /// knows.
    const LANDLOCK_ABI: ABI = ABI::V10;

    /// The local time zone: the one file a worker reads (see the module's comment). Usually a
    /// link into /usr/share/zoneinfo; the rule holds for the file it leads to.
    const TIME_ZONE: &str = "/etc/localtime";

    pub fn restrict_files() -> Result<Rule, String> {
        // No such file: the engine's time is UTC, with the rule as without it.
        let time_zone = PathFd::new(TIME_ZONE).ok().map(|zone| PathBeneath::new(zone, AccessFs::ReadFile));
        let status = landlock::Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(AccessFs::from_all(LANDLOCK_ABI))
            .and_then(|ruleset| ruleset.handle_access(AccessNet::from_all(LANDLOCK_ABI)))
            .and_then(|ruleset| ruleset.scope(Scope::from_all(LANDLOCK_ABI)))
            .and_then(|ruleset| ruleset.create())
            .and_then(|ruleset| match time_zone {
                Some(rule) => ruleset.add_rule(rule),
                None => Ok(ruleset),
            })
            .and_then(|ruleset| ruleset.restrict_self())
            .map_err(|e| format!("cannot apply the Landlock rule: {e}"))?;
        Ok(match status.ruleset {
            RulesetStatus::FullyEnforced => Rule::Enforced,
            RulesetStatus::PartiallyEnforced => Rule::Partial,
            RulesetStatus::NotEnforced => Rule::Unavailable,
        })
    }

    pub fn missing_rules() -> Option<String> {
        // The ABI query, as `restrict_files` makes it: a version, or ENOSYS / EOPNOTSUPP.
        // SAFETY: with no attribute and this flag the call only returns a number.
        let version = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<u8>(),
                0usize,
                LANDLOCK_CREATE_RULESET_VERSION,
            )
        };
        let landlock = version > 0;
        let seccomp = seccomp::TARGET.is_some();
        match (landlock, seccomp) {
            (true, true) => None,
            (false, true) => Some(
                "this kernel has no Landlock: Python workers may still read files (seccomp still denies them the \
                 network, other programs and processes, and writing files)"
                    .to_string(),
            ),
            (true, false) => Some(format!(
                "no seccomp filter for this processor ({}): Python workers are held by Landlock alone",
                std::env::consts::ARCH
            )),
            (false, false) => Some(format!(
                "this kernel has no Landlock and there is no seccomp filter for this processor ({}): Python \
                 workers run without the kernel's rules",
                std::env::consts::ARCH
            )),
        }
    }

    /// `LANDLOCK_CREATE_RULESET_VERSION` from the kernel's uapi (not in libc).
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;

    pub fn filter_system_calls() -> Result<Rule, String> {
        seccomp::apply()
    }

    pub use attempts::attempts;

    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    mod seccomp {
        use std::collections::BTreeMap;

        use seccompiler::{
            BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
            TargetArch,
        };

        use super::super::Rule;

        #[cfg(target_arch = "x86_64")]
        pub const TARGET: Option<TargetArch> = Some(TargetArch::x86_64);
        #[cfg(target_arch = "aarch64")]
        pub const TARGET: Option<TargetArch> = Some(TargetArch::aarch64);

        /// Denied whatever their arguments.
        const DENIED: &[libc::c_long] = &[
            // The network, and Unix sockets to the user's other programs (a D-Bus session, an
            // agent): a worker has none and makes none.
            libc::SYS_socket,
            libc::SYS_socketpair,
            libc::SYS_connect,
            libc::SYS_bind,
            libc::SYS_listen,
            libc::SYS_accept,
            libc::SYS_accept4,
            libc::SYS_sendto,
            libc::SYS_sendmsg,
            libc::SYS_sendmmsg,
            libc::SYS_recvfrom,
            libc::SYS_recvmsg,
            libc::SYS_recvmmsg,
            // Programs.
            libc::SYS_execve,
            libc::SYS_execveat,
            // Other processes: debugging them, their memory, their descriptors, their signals.
            libc::SYS_ptrace,
            libc::SYS_process_vm_readv,
            libc::SYS_process_vm_writev,
            libc::SYS_pidfd_open,
            libc::SYS_pidfd_getfd,
            libc::SYS_pidfd_send_signal,
            libc::SYS_tkill,
            // Files changed without being opened for writing (see also `OPEN_FOR_WRITING`).
            libc::SYS_unlinkat,
            libc::SYS_renameat,
            libc::SYS_renameat2,
            libc::SYS_mkdirat,
            libc::SYS_mknodat,
            libc::SYS_linkat,
            libc::SYS_symlinkat,
            libc::SYS_fchmod,
            libc::SYS_fchmodat,
            SYS_FCHMODAT2,
            libc::SYS_fchown,
            libc::SYS_fchownat,
            libc::SYS_truncate,
            libc::SYS_ftruncate,
            libc::SYS_fallocate,
            libc::SYS_utimensat,
            libc::SYS_setxattr,
            libc::SYS_lsetxattr,
            libc::SYS_fsetxattr,
            libc::SYS_removexattr,
            libc::SYS_lremovexattr,
            libc::SYS_fremovexattr,
            // Large attack surfaces of the kernel; io_uring also makes calls seccomp never sees.
            libc::SYS_io_uring_setup,
            libc::SYS_io_uring_enter,
            libc::SYS_io_uring_register,
            libc::SYS_bpf,
            libc::SYS_perf_event_open,
            libc::SYS_userfaultfd,
            libc::SYS_unshare,
            libc::SYS_setns,
            libc::SYS_keyctl,
            libc::SYS_add_key,
            libc::SYS_request_key,
            // What only root may do, for a worker of an `execbench` run as root (in a container):
            // the machine's mounts, modules, clock, names and restart, files by handle.
            libc::SYS_mount,
            libc::SYS_umount2,
            libc::SYS_fsopen,
            libc::SYS_fsmount,
            libc::SYS_fspick,
            libc::SYS_move_mount,
            libc::SYS_open_tree,
            libc::SYS_mount_setattr,
            libc::SYS_pivot_root,
            libc::SYS_chroot,
            libc::SYS_open_by_handle_at,
            libc::SYS_init_module,
            libc::SYS_finit_module,
            libc::SYS_delete_module,
            libc::SYS_kexec_load,
            libc::SYS_kexec_file_load,
            libc::SYS_reboot,
            libc::SYS_swapon,
            libc::SYS_swapoff,
            libc::SYS_settimeofday,
            libc::SYS_clock_settime,
            libc::SYS_clock_adjtime,
            libc::SYS_adjtimex,
            libc::SYS_sethostname,
            libc::SYS_setdomainname,
        ];

        /// The older calls of x86_64 that aarch64 only has in a newer form (`…at`, `clone`).
        #[cfg(target_arch = "x86_64")]
        const DENIED_OLDER: &[libc::c_long] = &[
            libc::SYS_fork,
            libc::SYS_vfork,
            libc::SYS_creat,
            libc::SYS_unlink,
            libc::SYS_rmdir,
            libc::SYS_rename,
            libc::SYS_mkdir,
            libc::SYS_mknod,
            libc::SYS_link,
            libc::SYS_symlink,
            libc::SYS_chmod,
            libc::SYS_chown,
            libc::SYS_lchown,
            libc::SYS_utime,
            libc::SYS_utimes,
            libc::SYS_futimesat,
        ];
        #[cfg(target_arch = "aarch64")]
        const DENIED_OLDER: &[libc::c_long] = &[];

        /// fchmodat2 (Linux 6.6): the same number on every processor, not in every libc.
        const SYS_FCHMODAT2: libc::c_long = 452;

        /// Calls whose arguments cannot be inspected (they are in memory) but that have an older
        /// form the filter inspects: "no such call" makes the C library fall back to it
        /// (`clone3` to `clone` for a new thread).
        const MADE_UNKNOWN: &[libc::c_long] = &[libc::SYS_clone3, libc::SYS_openat2];

        /// The flags that open a file for writing, making or emptying it.
        const OPEN_FOR_WRITING: &[libc::c_int] = &[libc::O_WRONLY, libc::O_RDWR, libc::O_CREAT, libc::O_TRUNC];

        pub fn apply() -> Result<Rule, String> {
            let Some(target) = TARGET else { return Ok(Rule::Unavailable) };
            let denied = program(target, denied_calls()?, libc::EPERM)?;
            let unknown = program(target, MADE_UNKNOWN.iter().map(|&call| (call, vec![])).collect(), libc::ENOSYS)?;
            // seccompiler sets PR_SET_NO_NEW_PRIVS first, which the kernel asks of a process that
            // installs a filter without privileges. Every thread: there is only this one yet.
            for filter in [&denied, &unknown] {
                seccompiler::apply_filter_all_threads(filter)
                    .map_err(|e| format!("cannot apply the seccomp rule: {e}"))?;
            }
            #[cfg(target_arch = "x86_64")]
            seccompiler::apply_filter_all_threads(&x32_guard())
                .map_err(|e| format!("cannot apply the seccomp rule: {e}"))?;
            Ok(Rule::Enforced)
        }

        type Rules = BTreeMap<i64, Vec<SeccompRule>>;

        fn program(target: TargetArch, rules: Rules, errno: libc::c_int) -> Result<BpfProgram, String> {
            SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(errno as u32), target)
                .and_then(BpfProgram::try_from)
                .map_err(|e| format!("cannot build the seccomp rule: {e}"))
        }

        fn denied_calls() -> Result<Rules, String> {
            let mut rules: Rules = DENIED.iter().chain(DENIED_OLDER).map(|&call| (call, vec![])).collect();
            let when = |conditions: Vec<SeccompCondition>| SeccompRule::new(conditions);
            let arg = |index: u8, op: SeccompCmpOp, value: u64| {
                SeccompCondition::new(index, SeccompCmpArgLen::Dword, op, value)
            };
            let built = |e: seccompiler::BackendError| format!("cannot build the seccomp rule: {e}");

            // A file opened for writing: any of those flags set (flags are the second argument of
            // `openat`, the first of `open`). Opening for reading is Landlock's to deny.
            let writing = |flags_at: u8| -> Result<Vec<SeccompRule>, seccompiler::BackendError> {
                OPEN_FOR_WRITING
                    .iter()
                    .map(|&flag| when(vec![arg(flags_at, SeccompCmpOp::MaskedEq(flag as u64), flag as u64)?]))
                    .collect()
            };
            rules.insert(libc::SYS_openat, writing(2).map_err(built)?);
            #[cfg(target_arch = "x86_64")]
            rules.insert(libc::SYS_open, writing(1).map_err(built)?);

            // A new process (a `clone` that is not a thread of this one): a copy of the worker
            // outside its owner's watch, or a fork bomb.
            let thread = libc::CLONE_THREAD as u64;
            rules.insert(
                libc::SYS_clone,
                vec![when(vec![arg(0, SeccompCmpOp::MaskedEq(thread), 0).map_err(built)?]).map_err(built)?],
            );

            // Signals to any process but this one; `abort` (a memory bomb's end) signals itself.
            let this_process = std::process::id() as u64;
            let others = || -> Result<Vec<SeccompRule>, seccompiler::BackendError> {
                Ok(vec![when(vec![arg(0, SeccompCmpOp::Ne, this_process)?])?])
            };
            for call in [libc::SYS_kill, libc::SYS_tgkill, libc::SYS_rt_sigqueueinfo, libc::SYS_rt_tgsigqueueinfo] {
                rules.insert(call, others().map_err(built)?);
            }

            // Characters pushed into the input of a terminal the worker's stderr may be, to be
            // run by the shell once execbench ends.
            #[allow(clippy::unnecessary_cast, reason = "an ioctl request is a u64 in glibc, an i32 in musl")]
            let pushed = [libc::TIOCSTI as u64, libc::TIOCLINUX as u64]
                .into_iter()
                .map(|request| when(vec![arg(1, SeccompCmpOp::Eq, request)?]))
                .collect::<Result<Vec<_>, _>>()
                .map_err(built)?;
            rules.insert(libc::SYS_ioctl, pushed);
            Ok(rules)
        }

        /// x86_64 kernels built with x32 support take every call a second time under another
        /// number (with bit 30 set), which no list of numbers covers: those are all "no such
        /// call". (32-bit calls, with another architecture number, end the process in the filters
        /// above.)
        #[cfg(target_arch = "x86_64")]
        fn x32_guard() -> BpfProgram {
            use seccompiler::sock_filter;
            const X32_SYSCALL_BIT: u32 = 0x4000_0000;
            let instruction = |code: u32, jt: u8, jf: u8, k: u32| sock_filter { code: code as u16, jt, jf, k };
            vec![
                // The call's number: the first field of `struct seccomp_data`.
                instruction(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, 0, 0, 0),
                instruction(libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K, 0, 1, X32_SYSCALL_BIT),
                instruction(libc::BPF_RET | libc::BPF_K, 0, 0, libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32),
                instruction(libc::BPF_RET | libc::BPF_K, 0, 0, libc::SECCOMP_RET_ALLOW),
            ]
        }
    }

    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    mod seccomp {
        use super::super::Rule;

        pub const TARGET: Option<()> = None;

        pub fn apply() -> Result<Rule, String> {
            Ok(Rule::Unavailable)
        }
    }

    /// What the self-test tries: each is something the rules deny, harmless if it were allowed,
    /// and answered with another error than the rule's (or none) when allowed, so that the rule's
    /// error proves the rule.
    mod attempts {
        use std::ffi::CStr;

        type Outcome = String;

        pub fn attempts() -> Vec<(&'static str, Outcome)> {
            vec![
                // Allowed: "ok". Landlock: EACCES. (Readable by anyone, on any Linux.)
                ("read_file", opened(c"/etc/passwd", libc::O_RDONLY)),
                // Allowed: "ok". seccomp: EPERM.
                ("write_file", opened(c"/dev/null", libc::O_WRONLY)),
                ("socket", made_socket()),
                ("socketpair", made_socket_pair()),
                // Allowed: this process would become `true`, and print no report.
                ("execve", executed(c"/bin/true")),
                // Allowed: ESRCH (this process is not being traced).
                ("ptrace", traced()),
                // Allowed: "ok" (the parent, the same user's process, is there).
                ("kill_parent", signalled_parent()),
                ("read_parent_memory", read_parent_memory()),
                ("fork", forked()),
                ("io_uring", made_io_ring()),
                // Allowed: ENOTTY (stdin is a pipe) or "ok" on a terminal.
                ("push_terminal_input", pushed_terminal_input()),
                // Must stay "ok": the engine's deadline runs on a thread of its own.
                ("thread", started_thread()),
            ]
        }

        fn outcome(result: libc::c_long) -> Outcome {
            if result >= 0 {
                return "ok".to_string();
            }
            match std::io::Error::last_os_error().raw_os_error().unwrap_or(0) {
                libc::EPERM => "EPERM".to_string(),
                libc::EACCES => "EACCES".to_string(),
                libc::ENOSYS => "ENOSYS".to_string(),
                libc::ESRCH => "ESRCH".to_string(),
                libc::ENOTTY => "ENOTTY".to_string(),
                libc::EFAULT => "EFAULT".to_string(),
                other => format!("errno {other}"),
            }
        }

        /// `outcome`, closing a descriptor that was made.
        fn outcome_closing(fd: libc::c_int) -> Outcome {
            let result = outcome(fd.into());
            if fd >= 0 {
                // SAFETY: a descriptor this function's caller just made and no one else holds.
                unsafe { libc::close(fd) };
            }
            result
        }

        fn opened(path: &CStr, flags: libc::c_int) -> Outcome {
            // SAFETY: a NUL-terminated path; the descriptor is closed by outcome_closing.
            outcome_closing(unsafe { libc::open(path.as_ptr(), flags | libc::O_CLOEXEC) })
        }

        fn made_socket() -> Outcome {
            // SAFETY: no pointer; the descriptor is closed by outcome_closing.
            outcome_closing(unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) })
        }

        fn made_socket_pair() -> Outcome {
            let mut pair = [-1; 2];
            // SAFETY: room for the two descriptors, which are closed below.
            let result = unsafe {
                libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0, pair.as_mut_ptr())
            };
            let said = outcome(result.into());
            pair.into_iter().filter(|&fd| fd >= 0).for_each(|fd| {
                // SAFETY: the descriptors socketpair made.
                unsafe { libc::close(fd) };
            });
            said
        }

        fn executed(program: &CStr) -> Outcome {
            let argv = [program.as_ptr(), std::ptr::null()];
            let envp = [std::ptr::null()];
            // SAFETY: NUL-terminated strings in NULL-terminated arrays, alive across the call.
            outcome(unsafe { libc::execve(program.as_ptr(), argv.as_ptr(), envp.as_ptr()) }.into())
        }

        fn traced() -> Outcome {
            // SAFETY: a read request on this process's own (untraced) pid writes nothing.
            outcome(unsafe {
                libc::ptrace(
                    libc::PTRACE_PEEKDATA,
                    libc::getpid(),
                    std::ptr::null_mut::<libc::c_void>(),
                    std::ptr::null_mut::<libc::c_void>(),
                )
            })
        }

        fn signalled_parent() -> Outcome {
            // SAFETY: signal 0 only checks that the process could be signalled.
            outcome(unsafe { libc::kill(libc::getppid(), 0) }.into())
        }

        fn read_parent_memory() -> Outcome {
            let mut byte = 0u8;
            let local = libc::iovec { iov_base: (&mut byte as *mut u8).cast(), iov_len: 1 };
            // Address 0 of the parent: EFAULT if the call were allowed.
            let remote = libc::iovec { iov_base: std::ptr::null_mut(), iov_len: 1 };
            // SAFETY: one byte of this process's stack to write into.
            outcome(unsafe { libc::process_vm_readv(libc::getppid(), &local, 1, &remote, 1, 0) } as libc::c_long)
        }

        fn forked() -> Outcome {
            // SAFETY: the child, if there is one, only calls _exit; the parent collects it.
            let pid = unsafe { libc::fork() };
            if pid == 0 {
                // SAFETY: ends the child at once, running nothing of the parent's.
                unsafe { libc::_exit(0) };
            }
            let said = outcome(pid.into());
            if pid > 0 {
                // SAFETY: waits for the child made above.
                unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
            }
            said
        }

        fn made_io_ring() -> Outcome {
            // struct io_uring_params: 120 bytes, all zero for a default ring.
            let mut params = [0u64; 15];
            // SAFETY: zeroed parameters of the kernel's size; a ring made is closed.
            let fd = unsafe { libc::syscall(libc::SYS_io_uring_setup, 1u32, params.as_mut_ptr()) };
            outcome_closing(fd as libc::c_int)
        }

        fn pushed_terminal_input() -> Outcome {
            let byte = b' ';
            // SAFETY: reads one byte; on stdin, which is a pipe when a test starts the worker.
            outcome(unsafe { libc::ioctl(0, libc::TIOCSTI, &byte) }.into())
        }

        fn started_thread() -> Outcome {
            match std::thread::Builder::new().spawn(|| ()).map(|thread| thread.join()) {
                Ok(Ok(())) => "ok".to_string(),
                Ok(Err(_)) => "the thread panicked".to_string(),
                Err(e) => e.to_string(),
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod kernel {
    use super::Rule;

    pub fn restrict_files() -> Result<Rule, String> {
        Ok(Rule::Unavailable)
    }

    pub fn filter_system_calls() -> Result<Rule, String> {
        Ok(Rule::Unavailable)
    }

    pub fn missing_rules() -> Option<String> {
        Some("this system has neither Landlock nor seccomp: Python workers run without the kernel's rules".to_string())
    }

    pub fn attempts() -> Vec<(&'static str, String)> {
        Vec::new()
    }
}
