//! The productions that read the timestamps of log lines into [`DateTime`],
//! [`Timestamp`] and [`YearlessTime`].

use super::{DateTime, MONTHS, Offset, Timestamp, WEEKDAYS, YearlessTime};
use crate::error::{PResult, expected};

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
