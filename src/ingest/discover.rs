//! Finding the files of the inputs: walking folders, unpacking archives into a work
//! folder, and remembering symbolic links without following them.

use std::path::{Path, PathBuf};

use super::archive::{OpenedArchive, extract_opened, open_archive};
use super::limits::{LimitKind, LimitUnit};
use super::{IngestError, IngestLimits, Named};

/// A file found in an input.
#[derive(Clone, Debug)]
pub struct FoundFile {
    /// Path relative to the input root, with `/` separators (what evidence shows).
    pub rel: String,
    /// Where to read it.
    pub abs: PathBuf,
    /// What messages call it: the path the user gave, or its place in the bundle when
    /// an archive held it (never the work folder it was unpacked in).
    pub name: PathBuf,
    /// Size on disk (compressed size for `.gz` and friends).
    pub size: u64,
    /// Named on the command line itself (not found inside a folder or archive).
    pub given: bool,
    /// Unpacked from an archive into the work folder (the analysis's own copy, that
    /// nobody else writes: see `SinkFactory::keep_unpacked`).
    pub unpacked: bool,
}

impl FoundFile {
    /// The file to read, with its name for messages.
    pub fn named(&self) -> Named<'_> {
        Named {
            path: &self.abs,
            name: &self.name,
        }
    }
}

/// A symbolic link found in an input (never followed).
#[derive(Clone, Debug)]
pub struct FoundLink {
    /// The link's path relative to the input root.
    pub rel: String,
    /// The target as written in the link.
    pub target: String,
}

/// Everything found under the inputs.
#[derive(Debug, Default)]
pub struct Found {
    /// Regular files, in path order.
    pub files: Vec<FoundFile>,
    /// Symbolic links.
    pub links: Vec<FoundLink>,
    /// Entries that could not be read or were refused, with the reason.
    pub skipped: Vec<(String, String)>,
    /// The input labels, as given.
    pub inputs: Vec<String>,
}

/// File names that say "this may be an archive"; the content decides.
fn archive_name(name: &str) -> bool {
    [
        ".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.zst", ".tzst", ".tar.bz2", ".tbz2",
        ".zip",
    ]
    .iter()
    .any(|ext| name.ends_with(ext))
}

/// The name of an archive without its archive extensions (`sosreport-x.tar.xz` →
/// `sosreport-x`), used as the folder its content appears under.
pub fn archive_stem(name: &str) -> &str {
    for ext in [
        ".tar.gz", ".tar.xz", ".tar.zst", ".tar.bz2", ".tgz", ".txz", ".tzst", ".tbz2", ".tar",
        ".zip",
    ] {
        if let Some(stem) = name.strip_suffix(ext) {
            return stem;
        }
    }
    name
}

/// Walks the inputs, each named by its path. Archives (given directly or found inside
/// folders) are unpacked under `work`, which the caller owns and removes.
///
/// Paths are relative to the input; with several inputs, each input's files appear
/// under its own name so that two bundles never mix (`case-a/var/log/...`).
pub fn discover(inputs: &[PathBuf], work: &Path) -> Result<Found, IngestError> {
    let named: Vec<Named<'_>> = inputs.iter().map(|i| Named::as_given(i)).collect();
    discover_within(&named, work, &IngestLimits::default())
}

/// [`discover`] within `limits`: one budget of expanded bytes and entries for every
/// archive of the inputs, nested ones included. Messages call each input by its
/// name (the service's: the upload's file name), and what an archive held by its
/// place in the bundle.
pub fn discover_within(
    inputs: &[Named<'_>],
    work: &Path,
    limits: &IngestLimits,
) -> Result<Found, IngestError> {
    let mut found = Found::default();
    let mut unpacker = Unpacker {
        work,
        limits,
        unpacked: 0,
        bytes_left: limits.max_expanded_bytes,
        entries_left: limits.max_entries,
    };
    let mut used_names: Vec<String> = Vec::new();
    for input in inputs {
        found.inputs.push(input.path.display().to_string());
        let meta = std::fs::metadata(input.path).map_err(|source| input.io_error(source))?;
        if meta.is_dir() {
            let prefix = if inputs.len() > 1 {
                let name = input
                    .path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "input".into());
                let mut unique = name.clone();
                let mut n = 1;
                while used_names.contains(&unique) {
                    n += 1;
                    unique = format!("{name}-{n}");
                }
                used_names.push(unique.clone());
                format!("{unique}/")
            } else {
                String::new()
            };
            unpacker.walk(input.path, &prefix, input.name, 0, &mut found);
        } else {
            let name = input
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            // A single file or an archive: its content appears under its own name, so
            // that two inputs never collide.
            match open_archive(*input)? {
                Some(archive) => {
                    let prefix = format!("{}/", archive_stem(&name));
                    unpacker.unpack(archive, &prefix, 0, &mut found)?;
                }
                None => found.files.push(FoundFile {
                    rel: name,
                    abs: input.path.to_path_buf(),
                    name: input.name.to_path_buf(),
                    size: meta.len(),
                    given: true,
                    unpacked: false,
                }),
            }
        }
    }
    found.files.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(found)
}

/// Unpacks archives into numbered folders of the work folder, within one budget.
struct Unpacker<'a> {
    work: &'a Path,
    limits: &'a IngestLimits,
    unpacked: usize,
    bytes_left: u64,
    entries_left: u64,
}

impl Unpacker<'_> {
    /// Unpacks `archive` and walks what it holds, under `prefix`, its place in the
    /// bundle (which also names the folder it is unpacked in). A limit that stops it
    /// leaves what came before it, which is walked, and is listed as skipped.
    fn unpack(
        &mut self,
        archive: OpenedArchive,
        prefix: &str,
        depth: usize,
        found: &mut Found,
    ) -> Result<(), IngestError> {
        self.unpacked += 1;
        let dest = self.work.join(format!("{}", self.unpacked));
        let label = prefix.trim_end_matches('/').to_string();
        let dest_name = PathBuf::from(&label);
        let dest_named = Named {
            path: &dest,
            name: &dest_name,
        };
        std::fs::create_dir_all(&dest).map_err(|source| dest_named.io_error(source))?;
        let limits = self.limits.for_extract(self.bytes_left, self.entries_left);
        let archive_name = archive.name().to_path_buf();
        let mut report = extract_opened(archive, dest_named, &limits)?;
        report.stopped = report
            .stopped
            .map(|stop| self.budget_error(&archive_name, stop));
        self.bytes_left = self.bytes_left.saturating_sub(report.consumed);
        self.entries_left = self.entries_left.saturating_sub(report.entries);
        if let Some(limit) = report.stopped {
            found.skipped.push((
                label.clone(),
                format!("archive not unpacked past a limit, read what came before: {limit}"),
            ));
        }
        if report.empty_files > 0 {
            let n = report.empty_files;
            let files = if n == 1 { "file" } else { "files" };
            found.skipped.push((
                label.clone(),
                format!("{n} empty {files} not unpacked (nothing to read)"),
            ));
        }
        for skipped in report.skipped {
            found
                .skipped
                .push((format!("{prefix}{}", skipped.path), skipped.reason));
        }
        if report.skipped_more > 0 {
            found.skipped.push((
                label.clone(),
                format!(
                    "{} more entries skipped, not listed (the first ones above say why)",
                    report.skipped_more
                ),
            ));
        }
        if let Some(damage) = report.damage {
            let reason = format!("archive damaged, read what came before: {damage}");
            found.skipped.push((label, reason));
        }
        for (link, target) in report.symlinks {
            found.links.push(FoundLink {
                rel: format!("{prefix}{}", slash_path(&link)),
                target: target.to_string_lossy().into_owned(),
            });
        }
        self.walk(&dest, prefix, &dest_name, depth + 1, found);
        Ok(())
    }

    /// A limit an archive met with less than the whole budget left is the budget of
    /// all archives together: say so, with the budget.
    fn budget_error(&self, archive: &Path, stop: IngestError) -> IngestError {
        let (limit, unit) = match stop {
            IngestError::LimitExceeded {
                what: LimitKind::ArchiveContent,
                limit,
                ..
            } if limit < self.limits.max_expanded_bytes => {
                (self.limits.max_expanded_bytes, LimitUnit::Bytes)
            }
            IngestError::LimitExceeded {
                what: LimitKind::ArchiveEntries,
                limit,
                ..
            } if limit < self.limits.max_entries => (self.limits.max_entries, LimitUnit::Entries),
            other => return other,
        };
        IngestError::LimitExceeded {
            path: archive.to_path_buf(),
            what: LimitKind::AllArchives,
            limit,
            unit,
        }
    }

    /// Walks `dir`, adding files under `prefix`; `name` is what messages call `dir`.
    /// Errors on single entries are recorded and the walk goes on: one unreadable
    /// folder must not lose the rest of a bundle.
    fn walk(&mut self, dir: &Path, prefix: &str, name: &Path, depth: usize, found: &mut Found) {
        let mut stack = vec![(dir.to_path_buf(), prefix.to_string(), name.to_path_buf())];
        while let Some((dir, prefix, dir_name)) = stack.pop() {
            let entries = match std::fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(error) => {
                    found
                        .skipped
                        .push((prefix.trim_end_matches('/').to_string(), error.to_string()));
                    continue;
                }
            };
            for entry in entries.flatten() {
                let file_name = entry.file_name();
                let name = file_name.to_string_lossy().into_owned();
                let rel = format!("{prefix}{name}");
                let path = entry.path();
                let shown = dir_name.join(&file_name);
                let Ok(file_type) = entry.file_type() else {
                    found.skipped.push((rel, "cannot read file type".into()));
                    continue;
                };
                if file_type.is_symlink() {
                    if let Ok(target) = std::fs::read_link(&path) {
                        found.links.push(FoundLink {
                            rel,
                            target: target.to_string_lossy().into_owned(),
                        });
                    }
                } else if file_type.is_dir() {
                    stack.push((path, format!("{rel}/"), shown));
                } else if file_type.is_file() {
                    let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
                    if archive_name(&name) {
                        let file = Named {
                            path: &path,
                            name: &shown,
                        };
                        match open_archive(file) {
                            Ok(Some(_)) if depth >= self.limits.max_depth => {
                                let max = self.limits.max_depth;
                                found.skipped.push((
                                    rel,
                                    format!(
                                        "an archive nested over {max} levels deep, not unpacked"
                                    ),
                                ));
                                continue;
                            }
                            Ok(Some(archive)) => {
                                let inner = format!("{prefix}{}/", archive_stem(&name));
                                if let Err(error) = self.unpack(archive, &inner, depth, found) {
                                    found.skipped.push((rel, error.to_string()));
                                }
                                continue;
                            }
                            Ok(None) => {}
                            Err(error) => {
                                found.skipped.push((rel, error.to_string()));
                                continue;
                            }
                        }
                    }
                    found.files.push(FoundFile {
                        rel,
                        unpacked: path.starts_with(self.work),
                        abs: path,
                        name: shown,
                        size,
                        given: false,
                    });
                } else {
                    found
                        .skipped
                        .push((rel, "not a regular file (device, fifo or socket)".into()));
                }
            }
        }
    }
}

fn slash_path(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests;
