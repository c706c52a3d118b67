//! Generated addresses for the page's hash routes (`src/route.rs`): every route written as an
//! address reads back as the same route; any text after `#` reads as some route (the dataset list
//! when it names no page) without a panic, and that route written and read again is itself; the
//! same for Perturb links. `route.rs` is the app's own file, compiled here natively (its browser
//! calls are never made).

#[allow(dead_code)]
#[path = "../../src/route.rs"]
mod route;

use execbench_core::sample::OutputKind;
use execbench_eval::Mode;
use execbench_perturb::{Kind, Options, Prediction, Profile};
use proptest::prelude::*;
use route::{EvaluateQuery, ListQuery, PerturbLink, Route, RowFilter};

/// The cases of a property: `ci` in CI, times `EXECBENCH_FUZZ_SCALE` on demand (scripts/fuzz.sh).
fn cases(ci: u32) -> ProptestConfig {
    let scale: u32 = std::env::var("EXECBENCH_FUZZ_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    ProptestConfig::with_cases(ci.saturating_mul(scale))
}

/// Text as ids, searches and claims come: any characters, with the address's own (`# / ? & = + %`)
/// and spaces made frequent.
fn text(min: usize, max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            3 => proptest::char::any(),
            2 => proptest::sample::select(vec!['#', '/', '?', '&', '=', '+', '%', ' ', '.', '~', '\'']),
            2 => proptest::char::range('a', 'z'),
        ],
        min..=max,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

fn list_query() -> impl Strategy<Value = ListQuery> {
    (text(0, 12), proptest::option::of(proptest::sample::select(OutputKind::ALL.to_vec())))
        .prop_map(|(q, kind)| ListQuery { q, kind })
}

fn evaluate_query() -> impl Strategy<Value = EvaluateQuery> {
    (
        proptest::option::of(text(1, 12)),
        proptest::option::of(proptest::sample::select(Mode::ALL.to_vec())),
        proptest::option::of(proptest::sample::select(RowFilter::ALL.to_vec())),
    )
        .prop_map(|(run, mode, filter)| EvaluateQuery { run, mode, filter })
}

/// Every route the page can be on (ids are never empty: the page makes none).
fn any_route() -> impl Strategy<Value = Route> {
    prop_oneof![
        Just(Route::Home),
        list_query().prop_map(Route::Datasets),
        (text(1, 12), list_query()).prop_map(|(id, q)| Route::Sample(id, q)),
        Just(Route::Playground),
        Just(Route::Verify),
        Just(Route::Perturb),
        Just(Route::Questions),
        evaluate_query().prop_map(Route::Evaluate),
        Just(Route::Runs),
        text(1, 12).prop_map(Route::Run),
        Just(Route::Build),
        Just(Route::Compare),
    ]
}

/// Addresses as typed, pasted or cut short: page names (known, misspelt, any case), a path, a
/// query of known and unknown keys with any values, `%` escapes good and bad.
fn any_hash() -> impl Strategy<Value = String> {
    let page = prop_oneof![
        proptest::sample::select(vec![
            "",
            "home",
            "datasets",
            "sample",
            "playground",
            "verify",
            "perturb",
            "evaluate",
            "runs",
            "build",
            "compare",
            "Sample",
            "runs/",
            "perturbation",
        ])
        .prop_map(String::from),
        text(0, 8),
    ];
    let key = proptest::sample::select(vec![
        "q",
        "kind",
        "run",
        "mode",
        "filter",
        "seed",
        "p",
        "once",
        "prediction",
        "profile",
        "claim",
        "x",
        "",
    ]);
    let value = prop_oneof![
        text(0, 8),
        proptest::sample::select(vec![
            "list",
            "None",
            "strict",
            "compatible",
            "wrong",
            "MHC",
            "mcc",
            "psc-all",
            "0.5",
            "-0",
            "NaN",
            "1e-400",
            "18446744073709551616",
            "input",
            "codecrash",
            "%",
            "%zz",
            "%C3",
            "%C3%A9",
            "1",
        ])
        .prop_map(String::from),
    ];
    (
        proptest::sample::select(vec!["", "#", "#/", "/", "##/"]),
        page,
        proptest::option::of(text(0, 10)),
        proptest::option::of(proptest::collection::vec((key, value), 0..5)),
    )
        .prop_map(|(lead, page, path, query)| {
            let mut hash = format!("{lead}{page}");
            if let Some(path) = path {
                hash.push('/');
                hash.push_str(&path);
            }
            if let Some(pairs) = query {
                hash.push('?');
                let pairs: Vec<String> = pairs.into_iter().map(|(k, v)| format!("{k}={v}")).collect();
                hash.push_str(&pairs.join("&"));
            }
            hash
        })
}

/// A Perturb link as the page makes one: options only where the kind uses them, a claim only for
/// MHC.
fn perturb_link() -> impl Strategy<Value = PerturbLink> {
    (
        proptest::option::of(text(1, 12)),
        proptest::sample::select(Kind::ALL.to_vec()),
        any::<u64>(),
        prop_oneof![Just(1.0f64), Just(0.0), 0.0..=1.0f64],
        any::<bool>(),
        any::<bool>(),
        proptest::sample::select(Profile::ALL.to_vec()),
        proptest::option::of(text(1, 12).prop_filter("a claim has words", |c| !c.trim().is_empty())),
    )
        .prop_map(|(sample, kind, seed, p, once, input, profile, claim)| {
            let messages = kind.uses_p_and_once();
            let mhc = kind == Kind::Mhc;
            let defaults = Options::default();
            PerturbLink {
                sample,
                kind,
                options: Options {
                    seed,
                    p: if messages { p } else { defaults.p },
                    once: messages && once,
                    prediction: if mhc && input { Prediction::Input } else { Prediction::Output },
                    profile,
                },
                claim: claim.filter(|_| mhc),
            }
        })
}

proptest! {
    #![proptest_config(cases(1024))]

    /// A route written as an address reads back as the same route.
    #[test]
    fn a_route_written_and_read_is_the_same_route(route in any_route()) {
        let href = route.href();
        prop_assert!(href.starts_with("#/"), "{href:?}");
        prop_assert_eq!(Route::parse(&href), route, "{:?}", href);
    }

    /// Any address is some route, the dataset list when its first part names no page, and that
    /// route's own address reads back as it (so a reload or Back shows the same page).
    #[test]
    fn any_address_is_a_route_that_reads_back(hash in any_hash()) {
        let route = Route::parse(&hash);
        let page = hash.trim_start_matches('#').trim_start_matches('/').split(['/', '?']).next().unwrap_or("").to_string();
        let known = ["", "home", "datasets", "sample", "playground", "verify", "perturb", "evaluate", "runs", "build", "compare"];
        if !known.contains(&page.as_str()) {
            prop_assert_eq!(&route, &Route::datasets(), "{:?}", hash);
        }
        prop_assert_eq!(Route::parse(&route.href()), route, "{:?}", hash);
    }

    /// A Perturb link written and read is the same link.
    #[test]
    fn a_perturb_link_written_and_read_is_the_same_link(link in perturb_link()) {
        let href = link.href();
        prop_assert_eq!(PerturbLink::parse(&href), link, "{:?}", href);
    }

    /// Any address read as a Perturb link gives a link whose address reads back as it: what the
    /// address said and the link ignores is dropped once, never changed later.
    #[test]
    fn any_address_is_a_perturb_link_that_reads_back(hash in any_hash(), raw in text(0, 40)) {
        for hash in [hash, raw] {
            let once = PerturbLink::parse(&hash).href();
            let twice = PerturbLink::parse(&once).href();
            prop_assert_eq!(&twice, &once, "{:?}", hash);
            let options = PerturbLink::parse(&hash).options;
            prop_assert!((0.0..=1.0).contains(&options.p), "p {} from {:?}", options.p, hash);
        }
    }

    /// Any text at all (not only address-shaped) reads as a route, and `decode` never fails:
    /// malformed escapes come back as typed.
    #[test]
    fn any_text_is_a_route(raw in text(0, 60)) {
        let route = Route::parse(&raw);
        prop_assert_eq!(Route::parse(&route.href()), route, "{:?}", raw);
        prop_assert_eq!(route::decode(&route::encode(&raw)), raw.clone());
    }
}
