//! The repository's layering rules, read from the code and checked by this crate's tests
//! (ARCHITECTURE.md states each rule once and names the test):
//!
//! - a crate depends only on crates of lower layers ([`LAYERS`]; dev-dependencies are free);
//! - no import circle between sibling modules of a crate ([`modules::sibling_circles`]), but for
//!   the circles [`KNOWN_CIRCLES`] names, each one a task of its own: the list may only shrink;
//! - the app's layers point one way (page → state → jobs): no page imports another page, a job
//!   imports no component, state or page, state no page or component, a component no page.
//!
//! The crates' dependencies come from `cargo metadata`; the modules' from the `use` lines and
//! `crate::`/`self::`/`super::` paths of every file under each crate's `src/` ([`paths`]).

pub mod modules;
pub mod paths;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Each workspace crate's layer, lowest first; a crate may depend only on lower layers.
pub const LAYERS: &[(&str, &[&str])] = &[
    (
        "leaves: no execbench crate below them",
        &[
            "execbench-literal",
            "execbench-pysyntax",
            "execbench-providers",
            "execbench-model-files",
            "execbench-sandbox",
            "execbench-precompress",
            "execbench-architecture",
            "execbench-proptest-cases",
            "unicode_names2",
        ],
    ),
    ("the sample and the engine's interface", &["execbench-core"]),
    (
        "one idea each over samples: prompts and scoring, formats, perturbations, the interpreter, the worker messages, the CRUXEval recipe, the local model, the edges' traits, highlighting",
        &[
            "execbench-eval",
            "execbench-formats",
            "execbench-perturb",
            "execbench-pyengine",
            "execbench-worker-protocol",
            "execbench-recipe",
            "execbench-localmodel",
            "execbench-io",
            "execbench-highlight",
        ],
    ),
    ("questions about a program's run, made from its trace", &["execbench-trace-questions"]),
    ("what a stored run is: manifest, records, run file, stores, prices", &["execbench-runs"]),
    ("how one sample is asked: requests, retries, rate limits, status", &["execbench-ask"]),
    (
        "the engine and the session; the dataset jobs; readers of stored runs",
        &["execbench-run", "execbench-dataset-jobs", "execbench-compare", "execbench-idbstore"],
    ),
    (
        "edges: workers, the mock model server, test plumbing",
        &[
            "execbench-python-worker",
            "execbench-loader-worker",
            "execbench-model-worker",
            "execbench-mockserver",
            "execbench-testkit",
        ],
    ),
    ("front ends", &["execbench-app", "execbench-cli", "execbench-bench"]),
];

/// Import circles that exist today, as `crate: parent:member,member,...` (the parent empty for
/// the crate's root). Each is to be broken (issue 56); one that is gone must leave this list.
pub const KNOWN_CIRCLES: &[&str] = &[];

fn layer_of(name: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, crates)| crates.contains(&name))
}

/// Every dependency of a workspace crate on a crate of its own or a higher layer, and every
/// crate missing from [`LAYERS`], from `cargo metadata --no-deps`'s JSON.
pub fn layer_violations(metadata: &Value) -> Vec<String> {
    let packages = metadata["packages"].as_array().map(Vec::as_slice).unwrap_or_default();
    let members: BTreeSet<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    let mut out = Vec::new();
    for package in packages {
        let name = package["name"].as_str().unwrap_or_default();
        let Some(layer) = layer_of(name) else {
            out.push(format!("{name} is in no layer: add it to LAYERS (crates/architecture/src/lib.rs)"));
            continue;
        };
        let deps = package["dependencies"].as_array().map(Vec::as_slice).unwrap_or_default();
        for dep in deps {
            let dep_name = dep["name"].as_str().unwrap_or_default();
            // Dev-dependencies (tests may use anything); build-dependencies and normal ones count.
            if dep["kind"].as_str() == Some("dev") || !members.contains(dep_name) || dep_name == name {
                continue;
            }
            match layer_of(dep_name) {
                Some(dep_layer) if dep_layer < layer => {}
                Some(dep_layer) => out.push(format!(
                    "{name} (layer {layer}, {}) depends on {dep_name} (layer {dep_layer}, {})",
                    LAYERS[layer].0, LAYERS[dep_layer].0
                )),
                None => {}
            }
        }
    }
    out
}

/// The circles among sibling modules of the crate whose sources are under `src`, written as
/// [`KNOWN_CIRCLES`] writes them, each with the references that make it.
pub fn circles_in(crate_name: &str, src: &Path) -> Vec<(String, Vec<String>)> {
    let files = modules::module_files(src);
    let refs = modules::references(&files, |f| std::fs::read_to_string(f).unwrap_or_default());
    modules::sibling_circles(&refs)
        .into_iter()
        .map(|(parent, members, inside)| {
            let name = format!("{crate_name}: {}:{}", parent.join("::"), members.join(","));
            let shown = inside
                .iter()
                .map(|r| format!("{} -> {} ({} in {})", r.from.join("::"), r.to.join("::"), r.path, r.file.display()))
                .collect();
            (name, shown)
        })
        .collect()
}

/// The app's own rules, its layers pointing one way (page → state → jobs): no page imports
/// another page, a job imports no component, state or page, state no page or component, and a
/// component no page.
pub fn app_violations(src: &Path) -> Vec<String> {
    let files = modules::module_files(src);
    let refs = modules::references(&files, |f| std::fs::read_to_string(f).unwrap_or_default());
    let mut out = Vec::new();
    for r in refs {
        let (from, to) = (r.from.first().map(String::as_str), r.to.first().map(String::as_str));
        let rule = match (from, to) {
            (Some("pages"), Some("pages")) if r.from.get(1) != r.to.get(1) => "a page imports another page",
            (Some("jobs"), Some("components" | "state" | "pages")) => "a job imports the layers above it",
            (Some("state"), Some("components" | "pages")) => "state imports a component or a page",
            (Some("components"), Some("pages")) => "a component imports a page",
            _ => continue,
        };
        out.push(format!(
            "{rule}: {} names {} ({} in {})",
            r.from.join("::"),
            r.to.join("::"),
            r.path,
            r.file.display()
        ));
    }
    out
}

/// The workspace's crates: (name, the folder holding its `src/`), from `cargo metadata`.
pub fn workspace_crates(metadata: &Value) -> Vec<(String, PathBuf)> {
    let packages = metadata["packages"].as_array().map(Vec::as_slice).unwrap_or_default();
    packages
        .iter()
        .filter_map(|p| {
            let manifest = PathBuf::from(p["manifest_path"].as_str()?);
            Some((p["name"].as_str()?.to_string(), manifest.parent()?.to_path_buf()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::process::Command;

    use serde_json::{Value, json};

    use super::*;

    fn metadata() -> Value {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let output = Command::new(cargo)
            .args(["metadata", "--no-deps", "--format-version", "1", "--offline"])
            .current_dir(&root)
            .output()
            .expect("run cargo metadata");
        assert!(output.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&output.stderr));
        serde_json::from_slice(&output.stdout).expect("cargo metadata's JSON")
    }

    #[test]
    fn a_crate_depends_only_on_lower_layers() {
        let violations = layer_violations(&metadata());
        assert!(violations.is_empty(), "{}", violations.join("\n"));
    }

    #[test]
    fn the_layer_check_refuses_an_upward_or_sideways_dependency_and_an_unknown_crate() {
        let package = |name: &str, deps: &[(&str, &str)]| json!({"name": name, "dependencies": deps.iter().map(|(d, kind)| json!({"name": d, "kind": if kind.is_empty() { Value::Null } else { json!(kind) }})).collect::<Vec<_>>()});
        // (packages as (name, [(dependency, kind)]), the violations expected)
        type Packages<'a> = &'a [(&'a str, &'a [(&'a str, &'a str)])];
        let cases: &[(Packages, usize)] = &[
            (&[("execbench-core", &[("execbench-literal", "")]), ("execbench-literal", &[])], 0),
            (&[("execbench-core", &[("execbench-run", "")]), ("execbench-run", &[])], 1),
            (&[("execbench-eval", &[("execbench-formats", "")]), ("execbench-formats", &[])], 1),
            (&[("execbench-core", &[("execbench-run", "dev")]), ("execbench-run", &[])], 0),
            (&[("execbench-core", &[("execbench-run", "build")]), ("execbench-run", &[])], 1),
            (&[("execbench-newcomer", &[])], 1),
        ];
        for (packages, want) in cases {
            let metadata = json!({"packages": packages.iter().map(|(n, d)| package(n, d)).collect::<Vec<_>>()});
            assert_eq!(layer_violations(&metadata).len(), *want, "{packages:?}");
        }
    }

    #[test]
    fn no_import_circle_but_the_known_ones() {
        let mut found = BTreeSet::new();
        let mut shown = Vec::new();
        for (name, dir) in workspace_crates(&metadata()) {
            for (circle, refs) in circles_in(&name, &dir.join("src")) {
                shown.push(format!("{circle}\n    {}", refs.join("\n    ")));
                found.insert(circle);
            }
        }
        let known: BTreeSet<String> = KNOWN_CIRCLES.iter().map(|s| s.to_string()).collect();
        let new: Vec<&String> = found.difference(&known).collect();
        let gone: Vec<&String> = known.difference(&found).collect();
        assert!(
            new.is_empty() && gone.is_empty(),
            "new import circles: {new:?}\nknown circles now gone (take them out of KNOWN_CIRCLES): {gone:?}\nall found:\n{}",
            shown.join("\n")
        );
    }

    #[test]
    fn the_app_rules_refuse_every_import_against_its_layers() {
        let src = std::env::temp_dir().join(format!("execbench-architecture-{}", std::process::id()));
        let files = [
            ("main.rs", ""),
            ("pages/mod.rs", "pub mod a; pub mod b; use crate::components::x;"),
            ("pages/a.rs", "use crate::pages::b::B; use crate::jobs::run;"),
            ("pages/b.rs", "use super::super::components::x::X;"),
            ("jobs/mod.rs", ""),
            ("jobs/run.rs", "fn f() { crate::components::x::draw() }"),
            ("components/mod.rs", ""),
            ("components/x.rs", "use crate::jobs::run;"),
            ("state/mod.rs", "use crate::jobs::run; use crate::pages::a;"),
            ("components/y.rs", "fn f() { crate::pages::b::draw() }"),
        ];
        for (name, text) in files {
            let path = src.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let violations = app_violations(&src);
        let _ = std::fs::remove_dir_all(&src);
        let rules: Vec<&str> = violations.iter().map(|v| v.split(" (").next().unwrap()).collect();
        assert_eq!(
            rules,
            [
                "a component imports a page: components::y names pages::b",
                "a job imports the layers above it: jobs::run names components::x",
                "a page imports another page: pages::a names pages::b",
                "state imports a component or a page: state names pages::a",
            ],
            "{violations:#?}"
        );
    }

    #[test]
    fn the_apps_layers_point_one_way() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../src");
        assert!(src.join("pages").is_dir() && src.join("jobs").is_dir(), "the app's src/ at {}", src.display());
        let violations = app_violations(&src);
        assert!(violations.is_empty(), "{}", violations.join("\n"));
    }
}
