//! What the index needs from the analysis, written beside it once the analysis is done:
//! each file's path, host and service, and each host's names, UTC offsets and clock
//! correction. Records are indexed with the time their line wrote; this turns it into
//! UTC (and a UTC range into each host's local range) without the zone database.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::correlate::Analysis;
use crate::correlate::ids::short_host;
use crate::index::IndexError;
use crate::ingest::timezone::HostZone;
use crate::model::inventory::ZoneSource;

/// The meta file's name inside the index folder.
pub(crate) const META_FILE: &str = "evacdoc-index.json";
const VERSION: u32 = 1;
const NANOS: i64 = 1_000_000_000;
/// Wider than any UTC offset (±14 h) plus a day of clock error: where a UTC instant's
/// local time can lie.
const LOCAL_WINDOW_NS: i64 = 40 * 3600 * NANOS;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct IndexMeta {
    pub version: u32,
    pub hosts: Vec<HostMeta>,
    pub files: Vec<FileMeta>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct HostMeta {
    pub name: String,
    pub aliases: Vec<String>,
    /// The zone the analysis read the host's local times in.
    pub zone: String,
    /// (first Unix second, seconds east of UTC) of each offset in force over the
    /// host's records; the first starts at `i64::MIN`.
    pub offsets: Vec<(i64, i32)>,
    /// The clock correction the analysis applied (ns subtracted from the host's times).
    pub shift_ns: i64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct FileMeta {
    pub path: String,
    pub host: u32,
    pub service: String,
}

/// Zones that could not be resolved by name (a copied `localtime` file): read as UTC.
pub(crate) type Unresolved = Vec<String>;

impl IndexMeta {
    /// The meta of an analysis; `spans[host]` is the (min, max) raw time in ns of the
    /// host's indexed records, which bounds the offsets table.
    pub fn of(
        analysis: &Analysis,
        spans: &std::collections::HashMap<u32, (i64, i64)>,
    ) -> (IndexMeta, Unresolved) {
        let mut unresolved = Vec::new();
        let hosts = analysis
            .hosts
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let zone = HostZone::named(&h.zone, ZoneSource::Default).unwrap_or_else(|_| {
                    unresolved.push(format!("{}: {}", h.hostname, h.zone));
                    HostZone::utc_default()
                });
                let (min, max) = spans.get(&(i as u32)).copied().unwrap_or((0, 0));
                let day = 86_400;
                let offsets = zone.offsets_between(
                    min.div_euclid(NANOS).saturating_sub(day),
                    max.div_euclid(NANOS).saturating_add(day),
                );
                let shift_ms = analysis
                    .skew
                    .iter()
                    .find(|s| s.applied && s.host as usize == i)
                    .and_then(|s| s.offset_ms)
                    .unwrap_or(0);
                HostMeta {
                    name: h.hostname.clone(),
                    aliases: h.aliases.clone(),
                    zone: h.zone.clone(),
                    offsets,
                    shift_ns: shift_ms.saturating_mul(1_000_000),
                }
            })
            .collect();
        let files = analysis
            .files
            .iter()
            .map(|f| FileMeta {
                path: f.path.clone(),
                host: f.host,
                service: f.service.name().to_string(),
            })
            .collect();
        (
            IndexMeta {
                version: VERSION,
                hosts,
                files,
            },
            unresolved,
        )
    }

    pub fn write(&self, dir: &Path) -> Result<(), IndexError> {
        let path = dir.join(META_FILE);
        let json = serde_json::to_vec(self).map_err(|e| IndexError::Meta {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        std::fs::write(&path, json).map_err(|source| IndexError::Io { path, source })
    }

    pub fn read(dir: &Path) -> Result<IndexMeta, IndexError> {
        let path: PathBuf = dir.join(META_FILE);
        let bytes = std::fs::read(&path).map_err(|source| IndexError::Io {
            path: path.clone(),
            source,
        })?;
        let meta: IndexMeta = serde_json::from_slice(&bytes).map_err(|e| IndexError::Meta {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        if meta.version != VERSION {
            return Err(IndexError::Meta {
                path,
                reason: format!("version {} (this evacdoc reads {VERSION})", meta.version),
            });
        }
        Ok(meta)
    }

    /// The hosts a `host:` value names: by name, short name or alias, any case.
    pub fn hosts_named(&self, value: &str) -> Vec<u32> {
        let want = value.trim().to_ascii_lowercase();
        let short = short_host(&want);
        self.hosts
            .iter()
            .enumerate()
            .filter(|(_, h)| {
                std::iter::once(&h.name)
                    .chain(h.aliases.iter())
                    .any(|n| n.eq_ignore_ascii_case(&want) || short_host(n) == short)
            })
            .map(|(i, _)| i as u32)
            .collect()
    }

    /// The files of `hosts`.
    pub fn files_of_hosts(&self, hosts: &[u32]) -> Vec<u32> {
        self.file_ids(|f| hosts.contains(&f.host))
    }

    /// The files a `service:` value names, any case.
    pub fn files_of_service(&self, value: &str) -> Vec<u32> {
        let want = value.trim();
        self.file_ids(|f| f.service.eq_ignore_ascii_case(want))
    }

    fn file_ids(&self, keep: impl Fn(&FileMeta) -> bool) -> Vec<u32> {
        self.files
            .iter()
            .enumerate()
            .filter(|(_, f)| keep(f))
            .map(|(i, _)| i as u32)
            .collect()
    }
}

impl HostMeta {
    /// The offset (s) of a zone-less wall-clock time given as ns read as UTC: the
    /// earlier instant when the wall clock repeats, the later when it skips (as the
    /// analysis reads local times).
    fn offset_of_local(&self, local_ns: i64) -> i32 {
        let local = local_ns.div_euclid(NANOS);
        let starts = |(at, off): &(i64, i32)| at.saturating_add(i64::from(*off));
        let i = self
            .offsets
            .partition_point(|o| starts(o) <= local)
            .saturating_sub(1);
        let Some(&(_, off)) = self.offsets.get(i) else {
            return 0;
        };
        // Inside the repeated hour after a change back: the earlier offset.
        match (
            i.checked_sub(1).and_then(|p| self.offsets.get(p)),
            self.offsets.get(i),
        ) {
            (Some(&(_, before)), Some(&(at, _)))
                if local < at.saturating_add(i64::from(before)) =>
            {
                before
            }
            _ => off,
        }
    }

    /// The UTC time (ns) of a record's raw time.
    pub fn utc(&self, raw: i64, zoned: bool) -> i64 {
        let utc = if zoned {
            raw
        } else {
            raw.saturating_sub(i64::from(self.offset_of_local(raw)).saturating_mul(NANOS))
        };
        utc.saturating_sub(self.shift_ns)
    }

    /// The smallest zone-less raw time whose UTC time is at least `utc`.
    pub fn first_local_at_or_after(&self, utc: i64) -> i64 {
        let guess = utc.saturating_add(self.shift_ns);
        let (mut lo, mut hi) = (
            guess.saturating_sub(LOCAL_WINDOW_NS),
            guess.saturating_add(LOCAL_WINDOW_NS),
        );
        // utc(lo) < utc <= utc(hi), narrowed by halves.
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.utc(mid, false) >= utc {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn amsterdam() -> HostMeta {
        let zone = HostZone::named("Europe/Amsterdam", ZoneSource::Default).unwrap();
        // 2025-01-01 .. 2025-12-31
        HostMeta {
            name: "ctl1".into(),
            aliases: vec![],
            zone: zone.name.clone(),
            offsets: zone.offsets_between(1_735_689_600, 1_767_139_200),
            shift_ns: 0,
        }
    }

    fn ns(s: &str) -> i64 {
        let t: jiff::Timestamp = s.parse().unwrap();
        t.as_nanosecond() as i64
    }

    #[test]
    fn local_times_become_utc_across_summer_time() {
        let h = amsterdam();
        assert_eq!(h.offsets.len(), 3, "{:?}", h.offsets);
        // Winter: UTC+1; summer: UTC+2 (a local time read as if it were UTC).
        assert_eq!(
            h.utc(ns("2025-01-10T12:00:00Z"), false),
            ns("2025-01-10T11:00:00Z")
        );
        assert_eq!(
            h.utc(ns("2025-07-10T12:00:00Z"), false),
            ns("2025-07-10T10:00:00Z")
        );
        // A time that carried its offset is UTC already.
        assert_eq!(
            h.utc(ns("2025-07-10T12:00:00Z"), true),
            ns("2025-07-10T12:00:00Z")
        );
        // The repeated hour of 26 October: the earlier instant (summer time).
        assert_eq!(
            h.utc(ns("2025-10-26T02:30:00Z"), false),
            ns("2025-10-26T00:30:00Z")
        );
        assert_eq!(
            h.utc(ns("2025-10-26T03:30:00Z"), false),
            ns("2025-10-26T02:30:00Z")
        );
        // And the range back: the first local time at or after a UTC instant.
        assert_eq!(
            h.first_local_at_or_after(ns("2025-07-10T10:00:00Z")),
            ns("2025-07-10T12:00:00Z")
        );
        let shifted = HostMeta {
            shift_ns: 5 * NANOS,
            ..h
        };
        assert_eq!(
            shifted.utc(ns("2025-07-10T12:00:05Z"), false),
            ns("2025-07-10T10:00:00Z")
        );
        assert_eq!(
            shifted.first_local_at_or_after(ns("2025-07-10T10:00:00Z")),
            ns("2025-07-10T12:00:05Z")
        );
    }
}
