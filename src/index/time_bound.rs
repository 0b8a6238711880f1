//! A search's time bound as people give it: RFC 3339 (`2024-05-21T08:05:00Z`, any
//! offset), or the form the UI shows its UTC times in (`2024-05-21 08:05:00.123`, `T`
//! or a space, seconds and fraction optional, an optional ` UTC`/`Z`), or a date alone
//! (its first instant as a start, its last as an end).

use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;

/// Which end of a range a bound is: a date alone means its first or its last instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    Start,
    Finish,
}

/// `text` as UTC nanoseconds since the Unix epoch; the error says the forms taken.
pub fn parse_time_bound(text: &str, end: End) -> Result<i64, String> {
    let text = text.trim();
    let refused = || {
        format!(
            "{text:?} is not a time: give RFC 3339 (2024-05-21T08:05:00Z) or a UTC time as the pages show it (2024-05-21 08:05:00.123)"
        )
    };
    let nanos = |t: jiff::Timestamp| i64::try_from(t.as_nanosecond()).map_err(|_| refused());
    if let Ok(t) = text.parse::<jiff::Timestamp>() {
        return nanos(t);
    }
    let bare = text
        .strip_suffix(" UTC")
        .or_else(|| text.strip_suffix('Z'))
        .unwrap_or(text)
        .trim_end();
    if let Ok(civil) = bare.parse::<DateTime>()
        && bare.len() > 10
    {
        let at = TimeZone::UTC.to_timestamp(civil).map_err(|_| refused())?;
        return nanos(at);
    }
    if let Ok(date) = bare.parse::<Date>() {
        let first = TimeZone::UTC
            .to_timestamp(date.to_datetime(jiff::civil::Time::midnight()))
            .map_err(|_| refused())?;
        return match end {
            End::Start => nanos(first),
            End::Finish => {
                let next = date.tomorrow().map_err(|_| refused())?;
                let next = TimeZone::UTC
                    .to_timestamp(next.to_datetime(jiff::civil::Time::midnight()))
                    .map_err(|_| refused())?;
                nanos(next).map(|n| n - 1)
            }
        };
    }
    Err(refused())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(s: &str) -> i64 {
        s.parse::<jiff::Timestamp>().unwrap().as_nanosecond() as i64
    }

    #[test]
    fn rfc3339_and_the_pages_own_form_are_taken() {
        let at = ns("2020-12-08T19:51:12.345Z");
        for text in [
            "2020-12-08T19:51:12.345Z",
            "2020-12-08T20:51:12.345+01:00",
            "2020-12-08 19:51:12.345",
            "2020-12-08T19:51:12.345",
            " 2020-12-08 19:51:12.345 UTC ",
        ] {
            assert_eq!(parse_time_bound(text, End::Start), Ok(at), "{text}");
        }
        assert_eq!(
            parse_time_bound("2020-12-08 19:51", End::Start),
            Ok(ns("2020-12-08T19:51:00Z"))
        );
        assert_eq!(
            parse_time_bound("2020-12-08", End::Start),
            Ok(ns("2020-12-08T00:00:00Z"))
        );
        assert_eq!(
            parse_time_bound("2020-12-08", End::Finish),
            Ok(ns("2020-12-09T00:00:00Z") - 1)
        );
        for bad in ["yesterday", "19:51:12", "", "2020-13-40"] {
            let err = parse_time_bound(bad, End::Start).unwrap_err();
            assert!(err.contains("2024-05-21 08:05:00.123"), "{err}");
        }
    }
}
