//! The hostile corpus through `evacdoc analyze` and through the service's upload, and
//! the service under faults (full disk, bad requests, slow clients, bad tokens).

mod cli;
pub mod corpus;
mod faults;
pub mod server;
mod service;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

/// Every entry under `root` (symlinks not followed): its kind and size, by path. The
/// service may still be writing under it (an index built after its analysis ended,
/// segment files merged away): an entry that vanishes during the walk is left out.
pub fn snapshot(root: &Path) -> BTreeMap<String, String> {
    let gone = |e: &std::io::Error| e.kind() == std::io::ErrorKind::NotFound;
    let mut tree = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if gone(&e) && dir != root => continue,
            Err(e) => panic!("{}: {e}", dir.display()),
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let meta = match std::fs::symlink_metadata(&path) {
                Ok(meta) => meta,
                Err(e) if gone(&e) => continue,
                Err(e) => panic!("{}: {e}", path.display()),
            };
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let kind = if meta.is_dir() {
                stack.push(path);
                "dir".to_string()
            } else if meta.file_type().is_symlink() {
                "symlink".to_string()
            } else {
                format!("file {}", meta.len())
            };
            tree.insert(rel, kind);
        }
    }
    tree
}

/// Checks an analysis document (or a failure's message) against what `case` expects;
/// `message` is the error when there is no document.
pub fn check(case: &corpus::Case, doc: Option<&Value>, message: &str) {
    let name = case
        .path
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    match (&case.expect, doc) {
        (corpus::Expect::Partial(pairs), Some(doc)) => {
            let skipped = doc["analysis"]["skipped"].as_array().unwrap();
            for (path, reason) in pairs {
                assert!(
                    skipped.iter().any(|s| {
                        s["path"].as_str().unwrap().contains(path)
                            && s["reason"].as_str().unwrap().contains(reason)
                    }),
                    "{}: no skipped {path:?} for {reason:?} in {skipped:#?}",
                    case.name
                );
            }
            let files: Vec<&str> = doc["analysis"]["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["path"].as_str().unwrap())
                .collect();
            if name.starts_with("odd") {
                // Long lines, NULs, invalid UTF-8, CRLF, odd times and names: all read.
                assert!(files.len() >= 9, "{files:?}");
            }
            assert!(
                files
                    .iter()
                    .any(|f| f.ends_with("masakari/masakari-engine.log"))
                    || name.ends_with(".log.1.gz"),
                "{}: the good log was not read: {files:?}",
                case.name
            );
        }
        (corpus::Expect::Refused(reason), None) => {
            assert!(
                message.contains(&name) && message.contains(reason),
                "{}: {message:?} should name {name} and say {reason:?}",
                case.name
            );
        }
        (expect, doc) => panic!(
            "{}: expected {expect:?}, got {} ({message})",
            case.name,
            doc.map_or("a refusal", |_| "an analysis")
        ),
    }
}
