//! One file's lines through the three passes: secrets (replaced outright), shaped values
//! (addresses, ids, e-mails, context names) and seeded host names.

use super::map::Pseudonyms;
use super::names::NameFinder;
use super::secrets::SecretState;
use super::tokens::redact_shapes;

/// Redacts the lines of one file, in order (secrets can span lines).
#[derive(Debug)]
pub struct LineRedactor<'a> {
    names: &'a NameFinder,
    secrets: SecretState,
}

impl<'a> LineRedactor<'a> {
    /// A redactor for a new file.
    pub fn new(names: &'a NameFinder) -> LineRedactor<'a> {
        LineRedactor {
            names,
            secrets: SecretState::default(),
        }
    }

    /// `line` (without its end) redacted; borrowed when nothing changed.
    pub fn line<'l>(
        &mut self,
        line: &'l str,
        map: &mut dyn Pseudonyms,
    ) -> std::borrow::Cow<'l, str> {
        let mut out = std::borrow::Cow::Borrowed(line);
        if let Some(s) = self.names.hide_secrets(&out) {
            out = s.into();
        }
        if let Some(s) = self.secrets.redact(&out) {
            out = s.into();
        }
        if let Some(s) = redact_shapes(&out, map) {
            out = s.into();
        }
        if let Some(s) = self.names.redact(&out, map) {
            out = s.into();
        }
        out
    }
}

/// A path (relative, `/`-separated) with the names and addresses in it replaced.
pub fn redact_path(path: &str, names: &NameFinder, map: &mut dyn Pseudonyms) -> String {
    path.split('/')
        .map(|part| {
            let part = redact_shapes(part, map).unwrap_or_else(|| part.to_string());
            names.redact(&part, map).unwrap_or(part)
        })
        .collect::<Vec<_>>()
        .join("/")
}
