//! `execbench`: the command-line front end. Each subcommand lives in its own module and is a thin
//! layer over the library crates the web app uses too.

mod api_args;
mod args;
mod build;
mod compare;
mod dataset;
mod http;
mod normalise;
mod perturb;
mod progress;
mod python;
mod run;
mod score;
mod store;
mod verify;

use args::Args;

const USAGE: &str = "usage:\n  execbench verify --dataset FILE(.jsonl|.parquet) [--category FIELD] [--time-limit SECONDS] [--jobs N]\n  execbench perturb --dataset FILE.jsonl --kind KIND [--seed N] [--p X] [--once] [--prediction output|input] [--no-verify] [--time-limit SECONDS] [--profile execbench|codecrash] [--format execbench|codecrash] [--wrong-answers offline|file:PATH|model --provider P --model M [--base-url U] [--key-env NAME] [--allow-http]] --out FILE.jsonl\n  execbench normalise --dataset FILE(.jsonl|.parquet) [--no-verify] [--time-limit SECONDS] --out FILE.jsonl\n  execbench score --dataset FILE.jsonl --generations FILE --task output|input [--mode strict|compatible] [--time-limit SECONDS] [--jobs N] [--out FILE.jsonl]\n  execbench run --dataset FILE.jsonl --task output|input --provider P --model M [--base-url URL] [--n N] [--concurrency C] [--stream] [--key-env NAME] [--allow-http] [--jobs N] --out RUN.jsonl [--resume]\n  execbench build generate --methods LIST|all --per-method N --seed S [--source offline|replay FILE|api [--provider P --model M [--base-url URL] [--key-env NAME] [--allow-http]]] --out GENERATIONS.jsonl --candidates CANDIDATES.jsonl\n  execbench build filter --candidates FILE.jsonl --out KEPT.jsonl --rejected REJECTED.jsonl [--time-limit SECONDS]\n  execbench build sample --in KEPT.jsonl [--n N] [--seed S] [--balanced] [--rejected REJECTED.jsonl] [--generation GEN.json] --out BENCH.jsonl [--provenance PROV.json]\n  execbench compare RUN.jsonl... --out REPORT.md [--csv TABLE.csv] [--pairs PAIRS.jsonl] [--svg-dir DIR] [--seed N] [--bootstrap B] [--categories DATASET.jsonl [--category-field FIELD]] [--date TEXT]\n";

fn main() {
    // A key may be in this process's environment. A Python worker that escaped RustPython runs as
    // the same user and could read /proc/<this pid>/environ; a process that is not dumpable has
    // its /proc files readable only by a privileged one. (Its workers exec afresh, dumpable.)
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with PR_SET_DUMPABLE reads no memory of ours; a failure changes nothing.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let code = match argv.split_first() {
        Some((command, rest)) => match dispatch(command, rest) {
            Ok(code) => code,
            Err(message) => {
                eprintln!("execbench {command}: {message}");
                2
            }
        },
        None => {
            eprint!("{USAGE}");
            2
        }
    };
    std::process::exit(code);
}

fn dispatch(command: &str, rest: &[String]) -> Result<i32, String> {
    match command {
        // Started by this binary itself (python/): not in the usage text.
        python::WORKER_COMMAND if rest.is_empty() => Ok(python::serve()),
        "verify" => verify::run(&Args::parse(rest, &[])?).map_err(|e| format!("{e}\nusage: {}", verify::USAGE)),
        "normalise" => normalise::run(&Args::parse(rest, normalise::SWITCHES)?)
            .map_err(|e| format!("{e}\nusage: {}", normalise::USAGE)),
        "perturb" => {
            perturb::run(&Args::parse(rest, perturb::SWITCHES)?).map_err(|e| format!("{e}\nusage: {}", perturb::USAGE))
        }
        "run" => run::run(&Args::parse(rest, run::SWITCHES)?).map_err(|e| format!("{e}\nusage: {}", run::USAGE)),
        "build" => build::run(rest),
        "compare" => compare::run(rest).map_err(|e| format!("{e}\nusage: {}", compare::USAGE)),
        "score" => score::run(&Args::parse(rest, &[])?).map_err(|e| format!("{e}\nusage: {}", score::USAGE)),
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(0)
        }
        other => Err(format!("unknown command `{other}`\n{USAGE}")),
    }
}
