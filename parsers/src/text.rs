//! Small text helpers shared by the productions: UUIDs, request ids, ANSI residue.

/// True when `s` is a canonical UUID (`8-4-4-4-12` hex digits, either case).
pub fn is_uuid(s: &str) -> bool {
    // Dashes first: most candidates fail there. Then the five groups of hex digits,
    // each a plain run (a test of the position per byte cost more than the digit).
    let b = s.as_bytes();
    let hex = |group: Option<&[u8]>| group.is_some_and(|g| g.iter().all(u8::is_ascii_hexdigit));
    b.len() == 36
        && [8, 13, 18, 23].iter().all(|&i| b.get(i) == Some(&b'-'))
        && hex(b.get(..8))
        && hex(b.get(9..13))
        && hex(b.get(14..18))
        && hex(b.get(19..23))
        && hex(b.get(24..))
}

/// True when `s` is an oslo request id: `req-` and a UUID.
pub fn is_request_id(s: &str) -> bool {
    s.strip_prefix("req-").is_some_and(is_uuid)
}

/// The UUID that starts `s`, if any.
pub fn uuid_prefix(s: &str) -> Option<&str> {
    s.get(..36).filter(|u| is_uuid(u))
}

/// The instance UUID of a Nova `/servers/<uuid>...` path (with or without a version or
/// project prefix, and a query string), e.g. `/v2.1/servers/<uuid>/action`.
pub fn server_uuid_in_path(path: &str) -> Option<&str> {
    // Built once: `memmem::find` builds a searcher per call.
    static SERVERS: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new("/servers/"));
    let at = SERVERS.find(path.as_bytes())?;
    uuid_prefix(path.get(at + "/servers/".len()..)?)
}

/// Every UUID in `text`, in order (bare, not `req-` ids).
pub fn uuids_in(text: &str) -> impl Iterator<Item = &str> + '_ {
    let bytes = text.as_bytes();
    let mut pos = 0;
    std::iter::from_fn(move || {
        // A UUID has a '-' at offset 8: look for dashes and check around them.
        while let Some(found) = memchr::memchr(b'-', bytes.get(pos..)?) {
            let dash = pos + found;
            pos = dash + 1;
            let Some(start) = dash.checked_sub(8) else {
                continue;
            };
            let Some(candidate) = text.get(start..start + 36) else {
                continue;
            };
            let boundary_before = start == 0 || !bytes[start - 1].is_ascii_alphanumeric();
            let boundary_after = bytes
                .get(start + 36)
                .is_none_or(|c| !c.is_ascii_alphanumeric());
            let is_req = start >= 4 && text.get(start - 4..start) == Some("req-");
            if boundary_before && boundary_after && !is_req && is_uuid(candidate) {
                pos = start + 36;
                return Some(candidate);
            }
        }
        None
    })
}

/// Removes the colour reset that oslo.log < 6.1.0 appends on stderr, in the three shapes
/// it reaches files: the real `ESC[00m`, the text `\x1b[00m` (Apache escapes the byte) and
/// a bare `[00m` (a collector dropped the ESC). Also trims a trailing `\r`.
pub fn strip_colour_reset(line: &str) -> &str {
    let mut s = line.strip_suffix('\r').unwrap_or(line);
    // Every residue ends with `m`: most lines end otherwise, and are done.
    if !s.ends_with('m') {
        return s;
    }
    loop {
        let before = s;
        for residue in ["\u{1b}[00m", "\\x1b[00m", "\u{1b}[0m", "\\x1b[0m", "[00m"] {
            if let Some(rest) = s.strip_suffix(residue) {
                s = rest;
            }
        }
        if s.len() == before.len() {
            return s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_checks() {
        assert!(is_uuid("56ce6206-3659-495e-a6ea-f4d3d578cc96"));
        assert!(!is_uuid("56ce6206-3659-495e-a6ea-f4d3d578cc9"));
        assert!(!is_uuid("56ce6206x3659-495e-a6ea-f4d3d578cc96"));
        assert!(is_request_id("req-009aadf7-5b16-4432-b987-2c4db03e5793"));
        assert!(!is_request_id("req-None"));
    }

    /// The definition, one byte at a time.
    fn is_uuid_by_position(s: &str) -> bool {
        let b = s.as_bytes();
        b.len() == 36
            && b.iter().enumerate().all(|(i, c)| match i {
                8 | 13 | 18 | 23 => *c == b'-',
                _ => c.is_ascii_hexdigit(),
            })
    }

    #[test]
    fn uuid_check_agrees_with_the_definition_at_every_position() {
        let good = "56CE6206-3659-495e-a6ea-f4d3d578cc96";
        assert!(is_uuid(good));
        for at in 0..good.len() {
            for c in ['-', '0', 'f', 'F', 'g', ' ', 'é'] {
                let mut text = good.to_string();
                text.replace_range(at..at + 1, &c.to_string());
                assert_eq!(is_uuid(&text), is_uuid_by_position(&text), "{text}");
            }
        }
        for text in [
            "",
            "-",
            &good[1..],
            &format!("{good}0"),
            &good.replace('-', ""),
        ] {
            assert_eq!(is_uuid(text), is_uuid_by_position(text), "{text}");
        }
    }

    #[test]
    fn colour_reset_fast_path_keeps_other_endings() {
        for line in ["x", "x\r", "warm", "a[00m\r", "", "m"] {
            let mut s = line.strip_suffix('\r').unwrap_or(line);
            for residue in ["\u{1b}[00m", "\\x1b[00m", "\u{1b}[0m", "\\x1b[0m", "[00m"] {
                s = s.strip_suffix(residue).unwrap_or(s);
            }
            assert_eq!(strip_colour_reset(line), s, "{line:?}");
        }
    }

    #[test]
    fn server_uuid_from_paths() {
        assert_eq!(
            server_uuid_in_path("/v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action"),
            Some("56ce6206-3659-495e-a6ea-f4d3d578cc96")
        );
        assert_eq!(
            server_uuid_in_path("/v2.1/servers/cd3fb57b-9f28-422f-9a0c-d56dfb89ee94"),
            Some("cd3fb57b-9f28-422f-9a0c-d56dfb89ee94")
        );
        assert_eq!(
            server_uuid_in_path("/v2.1/servers/detail?name=juju-.%2A"),
            None
        );
        assert_eq!(server_uuid_in_path("/v2.1/servers/sixthVM"), None);
    }

    #[test]
    fn uuids_in_message_skip_request_ids() {
        let msg = "Failed to process notification '9ace2da7-97d1-48cb-a96a-08ad4624481b'. \
                   Reason: req-11111111-2222-3333-4444-555555555555 instances \
                   '56ce6206-3659-495e-a6ea-f4d3d578cc96,7d1e5f0a-0000-4000-8000-000000000001'";
        let found: Vec<_> = uuids_in(msg).collect();
        assert_eq!(
            found,
            [
                "9ace2da7-97d1-48cb-a96a-08ad4624481b",
                "56ce6206-3659-495e-a6ea-f4d3d578cc96",
                "7d1e5f0a-0000-4000-8000-000000000001"
            ]
        );
        assert_eq!(uuids_in("no ids - here -").count(), 0);
    }

    #[test]
    fn colour_reset_residue_is_removed() {
        assert_eq!(
            strip_colour_reset("not re-initializing.\\x1b[00m"),
            "not re-initializing."
        );
        assert_eq!(strip_colour_reset("(HTTP 503)[00m"), "(HTTP 503)");
        assert_eq!(strip_colour_reset("done\u{1b}[00m\r"), "done");
        assert_eq!(strip_colour_reset("plain"), "plain");
    }
}
