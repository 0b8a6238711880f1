//! Values found by their shape and given pseudonyms: IPv4 (the /24 network mapped as a
//! unit, so addresses of one network stay in one pseudonymous network), IPv6, MAC
//! addresses, e-mail addresses, Keystone ids (32 hex digits), addresses inside host
//! names (`dhcp-192-168-0-66`), and the user and project names of oslo context brackets.

use std::sync::LazyLock;

use regex::Regex;

#[cfg(test)]
use super::map::PseudonymMap;
use super::map::{Kind, Pseudonyms};

/// One pattern per shape, tried leftmost-first at each position.
pub(super) static SHAPES: LazyLock<Regex> = LazyLock::new(|| {
    #[allow(clippy::expect_used)]
    Regex::new(concat!(
        r"(?P<mapped>::[fF]{4}:(?:\d{1,3}\.){3}\d{1,3}\b)",
        r"|(?P<email>[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)",
        r"|(?P<mac>\b[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}\b)",
        r"|(?P<ipv6>(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4})",
        r"|(?P<ipv4>\b(?:\d{1,3}\.){3}\d{1,3}\b)",
        r"|(?P<dashed>\b[A-Za-z][A-Za-z0-9]*-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}\b)",
        r"|(?P<hex>\b[0-9a-f]{32}\b)",
        r"|(?P<context>\[(?:(?:req-[0-9a-f-]{36}|None) )?req-[0-9a-f-]{36} [^\s\]]+ [^\s\]]+)",
    ))
    .expect("valid shape pattern")
});

/// Service accounts every cloud has: not the customer's, and what a reader needs.
const SERVICE_ACCOUNTS: &[&str] = &[
    "admin",
    "service",
    "services",
    "nova",
    "masakari",
    "cinder",
    "neutron",
    "glance",
    "placement",
    "keystone",
    "octavia",
    "heat",
    "barbican",
    "ironic",
    "swift",
    "default",
];

/// Whether `word` is one of the [`SERVICE_ACCOUNTS`], in any letter case.
pub(super) fn is_service_account(word: &str) -> bool {
    SERVICE_ACCOUNTS
        .iter()
        .any(|a| a.eq_ignore_ascii_case(word))
}

/// A cheap test that a line may hold any of the shapes.
fn may_match(line: &str) -> bool {
    line.bytes()
        .any(|b| matches!(b, b'.' | b':' | b'@' | b'[' | b'-') || b.is_ascii_hexdigit())
}

/// The matches of [`SHAPES`] in `text`, leftmost first, but times: the IPv6 alternative
/// also matches `19:51:12` (on nearly every log line), which is no address, and a match
/// starting inside one (`19:51:10.0.0.5`) is not hidden by it.
pub(super) fn shape_matches(text: &str) -> impl Iterator<Item = regex::Match<'_>> {
    let mut at = 0;
    std::iter::from_fn(move || {
        while let Some(m) = SHAPES.find_at(text, at) {
            if is_time(m.as_str()) {
                // No other alternative matches where a time starts (it starts with a
                // digit and has a `:` within five bytes): the next match is further on.
                at = m.start() + after_time(text, m.start(), m.end());
                continue;
            }
            at = m.end();
            return Some(m);
        }
        None
    })
}

/// How far past the start of a time match (`start..end` of `text`) the search for the
/// next match may resume: 1 in general, 6 for the usual `hh:mm:ss` (`d` a digit, the
/// byte after it neither a hex digit nor `:`, as the greedy IPv6 alternative leaves it).
/// For that time the resumed searches would find, in turn: at +1 `d:dd:dd` and at +2
/// `:dd:dd` (the IPv6 alternative, the first that matches there: no `::`, no `@`, no
/// word boundary between two digits for the MAC), both times again; at +3 `dd:dd`, +4
/// `d:dd` and +5 `:dd` nothing (one colon before a byte that is neither hex nor `:` is
/// too few for IPv6 and MAC, `:` ends the IPv4, e-mail and hex runs, no letter starts a
/// dashed name, no `::` or `[`). So the match found from +1 is the one found from +6
/// (`19:51:10.0.0.5` still finds `10.0.0.5` there): two searches fewer per time.
fn after_time(text: &str, start: usize, end: usize) -> usize {
    let b = text.as_bytes();
    let hms = end - start == 8
        && b[start..end].iter().enumerate().all(|(i, c)| match i {
            2 | 5 => *c == b':',
            _ => c.is_ascii_digit(),
        })
        && b.get(end)
            .is_none_or(|c| !c.is_ascii_hexdigit() && *c != b':');
    if hms { 6 } else { 1 }
}

/// Whether a match of [`SHAPES`] is a time the IPv6 alternative took: digits and fewer
/// than seven colons, no `::` (an address in digits only has eight groups).
fn is_time(text: &str) -> bool {
    let b = text.as_bytes();
    b.iter().all(|&c| c.is_ascii_digit() || c == b':')
        && b.iter().filter(|&&c| c == b':').count() < 7
        && !text.contains("::")
        && Shape::of(text) == Shape::Ipv6
}

/// What one byte pass over a text says [`shape_matches`] may find there that
/// [`replace_one`] replaces (a dashed address aside): the pattern runs only on texts
/// that may hold one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Possible {
    /// No shape: no `@`, no `::`, no run of hex digits and colons with five colons or of
    /// digits and dots with three dots, no 32 hex digits in a row, no context bracket.
    Nothing,
    /// Only context brackets (`[req-…`, `[None req-…`).
    Contexts,
    /// Anything.
    Any,
}

pub(super) fn possible_shapes(text: &str) -> Possible {
    let b = text.as_bytes();
    let mut found = Possible::Nothing;
    // Runs: hex digits and colons (MAC, IPv6), digits and dots (IPv4), lowercase hex
    // digits (Keystone ids).
    let (mut colons, mut dots, mut hex) = (0, 0, 0);
    for (at, &c) in b.iter().enumerate() {
        match c {
            b'@' => return Possible::Any,
            b':' => {
                if b.get(at + 1) == Some(&b':') {
                    return Possible::Any;
                }
                colons += 1;
                if colons >= 5 {
                    return Possible::Any;
                }
                dots = 0;
                hex = 0;
            }
            b'.' => {
                dots += 1;
                if dots >= 3 {
                    return Possible::Any;
                }
                colons = 0;
                hex = 0;
            }
            b'0'..=b'9' | b'a'..=b'f' => {
                hex += 1;
                if hex >= 32 {
                    return Possible::Any;
                }
                if c >= b'a' {
                    dots = 0;
                }
            }
            b'A'..=b'F' => {
                hex = 0;
                dots = 0;
            }
            b'[' => {
                let after = &b[at + 1..];
                if after.starts_with(b"req-") || after.starts_with(b"None ") {
                    found = Possible::Contexts;
                }
                (colons, dots, hex) = (0, 0, 0);
            }
            _ => (colons, dots, hex) = (0, 0, 0),
        }
    }
    found
}

/// `line` with every shaped value replaced; `None` when nothing changed.
///
/// The pattern finds each value's span only (the lazy DFA); which shape it is comes from
/// its text, which tells the alternatives apart (see `Shape::of`): running the pattern
/// for its capture groups cost a third of `evacdoc redact`'s time.
pub fn redact_shapes(line: &str, map: &mut dyn Pseudonyms) -> Option<String> {
    if !may_match(line) {
        return None;
    }
    let mut out = String::new();
    let mut copied = 0;
    let mut changed = false;
    for m in shape_matches(line) {
        let whole = m.as_str();
        let Some(replaced) = replace_one(whole, map) else {
            continue;
        };
        if replaced != whole {
            out.push_str(&line[copied..m.start()]);
            out.push_str(&replaced);
            copied = m.end();
            changed = true;
        }
    }
    if !changed {
        return None;
    }
    out.push_str(&line[copied..]);
    Some(out)
}

/// Which alternative of [`SHAPES`] a match is, from its text: only an e-mail address
/// holds `@`, only a context bracket starts with `[`, only MAC and IPv6 addresses hold
/// `:` (a MAC is exactly six pairs, the alternative tried first), only an IPv4 address
/// is digits and dots, only a dashed host name holds `-`; the rest is a hex id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    Mapped,
    Email,
    Mac,
    Ipv6,
    Ipv4,
    Dashed,
    Hex,
    Context,
}

impl Shape {
    pub(super) fn of(text: &str) -> Shape {
        let b = text.as_bytes();
        if b.first() == Some(&b'[') {
            Shape::Context
        } else if b.contains(&b':') && b.contains(&b'.') && !b.contains(&b'@') {
            Shape::Mapped
        } else if b.contains(&b'@') {
            Shape::Email
        } else if b.contains(&b':') {
            let mac = b.len() == 17
                && b.chunks(3)
                    .all(|c| c[0].is_ascii_hexdigit() && c[1].is_ascii_hexdigit());
            if mac { Shape::Mac } else { Shape::Ipv6 }
        } else if b.contains(&b'-') {
            Shape::Dashed
        } else if b.contains(&b'.') {
            Shape::Ipv4
        } else {
            Shape::Hex
        }
    }
}

pub(super) fn replace_one(text: &str, map: &mut dyn Pseudonyms) -> Option<String> {
    match Shape::of(text) {
        // `::ffff:a.b.c.d`: the IPv4 inside gets the pseudonym it gets elsewhere.
        Shape::Mapped => {
            let (prefix, v4) = text.rsplit_once(':')?;
            Some(format!(
                "{}:{}",
                prefix.to_ascii_lowercase(),
                ipv4(v4, '.', map)?
            ))
        }
        Shape::Email => Some(map.pseudonym(Kind::Email, &text.to_ascii_lowercase())),
        Shape::Mac => Some(map.pseudonym(Kind::Mac, &text.to_ascii_lowercase())),
        Shape::Ipv6 => ipv6(text, map),
        Shape::Ipv4 => ipv4(text, '.', map),
        Shape::Dashed => {
            let (head, addr) = text.split_once('-')?;
            Some(format!("{head}-{}", ipv4(addr, '-', map)?))
        }
        Shape::Hex => Some(map.pseudonym(Kind::KeystoneId, text)),
        Shape::Context => Some(context_names(text, map)),
    }
}

/// An IPv4 address `a.b.c.d` (or `a-b-c-d` inside a host name): the network `a.b.c`
/// gets a pseudonym, the host part stays. Loopback, unspecified, netmasks and the
/// metadata address are kept; anything with an octet over 255 is not an address.
fn ipv4(text: &str, sep: char, map: &mut dyn Pseudonyms) -> Option<String> {
    let octets: Vec<u16> = text
        .split(sep)
        .map(|o| o.parse().ok())
        .collect::<Option<_>>()?;
    if octets.len() != 4 || octets.iter().any(|&o| o > 255) {
        return None;
    }
    let generic =
        matches!(octets[0], 0 | 127 | 255) || octets == [169, 254, 169, 254] || octets[0] >= 224;
    if generic {
        return None;
    }
    let net = format!("{}.{}.{}", octets[0], octets[1], octets[2]);
    let pseudo = map.pseudonym(Kind::Ipv4Net, &net);
    let full = format!("{pseudo}.{}", octets[3]);
    Some(if sep == '.' {
        full
    } else {
        full.replace('.', &sep.to_string())
    })
}

/// An IPv6 address: at least two groups and either `::` or eight groups, and a hex
/// letter or `::` (so that `19:51:12` stays a time). Loopback and unspecified kept.
fn ipv6(text: &str, map: &mut dyn Pseudonyms) -> Option<String> {
    // `fe80::1:` (an address before a port or a label): the colon is not the address's.
    if let Some(address) = text.strip_suffix(':')
        && !address.ends_with(':')
    {
        return ipv6(address, map).map(|p| p + ":");
    }
    let colons = text.bytes().filter(|&b| b == b':').count();
    let compressed = text.contains("::");
    if !(compressed || colons == 7) || text == "::" || text == "::1" {
        return None;
    }
    let groups: Vec<&str> = text.split(':').filter(|g| !g.is_empty()).collect();
    if groups.len() < 2 && !compressed {
        return None;
    }
    // Eight groups are an address even in digits only (a time has at most three).
    if !compressed && colons != 7 && !text.bytes().any(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    if groups.is_empty() {
        return None;
    }
    Some(map.pseudonym(Kind::Ipv6, &text.to_ascii_lowercase()))
}

/// The user and project of an oslo context bracket, when they are names (ids are
/// 32 hex digits, replaced as Keystone ids).
fn context_names(bracket: &str, map: &mut dyn Pseudonyms) -> String {
    // The words as they are but the last two, with no copy of each word.
    let n = bracket.split(' ').count();
    let mut out = String::with_capacity(bracket.len() + 16);
    for (i, word) in bracket.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let kind = if i + 2 == n {
            Kind::User
        } else if i + 1 == n {
            Kind::Project
        } else {
            out.push_str(word);
            continue;
        };
        let is_hex = word.len() == 32 && word.bytes().all(|b| b.is_ascii_hexdigit());
        if word == "-" || word == "None" || is_service_account(word) {
            out.push_str(word);
            continue;
        }
        // One pseudonym whatever the letter case the value is written in.
        let lower = word.to_ascii_lowercase();
        out.push_str(&if is_hex {
            map.pseudonym(Kind::KeystoneId, &lower)
        } else {
            map.pseudonym(kind, &lower)
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(line: &str) -> String {
        let mut m = PseudonymMap::with_key("k");
        redact_shapes(line, &mut m).unwrap_or_else(|| line.to_string())
    }

    /// The shape told from a match's text is the alternative the pattern took.
    #[test]
    fn shapes_told_from_text_are_the_pattern_alternatives() {
        let line = "jane.doe@acme.example.com fa:16:3e:12:34:56 fe80::f816:3eff:fe12:3456 \
                    10.5.0.17 dhcp-192-168-0-66 0f1e2d3c4b5a69788796a5b4c3d2e1f0 \
                    [req-11111111-2222-3333-4444-555555555555 alice acme] 19:51:12.309 \
                    ab:cd:ef:01:23:45:67 2001:db8::1";
        let names = [
            ("mapped", Shape::Mapped),
            ("email", Shape::Email),
            ("mac", Shape::Mac),
            ("ipv6", Shape::Ipv6),
            ("ipv4", Shape::Ipv4),
            ("dashed", Shape::Dashed),
            ("hex", Shape::Hex),
            ("context", Shape::Context),
        ];
        let mut seen = 0;
        for c in SHAPES.captures_iter(line) {
            let (group, shape) = names
                .iter()
                .find(|(name, _)| c.name(name).is_some())
                .unwrap();
            assert_eq!(Shape::of(&c[0]), *shape, "{group}: {}", &c[0]);
            seen += 1;
        }
        assert!(seen >= 10, "{seen}");
    }

    #[test]
    fn addresses_keep_their_network_and_times_stay() {
        let mut m = PseudonymMap::with_key("k");
        let a = redact_shapes("from 172.27.100.131 and 172.27.100.141", &mut m).unwrap();
        let words: Vec<&str> = a.split(' ').collect();
        let (x, y) = (words[1], words[3]);
        assert!(x.ends_with(".131") && y.ends_with(".141"), "{a}");
        assert_eq!(x.rsplit_once('.').unwrap().0, y.rsplit_once('.').unwrap().0);
        assert!(!a.contains("172.27.100"));
        let line = "2020-12-08 19:51:12.309 235 INFO x [-] up 127.0.0.1 mask 255.255.255.0";
        assert_eq!(run(line), line);
    }

    #[test]
    fn ipv6_mac_email_ids_and_dashed_hosts() {
        let out = run("fe80::f816:3eff:fe12:3456 fa:16:3e:12:34:56 jane.doe@acme.example.com");
        assert!(!out.contains("fe80::f816"), "{out}");
        assert!(!out.contains("fa:16:3e:12:34:56"), "{out}");
        assert!(!out.contains("jane.doe"), "{out}");
        let out = run("host dhcp-192-168-0-66 and abc-10.159.14.1 up");
        assert!(
            !out.contains("192-168-0") && !out.contains("10.159.14"),
            "{out}"
        );
        assert!(out.starts_with("host dhcp-10-"), "{out}");
        let out = run("project a7d812868cb74f1a978035530f55f1d0 gone");
        assert!(!out.contains("a7d812868cb74f1a978035530f55f1d0"), "{out}");
        assert_eq!(out.split(' ').nth(1).unwrap().len(), 32);
        // Request and instance UUIDs stay.
        let line = "req-de081ecf-4201-4542-b092-e21b2f5ce942 56ce6206-3659-495e-a6ea-f4d3d578cc96";
        assert_eq!(run(line), line);
    }

    /// The IPv6 alternative of the pattern also matches `hh:mm:ss`: such a match is a
    /// time, and what starts inside it is still found.
    #[test]
    fn times_are_no_addresses_and_hide_none() {
        let lines = [
            "2020-12-08 19:51:12.309 235 INFO masakari.compute.nova [req-de081ecf-4201-4542-b092-e21b2f5ce942 masakari - - - -] Call evacuate command for instance 56ce6206-3659-495e-a6ea-f4d3d578cc96 on host None",
            "Dec  8 19:51:12 node02ob100 nova-compute[3412]: 2020-12-08 19:51:12.671 3412 INFO nova.compute.manager [-] Took 0.52 seconds",
            "10.5.0.17 - - [08/Dec/2020:19:51:12 +0000] \"POST /v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action HTTP/1.1\" 400 105 1240",
        ];
        for line in lines {
            for m in shape_matches(line) {
                assert!(
                    !m.as_str().bytes().all(|b| b.is_ascii_digit() || b == b':'),
                    "{line}: {}",
                    m.as_str()
                );
            }
            assert!(run(line).contains("19:51:12"), "{line}");
        }
        // The time's match used to take `19:51:10` and hide the address after it.
        let out = run("lease renewed 19:51:10.5.0.17 ok");
        assert!(!out.contains("10.5.0.17"), "{out}");
        assert!(out.starts_with("lease renewed 19:51:"), "{out}");
    }

    /// Where the byte pass finds no shape, the pattern replaces nothing; where it finds
    /// context brackets only, the pattern replaces those the bracket reader finds. Every
    /// line of the sample scenarios.
    #[test]
    fn the_byte_pass_misses_no_shape_of_the_samples() {
        let (mut lines, mut skipped) = (0, 0);
        for text in crate::redact::sample_texts::sample_texts() {
            for line in text.lines() {
                let mut m = PseudonymMap::with_key("k");
                let replaced: Vec<_> = shape_matches(line)
                    .filter(|x| Shape::of(x.as_str()) != Shape::Dashed)
                    .filter_map(|x| replace_one(x.as_str(), &mut m).map(|_| x.range()))
                    .collect();
                lines += 1;
                match possible_shapes(line) {
                    Possible::Nothing => assert!(replaced.is_empty(), "{line}"),
                    Possible::Contexts => {
                        let spans: Vec<_> = super::super::identify::context_spans(line)
                            .map(|(r, _, _)| r)
                            .collect();
                        assert_eq!(replaced, spans, "{line}");
                    }
                    Possible::Any => {}
                }
                if possible_shapes(line) != Possible::Any {
                    skipped += 1;
                }
            }
        }
        assert!(lines > 10_000 && skipped > lines / 4, "{lines} {skipped}");
    }

    /// Resuming 6 bytes past an `hh:mm:ss` finds what resuming byte by byte found: every
    /// line of the sample scenarios and times next to addresses, hex and colons.
    #[test]
    fn skipping_into_a_time_finds_what_byte_by_byte_found() {
        fn byte_by_byte(text: &str) -> Vec<std::ops::Range<usize>> {
            let mut at = 0;
            let mut found = Vec::new();
            while let Some(m) = SHAPES.find_at(text, at) {
                if is_time(m.as_str()) {
                    at = m.start() + 1;
                    continue;
                }
                at = m.end();
                found.push(m.range());
            }
            found
        }
        let mut lines: Vec<String> = [
            "lease renewed 19:51:10.5.0.17 ok",
            "at 19:51:12:34:56:78 and 19:51:12 fe80::1 19:51:1234 19:51:12ab 19:51:12:",
            "x19:51:12 ::19:51:12 [19:51:12] 19:51:12@acme.example.com 12:34:56 ab:cd",
            "2020-12-08 19:51:12.309 235 INFO masakari.compute.nova [req-de081ecf-4201-4542-b092-e21b2f5ce942 masakari - - - -] Call",
            "Dec  8 19:51:12 node02ob100 nova-compute[3412]: 2020-12-08 19:51:12.671 3412 INFO x",
            "19:51:12-10-0-0-5 19:51:12 10.0.0.5 19:51:12.10.0.0.5 19:51:12 a 19:51:12-x",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for text in crate::redact::sample_texts::sample_texts() {
            lines.extend(text.lines().map(str::to_string));
        }
        assert!(lines.len() > 10_000, "{}", lines.len());
        for line in &lines {
            let now: Vec<_> = shape_matches(line).map(|m| m.range()).collect();
            assert_eq!(now, byte_by_byte(line), "{line}");
        }
    }

    #[test]
    fn context_names_but_service_accounts() {
        let out = run(
            "[None req-de081ecf-4201-4542-b092-e21b2f5ce942 jdoe acme-prod - - default default] hi",
        );
        assert!(!out.contains("jdoe") && !out.contains("acme-prod"), "{out}");
        assert!(out.contains("user-") && out.contains("project-"), "{out}");
        let line = "[req-de081ecf-4201-4542-b092-e21b2f5ce942 req-5c2e8f14-7b3a-4d90-a6e1-0f9d8c7b2a35 nova service - - -] x";
        assert_eq!(run(line), line);
    }
}
