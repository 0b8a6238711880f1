//! What a redacted copy holds besides its files: the bundle's links, the public copy's
//! report, and the `.tar.gz` it is packed into when one was asked for.

use super::*;

/// The report a public copy holds, at its root.
pub(super) fn write_report(root: &Path, report: &RedactReport) -> Result<(), RedactError> {
    let path = root.join(REPORT_NAME);
    let io = |source| RedactError::Write {
        path: path.display().to_string(),
        source,
    };
    let body = serde_json::json!({
        "files": report.files,
        "lines": report.lines,
        "changed_lines": report.changed_lines,
        "files_dropped": report.skipped.iter()
            .map(|(path, why)| serde_json::json!({"path": path, "reason": why}))
            .collect::<Vec<_>>(),
        "public": report.public,
    });
    let text = serde_json::to_string_pretty(&body).map_err(|e| io(std::io::Error::other(e)))?;
    std::fs::write(&path, text).map_err(io)
}

/// Recreates the bundle's links with redacted names and targets (juju unit aliases,
/// sos's links to tailed copies). Targets leaving the bundle are not recreated.
pub(super) fn write_links(
    found: &Found,
    root: &Path,
    names: &NameFinder,
    mode: &Mode,
    map: &mut SharedMap<'_>,
) -> Result<usize, RedactError> {
    let mut written = 0;
    for link in &found.links {
        if link.target.starts_with('/') || link.target.split('/').any(|p| p == "..") {
            continue;
        }
        let (rel, target) = match mode {
            Mode::Private => (
                redact_path(&link.rel, names, map),
                redact_path(&link.target, names, map),
            ),
            Mode::Public(upload) => (
                public_path(&link.rel, names, upload, map),
                public_path(&link.target, names, upload, map),
            ),
        };
        let path = root.join(&rel);
        let io = |source| RedactError::Write {
            path: path.display().to_string(),
            source,
        };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(&target, &path).map_err(io)?;
        written += 1;
    }
    Ok(written)
}

/// The staged copy packed as `.tar.gz` at `out`.
pub(super) fn write_tarball(dir: &Path, out: &Path) -> Result<(), RedactError> {
    let io = |source| RedactError::Write {
        path: out.display().to_string(),
        source,
    };
    let file = std::fs::File::create(out).map_err(io)?;
    let gz = flate2::write::GzEncoder::new(BufWriter::new(file), flate2::Compression::fast());
    let mut tar = tar::Builder::new(gz);
    tar.follow_symlinks(false);
    tar.append_dir_all(".", dir).map_err(io)?;
    let gz = tar.into_inner().map_err(io)?;
    gz.finish().map_err(io)?.flush().map_err(io)?;
    Ok(())
}
