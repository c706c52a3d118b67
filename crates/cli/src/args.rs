//! The checks on flags that several commands share and clap does not make (ranges).

use execbench_core::Limits;

/// `--jobs N`: how many Python worker processes run at once (`python/`); every core by default.
pub fn jobs(flag: Option<usize>) -> Result<usize, String> {
    let jobs = flag.unwrap_or_else(execbench_core::parallel::available_jobs);
    if !(1..=1024).contains(&jobs) {
        return Err(format!("--jobs must be between 1 and 1024, got {jobs}"));
    }
    Ok(jobs)
}

/// `--time-limit SECONDS` as the limits a program runs under.
pub fn time_limit(seconds: f64) -> Result<Limits, String> {
    if !(seconds > 0.0 && seconds <= 3600.0) {
        return Err(format!("--time-limit must be between 0 and 3600 seconds, got {seconds}"));
    }
    Ok(Limits { time_ms: (seconds * 1000.0).round() as u32, max_steps: 0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_checked() {
        assert_eq!(jobs(Some(0)), Err("--jobs must be between 1 and 1024, got 0".to_string()));
        assert_eq!(jobs(Some(1025)), Err("--jobs must be between 1 and 1024, got 1025".to_string()));
        assert_eq!(jobs(Some(3)), Ok(3));
        assert!(jobs(None).unwrap() >= 1);
        assert_eq!(time_limit(0.0), Err("--time-limit must be between 0 and 3600 seconds, got 0".to_string()));
        assert_eq!(
            time_limit(3600.5).err().as_deref(),
            Some("--time-limit must be between 0 and 3600 seconds, got 3600.5")
        );
        assert_eq!(time_limit(0.5), Ok(Limits { time_ms: 500, max_steps: 0 }));
    }
}
