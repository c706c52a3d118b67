//! From the filter's verdicts to a benchmark: the kept candidates deduplicated, sampled, exported
//! in CRUXEval's row shape and checked by loading the export back, with the provenance that says
//! how it was made. The page and `execbench build sample` both call [`build_benchmark`].

use std::collections::BTreeSet;

use crate::dedupe::dedupe;
use crate::export::{check_export, export_jsonl};
use crate::filter::FILTER_VERSION;
use crate::funnel::Funnel;
use crate::provenance::{BuildProvenance, Generation};
use crate::rows::{Kept, kept_of};
use crate::sample::{SampleSpec, sample};
use crate::verdict::Judged;

/// A built benchmark: its rows, the file's text and its provenance.
#[derive(Clone, Debug, PartialEq)]
pub struct Benchmark {
    /// The sampled rows in the exported order (`sample_0` first).
    pub rows: Vec<Kept>,
    /// The benchmark file (JSONL).
    pub jsonl: String,
    pub provenance: BuildProvenance,
}

/// Dedupes the kept candidates of `judged` (file order decides which of a group stays), samples
/// them by `spec`, exports and checks the export. `judged` may hold the rejected candidates too:
/// they only count in the funnel. Errors name what cannot be exported.
pub fn build_benchmark(
    app_version: &str,
    judged: &[Judged],
    generation: Option<Generation>,
    spec: SampleSpec,
) -> Result<Benchmark, Vec<String>> {
    let kept = kept_of(judged);
    let deduped = dedupe(&kept);
    let rows = sample(&deduped.unique, &spec);
    if rows.is_empty() {
        return Err(vec![format!(
            "nothing to export: {} kept candidates, {} unique, --n {}",
            kept.len(),
            deduped.unique.len(),
            spec.n
        )]);
    }
    let jsonl = export_jsonl(&rows);
    let dataset_hash = check_export(&jsonl, &rows)?;
    let (responses, unparseable) = generation.as_ref().map_or((None, 0), |g| (Some(g.responses), g.unparseable));
    let mut funnel = Funnel::from_judged(responses, unparseable, judged);
    funnel.set_unique(&deduped.unique);
    funnel.set_sampled(&rows);
    let methods = match &generation {
        Some(g) => g.methods.clone(),
        None => {
            judged.iter().filter_map(|j| j.candidate.method.clone()).collect::<BTreeSet<String>>().into_iter().collect()
        }
    };
    let provenance = BuildProvenance {
        app_version: app_version.to_string(),
        methods,
        generation,
        filter_version: FILTER_VERSION.to_string(),
        funnel,
        duplicates_dropped: deduped.dropped,
        sample: spec,
        rows: rows.len(),
        dataset_hash,
    };
    Ok(Benchmark { rows, jsonl, provenance })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::candidate::Candidate;
    use crate::provenance::{Generator, GeneratorSource};
    use crate::rules::{Rejection, Rule};
    use crate::verdict::Verdict;

    fn judged(id: &str, method: &str, body: &str, input: &str, rule: Option<Rule>) -> Judged {
        let candidate = Candidate {
            id: id.into(),
            method: Some(method.into()),
            code: format!("def f(x):\n    return {body}"),
            input: input.into(),
        };
        let verdict = match rule {
            None => Verdict::Kept { output: format!("{body}!") },
            Some(rule) => Verdict::Rejected(Rejection::new(rule, "why")),
        };
        Judged { candidate, verdict }
    }

    fn pool() -> Vec<Judged> {
        let mut all = Vec::new();
        for i in 0..12 {
            all.push(judged(
                &format!("s{i:02}"),
                "str.split",
                &format!("x.split()[{}]", i % 3),
                &format!("'a b c', {i}"),
                None,
            ));
            all.push(judged(
                &format!("p{i:02}"),
                "list.pop",
                &format!("x.pop({})", i % 2),
                &format!("[{i}]"),
                (i % 4 == 0).then_some(Rule::Float),
            ));
        }
        // Duplicates of s00 and p01 (spacing and comment lines differ), and a static rejection.
        all.push(judged("s-dup", "str.split", "x.split()[0]", "'a b c',0", None));
        all.last_mut().unwrap().candidate.code = "# again\ndef f(x):\n    return x.split()[0]   \n".into();
        all.push(judged("p-dup", "list.pop", "x.pop(1)", "[ 1 ]", None));
        all.push(judged("bad", "list.pop", "x", "1", Some(Rule::Syntax)));
        all
    }

    #[test]
    fn counts_follow_each_stage_and_the_file_loads() {
        let generation = Generation {
            generator: Generator {
                source: GeneratorSource::Offline,
                provider: None,
                model: None,
                temperature: None,
                top_p: None,
                n: Some(1),
                max_tokens: None,
                seed: Some(5),
            },
            methods: vec!["str.split".into(), "list.pop".into(), "dict.get".into()],
            prompt_template: "t".into(),
            few_shot_pool_hash: "h".into(),
            responses: 30,
            unparseable: 3,
        };
        let spec = SampleSpec { n: 10, seed: 11, balanced: true };
        let built = build_benchmark("9.9.9", &pool(), Some(generation.clone()), spec).unwrap();
        let f = &built.provenance.funnel;
        // 27 judged; 1 syntax, 3 float (p00, p04, p08); 23 kept, 2 duplicates; 10 sampled.
        assert_eq!(
            (f.responses, f.parsed, f.passed_static, f.passed_runtime, f.unique, f.sampled),
            (Some(30), 27, 26, 23, 21, 10)
        );
        assert_eq!(
            (f.rejected_by(Rule::Unparseable), f.rejected_by(Rule::Syntax), f.rejected_by(Rule::Float)),
            (3, 1, 3)
        );
        assert_eq!(built.provenance.duplicates_dropped, 2);
        assert_eq!(built.provenance.methods, generation.methods);
        assert_eq!((built.provenance.rows, built.rows.len()), (10, 10));
        assert_eq!(built.provenance.filter_version, FILTER_VERSION);
        // Balanced: 5 of each method.
        let by_method: Vec<(Option<&str>, usize)> =
            f.by_method.iter().map(|c| (c.method.as_deref(), c.sampled)).collect();
        assert_eq!(by_method, [(Some("list.pop"), 5), (Some("str.split"), 5)]);
        let report = execbench_core::load_jsonl("b", &built.jsonl);
        assert!(report.errors.is_empty());
        assert_eq!(execbench_core::provenance::dataset_hash(&report.samples), built.provenance.dataset_hash);
        // Same inputs, same bytes; another seed, another file.
        let again = build_benchmark("9.9.9", &pool(), Some(generation.clone()), spec).unwrap();
        assert_eq!(
            (again.jsonl.as_str(), again.provenance.to_pretty_json()),
            (built.jsonl.as_str(), built.provenance.to_pretty_json())
        );
        let other = build_benchmark("9.9.9", &pool(), Some(generation), SampleSpec { seed: 12, ..spec }).unwrap();
        assert_ne!(other.jsonl, built.jsonl);
        assert_ne!(other.provenance.dataset_hash, built.provenance.dataset_hash);
    }

    #[test]
    fn the_provenance_has_a_stable_shape() {
        let built = build_benchmark("1.0.0", &pool()[..4], None, SampleSpec::default()).unwrap();
        let json: serde_json::Value = serde_json::from_str(&built.provenance.to_pretty_json()).unwrap();
        let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
        // serde_json's map sorts keys; the text keeps the struct's order.
        assert_eq!(keys.len(), 8, "no generation when none is known: {keys:?}");
        let text = built.provenance.to_pretty_json();
        let order: Vec<usize> = [
            "\"app_version\"",
            "\"methods\"",
            "\"filter_version\"",
            "\"funnel\"",
            "\"duplicates_dropped\"",
            "\"sample\"",
            "\"rows\"",
            "\"dataset_hash\"",
        ]
        .iter()
        .map(|k| text.find(k).unwrap())
        .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
        assert_eq!(built.provenance.methods, ["list.pop", "str.split"], "the methods the candidates name, sorted");
        assert_eq!(built.provenance.funnel.responses, None);
        assert!(text.ends_with("}\n"));
    }

    #[test]
    fn nothing_to_export_is_an_error() {
        let rejected = vec![judged("a", "m", "x", "1", Some(Rule::Raised))];
        let cases: &[(&[Judged], usize, &str)] = &[
            (&[], 800, "nothing to export: 0 kept candidates, 0 unique, --n 800"),
            (&rejected, 800, "nothing to export: 0 kept candidates, 0 unique, --n 800"),
            (&pool()[..3], 0, "nothing to export: 2 kept candidates, 2 unique, --n 0"),
        ];
        for (judged, n, message) in cases {
            let got = build_benchmark("1", judged, None, SampleSpec { n: *n, ..SampleSpec::default() }).unwrap_err();
            assert_eq!(got, [message.to_string()]);
        }
    }
}
