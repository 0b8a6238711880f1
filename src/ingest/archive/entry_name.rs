//! Turning an entry name, as the archive spells it, into a path that stays inside the
//! destination, or a reason to skip the entry.

use std::path::PathBuf;

/// The longest name of one file or folder Linux file systems take (`NAME_MAX`).
pub(super) const MAX_COMPONENT_BYTES: usize = 255;

/// The path of an entry relative to the destination.
///
/// `Ok(None)` is the archive root (`./`), which needs no writing. `..` is refused
/// anywhere, even where it would stay inside, because archivers never write it.
/// Backslashes count as separators only for that check: on Linux `a\x2db` is an
/// ordinary name (systemd units use them).
pub(super) fn relative_path(name: &str) -> Result<Option<PathBuf>, &'static str> {
    if name.contains('\0') {
        return Err("name contains a NUL byte");
    }
    if name.starts_with('/') || name.starts_with('\\') {
        return Err("absolute path");
    }
    if let [letter, b':', ..] = name.as_bytes()
        && letter.is_ascii_alphabetic()
    {
        return Err("windows drive prefix");
    }
    let mut path = PathBuf::new();
    for part in name.split('/') {
        if part.split('\\').any(|piece| piece == "..") {
            return Err("'..' component");
        }
        if part.len() > MAX_COMPONENT_BYTES {
            return Err("a name in the path is over 255 bytes, too long for the file system");
        }
        if !part.is_empty() && part != "." {
            path.push(part);
        }
    }
    Ok((!path.as_os_str().is_empty()).then_some(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(name: &str) -> String {
        relative_path(name).unwrap().unwrap().display().to_string()
    }

    #[test]
    fn keeps_ordinary_names() {
        assert_eq!(
            ok("sosreport-cmp1/var/log/nova/nova-compute.log"),
            "sosreport-cmp1/var/log/nova/nova-compute.log"
        );
        assert_eq!(ok("./etc//nova/"), "etc/nova");
        assert_eq!(
            ok("etc/systemd/dev-disk-by\\x2duuid.swap"),
            "etc/systemd/dev-disk-by\\x2duuid.swap"
        );
        assert_eq!(ok("a..b/..c"), "a..b/..c");
        assert_eq!(relative_path("./").unwrap(), None);
        assert_eq!(relative_path("").unwrap(), None);
    }

    #[test]
    fn refuses_names_that_leave_the_destination() {
        assert_eq!(relative_path("../etc/passwd"), Err("'..' component"));
        assert_eq!(relative_path("a/../../b"), Err("'..' component"));
        assert_eq!(relative_path("a/.."), Err("'..' component"));
        assert_eq!(relative_path("a\\..\\..\\b"), Err("'..' component"));
        assert_eq!(relative_path("/etc/passwd"), Err("absolute path"));
        assert_eq!(relative_path("\\windows\\x"), Err("absolute path"));
        assert_eq!(relative_path("C:\\x"), Err("windows drive prefix"));
        assert_eq!(relative_path("c:x"), Err("windows drive prefix"));
        assert_eq!(relative_path("a\0b"), Err("name contains a NUL byte"));
        let long = format!("ctl1/{}/x.log", "n".repeat(256));
        assert_eq!(
            relative_path(&long),
            Err("a name in the path is over 255 bytes, too long for the file system")
        );
        assert!(relative_path(&format!("ctl1/{}", "n".repeat(255))).is_ok());
    }
}
