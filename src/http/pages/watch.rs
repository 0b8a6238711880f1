//! `GET /watch`: the findings of the service's live watcher (`serve --watch`), newest
//! first, with what the policy did with each; new ones arrive through `live.js`
//! (server-sent events of `/api/v1/watch/events`).

use askama::Template;
use axum::extract::State;
use axum::response::Response;

use super::guard::Viewer;
use super::render::{Chrome, PageError, ok};
use crate::http::state::AppState;

#[derive(Template)]
#[template(path = "watch.html")]
struct WatchPage {
    chrome: Chrome,
    /// The inputs followed (empty: no watcher).
    inputs: Vec<String>,
    watching: bool,
    findings: Vec<LiveRow>,
    /// The last event shown, so the stream's replay is not shown twice.
    last_seq: u64,
}

struct LiveRow {
    id: String,
    severity: String,
    title: String,
    summary: String,
    at: String,
    decisions: Vec<String>,
}

fn text(value: &serde_json::Value, key: &str) -> String {
    value[key].as_str().unwrap_or_default().to_owned()
}

/// `GET /watch`.
pub async fn page(State(state): State<AppState>, viewer: Viewer) -> Result<Response, PageError> {
    let chrome = Chrome::new("Live watch", &viewer.csrf);
    let Some(live) = state.live.clone() else {
        return Ok(ok(&WatchPage {
            chrome,
            inputs: Vec::new(),
            watching: false,
            findings: Vec::new(),
            last_seq: 0,
        }));
    };
    let events = live.events();
    let mut findings: Vec<LiveRow> = Vec::new();
    for event in &events {
        match event.kind {
            "finding" => findings.push(LiveRow {
                id: text(&event.data, "id"),
                severity: text(&event.data, "severity"),
                title: text(&event.data, "title"),
                summary: text(&event.data, "summary"),
                at: event.at.clone(),
                decisions: Vec::new(),
            }),
            _ => {
                let finding = text(&event.data, "finding");
                if let Some(row) = findings.iter_mut().find(|r| r.id == finding) {
                    row.decisions.push(format!(
                        "{}: {} — {}",
                        text(&event.data, "action"),
                        text(&event.data, "outcome"),
                        text(&event.data, "detail")
                    ));
                }
            }
        }
    }
    findings.reverse();
    Ok(ok(&WatchPage {
        chrome,
        inputs: live.inputs.clone(),
        watching: true,
        findings,
        last_seq: events.last().map_or(0, |e| e.seq),
    }))
}
