//! Extracting a tar stream entry by entry, as the decompressor yields it.

use std::io::Read;
use std::path::PathBuf;
use std::time::{Duration, UNIX_EPOCH};

use tar::EntryType;

use super::entry_name::relative_path;
use super::sink::{Sink, Written};
use crate::ingest::IngestError;
use crate::ingest::decompress::damaged;

/// Extracts every entry it can. A hard limit is an error; damage ends the stream, and
/// comes back as `Ok(Some(..))` after the entries before it were written.
pub(super) fn extract_tar(
    reader: impl Read,
    sink: &mut Sink<'_>,
) -> Result<Option<IngestError>, IngestError> {
    let mut archive = tar::Archive::new(reader);
    let entries = match archive.entries() {
        Ok(entries) => entries,
        Err(err) => return Ok(Some(damaged(sink.archive(), None, &err))),
    };
    for entry in entries {
        let mut entry = match entry {
            Ok(entry) => entry,
            Err(err) => return Ok(Some(damaged(sink.archive(), None, &err))),
        };
        sink.entry()?;
        // Names that are not UTF-8 are kept, lossily: a log is still a log.
        let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let size = entry.size();
        let kind = entry.header().entry_type();
        let rel = match relative_path(&name) {
            Ok(Some(rel)) => rel,
            Ok(None) => {
                sink.pass_over(size)?;
                if !kind.is_dir() {
                    sink.skip(&name, "empty name");
                }
                continue;
            }
            Err(reason) => {
                sink.pass_over(size)?;
                sink.skip(&name, reason);
                continue;
            }
        };
        match kind {
            EntryType::Regular | EntryType::Continuous | EntryType::GNUSparse => {
                let limit = sink.limits().max_entry_bytes;
                if size > limit {
                    sink.pass_over(size)?;
                    sink.skip(
                        &name,
                        format!("{size} bytes is over the per-entry limit of {limit} bytes"),
                    );
                    continue;
                }
                if size == 0 {
                    sink.empty_file(&rel);
                    continue;
                }
                let modified = entry
                    .header()
                    .mtime()
                    .ok()
                    .filter(|&seconds| seconds > 0)
                    .and_then(|seconds| UNIX_EPOCH.checked_add(Duration::from_secs(seconds)));
                match sink.file(&name, &rel, &mut entry, modified)? {
                    Written::Done(written) if written < size => {
                        let reason =
                            format!("truncated at entry {name}: {written} of {size} bytes");
                        return Ok(Some(IngestError::Damaged {
                            path: sink.archive().to_path_buf(),
                            reason,
                        }));
                    }
                    Written::Done(_) | Written::Skipped => {}
                    Written::Failed { error, .. } => {
                        return Ok(Some(damaged(sink.archive(), Some(&name), &error)));
                    }
                }
            }
            EntryType::Directory => sink.directory(&name, &rel)?,
            EntryType::Symlink => match entry.link_name_bytes() {
                Some(target) => {
                    let target = PathBuf::from(String::from_utf8_lossy(&target).into_owned());
                    sink.symlink(&name, rel, target)?;
                }
                None => sink.skip(&name, "symbolic link without a target"),
            },
            other => {
                sink.pass_over(size)?;
                sink.skip(&name, not_extracted(other, &entry));
            }
        }
    }
    Ok(None)
}

/// Why an entry of another kind is left out.
fn not_extracted<R: Read>(kind: EntryType, entry: &tar::Entry<'_, R>) -> String {
    match kind {
        EntryType::Link => {
            let target = entry
                .link_name_bytes()
                .map(|t| String::from_utf8_lossy(&t).into_owned())
                .unwrap_or_default();
            format!("hard link to {target}, not created")
        }
        EntryType::Char | EntryType::Block => "device file, not created".to_owned(),
        EntryType::Fifo => "fifo, not created".to_owned(),
        other => format!("unsupported entry type {:?}", char::from(other.as_byte())),
    }
}
