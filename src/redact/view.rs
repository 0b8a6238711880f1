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
use crate::correlate::Analysis;
use crate::correlate::document::DocumentError;
use crate::detect::Finding;
use crate::detect::finding::{Action, Highlight};
use crate::model::Event;

/// Keys whose string values are paths (or lists of paths).
const PATH_KEYS: &[&str] = &["path", "file", "roots", "inputs"];

/// Redacts views of one analysis with its case map.
#[derive(Debug)]
pub struct ViewRedactor {
    names: NameFinder,
    map: PseudonymMap,
}

impl ViewRedactor {
    /// A redactor looking for `seeds`, giving pseudonyms from `map`.
    pub fn new(seeds: Seeds, map: PseudonymMap) -> ViewRedactor {
        ViewRedactor {
            names: NameFinder::new(seeds),
            map,
        }
    }

    /// The map with the pairs made so far (to be saved: later views and the bundle reuse it).
    pub fn into_map(self) -> PseudonymMap {
        self.map
    }

    /// `text` redacted line by line (a secret option continued on the next line included).
    pub fn text(&mut self, text: &str) -> String {
        let mut lines = LineRedactor::new(&self.names);
        text.split('\n')
            .map(|line| lines.line(line, &mut self.map).into_owned())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// A `/`-separated path with the names and addresses in its parts replaced.
    pub fn path(&mut self, path: &str) -> String {
        redact_path(path, &self.names, &mut self.map)
    }

    /// The value of a config option: hidden when the option names a secret (whatever the
    /// value looks like), else redacted as text.
    pub fn option_value(&mut self, option: &str, value: &str) -> String {
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
        if let Some(Value::Array(events)) = document.get_mut("events") {
            for slot in events.iter_mut() {
                let mut event: Event = serde_json::from_value(slot.take())?;
                event.rewrite_text(&mut |piece| self.text(piece));
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
                    let k = self.text(&k);
                    fields.insert(k, v);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    /// A finding with every text, host and path redacted. Instance, notification, volume
    /// and request ids, times and the known bugs (public trackers) stay.
    pub fn finding(&mut self, f: &Finding) -> Finding {
        let mut g = f.clone();
        g.id = self.text(&f.id);
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
