//! `evacdoc redact --public`: the public copy is default-deny, with its report beside
//! it; damaged members, names that redact alike and lines of invalid UTF-8.

use std::path::{Path, PathBuf};

use evacdoc::redacted_copy::{RedactOptions, redact_bundle};

use super::every_text;
use crate::util::{evacdoc, samples, stderr, stdout};

#[test]
fn the_cli_public_copy_is_default_deny_with_its_report_beside_it() {
    let tmp = tempfile::tempdir().unwrap();
    // The upload's own name carries the host and the company.
    let bundle = tmp
        .path()
        .join("sosreport-node02ob100-acmecorp-case-01234567");
    crate::util::copy_tree(
        &samples().join("scenarios/2020-juju-evacuate-race"),
        &bundle,
    );
    let conf = bundle.join("3/lxd/6/etc/nova/nova.conf");
    let mut nova = std::fs::read_to_string(&conf).unwrap();
    nova.push_str(
        "\n[keystone_authtoken]\nusername = cloud-ops\npassword = 73914826\nproject_name = storage-primary\n",
    );
    std::fs::write(&conf, nova).unwrap();
    let api = bundle.join("3/lxd/6/var/log/nova/nova-api-wsgi.log");
    let mut log = std::fs::read_to_string(&api).unwrap();
    log.push_str(
        "2020-12-08 19:59:07.001 141077 WARNING keystonemiddleware.auth_token [-] Authorization failed for cloud-ops in storage-primary; retried with 73914826\n",
    );
    std::fs::write(&api, log).unwrap();
    let out = tmp.path().join("public");
    let o = evacdoc(&[
        "redact",
        bundle.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--public",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(
        report["public"]["lines"].as_u64().unwrap() > 100,
        "{report}"
    );
    assert!(
        report["public"]["secrets"].as_u64().unwrap() > 0,
        "{report}"
    );
    // Lines of a known Masakari or Nova message, and lines reduced to the vocabulary.
    let public = |key: &str| report["public"][key].as_u64().unwrap();
    assert!(public("templated") > 0, "{report}");
    assert!(public("vocabulary_lines") > 0, "{report}");
    assert!(
        public("templated") + public("vocabulary_lines") <= public("lines"),
        "{report}"
    );
    let beside = tmp.path().join("public.redaction-report.json");
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&beside).unwrap()).unwrap();
    assert_eq!(written["public"], report["public"]);
    assert!(out.join("redaction-report.json").is_file());
    let mut files = Vec::new();
    every_text(&out, &mut files);
    let mut story = false;
    for (path, text) in &files {
        let rel = path
            .strip_prefix(&out)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        for value in [
            "node02ob100",
            "acmecorp",
            "cloud-ops",
            "storage-primary",
            "73914826",
            "172.27.100",
        ] {
            assert!(!rel.contains(value), "{value} in the path {rel}");
            assert!(!text.contains(value), "{value} in {rel}");
        }
        story |= text.contains("is still in use");
    }
    assert!(story, "the race's 400 reads as it did");
    // The upload's name reads `bundle`.
    assert!(
        out.join("bundle").is_dir()
            || files
                .iter()
                .all(|(p, _)| !p.to_string_lossy().contains("sosreport-"))
    );
}

#[test]
fn a_damaged_nested_archive_is_named_by_the_upload_and_its_member_path_in_the_report() {
    let tmp = tempfile::tempdir().unwrap();
    // Where a service keeps the upload, and the name the user gave it.
    let kept = tmp.path().join("data/analyses/0f3c/input/case-01.tar.gz");
    std::fs::create_dir_all(kept.parent().unwrap()).unwrap();
    std::fs::write(
        &kept,
        crate::serve_uploads::scenario_with_a_damaged_member(),
    )
    .unwrap();
    let mut options = RedactOptions::new(tmp.path().join("out"), None);
    options.work_dir = Some(tmp.path().join("data/tmp"));
    options.input_names = vec!["case-01.tar.gz".into()];
    let report = redact_bundle(std::slice::from_ref(&kept), &options).unwrap();
    let (_, reason) = report
        .skipped
        .iter()
        .find(|(path, _)| path == "case-01/nested/sosreport-cmp1")
        .unwrap_or_else(|| panic!("{:?}", report.skipped));
    assert!(
        reason.starts_with(
            "archive damaged, read what came before: case-01/nested/sosreport-cmp1.tar.gz: truncated"
        ),
        "{reason}"
    );
    let listed = format!("{:?}", report.skipped);
    assert!(!listed.contains(&*tmp.path().to_string_lossy()), "{listed}");
}

/// Two files whose names redact alike (Sunbeam's podlogs of masakari-0: `…-c_masakari-api`
/// and `…-c_masakari-engine` both masked) are both in the public copy, under names that
/// differ, and the same names on every run.
#[test]
fn files_whose_names_redact_alike_are_all_kept_in_the_public_copy() {
    let tmp = tempfile::tempdir().unwrap();
    let input = samples().join("scenarios/2024-sunbeam-bfv-delay");
    let count = |dir: &Path| {
        let mut files = Vec::new();
        every_text(dir, &mut files);
        files.len()
    };
    let copy = |name: &str| {
        let out = tmp.path().join(name);
        let map = tmp.path().join("case.map.json");
        let o = evacdoc(&[
            "redact",
            input.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--map",
            map.to_str().unwrap(),
            "--public",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::remove_file(out.join("redaction-report.json")).unwrap();
        out
    };
    let (first, second) = (copy("first"), copy("second"));
    assert_eq!(count(&first), count(&input), "a file of the input was lost");
    let names = |dir: &Path| {
        let mut files = Vec::new();
        every_text(dir, &mut files);
        let mut names: Vec<PathBuf> = files
            .into_iter()
            .map(|(p, _)| p.strip_prefix(dir).unwrap().to_path_buf())
            .collect();
        names.sort();
        names
    };
    assert_eq!(names(&first), names(&second));
}

/// A line that is not valid UTF-8 is copied in its place with its bad bytes read as
/// U+FFFD (kept by the plain copy, judged as an unknown word by the public one); the
/// valid lines around it are copied as ever.
#[test]
fn a_line_of_invalid_utf8_is_copied_in_its_place() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in/var/log/nova");
    std::fs::create_dir_all(&input).unwrap();
    let mut log = Vec::new();
    log.extend_from_slice(b"2024-09-12 10:00:00.123 7 INFO nova.compute.manager [-] Started one\n");
    log.extend_from_slice(
        b"2024-09-12 10:00:01.123 7 INFO nova.compute.manager [-] Bad \xff\xfe byte\n",
    );
    log.extend_from_slice(b"2024-09-12 10:00:02.123 7 INFO nova.compute.manager [-] Started two\n");
    std::fs::write(input.join("nova-compute.log"), &log).unwrap();
    for public in [false, true] {
        let out = tmp.path().join(format!("out-{public}"));
        let map = tmp.path().join(format!("map-{public}.json"));
        let mut args = vec![
            "redact",
            "in",
            "--out",
            out.to_str().unwrap(),
            "--map",
            map.to_str().unwrap(),
        ];
        if public {
            args.push("--public");
        }
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_evacdoc"))
            .args(&args)
            .current_dir(tmp.path())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        let mut files = Vec::new();
        every_text(&out, &mut files);
        let (_, text) = files
            .iter()
            .find(|(p, _)| p.ends_with("nova-compute.log"))
            .expect("the log is copied");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[0].ends_with("Started one"), "{text}");
        // The public copy judges `\u{FFFD}\u{FFFD}` as any unknown word: replaced.
        assert!(lines[1].contains(" Bad "), "{text}");
        assert_eq!(lines[1].contains('\u{FFFD}'), !public, "{text}");
        assert!(lines[2].ends_with("Started two"), "{text}");
    }
}
