//! What a run is, for comparing: its model, task, dataset and perturbation, read from its
//! manifest; and which vanilla run a perturbed run is paired with, by which sample ids.
//!
//! Where a run records its perturbation:
//! - `RunManifest::provenance`, set from the dataset's rows by
//!   `execbench_core::provenance::perturbation_of`: `{"kind": "MCC", "seed": .., "options": ..}`
//!   for an execbench export (either layout), `{"mixed": [..]}` for a file of several kinds;
//! - otherwise the dataset's name: CodeCrash's files are `{crux|lcb}_{PERT}_{input|output}.jsonl`
//!   (`VAN` is the original) and carry no kind in their rows; the page's downloads are
//!   `{dataset}-{KINDS}-perturbed.jsonl` and `{dataset}-{KINDS}-codecrash.jsonl`.
//!
//! Original ids: a perturbed row keeps the id of the sample it was made from (`ExportRow::id`,
//! CodeCrash's `task_id`), so a perturbed run's sample id *is* the original id ([`original_id`]).

use std::collections::BTreeSet;

use execbench_eval::Task;
use execbench_perturb::Kind;
use execbench_runs::manifest::RunManifest;
use serde::{Serialize, Serializer};
use serde_json::Value;

/// A dataset's perturbation. Ordered as tables show them: vanilla, then CodeCrash's order
/// (REN, RTF, GBC, PSC_ALL, MCC, MPS, MHC), then any other by name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Perturbation {
    Vanilla,
    Known(Kind),
    /// A name execbench does not perturb with (CodeCrash's older `ALL`, `MDC`) or a mix (`REN+RTF`).
    Other(String),
}

impl Perturbation {
    /// `VAN`, `vanilla`, `original` and the empty name are the unperturbed dataset; a kind's
    /// name in any case, `-` or `_` is that kind; anything else is kept as written.
    pub fn parse(name: &str) -> Perturbation {
        let trimmed = name.trim();
        match trimmed.to_ascii_lowercase().as_str() {
            "" | "van" | "vanilla" | "original" => Perturbation::Vanilla,
            _ => Kind::parse(trimmed).map_or_else(|| Perturbation::Other(trimmed.to_string()), Perturbation::Known),
        }
    }

    pub fn label(&self) -> String {
        match self {
            Perturbation::Vanilla => "vanilla".to_string(),
            Perturbation::Known(kind) => kind.name().to_string(),
            Perturbation::Other(name) => name.clone(),
        }
    }

    pub fn is_vanilla(&self) -> bool {
        matches!(self, Perturbation::Vanilla)
    }
}

impl Serialize for Perturbation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.label())
    }
}

/// What decides whether two runs belong in one row, one column, one pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunIdentity {
    /// The model's name as the manifest shows it.
    pub model: String,
    pub task: Task,
    /// The dataset the run's samples come from, without perturbation markers ([`dataset_family`]).
    pub dataset: String,
    pub perturbation: Perturbation,
}

/// Reads a run's identity from its manifest.
pub fn identify(manifest: &RunManifest) -> RunIdentity {
    let (dataset, named) = dataset_family(&manifest.dataset);
    let perturbation = manifest.provenance.as_ref().and_then(recorded_perturbation).unwrap_or(named);
    RunIdentity { model: manifest.model.clone(), task: manifest.task, dataset, perturbation }
}

/// The perturbation a manifest's `provenance` records, if it records one.
fn recorded_perturbation(provenance: &Value) -> Option<Perturbation> {
    let kind_of = |p: &Value| p.get("kind").and_then(Value::as_str).map(str::to_string);
    if let Some(kind) = kind_of(provenance) {
        return Some(Perturbation::parse(&kind));
    }
    let mixed = provenance.get("mixed")?.as_array()?;
    let mut kinds: Vec<String> = Vec::new();
    for kind in mixed.iter().filter_map(kind_of) {
        let name = Perturbation::parse(&kind).label();
        if !kinds.contains(&name) {
            kinds.push(name);
        }
    }
    (!kinds.is_empty()).then(|| Perturbation::parse(&kinds.join("+")))
}

/// A dataset name's family and the perturbation the name itself states: `crux_MCC_output.jsonl`
/// is (`cruxeval`, MCC), `cruxeval-REN-perturbed.jsonl` is (`cruxeval`, REN), `data/lcb.jsonl` is
/// (`lcb`, vanilla). Families are lower case, CodeCrash's `crux` and `lcb` spelled out as
/// `cruxeval` and `livecodebench`.
pub fn dataset_family(name: &str) -> (String, Perturbation) {
    let file = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let stem = match file.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem,
        _ => file,
    };
    // CodeCrash: {crux|lcb}_{PERT}_{input|output}; PERT may itself hold `_` (PSC_ALL).
    let parts: Vec<&str> = stem.split('_').collect();
    if parts.len() >= 3 && ["crux", "lcb"].contains(&parts[0]) && ["input", "output"].contains(&parts[parts.len() - 1])
    {
        return (canonical_family(parts[0]), Perturbation::parse(&parts[1..parts.len() - 1].join("_")));
    }
    // The page's downloads: {dataset}-{KINDS}-perturbed / -codecrash.
    for suffix in ["-perturbed", "-codecrash"] {
        if let Some((family, kinds)) = stem.strip_suffix(suffix).and_then(|rest| rest.rsplit_once('-'))
            && !family.is_empty()
        {
            return (canonical_family(family), Perturbation::parse(kinds));
        }
    }
    (canonical_family(stem), Perturbation::Vanilla)
}

fn canonical_family(name: &str) -> String {
    match name.to_ascii_lowercase().as_str() {
        "crux" => "cruxeval".to_string(),
        "lcb" => "livecodebench".to_string(),
        other => other.to_string(),
    }
}

/// The id of the original sample a (perturbed) sample was made from: the same id, since every
/// perturbed layout keeps it (see the module documentation).
pub fn original_id(sample_id: &str) -> &str {
    sample_id
}

/// A run that might be the vanilla side of a pair: its identity and the sample ids it scored.
#[derive(Clone, Debug)]
pub struct Candidate<'a> {
    pub identity: &'a RunIdentity,
    pub sample_ids: BTreeSet<&'a str>,
}

/// A perturbed run's vanilla run (an index into the candidates) and the original ids both score.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pairing {
    pub vanilla: usize,
    pub original_ids: Vec<String>,
}

/// Which vanilla run, which original ids. A run over a perturbed dataset pairs with a vanilla
/// run of the same model and task that shares at least one original sample id; of several, the
/// one of the same dataset family, then the one sharing the most ids, then the first given.
/// Vanilla runs pair with nothing; runs of different models or tasks never pair.
pub fn pair_with_vanilla(
    perturbed: &RunIdentity,
    perturbed_ids: &BTreeSet<&str>,
    candidates: &[Candidate<'_>],
) -> Option<Pairing> {
    if perturbed.perturbation.is_vanilla() {
        return None;
    }
    let originals: BTreeSet<&str> = perturbed_ids.iter().map(|id| original_id(id)).collect();
    let mut best: Option<(usize, bool, Vec<String>)> = None;
    for (index, candidate) in candidates.iter().enumerate() {
        let vanilla = candidate.identity;
        if !vanilla.perturbation.is_vanilla() || vanilla.model != perturbed.model || vanilla.task != perturbed.task {
            continue;
        }
        let shared: Vec<String> = originals.intersection(&candidate.sample_ids).map(|id| id.to_string()).collect();
        if shared.is_empty() {
            continue;
        }
        let same_family = vanilla.dataset == perturbed.dataset;
        let better = match &best {
            None => true,
            Some((_, best_family, best_shared)) => (same_family, shared.len()) > (*best_family, best_shared.len()),
        };
        if better {
            best = Some((index, same_family, shared));
        }
    }
    best.map(|(vanilla, _, original_ids)| Pairing { vanilla, original_ids })
}
