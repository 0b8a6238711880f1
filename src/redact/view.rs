//! Redaction of what the service shows, rather than of files: a stored analysis document
//! and the findings of it, with the same passes and the same map as `evacdoc redact`, so
//! that a share link and the redacted bundle give every value the same pseudonym.
//!
//! The document is redacted as JSON before it is read back: events rewrite their text
//! through [`Event::rewrite_text`](crate::model::Event::rewrite_text) (which keeps the
//! message bounds), config values are hidden by their option's name, paths are redacted
//! part by part, and every other string (keys included) goes through the line passes.
//! The indexes are then built from the redacted names, so a timeline by a pseudonymous
//! host finds that host's lines.

use serde_json::Value;

use super::line::{LineRedactor, redact_path};
use super::map::PseudonymMap;
use super::names::{NameFinder, Seeds};
use super::options::{OptionClass, classify_option};
use super::public::{PublicStats, PublicText, Vocabulary};
use super::secrets::HIDDEN;
use crate::correlate::Analysis;
use crate::correlate::document::DocumentError;
use crate::detect::Finding;
use crate::detect::finding::{Action, Highlight};
use crate::model::Event;

/// Keys whose string values are paths (or lists of paths).
const PATH_KEYS: &[&str] = &["path", "file", "roots", "inputs", "log", "detail"];

/// Keys whose string values are the document's own words (enums, evacdoc's service
/// names, option and section names, package versions): identifiers replaced only, so
/// that a public document still reads back.
const STRUCTURAL_KEYS: &[&str] = &[
    "schema",
    "action",
    "format",
    "hostname_source",
    "kind",
    "layout",
    "status",
    "section",
    "option",
    "version",
    "zone",
    "service",
    "services",
    "level",
    "state",
];

/// Redacts views of one analysis with its case map.
#[derive(Debug)]
pub struct ViewRedactor {
    names: NameFinder,
    map: PseudonymMap,
    /// Default-deny (public views): the upload's names, and what was done.
    public: Option<Public>,
}

#[derive(Debug, Default)]
struct Public {
    upload: Vec<String>,
    stats: PublicStats,
    /// Per event of the last analysis redacted: whether a word of it was reduced.
    reduced_events: Vec<bool>,
    /// Per event of the last analysis redacted: whether its message matched a known
    /// template.
    templated_events: Vec<bool>,
}

impl ViewRedactor {
    /// A redactor looking for `seeds`, giving pseudonyms from `map`: identifiers replaced,
    /// other text kept (`evacdoc redact`, private tools).
    pub fn new(seeds: Seeds, map: PseudonymMap) -> ViewRedactor {
        ViewRedactor {
            names: NameFinder::new(seeds),
            map,
            public: None,
        }
    }

    /// A redactor for public views: every text through [`super::public`] (default-deny),
    /// the upload's names (`upload`: its file name, and that name without its archive
    /// suffix) shown as `bundle`.
    pub fn public(seeds: Seeds, map: PseudonymMap, upload: &str) -> ViewRedactor {
        let names = super::public::upload_names(upload);
        ViewRedactor {
            names: NameFinder::new(seeds),
            map,
            public: Some(Public {
                upload: names,
                ..Public::default()
            }),
        }
    }

    /// What the public step did so far (`None` for a private redactor).
    pub fn stats(&self) -> Option<&PublicStats> {
        self.public.as_ref().map(|p| &p.stats)
    }

    /// Per event of the last analysis redacted, whether it had a word reduced to the
    /// vocabulary (taken: empty afterwards).
    pub fn take_reduced_events(&mut self) -> Vec<bool> {
        self.public
            .as_mut()
            .map(|p| std::mem::take(&mut p.reduced_events))
            .unwrap_or_default()
    }

    /// Per event of the last analysis redacted, whether its message matched a known
    /// Masakari or Nova template (taken: empty afterwards).
    pub fn take_templated_events(&mut self) -> Vec<bool> {
        self.public
            .as_mut()
            .map(|p| std::mem::take(&mut p.templated_events))
            .unwrap_or_default()
    }

    /// The map with the pairs made so far (to be saved: later views and the bundle reuse it).
    pub fn into_map(self) -> PseudonymMap {
        self.map
    }

    /// `text` redacted line by line (a secret option continued on the next line included).
    pub fn text(&mut self, text: &str) -> String {
        if self.public.is_some() {
            return self.public_text(text, Vocabulary::Log);
        }
        let mut lines = LineRedactor::new(&self.names);
        text.split('\n')
            .map(|line| lines.line(line, &mut self.map).into_owned())
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn public_text(&mut self, text: &str, vocabulary: Vocabulary) -> String {
        let Some(public) = self.public.as_mut() else {
            return text.to_string();
        };
        let mut step = PublicText::new(&self.names, &public.upload);
        text.split('\n')
            .map(|line| step.line(line, vocabulary, &mut self.map, &mut public.stats))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// A `/`-separated path with the names and addresses in its parts replaced (public:
    /// every part default-deny, the upload's own name `bundle`).
    pub fn path(&mut self, path: &str) -> String {
        if let Some(public) = self.public.as_mut() {
            let mut step = PublicText::new(&self.names, &public.upload);
            return step.path(path, &mut self.map, &mut public.stats);
        }
        redact_path(path, &self.names, &mut self.map)
    }

    /// The value of a config option: hidden when the option names a secret (whatever the
    /// value looks like), else redacted as text. Public: kept (through the public step)
    /// only for the allow-list of harmless options, every other value replaced.
    pub fn option_value(&mut self, option: &str, value: &str) -> String {
        if self.public.is_some() {
            return match classify_option(option) {
                OptionClass::Secret => {
                    if let Some(p) = self.public.as_mut() {
                        p.stats.secrets += 1;
                    }
                    HIDDEN.to_string()
                }
                OptionClass::Harmless => self.public_text(value, Vocabulary::Log),
                OptionClass::Other => self.public_text(value, Vocabulary::None),
            };
        }
        let prefix = format!("{option} = ");
        let line = format!("{prefix}{value}");
        let redacted = LineRedactor::new(&self.names)
            .line(&line, &mut self.map)
            .into_owned();
        match redacted.strip_prefix(&prefix) {
            Some(v) => v.to_string(),
            None => self.text(value),
        }
    }

    /// A stored analysis document redacted and read back.
    pub fn analysis(&mut self, mut document: Value) -> Result<Analysis, DocumentError> {
        // The identifiers found by the first pass are the real values: never shown.
        if let Value::Object(fields) = &mut document {
            fields.remove("identified");
        }
        if let Some(Value::Array(events)) = document.get_mut("events") {
            for slot in events.iter_mut() {
                let mut event: Event = serde_json::from_value(slot.take())?;
                let (reduced, templated) = self
                    .stats()
                    .map_or((0, 0), |s| (s.reduced_lines, s.templated));
                event.rewrite_text(&mut |piece| self.text(piece));
                if let Some(p) = self.public.as_mut() {
                    p.reduced_events.push(p.stats.reduced_lines > reduced);
                    p.templated_events.push(p.stats.templated > templated);
                }
                *slot = serde_json::to_value(&event)?;
            }
        }
        if let Some(Value::Array(config)) = document.get_mut("config") {
            for value in config.iter_mut() {
                self.config_value(value);
            }
        }
        if let Value::Object(fields) = &mut document {
            for (key, value) in fields.iter_mut() {
                if !matches!(key.as_str(), "schema" | "events" | "config") {
                    self.walk(key, value);
                }
            }
        }
        Analysis::from_document(document)
    }

    fn config_value(&mut self, value: &mut Value) {
        let option = value
            .get("option")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let Value::Object(fields) = value else {
            return;
        };
        for (key, field) in fields.iter_mut() {
            match (key.as_str(), &*field) {
                ("value", Value::String(v)) => {
                    *field = Value::String(self.option_value(&option, v));
                }
                // The line as written: its option name, then the value as above.
                ("text", Value::String(t)) if self.public.is_some() => {
                    let at = t.find(['=', ':']).map_or(t.len(), |i| i + 1);
                    let (name, value) = t.split_at(at);
                    let spaces = value.len() - value.trim_start().len();
                    let (blank, value) = value.split_at(spaces);
                    let value = self.option_value(&option, value);
                    *field = Value::String(format!("{}{blank}{value}", self.identifiers(name)));
                }
                _ => self.walk(key, field),
            }
        }
    }

    /// Every string under `value` redacted; `key` is the field it sits in.
    fn walk(&mut self, key: &str, value: &mut Value) {
        match value {
            Value::String(s) => {
                *s = if PATH_KEYS.contains(&key) {
                    self.path(s)
                } else if self.public.is_some() && STRUCTURAL_KEYS.contains(&key) {
                    self.identifiers(s)
                } else {
                    self.text(s)
                };
            }
            Value::Array(items) => {
                for item in items {
                    self.walk(key, item);
                }
            }
            Value::Object(fields) => {
                let old = std::mem::take(fields);
                for (k, mut v) in old {
                    self.walk(&k, &mut v);
                    let k = self.key(&k);
                    fields.insert(k, v);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    /// An object key: a field name (`snake_case`) only has its identifiers replaced (the
    /// document must read back), anything else is text.
    fn key(&mut self, key: &str) -> String {
        let field = key.starts_with(|c: char| c.is_ascii_lowercase())
            && key
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if field {
            self.identifiers(key)
        } else {
            self.text(key)
        }
    }

    /// `text` with its identifiers replaced and its other words kept.
    fn identifiers(&mut self, text: &str) -> String {
        LineRedactor::new(&self.names)
            .line(text, &mut self.map)
            .into_owned()
    }

    /// A finding with every text, host and path redacted. Instance, notification, volume
    /// and request ids, times and the known bugs (public trackers) stay.
    pub fn finding(&mut self, f: &Finding) -> Finding {
        let mut g = f.clone();
        g.id = self.text(&f.id).into();
        g.title = self.text(&f.title);
        g.summary = self.text(&f.summary);
        g.failed_host = f.failed_host.as_deref().map(|h| self.text(h));
        g.explanation = self.text(&f.explanation);
        for e in &mut g.evidence {
            e.path = self.path(&e.path);
            e.host = self.text(&e.host);
            e.text = self.text(&e.text);
        }
        g.remediation.summary = self.text(&f.remediation.summary);
        for c in &mut g.remediation.config_changes {
            c.file = self.path(&c.file);
            c.current = c
                .current
                .as_deref()
                .map(|v| self.option_value(&c.option, v));
            c.recommended = self.option_value(&c.option, &c.recommended);
            c.note = self.text(&c.note);
        }
        for a in &mut g.remediation.actions {
            match a {
                Action::Evacuate { from_host, .. } => *from_host = self.text(from_host),
                Action::ForceDetachVolume { host, .. } | Action::ForceDownService { host } => {
                    *host = self.text(host);
                }
                Action::Unlock { .. } => {}
            }
        }
        for b in &mut g.known_bugs {
            b.fix_status = self.text(&b.fix_status);
        }
        for h in &mut g.highlights {
            match h {
                Highlight::Line { path, label, .. } => {
                    *path = self.path(path);
                    *label = self.text(label);
                }
                Highlight::Span { label, .. } => *label = self.text(label),
            }
        }
        g
    }
}

/// An analysis and its findings as a public view shows them, with a new map (the
/// redacted bug report of `evacdoc triage --bug-template --redact`; the service uses
/// the share view instead, with the case's map).
pub fn public_copy(
    analysis: &Analysis,
    findings: &[Finding],
    upload: &str,
) -> Result<(Analysis, Vec<Finding>), DocumentError> {
    let seeds = super::seed::seeds_of(analysis);
    let mut redactor = ViewRedactor::public(seeds, PseudonymMap::new(), upload);
    let public = redactor.analysis(serde_json::to_value(analysis)?)?;
    let findings = findings.iter().map(|f| redactor.finding(f)).collect();
    Ok((public, findings))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::secrets::HIDDEN;

    fn redactor() -> ViewRedactor {
        let mut seeds = Seeds::default();
        seeds.add_host("node02ob100.maas");
        ViewRedactor::new(seeds, PseudonymMap::with_key("k"))
    }

    #[test]
    fn texts_paths_and_option_values() {
        let mut r = redactor();
        let host = r.text("node02ob100");
        assert!(host.starts_with("host-"), "{host}");
        assert_eq!(
            r.text("Disable node02ob100.maas at 10.0.0.5"),
            format!(
                "Disable {host}.{} at {}",
                r.text("maas"),
                r.text("10.0.0.5")
            )
        );
        assert_eq!(
            r.path("var/log/node02ob100/nova.log"),
            format!("var/log/{host}/nova.log")
        );
        assert_eq!(r.option_value("admin_password", "plain"), HIDDEN);
        assert_eq!(
            r.option_value("transport_url", "rabbit://u:p@10.0.0.5:5672/"),
            HIDDEN
        );
        assert_eq!(r.option_value("host", "node02ob100"), host);
        assert_eq!(r.option_value("debug", "true"), "true");
        // Lines of one text share the secret state: a continued value is hidden too.
        assert_eq!(
            r.text("transport_url = rabbit://u:p@h1:5672,\n    u:p@h2:5672/"),
            format!("transport_url = {HIDDEN}\n    {HIDDEN}")
        );
    }
}

#[cfg(test)]
mod public_tests {
    use super::*;

    /// A whole analysis redacted by default-deny still reads back, with its events.
    #[test]
    fn a_public_view_of_a_real_analysis_reads_back() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("samples/scenarios/2020-juju-evacuate-race");
        let analysis = crate::run::analyze(&[dir], &crate::run::Options::default()).unwrap();
        let seeds = crate::redact::seed::seeds_of(&analysis);
        let document = serde_json::to_value(&analysis).unwrap();
        let mut r = ViewRedactor::public(seeds, PseudonymMap::with_key("k"), "race.tar.gz");
        let public = r.analysis(document).unwrap();
        assert_eq!(public.events.len(), analysis.events.len());
        let stats = r.stats().unwrap();
        assert!(stats.lines > 100, "{stats:?}");
        assert!(
            stats.replaced.get("host").copied().unwrap_or(0) > 0,
            "{stats:?}"
        );
    }
}
