//! Hash routes (`#/sample/sample_3`), so the built site works from any static server and any
//! sub-path without server rewrites. The dataset list's search and output-type filter ride along as
//! a query part (`#/datasets?q=sorted&kind=list`, `#/sample/sample_3?q=sorted&kind=list`), so
//! Back, a reload and a shared link show the same filtered view. The Evaluate page keeps the run
//! its table shows and the table's scoring mode and filter there the same way
//! (`#/evaluate?run=run-1&mode=compatible&filter=wrong`), and a Perturb link the demo it opens
//! (`#/perturb/sample_3?kind=RTF&seed=2`). Parsing and encoding are plain functions (no browser
//! API), tested natively.

use execbench_core::sample::OutputKind;
use execbench_eval::Mode;
use execbench_perturb::{Kind, Options, Prediction, Profile};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};

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

/// Which samples the Evaluate page's per-sample table shows (its `filter=` in the address).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowFilter {
    All,
    /// At least one answer that counts against the model (anything but correct or dropped).
    WrongOnly,
    Dropped,
    ExtractionFailed,
}

impl RowFilter {
    pub const ALL: [RowFilter; 4] =
        [RowFilter::All, RowFilter::WrongOnly, RowFilter::Dropped, RowFilter::ExtractionFailed];

    /// The name in the select and in the address.
    pub fn value(self) -> &'static str {
        match self {
            RowFilter::All => "all",
            RowFilter::WrongOnly => "wrong",
            RowFilter::Dropped => "dropped",
            RowFilter::ExtractionFailed => "extraction_failed",
        }
    }

    pub fn parse(value: &str) -> Option<RowFilter> {
        RowFilter::ALL.into_iter().find(|f| f.value() == value)
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
    /// Questions about programs' runs (coverage, state, path), made by tracing the dataset.
    Questions,
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
            ("questions", _) => Route::Questions,
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
            Route::Questions => "#/questions".to_string(),
            Route::Evaluate(q) => format!("#/evaluate{}", q.to_query()),
            Route::Runs => "#/runs".to_string(),
            Route::Build => "#/build".to_string(),
            Route::Compare => "#/compare".to_string(),
            Route::Run(id) => format!("#/runs/{}", encode(id)),
        }
    }
}

/// A perturbation demo as an address: `#/perturb/<sample>?kind=RTF&seed=2` (and `p`, `once`,
/// `prediction`, `profile` when they differ from the defaults). Opening it perturbs that sample that way;
/// perturbing rewrites it, so Back, reload and a shared link show the same view.
#[derive(Clone, Debug, PartialEq)]
pub struct PerturbLink {
    pub sample: Option<String>,
    pub kind: Kind,
    pub options: Options,
    /// MHC: the wrong answer to try first (a model's or a file's, read back from an exported
    /// row's hint), so the address shows that row's program without asking anyone again.
    pub claim: Option<String>,
}

impl Default for PerturbLink {
    fn default() -> Self {
        PerturbLink { sample: None, kind: Kind::Ren, options: Options::default(), claim: None }
    }
}

impl PerturbLink {
    /// Reads a hash; what it does not say keeps its default, and a malformed value is ignored.
    pub fn parse(hash: &str) -> PerturbLink {
        let mut link = PerturbLink::default();
        let path = hash.trim_start_matches('#').trim_start_matches('/');
        let Some(rest) = path.strip_prefix("perturb") else { return link };
        let (id, query) = rest.split_once('?').unwrap_or((rest, ""));
        let id = decode(id.trim_start_matches('/'));
        link.sample = (!id.is_empty()).then_some(id);
        for (key, value) in query_pairs(query) {
            match key {
                "kind" => link.kind = Kind::parse(&value).unwrap_or(link.kind),
                "seed" => link.options.seed = parse_seed(&value).unwrap_or(link.options.seed),
                "p" => link.options.p = parse_p(&value).unwrap_or(link.options.p),
                "once" => link.options.once = value == "1" || value == "true",
                "prediction" => {
                    link.options.prediction = if value == "input" { Prediction::Input } else { Prediction::Output }
                }
                "profile" => link.options.profile = Profile::parse(&value).unwrap_or(link.options.profile),
                "claim" => link.claim = Some(value.to_string()).filter(|c| !c.trim().is_empty()),
                _ => {}
            }
        }
        link
    }

    /// The address; options that the kind ignores or that keep their default are left out.
    pub fn href(&self) -> String {
        let mut out = Route::Perturb.href();
        if let Some(id) = &self.sample {
            out.push('/');
            out.push_str(&encode(id));
        }
        out.push_str(&format!("?kind={}&seed={}", self.kind.name(), self.options.seed));
        let defaults = Options::default();
        if self.kind.uses_p_and_once() {
            if self.options.p != defaults.p {
                out.push_str(&format!("&p={}", self.options.p));
            }
            if self.options.once {
                out.push_str("&once=1");
            }
        }
        if self.kind == Kind::Mhc && self.options.prediction == Prediction::Input {
            out.push_str("&prediction=input");
        }
        if self.options.profile != defaults.profile {
            out.push_str(&format!("&profile={}", self.options.profile));
        }
        if let (Kind::Mhc, Some(claim)) = (self.kind, &self.claim) {
            out.push_str(&format!("&claim={}", encode(claim)));
        }
        out
    }
}

/// `#/perturb/<id>`: this view with one sample picked and perturbed (linked from the sample page).
pub fn perturb_link(sample_id: &str) -> String {
    PerturbLink { sample: Some(sample_id.to_string()), ..PerturbLink::default() }.href()
}

/// The Perturb view's address that makes the perturbed program of sample `id` again, from the
/// perturbed run's provenance (`{"kind", "seed", "options": {"p", "once", "prediction"}}`);
/// `None` when the run records no single execbench perturbation (CodeCrash's files, a mix).
pub fn perturb_href(provenance: Option<&serde_json::Value>, id: &str) -> Option<String> {
    let p = provenance?;
    let kind = Kind::parse(p.get("kind")?.as_str()?)?;
    let mut options =
        Options { seed: p.get("seed").and_then(serde_json::Value::as_u64).unwrap_or(0), ..Options::default() };
    if let Some(o) = p.get("options") {
        options.p = o.get("p").and_then(serde_json::Value::as_f64).unwrap_or(options.p);
        options.once = o.get("once").and_then(serde_json::Value::as_bool).unwrap_or(options.once);
        if o.get("prediction").and_then(serde_json::Value::as_str) == Some("input") {
            options.prediction = Prediction::Input;
        }
    }
    Some(PerturbLink { sample: Some(id.to_string()), kind, options, claim: None }.href())
}

/// One seed (the Perturb link's `seed=`, the single-program form's field).
pub fn parse_seed(text: &str) -> Result<u64, String> {
    text.trim().parse::<u64>().map_err(|_| format!("seed: `{}` is not a whole number ≥ 0", text.trim()))
}

/// The probability that a site gets a misleading message (MCC, MPS): the link's `p=`, the forms' field.
pub fn parse_p(text: &str) -> Result<f64, String> {
    let p: f64 = text.trim().parse().map_err(|_| format!("p: `{}` is not a number", text.trim()))?;
    if !(0.0..=1.0).contains(&p) {
        return Err(format!("p must be between 0 and 1, not {p}"));
    }
    Ok(p)
}

/// The `key=value` pairs of a query (without the `?`), values decoded (`+` is a space, as in a
/// form's query); a pair without `=` has an empty value, empty pairs are skipped.
pub fn query_pairs(query: &str) -> impl Iterator<Item = (&str, String)> {
    query.split('&').filter(|p| !p.is_empty()).map(|pair| {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        (key, decode(&value.replace('+', " ")))
    })
}

/// What `encodeURIComponent` leaves as it is: letters, digits and `- _ . ! ~ * ' ( )`.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

/// As JavaScript's `encodeURIComponent`: UTF-8, every byte but `A-Z a-z 0-9 - _ . ! ~ * ' ( )`
/// as `%XX`.
pub fn encode(text: &str) -> String {
    utf8_percent_encode(text, COMPONENT).to_string()
}

/// As JavaScript's `decodeURIComponent`, except that malformed text (a bad `%` escape, bytes that
/// are not UTF-8) comes back as it was instead of failing.
pub fn decode(text: &str) -> String {
    // `percent_decode_str` passes a bad escape through and decodes the rest; a half-decoded
    // address would name something else, so the whole text stays as it was.
    let bytes = text.as_bytes();
    let well_formed = bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'%')
        .all(|(i, _)| bytes.get(i + 1..i + 3).is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)));
    if !well_formed {
        return text.to_string();
    }
    percent_decode_str(text).decode_utf8().map_or_else(|_| text.to_string(), |t| t.into_owned())
}

fn current_hash() -> String {
    web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

pub fn current() -> Route {
    Route::parse(&current_hash())
}

/// The Perturb link the address holds now.
pub fn current_perturb_link() -> PerturbLink {
    PerturbLink::parse(&current_hash())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
            ("#/questions", Route::Questions),
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

    #[test]
    fn a_perturbation_demo_is_a_link_that_reads_back() {
        let rtf = PerturbLink {
            sample: Some("sample_3".into()),
            kind: Kind::Rtf,
            options: Options::with_seed(2),
            claim: None,
        };
        let mcc = PerturbLink {
            sample: Some("a b/c".into()),
            kind: Kind::Mcc,
            options: Options { seed: 0, p: 0.5, once: true, prediction: Prediction::Output, ..Options::default() },
            claim: None,
        };
        let mhc = PerturbLink {
            sample: None,
            kind: Kind::Mhc,
            options: Options { prediction: Prediction::Input, ..Options::with_seed(7) },
            claim: None,
        };
        let gbc = PerturbLink {
            sample: Some("sample_1".into()),
            kind: Kind::Gbc,
            options: Options { profile: execbench_perturb::Profile::Codecrash, ..Options::with_seed(4) },
            claim: None,
        };
        let claimed = PerturbLink {
            sample: Some("sample_2".into()),
            kind: Kind::Mhc,
            options: Options::default(),
            claim: Some("['a&b', 2]".into()),
        };
        let cases = [
            (&rtf, "#/perturb/sample_3?kind=RTF&seed=2"),
            (&mcc, "#/perturb/a%20b%2Fc?kind=MCC&seed=0&p=0.5&once=1"),
            (&mhc, "#/perturb?kind=MHC&seed=7&prediction=input"),
            (&gbc, "#/perturb/sample_1?kind=GBC&seed=4&profile=codecrash"),
            (&claimed, "#/perturb/sample_2?kind=MHC&seed=0&claim=%5B'a%26b'%2C%202%5D"),
        ];
        for (link, href) in cases {
            assert_eq!(link.href(), href);
            assert_eq!(&PerturbLink::parse(href), link, "{href}");
        }
        // Options a kind ignores are not written.
        let ren = PerturbLink {
            kind: Kind::Ren,
            options: Options { p: 0.5, once: true, ..Options::default() },
            sample: None,
            claim: Some("1".into()),
        };
        assert_eq!(ren.href(), "#/perturb?kind=REN&seed=0");
        // The old link form and bad values keep the defaults.
        assert_eq!(
            PerturbLink::parse("#/perturb/sample_9"),
            PerturbLink { sample: Some("sample_9".into()), ..PerturbLink::default() }
        );
        assert_eq!(PerturbLink::parse("#/perturb?kind=NOPE&seed=-1&p=7"), PerturbLink::default());
        assert_eq!(PerturbLink::parse("#/datasets"), PerturbLink::default());
    }

    #[test]
    fn p_must_be_a_probability() {
        assert_eq!(parse_p("0.5"), Ok(0.5));
        assert_eq!(parse_p("1"), Ok(1.0));
        assert_eq!(parse_p("1.5"), Err("p must be between 0 and 1, not 1.5".to_string()));
        assert!(parse_p("NaN").is_err());
        assert!(parse_p("half").is_err());
    }

    #[test]
    fn a_perturbed_runs_provenance_opens_the_perturb_view_that_makes_it_again() {
        // (provenance, expected address for sample_3)
        let cases = [
            (
                Some(json!({"kind": "RTF", "seed": 2, "options": {"p": 1.0, "once": false, "prediction": "output"}})),
                Some("#/perturb/sample_3?kind=RTF&seed=2"),
            ),
            (
                Some(json!({"kind": "MCC", "seed": 0, "options": {"p": 0.5, "once": true}})),
                Some("#/perturb/sample_3?kind=MCC&seed=0&p=0.5&once=1"),
            ),
            (
                Some(json!({"kind": "MHC", "seed": 7, "options": {"prediction": "input"}})),
                Some("#/perturb/sample_3?kind=MHC&seed=7&prediction=input"),
            ),
            // CodeCrash's kind spelling, no seed: seed 0.
            (Some(json!({"kind": "PSC_ALL"})), Some("#/perturb/sample_3?kind=PSC_ALL&seed=0")),
            // A mix of kinds, an unknown kind, no provenance: no address.
            (Some(json!({"mixed": [{"kind": "REN"}, {"kind": "RTF"}]})), None),
            (Some(json!({"kind": "MDC"})), None),
            (None, None),
        ];
        for (provenance, expected) in cases {
            assert_eq!(perturb_href(provenance.as_ref(), "sample_3").as_deref(), expected, "{provenance:?}");
        }
    }

    /// Reserved and non-ASCII characters are escaped as `encodeURIComponent` escapes them, and
    /// read back; malformed escapes leave the text as it was.
    #[test]
    fn reserved_and_non_ascii_characters_round_trip() {
        // (text, encoded)
        let cases = [
            ("a?b#c/d&e=f+g;h,i:j@k$", "a%3Fb%23c%2Fd%26e%3Df%2Bg%3Bh%2Ci%3Aj%40k%24"),
            ("-_.!~*'()", "-_.!~*'()"),
            ("été 日本 😀", "%C3%A9t%C3%A9%20%E6%97%A5%E6%9C%AC%20%F0%9F%98%80"),
            ("100%", "100%25"),
        ];
        for (text, encoded) in cases {
            assert_eq!(encode(text), encoded, "{text:?}");
            assert_eq!(decode(encoded), text, "{encoded:?}");
        }
        for malformed in ["a%20b%zz", "%E9", "%C3%28", "50%", "%2"] {
            assert_eq!(decode(malformed), malformed);
        }
        assert_eq!(Route::parse("#/sample/%E6%97%A5%3F"), Route::sample("日?"));
        assert_eq!(Route::sample("日?").href(), "#/sample/%E6%97%A5%3F");
    }
}
