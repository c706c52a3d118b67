//! A cheap scan of Python text that knows about quotes and bracket nesting, without a parser:
//! enough to split a `call == output` condition and check a call's brackets balance. Literals are
//! read with the real parser (crates/literal).

use std::str::Chars;

/// Walks the characters outside string literals, each with the bracket depth before it.
pub struct Scan<'a> {
    len: usize,
    chars: Chars<'a>,
    depth: i32,
    quote: Option<char>,
    escaped: bool,
}

pub fn scan(s: &str) -> Scan<'_> {
    Scan { len: s.len(), chars: s.chars(), depth: 0, quote: None, escaped: false }
}

impl Scan<'_> {
    /// The nesting depth after the characters read so far.
    pub fn depth(&self) -> i32 {
        self.depth
    }

    /// Bytes read so far: the offset just past the last character returned.
    pub fn offset(&self) -> usize {
        self.len - self.chars.as_str().len()
    }

    /// The text read so far ends inside a string literal.
    pub fn in_string(&self) -> bool {
        self.quote.is_some()
    }
}

impl Iterator for Scan<'_> {
    type Item = (char, i32);

    fn next(&mut self) -> Option<(char, i32)> {
        loop {
            let c = self.chars.next()?;
            if let Some(q) = self.quote {
                if self.escaped {
                    self.escaped = false;
                } else if c == '\\' {
                    self.escaped = true;
                } else if c == q {
                    self.quote = None;
                }
                continue;
            }
            let before = self.depth;
            match c {
                '\'' | '"' => self.quote = Some(c),
                '(' | '[' | '{' => self.depth += 1,
                ')' | ']' | '}' => self.depth -= 1,
                _ => {}
            }
            return Some((c, before));
        }
    }
}

/// Brackets balance outside string literals, never closing more than they opened, and every
/// string is closed.
pub fn balanced(s: &str) -> bool {
    let mut scan = scan(s);
    while scan.next().is_some() {
        if scan.depth() < 0 {
            return false;
        }
    }
    scan.depth() == 0 && !scan.in_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balance_cases() {
        let cases = [
            ("1, 2", true),
            ("[1, (2, 3)], 'a)'", true),
            ("1)(2", false),
            ("[1", false),
            ("'unclosed", false),
            ("\"a\\\"b\"", true),
        ];
        for (text, expected) in cases {
            assert_eq!(balanced(text), expected, "{text}");
        }
    }
}
