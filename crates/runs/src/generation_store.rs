//! A benchmark generation that survives a reload: its entry (the plan that makes its prompts, the
//! model's settings without the key, the price, counts and state) and one row per request
//! (the response, or the error that left it without one), written together as each request
//! finishes. Resume makes the same prompts again from the plan and asks only the requests
//! without a response; the rows already kept give their candidates back without a request.
//!
//! The page keeps generations in IndexedDB (`execbench-idbstore`), tests in memory; every store
//! passes [`conformance::check`].

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use execbench_providers::Usage;
use execbench_recipe::parse::{ParsedResponse, parse_response};
use execbench_recipe::prompt::{FewShot, GenerationRequest, PromptTemplate, generation_requests};
pub use execbench_recipe::replay::GenerationRow;
use serde::{Deserialize, Serialize};

use crate::cost::SpendCap;
use crate::manifest::PriceUsed;
use crate::settings::ApiSettings;
use crate::store::{StoreError, StoreErrorKind, StoreResult};

/// Where a kept generation stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GenerationState {
    Running,
    /// The user pressed Stop.
    Stopped,
    /// The provider stopped it (bad key, no credits, unknown model, a refusal).
    ProviderStopped,
    /// The page was reloaded or closed while it ran.
    Interrupted,
    /// Every request was asked (some may have failed: Resume asks those again).
    Finished,
}

impl GenerationState {
    pub fn label(self) -> &'static str {
        match self {
            GenerationState::Running => "running",
            GenerationState::Stopped => "stopped",
            GenerationState::ProviderStopped => "stopped by the provider",
            GenerationState::Interrupted => "interrupted",
            GenerationState::Finished => "finished",
        }
    }
}

/// What a store says about a kept generation, without its rows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenerationEntry {
    /// `gen-` and the creation time.
    pub id: String,
    /// ms since the epoch.
    pub created_ms: f64,
    /// The model's endpoint and parameters. Never the key: Resume asks for it again.
    pub api: ApiSettings,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<PriceUsed>,
    /// Dollars the whole generation may spend (every session of it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spend_cap: Option<f64>,
    /// The plan: the prompts are made again from these, byte for byte.
    pub methods: Vec<String>,
    pub per_method: usize,
    pub seed: u64,
    pub template: PromptTemplate,
    pub pool: Vec<FewShot>,
    /// Requests in all; those whose latest row holds a response, and an error.
    pub total: usize,
    pub answered: usize,
    pub failed: usize,
    /// Tokens of every kept row.
    pub usage: Usage,
    pub state: GenerationState,
    /// Why it ended as it did, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl GenerationEntry {
    /// The entry of a generation about to start. Fails when the plan makes no prompts.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        created_ms: f64,
        api: ApiSettings,
        price: Option<PriceUsed>,
        methods: Vec<String>,
        per_method: usize,
        seed: u64,
        template: PromptTemplate,
        pool: Vec<FewShot>,
    ) -> Result<GenerationEntry, String> {
        let mut entry = GenerationEntry {
            id: format!("gen-{}", created_ms.max(0.0) as u64),
            created_ms,
            api,
            price,
            spend_cap: None,
            methods,
            per_method,
            seed,
            template,
            pool,
            total: 0,
            answered: 0,
            failed: 0,
            usage: Usage::default(),
            state: GenerationState::Running,
            note: None,
        };
        entry.total = entry.requests()?.len();
        Ok(entry)
    }

    /// The generation's prompts, made again from its plan.
    pub fn requests(&self) -> Result<Vec<GenerationRequest>, String> {
        generation_requests(&self.methods, self.per_method, self.seed, &self.template, &self.pool)
    }

    /// Counts and tokens from the rows kept so far (a later row of a request replaces an earlier one).
    pub fn count(&mut self, rows: &[GenerationRow]) {
        let latest: BTreeMap<&str, &GenerationRow> = rows.iter().map(|r| (r.id.as_str(), r)).collect();
        self.answered = latest.values().filter(|r| r.response.is_some()).count();
        self.failed = latest.values().filter(|r| r.response.is_none()).count();
        self.usage = Usage::default();
        for row in latest.values() {
            self.usage.add(&Usage {
                prompt_tokens: row.prompt_tokens.unwrap_or(0),
                completion_tokens: row.completion_tokens.unwrap_or(0),
                ..Usage::default()
            });
        }
    }

    /// The cap for a session that starts now (what earlier sessions spent counts).
    pub fn cap(&self) -> Option<crate::cost::SpendCap> {
        let (limit, price) = (self.spend_cap?, self.price.as_ref()?.price);
        Some(crate::cost::SpendCap { limit, price, spent_before: price.cost(&self.usage) })
    }

    /// Whether Resume has anything to ask.
    pub fn unfinished(&self) -> bool {
        self.answered < self.total
    }

    /// One line for a list: the model, how far it got and how it ended.
    pub fn label(&self) -> String {
        let failed = match self.failed {
            0 => String::new(),
            n => format!(", {n} failed"),
        };
        format!(
            "{} ({}): {} of {} responses{failed}, {}",
            self.api.endpoint.model,
            self.api.endpoint.provider,
            self.answered,
            self.total,
            self.state.label()
        )
    }
}

/// A kept generation made ready to go on: the requests with those already answered marked done,
/// and the kept responses parsed again, in request order (their candidates need no request).
#[derive(Debug)]
pub struct ResumePlan {
    pub job: GenerationJob,
    pub answered: Vec<ParsedResponse>,
    /// Every kept row, in request order (the generations download).
    pub rows: Vec<GenerationRow>,
}

/// What Resume starts from. Rows of requests the plan does not make are refused by name: they
/// mean the entry and its rows disagree, and resuming would mix two generations.
pub fn resume_plan(entry: &GenerationEntry, rows: &[GenerationRow]) -> Result<ResumePlan, String> {
    let requests = entry.requests().map_err(|e| format!("{}: its prompts cannot be made again: {e}", entry.id))?;
    let order: BTreeMap<&str, usize> = requests.iter().enumerate().map(|(i, r)| (r.id.as_str(), i)).collect();
    let mut latest: BTreeMap<usize, GenerationRow> = BTreeMap::new();
    for row in rows {
        let Some(&at) = order.get(row.id.as_str()) else {
            return Err(format!(
                "{}: a kept row answers `{}`, which is not one of its {} prompts",
                entry.id,
                row.id,
                requests.len()
            ));
        };
        latest.insert(at, row.clone());
    }
    let rows: Vec<GenerationRow> = latest.into_values().collect();
    let answered: Vec<ParsedResponse> =
        rows.iter().filter_map(|r| r.response.as_ref().map(|text| parse_response(&r.id, &r.method, text))).collect();
    let done: BTreeSet<String> = answered.iter().map(|p| p.request_id.clone()).collect();
    Ok(ResumePlan { job: GenerationJob { requests, done, spend_cap: entry.cap() }, answered, rows })
}

/// Newest first (then by id, so the order is total), as every store returns them.
pub fn newest_first(entries: &mut [GenerationEntry]) {
    entries.sort_by(|a, b| b.created_ms.total_cmp(&a.created_ms).then_with(|| b.id.cmp(&a.id)));
}

/// Where generations are kept. Every method is one atomic change.
pub trait GenerationStore {
    /// Writes (creates or replaces) a generation's entry.
    fn save_generation(&self, entry: &GenerationEntry) -> impl Future<Output = StoreResult<()>>;
    /// Writes a request's row (replacing its earlier one) and the entry, together or neither.
    fn put_generation_row(&self, entry: &GenerationEntry, row: &GenerationRow)
    -> impl Future<Output = StoreResult<()>>;
    /// Every kept generation's entry, newest first.
    fn generations(&self) -> impl Future<Output = StoreResult<Vec<GenerationEntry>>>;
    /// A generation's rows, one per request; `NotFound` when it is not kept.
    fn generation_rows(&self, id: &str) -> impl Future<Output = StoreResult<Vec<GenerationRow>>>;
    /// Removes a generation and its rows. Removing one that is not there is not an error.
    fn delete_generation(&self, id: &str) -> impl Future<Output = StoreResult<()>>;
}

/// Reads the kept generations as the page starts. One still marked running was cut off by a
/// reload or a closed tab (no job of this start runs it): it becomes interrupted, stored so. A
/// state that cannot be stored is reported, the list still read.
pub async fn open_generations<S: GenerationStore>(store: &S) -> StoreResult<(Vec<GenerationEntry>, Vec<StoreError>)> {
    let mut entries = store.generations().await?;
    let mut problems = Vec::new();
    for entry in entries.iter_mut().filter(|e| e.state == GenerationState::Running) {
        entry.state = GenerationState::Interrupted;
        entry.note = Some(
            "the page was closed or reloaded while it ran: Resume asks only the prompts without a response".into(),
        );
        if let Err(e) = store.save_generation(entry).await {
            problems.push(e);
        }
    }
    Ok((entries, problems))
}

pub fn not_kept(id: &str) -> StoreError {
    StoreError::new(StoreErrorKind::NotFound, format!("no generation `{id}` is kept here"))
}

type Kept = (GenerationEntry, BTreeMap<String, GenerationRow>);

/// Generations in memory (tests, and a page whose browser keeps no IndexedDB).
#[derive(Default)]
pub struct MemoryGenerationStore {
    kept: RefCell<BTreeMap<String, Kept>>,
}

impl MemoryGenerationStore {
    pub fn new() -> Self {
        Self::default()
    }
}

impl GenerationStore for MemoryGenerationStore {
    async fn save_generation(&self, entry: &GenerationEntry) -> StoreResult<()> {
        self.kept.borrow_mut().entry(entry.id.clone()).or_insert_with(|| (entry.clone(), BTreeMap::new())).0 =
            entry.clone();
        Ok(())
    }

    async fn put_generation_row(&self, entry: &GenerationEntry, row: &GenerationRow) -> StoreResult<()> {
        let mut kept = self.kept.borrow_mut();
        let generation = kept.entry(entry.id.clone()).or_insert_with(|| (entry.clone(), BTreeMap::new()));
        generation.0 = entry.clone();
        generation.1.insert(row.id.clone(), row.clone());
        Ok(())
    }

    async fn generations(&self) -> StoreResult<Vec<GenerationEntry>> {
        let mut all: Vec<GenerationEntry> = self.kept.borrow().values().map(|(e, _)| e.clone()).collect();
        newest_first(&mut all);
        Ok(all)
    }

    async fn generation_rows(&self, id: &str) -> StoreResult<Vec<GenerationRow>> {
        self.kept.borrow().get(id).map(|(_, rows)| rows.values().cloned().collect()).ok_or_else(|| not_kept(id))
    }

    async fn delete_generation(&self, id: &str) -> StoreResult<()> {
        self.kept.borrow_mut().remove(id);
        Ok(())
    }
}

/// The table every generation store passes (natively over memory, in Chromium over IndexedDB).
pub mod conformance {
    use super::*;
    use execbench_providers::Endpoint;
    use execbench_recipe::prompt::default_pool;

    /// The entry of a small generation (2 methods × 2 requests) created at `created_ms`.
    pub fn entry(created_ms: f64) -> GenerationEntry {
        let api = ApiSettings::new(Endpoint {
            provider: "openai".into(),
            base_url: "http://127.0.0.1:9/v1".into(),
            model: "gpt-test".into(),
        });
        GenerationEntry::new(
            created_ms,
            api,
            None,
            vec!["str.split".into(), "list.append".into()],
            2,
            7,
            PromptTemplate::default(),
            default_pool(),
        )
        .expect("the default plan makes prompts")
    }

    pub async fn check(store: &impl GenerationStore) {
        assert!(store.generations().await.unwrap().is_empty(), "a new store is empty");
        let (mut a, b) = (entry(1_000.0), entry(2_000.0));
        assert_eq!(a.total, 4);
        store.save_generation(&a).await.unwrap();
        store.save_generation(&b).await.unwrap();
        assert_eq!(store.generations().await.unwrap(), vec![b.clone(), a.clone()], "newest first");
        assert!(store.generation_rows(&a.id).await.unwrap().is_empty());

        // A failed request, then its answer: the later row replaces the earlier, and the entry
        // written with it says so.
        let first = a.requests().unwrap()[0].clone();
        let failed = GenerationRow::failed(&first.id, &first.method, "HTTP 500");
        let mut rows = vec![failed.clone()];
        a.count(&rows);
        store.put_generation_row(&a, &failed).await.unwrap();
        assert_eq!(store.generations().await.unwrap()[1].failed, 1);
        let answered = GenerationRow {
            prompt_tokens: Some(10),
            completion_tokens: Some(5),
            ..GenerationRow::answered(&first.id, &first.method, "def f(x):\n    return x")
        };
        rows.push(answered.clone());
        a.count(&rows);
        store.put_generation_row(&a, &answered).await.unwrap();
        assert_eq!(
            store.generation_rows(&a.id).await.unwrap(),
            vec![answered.clone()],
            "one row per request, the latest"
        );
        let kept = store.generations().await.unwrap()[1].clone();
        assert_eq!((kept.answered, kept.failed, kept.usage.prompt_tokens, kept.usage.completion_tokens), (1, 0, 10, 5));

        // A row with characters JSON escapes comes back exactly.
        let second = a.requests().unwrap()[1].clone();
        let odd =
            GenerationRow::answered(&second.id, &second.method, "def f(s):\n    return s + \"\\u00e9\\t\" + 'ü'\n");
        store.put_generation_row(&a, &odd).await.unwrap();
        let back = store.generation_rows(&a.id).await.unwrap();
        assert!(back.contains(&odd) && back.len() == 2, "{back:?}");

        let stopped = GenerationEntry { state: GenerationState::Stopped, note: Some("stopped".into()), ..a.clone() };
        store.save_generation(&stopped).await.unwrap();
        assert_eq!(store.generations().await.unwrap()[1], stopped);
        assert_eq!(store.generation_rows(&a.id).await.unwrap().len(), 2, "saving the entry keeps the rows");

        assert_eq!(store.generation_rows("gen-missing").await.unwrap_err().kind, StoreErrorKind::NotFound);
        store.delete_generation(&a.id).await.unwrap();
        store.delete_generation(&a.id).await.unwrap();
        assert_eq!(store.generations().await.unwrap(), vec![b.clone()]);
        assert_eq!(
            store.generation_rows(&a.id).await.unwrap_err().kind,
            StoreErrorKind::NotFound,
            "its rows went with it"
        );
        store.delete_generation(&b.id).await.unwrap();
        assert!(store.generations().await.unwrap().is_empty());
    }
}

/// What to generate.
#[derive(Clone, Debug, Default)]
pub struct GenerationJob {
    pub requests: Vec<GenerationRequest>,
    /// Request ids already answered (a resumed job): not asked again.
    pub done: BTreeSet<String>,
    /// Stop before a request that could take the spending past the cap (as an evaluation does:
    /// each request in flight reserves its worst case, its prompt's bytes in and `max_tokens` out).
    pub spend_cap: Option<SpendCap>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_store_passes_the_table() {
        futures::executor::block_on(conformance::check(&MemoryGenerationStore::new()));
    }

    #[test]
    fn generations_left_running_are_interrupted_at_start() {
        let store = MemoryGenerationStore::new();
        futures::executor::block_on(async {
            let mut running = conformance::entry(0.0);
            running.state = GenerationState::Running;
            store.save_generation(&running).await.unwrap();
            let (entries, problems) = open_generations(&store).await.unwrap();
            assert!(problems.is_empty());
            assert_eq!(entries.iter().map(|e| e.state).collect::<Vec<_>>(), [GenerationState::Interrupted]);
            let stored = store.generations().await.unwrap();
            assert_eq!(stored[0].state, GenerationState::Interrupted, "stored so");
        });
    }

    #[test]
    fn resume_asks_only_what_has_no_response() {
        let entry = conformance::entry(0.0);
        let requests = entry.requests().unwrap();
        let ids: Vec<&str> = requests.iter().map(|r| r.id.as_str()).collect();
        // (rows kept, requests still to ask, responses given back)
        let cases: Vec<(Vec<GenerationRow>, Vec<&str>, usize)> = vec![
            (vec![], ids.clone(), 0),
            (
                vec![GenerationRow::answered(ids[2], &requests[2].method, "no code here")],
                vec![ids[0], ids[1], ids[3]],
                1,
            ),
            // An error is asked again; an error later answered is not.
            (
                vec![
                    GenerationRow::failed(ids[0], &requests[0].method, "HTTP 429"),
                    GenerationRow::failed(ids[1], &requests[1].method, "HTTP 500"),
                    GenerationRow::answered(ids[1], &requests[1].method, "x"),
                ],
                vec![ids[0], ids[2], ids[3]],
                1,
            ),
        ];
        for (rows, todo, answered) in cases {
            let plan = resume_plan(&entry, &rows).unwrap();
            let asked: Vec<&str> =
                plan.job.requests.iter().filter(|r| !plan.job.done.contains(&r.id)).map(|r| r.id.as_str()).collect();
            assert_eq!(asked, todo, "{rows:?}");
            assert_eq!(plan.answered.len(), answered);
            assert_eq!(plan.job.requests, requests, "the same prompts, byte for byte");
        }
    }

    #[test]
    fn kept_responses_give_their_candidates_back_in_request_order() {
        let entry = conformance::entry(0.0);
        let requests = entry.requests().unwrap();
        let response = |code: &str| format!("```python\n{code}\n```\nInputs:\nf('a b')\nf('c')\n");
        let rows = vec![
            GenerationRow::answered(&requests[3].id, &requests[3].method, &response("def f(s):\n    return s.split()")),
            GenerationRow::answered(&requests[0].id, &requests[0].method, &response("def f(s):\n    return s.upper()")),
        ];
        let plan = resume_plan(&entry, &rows).unwrap();
        assert_eq!(
            plan.answered.iter().map(|p| p.request_id.as_str()).collect::<Vec<_>>(),
            [requests[0].id.as_str(), requests[3].id.as_str()]
        );
        assert_eq!(plan.answered.iter().map(|p| p.candidates.len()).collect::<Vec<_>>(), [2, 2], "{:?}", plan.answered);
        assert_eq!(
            plan.rows.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
            [requests[0].id.as_str(), requests[3].id.as_str()]
        );
    }

    #[test]
    fn a_row_the_plan_does_not_make_is_refused_by_name() {
        let entry = conformance::entry(0.0);
        let err = resume_plan(&entry, &[GenerationRow::answered("dict.get-9", "dict.get", "x")]).unwrap_err();
        assert!(err.contains("dict.get-9") && err.contains(&entry.id), "{err}");
    }

    #[test]
    fn counts_and_labels() {
        let mut entry = conformance::entry(0.0);
        let r = entry.requests().unwrap();
        entry.count(&[
            GenerationRow::answered(&r[0].id, &r[0].method, "a"),
            GenerationRow::failed(&r[1].id, &r[1].method, "e"),
        ]);
        assert_eq!(entry.label(), "gpt-test (openai): 1 of 4 responses, 1 failed, running");
        assert!(entry.unfinished());
        entry.state = GenerationState::Interrupted;
        entry.count(&r.iter().map(|q| GenerationRow::answered(&q.id, &q.method, "a")).collect::<Vec<_>>());
        assert_eq!(entry.label(), "gpt-test (openai): 4 of 4 responses, interrupted");
        assert!(!entry.unfinished());
    }
}
