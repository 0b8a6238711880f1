//! What a single word is, by its text alone: a literal, a number with its unit, a UUID,
//! a MAC, a key naming a secret or a name.

use super::*;

/// Top-level domains and the like: a dotted word holding one is a host name.
pub(super) const TLDS: &[&str] = &[
    "com",
    "net",
    "org",
    "io",
    "local",
    "internal",
    "lan",
    "corp",
    "intra",
    "home",
    "arpa",
    "example",
    "localdomain",
    "edu",
    "gov",
    "cloud",
];

/// File name endings a dotted word of known words may have (`nova-compute.log`).
pub(super) const EXTENSIONS: &[&str] = &[
    "log", "conf", "cfg", "ini", "py", "pyc", "gz", "xz", "zst", "bz2", "json", "yaml", "yml",
    "txt", "sh", "service", "socket", "pid", "lock", "html", "svg", "tar", "tgz", "xml", "d",
    "err", "out", "journal", "target", "timer",
];

/// Words that say nothing whatever key they follow.
pub(super) fn is_literal(w: &str) -> bool {
    ["null", "none", "true", "false", "yes", "no", "nil", "unset"]
        .iter()
        .any(|l| l.eq_ignore_ascii_case(w))
}

pub(super) fn is_auth_scheme(w: &str) -> bool {
    ["basic", "bearer", "digest", "negotiate", "token"]
        .iter()
        .any(|l| l.eq_ignore_ascii_case(w))
}

/// Words whose next value is a secret or a name (options, JSON keys, CLI flags).
/// `buf` is scratch space (this runs for every word: no allocation).
pub(super) fn key_of(word: &str, flag: bool, buf: &mut String) -> Option<Key> {
    if !may_be_key(word) {
        return None;
    }
    buf.clear();
    if word.contains('-') {
        buf.extend(word.chars().map(|c| match c {
            '-' => '_',
            c => c.to_ascii_lowercase(),
        }));
    } else {
        // The same text: a copy and an ASCII fold, with no decoding char by char.
        buf.push_str(word);
        buf.make_ascii_lowercase();
    }
    let lower = buf.as_str();
    if lower == "authorization" || lower == "proxy_authorization" {
        return Some(Key::Authorization);
    }
    if lower == "bearer" || lower == "basic" {
        return Some(Key::Secret { flag: true });
    }
    let secret = crate::redact::secrets::names_a_secret(lower) || lower.ends_with("_pass");
    if secret {
        return Some(Key::Secret { flag });
    }
    let name = [
        "display_name",
        "name",
        "hostname",
        "host_name",
        "instance_name",
        "user",
        "username",
        "user_name",
        "project",
        "project_name",
        "tenant",
        "tenant_name",
        "domain",
        "domain_name",
        "user_domain_name",
        "project_domain_name",
        "os_username",
        "os_project_name",
        "os_user_domain_name",
        "os_project_domain_name",
        "nodename",
        "server_name",
        "owner",
        "login",
    ]
    .contains(&lower);
    name.then_some(Key::Name { flag })
}

/// Whether [`key_of`] may find a key in `word`: every key is at least `key` long, and
/// holds an ASCII letter past `f` (ids, numbers, addresses and versions, most words of a
/// line, hold none and are no key).
pub(super) fn may_be_key(word: &str) -> bool {
    word.len() >= 3
        && word
            .bytes()
            .any(|b| b.is_ascii_alphabetic() && !b.is_ascii_hexdigit())
}

/// A dashed UUID (8-4-4-4-12 hex digits, any case).
pub(super) fn is_uuid(w: &str) -> bool {
    let b = w.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, &c)| match i {
            8 | 13 | 18 | 23 => c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// A MAC written with dashes (`fa-16-3e-4b-9c-21`) or dotted (`fa16.3e4b.9c21`), in the
/// colon form the map keys MACs by.
pub(super) fn mac_of(w: &str) -> Option<String> {
    let hex: String = match w.len() {
        17 if w.split('-').count() == 6 && w.split('-').all(|p| p.len() == 2) => w.replace('-', ""),
        14 if w.split('.').count() == 3 && w.split('.').all(|p| p.len() == 4) => w.replace('.', ""),
        _ => return None,
    };
    if hex.len() != 12 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let hex = hex.to_ascii_lowercase();
    let pairs: Vec<&str> = (0..6).filter_map(|i| hex.get(2 * i..2 * i + 2)).collect();
    Some(pairs.join(":"))
}

/// Units a number may carry (`12ms`, `3.5s`, `512MiB`, `19:51:12Z`).
pub(super) const UNITS: &[&str] = &[
    "s", "ms", "us", "ns", "m", "h", "d", "sec", "secs", "min", "mins", "z", "k", "kb", "mb", "gb",
    "tb", "kib", "mib", "gib", "tib", "b", "g", "t", "x", "st", "nd", "rd", "th",
];

/// Digits, maybe with a unit, or a date and a time joined by `T` (`08T19`).
pub(super) fn is_number(p: &str) -> bool {
    let digits = p.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    let rest = &p[digits..];
    rest.is_empty()
        || UNITS.iter().any(|u| u.eq_ignore_ascii_case(rest))
        || rest
            .strip_prefix(['T', 't'])
            .is_some_and(|t| !t.is_empty() && is_number(t))
}
