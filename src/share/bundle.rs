//! The redacted bundle an analysis link offers: `evacdoc redact` of the upload with the
//! analysis's case map, by default-deny (a public copy, with its `redaction-report.json`),
//! made on first download and kept in the share folder.

use std::path::PathBuf;
use std::sync::PoisonError;

use super::view::{ShareError, ShareFiles, ShareViews, input_of};
use crate::ingest::IngestLimits;
use crate::redact::PseudonymMap;
use crate::redacted_copy::{RedactOptions, redact_bundle};
use crate::store::{DataPaths, create_private_dir};

/// The redacted `.tar.gz` of analysis `id`, made when not yet made. Blocking (the first
/// call reads the whole upload).
pub fn redacted_bundle(
    views: &ShareViews,
    paths: &DataPaths,
    limits: IngestLimits,
    id: &str,
) -> Result<PathBuf, ShareError> {
    let files = ShareFiles::of(paths, id)?;
    let lock = views.lock_of(id);
    let _held = lock.lock().unwrap_or_else(PoisonError::into_inner);
    let bundle = files.bundle();
    if bundle.is_file() {
        return Ok(bundle);
    }
    create_private_dir(files.dir())?;
    let building = files.dir().join("building.tar.gz");
    let _ = std::fs::remove_file(&building);
    let upload = super::view::upload_name(paths, id)?;
    let options = RedactOptions {
        out: building.clone(),
        map: files.map(),
        // Messages name the upload, not where the service keeps it.
        input_names: vec![PathBuf::from(&upload)],
        public: Some(upload),
        // Unpacked under the data folder, bounded as the analysis was.
        work_dir: Some(paths.tmp_dir()),
        limits,
    };
    redact_bundle(&[input_of(paths, id)?], &options)?;
    std::fs::rename(&building, &bundle).map_err(|e| ShareError::io(&bundle, e))?;
    Ok(bundle)
}

/// Gives analysis `to` the case map of analysis `from` (made there first if it has none):
/// a later upload of the same case, whose values must keep their pseudonyms. Blocking.
pub fn share_case_map(
    views: &ShareViews,
    paths: &DataPaths,
    from: &str,
    to: &str,
) -> Result<(), ShareError> {
    let (source, target) = (ShareFiles::of(paths, from)?, ShareFiles::of(paths, to)?);
    let lock = views.lock_of(from);
    let _held = lock.lock().unwrap_or_else(PoisonError::into_inner);
    create_private_dir(source.dir())?;
    let map = if source.map().exists() {
        PseudonymMap::load(&source.map())?
    } else {
        let map = PseudonymMap::new();
        map.save(&source.map())?;
        map
    };
    create_private_dir(target.dir())?;
    map.save(&target.map())?;
    Ok(())
}
