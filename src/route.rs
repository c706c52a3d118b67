//! Hash routes (`#/sample/sample_3`), so the built site works from any static server and any
//! sub-path without server rewrites. The dataset list's search and output-type filter ride along as
//! a query part (`#/datasets?q=sorted&kind=list`, `#/sample/sample_3?q=sorted&kind=list`), so
//! Back, a reload and a shared link show the same filtered view. The Evaluate page keeps the run
//! its table shows and the table's scoring mode and filter there the same way
//! (`#/evaluate?run=run-1&mode=compatible&filter=wrong`). Parsing and encoding are plain
//! functions (no browser API), tested natively.

use execbench_core::sample::OutputKind;
use execbench_eval::Mode;

use crate::components::evaluation::sample_table::RowFilter;

/// The dataset list's search text and output-type filter, as kept in the address.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListQuery {
    /// The search text as typed (matching trims it).
    pub q: String,
    pub kind: Option<OutputKind>,
}

impl ListQuery {
    pub fn is_empty(&self) -> bool {
        self.q.is_empty() && self.kind.is_none()
    }

    /// Reads `q=…&kind=…` (without the `?`). Unknown keys, an unknown kind and malformed pairs
    /// are ignored; `+` is a space, as in a form's query.
    pub fn parse(query: &str) -> ListQuery {
        let mut out = ListQuery::default();
        for (key, value) in query_pairs(query) {
            match key {
                "q" => out.q = value,
                "kind" => out.kind = OutputKind::from_label(&value),
                _ => {}
            }
        }
        out
    }

    /// `?q=…&kind=…`, or nothing when there is no search and no filter (the address stays as it was).
    pub fn to_query(&self) -> String {
        let mut parts = Vec::new();
        if !self.q.is_empty() {
            parts.push(format!("q={}", encode(&self.q)));
        }
        if let Some(kind) = self.kind {
            parts.push(format!("kind={}", encode(kind.label())));
        }
        if parts.is_empty() { String::new() } else { format!("?{}", parts.join("&")) }
    }
}

/// What the Evaluate page's results show, as kept in the address: the stored run (by its run id)
/// and the per-sample table's scoring mode and filter. Each is optional: what the address does
/// not say, the page keeps as it was.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EvaluateQuery {
    pub run: Option<String>,
    pub mode: Option<Mode>,
    pub filter: Option<RowFilter>,
}

impl EvaluateQuery {
    /// Reads `run=…&mode=…&filter=…` (without the `?`). Unknown keys, an unknown mode or filter
    /// and an empty run are ignored.
    pub fn parse(query: &str) -> EvaluateQuery {
        let mut out = EvaluateQuery::default();
        for (key, value) in query_pairs(query) {
            match key {
                "run" if !value.is_empty() => out.run = Some(value),
                "mode" => out.mode = Mode::from_label(&value),
                "filter" => out.filter = RowFilter::parse(&value),
                _ => {}
            }
        }
        out
    }

    /// `?run=…&mode=…&filter=…` with the parts that are set, or nothing.
    pub fn to_query(&self) -> String {
        let mut parts = Vec::new();
        if let Some(run) = &self.run {
            parts.push(format!("run={}", encode(run)));
        }
        if let Some(mode) = self.mode {
            parts.push(format!("mode={}", mode.label()));
        }
        if let Some(filter) = self.filter {
            parts.push(format!("filter={}", filter.value()));
        }
        if parts.is_empty() { String::new() } else { format!("?{}", parts.join("&")) }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// The first screen: what execbench is and where to start. Only an empty hash (or `#/home`)
    /// leads here; anything unknown still falls back to the dataset list, as before.
    Home,
    /// The dataset list, with the search and filter it shows.
    Datasets(ListQuery),
    /// One sample, opened from a list with this search and filter (prev/next step through its
    /// matches, "back" returns to it); an empty query steps through the whole dataset.
    Sample(String, ListQuery),
    Playground,
    Verify,
    Perturb,
    /// The Evaluate page, with the results view the address asks for.
    Evaluate(EvaluateQuery),
    Runs,
    Run(String),
    /// Building a benchmark (generate, filter, sample, export).
    Build,
    /// Comparing stored runs.
    Compare,
}

impl Route {
    /// The unfiltered dataset list.
    pub const fn datasets() -> Route {
        Route::Datasets(ListQuery { q: String::new(), kind: None })
    }

    /// The Evaluate page as it was left.
    pub const fn evaluate() -> Route {
        Route::Evaluate(EvaluateQuery { run: None, mode: None, filter: None })
    }

    /// A sample, outside any filtered list.
    pub fn sample(id: impl Into<String>) -> Route {
        Route::Sample(id.into(), ListQuery::default())
    }

    pub fn parse(hash: &str) -> Route {
        let hash = hash.trim_start_matches('#');
        let (path, query) = hash.split_once('?').unwrap_or((hash, ""));
        let path = path.trim_start_matches('/');
        let mut parts = path.splitn(2, '/');
        match (parts.next().unwrap_or(""), parts.next()) {
            ("", _) | ("home", _) => Route::Home,
            ("sample", Some(id)) if !id.is_empty() => Route::Sample(decode(id), ListQuery::parse(query)),
            ("playground", _) => Route::Playground,
            ("verify", _) => Route::Verify,
            ("perturb", _) => Route::Perturb,
            ("evaluate", _) => Route::Evaluate(EvaluateQuery::parse(query)),
            ("runs", Some(id)) if !id.is_empty() => Route::Run(decode(id)),
            ("runs", _) => Route::Runs,
            ("build", _) => Route::Build,
            ("compare", _) => Route::Compare,
            ("datasets", _) => Route::Datasets(ListQuery::parse(query)),
            _ => Route::datasets(),
        }
    }

    pub fn href(&self) -> String {
        match self {
            Route::Home => "#/".to_string(),
            Route::Datasets(q) => format!("#/datasets{}", q.to_query()),
            Route::Sample(id, q) => format!("#/sample/{}{}", encode(id), q.to_query()),
            Route::Playground => "#/playground".to_string(),
            Route::Verify => "#/verify".to_string(),
            Route::Perturb => "#/perturb".to_string(),
            Route::Evaluate(q) => format!("#/evaluate{}", q.to_query()),
            Route::Runs => "#/runs".to_string(),
            Route::Build => "#/build".to_string(),
            Route::Compare => "#/compare".to_string(),
            Route::Run(id) => format!("#/runs/{}", encode(id)),
        }
    }
}

/// As JavaScript's `encodeURIComponent`: UTF-8, every byte but `A-Z a-z 0-9 - _ . ! ~ * ' ( )`
/// as `%XX`.
/// The `key=value` pairs of a query (without the `?`), values decoded (`+` is a space, as in a
/// form's query); a pair without `=` has an empty value, empty pairs are skipped.
pub fn query_pairs(query: &str) -> impl Iterator<Item = (&str, String)> {
    query.split('&').filter(|p| !p.is_empty()).map(|pair| {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        (key, decode(&value.replace('+', " ")))
    })
}

pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// As JavaScript's `decodeURIComponent`, except that malformed text (a bad `%` escape, bytes that
/// are not UTF-8) comes back as it was instead of failing.
pub fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            match hex {
                Some(b) => {
                    out.push(b);
                    i += 3;
                }
                None => return text.to_string(),
            }
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

pub fn current() -> Route {
    let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
    Route::parse(&hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bare_address_is_the_home_screen() {
        for hash in ["", "#", "#/", "#/home"] {
            assert_eq!(Route::parse(hash), Route::Home, "{hash:?}");
        }
        assert_eq!(Route::parse(&Route::Home.href()), Route::Home);
    }

    #[test]
    fn the_dataset_list_keeps_its_address_and_stays_the_fallback() {
        assert_eq!(Route::parse("#/datasets"), Route::datasets());
        assert_eq!(Route::parse("#/no-such-page"), Route::datasets());
    }

    fn list(q: &str, kind: Option<&str>) -> ListQuery {
        ListQuery { q: q.to_string(), kind: kind.and_then(OutputKind::from_label) }
    }

    #[test]
    fn hashes_parse_with_and_without_a_query() {
        // (hash, route)
        let cases = [
            // Without `?` every address means what it meant before queries existed.
            ("#/datasets", Route::datasets()),
            ("#/sample/sample_3", Route::sample("sample_3")),
            ("#/sample/a%2Fb%20c", Route::sample("a/b c")),
            ("#/sample/50%", Route::sample("50%")),
            ("#/sample/", Route::datasets()),
            ("#/playground", Route::Playground),
            ("#/verify", Route::Verify),
            ("#/perturb", Route::Perturb),
            ("#/evaluate", Route::evaluate()),
            ("#/runs", Route::Runs),
            ("#/build", Route::Build),
            ("#/compare", Route::Compare),
            ("#/runs/run%201", Route::Run("run 1".into())),
            // With one, the list and the sample keep the search and the filter.
            ("#/datasets?q=sorted&kind=list", Route::Datasets(list("sorted", Some("list")))),
            ("#/datasets?kind=None", Route::Datasets(list("", Some("None")))),
            ("#/datasets?q=a%20b%26c%3Dd", Route::Datasets(list("a b&c=d", None))),
            ("#/datasets?q=a+b", Route::Datasets(list("a b", None))),
            ("#/datasets?q=%C3%A9t%C3%A9", Route::Datasets(list("été", None))),
            ("#/datasets?q=100%", Route::Datasets(list("100%", None))),
            ("#/datasets?kind=no-such-kind&x=1&&q", Route::Datasets(list("", None))),
            ("#/datasets?", Route::datasets()),
            ("#/sample/sample_3?q=sorted&kind=list", Route::Sample("sample_3".into(), list("sorted", Some("list")))),
            ("#/sample/a%3Fb?q=x", Route::Sample("a?b".into(), list("x", None))),
            // Other pages ignore a query.
            ("#/playground?q=x", Route::Playground),
            ("#/runs/r1?q=x", Route::Run("r1".into())),
        ];
        for (hash, route) in cases {
            assert_eq!(Route::parse(hash), route, "{hash:?}");
        }
    }

    fn evaluate(run: Option<&str>, mode: Option<Mode>, filter: Option<RowFilter>) -> Route {
        Route::Evaluate(EvaluateQuery { run: run.map(String::from), mode, filter })
    }

    /// (hash, route): the Evaluate page's run, mode and filter; what is unknown is left out.
    #[test]
    fn evaluate_addresses_parse() {
        let cases = [
            ("#/evaluate", evaluate(None, None, None)),
            ("#/evaluate?", evaluate(None, None, None)),
            (
                "#/evaluate?run=run-17-00ab&mode=compatible&filter=wrong",
                evaluate(Some("run-17-00ab"), Some(Mode::Compatible), Some(RowFilter::WrongOnly)),
            ),
            ("#/evaluate?filter=extraction_failed&run=r", evaluate(Some("r"), None, Some(RowFilter::ExtractionFailed))),
            ("#/evaluate?mode=strict", evaluate(None, Some(Mode::Strict), None)),
            ("#/evaluate?run=a%20b%26c", evaluate(Some("a b&c"), None, None)),
            ("#/evaluate?run=&mode=loose&filter=some&x=1", evaluate(None, None, None)),
            ("#/evaluate?filter=dropped&filter=all", evaluate(None, None, Some(RowFilter::All))),
        ];
        for (hash, route) in cases {
            assert_eq!(Route::parse(hash), route, "{hash:?}");
        }
    }

    /// (route, href): written with the parts that are set, in one order, and read back the same.
    #[test]
    fn evaluate_addresses_round_trip() {
        let cases = [
            (evaluate(None, None, None), "#/evaluate"),
            (
                evaluate(Some("run-1"), Some(Mode::Compatible), Some(RowFilter::WrongOnly)),
                "#/evaluate?run=run-1&mode=compatible&filter=wrong",
            ),
            (
                evaluate(Some("run 1/é"), Some(Mode::Strict), Some(RowFilter::All)),
                "#/evaluate?run=run%201%2F%C3%A9&mode=strict&filter=all",
            ),
            (evaluate(None, Some(Mode::Strict), Some(RowFilter::Dropped)), "#/evaluate?mode=strict&filter=dropped"),
            (evaluate(Some("r"), None, Some(RowFilter::ExtractionFailed)), "#/evaluate?run=r&filter=extraction_failed"),
        ];
        for (route, href) in cases {
            assert_eq!(route.href(), href, "{route:?}");
            assert_eq!(Route::parse(href), route, "{href:?}");
        }
        for filter in RowFilter::ALL {
            assert_eq!(RowFilter::parse(filter.value()), Some(filter));
        }
    }

    #[test]
    fn hrefs_carry_the_query_only_when_there_is_one_and_read_back_the_same() {
        // (route, href)
        let cases = [
            (Route::datasets(), "#/datasets"),
            (Route::Datasets(list("sorted", Some("list"))), "#/datasets?q=sorted&kind=list"),
            (Route::Datasets(list("", Some("None"))), "#/datasets?kind=None"),
            (Route::Datasets(list("a b&c=d+e", None)), "#/datasets?q=a%20b%26c%3Dd%2Be"),
            (Route::Datasets(list(" x(", None)), "#/datasets?q=%20x("),
            (Route::sample("sample_3"), "#/sample/sample_3"),
            (Route::Sample("a/b".into(), list("été", Some("str"))), "#/sample/a%2Fb?q=%C3%A9t%C3%A9&kind=str"),
            (Route::Run("r 1".into()), "#/runs/r%201"),
            (Route::Home, "#/"),
        ];
        for (route, href) in cases {
            assert_eq!(route.href(), href, "{route:?}");
            assert_eq!(Route::parse(href), route, "{href:?}");
        }
    }
}
