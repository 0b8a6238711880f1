//! Extracting a zip file through its central directory.

use std::io::{Read, Seek};
use std::path::PathBuf;

use super::entry_name::relative_path;
use super::sink::{Sink, Written};
use crate::ingest::IngestError;
use crate::ingest::decompress::error_chain;

/// Symlink targets longer than this are not paths.
const MAX_LINK_TARGET: u64 = 4096;

/// Unix file-type bits, for special files in zips made on Unix.
const S_IFMT: u32 = 0o170_000;
const S_IFREG: u32 = 0o100_000;
const S_IFDIR: u32 = 0o040_000;
const S_IFLNK: u32 = 0o120_000;

/// Extracts every entry it can. Without a readable central directory nothing can be
/// found, which is an error; a damaged entry is skipped with its reason.
pub(super) fn extract_zip(
    reader: impl Read + Seek,
    sink: &mut Sink<'_>,
) -> Result<(), IngestError> {
    let mut zip = zip::ZipArchive::new(reader).map_err(|err| IngestError::Damaged {
        path: sink.archive().to_path_buf(),
        reason: format!("unreadable zip: {}", error_chain(&err)),
    })?;
    for index in 0..zip.len() {
        sink.entry()?;
        let mut file = match zip.by_index(index) {
            Ok(file) => file,
            Err(err) => {
                sink.skip(
                    &format!("#{index}"),
                    format!("unreadable: {}", error_chain(&err)),
                );
                continue;
            }
        };
        let name = match file.name() {
            Ok(name) => name.into_owned(),
            Err(_) => String::from_utf8_lossy(file.name_raw()).into_owned(),
        };
        let rel = match relative_path(&name) {
            Ok(Some(rel)) => rel,
            Ok(None) => continue,
            Err(reason) => {
                sink.skip(&name, reason);
                continue;
            }
        };
        let file_type = file.unix_mode().map_or(0, |mode| mode & S_IFMT);
        if file.is_symlink() {
            let mut target = Vec::new();
            match file.by_ref().take(MAX_LINK_TARGET).read_to_end(&mut target) {
                Ok(_) => {
                    let target = PathBuf::from(String::from_utf8_lossy(&target).into_owned());
                    sink.symlink(&name, rel, target)?;
                }
                Err(err) => sink.skip(&name, format!("unreadable: {}", error_chain(&err))),
            }
        } else if file.is_dir() {
            sink.directory(&name, &rel)?;
        } else if ![0, S_IFREG, S_IFDIR, S_IFLNK].contains(&file_type) {
            sink.skip(&name, "special file, not created");
        } else if file.size() == 0 {
            sink.empty_file(&rel);
        } else {
            let modified = file.last_modified().and_then(zip_time);
            match sink.file(&name, &rel, &mut file, modified)? {
                Written::Done(_) | Written::Skipped => {}
                Written::Failed { written, error } => {
                    let reason = format!("corrupt: {}", error_chain(&error));
                    sink.discard(&name, &rel, written, reason)?;
                }
            }
        }
    }
    Ok(())
}

/// A zip entry's modification time (MS-DOS time, local to whoever zipped it: hours off
/// at most, which the year it gives does not mind); `None` for the format's zero,
/// 1980-01-01, which archivers write when they know no time.
fn zip_time(time: zip::DateTime) -> Option<std::time::SystemTime> {
    if time.year() <= 1980 {
        return None;
    }
    let local = evacdoc_parsers::DateTime::new(
        time.year(),
        time.month(),
        time.day(),
        time.hour(),
        time.minute(),
        time.second(),
        0,
    )?;
    let seconds = u64::try_from(local.checked_unix_nanos(0)? / 1_000_000_000).ok()?;
    std::time::UNIX_EPOCH.checked_add(std::time::Duration::from_secs(seconds))
}
