//! `GET /analyses/{id}/kept?path=&line=`: the lines the analysis kept of a config file
//! (the options it read) or of a CLI capture (the lines that name an id), in file order,
//! the line asked for highlighted. These files are read whole but not stored, so this is
//! what evidence and the configuration table link to.

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::response::Response;
use serde::Deserialize;

use super::guard::Viewer;
use super::render::{Chrome, PageError, ok};
use crate::correlate::Analysis;
use crate::http::api::analyses::row_of;
use crate::http::api::timeline::loaded;
use crate::http::error::ApiError;
use crate::http::state::AppState;
use crate::model::HostId;

/// The file and line asked for.
#[derive(Debug, Default, Deserialize)]
pub struct KeptQuery {
    path: String,
    line: Option<usize>,
}

#[derive(Template)]
#[template(path = "kept.html")]
struct KeptPage {
    chrome: Chrome,
    path: String,
    host: String,
    /// `config` or `cli`.
    kind: &'static str,
    lines: Vec<KeptLine>,
    target: Option<usize>,
}

struct KeptLine {
    number: usize,
    text: String,
    target: bool,
}

/// What the analysis kept of one file.
struct Kept {
    /// `config` or `cli`.
    kind: &'static str,
    /// A config file's host (a capture is of the cloud).
    host: Option<HostId>,
    /// Line number and text, in order.
    lines: Vec<(usize, String)>,
}

/// What kind of file `path` is and the lines kept of it, in order; None when the
/// analysis kept nothing of it.
fn kept_lines(analysis: &Analysis, path: &str) -> Option<Kept> {
    let mut lines: Vec<(usize, String)> = analysis
        .config
        .iter()
        .filter(|c| c.file == path)
        .map(|c| (c.line, c.text.clone()))
        .collect();
    if let Some(first) = analysis.config.iter().find(|c| c.file == path) {
        lines.sort();
        lines.dedup();
        return Some(Kept {
            kind: "config",
            host: Some(first.host),
            lines,
        });
    }
    let capture = analysis.captures.iter().find(|c| c.file == path)?;
    let mut lines = capture.lines.clone();
    lines.sort();
    lines.dedup();
    Some(Kept {
        kind: "cli",
        host: None,
        lines,
    })
}

/// `GET /analyses/{id}/kept`.
pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
    Query(query): Query<KeptQuery>,
) -> Result<Response, PageError> {
    let row = row_of(&state, &id).await?;
    let loaded = loaded(&state, &row.id).await?;
    let analysis = &loaded.analysis;
    let Kept { kind, host, lines } =
        kept_lines(analysis, &query.path).ok_or_else(|| ApiError::not_found("file"))?;
    let chrome = Chrome::new(query.path.clone(), &viewer.csrf).within(&row.id, &row.name);
    let target = query.line;
    Ok(ok(&KeptPage {
        chrome,
        host: host
            .and_then(|h| analysis.host(h))
            .map(|h| h.hostname.clone())
            .unwrap_or_default(),
        kind,
        target,
        lines: lines
            .into_iter()
            .map(|(number, text)| KeptLine {
                target: Some(number) == target,
                number,
                text,
            })
            .collect(),
        path: query.path,
    }))
}
