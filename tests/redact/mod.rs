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

pub(crate) fn every_text(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
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

mod public_copy;
