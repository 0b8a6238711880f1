//! Finding the files of the inputs: walking folders, unpacking archives into a work
//! folder, and remembering symbolic links without following them.

use std::path::{Path, PathBuf};

use super::IngestError;
use super::archive::{ExtractLimits, detect_archive, extract};

/// A file found in an input.
#[derive(Clone, Debug)]
pub struct FoundFile {
    /// Path relative to the input root, with `/` separators (what evidence shows).
    pub rel: String,
    /// Where to read it.
    pub abs: PathBuf,
    /// Size on disk (compressed size for `.gz` and friends).
    pub size: u64,
    /// Named on the command line itself (not found inside a folder or archive).
    pub given: bool,
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

/// How deep archives inside archives are unpacked.
const MAX_ARCHIVE_DEPTH: usize = 3;

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
fn archive_stem(name: &str) -> &str {
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

/// Walks the inputs. Archives (given directly or found inside folders) are unpacked under
/// `work`, which the caller owns and removes.
///
/// Paths are relative to the input; with several inputs, each input's files appear
/// under its own name so that two bundles never mix (`case-a/var/log/...`).
pub fn discover(inputs: &[PathBuf], work: &Path) -> Result<Found, IngestError> {
    let mut found = Found::default();
    let mut unpacked = 0usize;
    let mut used_names: Vec<String> = Vec::new();
    for input in inputs {
        found.inputs.push(input.display().to_string());
        let meta = std::fs::metadata(input).map_err(|source| IngestError::Io {
            path: input.clone(),
            source,
        })?;
        if meta.is_dir() {
            let prefix = if inputs.len() > 1 {
                let name = input
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
            walk(input, &prefix, work, 0, &mut unpacked, &mut found);
        } else {
            let name = input
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            // A single file or an archive: its content appears under its own name, so
            // that two inputs never collide.
            match detect_archive(input)? {
                Some(_) => {
                    let prefix = format!("{}/", archive_stem(&name));
                    unpack(input, &prefix, work, 0, &mut unpacked, &mut found)?;
                }
                None => found.files.push(FoundFile {
                    rel: name,
                    abs: input.clone(),
                    size: meta.len(),
                    given: true,
                }),
            }
        }
    }
    found.files.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(found)
}

fn unpack(
    archive: &Path,
    prefix: &str,
    work: &Path,
    depth: usize,
    unpacked: &mut usize,
    found: &mut Found,
) -> Result<(), IngestError> {
    *unpacked += 1;
    let dest = work.join(format!("{unpacked}"));
    std::fs::create_dir_all(&dest).map_err(|source| IngestError::Io {
        path: dest.clone(),
        source,
    })?;
    let report = extract(archive, &dest, &ExtractLimits::default())?;
    for skipped in report.skipped {
        found
            .skipped
            .push((format!("{prefix}{}", skipped.path), skipped.reason));
    }
    if let Some(damage) = report.damage {
        found.skipped.push((
            prefix.trim_end_matches('/').to_string(),
            format!("archive damaged, read what came before: {damage}"),
        ));
    }
    for (link, target) in report.symlinks {
        found.links.push(FoundLink {
            rel: format!("{prefix}{}", slash_path(&link)),
            target: target.to_string_lossy().into_owned(),
        });
    }
    walk(&dest, prefix, work, depth + 1, unpacked, found);
    Ok(())
}

fn slash_path(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Walks `dir`, adding files under `prefix`. Errors on single entries are recorded and
/// the walk goes on: one unreadable folder must not lose the rest of a bundle.
fn walk(
    dir: &Path,
    prefix: &str,
    work: &Path,
    depth: usize,
    unpacked: &mut usize,
    found: &mut Found,
) {
    let mut stack = vec![(dir.to_path_buf(), prefix.to_string())];
    while let Some((dir, prefix)) = stack.pop() {
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
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = format!("{prefix}{name}");
            let path = entry.path();
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
                stack.push((path, format!("{rel}/")));
            } else if file_type.is_file() {
                let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
                if archive_name(&name) && depth < MAX_ARCHIVE_DEPTH {
                    match detect_archive(&path) {
                        Ok(Some(_)) => {
                            let inner = format!("{prefix}{}/", archive_stem(&name));
                            if let Err(error) = unpack(&path, &inner, work, depth, unpacked, found)
                            {
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
                    abs: path,
                    size,
                    given: false,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archive_names() {
        assert_eq!(
            archive_stem("sosreport-ctl1-2024.tar.xz"),
            "sosreport-ctl1-2024"
        );
        assert_eq!(archive_stem("juju-crashdump-1.tar.gz"), "juju-crashdump-1");
        assert!(archive_name("bundle.zip"));
        assert!(!archive_name("nova-compute.log.2.gz"));
    }

    #[test]
    fn walks_folders_and_records_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("case");
        std::fs::create_dir_all(root.join("3/lxd/4/var/log/masakari")).unwrap();
        std::fs::write(
            root.join("3/lxd/4/var/log/masakari/masakari-engine.log"),
            "x\n",
        )
        .unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("3/lxd/4", root.join("masakari_0")).unwrap();
        let work = tempfile::tempdir().unwrap();
        let found = discover(&[root], work.path()).unwrap();
        assert_eq!(found.files.len(), 1);
        assert_eq!(
            found.files[0].rel,
            "3/lxd/4/var/log/masakari/masakari-engine.log"
        );
        #[cfg(unix)]
        {
            assert_eq!(found.links.len(), 1);
            assert_eq!(found.links[0].rel, "masakari_0");
            assert_eq!(found.links[0].target, "3/lxd/4");
        }
    }
}
