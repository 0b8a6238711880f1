//! Values replaced outright, with no pseudonym: passwords and other secret options,
//! URLs with credentials (`transport_url`, `connection`), Fernet tokens, `X-Auth-Token`
//! and `X-Subject-Token` values, private keys and certificates.

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use regex::{Regex, RegexSet};

/// What a secret is replaced with.
pub const HIDDEN: &str = "********";

/// Whether a lower-case option or key name names a secret by its words (`password`,
/// `memcache_secret_key`, `auth_token`, `key`, `*_key`). Callers add their own suffixes.
pub(crate) fn names_a_secret(lower: &str) -> bool {
    SECRET_WORDS.as_ref().map_or_else(
        || SECRET_WORD_LIST.iter().any(|s| lower.contains(s)),
        |ac| ac.is_match(lower),
    ) || lower == "key"
        || lower.ends_with("_key")
}

/// The words of a secret's name.
const SECRET_WORD_LIST: [&str; 6] = [
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "credential",
];

/// [`SECRET_WORD_LIST`] in one automaton (the public step asks for every word of every
/// line: six substring searches each were a few percent of its time).
static SECRET_WORDS: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| {
    AhoCorasickBuilder::new()
        .kind(Some(AhoCorasickKind::DFA))
        .build(SECRET_WORD_LIST)
        .ok()
});

/// `key = value` where the key names a secret (oslo.config files, `log_opt_values`).
static KEY_EQUALS: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b([a-z0-9_.-]*(?:password|passwd|passphrase|secret|token|credential|private_key|transport_url|connection|api_key|auth_key))(\s*=\s*)(\S.*?)\s*$",
    )
});

/// `key: value` (YAML, `openstack … -f yaml`) for password-like keys.
static KEY_COLON: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)(?:^|[\s{,])([a-z0-9_.-]*(?:password|passwd|passphrase|secret|credential))(:\s+)([^\s,}]+)",
    )
});

/// `'password': 'x'`, `"X-Auth-Token": "x"` (Python reprs and JSON).
static QUOTED: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r#"(?i)(['"][a-z0-9_.-]*(?:password|passwd|passphrase|secret|token|credential)['"]\s*:\s*['"])([^'"]*)(['"])"#,
    )
});

/// `X-Auth-Token: value` in logged headers.
static HEADER: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?i)\b(X-(?:Auth|Subject|Service)-Token)(\s*[:=]\s*)([^\s'\x22,]+)"));

/// A URL with credentials: `rabbit://user:pass@host:5672,user:pass@host2:5672/`.
static CREDENTIAL_URL: LazyLock<Regex> =
    LazyLock::new(|| regex(r#"([A-Za-z][A-Za-z0-9+.-]*)://[^\s/@'"]*:[^\s@'"]*@[^\s'"<>]*"#));

/// A Fernet token.
static FERNET: LazyLock<Regex> = LazyLock::new(|| regex(r"gAAAAA[A-Za-z0-9_=-]{20,}"));

/// Whether a line may hold any of the secrets above: one pass over the line instead of one
/// per pattern, for the many lines that hold none.
static ANY: LazyLock<RegexSet> = LazyLock::new(|| {
    let patterns = [
        &*KEY_EQUALS,
        &*KEY_COLON,
        &*QUOTED,
        &*HEADER,
        &*CREDENTIAL_URL,
        &*FERNET,
    ];
    // The patterns are constants: a failure is a bug caught by every test.
    #[allow(clippy::expect_used)]
    RegexSet::new(patterns.iter().map(|r| r.as_str())).expect("valid secret patterns")
});

/// Pieces one of which every pattern above needs (any ASCII letter case): most lines
/// hold none, and one pass of this automaton is cheaper than [`ANY`]'s. Only for ASCII
/// lines: `(?i)` also folds `ſ` to `s` and `K` (Kelvin) to `k`, so another line goes
/// to [`ANY`] whatever it holds.
static PIECES: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| {
    AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::LeftmostFirst)
        .kind(Some(AhoCorasickKind::DFA))
        .build([
            "passw",
            "passphrase",
            "secret",
            "token",
            "credential",
            "private_key",
            "transport_url",
            "connection",
            "api_key",
            "auth_key",
            "://",
            "gAAAAA",
        ])
        .ok()
});

/// Whether `line` may hold a secret of the patterns above.
fn may_hold_secret(line: &str) -> bool {
    match PIECES.as_ref() {
        Some(pieces) if line.is_ascii() => pieces.is_match(line) && ANY.is_match(line),
        _ => ANY.is_match(line),
    }
}

fn regex(pattern: &str) -> Regex {
    // The patterns are constants: a failure is a bug caught by every test.
    #[allow(clippy::expect_used)]
    Regex::new(pattern).expect("valid secret pattern")
}

/// The per-file state secrets need across lines.
#[derive(Debug, Default)]
pub struct SecretState {
    /// Inside a PEM block (`-----BEGIN … PRIVATE KEY-----` … `-----END …-----`).
    in_pem: bool,
    /// The previous line set a secret option: an indented next line continues its value.
    after_secret_option: bool,
}

/// Whether `text` is ASCII and holds none of the pieces every secret pattern needs nor
/// the start of a PEM block. A line cut after blanks into such texts is left as it is by
/// [`SecretState::redact`] when the state is [`SecretState::idle`]: no piece holds a blank
/// (`-----BEGIN ` only at its end), so none lies across a cut, and a line with no piece
/// matches no pattern.
pub fn holds_no_secret_piece(text: &str) -> bool {
    text.is_ascii()
        && !text.contains("-----BEGIN ")
        && PIECES.as_ref().is_some_and(|p| !p.is_match(text))
}

impl SecretState {
    /// No earlier line bears on the next: no PEM block open, no secret option to continue.
    pub fn idle(&self) -> bool {
        !self.in_pem && !self.after_secret_option
    }

    /// `line` with its secrets replaced; `None` when it has none.
    pub fn redact(&mut self, line: &str) -> Option<String> {
        if self.in_pem {
            if line.contains("-----END ") {
                self.in_pem = false;
            }
            return Some(HIDDEN.to_string());
        }
        if let Some(at) = line.find("-----BEGIN ")
            && (line.contains("PRIVATE KEY") || line.contains("CERTIFICATE"))
        {
            self.in_pem = !line[at..].contains("-----END ");
            return Some(format!("{}{HIDDEN}", &line[..at]));
        }
        let continued =
            self.after_secret_option && line.starts_with([' ', '\t']) && !line.trim().is_empty();
        if continued {
            let indent = line.len() - line.trim_start().len();
            return Some(format!("{}{HIDDEN}", &line[..indent]));
        }
        if !may_hold_secret(line) {
            self.after_secret_option = false;
            return None;
        }
        let mut out = std::borrow::Cow::Borrowed(line);
        let mut option = false;
        if let Some(c) = KEY_EQUALS.captures(&out)
            && let (Some(key), Some(value)) = (c.get(1), c.get(3))
            && !already_hidden(value.as_str())
        {
            option = key.start() == out.len() - out.trim_start().len();
            out = format!("{}{HIDDEN}", &out[..value.start()]).into();
        }
        for re in [&*KEY_COLON, &*HEADER] {
            if re.is_match(&out) {
                out = re.replace_all(&out, hide_group_3).into_owned().into();
            }
        }
        if QUOTED.is_match(&out) {
            out = QUOTED
                .replace_all(&out, |c: &regex::Captures<'_>| {
                    format!("{}{HIDDEN}{}", &c[1], &c[3])
                })
                .into_owned()
                .into();
        }
        if CREDENTIAL_URL.is_match(&out) {
            out = CREDENTIAL_URL
                .replace_all(&out, |c: &regex::Captures<'_>| {
                    format!("{}://{HIDDEN}", &c[1])
                })
                .into_owned()
                .into();
        }
        if out.contains("gAAAAA") {
            out = FERNET.replace_all(&out, HIDDEN).into_owned().into();
        }
        self.after_secret_option = option;
        match out {
            std::borrow::Cow::Borrowed(_) => None,
            std::borrow::Cow::Owned(s) => Some(s),
        }
    }
}

/// The whole match with its third group (the value) hidden.
fn hide_group_3(c: &regex::Captures<'_>) -> String {
    match (c.get(0), c.get(3)) {
        (Some(m), Some(v)) => format!("{}{HIDDEN}", &m.as_str()[..v.start() - m.start()]),
        _ => String::new(),
    }
}

/// Values that already say nothing (oslo masks secrets as `****`).
fn already_hidden(value: &str) -> bool {
    let first = value.split_whitespace().next().unwrap_or("");
    let v = first.trim_matches(|c| c == '\'' || c == '"');
    v.is_empty() || v.bytes().all(|b| b == b'*') || v == "None" || v == "<None>"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str) -> String {
        SecretState::default()
            .redact(line)
            .unwrap_or_else(|| line.to_string())
    }

    #[test]
    fn options_urls_tokens_and_headers() {
        assert_eq!(one("password = s3cr3t!"), "password = ********");
        assert_eq!(
            one(
                "transport_url = rabbit://openstack:Zm9v@10.0.0.5:5672,openstack:Zm9v@10.0.0.6:5672/"
            ),
            "transport_url = ********"
        );
        assert_eq!(
            one(
                "2020-12-08 19:48:33.001 235 DEBUG oslo_service.service [-] database.connection = **** log_opt_values"
            ),
            "2020-12-08 19:48:33.001 235 DEBUG oslo_service.service [-] database.connection = **** log_opt_values",
            "already masked by oslo"
        );
        assert_eq!(
            one("url mysql+pymysql://nova:hunter2@db.example.com/nova?charset=utf8 used"),
            "url mysql+pymysql://******** used"
        );
        let fernet = "gAAAAABfz3Yx8kL2mN4pQ6rS8tU0vW2xY4zA6bC8dE0fG2hI4jK6lM8nO0pQ2rS4tU6vW8xY0zA2bC4dE6fG8hI0jK2lM4nO6pQ8";
        assert!(!one(&format!("token {fernet} rejected")).contains("gAAAAAB"));
        assert_eq!(
            one(
                "REQ: curl -g -i -X GET http://10.0.0.5:8774/v2.1 -H \"X-Auth-Token: {SHA256}9f86d081884c7d659a2feaa0c55ad015\""
            ),
            "REQ: curl -g -i -X GET http://10.0.0.5:8774/v2.1 -H \"X-Auth-Token: ********\""
        );
        assert_eq!(
            one("{'username': 'masakari', 'password': 'p@ss w0rd', 'auth_url': 'x'}"),
            "{'username': 'masakari', 'password': '********', 'auth_url': 'x'}"
        );
        assert_eq!(
            one("  admin_password: hunter2"),
            "  admin_password: ********"
        );
        // Ordinary text is left alone.
        assert_eq!(
            one("2020-12-08 19:51:12 INFO x Lost connection to the message broker"),
            "2020-12-08 19:51:12 INFO x Lost connection to the message broker"
        );
    }

    /// The pre-check lets through every line a pattern matches (any letter case, and
    /// the non-ASCII folds `(?i)` knows).
    #[test]
    fn the_pre_check_misses_no_line_a_pattern_matches() {
        let lines = [
            "password = x",
            "PassWd: y",
            "db_passphrase=z",
            "memcache_SECRET_key = k",
            "'auth_token': 'abc'",
            "\"Credential\": \"c\"",
            "private_key = /k",
            "transport_url = rabbit://u:p@h:5672/",
            "connection = mysql://u:p@h/db",
            "api_key = q",
            "x-auth-key-auth_key = r",
            "X-Subject-Token: abc",
            "mysql+pymysql://nova:pw@db/nova",
            "gAAAAABfz3Yx8kL2mN4pQ6rS8tU0vW2x",
            "pa\u{17f}sword = x",
            "private_\u{212a}ey = x",
            "nothing to see here",
        ];
        for line in lines {
            assert_eq!(may_hold_secret(line), ANY.is_match(line), "{line}");
        }
    }

    #[test]
    fn private_keys_and_continued_values() {
        let mut s = SecretState::default();
        let lines = [
            "ssl_key = /etc/ssl/key.pem",
            "-----BEGIN RSA PRIVATE KEY-----",
            "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB",
            "-----END RSA PRIVATE KEY-----",
            "transport_url = rabbit://u:p@h1:5672,",
            "    u:p@h2:5672/",
            "debug = true",
        ];
        let out: Vec<String> = lines
            .iter()
            .map(|l| s.redact(l).unwrap_or_else(|| l.to_string()))
            .collect();
        assert_eq!(out[1], HIDDEN);
        assert_eq!(out[2], HIDDEN);
        assert_eq!(out[3], HIDDEN);
        assert_eq!(out[4], "transport_url = ********");
        assert_eq!(out[5], "    ********");
        assert_eq!(out[6], "debug = true");
    }
}
