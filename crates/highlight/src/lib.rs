//! Python syntax highlighting for the app, from a tree-sitter parse.
//!
//! The output is a list of non-overlapping byte ranges with a token class; text between ranges is
//! plain. The app turns it into `<span class="tok-…">`; nothing here knows about HTML.

use execbench_pysyntax::Node;

/// What a piece of code is, for colouring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token {
    Keyword,
    String,
    Number,
    Comment,
    Constant,
    Builtin,
    FunctionName,
    Parameter,
    Operator,
}

impl Token {
    /// The CSS class the app's stylesheet colours.
    pub fn class(self) -> &'static str {
        match self {
            Token::Keyword => "tok-keyword",
            Token::String => "tok-string",
            Token::Number => "tok-number",
            Token::Comment => "tok-comment",
            Token::Constant => "tok-constant",
            Token::Builtin => "tok-builtin",
            Token::FunctionName => "tok-function",
            Token::Parameter => "tok-parameter",
            Token::Operator => "tok-operator",
        }
    }
}

/// A coloured byte range of the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub token: Token,
}

const KEYWORDS: &[&str] = &[
    "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else", "except",
    "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
    "return", "try", "while", "with", "yield", "match", "case",
];

const BUILTINS: &[&str] = &[
    "abs",
    "all",
    "any",
    "bool",
    "bytes",
    "chr",
    "dict",
    "divmod",
    "enumerate",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "hasattr",
    "hash",
    "int",
    "isinstance",
    "iter",
    "len",
    "list",
    "map",
    "max",
    "min",
    "next",
    "ord",
    "pow",
    "print",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "sorted",
    "str",
    "sum",
    "tuple",
    "type",
    "zip",
];

/// Highlights `code`. Code that does not parse is still highlighted as far as tree-sitter's error
/// recovery goes; an empty list means the parser could not run at all.
pub fn highlight(code: &str) -> Vec<Span> {
    let Ok(tree) = execbench_pysyntax::parse(code, None) else { return Vec::new() };
    let mut spans = Vec::new();
    collect(tree.root_node(), code.as_bytes(), &mut spans);
    spans
}

fn collect(node: Node, source: &[u8], spans: &mut Vec<Span>) {
    if let Some(token) = classify(node, source) {
        spans.push(Span { start: node.start_byte(), end: node.end_byte(), token });
        return; // a coloured node is coloured whole (strings keep their interpolations plain)
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        collect(child, source, spans);
    }
}

fn classify(node: Node, source: &[u8]) -> Option<Token> {
    let kind = node.kind();
    let text = || node.utf8_text(source).unwrap_or("");
    match kind {
        "comment" => Some(Token::Comment),
        "string" | "concatenated_string" => Some(Token::String),
        "integer" | "float" => Some(Token::Number),
        "true" | "false" | "none" => Some(Token::Constant),
        _ if !node.is_named() && KEYWORDS.contains(&kind) => Some(Token::Keyword),
        _ if !node.is_named() && is_operator(kind) => Some(Token::Operator),
        "identifier" => {
            let parent = node.parent()?;
            match parent.kind() {
                "function_definition" | "class_definition" if parent.child_by_field_name("name") == Some(node) => {
                    Some(Token::FunctionName)
                }
                "parameters"
                | "default_parameter"
                | "typed_parameter"
                | "typed_default_parameter"
                | "lambda_parameters"
                    if parent.child_by_field_name("value") != Some(node) =>
                {
                    Some(Token::Parameter)
                }
                "call" if BUILTINS.contains(&text()) => Some(Token::Builtin),
                _ => None,
            }
        }
        _ => None,
    }
}

fn is_operator(kind: &str) -> bool {
    matches!(
        kind,
        "+" | "-"
            | "*"
            | "/"
            | "//"
            | "%"
            | "**"
            | "="
            | "=="
            | "!="
            | "<"
            | ">"
            | "<="
            | ">="
            | "+="
            | "-="
            | "*="
            | "/="
            | "//="
            | "%="
            | "&"
            | "|"
            | "^"
            | "~"
            | "<<"
            | ">>"
            | ":="
            | "->"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(code: &str) -> Vec<(&str, Token)> {
        highlight(code).into_iter().map(|s| (&code[s.start..s.end], s.token)).collect()
    }

    #[test]
    fn a_function_is_coloured_by_role() {
        let code = "def f(nums, k=2):\n    # count\n    return len(nums) + k * 1.5 if nums else None\n";
        let expected = vec![
            ("def", Token::Keyword),
            ("f", Token::FunctionName),
            ("nums", Token::Parameter),
            ("k", Token::Parameter),
            ("=", Token::Operator),
            ("2", Token::Number),
            ("# count", Token::Comment),
            ("return", Token::Keyword),
            ("len", Token::Builtin),
            ("+", Token::Operator),
            ("*", Token::Operator),
            ("1.5", Token::Number),
            ("if", Token::Keyword),
            ("else", Token::Keyword),
            ("None", Token::Constant),
        ];
        assert_eq!(tokens(code), expected);
    }

    #[test]
    fn strings_are_whole_and_spans_are_ordered_and_disjoint() {
        let code = "s = f'{x!r}' + 'a\\'b' \"c\"\nwhile True: pass";
        let spans = highlight(code);
        assert_eq!(tokens(code)[1], ("f'{x!r}'", Token::String));
        assert_eq!(tokens(code)[3], ("'a\\'b' \"c\"", Token::String));
        assert!(spans.windows(2).all(|w| w[0].end <= w[1].start));
    }

    #[test]
    fn broken_code_still_highlights_what_it_can() {
        let code = "def f(:\n    return 'x'";
        assert!(tokens(code).contains(&("'x'", Token::String)), "{:?}", tokens(code));
    }
}
