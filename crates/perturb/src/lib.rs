//! CodeCrash-style perturbations of Python programs, seeded and verifiable: REN (renaming),
//! RTF (reformatted conditions), GBC (garbage code), PSC_ALL (all three), MCC (misleading comments),
//! MPS (misleading prints), MHC (misleading hints).
//!
//! The output is a function of (code, call, kind, options, sample id) only: our own PRNG and seed
//! hash, candidates in source order, edits applied by byte range so untouched text keeps its exact
//! bytes. Every output is re-parsed; code that does not parse is an error, never a result. No I/O,
//! no clock, no threads: the same code runs natively and in the browser.

use serde::{Deserialize, Serialize};

pub mod claims_file;
pub mod distance;
pub mod edit;
pub mod export;
pub mod kinds;
pub mod messages;
pub mod model_prompt;
pub mod normalise;
pub mod rng;
pub mod scope;
pub mod syntax;
pub mod verify;
pub mod wrong_answer_sources;

pub use claims_file::{FileReport, FileWrongAnswers};
pub use distance::{DistanceSummary, hint_distance, levenshtein};
pub use edit::{Edit, Placed, Target, place};
pub use export::{
    CodeCrashRow, DatasetRun, ExportRow, Failure, HintRow, RowOptions, Stage, perturb_dataset,
    perturb_dataset_with_source, perturb_row, row_of, to_codecrash_jsonl, to_jsonl, unchanged,
};
pub use verify::{Step, Verification, VerifyFailure, verify};
pub use wrong_answer_sources::{OfflineWrongAnswers, WrongAnswerRequest, WrongAnswerSource};

use execbench_core::Sample;
use execbench_pysyntax::Tree;
use rng::Rng;

/// The perturbation kinds, named as the research community names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Ren,
    Rtf,
    Gbc,
    PscAll,
    Mcc,
    Mps,
    Mhc,
}

impl Kind {
    pub const ALL: [Kind; 7] = [Kind::Ren, Kind::Rtf, Kind::Gbc, Kind::PscAll, Kind::Mcc, Kind::Mps, Kind::Mhc];
    /// The kinds that need nothing but the program (MHC also needs a wrong answer).
    pub const DETERMINISTIC: [Kind; 6] = [Kind::Ren, Kind::Rtf, Kind::Gbc, Kind::PscAll, Kind::Mcc, Kind::Mps];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Ren => "REN",
            Kind::Rtf => "RTF",
            Kind::Gbc => "GBC",
            Kind::PscAll => "PSC_ALL",
            Kind::Mcc => "MCC",
            Kind::Mps => "MPS",
            Kind::Mhc => "MHC",
        }
    }

    /// Whether the seed changes what the kind does. REN names variables in order of appearance
    /// and draws nothing: every seed gives the same program.
    pub fn uses_seed(self) -> bool {
        self != Kind::Ren
    }

    /// Whether `p` and `once` (the options of the message kinds) change what the kind does.
    pub fn uses_p_and_once(self) -> bool {
        matches!(self, Kind::Mcc | Kind::Mps)
    }

    /// The seeds worth perturbing with: all of them, or the first alone for a kind that takes no
    /// seed (the others would repeat its rows exactly).
    pub fn seeds_that_matter(self, seeds: &[u64]) -> &[u64] {
        if self.uses_seed() { seeds } else { &seeds[..seeds.len().min(1)] }
    }

    /// Case-insensitive; `-` is accepted for `_` (`psc-all`).
    pub fn parse(name: &str) -> Option<Kind> {
        let wanted = name.trim().to_ascii_uppercase().replace('-', "_");
        Kind::ALL.into_iter().find(|k| k.name() == wanted)
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Kind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Kind, D::Error> {
        let name = String::deserialize(deserializer)?;
        Kind::parse(&name).ok_or_else(|| serde::de::Error::custom(format!("unknown perturbation kind `{name}`")))
    }
}

/// Which question a misleading hint (MHC) lies about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Prediction {
    /// "What does the call return?": the hint claims a wrong return value.
    #[default]
    Output,
    /// "Which input gives this output?": the hint claims a wrong call.
    Input,
}

/// Whose conventions a perturbation follows where execbench deliberately differs from CodeCrash
/// (see `docs/perturbations.md`, "Profiles").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// execbench's own, cleaner choices: messages never state the right answer, GBC never adds
    /// `else` clauses, REN numbers the tested function's parameters first.
    #[default]
    Execbench,
    /// CodeCrash's published behaviour, in our own code and texts: MCC/MPS name a value only in
    /// return messages (the type's "useless" value, even when true); GBC also inserts into new
    /// `else` clauses and earlier garbage; REN numbers names alphabetically.
    Codecrash,
}

impl Profile {
    pub const ALL: [Profile; 2] = [Profile::Execbench, Profile::Codecrash];

    pub fn name(self) -> &'static str {
        match self {
            Profile::Execbench => "execbench",
            Profile::Codecrash => "codecrash",
        }
    }

    pub fn parse(name: &str) -> Option<Profile> {
        let wanted = name.trim().to_ascii_lowercase();
        Profile::ALL.into_iter().find(|p| p.name() == wanted)
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Options of one perturbation. Fields serialize in this order (the export depends on it).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Options {
    pub seed: u64,
    /// MCC/MPS: the probability that a site gets a message, 0..=1.
    pub p: f64,
    /// MCC/MPS: at most one message per category.
    pub once: bool,
    /// MHC: which prediction task the hint misleads.
    #[serde(default)]
    pub prediction: Prediction,
    /// Whose conventions to follow (REN, GBC, PSC_ALL, MCC, MPS; RTF and MHC are the same in both).
    #[serde(default)]
    pub profile: Profile,
}

impl Default for Options {
    fn default() -> Self {
        Options { seed: 0, p: 1.0, once: false, prediction: Prediction::Output, profile: Profile::Execbench }
    }
}

impl Options {
    pub fn with_seed(seed: u64) -> Self {
        Options { seed, ..Options::default() }
    }
}

/// What MHC claimed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hint {
    pub prediction: Prediction,
    /// Output prediction: the wrong return value; input prediction: the wrong argument text.
    pub claimed: String,
    /// The source's next proposals, in order: verification falls back on them when execution shows
    /// that `claimed` is not wrong after all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<String>,
    /// Output prediction: argument texts on which verification runs the function before it checks
    /// the claims; a value returned there that differs from the true one is claimed first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub probes: Vec<String>,
    /// When the claim is what the function returns on one of the probes: that probe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probed: Option<String>,
}

/// A program and the call that exercises it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub code: String,
    pub call: String,
    pub function_name: String,
}

/// A perturbed program, its (possibly renamed) call, and what was changed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Perturbed {
    pub code: String,
    pub call: String,
    pub function_name: String,
    pub edits: Vec<Edit>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<Hint>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "error", content = "reason", rename_all = "snake_case")]
pub enum PerturbError {
    /// The input itself is unusable (does not parse, the call does not call the function).
    InvalidInput(String),
    /// The program uses something this kind cannot perturb safely (e.g. `locals()` for REN).
    Unsupported(String),
    /// A bug: an edit overlapped another or the output did not parse. Never exported.
    Internal(String),
}

impl std::fmt::Display for PerturbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PerturbError::InvalidInput(m) => write!(f, "invalid input: {m}"),
            PerturbError::Unsupported(m) => write!(f, "unsupported: {m}"),
            PerturbError::Internal(m) => write!(f, "internal error: {m}"),
        }
    }
}

impl std::error::Error for PerturbError {}

/// Perturbs one program. `expected_output` is the original's return value as a literal (MCC/MPS
/// derive their "useless value" phrase from it; MHC lies about it). MHC takes its wrong answers
/// from the offline source; [`perturb_with_source`] takes another.
pub fn perturb(
    code: &str,
    function_name: &str,
    call: &str,
    expected_output: &str,
    kind: Kind,
    options: &Options,
    sample_id: &str,
) -> Result<Perturbed, PerturbError> {
    let sample = Sample {
        id: sample_id.to_string(),
        code: code.to_string(),
        function_name: function_name.to_string(),
        input: String::new(),
        call: call.to_string(),
        output: expected_output.to_string(),
        meta: Default::default(),
    };
    perturb_with_source(&sample, kind, options, &mut OfflineWrongAnswers::default())
}

/// [`perturb`] for a loaded sample.
pub fn perturb_sample(sample: &Sample, kind: Kind, options: &Options) -> Result<Perturbed, PerturbError> {
    perturb_with_source(sample, kind, options, &mut OfflineWrongAnswers::default())
}

/// [`perturb_sample`] with MHC's wrong answers from `source` (the other kinds ignore it). Runs no
/// Python: [`verify`] checks the hint and falls back on the source's next proposals.
pub fn perturb_with_source(
    sample: &Sample,
    kind: Kind,
    options: &Options,
    source: &mut dyn WrongAnswerSource,
) -> Result<Perturbed, PerturbError> {
    perturb_parsed(sample, &Parsed::new(sample)?, kind, options, source)
}

/// A program's code and call, parsed and checked once for perturbing it with several kinds and
/// seeds ([`perturb_parsed`]). Parsing the input is about a third of a kind's cost; a dataset run
/// perturbs each sample with up to six kinds and five seeds.
pub struct Parsed {
    /// The texts the trees are of: a [`Parsed`] of another program is never used.
    code: String,
    call: String,
    tree: Tree,
    call_tree: Tree,
}

impl Parsed {
    /// Fails as [`perturb_sample`] does on input that does not parse (the code first, then the
    /// call), whatever the kind.
    pub fn new(sample: &Sample) -> Result<Parsed, PerturbError> {
        let tree = syntax::parse_valid(&sample.code, "the code")?;
        let call_tree = syntax::parse_valid(&sample.call, "the call")?;
        Ok(Parsed { code: sample.code.clone(), call: sample.call.clone(), tree, call_tree })
    }

    fn is_of(&self, sample: &Sample) -> bool {
        self.code == sample.code && self.call == sample.call
    }
}

/// [`perturb_with_source`] with the sample's trees parsed already: the same result, without
/// parsing the input again. A `parsed` of another program is ignored (the sample is parsed).
pub fn perturb_parsed(
    sample: &Sample,
    parsed: &Parsed,
    kind: Kind,
    options: &Options,
    source: &mut dyn WrongAnswerSource,
) -> Result<Perturbed, PerturbError> {
    if !parsed.is_of(sample) {
        return perturb_parsed(sample, &Parsed::new(sample)?, kind, options, source);
    }
    let (code, call, expected_output, sample_id) = (&sample.code, &sample.call, &sample.output, &sample.id);
    let program = Program { code: code.clone(), call: call.clone(), function_name: sample.function_name.clone() };
    // Each stage gets the trees of its input and hands on the trees of its output (parsed anyway
    // to check it), so no text is parsed twice. Parsing is most of the cost of a perturbation.
    // (A tree's clone shares its nodes: no copy.)
    let (tree, call_tree) = (parsed.tree.clone(), parsed.call_tree.clone());
    let mut edits = Vec::new();
    let mut hint = None;
    let mut stage = |kind: Kind,
                     program: Program,
                     tree: Tree,
                     call_tree: Tree,
                     edits: &mut Vec<Edit>|
     -> Result<(Program, Tree, Tree), PerturbError> {
        let mut rng = Rng::new(rng::derive_seed(sample_id, kind.name(), options.seed));
        let mut call_edits = Vec::new();
        let (next, new_edits) = match kind {
            Kind::Ren => {
                let (next, code_edits, renamed_call) =
                    kinds::ren::rename(&program, &tree, &call_tree, options.profile)?;
                call_edits = renamed_call;
                (next, code_edits)
            }
            Kind::Rtf => code_only(&program, kind, kinds::rtf::reformat_conditions(&program.code, &tree, &mut rng)?)?,
            Kind::Gbc => {
                let text_edits = match options.profile {
                    Profile::Execbench => kinds::gbc::garbage_code(&program, &tree, &call_tree, &mut rng)?,
                    Profile::Codecrash => kinds::gbc_codecrash::garbage_code(&program, &tree, &call_tree, &mut rng)?,
                };
                code_only(&program, kind, text_edits)?
            }
            Kind::Mcc | Kind::Mps => {
                let text_edits =
                    kinds::comments::misleading(&program, &tree, expected_output, kind, options, &mut rng)?;
                code_only(&program, kind, text_edits)?
            }
            Kind::Mhc => {
                let (next, report, claimed) =
                    kinds::hint::hint(sample_id, &program, &tree, expected_output, options, &mut rng, &mut *source)?;
                hint = Some(claimed);
                (next, report)
            }
            Kind::PscAll => return Err(PerturbError::Internal("PSC_ALL is not a single stage".to_string())),
        };
        let next_tree = syntax::check_edited_output(&tree, &next.code, &new_edits, kind.name())?;
        // The input call parsed; only a changed call needs another look.
        let next_call_tree =
            if next.call == program.call { call_tree } else { syntax::check_output(&next.call, kind.name())? };
        edits.extend(new_edits);
        edits.extend(call_edits);
        Ok((next, next_tree, next_call_tree))
    };
    let (result, _, _) = match kind {
        Kind::PscAll => {
            let (after_rtf, tree, call_tree) = stage(Kind::Rtf, program, tree, call_tree, &mut edits)?;
            let (after_gbc, tree, call_tree) = stage(Kind::Gbc, after_rtf, tree, call_tree, &mut edits)?;
            stage(Kind::Ren, after_gbc, tree, call_tree, &mut edits)?
        }
        single => stage(single, program, tree, call_tree, &mut edits)?,
    };
    Ok(Perturbed { code: result.code, call: result.call, function_name: result.function_name, edits, hint })
}

/// Applies edits that touch only the code.
fn code_only(
    program: &Program,
    kind: Kind,
    text_edits: Vec<edit::TextEdit>,
) -> Result<(Program, Vec<Edit>), PerturbError> {
    let (code, report) = edit::apply(&program.code, kind, text_edits)?;
    Ok((Program { code, ..program.clone() }, report))
}
