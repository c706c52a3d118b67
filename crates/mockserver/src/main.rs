//! `execbench-mock-server`: the mock model server on 127.0.0.1, until killed.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use execbench_mockserver::{Cors, MockConfig, MockServer, bundled_dataset_path, load_dataset};

/// The mock model server on 127.0.0.1 (OpenAI, Anthropic and Gemini wire formats), until killed.
#[derive(Parser, Debug, Default, PartialEq)]
#[command(name = "execbench-mock-server", version)]
struct Args {
    /// The port on 127.0.0.1 (0: any free one) [default: 8000]
    #[arg(long)]
    port: Option<u16>,
    /// The dataset the answers come from [default: the bundled CRUXEval]
    #[arg(long, value_name = "FILE.jsonl")]
    dataset: Option<PathBuf>,
    /// A mock configuration (faults, latency, answers, ...), as JSON
    #[arg(long, value_name = "mock.json")]
    config: Option<PathBuf>,
    /// Delay before each answer, in milliseconds
    #[arg(long, value_name = "N")]
    latency_ms: Option<u64>,
    /// Every K-th answer is wrong
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    wrong_every: Option<u32>,
    /// Which origins may call it from a page: loopback, all, none, or a comma-separated list [default: loopback]
    #[arg(long, value_name = "loopback|all|none|ORIGIN,ORIGIN", value_parser = parse_cors)]
    cors: Option<Cors>,
    /// The key requests must carry (a test key: this server is for tests)
    #[arg(long, value_name = "KEY")]
    api_key: Option<String>,
    /// The model names it answers to, comma-separated [default: any]
    #[arg(long, value_name = "NAME,NAME", value_delimiter = ',')]
    models: Option<Vec<String>>,
}

fn parse_cors(value: &str) -> Result<Cors, String> {
    Ok(match value {
        "loopback" => Cors::Loopback,
        "all" => Cors::AllowAll,
        "none" => Cors::None,
        list => {
            let origins: Vec<String> =
                list.split(',').map(str::trim).filter(|o| !o.is_empty()).map(str::to_string).collect();
            if origins.is_empty() || origins.iter().any(|o| !o.contains("://")) {
                return Err(
                    "expected loopback, all, none or a comma-separated list of origins like http://127.0.0.1:8080"
                        .to_string(),
                );
            }
            Cors::Origins(origins)
        }
    })
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
        config.models = Some(models.iter().map(|m| m.trim()).filter(|m| !m.is_empty()).map(str::to_string).collect());
    }
    Ok(config)
}

#[tokio::main]
async fn main() -> ExitCode {
    // Help and --version exit 0; a bad flag exits 2 with clap's message naming it.
    let args = Args::parse();
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
    use clap::CommandFactory;
    use clap::error::ErrorKind;

    use super::*;

    fn parse_args(args: &[&str]) -> Result<Args, clap::Error> {
        Args::try_parse_from([&["execbench-mock-server"][..], args].concat())
    }

    #[test]
    fn parses_flags() {
        Args::command().debug_assert();
        let args = parse_args(&[
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
        ])
        .unwrap();
        assert_eq!(args.port, Some(0));
        assert_eq!(args.latency_ms, Some(20));
        assert_eq!(args.cors, Some(Cors::Origins(vec!["http://a:1".into(), "http://b:2".into()])));
        let config = config_of(&args).unwrap();
        assert_eq!(
            (config.answers.wrong_every, config.api_key.as_deref(), config.models.map(|m| m.len())),
            (Some(4), Some("k"), Some(2))
        );
        assert_eq!(parse_args(&["--cors", "none"]).unwrap().cors, Some(Cors::None));
        assert_eq!(parse_args(&["--cors", "all"]).unwrap().cors, Some(Cors::AllowAll));
        assert_eq!(parse_args(&["--cors", "loopback"]).unwrap().cors, Some(Cors::Loopback));
        assert_eq!(config_of(&parse_args(&[]).unwrap()).unwrap().cors, Cors::Loopback, "the default");
    }

    /// (arguments, what clap says is wrong, the flag it names)
    #[test]
    fn usage_errors_name_the_flag() {
        let cases: [(&[&str], ErrorKind, &str); 6] = [
            (&["--port", "x"], ErrorKind::ValueValidation, "--port"),
            (&["--port", "70000"], ErrorKind::ValueValidation, "--port"),
            (&["--latency-ms"], ErrorKind::InvalidValue, "--latency-ms"),
            (&["--cors", "sometimes"], ErrorKind::ValueValidation, "--cors"),
            (&["--frobnicate"], ErrorKind::UnknownArgument, "--frobnicate"),
            (&["--wrong-every", "-1"], ErrorKind::ValueValidation, "--wrong-every"),
        ];
        for (args, kind, flag) in cases {
            let error = parse_args(args).unwrap_err();
            assert_eq!(error.kind(), kind, "{args:?}: {error}");
            assert!(error.to_string().contains(flag), "{args:?}: {error}");
            assert_eq!(error.exit_code(), 2, "{args:?}");
        }
        let cors = parse_args(&["--cors", "sometimes"]).unwrap_err().to_string();
        assert!(cors.contains("expected loopback, all, none"), "{cors}");
    }
}
