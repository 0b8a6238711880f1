//! The redacted view of an analysis: its stored document and its findings through
//! [`ViewRedactor`] with the analysis's case map, built once (on a blocking thread) and
//! kept for every link of that analysis.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use crate::correlate::Analysis;
use crate::correlate::document::DocumentError;
use crate::detect::Finding;
use crate::ingest::IngestError;
use crate::jobs::{AnalysisCache, LoadError};
use crate::model::FindingId;
use crate::redact::map::MapError;
use crate::redact::names::Seeds;
use crate::redact::public::PublicStats;
use crate::redact::seed::seeds_of;
use crate::redact::{PseudonymMap, ViewRedactor};
use crate::redacted_copy::RedactError;
use crate::store::{DataPaths, Store, StoreError, create_private_dir, read_document};

/// Why a redacted view or bundle could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ShareError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error(transparent)]
    Document(#[from] DocumentError),
    #[error("analysis document: {0}")]
    Json(#[from] serde_json::Error),
    #[error(transparent)]
    Map(#[from] MapError),
    #[error(transparent)]
    Redact(#[from] RedactError),
    #[error(transparent)]
    Ingest(#[from] IngestError),
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    /// The analysis has no stored document (not done, or deleted).
    #[error("analysis {0} has no stored document")]
    NotReady(String),
}

impl ShareError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> ShareError {
        ShareError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}

/// The private files of an analysis's shares: `analyses/<id>/share/`.
#[derive(Debug, Clone)]
pub struct ShareFiles {
    dir: PathBuf,
}

impl ShareFiles {
    /// The share folder of analysis `id`.
    pub fn of(paths: &DataPaths, id: &str) -> Result<ShareFiles, StoreError> {
        Ok(ShareFiles {
            dir: paths.analysis_dir(id)?.join("share"),
        })
    }

    /// The folder (mode 0700 once made).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A private copy (mode 0600) of the case map the store keeps: it undoes the
    /// redaction, so it is never served.
    pub fn map(&self) -> PathBuf {
        self.dir.join("map.json")
    }

    /// The host names and domains looked for (mode 0600).
    pub fn seeds(&self) -> PathBuf {
        self.dir.join("seeds.json")
    }

    /// The redacted bundle, once made.
    pub fn bundle(&self) -> PathBuf {
        self.dir.join("redacted.tar.gz")
    }
}

/// An analysis as a share link shows it: every text through the default-deny public
/// step ([`crate::redact::public`]).
#[derive(Debug)]
pub struct RedactedView {
    /// The redacted analysis (indexes built from the pseudonymous names).
    pub analysis: Analysis,
    /// The findings, redacted, each with its real id (what a share's scope names).
    pub findings: Vec<(FindingId, Finding)>,
    /// What the public step did to the whole analysis.
    pub stats: PublicStats,
    /// Per event: whether a word of it was reduced to the vocabulary.
    pub reduced_events: Vec<bool>,
    /// Per event: whether its message matched a known Masakari or Nova template.
    pub templated_events: Vec<bool>,
    redactor: Mutex<ViewRedactor>,
}

impl RedactedView {
    /// `text` redacted with the view's map (a host a timeline scope names, say).
    pub fn redact(&self, text: &str) -> String {
        self.redactor
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .text(text)
    }

    /// The redacted finding whose real id is `id`, with its position.
    pub fn finding(&self, id: &str) -> Option<(usize, &Finding)> {
        self.findings
            .iter()
            .enumerate()
            .find(|(_, (real, _))| real == id)
            .map(|(n, (_, f))| (n, f))
    }

    /// Builds the view of analysis `id` from its stored document and loaded findings,
    /// with the case map kept in the store (made on first use) and the seeds (gathered on
    /// first use from the analysis, which identified them in every file it read:
    /// `/etc/hosts`, certificates, configs, captures, records). The pseudonyms the view
    /// gave are merged into the stored map; when another process gave one of its values
    /// another pseudonym meanwhile, the view is made again with the stored map. Blocking.
    pub fn build(
        store: &dyn Store,
        cache: &AnalysisCache,
        id: &str,
    ) -> Result<RedactedView, ShareError> {
        let paths = store.paths();
        let files = ShareFiles::of(paths, id)?;
        let loaded = cache
            .get(store, id)?
            .ok_or_else(|| ShareError::NotReady(id.to_string()))?;
        let bytes =
            read_document(paths, id)?.ok_or_else(|| ShareError::NotReady(id.to_string()))?;
        create_private_dir(files.dir())?;
        let seeds: Seeds = match std::fs::read(files.seeds()) {
            Ok(bytes) => serde_json::from_slice(&bytes)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let seeds = seeds_of(&loaded.analysis);
                write_private(&files.seeds(), &serde_json::to_vec(&seeds)?)?;
                seeds
            }
            Err(e) => return Err(ShareError::io(&files.seeds(), e)),
        };
        let upload = upload_name(store, id)?;
        let mut map = case_map(store, &files, id)?;
        for _ in 0..REDACT_ROUNDS {
            let mut redactor = ViewRedactor::public(seeds.clone(), map, &upload);
            let analysis = redactor.analysis(serde_json::from_slice(&bytes)?)?;
            let reduced_events = redactor.take_reduced_events();
            let templated_events = redactor.take_templated_events();
            let findings = loaded
                .findings
                .iter()
                .map(|f| (f.id.clone(), redactor.finding(f)))
                .collect();
            let stats = redactor.stats().cloned().unwrap_or_default();
            let made = redactor.into_map();
            let stored = keep_case_map(store, &files, id, &made)?;
            if !stored.agrees_with(&made) {
                map = stored;
                continue;
            }
            return Ok(RedactedView {
                analysis,
                findings,
                stats,
                reduced_events,
                templated_events,
                redactor: Mutex::new(ViewRedactor::public(seeds, stored, &upload)),
            });
        }
        Err(contended(id))
    }
}

/// Times a view or a bundle is made with a case map another process extended meanwhile
/// (giving a value of it another pseudonym) before giving up.
pub(crate) const REDACT_ROUNDS: usize = 4;

pub(crate) fn contended(id: &str) -> ShareError {
    ShareError::Store(StoreError::Contended(format!(
        "the case map of analysis {id} kept changing while a redacted copy was made"
    )))
}

/// The case map of analysis `id` as the store keeps it, stored first (with a new random
/// key) when it has none: a `map.json` an earlier evacdoc kept in the share folder is
/// taken over, so its pseudonyms stay.
pub(crate) fn case_map(
    store: &dyn Store,
    files: &ShareFiles,
    id: &str,
) -> Result<PseudonymMap, ShareError> {
    if let Some(map) = store.case_map(id)? {
        return Ok(map);
    }
    let first = if files.map().is_file() {
        PseudonymMap::load(&files.map())?
    } else {
        PseudonymMap::new()
    };
    Ok(store.merge_case_map(id, &first)?)
}

/// Merges what `made` gave into the stored case map of analysis `id`, and keeps a
/// private copy of the result in the share folder; the map now stored.
pub(crate) fn keep_case_map(
    store: &dyn Store,
    files: &ShareFiles,
    id: &str,
    made: &PseudonymMap,
) -> Result<PseudonymMap, ShareError> {
    let stored = store.merge_case_map(id, made)?;
    create_private_dir(files.dir())?;
    write_private(&files.map(), &serde_json::to_vec_pretty(&stored)?)?;
    Ok(stored)
}

/// The upload's own file name, as the store recorded it (shown as `bundle` on public
/// answers).
pub(crate) fn upload_name(store: &dyn Store, id: &str) -> Result<String, ShareError> {
    Ok(store
        .get_analysis(id)?
        .ok_or_else(|| ShareError::NotReady(id.to_string()))?
        .name)
}

/// Writes a file readable by its owner only, whole or not at all.
pub(crate) fn write_private(path: &Path, bytes: &[u8]) -> Result<(), ShareError> {
    use std::io::Write;
    // A name of its own: processes sharing the folder may write the same file at once.
    let tmp = path.with_extension(format!("{:016x}.tmp", rand::random::<u64>()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&tmp).map_err(|e| ShareError::io(&tmp, e))?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| ShareError::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| ShareError::io(path, e))
}

/// The redacted views in use, the last few kept, and one lock per analysis so that a
/// view and a bundle of one analysis are never made at once (they share its map).
#[derive(Debug)]
pub struct ShareViews {
    capacity: usize,
    views: Mutex<Vec<(String, Arc<RedactedView>)>>,
    locks: Mutex<HashMap<String, Arc<Mutex<()>>>>,
}

impl ShareViews {
    pub fn new(capacity: usize) -> ShareViews {
        ShareViews {
            capacity: capacity.max(1),
            views: Mutex::new(Vec::new()),
            locks: Mutex::new(HashMap::new()),
        }
    }

    /// The lock of analysis `id`'s share files.
    pub(crate) fn lock_of(&self, id: &str) -> Arc<Mutex<()>> {
        self.locks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(id.to_string())
            .or_default()
            .clone()
    }

    /// The redacted view of analysis `id`, built when not kept. Blocking.
    pub fn get(
        &self,
        store: &dyn Store,
        cache: &AnalysisCache,
        id: &str,
    ) -> Result<Arc<RedactedView>, ShareError> {
        if let Some(view) = self.cached(id) {
            return Ok(view);
        }
        let lock = self.lock_of(id);
        let _held = lock.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(view) = self.cached(id) {
            return Ok(view);
        }
        let view = Arc::new(RedactedView::build(store, cache, id)?);
        let mut views = self.views.lock().unwrap_or_else(PoisonError::into_inner);
        views.push((id.to_string(), view.clone()));
        while views.len() > self.capacity {
            views.remove(0);
        }
        Ok(view)
    }

    /// Forgets analysis `id` (deleted).
    pub fn remove(&self, id: &str) {
        self.views
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|(k, _)| k != id);
    }

    fn cached(&self, id: &str) -> Option<Arc<RedactedView>> {
        let mut views = self.views.lock().unwrap_or_else(PoisonError::into_inner);
        let at = views.iter().position(|(k, _)| k == id)?;
        let entry = views.remove(at);
        let view = entry.1.clone();
        views.push(entry);
        Some(view)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::Kind;
    use crate::store::{NewAnalysis, SqliteStore};

    fn analysis(store: &SqliteStore, name: &str) -> String {
        let id = uuid::Uuid::new_v4().hyphenated().to_string();
        store
            .create_analysis(&NewAnalysis {
                id: id.clone(),
                name: name.into(),
                size_bytes: 1,
                sha256: String::new(),
            })
            .unwrap();
        id
    }

    #[test]
    fn a_map_file_an_earlier_evacdoc_kept_is_taken_over_and_the_store_wins_after() {
        let data = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(data.path()).unwrap();
        let id = analysis(&store, "sosreport-cmp1.tar.xz");
        let files = ShareFiles::of(store.paths(), &id).unwrap();
        create_private_dir(files.dir()).unwrap();
        let mut legacy = PseudonymMap::new();
        let host = legacy.pseudonym(Kind::Host, "node02ob100");
        legacy.save(&files.map()).unwrap();

        let map = case_map(&store, &files, &id).unwrap();
        assert_eq!(map.get(Kind::Host, "node02ob100"), Some(host.as_str()));
        assert!(store.case_map(&id).unwrap().is_some(), "now in the store");
        // From then on the store's map is the map, the file only its copy.
        std::fs::remove_file(files.map()).unwrap();
        let mut grown = case_map(&store, &files, &id).unwrap();
        let net = grown.pseudonym(Kind::Ipv4Net, "172.27.100");
        let kept = keep_case_map(&store, &files, &id, &grown).unwrap();
        assert!(kept.agrees_with(&grown));
        let copy = PseudonymMap::load(&files.map()).unwrap();
        assert_eq!(copy.get(Kind::Ipv4Net, "172.27.100"), Some(net.as_str()));
        assert_eq!(copy.get(Kind::Host, "node02ob100"), Some(host.as_str()));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(files.map()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert_eq!(upload_name(&store, &id).unwrap(), "sosreport-cmp1.tar.xz");

        // A later upload of the case gets the same map.
        let later = analysis(&store, "again.tar.xz");
        let views = ShareViews::new(1);
        super::super::share_case_map(&views, &store, &id, &later).unwrap();
        let theirs = store.case_map(&later).unwrap().unwrap();
        assert!(theirs.agrees_with(&kept) && kept.agrees_with(&theirs));
    }
}
