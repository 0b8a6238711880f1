//! Clock skew on copies of real scenarios whose hosts' clocks were moved on purpose:
//! the measured interval holds the offset put in, a large one is corrected, the
//! detectors find what they find on the original, and a host in no causal pair stays
//! where it is.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::Path;

use evacdoc::correlate::Analysis;
use evacdoc::correlate::skew::pairs::causal_pairs;
use evacdoc::detect::{DetectOptions, detect};
use evacdoc::run::{Options, analyze};

use crate::util::samples;

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn num(s: &str) -> Option<i64> {
    s.bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| s.parse().ok())
        .flatten()
}

/// `YYYY-MM-DD?HH:MM:SS` (oslo, ISO) moved by `secs`, the separator kept.
fn shift_iso(s: &str, secs: i64) -> Option<String> {
    if !s.is_ascii() {
        return None;
    }
    let (y, mo, d) = (num(&s[0..4])?, num(&s[5..7])?, num(&s[8..10])?);
    let (h, mi, se) = (num(&s[11..13])?, num(&s[14..16])?, num(&s[17..19])?);
    if &s[4..5] != "-" || &s[7..8] != "-" || &s[13..14] != ":" || &s[16..17] != ":" {
        return None;
    }
    let t = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + se + secs;
    let (y, mo, d) = civil_from_days(t.div_euclid(86_400));
    let r = t.rem_euclid(86_400);
    Some(format!(
        "{y:04}-{mo:02}-{d:02}{}{:02}:{:02}:{:02}",
        &s[10..11],
        r / 3600,
        r / 60 % 60,
        r % 60
    ))
}

/// `DD/Mon/YYYY:HH:MM:SS` (Apache `%t`) moved by `secs`.
fn shift_apache(s: &str, secs: i64) -> Option<String> {
    if !s.is_ascii() {
        return None;
    }
    let d = num(&s[0..2])?;
    let mo = MONTHS.iter().position(|m| *m == &s[3..6])? as i64 + 1;
    let y = num(&s[7..11])?;
    let (h, mi, se) = (num(&s[12..14])?, num(&s[15..17])?, num(&s[18..20])?);
    let t = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + se + secs;
    let (y, mo, d) = civil_from_days(t.div_euclid(86_400));
    let r = t.rem_euclid(86_400);
    Some(format!(
        "{d:02}/{}/{y:04}:{:02}:{:02}:{:02}",
        MONTHS[mo as usize - 1],
        r / 3600,
        r / 60 % 60,
        r % 60
    ))
}

/// Every oslo/ISO and Apache time stamp of `text` moved by `secs` seconds.
pub fn shift_stamps(text: &str, secs: i64) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let bytes = text.as_bytes();
    while i < text.len() {
        let iso = text
            .get(i..i + 19)
            .filter(|_| matches!(bytes[i + 10], b' ' | b'T'))
            .and_then(|s| shift_iso(s, secs));
        if let Some(new) = iso {
            out.push_str(&new);
            i += 19;
            continue;
        }
        let apache = (bytes[i] == b'[')
            .then(|| text.get(i + 1..i + 21))
            .flatten()
            .and_then(|s| shift_apache(s, secs));
        if let Some(new) = apache {
            out.push('[');
            out.push_str(&new);
            i += 21;
            continue;
        }
        let c = text[i..].chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    out
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type().unwrap();
        if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&src).unwrap(), &dst).unwrap();
        } else if kind.is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// Moves the stamps of every log under `dir` (plain or gzipped) by `secs`.
fn shift_logs(dir: &Path, secs: i64) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            shift_logs(&path, secs);
            continue;
        }
        let raw = std::fs::read(&path).unwrap();
        let gz = path.extension().is_some_and(|e| e == "gz");
        let text = if gz {
            let mut s = String::new();
            flate2::read::GzDecoder::new(&raw[..])
                .read_to_string(&mut s)
                .unwrap();
            s
        } else {
            String::from_utf8(raw).unwrap()
        };
        let moved = shift_stamps(&text, secs);
        if gz {
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            enc.write_all(moved.as_bytes()).unwrap();
            std::fs::write(&path, enc.finish().unwrap()).unwrap();
        } else {
            std::fs::write(&path, moved).unwrap();
        }
    }
}

/// The Kolla scenario with nova-api's logs on a host of their own (`ctl02`), so that
/// Masakari's calls and Nova's requests are on two clocks; `ctl02`'s clock `secs` off.
fn kolla_split(secs: i64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bundle");
    copy_tree(
        &samples().join("scenarios/2023-kolla-evacuate-race-zed"),
        &root,
    );
    std::fs::create_dir_all(root.join("ctl02/var/log/kolla")).unwrap();
    std::fs::create_dir_all(root.join("ctl02/etc")).unwrap();
    std::fs::copy(
        root.join("ctl01/etc/timezone"),
        root.join("ctl02/etc/timezone"),
    )
    .unwrap();
    std::fs::rename(
        root.join("ctl01/var/log/kolla/nova"),
        root.join("ctl02/var/log/kolla/nova"),
    )
    .unwrap();
    shift_logs(&root.join("ctl02/var/log"), secs);
    dir
}

/// A copy of `scenario` with the logs under `host_dir` moved by `secs`.
fn shifted_copy(scenario: &str, host_dir: &str, secs: i64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bundle");
    copy_tree(&samples().join("scenarios").join(scenario), &root);
    shift_logs(&root.join(host_dir).join("var/log"), secs);
    dir
}

fn analyze_dir(dir: &tempfile::TempDir) -> Analysis {
    analyze(&[dir.path().join("bundle")], &Options::default()).unwrap()
}

/// Detector and subject of each finding.
fn finding_ids(a: &Analysis) -> BTreeSet<String> {
    detect(a, &DetectOptions::default())
        .into_iter()
        .map(|f| f.id.to_string())
        .collect()
}

fn host_id(a: &Analysis, name: &str) -> u32 {
    a.hosts.iter().find(|h| h.hostname == name).unwrap().id
}

#[test]
fn shifting_moves_oslo_iso_and_apache_stamps() {
    let line = "2020-12-31 23:59:30.123 235 INFO x [-] a\n10.0.0.1 - - [31/Dec/2020:23:59:30 +0000] \"GET / HTTP/1.1\" 200\n2025-06-10T19:21:18.772Z [svc] 2025-06-10 19:21:18.771 1 INFO";
    assert_eq!(
        shift_stamps(line, 95),
        "2021-01-01 00:01:05.123 235 INFO x [-] a\n10.0.0.1 - - [01/Jan/2021:00:01:05 +0000] \"GET / HTTP/1.1\" 200\n2025-06-10T19:22:53.772Z [svc] 2025-06-10 19:22:53.771 1 INFO"
    );
    assert_eq!(
        shift_stamps("2021-01-01 00:00:03.5", -4),
        "2020-12-31 23:59:59.5"
    );
}

#[test]
fn injected_offsets_are_measured_and_large_ones_corrected() {
    let baseline = kolla_split(0);
    let a0 = analyze_dir(&baseline);
    let expected = finding_ids(&a0);
    assert!(
        expected.iter().any(|f| f.starts_with("evacuate-400-race")),
        "{expected:?}"
    );
    for secs in [0i64, 4, -4, 95, -95, 600, -600] {
        let dir = kolla_split(secs);
        let a = analyze_dir(&dir);
        let (ctl01, ctl02) = (host_id(&a, "ctl01"), host_id(&a, "ctl02"));
        let s = a
            .skew
            .iter()
            .find(|s| s.host == ctl02)
            .unwrap_or_else(|| panic!("{secs} s: no estimate: {:?}", a.skew));
        assert_eq!(s.reference, ctl01, "{secs} s: {s:?}");
        let want = secs * 1000;
        assert!(
            s.low_ms.is_some_and(|l| l <= want) && s.high_ms.is_some_and(|h| want <= h),
            "{secs} s: interval {:?}..{:?} misses it: {s:?}",
            s.low_ms,
            s.high_ms
        );
        assert!(s.pairs >= 20, "{secs} s: {s:?}");
        assert_eq!(s.applied, secs != 0, "{secs} s: {s:?}");
        if s.applied {
            assert!(
                s.offset_ms.is_some_and(|v| (v - want).abs() < 500),
                "{secs} s: {s:?}"
            );
        }
        assert_eq!(finding_ids(&a), expected, "{secs} s: other findings");
        // After the correction every server line of a pair lies inside its call's
        // window: every pair allows offset zero.
        for p in causal_pairs(&a.events, &a.files) {
            assert!(
                p.lo.is_none_or(|lo| lo <= 0) && p.hi.is_none_or(|hi| hi >= 0),
                "{secs} s: {p:?}"
            );
        }
        // The 400 follows the evacuate call that caused it.
        let evacuate = a
            .events
            .iter()
            .position(|e| {
                e.message()
                    .starts_with("Call evacuate command for instance ea113f7d")
            })
            .unwrap();
        let answer = a
            .events
            .iter()
            .position(|e| {
                e.request_id
                    .is_some_and(|r| r.request_id() == "req-3789b55f-48f9-4542-b52a-4f6310204c52")
                    && e.http().is_some()
            })
            .unwrap();
        assert!(evacuate < answer, "{secs} s: the 400 comes before its call");
    }
}

#[test]
fn a_host_in_no_causal_pair_is_not_shifted() {
    let original = crate::analysis::analyze_scenario("2020-juju-evacuate-race");
    // node02 (machine 1), the failed compute, shares no request with the others.
    let dir = shifted_copy("2020-juju-evacuate-race", "1/baremetal", 95);
    let a = analyze_dir(&dir);
    let node02 = host_id(&a, "node02ob100");
    assert!(a.skew.iter().all(|s| s.host != node02), "{:?}", a.skew);
    let times = |a: &Analysis, h: u32| -> Vec<i64> {
        a.events
            .iter()
            .filter(|e| e.host == h)
            .map(|e| e.time)
            .collect()
    };
    let before = times(&original, host_id(&original, "node02ob100"));
    let after = times(&a, node02);
    assert!(!before.is_empty());
    assert_eq!(
        after,
        before
            .iter()
            .map(|t| t + 95_000_000_000)
            .collect::<Vec<_>>()
    );
}

#[test]
fn before_zed_returned_request_ids_anchor_the_joins() {
    // No global request ids: the evacuate answered 400 with its Request-ID proves one
    // pair, which narrows the search for the calls around it.
    let original = crate::analysis::analyze_scenario("2020-juju-evacuate-race");
    let expected = finding_ids(&original);
    for secs in [95i64, -95, 600, -4] {
        let dir = shifted_copy("2020-juju-evacuate-race", "3/lxd/6", secs);
        let a = analyze_dir(&dir);
        let ncc = host_id(&a, "juju-4f2a1c-3-lxd-6");
        let s = a.skew.iter().find(|s| s.host == ncc).unwrap();
        let want = secs * 1000;
        assert!(
            s.low_ms.is_some_and(|l| l <= want) && s.high_ms.is_some_and(|h| h >= want),
            "{secs} s: {s:?}"
        );
        assert!(s.applied && s.pairs >= 3, "{secs} s: {s:?}");
        assert_eq!(s.reference, host_id(&a, "juju-4f2a1c-3-lxd-4"));
        assert_eq!(finding_ids(&a), expected, "{secs} s");
    }
}

#[test]
fn a_compute_behind_its_api_is_bounded_from_one_side() {
    // node01's clock 95 s behind: its rebuild lines of the evacuation's request would
    // come before nova-api accepted it. One such request: measured, not corrected.
    let dir = shifted_copy("2020-juju-evacuate-race", "0/baremetal", -95);
    let a = analyze_dir(&dir);
    let node01 = host_id(&a, "node01ob100");
    let s = a.skew.iter().find(|s| s.host == node01).unwrap();
    assert_eq!(s.low_ms, None, "{s:?}");
    // The API request started 3.6 s before node01's first line of it.
    assert!(
        s.high_ms.is_some_and(|h| (-95_000..-90_000).contains(&h)),
        "{s:?}"
    );
    assert!(!s.applied, "{s:?}");
    assert_eq!(s.pairs, 1);
    // Bounds only: no offset claimed, and the note says so.
    assert_eq!(s.offset_ms, None, "{s:?}");
    assert!(
        s.note.contains("at least")
            && s.note.contains("one-sided")
            && s.note.ends_with("not corrected"),
        "{s:?}"
    );
}

#[test]
fn clock_captures_are_read_and_shown_beside_the_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bundle");
    copy_tree(
        &samples().join("scenarios/2023-sosreport-bfv-delay-prezed"),
        &root,
    );
    let compute = root.join("sosreport-compute-1-2023-03-08-bxrtue/sos_commands");
    std::fs::create_dir_all(compute.join("chrony")).unwrap();
    std::fs::create_dir_all(compute.join("systemd")).unwrap();
    std::fs::write(
        compute.join("chrony/chronyc_-n_tracking"),
        "Reference ID    : 00000000 ()\nStratum         : 0\nSystem time     : 0.000000000 seconds fast of NTP time\nLeap status     : Not synchronised\n",
    )
    .unwrap();
    std::fs::write(
        compute.join("systemd/timedatectl"),
        "               Local time: Wed 2023-03-08 10:00:00 UTC\n                Time zone: Etc/UTC (UTC, +0000)\nSystem clock synchronized: no\n              NTP service: inactive\n",
    )
    .unwrap();
    let ctl = root.join("sosreport-ctl-1-2023-03-08-qwmzkp/sos_commands/ntp");
    std::fs::create_dir_all(&ctl).unwrap();
    std::fs::write(
        ctl.join("ntpq_-p"),
        "     remote           refid      st t when poll reach   delay   offset  jitter\n==============================================================================\n*10.0.0.1        .GPS.            1 u   12   64  377    0.401   -1.250   0.031\n",
    )
    .unwrap();
    let a = analyze_dir(&dir);
    let compute_1 = host_id(&a, "compute-1");
    let mine: Vec<_> = a.clocks.iter().filter(|c| c.host == compute_1).collect();
    assert_eq!(mine.len(), 2, "{:?}", a.clocks);
    assert!(mine.iter().all(|c| c.status.synchronized == Some(false)));
    let ctl_1 = host_id(&a, "ctl-1");
    let ntp = a.clocks.iter().find(|c| c.host == ctl_1).unwrap();
    assert_eq!(ntp.status.ahead_ms, Some(1.25));

    let findings = detect(&a, &DetectOptions::default());
    let text = evacdoc::triage::report::text(&a, &findings, evacdoc::triage::report::Style::PLAIN);
    let line = text
        .lines()
        .find(|l| l.contains("clock: compute-1:"))
        .unwrap_or_else(|| panic!("{text}"));
    // The measured offset first, then what the host says.
    assert!(line.contains("causal pairs"), "{line}");
    assert!(line.contains("chrony: not synchronised"), "{line}");
    assert!(
        line.contains("timedatectl: not synchronised, NTP service inactive"),
        "{line}"
    );
    let md = evacdoc::triage::report::markdown(&a, &findings);
    assert!(
        md.contains("- ctl-1: ntpq: synchronised, 1.250 ms fast, source 10.0.0.1"),
        "{md}"
    );
}
