//! `execbench-mock-server`: the mock model server on 127.0.0.1, until killed.

use std::path::PathBuf;
use std::process::ExitCode;

use execbench_mockserver::{Cors, MockConfig, MockServer, bundled_dataset_path, load_dataset};

const USAGE: &str = "usage: execbench-mock-server [--port 8000] [--dataset FILE.jsonl] [--config mock.json] [--latency-ms N] [--wrong-every K] [--cors loopback|all|none|ORIGIN,ORIGIN] [--api-key KEY] [--models NAME,NAME]";

#[derive(Debug, Default, PartialEq)]
struct Args {
    port: Option<u16>,
    dataset: Option<PathBuf>,
    config: Option<PathBuf>,
    latency_ms: Option<u64>,
    wrong_every: Option<u32>,
    cors: Option<Cors>,
    api_key: Option<String>,
    models: Option<Vec<String>>,
    help: bool,
}

fn parse_args(args: &[String]) -> Result<Args, String> {
    let mut parsed = Args::default();
    let mut iter = args.iter();
    while let Some(flag) = iter.next() {
        if flag == "-h" || flag == "--help" {
            parsed.help = true;
            continue;
        }
        let (name, inline) = match flag.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, Some(value.to_string())),
            _ => (flag.as_str(), None),
        };
        let known =
            ["--port", "--dataset", "--config", "--latency-ms", "--wrong-every", "--cors", "--api-key", "--models"];
        if !known.contains(&name) {
            return Err(format!("unknown argument `{flag}`"));
        }
        let value = match inline {
            Some(v) => v,
            None => iter.next().cloned().ok_or_else(|| format!("{name} needs a value"))?,
        };
        let number = |what: &str| format!("{name} needs {what}, not `{value}`");
        match name {
            "--port" => parsed.port = Some(value.parse().map_err(|_| number("a port number (0 to 65535)"))?),
            "--dataset" => parsed.dataset = Some(PathBuf::from(&value)),
            "--config" => parsed.config = Some(PathBuf::from(&value)),
            "--latency-ms" => {
                parsed.latency_ms = Some(value.parse().map_err(|_| number("a whole number of milliseconds"))?)
            }
            "--wrong-every" => parsed.wrong_every = Some(value.parse().map_err(|_| number("a whole number"))?),
            "--cors" => {
                parsed.cors = Some(match value.as_str() {
                    "loopback" => Cors::Loopback,
                    "all" => Cors::AllowAll,
                    "none" => Cors::None,
                    list => {
                        let origins: Vec<String> =
                            list.split(',').map(str::trim).filter(|o| !o.is_empty()).map(str::to_string).collect();
                        if origins.is_empty() || origins.iter().any(|o| !o.contains("://")) {
                            return Err(format!(
                                "--cors needs loopback, all, none or a comma-separated list of origins like http://127.0.0.1:8080, not `{value}`"
                            ));
                        }
                        Cors::Origins(origins)
                    }
                })
            }
            "--api-key" => parsed.api_key = Some(value),
            _ => {
                parsed.models =
                    Some(value.split(',').map(str::trim).filter(|m| !m.is_empty()).map(str::to_string).collect())
            }
        }
    }
    Ok(parsed)
}

fn config_of(args: &Args) -> Result<MockConfig, String> {
    let mut config = match &args.config {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("--config {}: {e}", path.display()))?;
            serde_json::from_str(&text)
                .map_err(|e| format!("--config {}: not a mock configuration: {e}", path.display()))?
        }
        None => MockConfig::default(),
    };
    if let Some(latency) = args.latency_ms {
        config.latency_ms = latency;
    }
    if let Some(k) = args.wrong_every {
        config.answers.wrong_every = Some(k);
    }
    if let Some(cors) = &args.cors {
        config.cors = cors.clone();
    }
    if let Some(key) = &args.api_key {
        config.api_key = Some(key.clone());
    }
    if let Some(models) = &args.models {
        config.models = Some(models.clone());
    }
    Ok(config)
}

#[tokio::main]
async fn main() -> ExitCode {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let args = match parse_args(&raw) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("execbench-mock-server: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if args.help {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let config = match config_of(&args) {
        Ok(config) => config,
        Err(message) => {
            eprintln!("execbench-mock-server: {message}");
            return ExitCode::from(2);
        }
    };
    let path = args.dataset.clone().unwrap_or_else(bundled_dataset_path);
    let dataset = match load_dataset(&path) {
        Ok(dataset) => dataset,
        Err(e) => {
            eprintln!("execbench-mock-server: --dataset {}: {e}", path.display());
            return ExitCode::from(2);
        }
    };
    let server = match MockServer::start(dataset, config, args.port.unwrap_or(8000)).await {
        Ok(server) => server,
        Err(e) => {
            eprintln!("execbench-mock-server: cannot listen on 127.0.0.1:{}: {e}", args.port.unwrap_or(8000));
            return ExitCode::FAILURE;
        }
    };
    println!("mock model server on {} (OpenAI: /v1, Anthropic: /v1/messages, Gemini: /v1beta)", server.base_url());
    std::future::pending::<()>().await;
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_flags() {
        let args = parse_args(&strings(&[
            "--port",
            "0",
            "--latency-ms=20",
            "--wrong-every",
            "4",
            "--cors",
            "http://a:1,http://b:2",
            "--api-key",
            "k",
            "--models",
            "m1,m2",
        ]))
        .unwrap();
        assert_eq!(args.port, Some(0));
        assert_eq!(args.latency_ms, Some(20));
        assert_eq!(args.cors, Some(Cors::Origins(vec!["http://a:1".into(), "http://b:2".into()])));
        let config = config_of(&args).unwrap();
        assert_eq!(
            (config.answers.wrong_every, config.api_key.as_deref(), config.models.map(|m| m.len())),
            (Some(4), Some("k"), Some(2))
        );
        assert_eq!(parse_args(&strings(&["--cors", "none"])).unwrap().cors, Some(Cors::None));
        assert_eq!(parse_args(&strings(&["--cors", "all"])).unwrap().cors, Some(Cors::AllowAll));
        assert_eq!(parse_args(&strings(&["--cors", "loopback"])).unwrap().cors, Some(Cors::Loopback));
        assert_eq!(config_of(&parse_args(&[]).unwrap()).unwrap().cors, Cors::Loopback, "the default");
    }

    /// (arguments, fragment of the error)
    #[test]
    fn usage_errors_name_the_flag() {
        let cases: [(&[&str], &str); 6] = [
            (&["--port", "x"], "--port needs a port number"),
            (&["--port", "70000"], "--port"),
            (&["--latency-ms"], "--latency-ms needs a value"),
            (&["--cors", "sometimes"], "--cors needs loopback, all, none"),
            (&["--frobnicate"], "unknown argument `--frobnicate`"),
            (&["--wrong-every", "-1"], "--wrong-every needs a whole number"),
        ];
        for (args, fragment) in cases {
            let error = parse_args(&strings(args)).unwrap_err();
            assert!(error.contains(fragment), "{args:?}: {error}");
        }
    }
}
