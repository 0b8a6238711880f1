//! `GET /analyses/{id}/files/{file}?from=&to=&line=`: a range of a file's raw lines with
//! their numbers, the line asked for highlighted (and scrolled to with `#L<n>`), links to
//! the ranges before and after.

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::response::Response;
use serde::Deserialize;

use super::format::count;
use super::guard::Viewer;
use super::render::{Chrome, PageError, ok};
use crate::http::api::analyses::row_of;
use crate::http::api::lines::{LineRange, read};
use crate::http::error::ApiError;
use crate::http::state::AppState;

/// Lines shown at once.
const SPAN: u32 = 200;
/// Lines shown before the line asked for.
const BEFORE: u32 = 50;

/// The range asked for.
#[derive(Debug, Default, Deserialize)]
pub struct FileQuery {
    from: Option<u32>,
    to: Option<u32>,
    line: Option<u32>,
}

impl FileQuery {
    /// The lines to read: `from..=to` when given, else a window around `line`.
    fn range(&self) -> LineRange {
        match (self.from, self.line) {
            (Some(from), _) => LineRange {
                from: Some(from),
                to: self.to,
            },
            (None, Some(line)) => {
                let from = line.saturating_sub(BEFORE).max(1);
                LineRange {
                    from: Some(from),
                    to: Some(from.saturating_add(SPAN - 1)),
                }
            }
            (None, None) => LineRange {
                from: Some(1),
                to: self.to.or(Some(SPAN)),
            },
        }
    }
}

#[derive(Template)]
#[template(path = "file.html")]
struct FilePage {
    chrome: Chrome,
    path: String,
    host: String,
    service: String,
    records: String,
    range: String,
    lines: Vec<LineRow>,
    prev: Option<String>,
    next: Option<String>,
    target: Option<u32>,
}

struct LineRow {
    number: u32,
    text: String,
    target: bool,
}

/// `GET /analyses/{id}/files/{file}`.
pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    Path((id, file)): Path<(String, String)>,
    Query(query): Query<FileQuery>,
) -> Result<Response, PageError> {
    // A file is its number in the analysis: anything else is no file (the HTML 404,
    // not the extractor's plain-text refusal).
    let file: u32 = file.parse().map_err(|_| ApiError::not_found("file"))?;
    let row = row_of(&state, &id).await?;
    let lines = read(&state, &row.id, file, &query.range()).await?;
    let chrome = Chrome::new(lines.path.clone(), &viewer.csrf).within(&row.id, &row.name);
    let base = format!("/analyses/{}/files/{file}", row.id);
    let prev = (lines.from > 1).then(|| {
        let from = lines.from.saturating_sub(SPAN).max(1);
        format!("{base}?from={from}&to={}", lines.from - 1)
    });
    // A full range may have more after it; a short one is the file's end.
    let last = lines.lines.last().map_or(0, |l| l.line);
    let next = (!lines.lines.is_empty() && last >= lines.to).then(|| {
        format!(
            "{base}?from={}&to={}",
            lines.to + 1,
            lines.to.saturating_add(SPAN)
        )
    });
    let target = query.line;
    Ok(ok(&FilePage {
        chrome,
        range: format!(
            "lines {}–{}",
            lines.from,
            lines.to.min(last.max(lines.from))
        ),
        records: count(lines.records),
        host: lines.host,
        service: lines.service,
        path: lines.path,
        prev,
        next,
        target,
        lines: lines
            .lines
            .into_iter()
            .map(|l| LineRow {
                target: Some(l.line) == target,
                number: l.line,
                text: l.text,
            })
            .collect(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_shown_with_lines_before_it() {
        let q = |from, to, line| FileQuery { from, to, line }.range();
        let r = q(None, None, Some(120));
        assert_eq!((r.from, r.to), (Some(70), Some(269)));
        let r = q(None, None, Some(3));
        assert_eq!((r.from, r.to), (Some(1), Some(200)));
        let r = q(Some(10), Some(20), Some(15));
        assert_eq!((r.from, r.to), (Some(10), Some(20)));
        let r = q(None, None, None);
        assert_eq!((r.from, r.to), (Some(1), Some(200)));
    }
}
