//! `execbench batch list|cancel RUN.jsonl`: a batch run's batches as its run file keeps them, and
//! cancelling the ones still running. Cancel sends the key only where the flags say, and only when
//! they name the run's own provider and origin (a run file edited to point elsewhere gets no key).

use execbench_run::api::ApiModel;
use execbench_run::batch;
use execbench_run::manifest::RunEntry;
use execbench_run::runfile::read_run_file;
use execbench_run::store::RunStore;

use crate::api_args::{ApiFlags, api_key, api_options};
use crate::http::NativeHttp;
use crate::store::JsonlRunStore;

#[derive(clap::Subcommand, Debug)]
// One command per process: the size difference costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
pub enum BatchCommand {
    /// The run's batches: id, state, requests done; no request is sent
    List {
        /// The run file
        #[arg(value_name = "RUN.jsonl")]
        file: String,
    },
    /// Cancel the run's batches that are still running (what finished is collected by --resume)
    Cancel(CancelArgs),
}

#[derive(clap::Args, Debug)]
pub struct CancelArgs {
    /// The run file
    #[arg(value_name = "RUN.jsonl")]
    file: String,
    /// The run's provider (as given to `execbench run`)
    #[arg(long, value_name = "P")]
    provider: String,
    #[command(flatten)]
    pub api: ApiFlags,
}

impl BatchCommand {
    pub fn word(&self) -> &'static str {
        match self {
            BatchCommand::List { .. } => "list",
            BatchCommand::Cancel(_) => "cancel",
        }
    }
}

fn read(file: &str) -> Result<(RunEntry, String), String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    let run = read_run_file(file, &text)?;
    let mut entry = RunEntry::new(run.manifest, 0.0);
    if let Some(state) = run.state {
        (entry.state, entry.note, entry.updated_ms, entry.active_ms) =
            (state.state, state.note, state.updated_ms, state.active_ms);
        entry.requests = state.requests;
        entry.batches = state.batches;
    }
    entry.tally = execbench_run::manifest::Tally::of(&run.records.into_values().collect::<Vec<_>>());
    let id = entry.manifest.run_id.clone();
    Ok((entry, id))
}

pub fn run(command: BatchCommand) -> Result<i32, String> {
    match command {
        BatchCommand::List { file } => {
            let (entry, _) = read(&file)?;
            if entry.batches.is_empty() {
                println!("{file}: no batches (a live run)");
                return Ok(0);
            }
            for b in &entry.batches {
                println!("{}", b.describe());
            }
            Ok(0)
        }
        BatchCommand::Cancel(args) => {
            // It writes the run file: never beside a process that drives the same run.
            let _lock = match crate::runlock::lock_run_file(std::path::Path::new(&args.file)) {
                Ok(lock) => lock,
                Err(message) => {
                    eprintln!("{message}");
                    return Ok(2);
                }
            };
            let (mut entry, run_id) = read(&args.file)?;
            let options = api_options(&args.api, &args.provider, &[])?;
            if let Some(conflict) =
                execbench_run::plan::endpoint_conflict(entry.manifest.api.as_ref(), Some(&options.api))
            {
                return Err(format!("cannot cancel the batches of {}: {conflict}", args.file));
            }
            let model = ApiModel { settings: options.api, key: api_key(&options.key)? };
            let http = NativeHttp::new()?;
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start the async runtime: {e}"))?;
            let said = runtime.block_on(batch::cancel_batches(&http, &model, &mut entry.batches));
            let mut failed = false;
            for line in said {
                match line {
                    Ok(batch) => println!("cancelled: {batch}"),
                    Err(problem) => {
                        eprintln!("{problem}");
                        failed = true;
                    }
                }
            }
            let store = JsonlRunStore::in_dir(".");
            store.bind(&run_id, &args.file);
            runtime.block_on(store.save_entry(&entry)).map_err(|e| format!("cannot write {}: {e}", args.file))?;
            println!("{}: run execbench run --resume to collect what finished", args.file);
            Ok(if failed { 3 } else { 0 })
        }
    }
}
