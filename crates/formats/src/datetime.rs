//! Dates and times as the text a JSON row would hold (`2023-08-12T00:00:00`), from the integer
//! encodings of Parquet and Arrow. Written out rather than pulled from a date crate: the only
//! need is the proleptic Gregorian calendar in UTC.

use execbench_core::calendar::civil_from_days;

/// A timestamp's unit: how many of them make a second.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    Seconds,
    Millis,
    Micros,
    Nanos,
}

impl TimeUnit {
    fn per_second(self) -> i64 {
        match self {
            TimeUnit::Seconds => 1,
            TimeUnit::Millis => 1_000,
            TimeUnit::Micros => 1_000_000,
            TimeUnit::Nanos => 1_000_000_000,
        }
    }

    /// Arrow's spelling inside `timestamp[...]` (as the Hugging Face viewer's `dtype` gives it).
    pub fn of_arrow(unit: &str) -> Option<TimeUnit> {
        match unit {
            "s" => Some(TimeUnit::Seconds),
            "ms" => Some(TimeUnit::Millis),
            "us" => Some(TimeUnit::Micros),
            "ns" => Some(TimeUnit::Nanos),
            _ => None,
        }
    }
}

/// `YYYY-MM-DD` of a day counted from 1970-01-01.
pub fn date_text(days: i64) -> String {
    let (year, month, day) = civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02}")
}

/// `YYYY-MM-DDTHH:MM:SS`, with a fraction only when the time has one, of `value` units since
/// 1970-01-01T00:00:00.
pub fn timestamp_text(value: i64, unit: TimeUnit) -> String {
    let per_second = unit.per_second();
    let (seconds, fraction) = (value.div_euclid(per_second), value.rem_euclid(per_second));
    let (days, second_of_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let clock = format!("{:02}:{:02}:{:02}", second_of_day / 3600, second_of_day / 60 % 60, second_of_day % 60);
    let fraction = match fraction {
        0 => String::new(),
        f => {
            let digits = per_second.ilog10() as usize;
            let text = format!("{f:0digits$}");
            format!(".{}", text.trim_end_matches('0'))
        }
    };
    format!("{}T{clock}{fraction}", date_text(days))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected texts worked out by hand from the calendar (leap years, eras, before 1970).
    #[test]
    fn timestamps_and_dates() {
        let cases: &[(i64, TimeUnit, &str)] = &[
            (0, TimeUnit::Seconds, "1970-01-01T00:00:00"),
            (-1, TimeUnit::Seconds, "1969-12-31T23:59:59"),
            // 2023-08-12 is day 19581 (53 years and 13 leap days after 1970, plus 223 days).
            (19_581 * 86_400_000, TimeUnit::Millis, "2023-08-12T00:00:00"),
            (19_581 * 86_400_000_000 + 1_500_000, TimeUnit::Micros, "2023-08-12T00:00:01.5"),
            (19_581 * 86_400_000_000_000 + 3_723_000_000_007, TimeUnit::Nanos, "2023-08-12T01:02:03.000000007"),
            // 2000-02-29: a leap day in a year divisible by 400 (day 11016).
            (11_016 * 86_400, TimeUnit::Seconds, "2000-02-29T00:00:00"),
            (11_017 * 86_400, TimeUnit::Seconds, "2000-03-01T00:00:00"),
            // 1900 is not a leap year: 1900-03-01 is day -25508.
            (-25_508 * 86_400, TimeUnit::Seconds, "1900-03-01T00:00:00"),
            (-25_509 * 86_400, TimeUnit::Seconds, "1900-02-28T00:00:00"),
        ];
        for &(value, unit, text) in cases {
            assert_eq!(timestamp_text(value, unit), text, "{value} {unit:?}");
        }
        assert_eq!(date_text(19_581), "2023-08-12");
    }
}
