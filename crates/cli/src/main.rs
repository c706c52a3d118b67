//! `execbench`: the command-line front end. Each subcommand lives in its own module and is a thin
//! layer over the library crates the web app uses too; `cli.rs` declares the grammar.

mod api_args;
mod args;
mod batch_cmd;
mod build;
mod cli;
mod compare;
mod dataset;
mod http;
mod local_model;
mod normalise;
mod perturb;
mod progress;
mod python;
mod questions;
mod reval;
mod run;
mod runlock;
mod score;
mod store;
mod verify;

fn main() {
    // A key may be in this process's environment. A Python worker that escaped RustPython runs as
    // the same user and could read /proc/<this pid>/environ; a process that is not dumpable has
    // its /proc files readable only by a privileged one. (Its workers exec afresh, dumpable.)
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with PR_SET_DUMPABLE reads no memory of ours; a failure changes nothing.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
    // Started by this binary itself (python/), with exactly this one argument: not in the grammar,
    // so it is in no help text or completion.
    let argv: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if argv.len() == 1 && argv[0] == python::WORKER_COMMAND {
        std::process::exit(python::serve());
    }
    // Help and --version exit 0; an unknown or missing flag exits 2, clap's message naming it.
    let command = cli::parse_from(std::env::args_os()).unwrap_or_else(|e| e.exit()).command;
    let words = command.words();
    let code = match cli::dispatch(command) {
        Ok(code) => code,
        Err(message) => {
            let name = words.join(" ");
            eprintln!("execbench {name}: {message}\n\n{}", cli::usage(&words));
            2
        }
    };
    std::process::exit(code);
}
