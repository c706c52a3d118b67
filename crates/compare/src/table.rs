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
use crate::identity::{Candidate, Perturbation, RunIdentity, identify, pair_with_vanilla};
use crate::pair::{Drop, PairedSample, drop_of, paired_samples};
use crate::run::RunInput;
use crate::score::{RunScore, score_run};

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
    pub identity: RunIdentity,
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

/// A perturbed run and its vanilla run in one mode, sample by sample.
#[derive(Clone, Debug, PartialEq)]
pub struct Pair {
    pub mode: Mode,
    pub vanilla: usize,
    pub perturbed: usize,
    pub samples: Vec<PairedSample>,
    pub drop: Option<Drop>,
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

    /// The pair of `mode` whose perturbed run is `run`.
    pub fn pair_of(&self, mode: Mode, run: usize) -> Option<&Pair> {
        self.pairs.iter().find(|p| p.mode == mode && p.perturbed == run)
    }
}

/// Compares `runs`. The figures depend on the runs' contents, the options and the input order
/// only where two runs claim the same cell (the first given is shown, the other noted).
pub fn compare(runs: &[RunInput], options: &CompareOptions) -> Comparison {
    let identities: Vec<RunIdentity> = runs.iter().map(|r| identify(&r.manifest)).collect();
    let mut notes = Vec::new();
    let mut cell_owner: BTreeMap<(String, Column), usize> = BTreeMap::new();
    let mut column_of: Vec<Option<Column>> = vec![None; runs.len()];
    let mut vanilla_of: Vec<Option<usize>> = vec![None; runs.len()];
    let mut paired_ids: Vec<Vec<String>> = vec![Vec::new(); runs.len()];

    let mut claim = |index: usize, column: Column, notes: &mut Vec<String>, column_of: &mut Vec<Option<Column>>| {
        let key = (identities[index].model.clone(), column.clone());
        match cell_owner.get(&key) {
            Some(&owner) => notes.push(format!(
                "{} ({}) is not shown: {} already fills model {}, column {} · {} · {}",
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
        claim(index, column, &mut notes, &mut column_of);
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
            vanilla_of[index] = Some(shown_vanilla[p.vanilla]);
            paired_ids[index] = p.original_ids;
        }
        claim(
            index,
            Column { dataset, task: identity.task, perturbation: identity.perturbation.clone() },
            &mut notes,
            &mut column_of,
        );
    }

    let models: Vec<String> = identities.iter().map(|i| i.model.clone()).collect::<BTreeSet<_>>().into_iter().collect();
    let columns: Vec<Column> = column_of.iter().flatten().cloned().collect::<BTreeSet<_>>().into_iter().collect();
    let modes: Vec<Mode> = Mode::ALL.into_iter().filter(|m| runs.iter().any(|r| r.has_mode(*m))).collect();

    let mut tables = Vec::new();
    let mut pairs = Vec::new();
    let mut categories = Vec::new();
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
                    pairs.push(Pair { mode, vanilla, perturbed: run, samples, drop: drop.clone() });
                }
                cells[model_index][column_index] =
                    Some(Cell { run, score: score_run(&runs[run], mode, options), drop });
                if !options.categories.is_empty() {
                    let scores = category_scores(&runs[run], mode, &options.categories, options);
                    categories.push(RunCategories { mode, run, model: model_index, column: column_index, scores });
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
            identity: identities[i].clone(),
            column: column_of[i].as_ref().and_then(|c| columns.iter().position(|x| x == c)),
            vanilla: vanilla_of[i],
        })
        .collect();
    Comparison { options: options.clone(), runs: views, models, columns, tables, pairs, categories, notes }
}
