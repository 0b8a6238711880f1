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
