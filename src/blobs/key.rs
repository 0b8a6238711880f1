//! Blob keys: `/`-separated segments, each non-empty, not `.` or `..`, without control
//! characters or `\`; so a key is also a safe relative path under the folder backend's
//! root, and one spelling per blob on every backend.

use super::error::BlobError;

/// Refuses a key that could name something outside its store or be read two ways.
pub fn check_key(key: &str) -> Result<(), BlobError> {
    let bad = key.is_empty()
        || key.len() > 1024
        || key
            .split('/')
            .any(|segment| segment.is_empty() || segment == "." || segment == "..")
        || key.chars().any(|c| c.is_control() || c == '\\');
    if bad {
        return Err(BlobError::InvalidKey(key.to_owned()));
    }
    Ok(())
}

/// A prefix to list or delete: a key, or a key followed by `/`.
pub(crate) fn check_prefix(prefix: &str) -> Result<(), BlobError> {
    check_key(prefix.strip_suffix('/').unwrap_or(prefix))
}

/// `key` encoded for a URL path as S3's signature wants it (RFC 3986 unreserved kept,
/// everything else `%XX`, the `/` between segments kept); Swift takes the same.
pub(crate) fn encode_path(key: &str) -> String {
    key.split('/').map(encode).collect::<Vec<_>>().join("/")
}

/// RFC 3986 percent-encoding of everything but the unreserved characters.
pub(crate) fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_that_could_escape_or_read_two_ways_are_refused() {
        for bad in [
            "",
            "/abs",
            "a//b",
            "a/../b",
            "..",
            "a/.",
            "trailing/",
            "tab\there",
            "back\\slash",
        ] {
            assert!(check_key(bad).is_err(), "{bad:?} accepted");
        }
        for good in [
            "analyses/3f2b8c1e-9d4a-4e6b-8a7c-1b2c3d4e5f60/input/sosreport node1.tar.xz",
            "a/b.c/d",
            "ünïcode",
        ] {
            assert!(check_key(good).is_ok(), "{good:?} refused");
        }
        assert!(check_prefix("analyses/x/").is_ok());
        assert!(check_prefix("analyses//").is_err());
    }

    #[test]
    fn paths_are_encoded_as_the_s3_signature_expects() {
        assert_eq!(
            encode_path("analyses/id/input/a b+c~d.tar"),
            "analyses/id/input/a%20b%2Bc~d.tar"
        );
        assert_eq!(encode("ü"), "%C3%BC");
    }
}
