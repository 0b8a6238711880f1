//! The redacted bundle an analysis link offers: `evacdoc redact` of the upload with the
//! analysis's case map, by default-deny (a public copy, with its `redaction-report.json`),
//! made on first download and kept in the share folder (and, with an object store, in it
//! too, so that every API process serves the same bytes).

use std::path::PathBuf;
use std::sync::PoisonError;

use super::view::{
    REDACT_ROUNDS, ShareError, ShareFiles, ShareViews, case_map, contended, keep_case_map,
    upload_name,
};
use crate::ingest::IngestLimits;
use crate::jobs::input_dir;
use crate::redact::PseudonymMap;
use crate::redacted_copy::{RedactOptions, redact_bundle};
use crate::store::{Store, StoreError, create_private_dir};

/// The object store's name of the redacted bundle of analysis `id` (under the analysis's
/// prefix: deleting the analysis deletes it).
pub fn bundle_key(id: &str) -> String {
    format!("analyses/{id}/share/redacted.tar.gz")
}

/// The redacted `.tar.gz` of analysis `id`, made when not yet made: the upload (fetched
/// from the object store when the store has one, by the name the store recorded) redacted
/// with the case map the store keeps. Blocking (the first call reads the whole upload).
pub fn redacted_bundle(
    views: &ShareViews,
    store: &dyn Store,
    limits: IngestLimits,
    id: &str,
) -> Result<PathBuf, ShareError> {
    let paths = store.paths();
    let files = ShareFiles::of(paths, id)?;
    let lock = views.lock_of(id);
    let _held = lock.lock().unwrap_or_else(PoisonError::into_inner);
    let bundle = files.bundle();
    if bundle.is_file() {
        return Ok(bundle);
    }
    create_private_dir(files.dir())?;
    let remote = store.remote_blobs();
    if let Some(remote) = remote
        && remote
            .get_to_file(&bundle_key(id), &bundle)
            .map_err(StoreError::from)?
            .is_some()
    {
        return Ok(bundle);
    }
    let row = store
        .get_analysis(id)?
        .ok_or_else(|| ShareError::NotReady(id.to_string()))?;
    if let Some(remote) = remote {
        crate::jobs::remote::fetch_upload(remote.as_ref(), paths, &row)?;
    }
    let made = make_bundle(store, &files, limits, id, &row.name);
    if remote.is_some() {
        // This process's copy of the upload: the object store keeps it.
        let _ = std::fs::remove_dir_all(input_dir(paths, id)?);
    }
    let building = made?;
    std::fs::rename(&building, &bundle).map_err(|e| ShareError::io(&bundle, e))?;
    if let Some(remote) = remote {
        remote
            .put_file(&bundle_key(id), &bundle)
            .map_err(StoreError::from)?;
    }
    Ok(bundle)
}

/// Redacts the upload `name` of analysis `id` into a file of its own in the share folder
/// (processes sharing the folder may make it at once), again with the stored map while
/// another process gives one of its values another pseudonym meanwhile.
fn make_bundle(
    store: &dyn Store,
    files: &ShareFiles,
    limits: IngestLimits,
    id: &str,
    name: &str,
) -> Result<PathBuf, ShareError> {
    let paths = store.paths();
    let input = input_dir(paths, id)?.join(name);
    if !input.exists() {
        return Err(ShareError::NotReady(id.to_string()));
    }
    let upload = upload_name(store, id)?;
    let unique = format!("{:016x}", rand::random::<u64>());
    let building = files.dir().join(format!("building-{unique}.tar.gz"));
    let working = files.dir().join(format!("map-{unique}.json"));
    let mut map = case_map(store, files, id)?;
    for _ in 0..REDACT_ROUNDS {
        let _ = std::fs::remove_file(&building);
        map.save(&working)?;
        let options = RedactOptions {
            out: building.clone(),
            map: working.clone(),
            // Messages name the upload, not where the service keeps it.
            input_names: vec![PathBuf::from(&upload)],
            public: Some(upload.clone()),
            // Unpacked under the data folder, bounded as the analysis was.
            work_dir: Some(paths.tmp_dir()),
            limits,
        };
        let redacted = redact_bundle(std::slice::from_ref(&input), &options)
            .map_err(ShareError::from)
            .and_then(|_| Ok(PseudonymMap::load(&working)?));
        let _ = std::fs::remove_file(&working);
        let made = match redacted {
            Ok(made) => made,
            Err(e) => {
                let _ = std::fs::remove_file(&building);
                return Err(e);
            }
        };
        let stored = keep_case_map(store, files, id, &made)?;
        if stored.agrees_with(&made) {
            return Ok(building);
        }
        map = stored;
    }
    let _ = std::fs::remove_file(&building);
    Err(contended(id))
}

/// Gives analysis `to` the case map of analysis `from` (made there first if it has none):
/// a later upload of the same case, whose values must keep their pseudonyms. Blocking.
pub fn share_case_map(
    views: &ShareViews,
    store: &dyn Store,
    from: &str,
    to: &str,
) -> Result<(), ShareError> {
    let paths = store.paths();
    let (source, target) = (ShareFiles::of(paths, from)?, ShareFiles::of(paths, to)?);
    let lock = views.lock_of(from);
    let _held = lock.lock().unwrap_or_else(PoisonError::into_inner);
    let map = case_map(store, &source, from)?;
    keep_case_map(store, &target, to, &map)?;
    Ok(())
}
