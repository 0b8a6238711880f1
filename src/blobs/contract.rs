//! What every blob store does, checked against each backend (`tests.rs`): the folder,
//! and a real Swift and its S3 API (`throwaway_swift`).

use std::path::Path;

use super::{BlobError, BlobStore};

/// Bytes that differ from one position to the next, so a part sent twice or out of
/// order shows.
pub(crate) fn pattern(length: usize, seed: u8) -> Vec<u8> {
    (0..length)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[1] ^ seed)
        .collect()
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_default()
}

/// Runs the contract on `store` (empty under `prefix`), `large` bytes being above the
/// store's single-request limit as configured (multipart, SLO).
pub(crate) fn check(store: &dyn BlobStore, prefix: &str, large: usize) -> Result<(), BlobError> {
    let work = tempfile::tempdir().map_err(|e| BlobError::io("tempdir", e))?;
    let file = |name: &str, bytes: &[u8]| -> Result<std::path::PathBuf, BlobError> {
        let path = work.path().join(name);
        std::fs::write(&path, bytes).map_err(|e| BlobError::io(&path, e))?;
        Ok(path)
    };
    let key = |rest: &str| format!("{prefix}/{rest}");

    // Absent.
    assert_eq!(store.size(&key("none"))?, None);
    let fetched = work.path().join("fetched");
    assert_eq!(store.get_to_file(&key("none"), &fetched)?, None);
    assert!(!fetched.exists(), "nothing is written for a missing blob");
    assert_eq!(store.list(&format!("{prefix}/"))?, Vec::<String>::new());

    // Small, with a name as uploads have them (a space, a plus).
    let small = pattern(70_000, 1);
    let name = key("input/sosreport node1+x.tar.xz");
    assert_eq!(
        store.put_file(&name, &file("small", &small)?)?,
        small.len() as u64
    );
    assert_eq!(store.size(&name)?, Some(small.len() as u64));
    let into = work.path().join("deep/cache/small");
    assert_eq!(store.get_to_file(&name, &into)?, Some(small.len() as u64));
    assert_eq!(read(&into), small);

    // Replaced whole.
    let other = pattern(1_000, 2);
    store.put_file(&name, &file("other", &other)?)?;
    store.get_to_file(&name, &into)?;
    assert_eq!(read(&into), other, "a rewrite replaces the blob");

    // Large: in parts or segments, read back whole and in order.
    let big = pattern(large, 3);
    let big_key = key("a1/index.tar");
    assert_eq!(
        store.put_file(&big_key, &file("big", &big)?)?,
        big.len() as u64
    );
    assert_eq!(store.size(&big_key)?, Some(big.len() as u64));
    let back = work.path().join("big-back");
    assert_eq!(store.get_to_file(&big_key, &back)?, Some(big.len() as u64));
    assert!(read(&back) == big, "the large blob reads back as written");

    // Empty file.
    let empty = key("a1/empty");
    store.put_file(&empty, &file("empty", b"")?)?;
    assert_eq!(store.size(&empty)?, Some(0));

    // Listing by prefix: a key that merely starts alike is not inside a folder prefix.
    store.put_file(&key("a10/x"), &file("x", b"x")?)?;
    assert_eq!(
        store.list(&key("a1/"))?,
        vec![empty.clone(), big_key.clone()]
    );
    assert_eq!(store.list(&key("a1"))?.len(), 3);

    // Deleting: one, an absent one, a prefix.
    store.delete(&name)?;
    assert_eq!(store.size(&name)?, None);
    store.delete(&name)?;
    assert_eq!(store.delete_prefix(&key("a1/"))?, 2);
    assert_eq!(store.size(&big_key)?, None);
    assert_eq!(store.list(&format!("{prefix}/"))?, vec![key("a10/x")]);
    store.delete_prefix(&format!("{prefix}/"))?;
    assert_eq!(store.list(&format!("{prefix}/"))?, Vec::<String>::new());

    // Keys that could escape are refused before any request.
    for bad in ["../x", "a//b", ""] {
        assert!(matches!(
            store.put_file(bad, &file("bad", b"")?),
            Err(BlobError::InvalidKey(_))
        ));
    }
    Ok(())
}
