//! The time zone of each host, so that oslo.log's zone-less local times become UTC.
//!
//! Kolla and containers often log in local time; a zone guessed wrong turns into false
//! delays between hosts. Order of trust: `--tz`; what the bundle says (`etc/timezone`,
//! the `etc/localtime` link or file, `timedatectl`); offsets seen in lines of the same
//! host (pebble `Z` stamps around oslo lines, Apache `%t`, journal ISO stamps); UTC.

use std::collections::BTreeMap;

use evacdoc_parsers::DateTime;

use crate::model::inventory::ZoneSource;

/// A host's time zone.
#[derive(Clone, Debug)]
pub struct HostZone {
    tz: jiff::tz::TimeZone,
    /// The zone's name (`Europe/Berlin`, `UTC`, `UTC+02:00`).
    pub name: String,
    /// How it was decided.
    pub source: ZoneSource,
}

/// Why a zone name could not be used.
#[derive(Debug, thiserror::Error)]
#[error("unknown time zone {name:?}")]
pub struct UnknownZone {
    /// The name given.
    pub name: String,
}

impl HostZone {
    /// UTC, assumed.
    pub fn utc_default() -> HostZone {
        HostZone {
            tz: jiff::tz::TimeZone::UTC,
            name: "UTC".into(),
            source: ZoneSource::Default,
        }
    }

    /// A named IANA zone (`Europe/Berlin`) or `UTC`, or a fixed offset like `+02:00`.
    pub fn named(name: &str, source: ZoneSource) -> Result<HostZone, UnknownZone> {
        let name = name.trim();
        let unknown = || UnknownZone {
            name: name.to_string(),
        };
        if let Ok((_, offset)) = evacdoc_parsers::time::utc_offset(name) {
            return Ok(HostZone::fixed(offset, source));
        }
        let tz = jiff::tz::TimeZone::get(name).map_err(|_| unknown())?;
        Ok(HostZone {
            tz,
            name: name.to_string(),
            source,
        })
    }

    /// A fixed offset in seconds east of UTC.
    pub fn fixed(offset: i32, source: ZoneSource) -> HostZone {
        let tz = jiff::tz::Offset::from_seconds(offset)
            .map(jiff::tz::TimeZone::fixed)
            .unwrap_or(jiff::tz::TimeZone::UTC);
        let name = if offset == 0 {
            "UTC".to_string()
        } else {
            let sign = if offset < 0 { '-' } else { '+' };
            let abs = offset.unsigned_abs();
            format!("UTC{sign}{:02}:{:02}", abs / 3600, abs % 3600 / 60)
        };
        HostZone { tz, name, source }
    }

    /// A zone from the content of a TZif file (`etc/localtime` copied as a file).
    pub fn tzif(data: &[u8], source: ZoneSource) -> Option<HostZone> {
        let tz = jiff::tz::TimeZone::tzif("localtime", data).ok()?;
        let name = tz.iana_name().unwrap_or("localtime").to_string();
        Some(HostZone { tz, name, source })
    }

    /// The offsets in force from Unix second `from` to `to`: the offset at `from` (as
    /// starting at `i64::MIN`), then each change up to `to` as (its first Unix second,
    /// seconds east of UTC). What a reader without the zone database needs to turn the
    /// host's local times into UTC (the search index keeps it beside the index).
    pub fn offsets_between(&self, from: i64, to: i64) -> Vec<(i64, i32)> {
        // A zone changes offset at most a few times a year: the cap only guards against
        // absurd ranges from a bogus timestamp.
        const MAX_CHANGES: usize = 4096;
        let Ok(start) = jiff::Timestamp::from_second(from) else {
            return vec![(i64::MIN, 0)];
        };
        let mut out = vec![(i64::MIN, self.tz.to_offset(start).seconds())];
        for change in self.tz.following(start) {
            let at = change.timestamp().as_second();
            if at > to || out.len() >= MAX_CHANGES {
                break;
            }
            out.push((at, change.offset().seconds()));
        }
        out
    }

    /// The offset (seconds east of UTC) in force at the local wall-clock time `local`.
    pub fn offset_at(&self, local: &DateTime) -> i32 {
        let civil = jiff::civil::DateTime::new(
            local.year as i16,
            local.month as i8,
            local.day as i8,
            local.hour as i8,
            local.minute as i8,
            local.second.min(59) as i8,
            0,
        );
        civil
            .ok()
            .and_then(|dt| self.tz.to_ambiguous_timestamp(dt).compatible().ok())
            .map(|ts| self.tz.to_offset(ts).seconds())
            .unwrap_or(0)
    }
}

/// Reads a zone name from the text of a bundle file: `etc/timezone` holds the name,
/// `timedatectl` says `Time zone: Europe/Berlin (CEST, +0200)`.
pub fn zone_name_in(rel: &str, text: &str) -> Option<String> {
    if rel.ends_with("timedatectl") {
        let line = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("Time zone:"))?;
        return line.split_whitespace().next().map(str::to_string);
    }
    if rel.ends_with("etc/timezone") {
        return text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string);
    }
    None
}

/// The zone name of an `etc/localtime` link target (`/usr/share/zoneinfo/Europe/Berlin`).
pub fn zone_name_of_link(target: &str) -> Option<String> {
    let (_, name) = target.split_once("zoneinfo/")?;
    let name = name
        .trim_start_matches("posix/")
        .trim_start_matches("right/");
    (!name.is_empty()).then(|| name.to_string())
}

/// Offsets (local minus UTC, seconds) seen in one host's lines, counted.
#[derive(Clone, Debug, Default)]
pub struct OffsetVotes {
    votes: BTreeMap<i32, (u64, &'static str)>,
}

impl OffsetVotes {
    /// Records an offset seen directly (an Apache `%t`, a journal ISO stamp).
    pub fn vote(&mut self, offset: i32, how: &'static str) {
        let entry = self.votes.entry(offset).or_insert((0, how));
        entry.0 += 1;
    }

    /// Records the difference between a local wall clock and a UTC time written for the
    /// same moment (an oslo line inside a pebble `Z` line), rounded to the quarter hour;
    /// differences far from a quarter hour are buffering, not a zone, and are ignored.
    pub fn vote_difference(&mut self, local_minus_utc_nanos: i64, how: &'static str) {
        const QUARTER: i64 = 900;
        let secs = local_minus_utc_nanos.div_euclid(1_000_000_000);
        let rounded = (secs + QUARTER / 2).div_euclid(QUARTER) * QUARTER;
        if (secs - rounded).abs() <= 120 && rounded.abs() <= 14 * 3600 {
            self.vote(rounded as i32, how);
        }
    }

    /// Adds another host file's votes.
    pub fn merge(&mut self, other: &OffsetVotes) {
        for (offset, (count, how)) in &other.votes {
            let entry = self.votes.entry(*offset).or_insert((0, how));
            entry.0 += count;
        }
    }

    /// The offset most lines agree on, with how it was seen.
    pub fn winner(&self) -> Option<(i32, &'static str)> {
        self.votes
            .iter()
            .max_by_key(|(_, (count, _))| *count)
            .map(|(offset, (_, how))| (*offset, *how))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dt(s: &str) -> DateTime {
        evacdoc_parsers::time::oslo_timestamp(s).unwrap().1
    }

    #[test]
    fn named_zones_follow_daylight_saving() {
        let berlin = HostZone::named("Europe/Berlin", ZoneSource::Override).unwrap();
        assert_eq!(berlin.offset_at(&dt("2024-05-21 10:05:00.000")), 7200);
        assert_eq!(berlin.offset_at(&dt("2024-12-21 10:05:00.000")), 3600);
        let fixed = HostZone::named("+05:30", ZoneSource::Override).unwrap();
        assert_eq!(fixed.offset_at(&dt("2024-12-21 10:05:00.000")), 19800);
        assert_eq!(fixed.name, "UTC+05:30");
        assert!(HostZone::named("Mars/Olympus", ZoneSource::Override).is_err());
        assert_eq!(
            HostZone::utc_default().offset_at(&dt("2024-05-21 10:05:00.000")),
            0
        );
    }

    #[test]
    fn zone_names_from_bundle_files() {
        assert_eq!(
            zone_name_in("etc/timezone", "Europe/Berlin\n").as_deref(),
            Some("Europe/Berlin")
        );
        assert_eq!(
            zone_name_in(
                "sos_commands/systemd/timedatectl",
                "               Local time: Tue 2024-05-21 10:32:07 CEST\n                Time zone: Europe/Berlin (CEST, +0200)\n"
            )
            .as_deref(),
            Some("Europe/Berlin")
        );
        assert_eq!(
            zone_name_of_link("/usr/share/zoneinfo/America/New_York").as_deref(),
            Some("America/New_York")
        );
        assert_eq!(
            zone_name_of_link("../usr/share/zoneinfo/Etc/UTC").as_deref(),
            Some("Etc/UTC")
        );
    }

    #[test]
    fn votes_round_to_quarter_hours_and_ignore_buffering() {
        let mut votes = OffsetVotes::default();
        votes.vote_difference(7200 * 1_000_000_000 + 300_000_000, "pebble");
        votes.vote_difference(7199 * 1_000_000_000, "pebble");
        votes.vote_difference(1000 * 1_000_000_000, "pebble"); // 16 min: buffering
        votes.vote(0, "apache");
        assert_eq!(votes.winner(), Some((7200, "pebble")));
    }
}
