//! Dates and times as log lines write them, and the productions that read them.
//!
//! oslo.log writes local wall-clock time with no zone; Apache, pebble and journal lines
//! carry an offset or `Z`. [`Timestamp`] keeps the wall clock and the offset when the
//! line gave one, so the ingest layer can decide the zone of the others.

use std::fmt;

use crate::error::{PResult, expected};

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

// ---------------------------------------------------------------------------------------
// Leaf productions. They read bytes at fixed positions: every log timestamp here is
// fixed-width, and this is the hottest code in the crate.

/// Reads exactly `n` ASCII digits.
pub(crate) fn fixed_digits<'a>(input: &'a str, n: usize, what: &'static str) -> PResult<'a, u32> {
    let bytes = input.as_bytes();
    if bytes.len() < n {
        return expected(input, what);
    }
    let mut value = 0u32;
    for &b in &bytes[..n] {
        if !b.is_ascii_digit() {
            return expected(input, what);
        }
        value = value * 10 + u32::from(b - b'0');
    }
    // `n` ASCII bytes were read, so this is a char boundary.
    Ok((&input[n..], value))
}

/// Reads one or more ASCII digits into a `u64` (saturating on overflow).
pub(crate) fn number<'a>(input: &'a str, what: &'static str) -> PResult<'a, u64> {
    let len = input.bytes().take_while(u8::is_ascii_digit).count();
    if len == 0 {
        return expected(input, what);
    }
    let value = input.as_bytes()[..len].iter().fold(0u64, |acc, b| {
        acc.saturating_mul(10).saturating_add(u64::from(b - b'0'))
    });
    Ok((&input[len..], value))
}

/// Reads the literal byte `c`.
pub(crate) fn byte<'a>(input: &'a str, c: u8, what: &'static str) -> PResult<'a, ()> {
    match input.as_bytes().first() {
        Some(&b) if b == c => Ok((&input[1..], ())),
        _ => expected(input, what),
    }
}

/// Reads an optional fraction `.d+` (any number of digits, kept to nanoseconds).
fn fraction(input: &str) -> PResult<'_, u32> {
    let Some(rest) = input.strip_prefix(['.', ',']) else {
        return Ok((input, 0));
    };
    let len = rest.bytes().take_while(u8::is_ascii_digit).count();
    if len == 0 {
        return expected(rest, "fraction digits");
    }
    let mut nanos = 0u32;
    for (i, b) in rest.as_bytes()[..len].iter().enumerate() {
        if i < 9 {
            nanos = nanos * 10 + u32::from(b - b'0');
        }
    }
    for _ in len..9 {
        nanos *= 10;
    }
    Ok((&rest[len..], nanos))
}

/// `YYYY-MM-DD`
fn iso_date(input: &str) -> PResult<'_, (u16, u8, u8)> {
    let (i, year) = fixed_digits(input, 4, "year")?;
    let (i, _) = byte(i, b'-', "date")?;
    let (i, month) = fixed_digits(i, 2, "month")?;
    let (i, _) = byte(i, b'-', "date")?;
    let (i, day) = fixed_digits(i, 2, "day")?;
    Ok((i, (year as u16, month as u8, day as u8)))
}

/// `HH:MM:SS[.f+]`
fn clock(input: &str) -> PResult<'_, (u8, u8, u8, u32)> {
    let (i, hour) = fixed_digits(input, 2, "hour")?;
    let (i, _) = byte(i, b':', "time")?;
    let (i, minute) = fixed_digits(i, 2, "minute")?;
    let (i, _) = byte(i, b':', "time")?;
    let (i, second) = fixed_digits(i, 2, "second")?;
    let (i, nanos) = fraction(i)?;
    Ok((i, (hour as u8, minute as u8, second as u8, nanos)))
}

fn date_time(
    input: &str,
    (year, month, day): (u16, u8, u8),
    (hour, minute, second, nanos): (u8, u8, u8, u32),
) -> PResult<'_, DateTime> {
    match DateTime::new(year, month, day, hour, minute, second, nanos) {
        Some(dt) => Ok((input, dt)),
        None => expected(input, "valid date"),
    }
}

/// The oslo.log timestamp: `2020-12-08 19:51:12.309` (local time, no zone).
///
/// Accepts any number of fraction digits, or none (a custom `log_date_format`).
pub fn oslo_timestamp(input: &str) -> PResult<'_, DateTime> {
    let (i, date) = iso_date(input)?;
    let (i, _) = byte(i, b' ', "space between date and time")?;
    let (i, clock) = clock(i)?;
    date_time(i, date, clock)
}

/// The timestamp an oslo.log line starts with, under any `log_date_format` of a date and
/// a clock and whichever of oslo.log's time fields the format uses:
///
/// - `%(asctime)s.%(msecs)03d`, the default: `2020-12-08 19:51:12.309` (local time, no
///   zone), or `2020-12-08T19:51:12.309` with a `T` in `log_date_format`;
/// - `%(isotime)s`: `2020-12-08T19:51:12.309512+01:00`, local time and its offset;
/// - a `%z` in `log_date_format`, before the milliseconds: `2020-12-08T19:51:12+0100.309`.
///
/// Any number of fraction digits, or none.
pub fn oslo_line_timestamp(input: &str) -> PResult<'_, Timestamp> {
    let (i, date) = iso_date(input)?;
    let i = match i.as_bytes().first() {
        Some(b' ' | b'T') => &i[1..],
        _ => return expected(i, "space or T between date and time"),
    };
    let (i, (hour, minute, second, nanos)) = clock(i)?;
    let (i, offset) = match utc_offset(i) {
        Ok((rest, offset)) => (rest, Some(offset)),
        Err(_) => (i, None),
    };
    // `%z` in `log_date_format`: `.%(msecs)03d` follows the offset.
    let (i, nanos) = match offset {
        Some(_) if nanos == 0 && i.starts_with('.') => fraction(i)?,
        _ => (i, nanos),
    };
    let (i, local) = date_time(i, date, (hour, minute, second, nanos))?;
    Ok((i, Timestamp { local, offset }))
}

/// A UTC offset: `Z`, `+00:00`, `+0000`, `-05`.
pub fn utc_offset(input: &str) -> PResult<'_, Offset> {
    if let Some(rest) = input.strip_prefix(['Z', 'z']) {
        return Ok((rest, 0));
    }
    let sign = match input.as_bytes().first() {
        Some(b'+') => 1,
        Some(b'-') => -1,
        _ => return expected(input, "utc offset"),
    };
    let (i, hours) = fixed_digits(&input[1..], 2, "utc offset hours")?;
    let i = i.strip_prefix(':').unwrap_or(i);
    let (i, minutes) = match fixed_digits(i, 2, "utc offset minutes") {
        Ok(ok) => ok,
        Err(_) => (i, 0),
    };
    if hours > 23 || minutes > 59 {
        return expected(input, "utc offset");
    }
    Ok((i, sign * (hours as i32 * 3600 + minutes as i32 * 60)))
}

/// RFC 3339 / ISO 8601 with `T`: `2025-05-14T04:29:00.317Z`, `2026-12-01T16:36:28+0000`.
/// The offset is optional.
pub fn rfc3339(input: &str) -> PResult<'_, Timestamp> {
    let (i, date) = iso_date(input)?;
    let (i, _) = byte(i, b'T', "T between date and time")?;
    let (i, clock) = clock(i)?;
    let (i, local) = date_time(i, date, clock)?;
    let (i, offset) = match utc_offset(i) {
        Ok((i, offset)) => (i, Some(offset)),
        Err(_) => (i, None),
    };
    Ok((i, Timestamp { local, offset }))
}

/// `YYYY-MM-DD HH:MM:SS.ffffff` with a space and no zone, as Apache `%{cu}t` and
/// Masakari progress details write it.
pub fn space_timestamp(input: &str) -> PResult<'_, DateTime> {
    oslo_timestamp(input)
}

/// A three-letter English month name.
pub(crate) fn month_name(input: &str) -> PResult<'_, u8> {
    let Some(name) = input.get(..3) else {
        return expected(input, "month name");
    };
    match MONTHS.iter().position(|m| *m == name) {
        Some(index) => Ok((&input[3..], index as u8 + 1)),
        None => expected(input, "month name"),
    }
}

/// A three-letter English weekday name.
pub(crate) fn weekday_name(input: &str) -> PResult<'_, ()> {
    match input.get(..3) {
        Some(name) if WEEKDAYS.contains(&name) => Ok((&input[3..], ())),
        _ => expected(input, "weekday name"),
    }
}

/// The Apache `%t` time without its brackets: `08/Dec/2020:19:51:12 +0000`.
pub fn clf_time(input: &str) -> PResult<'_, Timestamp> {
    let (i, day) = fixed_digits(input, 2, "day")?;
    let (i, _) = byte(i, b'/', "date")?;
    let (i, month) = month_name(i)?;
    let (i, _) = byte(i, b'/', "date")?;
    let (i, year) = fixed_digits(i, 4, "year")?;
    let (i, _) = byte(i, b':', "time")?;
    let (i, clock) = clock(i)?;
    let (i, local) = date_time(i, (year as u16, month, day as u8), clock)?;
    let (i, _) = byte(i, b' ', "space before utc offset")?;
    let (i, offset) = utc_offset(i)?;
    Ok((
        i,
        Timestamp {
            local,
            offset: Some(offset),
        },
    ))
}

/// A day of month padded with a space or a zero: ` 1`, `01`, `12`.
fn padded_day(input: &str) -> PResult<'_, u8> {
    let i = input.strip_prefix(' ').unwrap_or(input);
    let len = i.bytes().take(2).take_while(u8::is_ascii_digit).count();
    if len == 0 {
        return expected(input, "day");
    }
    let (rest, day) = fixed_digits(i, len, "day")?;
    Ok((rest, day as u8))
}

/// The syslog / journalctl `short` time: `Dec  1 16:36:28`, `Dec 01 16:36:28.123456`.
pub fn syslog_time(input: &str) -> PResult<'_, YearlessTime> {
    let (i, month) = month_name(input)?;
    let (i, _) = byte(i, b' ', "space after month")?;
    let (i, day) = padded_day(i)?;
    let (i, _) = byte(i, b' ', "space before time")?;
    let (i, (hour, minute, second, nanos)) = clock(i)?;
    // Validate against a leap year so that Feb 29 is accepted.
    if DateTime::new(2000, month, day, hour, minute, second, nanos).is_none() {
        return expected(input, "valid date");
    }
    Ok((
        i,
        YearlessTime {
            month,
            day,
            hour,
            minute,
            second,
            nanos,
        },
    ))
}

/// The C `%c` time in the C locale: `Thu Aug  1 12:00:00 2025` (uWSGI request lines).
pub fn ctime(input: &str) -> PResult<'_, DateTime> {
    let (i, _) = weekday_name(input)?;
    let (i, _) = byte(i, b' ', "space after weekday")?;
    let (i, month) = month_name(i)?;
    let (i, _) = byte(i, b' ', "space after month")?;
    let (i, day) = padded_day(i)?;
    let (i, _) = byte(i, b' ', "space before time")?;
    let (i, clock) = clock(i)?;
    let (i, _) = byte(i, b' ', "space before year")?;
    let (i, year) = fixed_digits(i, 4, "year")?;
    date_time(i, (year as u16, month, day), clock)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dt(s: &str) -> DateTime {
        oslo_timestamp(s).unwrap().1
    }

    #[test]
    fn oslo_timestamp_reads_milliseconds_and_leaves_the_rest() {
        let (rest, t) = oslo_timestamp("2020-12-08 19:51:12.309 235 INFO").unwrap();
        assert_eq!(rest, " 235 INFO");
        assert_eq!(
            t,
            DateTime::new(2020, 12, 8, 19, 51, 12, 309_000_000).unwrap()
        );
        assert_eq!(t.to_string(), "2020-12-08T19:51:12.309");
    }

    #[test]
    fn oslo_timestamp_without_fraction_and_with_microseconds() {
        assert_eq!(dt("2025-05-14 04:29:00").nanos, 0);
        assert_eq!(dt("2025-05-14 04:29:00.319135").nanos, 319_135_000);
    }

    #[test]
    fn oslo_line_timestamp_reads_each_time_field_oslo_log_offers() {
        fn at(s: &str) -> (&str, String, Option<Offset>) {
            let (rest, t) = oslo_line_timestamp(s).unwrap();
            (rest, t.local.to_string(), t.offset)
        }
        // `%(asctime)s.%(msecs)03d` under the default and a `T` `log_date_format`.
        let plain = (" 235 INFO", "2020-12-08T19:51:12.309".to_string(), None);
        assert_eq!(at("2020-12-08 19:51:12.309 235 INFO"), plain);
        assert_eq!(at("2020-12-08T19:51:12.309 235 INFO"), plain);
        // `%(isotime)s`: microseconds and the local offset.
        assert_eq!(
            at("2020-12-08T19:51:12.309512+01:00 235 INFO"),
            (" 235 INFO", "2020-12-08T19:51:12.309512".into(), Some(3600))
        );
        assert_eq!(
            at("2020-12-08T14:51:12.309512-05:00 235"),
            (" 235", "2020-12-08T14:51:12.309512".into(), Some(-18000))
        );
        // `%z` in `log_date_format`, then `.%(msecs)03d`.
        assert_eq!(
            at("2020-12-08T19:51:12+0100.309 235"),
            (" 235", "2020-12-08T19:51:12.309".into(), Some(3600))
        );
        assert_eq!(at("2020-12-08 19:51:12Z 1").2, Some(0));
        assert!(oslo_line_timestamp("2020-12-08_19:51:12.309 235").is_err());
        assert!(oslo_line_timestamp("2020-12-08T25:51:12.309 235").is_err());
    }

    #[test]
    fn oslo_timestamp_rejects_impossible_dates() {
        assert!(oslo_timestamp("2023-02-29 10:00:00.000").is_err());
        assert!(oslo_timestamp("2024-02-29 10:00:00.000").is_ok());
        assert!(oslo_timestamp("2024-13-01 10:00:00.000").is_err());
        assert!(oslo_timestamp("2024-12-01 24:00:00.000").is_err());
        assert!(oslo_timestamp("2024-12-01T10:00:00.000").is_err());
        assert!(oslo_timestamp("2024-12-0").is_err());
    }

    #[test]
    fn rfc3339_with_z_offset_and_none() {
        let (rest, t) = rfc3339("2025-05-14T04:29:00.317Z [wsgi-nova-api]").unwrap();
        assert_eq!(rest, " [wsgi-nova-api]");
        assert_eq!(t.offset, Some(0));
        assert_eq!(t.to_string(), "2025-05-14T04:29:00.317Z");
        let (_, t) = rfc3339("2026-12-01T16:36:28+0100 host").unwrap();
        assert_eq!(t.offset, Some(3600));
        assert_eq!(t.to_string(), "2026-12-01T16:36:28.000+01:00");
        assert_eq!(t.to_utc().unwrap().to_string(), "2026-12-01T15:36:28.000Z");
        let (_, t) = rfc3339("2026-12-01T16:36:28.123456-05:30").unwrap();
        assert_eq!(t.offset, Some(-(5 * 3600 + 30 * 60)));
        let (rest, t) = rfc3339("2026-12-01T16:36:28 x").unwrap();
        assert_eq!((rest, t.offset), (" x", None));
    }

    #[test]
    fn clf_time_reads_apache_t() {
        let (rest, t) = clf_time("08/Dec/2020:19:51:12 +0000] \"POST").unwrap();
        assert_eq!(rest, "] \"POST");
        assert_eq!(t.to_string(), "2020-12-08T19:51:12.000Z");
        assert!(clf_time("08/Dez/2020:19:51:12 +0000]").is_err());
    }

    #[test]
    fn syslog_and_ctime() {
        let (rest, t) = syslog_time("Dec  1 16:36:28 host nova").unwrap();
        assert_eq!(rest, " host nova");
        assert_eq!((t.month, t.day, t.hour), (12, 1, 16));
        let (_, t) = syslog_time("Dec 01 16:36:28.123456 host").unwrap();
        assert_eq!(t.nanos, 123_456_000);
        let (rest, t) = ctime("Thu Aug  1 12:00:00 2025] POST").unwrap();
        assert_eq!(rest, "] POST");
        assert_eq!(t.to_string(), "2025-08-01T12:00:00.000");
    }

    #[test]
    fn unix_round_trip_and_offsets() {
        let t = dt("2020-12-08 19:51:12.309");
        let n = t.unix_nanos(0);
        assert_eq!(n, 1_607_457_072_309_000_000);
        assert_eq!(DateTime::from_unix_nanos(n), Some(t));
        assert_eq!(t.unix_nanos(3600), n - 3_600_000_000_000);
        assert_eq!(
            DateTime::from_unix_nanos(-1).unwrap().to_string(),
            "1969-12-31T23:59:59.999999999"
        );
    }

    #[test]
    fn unix_nanos_outside_i64_saturates_or_is_none() {
        let early = dt("1000-01-01 00:00:00.001");
        assert_eq!(early.unix_nanos(0), i64::MIN);
        assert_eq!(early.checked_unix_nanos(0), None);
        let late = dt("9999-12-31 23:59:59.999");
        assert_eq!(late.unix_nanos(0), i64::MAX);
        let ts = Timestamp {
            local: late,
            offset: Some(0),
        };
        assert_eq!((ts.unix_nanos(), ts.to_utc()), (None, None));
    }
}
