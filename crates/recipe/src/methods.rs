//! The recipe's methods: the public methods of `str`, `dict` and `list` in Python 3.11 (dunder
//! methods left out), 47 + 11 + 11 = 69. A method is named `type.name` (`str.split`) everywhere:
//! in requests, candidates and on the command line.

/// `str`'s 47 public methods, alphabetical (as `dir(str)` lists them).
pub const STR_METHODS: [&str; 47] = [
    "capitalize",
    "casefold",
    "center",
    "count",
    "encode",
    "endswith",
    "expandtabs",
    "find",
    "format",
    "format_map",
    "index",
    "isalnum",
    "isalpha",
    "isascii",
    "isdecimal",
    "isdigit",
    "isidentifier",
    "islower",
    "isnumeric",
    "isprintable",
    "isspace",
    "istitle",
    "isupper",
    "join",
    "ljust",
    "lower",
    "lstrip",
    "maketrans",
    "partition",
    "removeprefix",
    "removesuffix",
    "replace",
    "rfind",
    "rindex",
    "rjust",
    "rpartition",
    "rsplit",
    "rstrip",
    "split",
    "splitlines",
    "startswith",
    "strip",
    "swapcase",
    "title",
    "translate",
    "upper",
    "zfill",
];

/// `dict`'s 11 public methods.
pub const DICT_METHODS: [&str; 11] =
    ["clear", "copy", "fromkeys", "get", "items", "keys", "pop", "popitem", "setdefault", "update", "values"];

/// `list`'s 11 public methods.
pub const LIST_METHODS: [&str; 11] =
    ["append", "clear", "copy", "count", "extend", "index", "insert", "pop", "remove", "reverse", "sort"];

/// Every method of the recipe as `type.name`: `str` first, then `dict`, then `list`.
pub fn all_methods() -> Vec<String> {
    let of = |ty: &str, names: &[&str]| names.iter().map(|n| format!("{ty}.{n}")).collect::<Vec<_>>();
    [of("str", &STR_METHODS), of("dict", &DICT_METHODS), of("list", &LIST_METHODS)].concat()
}

/// Whether `method` (`type.name`) is one of the recipe's.
pub fn is_known(method: &str) -> bool {
    let Some((ty, name)) = method.split_once('.') else { return false };
    match ty {
        "str" => STR_METHODS.contains(&name),
        "dict" => DICT_METHODS.contains(&name),
        "list" => LIST_METHODS.contains(&name),
        _ => false,
    }
}

/// Reads a method list as the command line gives it: `all`, a type alone (`str`, `dict`,
/// `list`: all of its methods) or `type.name`, comma-separated. Order is kept and repeats dropped;
/// an unknown name is an error that names it.
pub fn parse_method_list(spec: &str) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |m: String| {
        if !out.contains(&m) {
            out.push(m);
        }
    };
    for part in spec.split(',').map(str::trim) {
        match part {
            "" => continue,
            "all" => all_methods().into_iter().for_each(&mut push),
            "str" | "dict" | "list" => all_methods()
                .into_iter()
                .filter(|m| m.split_once('.').is_some_and(|(t, _)| t == part))
                .for_each(&mut push),
            m if is_known(m) => push(m.to_string()),
            m if !m.contains('.') => {
                return Err(format!(
                    "unknown method `{m}`: write it as type.name (str.{m}, dict.{m} or list.{m}), a type (str, dict, list) or all"
                ));
            }
            m => return Err(format!("unknown method `{m}`: not a public method of str, dict or list in Python 3.11")),
        }
    }
    if out.is_empty() {
        return Err("no methods given (e.g. str.split,list.sort or all)".to_string());
    }
    Ok(out)
}

/// The type and the bare name of `type.name`.
pub fn split_method(method: &str) -> (&str, &str) {
    method.split_once('.').unwrap_or(("", method))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recipe_has_69_methods() {
        // (type, expected count), Python 3.11's public methods.
        let cases = [("str", 47), ("dict", 11), ("list", 11)];
        let all = all_methods();
        for (ty, count) in cases {
            assert_eq!(all.iter().filter(|m| m.starts_with(&format!("{ty}."))).count(), count, "{ty}");
        }
        assert_eq!(all.len(), 69);
        let mut sorted = all.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 69, "no method twice");
        assert!(all.iter().all(|m| is_known(m)));
    }

    #[test]
    fn method_lists_read_as_the_command_line_gives_them() {
        // (spec, Ok(first methods and count) or Err(start of message))
        type Case<'a> = (&'a str, Result<(Vec<&'a str>, usize), &'a str>);
        let cases: Vec<Case> = vec![
            ("str.split,list.sort", Ok((vec!["str.split", "list.sort"], 2))),
            ("all", Ok((vec!["str.capitalize", "str.casefold"], 69))),
            ("dict", Ok((vec!["dict.clear", "dict.copy"], 11))),
            ("list.sort, list.sort ,str.zfill", Ok((vec!["list.sort", "str.zfill"], 2))),
            ("str.split,all", Ok((vec!["str.split", "str.capitalize"], 69))),
            ("str.splat", Err("unknown method `str.splat`")),
            ("split", Err("unknown method `split`: write it as type.name")),
            ("set.add", Err("unknown method `set.add`")),
            ("str.__len__", Err("unknown method `str.__len__`")),
            (" , ", Err("no methods given")),
        ];
        for (spec, want) in cases {
            match (parse_method_list(spec), want) {
                (Ok(got), Ok((first, count))) => {
                    assert_eq!(&got[..first.len()], &first[..], "{spec}");
                    assert_eq!(got.len(), count, "{spec}");
                }
                (Err(e), Err(start)) => assert!(e.starts_with(start), "{spec}: {e}"),
                (got, want) => panic!("{spec}: got {got:?}, want {want:?}"),
            }
        }
    }
}
