//! The Perturb view: perturb one program and see both versions side by side, run in the
//! worker (`single`); or perturb a whole dataset (kinds x seeds), verify every result in the
//! worker, and download the verified rows (`dataset`). The work is `execbench_dataset_jobs::perturbation`'s:
//! `perturb_one` for one program, the dataset job `crate::jobs::PerturbRun` for a dataset. The
//! view's address is `crate::route::PerturbLink`.

mod dataset;
mod shared;
mod single;

use leptos::prelude::*;

use dataset::WholeDataset;
use single::OneProgram;

#[component]
pub fn PerturbPage() -> impl IntoView {
    view! {
        <section class="page perturb">
            <h1>"Perturb"</h1>
            <p class="muted">
                "CodeCrash-style perturbations: the program changes, its result must not. REN renames, RTF rewrites conditions, GBC adds dead code, PSC_ALL does all three, MCC and MPS add misleading comments and prints, MHC a wrong hint. Each result is run in the worker and must return what the original returns."
            </p>
            <OneProgram />
            <WholeDataset />
        </section>
    }
}
