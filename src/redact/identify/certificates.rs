//! Certificates: PEM blocks (a certificate's names from its DER, a private key's body as
//! secrets) and the subject and SAN names of their text forms.

use std::sync::LazyLock;

use memchr::memmem;
use regex::Regex;

use super::{Identifier, decode_base64, regex};
use crate::redact::map::Kind;

/// Substrings looked for before any regex or parse that needs them.
static PEM_BEGIN: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new("-----BEGIN "));
static DNS_START: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new("DNS:"));

/// A certificate subject's fields in text (`openssl x509 -text`, `subject=`).
static SUBJECT: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?:^|[\s,/])(CN|O|OU)\s*=\s*([^,/=]+?)\s*(?:$|[,/])"));

/// A SAN DNS name in text.
static DNS: LazyLock<Regex> = LazyLock::new(|| regex(r"DNS:([A-Za-z0-9*.-]+)"));

impl Identifier {
    /// PEM blocks: a certificate's names, a private key's body as secrets. `true` when
    /// the line belonged to a block.
    pub(super) fn pem_line(&mut self, line: &str) -> bool {
        if let Some((cert, body)) = &mut self.pem {
            match line.find("-----END ") {
                Some(at) => {
                    body.push_str(&line[..at]);
                    let (cert, body) = (*cert, std::mem::take(body));
                    self.pem = None;
                    self.pem_body(cert, &body);
                }
                None => {
                    if !*cert {
                        let part = line.trim().to_string();
                        self.secret(&part);
                    }
                    if let Some((_, body)) = &mut self.pem {
                        body.push_str(line.trim());
                    }
                }
            }
            return true;
        }
        let Some(at) = PEM_BEGIN.find(line.as_bytes()) else {
            return false;
        };
        let after = &line[at + 11..];
        let Some(close) = after.find("-----") else {
            return false;
        };
        let cert = after[..close].contains("CERTIFICATE");
        if !cert && !after[..close].contains("PRIVATE KEY") {
            return false;
        }
        let rest = &after[close + 5..];
        // One line with `\n` escapes: the whole block is here.
        let rest = rest.replace("\\n", "\n");
        match rest.find("-----END ") {
            Some(end) => {
                let body: String = rest[..end].split_whitespace().collect();
                if !cert {
                    for part in rest[..end].split_whitespace() {
                        self.secret(part);
                    }
                }
                self.pem_body(cert, &body);
            }
            None => {
                if !cert {
                    for part in rest.split_whitespace() {
                        self.secret(part);
                    }
                }
                self.pem = Some((cert, rest.split_whitespace().collect()));
            }
        }
        true
    }

    fn pem_body(&mut self, cert: bool, body: &str) {
        if !cert {
            return;
        }
        let der = decode_base64(body);
        for (kind, value) in der_names(&der) {
            self.subject(kind, &value);
        }
    }

    /// A certificate's `CN`, `O`, `OU` or SAN (`DNS`) value.
    fn subject(&mut self, kind: &str, value: &str) {
        match kind {
            "CN" | "DNS" if !value.contains(' ') => self.host(value.trim_start_matches("*.")),
            _ => {
                for word in value.split_whitespace() {
                    self.name(word.trim_matches([',', '.']), Kind::Name);
                }
            }
        }
    }

    /// The subject fields and SAN names of a certificate's text (`openssl x509 -text`).
    pub(super) fn subjects_in_text(&mut self, line: &str) {
        if may_hold_subject(line) {
            for c in SUBJECT.captures_iter(line) {
                self.subject(&c[1], &c[2]);
            }
        }
        if DNS_START.find(line.as_bytes()).is_some() {
            for c in DNS.captures_iter(line) {
                self.host(&c[1]);
            }
        }
    }
}

/// Whether some `=` of the line follows `CN`, `O` or `OU` (blanks between): only then can
/// [`SUBJECT`] match.
fn may_hold_subject(line: &str) -> bool {
    memchr::memchr_iter(b'=', line.as_bytes()).any(|at| {
        let before = line[..at].trim_end();
        before.ends_with("CN") || before.ends_with('O') || before.ends_with("OU")
    })
}

/// The `CN`, `O`, `OU` and SAN DNS names of a DER certificate, found by their object
/// ids (no full parse: a damaged certificate still gives what it holds).
fn der_names(der: &[u8]) -> Vec<(&'static str, String)> {
    const FIELDS: &[(&[u8], &str)] = &[
        (&[0x06, 0x03, 0x55, 0x04, 0x03], "CN"),
        (&[0x06, 0x03, 0x55, 0x04, 0x0a], "O"),
        (&[0x06, 0x03, 0x55, 0x04, 0x0b], "OU"),
    ];
    const SAN: &[u8] = &[0x06, 0x03, 0x55, 0x1d, 0x11];
    let mut out = Vec::new();
    let text = |bytes: &[u8]| -> Option<String> {
        let s = std::str::from_utf8(bytes).ok()?;
        (!s.is_empty() && s.chars().all(|c| !c.is_control())).then(|| s.to_string())
    };
    for i in 0..der.len() {
        for (oid, name) in FIELDS {
            if der[i..].starts_with(oid) {
                let at = i + oid.len();
                if let (Some(&tag), Some(&len)) = (der.get(at), der.get(at + 1))
                    && matches!(tag, 0x0c | 0x13 | 0x14 | 0x16)
                    && len < 0x80
                    && let Some(value) = der.get(at + 2..at + 2 + len as usize).and_then(text)
                {
                    out.push((*name, value));
                }
            }
        }
        if der[i..].starts_with(SAN) {
            let end = (i + 512).min(der.len());
            let mut j = i + SAN.len();
            while j + 2 < end {
                let len = der[j + 1] as usize;
                if der[j] == 0x82
                    && len > 0
                    && len < 0x80
                    && let Some(value) = der.get(j + 2..j + 2 + len).and_then(text)
                    && value.contains('.')
                    && value
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'*'))
                {
                    out.push(("DNS", value));
                    j += 2 + len;
                } else {
                    j += 1;
                }
            }
        }
    }
    out
}
