//! Dates and times as log lines write them, and the productions that read them.
//!
//! oslo.log writes local wall-clock time with no zone; Apache, pebble and journal lines
//! carry an offset or `Z`. [`Timestamp`] keeps the wall clock and the offset when the
//! line gave one, so the ingest layer can decide the zone of the others.

use std::fmt;

/// A calendar date and wall-clock time, nanosecond precision, no zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DateTime {
    /// Four-digit year.
    pub year: u16,
    /// 1 to 12.
    pub month: u8,
    /// 1 to 31, valid for the month.
    pub day: u8,
    /// 0 to 23.
    pub hour: u8,
    /// 0 to 59.
    pub minute: u8,
    /// 0 to 60 (a leap second is accepted as written).
    pub second: u8,
    /// 0 to 999 999 999.
    pub nanos: u32,
}

/// Seconds east of UTC.
pub type Offset = i32;

/// A time as a line wrote it: the wall clock, and its UTC offset when the line says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Timestamp {
    /// The wall-clock time written in the line.
    pub local: DateTime,
    /// Its offset from UTC in seconds, when the line gives one (`Z`, `+0000`, `-05:00`).
    pub offset: Option<Offset>,
}

/// A syslog time: no year and no zone (`Dec  1 16:36:28`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct YearlessTime {
    /// 1 to 12.
    pub month: u8,
    /// 1 to 31.
    pub day: u8,
    /// 0 to 23.
    pub hour: u8,
    /// 0 to 59.
    pub minute: u8,
    /// 0 to 60.
    pub second: u8,
    /// 0 to 999 999 999.
    pub nanos: u32,
}

impl YearlessTime {
    /// The full date-time once the year is known (from the bundle's capture date).
    pub fn with_year(&self, year: u16) -> Option<DateTime> {
        DateTime::new(
            year,
            self.month,
            self.day,
            self.hour,
            self.minute,
            self.second,
            self.nanos,
        )
    }

    /// The date-time in the year that puts it at or before `written` (a file's
    /// modification time): a log is written before it is last modified, so a month past
    /// `written`'s is last year's (a December line in a file saved in January).
    ///
    /// ```
    /// use evacdoc_parsers::time::{DateTime, YearlessTime};
    /// let line = YearlessTime { month: 12, day: 30, hour: 23, minute: 59, second: 58, nanos: 0 };
    /// let saved = DateTime::new(2026, 1, 2, 8, 0, 0, 0).unwrap();
    /// assert_eq!(line.written_before(&saved).unwrap().year, 2025);
    /// let saved = DateTime::new(2026, 12, 30, 8, 0, 0, 0).unwrap();
    /// assert_eq!(line.written_before(&saved).unwrap().year, 2026);
    /// ```
    pub fn written_before(&self, written: &DateTime) -> Option<DateTime> {
        let year = if self.month > written.month {
            written.year.checked_sub(1)?
        } else {
            written.year
        };
        self.with_year(year)
    }
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
const WEEKDAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

fn is_leap(year: u16) -> bool {
    (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400)
}

fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        2 => 28,
        _ => 0,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The inverse of [`days_from_civil`].
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

impl DateTime {
    /// A validated date-time; `None` when a field is out of range.
    pub fn new(
        year: u16,
        month: u8,
        day: u8,
        hour: u8,
        minute: u8,
        second: u8,
        nanos: u32,
    ) -> Option<DateTime> {
        let valid = (1..=12).contains(&month)
            && day >= 1
            && day <= days_in_month(year, month)
            && hour < 24
            && minute < 60
            && second <= 60
            && nanos < 1_000_000_000;
        valid.then_some(DateTime {
            year,
            month,
            day,
            hour,
            minute,
            second,
            nanos,
        })
    }

    /// Nanoseconds since the Unix epoch, reading this wall clock at `offset` seconds
    /// east of UTC. Saturates at the limits of `i64` (before 1677-09-21 and after
    /// 2262-04-11); see [`DateTime::checked_unix_nanos`].
    pub fn unix_nanos(&self, offset: Offset) -> i64 {
        match self.checked_unix_nanos(offset) {
            Some(nanos) => nanos,
            None if self.unix_secs(offset) < 0 => i64::MIN,
            None => i64::MAX,
        }
    }

    /// Nanoseconds since the Unix epoch, or `None` when the instant does not fit in an
    /// `i64` (before 1677-09-21 or after 2262-04-11).
    pub fn checked_unix_nanos(&self, offset: Offset) -> Option<i64> {
        self.unix_secs(offset)
            .checked_mul(1_000_000_000)?
            .checked_add(i64::from(self.nanos))
    }

    /// Seconds since the Unix epoch (years 0 to 65535 cannot overflow).
    fn unix_secs(&self, offset: Offset) -> i64 {
        let days = days_from_civil(
            i64::from(self.year),
            i64::from(self.month),
            i64::from(self.day),
        );
        days * 86_400
            + i64::from(self.hour) * 3600
            + i64::from(self.minute) * 60
            + i64::from(self.second)
            - i64::from(offset)
    }

    /// The UTC wall clock of a Unix time in nanoseconds; `None` outside years 0 to 9999.
    pub fn from_unix_nanos(nanos: i64) -> Option<DateTime> {
        let secs = nanos.div_euclid(1_000_000_000);
        let sub = nanos.rem_euclid(1_000_000_000) as u32;
        let days = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        let year = u16::try_from(year).ok().filter(|y| *y <= 9999)?;
        DateTime::new(
            year,
            month as u8,
            day as u8,
            (rem / 3600) as u8,
            (rem % 3600 / 60) as u8,
            (rem % 60) as u8,
            sub,
        )
    }
}

impl fmt::Display for DateTime {
    /// `YYYY-MM-DDTHH:MM:SS.ffffff`, fraction trimmed to milliseconds when that is exact.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )?;
        if self.nanos.is_multiple_of(1_000_000) {
            write!(f, ".{:03}", self.nanos / 1_000_000)
        } else if self.nanos.is_multiple_of(1_000) {
            write!(f, ".{:06}", self.nanos / 1_000)
        } else {
            write!(f, ".{:09}", self.nanos)
        }
    }
}

impl Timestamp {
    /// A wall-clock time with no known zone.
    pub fn local(local: DateTime) -> Timestamp {
        Timestamp {
            local,
            offset: None,
        }
    }

    /// Nanoseconds since the Unix epoch, when the offset is known and the instant fits
    /// in an `i64`.
    pub fn unix_nanos(&self) -> Option<i64> {
        self.local.checked_unix_nanos(self.offset?)
    }

    /// The same instant in UTC, when the offset is known.
    pub fn to_utc(&self) -> Option<Timestamp> {
        let utc = DateTime::from_unix_nanos(self.unix_nanos()?)?;
        Some(Timestamp {
            local: utc,
            offset: Some(0),
        })
    }
}

impl fmt::Display for Timestamp {
    /// RFC 3339: `2020-12-08T19:51:12.000Z`, `...+01:00`; no suffix when the zone is unknown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.local)?;
        match self.offset {
            None => Ok(()),
            Some(0) => f.write_str("Z"),
            Some(offset) => {
                let sign = if offset < 0 { '-' } else { '+' };
                let abs = offset.unsigned_abs();
                write!(f, "{sign}{:02}:{:02}", abs / 3600, abs % 3600 / 60)
            }
        }
    }
}

impl serde::Serialize for DateTime {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl serde::Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

mod parse;
pub(crate) use parse::{byte, fixed_digits, number, weekday_name};
pub use parse::{
    clf_time, ctime, oslo_line_timestamp, oslo_timestamp, rfc3339, space_timestamp, syslog_time,
    utc_offset,
};

#[cfg(test)]
mod tests;
