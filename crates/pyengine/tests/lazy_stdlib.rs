//! The standard library as the browser's worker has it: only what starting imports frozen in,
//! the rest read on first import from a downloaded file (`src/lazy_stdlib.rs`). Natively the
//! engine freezes everything in, so these tests set a fetcher that serves the same file.
//!
//! Its own test binary (not a module of `tests/pyengine/`): `fetch_rest_with` is one setting of the
//! process that makes every later interpreter read the rest from the fetcher, and the tests switch
//! that fetcher offline or to a damaged file: other tests' imports in the same process would fail.

use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

use execbench_core::verify::check_sample;
use execbench_core::{Limits, Outcome, PythonEngine, RunRequest, load_jsonl_bytes};
use execbench_pyengine::RustPythonEngine;
use execbench_pyengine::stdlib_rest::{REST_BYTES, REST_MODULES, fetch_rest_with};

const SERVE: u8 = 0;
const OFFLINE: u8 = 1;
const TRUNCATED: u8 = 2;
static MODE: AtomicU8 = AtomicU8::new(SERVE);
static DOWNLOADS: AtomicUsize = AtomicUsize::new(0);

fn download() -> Result<Vec<u8>, String> {
    DOWNLOADS.fetch_add(1, Ordering::SeqCst);
    match MODE.load(Ordering::SeqCst) {
        OFFLINE => Err("the network is off".to_string()),
        TRUNCATED => Ok(REST_BYTES[..REST_BYTES.len() / 2].to_vec()),
        _ => Ok(REST_BYTES.to_vec()),
    }
}

fn value(engine: &mut RustPythonEngine, program: &str, expression: &str) -> String {
    match engine.run(&RunRequest::new(program, expression)).outcome {
        Outcome::Value { repr, .. } => repr,
        other => panic!("{program} / {expression}: {other:?}"),
    }
}

fn raised(engine: &mut RustPythonEngine, program: &str) -> String {
    match engine.run(&RunRequest::new(program, "None")).outcome {
        Outcome::Raised { kind, message, .. } => format!("{kind}: {message}"),
        other => panic!("{program}: expected an exception, got {other:?}"),
    }
}

fn loaded_rest_modules(engine: &mut RustPythonEngine) -> Vec<String> {
    let names: Vec<String> = REST_MODULES.iter().map(|(name, _)| format!("{name:?}")).collect();
    let listed = value(engine, "import sys", &format!("sorted(set(sys.modules) & {{{}}})", names.join(", ")));
    listed.trim_matches(['[', ']']).split(", ").filter(|s| !s.is_empty()).map(str::to_string).collect()
}

/// Starting an interpreter, programs that raise, and the bundled CRUXEval's 800 programs need
/// nothing from the rest: a first visit that only uses those never downloads it.
#[test]
fn starting_and_the_bundled_dataset_need_nothing_from_the_rest() {
    fetch_rest_with(download);
    let mut engine = RustPythonEngine::new();
    assert_eq!(loaded_rest_modules(&mut engine), Vec::<String>::new(), "after the start");
    raised(&mut engine, "def f(x):\n    return 1 / x\nf(0)");
    raised(&mut engine, "def f(x):\n    return f(x)\nf(0)");
    value(&mut engine, "x = '%s %d' % ('a', 3) + f'{3.5:.2f}' + 'é'.encode().decode('utf-8')", "x");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../public/data/cruxeval/cruxeval.jsonl");
    let report = load_jsonl_bytes("cruxeval.jsonl", &std::fs::read(path).expect("the bundled dataset"));
    assert_eq!(report.samples.len(), 800);
    // The lazy library changes nothing a sample sees: each still verifies.
    let failed: Vec<String> = report
        .samples
        .iter()
        .map(|sample| check_sample(&mut engine, sample, Limits::default()))
        .filter(|check| check.verdict != execbench_core::verify::Verdict::Pass)
        .map(|check| format!("{}: {}", check.id, check.actual))
        .collect();
    assert_eq!(failed, Vec::<String>::new(), "samples that no longer verify");
    assert_eq!(loaded_rest_modules(&mut engine), Vec::<String>::new(), "after CRUXEval");
}

/// The first import that needs the rest downloads it; a failed download is that import's
/// ImportError (naming the module and the reason, never a crash), and is tried again next time;
/// once downloaded, the file serves every later interpreter without another download. (One test:
/// the download is kept for the process, so the steps' order matters.)
#[test]
fn the_rest_is_downloaded_on_first_import_and_kept() {
    fetch_rest_with(download);
    let mut engine = RustPythonEngine::new();

    MODE.store(OFFLINE, Ordering::SeqCst);
    let error = raised(&mut engine, "import collections");
    assert!(error.starts_with("ImportError: cannot import \"collections\""), "{error}");
    assert!(error.contains("the network is off"), "{error}");
    MODE.store(TRUNCATED, Ordering::SeqCst);
    let error = raised(&mut engine, "import json");
    assert!(error.contains("not this build's standard library"), "{error}");

    MODE.store(SERVE, Ordering::SeqCst);
    let before = DOWNLOADS.load(Ordering::SeqCst);
    assert_eq!(
        value(
            &mut engine,
            "import collections, json, re",
            "json.dumps(collections.Counter(re.findall('a.', 'abacad')))"
        ),
        "'{\"ab\": 1, \"ac\": 1, \"ad\": 1}'"
    );
    // A package's submodules, and a module's spec.
    assert_eq!(value(&mut engine, "import json.decoder, importlib.util", "json.decoder.__name__"), "'json.decoder'");
    assert_eq!(value(&mut engine, "import collections", "collections.__spec__.origin"), "'frozen'");
    let mut next = RustPythonEngine::new();
    assert_eq!(value(&mut next, "from fractions import Fraction", "str(Fraction(1, 3) + Fraction(1, 6))"), "'1/2'");
    assert_eq!(DOWNLOADS.load(Ordering::SeqCst), before + 1, "one download for both interpreters");

    // Every module of the rest imports from the file, as it does frozen in.
    for (name, _) in REST_MODULES {
        value(&mut engine, &format!("import importlib\nm = importlib.import_module({name:?})"), "m.__name__");
    }
}
