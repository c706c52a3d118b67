//! A small flag parser: `--name value`, `--name=value` and bare `--switch`, nothing more.

use std::collections::BTreeMap;

pub struct Args {
    values: BTreeMap<String, String>,
    switches: Vec<String>,
}

impl Args {
    /// `switches` names the flags that take no value.
    pub fn parse(raw: &[String], switches: &[&str]) -> Result<Args, String> {
        let mut values = BTreeMap::new();
        let mut seen_switches = Vec::new();
        let mut iter = raw.iter();
        while let Some(arg) = iter.next() {
            let Some(flag) = arg.strip_prefix("--") else {
                return Err(format!("unexpected argument `{arg}` (flags start with --)"));
            };
            if let Some((name, value)) = flag.split_once('=') {
                values.insert(name.to_string(), value.to_string());
            } else if switches.contains(&flag) {
                seen_switches.push(flag.to_string());
            } else {
                let value = iter.next().ok_or(format!("--{flag} needs a value"))?;
                values.insert(flag.to_string(), value.clone());
            }
        }
        Ok(Args { values, switches: seen_switches })
    }

    pub fn required(&self, name: &str) -> Result<&str, String> {
        self.values.get(name).map(String::as_str).ok_or(format!("--{name} is required"))
    }

    pub fn optional(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    pub fn number<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, String> {
        match self.values.get(name) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| format!("--{name} expects a number, got `{v}`")),
        }
    }

    /// `--jobs N`: how many Python worker processes run at once (`python/`); every core by
    /// default.
    pub fn jobs(&self) -> Result<usize, String> {
        let jobs: usize = self.number("jobs", execbench_core::parallel::available_jobs())?;
        if !(1..=1024).contains(&jobs) {
            return Err(format!("--jobs must be between 1 and 1024, got {jobs}"));
        }
        Ok(jobs)
    }

    pub fn switch(&self, name: &str) -> bool {
        self.switches.iter().any(|s| s == name)
    }

    /// Parses string literals (the subcommands' tests); panics on bad flags.
    #[cfg(test)]
    pub fn of(raw: &[&str], switches: &[&str]) -> Args {
        let raw: Vec<String> = raw.iter().map(|s| s.to_string()).collect();
        Args::parse(&raw, switches).expect("flags parse")
    }

    /// Flags given that the command does not know.
    pub fn reject_unknown(&self, known: &[&str]) -> Result<(), String> {
        match self.values.keys().chain(self.switches.iter()).find(|k| !known.contains(&k.as_str())) {
            Some(k) => Err(format!("unknown flag --{k}")),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn flags_values_and_switches() {
        let a = Args::parse(&strings(&["--dataset", "d.jsonl", "--seed=3", "--once"]), &["once"]).unwrap();
        assert_eq!(a.required("dataset"), Ok("d.jsonl"));
        assert_eq!(a.number("seed", 0u64), Ok(3));
        assert!(a.switch("once"));
        assert_eq!(a.required("out"), Err("--out is required".to_string()));
        assert_eq!(a.reject_unknown(&["dataset", "seed"]), Err("unknown flag --once".to_string()));
    }

    #[test]
    fn errors() {
        let cases: &[(&[&str], &str)] =
            &[(&["x"], "unexpected argument `x` (flags start with --)"), (&["--dataset"], "--dataset needs a value")];
        for (raw, message) in cases {
            assert_eq!(Args::parse(&strings(raw), &[]).err().as_deref(), Some(*message));
        }
        let a = Args::parse(&strings(&["--time-limit", "fast"]), &[]).unwrap();
        assert_eq!(a.number("time-limit", 2.0f64), Err("--time-limit expects a number, got `fast`".to_string()));
        let jobs = |raw: &[&str]| Args::parse(&strings(raw), &[]).unwrap().jobs();
        assert_eq!(jobs(&["--jobs", "0"]), Err("--jobs must be between 1 and 1024, got 0".to_string()));
        assert_eq!(jobs(&["--jobs", "many"]), Err("--jobs expects a number, got `many`".to_string()));
        assert_eq!(jobs(&["--jobs", "3"]), Ok(3));
        assert!(jobs(&[]).unwrap() >= 1);
    }
}
