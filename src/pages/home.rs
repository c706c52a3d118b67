//! The first screen, shown for the bare address: what execbench is, and three ways in.

use leptos::prelude::*;

use crate::route::Route;

/// One way in: where it leads, its title, and what the user will do there.
struct Start {
    route: Route,
    title: &'static str,
    text: &'static str,
    testid: &'static str,
}

const STARTS: [Start; 3] = [
    Start {
        route: Route::datasets(),
        title: "Browse and run samples",
        text: "Search CRUXEval's 800 programs or import your own JSONL, open one, read it highlighted and run it.",
        testid: "home-start-datasets",
    },
    Start {
        route: Route::Perturb,
        title: "Perturb a sample",
        text: "Rename variables, rewrite conditions, add dead code or misleading comments, and check by running both versions that the answer did not change.",
        testid: "home-start-perturb",
    },
    Start {
        route: Route::evaluate(),
        title: "Evaluate a model",
        text: "Ask a model API with your own key, or an offline baseline, to predict outputs; score the answers strictly or as CRUXEval does, with pass@k.",
        testid: "home-start-evaluate",
    },
];

/// Every page with a line on what it is for: the in-app guide.
const PAGES: [(Route, &str, &str); 9] = [
    (Route::datasets(), "Datasets", "the sample list: search, filters, import"),
    (Route::Playground, "Playground", "any Python program and expression, run in the sandbox"),
    (Route::Verify, "Verify dataset", "runs every sample and lists the ones whose expected output is wrong"),
    (
        Route::Perturb,
        "Perturb",
        "one program side by side with its perturbed form, or a whole dataset by kinds and seeds",
    ),
    (
        Route::Questions,
        "Questions",
        "beyond the output: does a line run, what a variable holds, which line runs next, from each traced run",
    ),
    (Route::evaluate(), "Evaluate", "prompts, models, scoring, exports"),
    (Route::Runs, "Runs", "every evaluation kept in this browser: resume, extend, export, delete"),
    (Route::Build, "Build", "a new benchmark as CRUXEval was made: generate, filter, sample, export"),
    (
        Route::Compare,
        "Compare",
        "runs side by side: pass@1 with intervals, the drop under each perturbation, flipped samples",
    ),
];

#[component]
pub fn HomePage() -> impl IntoView {
    view! {
        <section class="home" data-testid="home">
            <h1>"Test how well models reason about code"</h1>
            <p class="lead">
                "execbench asks whether a model can predict what a Python program does: given a function and its input, what comes out? "
                "Everything runs in this tab (Python in a background worker, your data and keys stay in the browser), "
                "so you can run a benchmark's samples, perturb them to see whether a model's answer survives the change, and score models on them."
            </p>
            <nav class="starts" aria-label="Where to start">
                {STARTS.iter().map(|s| view! {
                    <a class="start" href=s.route.href() data-testid=s.testid>
                        <span class="start-title">{s.title}</span>
                        <span class="start-text">{s.text}</span>
                    </a>
                }).collect_view()}
            </nav>
            <h2>"The pages"</h2>
            <ul class="page-tour" data-testid="home-docs">
                {PAGES.iter().map(|(route, name, what)| view! {
                    <li><a href=route.href()>{*name}</a>{format!(": {what}.")}</li>
                }).collect_view()}
            </ul>
            <p class="muted">
                "The project's README links a page of docs for each page here, the command line (the same engine without a browser) and the mock model server for trying models without a key; "
                "ARCHITECTURE.md explains how the pieces fit together."
            </p>
        </section>
    }
}
