//! The comparison of a set of runs: one table per scoring mode, rows models, columns datasets and
//! perturbations (vanilla first, then CodeCrash's order, then others by name), each cell a run's
//! pass@1 with its interval, pass@5, and its drop against the paired vanilla run.

use std::collections::{BTreeMap, BTreeSet};

use execbench_eval::Task;
use execbench_eval::score::Mode;
use serde::Serialize;

use crate::CompareOptions;
use crate::category::{CategoryScore, category_scores};
use crate::flips::{Flip, flipped_samples};
use crate::identity::original_id;
use crate::identity::{Candidate, Perturbation, RunIdentity, identify, pair_with_vanilla};
use crate::pair::{Drop, PairedSample, drop_of, paired_samples};
use crate::run::RunInput;
use crate::score::{RunScore, score_run};
use execbench_runs::naming::run_name;

/// A table column. Ordered by dataset, task (output first), then perturbation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Column {
    pub dataset: String,
    #[serde(serialize_with = "task_label")]
    pub task: Task,
    pub perturbation: Perturbation,
}

impl Column {
    fn sort_key(&self) -> (&str, usize, &Perturbation) {
        (&self.dataset, Task::ALL.iter().position(|t| *t == self.task).unwrap_or(usize::MAX), &self.perturbation)
    }
}

impl Ord for Column {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.sort_key().cmp(&other.sort_key())
    }
}

impl PartialOrd for Column {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

fn task_label<S: serde::Serializer>(task: &Task, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(task.label())
}

/// What the comparison made of one input run (same index as the input).
#[derive(Clone, Debug, PartialEq)]
pub struct RunView {
    pub source: String,
    pub run_id: String,
    /// The run's name (`execbench_runs::naming::run_name`): what tells runs of one model apart.
    pub name: String,
    pub identity: RunIdentity,
    /// The run's row in `Comparison::models`; `None` when it is not shown.
    pub row: Option<usize>,
    /// The run's column; `None` when another run of the model already fills it.
    pub column: Option<usize>,
    /// The vanilla run it is paired with, for a perturbed run.
    pub vanilla: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// Index of the run in the input.
    pub run: usize,
    pub score: RunScore,
    /// Against the paired vanilla run, for a perturbed run that has one.
    pub drop: Option<Drop>,
}

/// One mode's table: `cells[model][column]`.
#[derive(Clone, Debug, PartialEq)]
pub struct ModeTable {
    pub mode: Mode,
    pub cells: Vec<Vec<Option<Cell>>>,
}

/// Two runs in one mode, sample by sample, over the samples both scored: a perturbed run and its
/// vanilla run, or (`repeat`) another run of a column against the column's first run.
#[derive(Clone, Debug, PartialEq)]
pub struct Pair {
    pub mode: Mode,
    /// The reference run: the vanilla run, or the first run of the column.
    pub vanilla: usize,
    pub perturbed: usize,
    pub samples: Vec<PairedSample>,
    pub drop: Option<Drop>,
    /// Two runs of one column (the same dataset, task and perturbation), not a perturbation's pair.
    pub repeat: bool,
    /// How many samples each run scored in the mode (by original id): the pair is over those both
    /// have, `samples`.
    pub covers: (usize, usize),
}

impl Pair {
    /// `A covers 30 samples, B 60: compared on the 30 both have`, when the two runs scored
    /// different samples.
    pub fn coverage_words(&self, comparison: &Comparison) -> Option<String> {
        let (a, b) = self.covers;
        let common = self.samples.len();
        if a == common && b == common {
            return None;
        }
        let (first, second) = (comparison.run_label(self.vanilla), comparison.run_label(self.perturbed));
        Some(format!("{first} covers {a} samples, {second} {b}: compared on the {common} both have"))
    }
}

/// One run's per-category pass@1 in one mode.
#[derive(Clone, Debug, PartialEq)]
pub struct RunCategories {
    pub mode: Mode,
    pub run: usize,
    pub model: usize,
    pub column: usize,
    pub scores: Vec<CategoryScore>,
}

impl Pair {
    /// The pair's flipped samples with both stored results; `runs` are the runs the comparison
    /// was made of.
    pub fn flips(&self, runs: &[RunInput]) -> Vec<Flip> {
        match (runs.get(self.vanilla), runs.get(self.perturbed)) {
            (Some(vanilla), Some(perturbed)) => flipped_samples(vanilla, perturbed, self.mode),
            _ => Vec::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub options: CompareOptions,
    pub runs: Vec<RunView>,
    /// Row names, sorted.
    pub models: Vec<String>,
    pub columns: Vec<Column>,
    /// One per mode some run was scored in, strict first.
    pub tables: Vec<ModeTable>,
    /// In table order (mode, model, column).
    pub pairs: Vec<Pair>,
    /// Per-category pass@1 of every shown run, in table order; empty without categories.
    pub categories: Vec<RunCategories>,
    /// Per-kind pass@1 of every shown question run, in table order; empty without one.
    pub questions: Vec<crate::questions::RunQuestions>,
    /// What a reader should know: runs not shown, runs without a vanilla run.
    pub notes: Vec<String>,
}

impl Comparison {
    pub fn table(&self, mode: Mode) -> Option<&ModeTable> {
        self.tables.iter().find(|t| t.mode == mode)
    }

    /// A column's heading: the perturbation alone when every column has the same dataset and
    /// task, else `dataset · task · perturbation`.
    pub fn column_label(&self, column: usize) -> String {
        let Some(col) = self.columns.get(column) else { return String::new() };
        let uniform = self.columns.iter().all(|c| c.dataset == col.dataset && c.task == col.task);
        if uniform {
            col.perturbation.label()
        } else {
            format!("{} · {} · {}", col.dataset, col.task.label(), col.perturbation.label())
        }
    }

    /// What names run `run` (an index into `runs`): its row and, for a perturbed run, its
    /// perturbation; the run's name when it is not shown.
    pub fn run_label(&self, run: usize) -> String {
        let Some(view) = self.runs.get(run) else { return String::new() };
        match view.row.and_then(|r| self.models.get(r)) {
            Some(row) if view.identity.perturbation.is_vanilla() => row.clone(),
            Some(row) => format!("{row} · {}", view.identity.perturbation.label()),
            None => view.name.clone(),
        }
    }

    /// The perturbation pair of `mode` whose perturbed run is `run`.
    pub fn pair_of(&self, mode: Mode, run: usize) -> Option<&Pair> {
        self.pairs.iter().find(|p| p.mode == mode && p.perturbed == run && !p.repeat)
    }
}

/// Compares `runs`. The figures depend on the runs' contents, the options and the input order
/// only where two runs claim the same cell (the first given is shown, the other noted).
pub fn compare(runs: &[RunInput], options: &CompareOptions) -> Comparison {
    let identities: Vec<RunIdentity> = runs.iter().map(|r| identify(&r.manifest)).collect();
    let names: Vec<String> = runs.iter().map(|r| run_name(&r.manifest)).collect();
    let mut row_of = rows_of(runs, &identities, &names);
    let mut notes = Vec::new();
    let mut cell_owner: BTreeMap<(String, Column), usize> = BTreeMap::new();
    let mut column_of: Vec<Option<Column>> = vec![None; runs.len()];
    let mut vanilla_of: Vec<Option<usize>> = vec![None; runs.len()];
    let mut paired_ids: Vec<Vec<String>> = vec![Vec::new(); runs.len()];

    let mut claim =
        |index: usize, row: &str, column: Column, notes: &mut Vec<String>, column_of: &mut Vec<Option<Column>>| {
            let key = (row.to_string(), column.clone());
            match cell_owner.get(&key) {
                Some(&owner) => notes.push(format!(
                    "{} ({}) is not shown: {} already fills row {}, column {} · {} · {}",
                    runs[index].source,
                    runs[index].manifest.run_id,
                    runs[owner].source,
                    key.0,
                    column.dataset,
                    column.task.label(),
                    column.perturbation.label()
                )),
                None => {
                    cell_owner.insert(key, index);
                    column_of[index] = Some(column);
                }
            }
        };

    // Vanilla runs first: their columns are their own; perturbed runs then pair with those shown.
    for (index, identity) in identities.iter().enumerate().filter(|(_, id)| id.perturbation.is_vanilla()) {
        let column =
            Column { dataset: identity.dataset.clone(), task: identity.task, perturbation: Perturbation::Vanilla };
        claim(index, &row_of[index], column, &mut notes, &mut column_of);
    }
    let shown_vanilla: Vec<usize> =
        (0..runs.len()).filter(|&i| identities[i].perturbation.is_vanilla() && column_of[i].is_some()).collect();
    let scored_ids = |index: usize| -> BTreeSet<&str> {
        runs[index].records.iter().filter(|(_, r)| !r.is_error()).map(|(id, _)| id.as_str()).collect()
    };
    let candidates: Vec<Candidate<'_>> =
        shown_vanilla.iter().map(|&i| Candidate { identity: &identities[i], sample_ids: scored_ids(i) }).collect();
    for (index, identity) in identities.iter().enumerate().filter(|(_, id)| !id.perturbation.is_vanilla()) {
        let pairing = pair_with_vanilla(identity, &scored_ids(index), &candidates);
        let dataset = match &pairing {
            Some(p) => identities[shown_vanilla[p.vanilla]].dataset.clone(),
            None => {
                notes.push(format!(
                    "{} ({}, {}) has no vanilla run of model {} and task {} sharing its sample ids: no drop",
                    runs[index].source,
                    runs[index].manifest.run_id,
                    identity.perturbation.label(),
                    identity.model,
                    identity.task.label()
                ));
                identity.dataset.clone()
            }
        };
        if let Some(p) = pairing {
            let vanilla = shown_vanilla[p.vanilla];
            vanilla_of[index] = Some(vanilla);
            paired_ids[index] = p.original_ids;
            // A perturbed run sits in its vanilla run's row.
            row_of[index] = row_of[vanilla].clone();
        }
        claim(
            index,
            &row_of[index],
            Column { dataset, task: identity.task, perturbation: identity.perturbation.clone() },
            &mut notes,
            &mut column_of,
        );
    }

    let models: Vec<String> = (0..runs.len())
        .filter(|&i| column_of[i].is_some())
        .map(|i| row_of[i].clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let columns: Vec<Column> = column_of.iter().flatten().cloned().collect::<BTreeSet<_>>().into_iter().collect();
    let modes: Vec<Mode> = Mode::ALL.into_iter().filter(|m| runs.iter().any(|r| r.has_mode(*m))).collect();

    let mut tables = Vec::new();
    let mut pairs = Vec::new();
    let mut categories = Vec::new();
    let mut questions = Vec::new();
    for &mode in &modes {
        let mut cells: Vec<Vec<Option<Cell>>> = vec![vec![None; columns.len()]; models.len()];
        for (model_index, model) in models.iter().enumerate() {
            for (column_index, column) in columns.iter().enumerate() {
                let Some(&run) = cell_owner.get(&(model.clone(), column.clone())) else { continue };
                if !runs[run].has_mode(mode) {
                    continue;
                }
                let mut drop = None;
                if let Some(vanilla) = vanilla_of[run].filter(|&v| runs[v].has_mode(mode)) {
                    let samples = paired_samples(&runs[vanilla], &runs[run], &paired_ids[run], mode);
                    drop = drop_of(&samples);
                    let covers = (scored_in(&runs[vanilla], mode), scored_in(&runs[run], mode));
                    pairs.push(Pair {
                        mode,
                        vanilla,
                        perturbed: run,
                        samples,
                        drop: drop.clone(),
                        repeat: false,
                        covers,
                    });
                }
                cells[model_index][column_index] =
                    Some(Cell { run, score: score_run(&runs[run], mode, options), drop });
                if !options.categories.is_empty() {
                    let scores = category_scores(&runs[run], mode, &options.categories, options);
                    categories.push(RunCategories { mode, run, model: model_index, column: column_index, scores });
                }
                if runs[run].manifest.task == execbench_eval::Task::Question {
                    let scores = crate::questions::question_scores(&runs[run], mode, options);
                    let chains = crate::questions::chain_score(&runs[run], mode);
                    questions.push(crate::questions::RunQuestions {
                        mode,
                        run,
                        model: model_index,
                        column: column_index,
                        scores,
                        chains,
                    });
                }
            }
        }
        // A model run again: each of its later runs in a column (input order) against its first,
        // over the samples both scored.
        for column in 0..columns.len() {
            let mut shown: Vec<usize> = cells.iter().filter_map(|row| row[column].as_ref().map(|c| c.run)).collect();
            shown.sort_unstable();
            for (k, &first) in shown.iter().enumerate() {
                let earlier = shown[..k].iter().any(|&e| identities[e].model == identities[first].model);
                if earlier {
                    continue;
                }
                for &other in shown[k + 1..].iter().filter(|&&o| identities[o].model == identities[first].model) {
                    let other_ids: BTreeSet<&str> = runs[other].outcomes(mode).into_keys().map(original_id).collect();
                    let common: Vec<String> = runs[first]
                        .outcomes(mode)
                        .into_keys()
                        .map(original_id)
                        .filter(|id| other_ids.contains(id))
                        .map(str::to_string)
                        .collect();
                    let samples = paired_samples(&runs[first], &runs[other], &common, mode);
                    let drop = drop_of(&samples);
                    let covers = (scored_in(&runs[first], mode), scored_in(&runs[other], mode));
                    pairs.push(Pair { mode, vanilla: first, perturbed: other, samples, drop, repeat: true, covers });
                }
            }
        }
        tables.push(ModeTable { mode, cells });
    }

    let views = runs
        .iter()
        .enumerate()
        .map(|(i, run)| RunView {
            source: run.source.clone(),
            run_id: run.manifest.run_id.clone(),
            name: names[i].clone(),
            identity: identities[i].clone(),
            row: column_of[i].as_ref().and_then(|_| models.iter().position(|m| *m == row_of[i])),
            column: column_of[i].as_ref().and_then(|c| columns.iter().position(|x| x == c)),
            vanilla: vanilla_of[i],
        })
        .collect();
    let mut comparison = Comparison {
        options: options.clone(),
        runs: views,
        models,
        columns,
        tables,
        pairs,
        categories,
        questions,
        notes,
    };
    // Said once, though every mode has its pair.
    let coverage: BTreeSet<String> = comparison.pairs.iter().filter_map(|p| p.coverage_words(&comparison)).collect();
    comparison.notes.extend(coverage);
    comparison
}

/// How many samples `run` scored in `mode`, by original id.
fn scored_in(run: &RunInput, mode: Mode) -> usize {
    run.outcomes(mode).into_keys().map(original_id).collect::<BTreeSet<_>>().len()
}

/// Each run's row: its model's name, unless the model has more than one vanilla run of one dataset
/// and task; then each of its vanilla runs gets a row of its own, named by the run's name (with the
/// model when the user's name leaves it out, and the run id when two names are the same).
/// Perturbed runs move to their vanilla run's row once paired.
fn rows_of(runs: &[RunInput], identities: &[RunIdentity], names: &[String]) -> Vec<String> {
    let mut vanilla_count: BTreeMap<(&str, &str, &str), usize> = BTreeMap::new();
    for id in identities.iter().filter(|id| id.perturbation.is_vanilla()) {
        *vanilla_count.entry((id.model.as_str(), id.dataset.as_str(), id.task.label())).or_default() += 1;
    }
    let split: BTreeSet<&str> =
        vanilla_count.iter().filter(|(_, n)| **n > 1).map(|((model, _, _), _)| *model).collect();
    let mut rows: Vec<String> = Vec::with_capacity(runs.len());
    for (i, id) in identities.iter().enumerate() {
        if !split.contains(id.model.as_str()) {
            rows.push(id.model.clone());
            continue;
        }
        let label = match &runs[i].manifest.name {
            Some(name) if !name.contains(&id.model) => format!("{name} ({})", id.model),
            _ => names[i].clone(),
        };
        rows.push(label);
    }
    // Two runs of a split model with the same label get their run ids.
    let labels = rows.clone();
    for (i, row) in rows.iter_mut().enumerate() {
        let same =
            labels.iter().enumerate().filter(|(j, l)| *l == row && identities[*j].perturbation.is_vanilla()).count();
        if split.contains(identities[i].model.as_str()) && same > 1 {
            *row = format!("{row} ({})", runs[i].manifest.run_id);
        }
    }
    rows
}
