//! The redaction report of a share: what the engineer reads before publishing a link
//! (`POST …/shares/preview` and the share form show it, a new share comes with it).

use crate::model::EventsById;
use std::collections::BTreeMap;

use serde::Serialize;

use super::scope::Scope;
use super::view::RedactedView;
use crate::correlate::timeline::Subject;
use crate::detect::finding_picture_events;
use crate::model::EventId;

/// Examples of reduced lines a report gives.
const EXAMPLES: usize = 5;

/// What the public step did to what a link shows.
#[derive(Debug, Clone, Default, Serialize, utoipa::ToSchema)]
pub struct RedactionReport {
    /// Log lines the link shows (its picture's and its rows; every line for a whole
    /// analysis).
    pub lines: u64,
    /// Of them, lines whose message matched a known Masakari or Nova format string:
    /// its constant text kept, its arguments judged as values.
    pub templated: u64,
    /// Of them, lines with no known template, shown through the vocabulary of OpenStack
    /// log words (`lines - templated`).
    pub vocabulary_lines: u64,
    /// Of them, lines with words outside the vocabulary replaced (no known wording).
    pub reduced_lines: u64,
    /// A few of those lines, as the link shows them.
    pub examples: Vec<String>,
    /// Replacements by kind (`host`, `domain`, `ipv4_net`, `ipv6`, `mac`, `email`,
    /// `user`, `project`, `keystone_id`, `name`) over the whole analysis's public view.
    pub replaced: BTreeMap<String, u64>,
    /// Texts with a secret hidden, over the whole analysis's public view.
    pub secrets: u64,
    /// Files of the upload not read (so not shown, nor in the bundle), and why.
    pub files_dropped: Vec<DroppedFile>,
}

/// A file the analysis did not read.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct DroppedFile {
    /// Its path, redacted.
    pub path: String,
    /// Why it was not read.
    pub reason: String,
}

impl RedactedView {
    /// The report of a link of `scope` (`None` when the scope names nothing here).
    pub fn report(&self, scope: &Scope) -> Option<RedactionReport> {
        let analysis = &self.analysis;
        let events: Vec<EventId> = match scope {
            Scope::Finding { finding } => {
                let (_, f) = self.finding(finding)?;
                finding_picture_events(analysis, f)
            }
            Scope::Timeline(t) => {
                let subject = match t.subject().ok()? {
                    Subject::Host(h) => Subject::Host(self.redact(&h)),
                    other => other,
                };
                t.events(analysis, &subject)
            }
            Scope::Analysis => (0..analysis.events.len())
                .filter_map(|i| u32::try_from(i).ok().map(EventId))
                .collect(),
        };
        let mut report = RedactionReport {
            lines: events.len() as u64,
            replaced: self.stats.replaced.clone(),
            secrets: self.stats.secrets,
            ..RedactionReport::default()
        };
        for &id in &events {
            if self
                .templated_events
                .get(id.index())
                .copied()
                .unwrap_or(false)
            {
                report.templated += 1;
            }
        }
        report.vocabulary_lines = report.lines.saturating_sub(report.templated);
        for id in events {
            if !self
                .reduced_events
                .get(id.index())
                .copied()
                .unwrap_or(false)
            {
                continue;
            }
            report.reduced_lines += 1;
            if report.examples.len() < EXAMPLES
                && let Some(event) = analysis.events.by_id(id)
            {
                report.examples.push(event.text().into_owned());
            }
        }
        report.files_dropped = analysis
            .skipped
            .iter()
            .map(|s| DroppedFile {
                path: s.path.clone(),
                reason: s.reason.clone(),
            })
            .collect();
        Some(report)
    }
}
