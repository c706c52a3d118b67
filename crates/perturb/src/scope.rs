//! Python name resolution, enough to rename safely: which scope binds each name, and which scope
//! each occurrence of a name refers to (LEGB with class scopes skipped, `global`, `nonlocal`,
//! comprehension scopes, walrus targets binding in the enclosing function).

use std::collections::{BTreeMap, BTreeSet};

use execbench_pysyntax::Node;

use crate::syntax::NodeKind;
use crate::syntax::{named_children, text};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScopeKind {
    Module,
    Function,
    Lambda,
    Class,
    Comprehension,
}

#[derive(Clone, Debug)]
pub struct Scope {
    pub kind: ScopeKind,
    pub parent: Option<usize>,
    /// Names bound here, with the byte offset of their first binding.
    pub bound: BTreeMap<String, usize>,
    /// Names bound here in ways we must not rename (imports, class names, `match` captures).
    pub frozen: BTreeSet<String>,
    /// Names bound here by `def` (and by nothing else of a renameable kind is not checked here).
    pub defined_functions: BTreeSet<String>,
    /// Names bound here by anything other than `def` and parameters.
    pub bound_otherwise: BTreeSet<String>,
    pub globals: BTreeSet<String>,
    pub nonlocals: BTreeSet<String>,
    /// For function and lambda scopes: the parameter names in order, and the `def` name.
    pub params: Vec<String>,
    pub def_name: Option<String>,
    /// Byte range of the node that opened the scope.
    pub range: (usize, usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Binding,
    Use,
}

/// One identifier that denotes a variable (not an attribute, keyword or import path).
#[derive(Clone, Debug)]
pub struct Occurrence {
    pub start: usize,
    pub end: usize,
    pub name: String,
    pub scope: usize,
    pub role: Role,
}

/// `name=` in a call, with the callee when it is a plain name.
#[derive(Clone, Debug)]
pub struct KeywordArgument {
    pub start: usize,
    pub end: usize,
    pub name: String,
    pub scope: usize,
    pub callee: Option<String>,
}

#[derive(Clone, Debug, Default)]
pub struct Analysis {
    pub scopes: Vec<Scope>,
    pub occurrences: Vec<Occurrence>,
    pub keywords: Vec<KeywordArgument>,
    /// Constructs we do not model (`match` statements, type parameters): renaming must refuse.
    pub unsupported: Vec<String>,
}

impl Analysis {
    pub fn of(root: Node, source: &str) -> Analysis {
        let mut walker = Walker { source, offset: 0, analysis: Analysis::default() };
        let module = walker.open(ScopeKind::Module, None, root);
        walker.statements(root, module);
        walker.analysis
    }

    /// The analysis of `code` followed by `rest` as one module (`code`, a line break, `rest`), from
    /// the trees of each: the analysis of that text's own tree, wherever the two texts do not run
    /// into each other. Positions in `rest` count from `rest_offset`, where it starts in the
    /// joined text.
    pub fn of_joined(code_root: Node, code: &str, rest_root: Node, rest: &str, rest_offset: usize) -> Analysis {
        let mut walker = Walker { source: code, offset: 0, analysis: Analysis::default() };
        let module = walker.open(ScopeKind::Module, None, code_root);
        walker.statements(code_root, module);
        walker.analysis.scopes[module].range.1 = rest_offset + rest_root.end_byte();
        walker.source = rest;
        walker.offset = rest_offset;
        walker.statements(rest_root, module);
        walker.analysis
    }

    /// The scope whose binding `name` denotes when used in `scope`; `None` for a global that the
    /// module never binds, i.e. a builtin or an undefined name.
    pub fn resolve(&self, scope: usize, name: &str) -> Option<usize> {
        let here = &self.scopes[scope];
        if here.globals.contains(name) {
            return self.module_binding(name);
        }
        let mut current = if here.nonlocals.contains(name) {
            here.parent
        } else if here.bound.contains_key(name) {
            return Some(scope);
        } else {
            here.parent
        };
        while let Some(index) = current {
            let s = &self.scopes[index];
            // Class bodies are not visible from the functions inside them.
            let visible = s.kind != ScopeKind::Class;
            if visible && s.kind != ScopeKind::Module && s.bound.contains_key(name) && !s.globals.contains(name) {
                return Some(index);
            }
            if s.kind == ScopeKind::Module {
                return self.module_binding(name);
            }
            current = s.parent;
        }
        None
    }

    fn module_binding(&self, name: &str) -> Option<usize> {
        self.scopes.first().filter(|m| m.bound.contains_key(name)).map(|_| 0)
    }

    /// The innermost function scope (def, not lambda) containing byte `at`.
    pub fn function_scope_at(&self, at: usize) -> Option<usize> {
        self.scopes
            .iter()
            .enumerate()
            .filter(|(_, s)| s.kind == ScopeKind::Function && s.range.0 <= at && at < s.range.1)
            .max_by_key(|(_, s)| s.range.0)
            .map(|(i, _)| i)
    }

    /// The innermost scope of any kind containing byte `at`.
    pub fn scope_at(&self, at: usize) -> usize {
        self.scopes
            .iter()
            .enumerate()
            .filter(|(_, s)| s.range.0 <= at && at < s.range.1)
            .max_by_key(|(_, s)| s.range.0)
            .map_or(0, |(i, _)| i)
    }

    /// Names that some occurrence resolves to the module or to builtins (free names).
    pub fn free_names(&self) -> BTreeSet<String> {
        self.occurrences
            .iter()
            .filter(|o| self.resolve(o.scope, &o.name).is_none_or(|s| s == 0))
            .map(|o| o.name.clone())
            .collect()
    }

    /// Whether `name` is bound anywhere in the program.
    pub fn bound_anywhere(&self, name: &str) -> bool {
        self.scopes.iter().any(|s| s.bound.contains_key(name))
    }

    /// Whether any occurrence of `name` (use or binding) lies within `scope`'s range.
    pub fn mentions_within(&self, scope: usize, name: &str) -> bool {
        let (start, end) = self.scopes[scope].range;
        self.occurrences.iter().any(|o| o.name == name && start <= o.start && o.end <= end)
    }
}

struct Walker<'s> {
    source: &'s str,
    /// Where `source` starts in the text the positions count in.
    offset: usize,
    analysis: Analysis,
}

const COMPREHENSIONS: &[&str] =
    &["list_comprehension", "set_comprehension", "dictionary_comprehension", "generator_expression"];

impl<'s> Walker<'s> {
    fn open(&mut self, kind: ScopeKind, parent: Option<usize>, node: Node) -> usize {
        self.analysis.scopes.push(Scope {
            kind,
            parent,
            bound: BTreeMap::new(),
            frozen: BTreeSet::new(),
            defined_functions: BTreeSet::new(),
            bound_otherwise: BTreeSet::new(),
            globals: BTreeSet::new(),
            nonlocals: BTreeSet::new(),
            params: Vec::new(),
            def_name: None,
            range: (self.offset + node.start_byte(), self.offset + node.end_byte()),
        });
        self.analysis.scopes.len() - 1
    }

    fn bind(&mut self, node: Node, scope: usize) {
        let name = text(node, self.source).to_string();
        let s = &mut self.analysis.scopes[scope];
        s.bound.entry(name.clone()).or_insert(self.offset + node.start_byte());
        self.analysis.occurrences.push(Occurrence {
            start: self.offset + node.start_byte(),
            end: self.offset + node.end_byte(),
            name,
            scope,
            role: Role::Binding,
        });
    }

    fn bind_other(&mut self, node: Node, scope: usize) {
        self.analysis.scopes[scope].bound_otherwise.insert(text(node, self.source).to_string());
        self.bind(node, scope);
    }

    fn freeze(&mut self, name: &str, start: usize, scope: usize) {
        let s = &mut self.analysis.scopes[scope];
        s.bound.entry(name.to_string()).or_insert(start);
        s.frozen.insert(name.to_string());
        s.bound_otherwise.insert(name.to_string());
    }

    fn use_name(&mut self, node: Node, scope: usize) {
        let name = text(node, self.source).to_string();
        self.analysis.occurrences.push(Occurrence {
            start: self.offset + node.start_byte(),
            end: self.offset + node.end_byte(),
            name,
            scope,
            role: Role::Use,
        });
    }

    /// The scope a walrus binds in: the nearest one that is not a comprehension.
    fn walrus_scope(&self, mut scope: usize) -> usize {
        while self.analysis.scopes[scope].kind == ScopeKind::Comprehension {
            match self.analysis.scopes[scope].parent {
                Some(p) => scope = p,
                None => break,
            }
        }
        scope
    }

    fn statements(&mut self, node: Node, scope: usize) {
        // Iterating with a cursor, not a collected list: this runs for most nodes of the tree.
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            self.visit(child, scope);
        }
    }

    /// An assignment target: names in it are bound, everything else (subscripts, attributes) is
    /// read.
    fn target(&mut self, node: Node, scope: usize) {
        match node.kind_name() {
            "identifier" => self.bind_other(node, scope),
            "pattern_list"
            | "tuple_pattern"
            | "list_pattern"
            | "tuple"
            | "list"
            | "parenthesized_expression"
            | "list_splat_pattern"
            | "list_splat"
            | "expression_list"
            | "as_pattern_target" => {
                let kids = named_children(node);
                if kids.is_empty() && node.kind_name() == "as_pattern_target" {
                    self.bind_other(node, scope);
                }
                for child in kids {
                    if child.kind_name() != "comment" {
                        self.target(child, scope);
                    }
                }
            }
            _ => self.visit(node, scope),
        }
    }

    fn visit(&mut self, node: Node, scope: usize) {
        match node.kind_name() {
            "identifier" => self.use_name(node, scope),
            "comment" | "string_start" | "string_content" | "string_end" | "escape_sequence" => {}
            "decorated_definition" => self.statements(node, scope),
            "function_definition" => self.function(node, scope),
            "lambda" => self.lambda(node, scope),
            "class_definition" => self.class(node, scope),
            kind if COMPREHENSIONS.contains(&kind) => self.comprehension(node, scope),
            "assignment" | "augmented_assignment" => {
                if let Some(left) = node.child_by_field_name("left") {
                    self.target(left, scope);
                }
                for field in ["type", "right"] {
                    if let Some(child) = node.child_by_field_name(field) {
                        self.visit(child, scope);
                    }
                }
            }
            "for_statement" => {
                if let Some(left) = node.child_by_field_name("left") {
                    self.target(left, scope);
                }
                for field in ["right", "body", "alternative"] {
                    if let Some(child) = node.child_by_field_name(field) {
                        self.visit(child, scope);
                    }
                }
            }
            "named_expression" => {
                if let Some(value) = node.child_by_field_name("value") {
                    self.visit(value, scope);
                }
                if let Some(name) = node.child_by_field_name("name") {
                    let target_scope = self.walrus_scope(scope);
                    self.bind_other(name, target_scope);
                    // The occurrence belongs to the scope it binds in.
                }
            }
            "as_pattern" => {
                for child in named_children(node) {
                    if child.kind_name() == "as_pattern_target" {
                        self.target(child, scope);
                    } else {
                        self.visit(child, scope);
                    }
                }
            }
            "except_clause" => {
                let alias = node.child_by_field_name("alias").map(|n| n.id());
                for child in named_children(node) {
                    if Some(child.id()) == alias {
                        self.target(child, scope);
                    } else {
                        self.visit(child, scope);
                    }
                }
            }
            "delete_statement" => {
                for child in named_children(node) {
                    self.target(child, scope);
                }
            }
            "global_statement" | "nonlocal_statement" => {
                for child in named_children(node) {
                    if child.kind_name() == "identifier" {
                        let name = text(child, self.source).to_string();
                        let s = &mut self.analysis.scopes[scope];
                        if node.kind_name() == "global_statement" {
                            s.globals.insert(name);
                        } else {
                            s.nonlocals.insert(name);
                        }
                        self.use_name(child, scope);
                    }
                }
            }
            "import_statement" | "import_from_statement" | "future_import_statement" => self.import(node, scope),
            "attribute" => {
                if let Some(object) = node.child_by_field_name("object") {
                    self.visit(object, scope);
                }
            }
            "keyword_argument" => {
                if let Some(value) = node.child_by_field_name("value") {
                    self.visit(value, scope);
                }
            }
            "call" => {
                let function = node.child_by_field_name("function");
                if let Some(f) = function {
                    self.visit(f, scope);
                }
                let callee =
                    function.filter(|f| f.kind_name() == "identifier").map(|f| text(f, self.source).to_string());
                if let Some(arguments) = node.child_by_field_name("arguments") {
                    if arguments.kind_name() == "argument_list" {
                        for arg in named_children(arguments) {
                            if arg.kind_name() == "keyword_argument"
                                && let Some(name) = arg.child_by_field_name("name")
                            {
                                self.analysis.keywords.push(KeywordArgument {
                                    start: self.offset + name.start_byte(),
                                    end: self.offset + name.end_byte(),
                                    name: text(name, self.source).to_string(),
                                    scope,
                                    callee: callee.clone(),
                                });
                            }
                            self.visit(arg, scope);
                        }
                    } else {
                        self.visit(arguments, scope);
                    }
                }
            }
            "match_statement" => {
                self.analysis.unsupported.push("a `match` statement".to_string());
                self.statements(node, scope);
            }
            "type_parameter" | "type_alias_statement" => {
                self.analysis.unsupported.push("type parameters".to_string());
            }
            _ => self.statements(node, scope),
        }
    }

    fn import(&mut self, node: Node, scope: usize) {
        let module_name = node.child_by_field_name("module_name").map(|n| n.id());
        for child in named_children(node) {
            if Some(child.id()) == module_name {
                continue;
            }
            match child.kind_name() {
                "aliased_import" => {
                    if let Some(alias) = child.child_by_field_name("alias") {
                        let name = text(alias, self.source).to_string();
                        self.freeze(&name, self.offset + alias.start_byte(), scope);
                    }
                }
                "dotted_name" => {
                    // `import a.b` binds `a`; `from m import a` binds `a`.
                    let name = text(child, self.source).split('.').next().unwrap_or("").trim().to_string();
                    self.freeze(&name, self.offset + child.start_byte(), scope);
                }
                _ => {}
            }
        }
    }

    /// Parameters: names bound in `inner`; defaults and annotations are evaluated in `outer`.
    fn parameters(&mut self, params: Node, outer: usize, inner: usize) {
        for param in named_children(params) {
            let name_node = match param.kind_name() {
                "identifier" => Some(param),
                "default_parameter" | "typed_default_parameter" => {
                    for field in ["type", "value"] {
                        if let Some(child) = param.child_by_field_name(field) {
                            self.visit(child, outer);
                        }
                    }
                    param.child_by_field_name("name")
                }
                "typed_parameter" => {
                    if let Some(t) = param.child_by_field_name("type") {
                        self.visit(t, outer);
                    }
                    named_children(param).into_iter().find(|c| c.kind_name() != "type")
                }
                _ => Some(param),
            };
            let Some(mut name_node) = name_node else { continue };
            if matches!(name_node.kind_name(), "list_splat_pattern" | "dictionary_splat_pattern") {
                match named_children(name_node).into_iter().next() {
                    Some(inner_name) => name_node = inner_name,
                    None => continue,
                }
            }
            if name_node.kind_name() == "identifier" {
                let name = text(name_node, self.source).to_string();
                self.analysis.scopes[inner].params.push(name);
                self.bind(name_node, inner);
            }
        }
    }

    fn function(&mut self, node: Node, scope: usize) {
        if let Some(t) = node.child_by_field_name("type_parameters") {
            self.visit(t, scope);
        }
        if let Some(return_type) = node.child_by_field_name("return_type") {
            self.visit(return_type, scope);
        }
        let inner = self.open(ScopeKind::Function, Some(scope), node);
        if let Some(name) = node.child_by_field_name("name") {
            let name_text = text(name, self.source).to_string();
            self.analysis.scopes[inner].def_name = Some(name_text.clone());
            self.analysis.scopes[scope].defined_functions.insert(name_text);
            self.bind(name, scope);
        }
        if let Some(params) = node.child_by_field_name("parameters") {
            self.parameters(params, scope, inner);
        }
        if let Some(body) = node.child_by_field_name("body") {
            self.statements(body, inner);
        }
    }

    fn lambda(&mut self, node: Node, scope: usize) {
        let inner = self.open(ScopeKind::Lambda, Some(scope), node);
        if let Some(params) = node.child_by_field_name("parameters") {
            self.parameters(params, scope, inner);
        }
        if let Some(body) = node.child_by_field_name("body") {
            self.visit(body, inner);
        }
    }

    fn class(&mut self, node: Node, scope: usize) {
        if let Some(name) = node.child_by_field_name("name") {
            let name_text = text(name, self.source).to_string();
            self.freeze(&name_text, self.offset + name.start_byte(), scope);
        }
        for field in ["type_parameters", "superclasses"] {
            if let Some(child) = node.child_by_field_name(field) {
                self.visit(child, scope);
            }
        }
        let inner = self.open(ScopeKind::Class, Some(scope), node);
        if let Some(body) = node.child_by_field_name("body") {
            self.statements(body, inner);
        }
    }

    /// The first iterable is evaluated outside; every target, later iterable, condition and the
    /// body live in the comprehension's own scope.
    fn comprehension(&mut self, node: Node, scope: usize) {
        let inner = self.open(ScopeKind::Comprehension, Some(scope), node);
        let mut first_clause = true;
        let mut rest = Vec::new();
        for child in named_children(node) {
            if child.kind_name() == "for_in_clause" {
                if let Some(left) = child.child_by_field_name("left") {
                    self.target(left, inner);
                }
                let right = child.child_by_field_name("right");
                if let Some(right) = right {
                    if first_clause {
                        self.visit(right, scope);
                    } else {
                        rest.push(right);
                    }
                }
                first_clause = false;
            } else {
                rest.push(child);
            }
        }
        for child in rest {
            self.visit(child, inner);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse;

    /// The analysis of a code and a call from their own trees is that of the joined text's tree.
    #[test]
    fn joined_analysis_is_the_joined_text_s() {
        let cases = [
            ("def f(a, b=1):\n    return [a for a in b]\n", "f(1, b=2)"),
            (
                "x = 3\ndef f(s):\n    def g(k=x):\n        return k\n    return g()\n    # trailing comment",
                "f(lambda y: y + x)",
            ),
            (
                "import os\nclass A:\n    n = 1\ndef f(v):\n    global x\n    x = v\n    return A.n",
                "f(v=[i for i in range(3)])",
            ),
        ];
        let summary = |a: &Analysis| {
            let occurrences: Vec<_> =
                a.occurrences.iter().map(|o| (o.start, o.end, o.name.clone(), o.scope, o.role)).collect();
            let keywords: Vec<_> =
                a.keywords.iter().map(|k| (k.start, k.end, k.name.clone(), k.scope, k.callee.clone())).collect();
            let scopes: Vec<_> = a
                .scopes
                .iter()
                .skip(1)
                .map(|s| (s.kind, s.parent, s.bound.clone(), s.params.clone(), s.range))
                .collect();
            (occurrences, keywords, scopes, a.scopes[0].bound.clone(), a.unsupported.clone())
        };
        for (code, call) in cases {
            let joined = format!("{code}\n{call}\n");
            let whole = Analysis::of(parse(&joined).unwrap().root_node(), &joined);
            let (code_tree, call_tree) = (parse(code).unwrap(), parse(call).unwrap());
            let parts = Analysis::of_joined(code_tree.root_node(), code, call_tree.root_node(), call, code.len() + 1);
            assert_eq!(summary(&parts), summary(&whole), "{code}");
        }
    }
}
