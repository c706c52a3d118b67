use std::fmt;

/// What went wrong, in words a user can act on (which file, which field).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalModelError(pub String);

impl fmt::Display for LocalModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LocalModelError {}

/// Prefixes an error from a dependency with what was being done.
pub(crate) fn context<E: fmt::Display>(what: &str) -> impl FnOnce(E) -> LocalModelError + '_ {
    move |e| LocalModelError(format!("{what}: {e}"))
}
