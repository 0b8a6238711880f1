//! The host name in a sosreport's folder or archive name, read the way sos writes it.
//!
//! sos (`sos/policies/__init__.py`, `get_archive_name`) builds the name from the short
//! host name (the part before the first `.`), then strips every character outside
//! `-a-zA-Z.0-9`:
//! - `friendly` (Debian, Ubuntu, RHEL since sos 3.6):
//!   `sosreport-<host>[-<label>][-<case id>]-<YYYY-MM-DD>-<7 random a-z>`;
//! - `legacy` (sos 2.x to 4.x by default): `sosreport-<host>[.<case id>]-<YYYYmmddHHMMSS>`;
//! - sos 1.x: `sosreport-<host>-<YYYYmmddHHMMSS>-<4 hex digits of the md5>`;
//! - then `.tar.xz`, `.tar.gz`, `.tar.bz2` or `.zip` when packed.
//!
//! A host name may itself end in `-01` or hold digits and dashes, so a dash-separated
//! number is taken as the case id only when it is as long as case ids are (five digits
//! or more); a `--label` cannot be told from the host name and stays in it (the
//! sosreport's own `hostname` file wins over the folder name anyway).

/// The shortest run of digits taken as a case id rather than part of the host name.
const MIN_CASE_ID_DIGITS: usize = 5;

/// The host of a sosreport folder or archive name, or `None` when the name is not one.
pub fn host_of_sos_name(name: &str) -> Option<&str> {
    let name = strip_archive_extension(name);
    let rest = name.strip_prefix("sosreport-")?;
    // The short host name never holds a dot: a dot starts the legacy case id.
    let rest = rest.split('.').next().unwrap_or(rest);
    let mut tokens: Vec<&str> = rest.split('-').collect();
    let dated = strip_date_and_random(&mut tokens);
    if !dated && tokens.len() > 1 && tokens.last().is_some_and(|t| is_random(t)) {
        tokens.pop();
    }
    if tokens.len() > 1 && tokens.last().is_some_and(|t| is_case_id(t)) {
        tokens.pop();
    }
    let host_len = tokens.iter().map(|t| t.len()).sum::<usize>() + tokens.len().saturating_sub(1);
    let host = rest.get(..host_len)?;
    (!host.is_empty()).then_some(host)
}

fn strip_archive_extension(name: &str) -> &str {
    for ext in [
        ".tar.xz", ".tar.gz", ".tar.bz2", ".tar.zst", ".tgz", ".txz", ".tar", ".zip",
    ] {
        if let Some(stem) = name.strip_suffix(ext) {
            return stem;
        }
    }
    name
}

fn digits(token: &str, len: usize) -> bool {
    token.len() == len && token.bytes().all(|b| b.is_ascii_digit())
}

/// Removes a trailing `YYYY-MM-DD-<random>`, `YYYYmmddHHMMSS[-<md5>]` or `YYYY-MM-DD`;
/// true when a date was found.
fn strip_date_and_random(tokens: &mut Vec<&str>) -> bool {
    let n = tokens.len();
    // friendly: ... YYYY MM DD random
    if n >= 5 && is_date(&tokens[n - 4..n - 1]) && is_random(tokens[n - 1]) {
        tokens.truncate(n - 4);
        return true;
    }
    // friendly without the random part (renamed by hand).
    if n >= 4 && is_date(&tokens[n - 3..]) {
        tokens.truncate(n - 3);
        return true;
    }
    // sos 1.x: ... YYYYmmddHHMMSS md5
    if n >= 3 && digits(tokens[n - 2], 14) && is_hex4(tokens[n - 1]) {
        tokens.truncate(n - 2);
        return true;
    }
    // legacy: ... YYYYmmddHHMMSS (or a bare YYYYmmdd)
    if n >= 2 && (digits(tokens[n - 1], 14) || digits(tokens[n - 1], 8)) {
        tokens.truncate(n - 1);
        return true;
    }
    false
}

fn is_date(parts: &[&str]) -> bool {
    let [year, month, day] = parts else {
        return false;
    };
    let number = |s: &str| s.parse::<u32>().unwrap_or(0);
    digits(year, 4)
        && digits(month, 2)
        && digits(day, 2)
        && (1..=12).contains(&number(month))
        && (1..=31).contains(&number(day))
}

/// sos writes 7 random lowercase letters; other collectors and older tools 6 or 7
/// lowercase letters and digits.
fn is_random(token: &str) -> bool {
    (6..=7).contains(&token.len())
        && token
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && token.bytes().any(|b| b.is_ascii_lowercase())
}

fn is_hex4(token: &str) -> bool {
    token.len() == 4 && token.bytes().all(|b| b.is_ascii_hexdigit())
}

fn is_case_id(token: &str) -> bool {
    token.len() >= MIN_CASE_ID_DIGITS && token.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn friendly_names_with_and_without_case_id() {
        let cases = [
            ("sosreport-ctl1-2024-05-21-xkqpwz", "ctl1"),
            ("sosreport-cmp2-2024-05-21-ab12cd", "cmp2"),
            ("sosreport-ctl-1-2023-03-08-qwmzkp", "ctl-1"),
            ("sosreport-compute-01-2024-05-21-ezcfcop", "compute-01"),
            (
                "sosreport-compute-01-00345678-2024-05-21-ezcfcop",
                "compute-01",
            ),
            (
                "sosreport-node02ob100-2020-12-08-abcdefg.tar.xz",
                "node02ob100",
            ),
            (
                "sosreport-juju-4f2a1c-3-lxd-4-2020-12-08-abcdefg",
                "juju-4f2a1c-3-lxd-4",
            ),
            (
                "sosreport-r1-cmp-12-123456-2024-01-02-qwertyu.tar.gz",
                "r1-cmp-12",
            ),
            (
                "sosreport-tux-mylabel-123456-2017-12-24-ezcfcop.tar.xz",
                "tux-mylabel",
            ),
        ];
        for (name, host) in cases {
            assert_eq!(host_of_sos_name(name), Some(host), "{name}");
        }
    }

    #[test]
    fn legacy_and_older_names() {
        let cases = [
            ("sosreport-tux.123456-20171224185433", "tux"),
            ("sosreport-ctl-01.01234567-20171224185433.tar.xz", "ctl-01"),
            ("sosreport-ctl-01-20171224185433", "ctl-01"),
            ("sosreport-ctl-01-20171224185433-a1b2.tar.bz2", "ctl-01"),
            ("sosreport-cmp1.02345678-2020-12-08-abcdefg", "cmp1"),
            ("sosreport-cmp-02-abc123", "cmp-02"),
            ("sosreport-cmp-02-x7k2mqa", "cmp-02"),
        ];
        for (name, host) in cases {
            assert_eq!(host_of_sos_name(name), Some(host), "{name}");
        }
    }

    #[test]
    fn names_that_are_not_sosreports() {
        assert_eq!(host_of_sos_name("ctl01"), None);
        assert_eq!(host_of_sos_name("sosreport-"), None);
        assert_eq!(host_of_sos_name("sosreport--2024-05-21-abcdefg"), None);
        // Only the host is left: nothing is taken for a date, case or random part.
        assert_eq!(host_of_sos_name("sosreport-cmp2"), Some("cmp2"));
        assert_eq!(host_of_sos_name("sosreport-db-01"), Some("db-01"));
    }
}
