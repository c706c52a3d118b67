//! A stored run whose records are not all there: the run's entry counts N records, the records
//! store holds fewer (the browser cleared part of its storage, or another program deleted them).
//! The figures of such a run would be wrong, so it is described plainly instead.

/// What the records actually stored say about a run's entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordsCheck {
    /// As many records as the entry counts (or more: records written since it was read).
    Whole,
    /// `missing` of the `counted` records the entry counts are gone.
    Missing { missing: usize, counted: usize },
}

impl RecordsCheck {
    /// `counted`: the records the run's entry counts; `found`: the records the store holds.
    pub fn of(counted: usize, found: usize) -> RecordsCheck {
        if found >= counted { RecordsCheck::Whole } else { RecordsCheck::Missing { missing: counted - found, counted } }
    }

    /// What the page and the list say, where something is missing.
    pub fn message(self) -> Option<String> {
        match self {
            RecordsCheck::Whole => None,
            RecordsCheck::Missing { missing, counted } if missing == counted => Some(format!(
                "records missing: {missing} of {counted} — the browser may have cleared storage; this run's figures are not shown"
            )),
            RecordsCheck::Missing { missing, counted } => Some(format!(
                "records missing: {missing} of {counted} — the browser may have cleared storage; the figures shown count only the {} left",
                counted - missing
            )),
        }
    }

    pub fn is_whole(self) -> bool {
        self == RecordsCheck::Whole
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_with_records_gone_says_how_many() {
        // (records the entry counts, records found, message contains, or None)
        let cases = [
            (0, 0, None),
            (10, 10, None),
            (10, 12, None),
            (
                10,
                0,
                Some(
                    "records missing: 10 of 10 — the browser may have cleared storage; this run's figures are not shown",
                ),
            ),
            (
                10,
                7,
                Some(
                    "records missing: 3 of 10 — the browser may have cleared storage; the figures shown count only the 7 left",
                ),
            ),
            (1, 0, Some("records missing: 1 of 1")),
        ];
        for (counted, found, want) in cases {
            let check = RecordsCheck::of(counted, found);
            match want {
                None => assert!(check.is_whole() && check.message().is_none(), "{counted}/{found}: {check:?}"),
                Some(text) => {
                    let said = check.message().unwrap_or_default();
                    assert!(said.starts_with(text), "{counted}/{found}: {said}");
                }
            }
        }
    }
}
