//! REN: renaming entities. The function under test becomes `f`, other top-level functions `f1`,
//! `f2`, ... (in source order); every other renameable binding (parameters, assignment, `for`,
//! `with ... as`, `except ... as`, walrus and comprehension targets, nested `def` names, module-level
//! variables) becomes `Var_1`, `Var_2`, ...: first the tested function's parameters in signature
//! order, then the other names by the source position of their first binding. The same original
//! name gets the same new name in every scope. Numbers whose name the program already uses for
//! something we keep are skipped.
//!
//! Under the `codecrash` profile the same names are renamed but for nested `def` names, which
//! CodeCrash leaves as they are (so GBC's garbage functions in PSC_ALL keep theirs), numbered as
//! CodeCrash's October 2025 rewrite numbers them: other top-level functions `f1`, `f2`, ... and variables `Var_1`, ... in
//! alphabetical order of their original names (by Unicode code point, as Python's `sorted` orders
//! strings), the tested function's parameters included (`def f(b, a)` becomes
//! `def f(Var_2, Var_1)`). The paper's April 2025 data numbered names in set-iteration order, which
//! depends on Python's string hashing and cannot be reproduced.
//!
//! Kept as they are: attribute names, keyword names in calls to anything but our own functions,
//! builtins and other free names, imported names, class names and class-body names, parameters of
//! methods (they can be passed by keyword through `self.`), dunder names.

use std::collections::{BTreeMap, BTreeSet};

use execbench_pysyntax::Tree;

use crate::edit::{Edit, TextEdit};
use crate::scope::{Analysis, ScopeKind};
use crate::syntax::NodeKind;
use crate::syntax::{self, named_children, preorder, text};
use crate::{Kind, PerturbError, Profile, Program};

/// Calls and attributes that read variable or function names as data: renaming would change
/// what they see.
const INTROSPECTING_CALLS: &[&str] = &["locals", "vars", "globals", "eval", "exec", "compile", "__import__"];
const INTROSPECTING_ATTRIBUTES: &[&str] =
    &["__name__", "__qualname__", "__code__", "__dict__", "__defaults__", "__kwdefaults__", "f_locals", "f_globals"];

/// The renamed program, the edits made to its code and those made to its call. `code_tree` and
/// `call_tree` are the syntax trees of the program's code and call.
pub fn rename(
    program: &Program,
    code_tree: &Tree,
    call_tree: &Tree,
    profile: Profile,
) -> Result<(Program, Vec<Edit>, Vec<Edit>), PerturbError> {
    if let Some(at) = syntax::first_error(code_tree.root_node()) {
        return Err(PerturbError::InvalidInput(format!("the code does not parse (syntax error at byte {at})")));
    }
    check_call(call_tree, &program.call, &program.function_name)?;
    let call_offset = program.code.len() + 1;
    // The names are resolved in the code followed by the call, as one module. Two texts that
    // parse, one after the other on separate lines, are the module of both, unless the code's last
    // line runs on into the call's (a trailing backslash): then the joined text is parsed.
    let analysis = if program.code.trim_end().ends_with('\\') {
        let combined = format!("{}\n{}\n", program.code, program.call);
        // The code's tree with the call appended: only the end is parsed again.
        let appended = Edit {
            kind: Kind::Ren,
            start_byte: program.code.len(),
            end_byte: program.code.len(),
            after_start_byte: program.code.len(),
            before: String::new(),
            after: combined[program.code.len()..].to_string(),
            target: crate::edit::Target::Code,
        };
        let tree = syntax::reparse(code_tree, &combined, std::slice::from_ref(&appended))?;
        if let Some(at) = syntax::first_error(tree.root_node()) {
            return Err(PerturbError::InvalidInput(format!(
                "the code followed by the call does not parse (syntax error at byte {at})"
            )));
        }
        let analysis = Analysis::of(tree.root_node(), &combined);
        if let Some(what) = analysis.unsupported.first() {
            return Err(PerturbError::Unsupported(format!("REN does not handle {what}")));
        }
        check_no_introspection(tree.root_node(), &combined, 0, &analysis)?;
        analysis
    } else {
        let analysis = Analysis::of_joined(
            code_tree.root_node(),
            &program.code,
            call_tree.root_node(),
            &program.call,
            call_offset,
        );
        if let Some(what) = analysis.unsupported.first() {
            return Err(PerturbError::Unsupported(format!("REN does not handle {what}")));
        }
        check_no_introspection(code_tree.root_node(), &program.code, 0, &analysis)?;
        check_no_introspection(call_tree.root_node(), &program.call, call_offset, &analysis)?;
        analysis
    };

    let plan = Plan::new(&analysis, &program.function_name, profile)?;
    let mut code_edits = Vec::new();
    let mut call_edits = Vec::new();
    let mut push = |start: usize, end: usize, new_name: &str| {
        if start >= call_offset {
            call_edits.push(TextEdit::replace(start - call_offset, end - call_offset, new_name));
        } else {
            code_edits.push(TextEdit::replace(start, end, new_name));
        }
    };
    for occurrence in &analysis.occurrences {
        if let Some(new_name) = plan.new_name_of(&analysis, occurrence.scope, &occurrence.name) {
            push(occurrence.start, occurrence.end, new_name);
        }
    }
    for keyword in &analysis.keywords {
        if let Some(new_name) = plan.new_keyword(&analysis, keyword)? {
            push(keyword.start, keyword.end, new_name);
        }
    }
    let new_function_name = plan.function_names.get(&program.function_name).cloned().unwrap_or_else(|| "f".to_string());
    let (call, call_report) = crate::edit::apply_to(&program.call, Kind::Ren, crate::edit::Target::Call, call_edits)?;
    let (code, report) = crate::edit::apply(&program.code, Kind::Ren, code_edits)?;
    Ok((Program { code, call, function_name: new_function_name }, report, call_report))
}

/// The call must be one expression calling the function under test by name.
fn check_call(tree: &Tree, call: &str, function_name: &str) -> Result<(), PerturbError> {
    if let Some(at) = syntax::first_error(tree.root_node()) {
        return Err(PerturbError::InvalidInput(format!("the call does not parse (syntax error at byte {at})")));
    }
    let root = tree.root_node();
    let statements = named_children(root);
    let callee = match statements.as_slice() {
        [statement] if statement.kind_name() == "expression_statement" => named_children(*statement)
            .first()
            .filter(|e| e.kind_name() == "call")
            .and_then(|c| c.child_by_field_name("function"))
            .map(|f| text(f, call).to_string()),
        _ => None,
    };
    match callee {
        Some(name) if name == function_name => Ok(()),
        _ => Err(PerturbError::InvalidInput(format!("the call `{call}` is not a call of `{function_name}`"))),
    }
}

/// `offset`: where `source` starts in the text `analysis` counts positions in.
fn check_no_introspection(
    root: execbench_pysyntax::Node,
    source: &str,
    offset: usize,
    analysis: &Analysis,
) -> Result<(), PerturbError> {
    for node in preorder(root) {
        match node.kind_name() {
            "call" => {
                let Some(function) = node.child_by_field_name("function") else { continue };
                let name = text(function, source);
                if function.kind_name() != "identifier" || !INTROSPECTING_CALLS.contains(&name) {
                    continue;
                }
                if analysis.resolve(analysis.scope_at(offset + function.start_byte()), name).is_some() {
                    continue; // the program defines its own `eval` & co.
                }
                if name == "eval" && evaluates_only_a_str_call(node, source) {
                    continue; // RTF's `eval(str(c))`: the text is a bool's repr, no names.
                }
                return Err(PerturbError::Unsupported(format!(
                    "REN: the code calls `{name}()`, which sees variable names"
                )));
            }
            "attribute" => {
                let Some(attribute) = node.child_by_field_name("attribute") else { continue };
                let name = text(attribute, source);
                if INTROSPECTING_ATTRIBUTES.contains(&name) {
                    return Err(PerturbError::Unsupported(format!("REN: the code reads `.{name}`, which sees names")));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn evaluates_only_a_str_call(call: execbench_pysyntax::Node, source: &str) -> bool {
    let Some(arguments) = call.child_by_field_name("arguments") else { return false };
    match named_children(arguments).as_slice() {
        [only] if only.kind_name() == "call" => {
            only.child_by_field_name("function").is_some_and(|f| text(f, source) == "str")
        }
        _ => false,
    }
}

/// Which bindings get which new names.
struct Plan {
    /// Module-level `def` names -> `f`, `f1`, ...
    function_names: BTreeMap<String, String>,
    /// Every other renamed name -> `Var_k`.
    variable_names: BTreeMap<String, String>,
    profile: Profile,
}

#[derive(PartialEq)]
enum Renaming {
    Keep,
    Function,
    Variable,
}

fn renaming_of(analysis: &Analysis, scope: usize, name: &str, profile: Profile) -> Renaming {
    let s = &analysis.scopes[scope];
    let dunder = name.starts_with("__") && name.ends_with("__");
    let declared_elsewhere = s.globals.contains(name) || s.nonlocals.contains(name);
    if dunder || declared_elsewhere || s.frozen.contains(name) || !s.bound.contains_key(name) {
        return Renaming::Keep;
    }
    match s.kind {
        ScopeKind::Class => Renaming::Keep,
        ScopeKind::Module if s.defined_functions.contains(name) => {
            if s.bound_otherwise.contains(name) {
                Renaming::Keep
            } else {
                Renaming::Function
            }
        }
        ScopeKind::Function if s.params.iter().any(|p| p == name) && is_method(analysis, scope) => Renaming::Keep,
        // CodeCrash renames top-level functions only: a nested `def` (GBC's garbage functions
        // among them) keeps its name.
        ScopeKind::Function if profile == Profile::Codecrash && s.defined_functions.contains(name) => Renaming::Keep,
        _ => Renaming::Variable,
    }
}

fn is_method(analysis: &Analysis, scope: usize) -> bool {
    analysis.scopes[scope].parent.is_some_and(|p| analysis.scopes[p].kind == ScopeKind::Class)
}

impl Plan {
    fn new(analysis: &Analysis, function_under_test: &str, profile: Profile) -> Result<Plan, PerturbError> {
        let module = &analysis.scopes[0];
        if !module.defined_functions.contains(function_under_test) {
            return Err(PerturbError::InvalidInput(format!(
                "the code defines no top-level function `{function_under_test}`"
            )));
        }
        if renaming_of(analysis, 0, function_under_test, profile) != Renaming::Function {
            return Err(PerturbError::Unsupported(format!(
                "REN: `{function_under_test}` is also bound by something other than `def`"
            )));
        }
        // Names we keep may not be taken by a new name.
        let mut taken: BTreeSet<String> = BTreeSet::new();
        let mut functions: Vec<(usize, String)> = Vec::new();
        let mut variables: BTreeMap<String, usize> = BTreeMap::new();
        for occurrence in &analysis.occurrences {
            match analysis.resolve(occurrence.scope, &occurrence.name) {
                None => {
                    taken.insert(occurrence.name.clone());
                }
                Some(scope) => match renaming_of(analysis, scope, &occurrence.name, profile) {
                    Renaming::Keep => {
                        taken.insert(occurrence.name.clone());
                    }
                    Renaming::Function => {
                        let first = analysis.scopes[scope].bound[&occurrence.name];
                        if !functions.iter().any(|(_, n)| n == &occurrence.name) {
                            functions.push((first, occurrence.name.clone()));
                        }
                    }
                    Renaming::Variable => {
                        let first = analysis.scopes[scope].bound[&occurrence.name];
                        let entry = variables.entry(occurrence.name.clone()).or_insert(first);
                        *entry = (*entry).min(first);
                    }
                },
            }
        }
        for scope in &analysis.scopes {
            taken.extend(scope.frozen.iter().cloned());
        }
        if taken.contains("f") {
            return Err(PerturbError::Unsupported(
                "REN: the name `f` is already used for something that is not renamed".to_string(),
            ));
        }
        functions.sort();
        if profile == Profile::Codecrash {
            // By name: a `String`'s order is its code points' order, as in Python's `sorted`.
            functions.sort_by(|a, b| a.1.cmp(&b.1));
        }
        let mut function_names = BTreeMap::new();
        function_names.insert(function_under_test.to_string(), "f".to_string());
        let mut counter = 0;
        for (_, name) in functions.iter().filter(|(_, n)| n != function_under_test) {
            function_names.insert(name.clone(), next_free(&mut counter, "f", &taken));
        }
        if profile == Profile::Codecrash {
            // `variables` is a BTreeMap keyed by name: already in alphabetical order.
            let mut counter = 0;
            let variable_names =
                variables.into_keys().map(|name| (name, next_free(&mut counter, "Var_", &taken))).collect();
            return Ok(Plan { function_names, variable_names, profile });
        }
        // The tested function's parameters first, so that its signature reads `f(Var_1, Var_2)`.
        let tested_parameters: Vec<String> = analysis
            .scopes
            .iter()
            .find(|s| s.parent == Some(0) && s.def_name.as_deref() == Some(function_under_test))
            .map(|s| s.params.clone())
            .unwrap_or_default();
        let mut order: Vec<String> = tested_parameters.into_iter().filter(|p| variables.contains_key(p)).collect();
        order.dedup();
        let mut by_position: Vec<(usize, String)> = variables
            .into_iter()
            .filter(|(name, _)| !order.contains(name))
            .map(|(name, first)| (first, name))
            .collect();
        by_position.sort();
        order.extend(by_position.into_iter().map(|(_, name)| name));
        let mut counter = 0;
        let variable_names = order.into_iter().map(|name| (name, next_free(&mut counter, "Var_", &taken))).collect();
        Ok(Plan { function_names, variable_names, profile })
    }

    fn new_name_of(&self, analysis: &Analysis, scope: usize, name: &str) -> Option<&String> {
        let target = analysis.resolve(scope, name)?;
        match renaming_of(analysis, target, name, self.profile) {
            Renaming::Keep => None,
            Renaming::Function => self.function_names.get(name),
            Renaming::Variable => self.variable_names.get(name),
        }
    }

    /// `g(x=1)` where `g` is one of our functions and `x` its (renamed) parameter: rename `x`.
    fn new_keyword(
        &self,
        analysis: &Analysis,
        keyword: &crate::scope::KeywordArgument,
    ) -> Result<Option<&String>, PerturbError> {
        let Some(callee) = &keyword.callee else { return Ok(None) };
        let Some(target) = analysis.resolve(keyword.scope, callee) else { return Ok(None) };
        let definitions: Vec<_> = analysis
            .scopes
            .iter()
            .enumerate()
            .filter(|(_, s)| s.parent == Some(target) && s.def_name.as_deref() == Some(callee))
            .collect();
        let renamed_parameter = |(index, s): &(usize, &crate::scope::Scope)| {
            s.params.contains(&keyword.name)
                && renaming_of(analysis, *index, &keyword.name, self.profile) == Renaming::Variable
        };
        if !definitions.is_empty() && definitions.iter().all(renamed_parameter) {
            return Ok(self.variable_names.get(&keyword.name));
        }
        let through_renamed_variable = renaming_of(analysis, target, callee, self.profile) == Renaming::Variable
            && !analysis.scopes[target].defined_functions.contains(callee.as_str());
        if through_renamed_variable && self.variable_names.contains_key(&keyword.name) {
            return Err(PerturbError::Unsupported(format!(
                "REN: `{callee}({}=...)` calls through a variable, so it is unknown whether `{}` is a renamed parameter",
                keyword.name, keyword.name
            )));
        }
        Ok(None)
    }
}

fn next_free(counter: &mut usize, prefix: &str, taken: &BTreeSet<String>) -> String {
    loop {
        *counter += 1;
        let candidate = format!("{prefix}{counter}");
        if !taken.contains(&candidate) {
            return candidate;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Kind, Options, PerturbError, perturb};

    fn ren(code: &str, function_name: &str, call: &str) -> Result<(String, String), PerturbError> {
        perturb(code, function_name, call, "None", Kind::Ren, &Options::default(), "t").map(|p| (p.code, p.call))
    }

    fn ren_codecrash(code: &str, function_name: &str, call: &str) -> Result<(String, String), PerturbError> {
        let options = Options { profile: crate::Profile::Codecrash, ..Options::default() };
        perturb(code, function_name, call, "None", Kind::Ren, &options, "t").map(|p| (p.code, p.call))
    }

    /// The codecrash profile numbers by original name; expected texts written by hand.
    #[test]
    fn codecrash_profile_numbers_alphabetically() {
        let cases: &[(&str, &str, &str, &str, &str)] = &[
            (
                "parameters are not first: `b` < `n` < `total` < `x`",
                "def f(x, n):\n    total = 0\n    for b in x:\n        total += b * n\n    return total",
                "f([1], n=2)",
                "def f(Var_4, Var_2):\n    Var_3 = 0\n    for Var_1 in Var_4:\n        Var_3 += Var_1 * Var_2\n    return Var_3",
                "f([1], Var_2=2)",
            ),
            (
                "helpers by name too (`alpha` before `zeta`), upper case before lower case",
                "def zeta(v):\n    return v\ndef alpha(w):\n    return w\ndef main(Z, a):\n    return zeta(Z) + alpha(a)",
                "main(1, 2)",
                "def f2(Var_3):\n    return Var_3\ndef f1(Var_4):\n    return Var_4\ndef f(Var_1, Var_2):\n    return f2(Var_1) + f1(Var_2)",
                "f(1, 2)",
            ),
            (
                "a nested `def` keeps its name; its parameters are renamed",
                "def f(a):\n    def helper(b):\n        return b + 1\n    return helper(a)",
                "f(1)",
                "def f(Var_1):\n    def helper(Var_2):\n        return Var_2 + 1\n    return helper(Var_1)",
                "f(1)",
            ),
        ];
        for (what, code, call, expected_code, expected_call) in cases {
            let function = call.split('(').next().unwrap();
            let (got_code, got_call) = ren_codecrash(code, function, call).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!((got_code.as_str(), got_call.as_str()), (*expected_code, *expected_call), "{what}");
        }
        // The execbench profile renames the nested `def` too.
        let nested = "def f(a):\n    def helper(b):\n        return b + 1\n    return helper(a)";
        assert!(!ren(nested, "f", "f(1)").unwrap().0.contains("helper"));
        // Without nested `def`s the same names are renamed under both profiles: only the numbers move.
        let code = "def f(s, k):\n    out = [c for c in s if c != k]\n    return ''.join(out)";
        let strip = |t: String| t.chars().filter(|c| !c.is_ascii_digit()).collect::<String>();
        assert_eq!(
            strip(ren(code, "f", "f('ab', 'a')").unwrap().0),
            strip(ren_codecrash(code, "f", "f('ab', 'a')").unwrap().0)
        );
    }

    /// (what, code, function, call, expected code, expected call), expected text written by hand.
    #[test]
    fn renames_as_documented() {
        let cases: &[(&str, &str, &str, &str, &str, &str)] = &[
            (
                "the issue's example: keyword in the call follows the parameter",
                "def minimumCost(s):\n    return s.count('1')",
                "minimumCost",
                "minimumCost(s='0011')",
                "def f(Var_1):\n    return Var_1.count('1')",
                "f(Var_1='0011')",
            ),
            (
                "keywords of builtins, attributes and strings are kept",
                "def f(a, text):\n    d = dict(a=1)\n    text = text.upper()\n    return d['a'] + a, 'text' + text",
                "f",
                "f(1, 'x')",
                "def f(Var_1, Var_2):\n    Var_3 = dict(a=1)\n    Var_2 = Var_2.upper()\n    return Var_3['a'] + Var_1, 'text' + Var_2",
                "f(1, 'x')",
            ),
            (
                "helpers become f1.., keywords to our own functions are renamed",
                "def helper(x, y=2):\n    return x * y\ndef f(n):\n    return helper(n, y=n)",
                "f",
                "f(3)",
                "def f1(Var_2, Var_3=2):\n    return Var_2 * Var_3\ndef f(Var_1):\n    return f1(Var_1, Var_3=Var_1)",
                "f(3)",
            ),
            (
                "comprehension, walrus (binds in the function), try/except as",
                "def f(items):\n    total = 0\n    squares = [v * v for v in items if (w := v) > 0]\n    try:\n        total += sum(squares)\n    except ValueError as err:\n        total = str(err)\n    return total, w",
                "f",
                "f([1])",
                "def f(Var_1):\n    Var_2 = 0\n    Var_3 = [Var_4 * Var_4 for Var_4 in Var_1 if (Var_5 := Var_4) > 0]\n    try:\n        Var_2 += sum(Var_3)\n    except ValueError as Var_6:\n        Var_2 = str(Var_6)\n    return Var_2, Var_5",
                "f([1])",
            ),
            (
                "module variables and `global` follow their binding",
                "count = 0\ndef f(x):\n    global count\n    count += x\n    return count",
                "f",
                "f(2)",
                "Var_2 = 0\ndef f(Var_1):\n    global Var_2\n    Var_2 += Var_1\n    return Var_2",
                "f(2)",
            ),
            (
                "a new name already taken by an import is skipped",
                "import math as Var_1\ndef f(x):\n    return Var_1.sqrt(x)",
                "f",
                "f(4)",
                "import math as Var_1\ndef f(Var_2):\n    return Var_1.sqrt(Var_2)",
                "f(4)",
            ),
            (
                "the tested function takes `f`, an existing `f` moves to `f1`",
                "def f(a):\n    return a + 1\ndef g(b):\n    return f(b)",
                "g",
                "g(1)",
                "def f1(Var_2):\n    return Var_2 + 1\ndef f(Var_1):\n    return f1(Var_1)",
                "f(1)",
            ),
            (
                "class and method parameters are kept, method locals renamed",
                "class Solution:\n    def solve(self, n):\n        k = n + 1\n        return k\ndef f(n):\n    return Solution().solve(n=n)",
                "f",
                "f(1)",
                "class Solution:\n    def solve(self, n):\n        Var_2 = n + 1\n        return Var_2\ndef f(Var_1):\n    return Solution().solve(n=Var_1)",
                "f(1)",
            ),
            (
                "nested def, nonlocal, keyword to the nested function",
                "def f(xs):\n    acc = []\n    def add(v):\n        nonlocal acc\n        acc = acc + [v]\n    for x in xs:\n        add(v=x)\n    return acc",
                "f",
                "f([1])",
                "def f(Var_1):\n    Var_2 = []\n    def Var_3(Var_4):\n        nonlocal Var_2\n        Var_2 = Var_2 + [Var_4]\n    for Var_5 in Var_1:\n        Var_3(Var_4=Var_5)\n    return Var_2",
                "f([1])",
            ),
            (
                "lambda parameters, f-string expressions, comments kept",
                "def f(s):  # keep me\n    key = lambda c: c.lower()\n    return f\"{s}-{key(s)}\"",
                "f",
                "f('A')",
                "def f(Var_1):  # keep me\n    Var_2 = lambda Var_3: Var_3.lower()\n    return f\"{Var_1}-{Var_2(Var_1)}\"",
                "f('A')",
            ),
        ];
        for (what, code, function, call, expected_code, expected_call) in cases {
            let (got_code, got_call) = ren(code, function, call).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(got_code, *expected_code, "{what}");
            assert_eq!(got_call, *expected_call, "{what}");
        }
    }

    #[test]
    fn refuses_what_it_cannot_rename_safely() {
        let cases: &[(&str, &str, &str)] = &[
            ("def f(x):\n    return locals()['x']", "f(1)", "locals"),
            ("def f(x):\n    return eval('x + 1')", "f(1)", "eval"),
            ("def f(x):\n    return f.__name__", "f(1)", "__name__"),
            ("def f(x):\n    match x:\n        case 1:\n            return 2\n    return 3", "f(1)", "match"),
            ("def f(x):\n    return x", "g(1)", "is not a call of"),
            ("def f(x):\n    return (x", "f(1)", "does not parse"),
        ];
        for (code, call, needle) in cases {
            let error = ren(code, "f", call).expect_err(code).to_string();
            assert!(error.contains(needle), "{code}: {error}");
        }
    }

    /// The call's renames are reported as edits of the call, placed in the call's own texts, also
    /// after PSC_ALL's other stages have edited the code.
    #[test]
    fn call_edits_are_reported_and_placed_in_the_call() {
        use crate::{Target, place};
        for kind in [Kind::Ren, Kind::PscAll] {
            let out = perturb(
                "def minimumCost(s):\n    if s:\n        return 1\n    return 0",
                "minimumCost",
                "minimumCost(s='0011')",
                "1",
                kind,
                &Options::default(),
                "t",
            )
            .unwrap();
            assert_eq!(out.call, "f(Var_1='0011')");
            let placed = place(&out.edits);
            let in_call: Vec<(&str, &str, &str, &str)> = out
                .edits
                .iter()
                .zip(&placed)
                .filter(|(e, _)| e.target == Target::Call)
                .map(|(e, p)| {
                    (
                        e.before.as_str(),
                        e.after.as_str(),
                        &"minimumCost(s='0011')"[p.before.clone()],
                        &out.call[p.after.clone()],
                    )
                })
                .collect();
            assert_eq!(in_call, [("minimumCost", "f", "minimumCost", "f"), ("s", "Var_1", "s", "Var_1")], "{kind}");
            // Code edits still point into the code.
            for (e, p) in out.edits.iter().zip(&placed).filter(|(e, _)| e.target == Target::Code && e.kind == Kind::Ren)
            {
                assert_eq!(&out.code[p.after.clone()], e.after, "{kind}");
            }
        }
    }

    #[test]
    fn rtf_eval_of_str_is_not_introspection() {
        let (code, _) =
            ren("def f(x):\n    while eval(str(x > 1)):\n        x -= 1\n    return x", "f", "f(3)").unwrap();
        assert_eq!(code, "def f(Var_1):\n    while eval(str(Var_1 > 1)):\n        Var_1 -= 1\n    return Var_1");
    }
}
