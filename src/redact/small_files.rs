//! The first pass of redaction over the files that are not logs (configs, captures,
//! `/etc/hosts`, certificates): run by the analysis beside its reading of small files, so
//! that nothing unpacks the bundle again for it.

use rayon::prelude::*;

use super::identify::Identifier;
use crate::ingest::place::Placed;
use crate::ingest::role::Role;
use crate::ingest::small_files::{MAX_SMALL_FILE, read_text};
use crate::model::identified::Seeds;

/// The identifiers of every file that is not a log (configs, captures, `/etc/hosts`,
/// certificates, whatever else is small enough): the first pass of redaction, in the
/// analysis, so that nothing unpacks the bundle again for it. Logs are identified
/// record by record as they are read.
pub(crate) fn identify_small_files(placed: &[Placed<'_>]) -> Seeds {
    placed
        .par_iter()
        .filter(|p| !matches!(p.role, Role::Log(_)) && p.file.size <= MAX_SMALL_FILE)
        .filter_map(|p| {
            let (text, _) = read_text(p.file.named(), MAX_SMALL_FILE).ok()?;
            // Binary content says nothing line by line.
            if text.bytes().take(8192).any(|b| b == 0) {
                return None;
            }
            let mut identify = Identifier::default();
            identify.file(&p.file.rel, &text);
            Some(identify.into_seeds())
        })
        .reduce(Default::default, |mut a, b| {
            a.merge(b);
            a
        })
}
