//! A crate's modules and which of them each one names: the module tree read from the files under
//! `src/`, and every `crate::`/`self::`/`super::` path of each file resolved to the module it
//! reaches. Circles are looked for among siblings: a module and its parent naming each other is
//! how Rust modules are made, two siblings naming each other is a circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::paths::local_paths;

/// A module's path from the crate's root (`["jobs", "batch"]`; the root is empty).
pub type ModulePath = Vec<String>;

/// One module naming another, with the file and the path that show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    pub from: ModulePath,
    pub to: ModulePath,
    pub file: PathBuf,
    pub path: String,
}

/// The modules of a crate whose root file is `src/lib.rs` or `src/main.rs`, each with its file.
pub fn module_files(src: &Path) -> BTreeMap<ModulePath, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                // `src/bin/` holds other crate roots.
                if !(dir == src && path.file_name().is_some_and(|n| n == "bin")) {
                    stack.push(path);
                }
                continue;
            }
            if path.extension().is_some_and(|e| e == "rs") {
                out.insert(module_path(src, &path), path);
            }
        }
    }
    out
}

fn module_path(src: &Path, file: &Path) -> ModulePath {
    let relative = file.strip_prefix(src).unwrap_or(file);
    let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    let is_root = parts.is_empty() && (stem == "lib" || stem == "main");
    if stem != "mod" && !is_root {
        parts.push(stem.to_string());
    }
    parts
}

/// What each module names among the crate's other modules, parents and children left out.
pub fn references(modules: &BTreeMap<ModulePath, PathBuf>, read: impl Fn(&Path) -> String) -> Vec<Reference> {
    let known: BTreeSet<&ModulePath> = modules.keys().collect();
    let mut out = Vec::new();
    for (from, file) in modules {
        for path in local_paths(&read(file)) {
            let Some(absolute) = absolute(from, &path) else { continue };
            let Some(to) = (1..=absolute.len()).rev().map(|n| absolute[..n].to_vec()).find(|p| known.contains(p))
            else {
                continue;
            };
            if to.starts_with(from) || from.starts_with(&to) {
                continue;
            }
            out.push(Reference { from: from.clone(), to, file: file.clone(), path: path.join("::") });
        }
    }
    out
}

/// The path from the crate's root that `path`, written in the module `from`, names.
fn absolute(from: &ModulePath, path: &[String]) -> Option<ModulePath> {
    let (head, rest) = path.split_first()?;
    match head.as_str() {
        "crate" => Some(rest.to_vec()),
        "self" => Some([from.as_slice(), rest].concat()),
        "super" => {
            // `super` in `a/b.rs` and in `a/b/mod.rs` is `a`: the parent of the file's module.
            let mut base = from.clone();
            base.pop()?;
            let mut rest = rest;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
            Some([base.as_slice(), rest].concat())
        }
        _ => None,
    }
}

/// Sibling modules that name each other, directly or through other siblings: each circle as its
/// parent and its members, with one reference for each edge inside it.
pub fn sibling_circles(references: &[Reference]) -> Vec<(ModulePath, Vec<String>, Vec<Reference>)> {
    // An edge between the two children of the deepest common parent that hold each end.
    let mut edges: BTreeMap<ModulePath, BTreeMap<(String, String), Reference>> = BTreeMap::new();
    for r in references {
        let common = r.from.iter().zip(&r.to).take_while(|(a, b)| a == b).count();
        let (Some(a), Some(b)) = (r.from.get(common), r.to.get(common)) else { continue };
        edges.entry(r.from[..common].to_vec()).or_default().entry((a.clone(), b.clone())).or_insert_with(|| r.clone());
    }
    let mut out = Vec::new();
    for (parent, level) in edges {
        let graph: BTreeMap<&str, Vec<&str>> = level.keys().fold(BTreeMap::new(), |mut g, (a, b)| {
            g.entry(a.as_str()).or_insert_with(Vec::new).push(b.as_str());
            g
        });
        for members in strongly_connected(&graph) {
            if members.len() < 2 {
                continue;
            }
            let inside: Vec<Reference> = level
                .iter()
                .filter(|((a, b), _)| members.contains(a) && members.contains(b))
                .map(|(_, r)| r.clone())
                .collect();
            out.push((parent.clone(), members, inside));
        }
    }
    out
}

/// Tarjan's strongly connected components, each sorted, in a stable order.
fn strongly_connected(graph: &BTreeMap<&str, Vec<&str>>) -> Vec<Vec<String>> {
    struct State<'a> {
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(v: &'a str, graph: &BTreeMap<&'a str, Vec<&'a str>>, s: &mut State<'a>) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        for &w in graph.get(v).map(Vec::as_slice).unwrap_or_default() {
            if !s.index.contains_key(w) {
                visit(w, graph, s);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            component.sort();
            s.out.push(component);
        }
    }
    let mut state = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for &v in graph.keys() {
        if !state.index.contains_key(v) {
            visit(v, graph, &mut state);
        }
    }
    state.out.sort();
    state.out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> (BTreeMap<ModulePath, PathBuf>, BTreeMap<PathBuf, String>) {
        let src = Path::new("/c/src");
        let mut modules = BTreeMap::new();
        let mut texts = BTreeMap::new();
        for (name, text) in files {
            let file = src.join(name);
            modules.insert(module_path(src, &file), file.clone());
            texts.insert(file, text.to_string());
        }
        (modules, texts)
    }

    fn circles(files: &[(&str, &str)]) -> Vec<String> {
        let (modules, texts) = tree(files);
        let refs = references(&modules, |f| texts[f].clone());
        sibling_circles(&refs)
            .into_iter()
            .map(|(parent, members, _)| format!("{}:{}", parent.join("::"), members.join(",")))
            .collect()
    }

    #[test]
    fn module_paths_follow_the_files() {
        let src = Path::new("/c/src");
        let cases: &[(&str, &[&str])] =
            &[("lib.rs", &[]), ("main.rs", &[]), ("a.rs", &["a"]), ("a/mod.rs", &["a"]), ("a/b.rs", &["a", "b"])];
        for (file, want) in cases {
            assert_eq!(module_path(src, &src.join(file)), *want, "{file}");
        }
    }

    #[test]
    fn circles_are_found_among_siblings_only() {
        // (the crate's files with their text, the circles expected)
        type Case<'a> = (&'a [(&'a str, &'a str)], &'a [&'a str]);
        let cases: &[Case] = &[
            // A parent and its child naming each other: not a circle.
            (&[("lib.rs", "mod a; use crate::a::X;"), ("a.rs", "use super::Y;")], &[]),
            // Two siblings: a circle under the root.
            (&[("lib.rs", ""), ("a.rs", "use crate::b::X;"), ("b.rs", "fn f() { super::a::g() }")], &[":a,b"]),
            // Through a third sibling.
            (
                &[
                    ("lib.rs", ""),
                    ("a.rs", "use crate::b::X;"),
                    ("b.rs", "use crate::c::Y;"),
                    ("c.rs", "use crate::a;"),
                ],
                &[":a,b,c"],
            ),
            // One way only: no circle.
            (&[("lib.rs", ""), ("a.rs", "use crate::b::X;"), ("b.rs", "")], &[]),
            // Deeper modules count for the siblings that hold them.
            (
                &[
                    ("lib.rs", ""),
                    ("a/mod.rs", ""),
                    ("a/x.rs", "use crate::b::y::Z;"),
                    ("b/mod.rs", ""),
                    ("b/y.rs", "use crate::a::x;"),
                ],
                &[":a,b"],
            ),
            // Under a parent: named by the parent.
            (&[("lib.rs", ""), ("p/mod.rs", ""), ("p/a.rs", "use super::b;"), ("p/b.rs", "use super::a;")], &["p:a,b"]),
            // Paths in comments and strings are not references.
            (
                &[("lib.rs", ""), ("a.rs", "use crate::b::X;"), ("b.rs", "// crate::a\nconst S: &str = \"crate::a\";")],
                &[],
            ),
        ];
        for (files, want) in cases {
            assert_eq!(circles(files), *want, "{files:?}");
        }
    }
}
