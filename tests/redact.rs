//! `evacdoc redact`: the redacted copy of every scenario gives the same findings on
//! pseudonymous hosts, and none of the names and addresses the bundle gives survive.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use evacdoc::redact::{Kind, PseudonymMap};
use evacdoc::redacted_copy::{RedactOptions, redact_bundle};
use evacdoc::run::{RunOptions, analyze_inputs};

use crate::util::{evacdoc, samples, stderr, stdout};

fn scenarios() -> Vec<PathBuf> {
    let mut dirs: Vec<_> = std::fs::read_dir(samples().join("scenarios"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// What a finding says, without the host names and paths that redaction changes.
fn shape(f: &evacdoc::detect::Finding) -> (String, String, Vec<String>, Option<String>) {
    (
        f.detector.to_string(),
        format!("{:?}", f.severity),
        f.instance_uuids.clone(),
        f.notification_id.clone(),
    )
}

fn every_text(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        if meta.is_dir() {
            every_text(&path, out);
        } else if meta.is_file() {
            let bytes = std::fs::read(&path).unwrap();
            let text = if path.extension().is_some_and(|e| e == "gz") {
                let mut s = String::new();
                std::io::Read::read_to_string(
                    &mut flate2::read::MultiGzDecoder::new(&bytes[..]),
                    &mut s,
                )
                .unwrap();
                s
            } else {
                String::from_utf8_lossy(&bytes).into_owned()
            };
            out.push((path, text));
        }
    }
}

#[test]
fn every_scenario_gives_the_same_findings_on_pseudonymous_hosts() {
    let dirs = scenarios();
    assert!(dirs.len() >= 10);
    let mut checked = 0;
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let original = analyze_inputs(std::slice::from_ref(&dir), &RunOptions::default()).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("redacted");
        let options = RedactOptions::new(out.clone(), None);
        redact_bundle(std::slice::from_ref(&dir), &options).unwrap();
        let redacted = analyze_inputs(std::slice::from_ref(&out), &RunOptions::default()).unwrap();

        let before: Vec<_> = original.findings.iter().map(shape).collect();
        let after: Vec<_> = redacted.findings.iter().map(shape).collect();
        assert_eq!(before, after, "{name}: findings of the redacted copy");
        assert_eq!(
            original.analysis.hosts.len(),
            redacted.analysis.hosts.len(),
            "{name}: hosts"
        );
        let map = PseudonymMap::load(&options.map).unwrap();
        for (f, g) in original.findings.iter().zip(&redacted.findings) {
            let (Some(real), Some(pseudo)) = (&f.failed_host, &g.failed_host) else {
                assert_eq!(f.failed_host.is_some(), g.failed_host.is_some(), "{name}");
                continue;
            };
            let short = real.split('.').next().unwrap().to_ascii_lowercase();
            assert_eq!(
                map.get(Kind::Host, &short),
                Some(pseudo.split('.').next().unwrap()),
                "{name}: failed host {real} became {pseudo}"
            );
        }

        // No host name the analysis gave, and no address of the original, survives.
        let mut secrets: BTreeSet<String> = BTreeSet::new();
        for host in &original.analysis.hosts {
            if host.hostname_source != "input name" && host.hostname_source != "folder name" {
                secrets.insert(host.hostname.split('.').next().unwrap().to_string());
            }
        }
        for (real, _) in map.pairs(Kind::Ipv4Net) {
            secrets.insert(format!("{real}."));
        }
        let mut texts = Vec::new();
        every_text(&out, &mut texts);
        for (path, text) in &texts {
            if path.ends_with("README.md") {
                continue; // the scenario's own notes, written by hand
            }
            for s in &secrets {
                checked += 1;
                assert!(
                    !text.contains(s.as_str()),
                    "{name}: {s:?} left in {}",
                    path.display()
                );
            }
        }
    }
    assert!(
        checked > 1000,
        "only {checked} checks: the leak test tests little"
    );
}

#[test]
fn one_case_map_gives_the_same_pseudonyms_to_a_second_upload() {
    let dir = samples().join("scenarios/2020-juju-evacuate-race");
    let tmp = tempfile::tempdir().unwrap();
    let map = tmp.path().join("case.map.json");
    let first = RedactOptions::new(tmp.path().join("a"), Some(map.clone()));
    redact_bundle(std::slice::from_ref(&dir), &first).unwrap();
    let pseudo = PseudonymMap::load(&map)
        .unwrap()
        .get(Kind::Host, "node02ob100")
        .map(str::to_string);
    assert!(pseudo.is_some());
    let second = RedactOptions::new(tmp.path().join("b.tar.gz"), Some(map.clone()));
    redact_bundle(std::slice::from_ref(&dir), &second).unwrap();
    assert_eq!(
        PseudonymMap::load(&map)
            .unwrap()
            .get(Kind::Host, "node02ob100")
            .map(str::to_string),
        pseudo
    );
    // The tarball analyses like the folder, with the same pseudonymous failed host.
    let report = analyze_inputs(&[tmp.path().join("b.tar.gz")], &RunOptions::default()).unwrap();
    let host = report.findings[0].failed_host.clone().unwrap();
    assert!(host.starts_with(pseudo.as_deref().unwrap()), "{host}");
}

#[test]
fn the_cli_refuses_a_map_inside_the_output_and_a_used_output() {
    let dir = samples().join("scenarios/2020-juju-evacuate-race");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let inside = out.join("map.json");
    let o = evacdoc(&[
        "redact",
        dir.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--map",
        inside.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("must not be inside the output"),
        "{}",
        stderr(&o)
    );
    let o = evacdoc(&[
        "redact",
        dir.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("map (private, mode 0600)"),
        "{}",
        stdout(&o)
    );
    let o = evacdoc(&[
        "redact",
        dir.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not an empty folder"), "{}", stderr(&o));
}

#[test]
fn the_service_view_and_the_bundle_share_one_map_and_keep_relationships() {
    use evacdoc::redact::ViewRedactor;
    use evacdoc::redact::seed::seeds_of;

    let dir = samples().join("scenarios/2020-juju-evacuate-race");
    let original = analyze_inputs(std::slice::from_ref(&dir), &RunOptions::default()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let map_path = tmp.path().join("case.map.json");
    let mut view = ViewRedactor::new(seeds_of(&original.analysis), PseudonymMap::new());
    let redacted = view
        .analysis(original.analysis.to_document().unwrap())
        .unwrap();
    let findings: Vec<_> = original.findings.iter().map(|f| view.finding(f)).collect();
    let map = view.into_map();
    map.save(&map_path).unwrap();

    // FQDN and short name map together; the /24 is one pseudonymous /24.
    let host = map.get(Kind::Host, "node02ob100").unwrap().to_string();
    let domain = map.get(Kind::Domain, "maas").unwrap().to_string();
    let net = map.get(Kind::Ipv4Net, "172.27.100").unwrap().to_string();
    let texts: Vec<(u32, String)> = redacted
        .events
        .iter()
        .map(|e| (e.file, e.full_text()))
        .collect();
    let fqdn = format!("{host}.{domain}");
    let with_fqdn: BTreeSet<u32> = texts
        .iter()
        .filter(|(_, t)| t.contains(&fqdn))
        .map(|(f, _)| *f)
        .collect();
    assert!(
        with_fqdn.len() >= 2,
        "the FQDN in several files: {with_fqdn:?}"
    );
    assert!(
        texts
            .iter()
            .all(|(_, t)| !t.contains("172.27.100.") && !t.contains("node0"))
    );
    let addresses: BTreeSet<&str> = texts
        .iter()
        .flat_map(|(_, t)| t.split(|c: char| !(c.is_ascii_digit() || c == '.')))
        .filter(|w| w.starts_with(&format!("{net}.")) && w.matches('.').count() == 3)
        .collect();
    assert!(
        addresses.len() >= 2,
        "several hosts of one pseudonymous /24: {addresses:?}"
    );
    // The redacted view reads back whole: the race is there, on the pseudonymous host.
    let race = findings
        .iter()
        .find(|f| f.detector == "evacuate-400-race")
        .unwrap();
    assert_eq!(race.failed_host.as_deref(), Some(fqdn.as_str()));
    assert!(redacted.hosts.iter().any(|h| h.hostname == host));

    // The bundle redacted with the same map gives the same names: its own analysis finds
    // the same hosts and the same failed host.
    let out = tmp.path().join("bundle");
    redact_bundle(
        std::slice::from_ref(&dir),
        &RedactOptions::new(out.clone(), Some(map_path.clone())),
    )
    .unwrap();
    let again = analyze_inputs(&[out], &RunOptions::default()).unwrap();
    let names = |a: &evacdoc::correlate::Analysis| -> BTreeSet<String> {
        a.hosts.iter().map(|h| h.hostname.clone()).collect()
    };
    assert_eq!(names(&again.analysis), names(&redacted));
    let again_race = again
        .findings
        .iter()
        .find(|f| f.detector == "evacuate-400-race")
        .unwrap();
    assert_eq!(again_race.failed_host, race.failed_host);
}

/// A known leak of `sos clean`: host names inside file names and symlink targets.
#[test]
fn host_names_in_paths_and_link_targets_are_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let bundle = tmp.path().join("bundle");
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(samples().join("scenarios/2020-juju-evacuate-race"))
        .arg(&bundle)
        .status()
        .unwrap();
    assert!(status.success());
    // A folder named after the failed host, and links to it and inside it.
    let folder = bundle.join("collected-node02ob100.maas");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("notes.txt"), "node02ob100.maas went down\n").unwrap();
    std::os::unix::fs::symlink(
        "collected-node02ob100.maas/notes.txt",
        bundle.join("latest"),
    )
    .unwrap();
    std::os::unix::fs::symlink("0/baremetal", bundle.join("node02ob100.maas")).unwrap();

    let out = tmp.path().join("out");
    let o = evacdoc(&[
        "redact",
        bundle.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--map",
        tmp.path().join("map.json").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let target = std::fs::read_link(out.join("latest")).unwrap();
    let target = target.to_string_lossy();
    assert!(!target.contains("node02ob100"), "{target}");
    assert!(target.ends_with("/notes.txt"), "{target}");
    // The link still leads to the redacted file.
    let text = std::fs::read_to_string(out.join("latest")).unwrap();
    assert!(
        text.ends_with(" went down\n") && !text.contains("node02ob100"),
        "{text}"
    );
    for entry in std::fs::read_dir(&out).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        assert!(!name.contains("node02ob100"), "{name}");
    }
}

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
