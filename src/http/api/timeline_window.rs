//! A timeline's page: the rows within a time range (`from`, `to`), at most
//! [`PAGE_ROWS`] of them (`page`, from 1). A host's timeline can hold thousands of rows
//! from midnight on, while the failure is at 09:41: the API and the page show one slice
//! and say how many there are (`x-total-count`).

use crate::correlate::Analysis;
use crate::correlate::timeline::Row;
use crate::http::error::ApiError;
use crate::model::EventsById;

/// Rows on a page.
pub const PAGE_ROWS: usize = 500;

/// The slice asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Window {
    /// First time shown (UTC nanoseconds), inclusive.
    pub from: Option<i64>,
    /// Last time shown, inclusive.
    pub to: Option<i64>,
    /// Page, from 1.
    pub page: usize,
}

/// One page of rows and how many rows the range holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Paged {
    pub rows: Vec<Row>,
    /// Rows in the time range, over every page.
    pub total: usize,
    /// Pages in the time range (at least 1).
    pub pages: usize,
    /// The page shown (clamped to `pages`).
    pub page: usize,
}

impl Window {
    /// The window of the query's `from`, `to` and `page`.
    pub fn parse(
        from: Option<&str>,
        to: Option<&str>,
        page: Option<usize>,
    ) -> Result<Window, ApiError> {
        let window = Window {
            from: bound("from", from)?,
            to: bound("to", to)?,
            page: page.unwrap_or(1).max(1),
        };
        if let (Some(f), Some(t)) = (window.from, window.to)
            && f > t
        {
            return Err(ApiError::bad_request("from is after to"));
        }
        Ok(window)
    }

    /// The page of `rows` (in time order) within the window.
    pub fn apply(&self, analysis: &Analysis, rows: Vec<Row>) -> Paged {
        let within: Vec<Row> = rows
            .into_iter()
            .filter(|r| {
                analysis.events.by_id(r.event).is_some_and(|e| {
                    self.from.is_none_or(|f| e.time >= f) && self.to.is_none_or(|t| e.time <= t)
                })
            })
            .collect();
        let total = within.len();
        let pages = total.div_ceil(PAGE_ROWS).max(1);
        let page = self.page.clamp(1, pages);
        let rows = within
            .into_iter()
            .skip((page - 1) * PAGE_ROWS)
            .take(PAGE_ROWS)
            .collect();
        Paged {
            rows,
            total,
            pages,
            page,
        }
    }
}

/// A time bound: RFC 3339 (`2024-10-08T06:25:03Z`), or the form the pages display
/// (`2024-10-08 06:25:03.123`, UTC); empty is no bound.
pub fn bound(name: &str, value: Option<&str>) -> Result<Option<i64>, ApiError> {
    let Some(v) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    if let Ok(ts) = v.parse::<jiff::Timestamp>() {
        return Ok(Some(ts.as_nanosecond() as i64));
    }
    // The pages' own form has no zone: it is UTC.
    format!("{}Z", v.replacen(' ', "T", 1))
        .parse::<jiff::Timestamp>()
        .map(|ts| Some(ts.as_nanosecond() as i64))
        .map_err(|_| {
            ApiError::bad_request(format!(
                "{name} {v:?} is not a time: 2024-10-08T06:25:03Z or 2024-10-08 06:25:03 (UTC)"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::context::testing::{analysis_of, engine};
    use crate::model::EventId;

    /// An engine log of `n` lines a second apart from 10:00:00.
    fn seconds(n: u32) -> Analysis {
        let log: String = (0..n)
            .map(|i| {
                let time = format!("{:02}:{:02}:{:02}.000", 10 + i / 3600, i / 60 % 60, i % 60);
                engine(
                    &time,
                    "5d0e8a61-2c4b-4f7d-9e3a-1b6c8d0f2e4a",
                    "INFO",
                    "masakari.engine.manager",
                    &format!("periodic line {i}"),
                )
            })
            .collect();
        analysis_of(&[("ctl01/var/log/masakari/masakari-engine.log", &log)])
    }

    fn all_rows(analysis: &Analysis) -> Vec<Row> {
        (0..analysis.events.len())
            .map(|e| Row {
                event: EventId::at(e),
                repeated: None,
            })
            .collect()
    }

    #[test]
    fn rows_come_500_a_page_within_the_range_and_a_page_past_the_end_is_the_last() {
        let analysis = seconds(1_200);
        assert_eq!(analysis.events.len(), 1_200);
        let page = |from: Option<&str>, to: Option<&str>, page: usize| {
            Window::parse(from, to, Some(page))
                .unwrap()
                .apply(&analysis, all_rows(&analysis))
        };
        let first = page(None, None, 1);
        assert_eq!(
            (first.total, first.pages, first.page, first.rows.len()),
            (1_200, 3, 1, 500)
        );
        let last = page(None, None, 9);
        assert_eq!((last.page, last.rows.len()), (3, 200));
        assert_eq!(last.rows[0].event.index(), 1_000);
        // 10:05:00 to 10:09:59 inclusive: 300 lines, one page.
        let range = page(Some("2024-05-21 10:05:00"), Some("2024-05-21T10:09:59Z"), 1);
        assert_eq!((range.total, range.pages, range.rows.len()), (300, 1, 300));
        let first_time = analysis.events[range.rows[0].event.index()].time;
        assert_eq!(
            Some(first_time),
            bound("from", Some("2024-05-21T10:05:00Z")).unwrap()
        );
        let empty = page(Some("2024-05-22 00:00:00"), None, 1);
        assert_eq!((empty.total, empty.pages, empty.rows.len()), (0, 1, 0));
    }

    const SECOND: i64 = 1_000_000_000;

    #[test]
    fn bounds_take_rfc3339_and_the_displayed_form() {
        let rfc = bound("from", Some("2020-12-08T19:51:12Z"))
            .unwrap()
            .unwrap();
        assert_eq!(rfc, 1_607_457_072 * SECOND);
        let shown = bound("from", Some("2020-12-08 19:51:12.250"))
            .unwrap()
            .unwrap();
        assert_eq!(shown, rfc + 250_000_000);
        let offset = bound("to", Some("2020-12-08T20:51:12+01:00")).unwrap();
        assert_eq!(offset, Some(rfc));
        assert_eq!(bound("to", Some("  ")).unwrap(), None);
        let bad = bound("to", Some("yesterday")).unwrap_err();
        assert!(bad.message.contains("to \"yesterday\""), "{}", bad.message);
        let reversed = Window::parse(
            Some("2020-12-09T00:00:00Z"),
            Some("2020-12-08T00:00:00Z"),
            None,
        );
        assert!(reversed.is_err());
    }
}
