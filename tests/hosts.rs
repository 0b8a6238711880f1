//! Host identity on bundles shaped unlike our own: juju-crashdump trees without
//! `juju_status.yaml`, hosts known only by their lines, sosreports named after hosts
//! whose names end in `-01`. Each test builds its tree in a temporary folder, most from
//! a copy of a sample scenario.

use std::path::Path;

use evacdoc::correlate::Analysis;
use evacdoc::correlate::timeline::{Subject, select};
use evacdoc::detect::{DetectOptions, detect};
use evacdoc::ingest::layout::MACHINE_ID;
use evacdoc::model::inventory::Layout;
use evacdoc::run::{Options, analyze};

use crate::analysis::scenario;

/// Copies the regular files of `from` into `to`, each under the path `rename` gives
/// its relative path (`None` leaves it out). Symbolic links are not copied.
fn copy_tree(from: &Path, to: &Path, rename: &dyn Fn(&str) -> Option<String>) {
    fn walk(dir: &Path, root: &Path, to: &Path, rename: &dyn Fn(&str) -> Option<String>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                walk(&path, root, to, rename);
            } else if kind.is_file() {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                if let Some(new) = rename(&rel) {
                    let target = to.join(new);
                    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
                    std::fs::copy(&path, target).unwrap();
                }
            }
        }
    }
    walk(from, from, to, rename);
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn run(root: &Path) -> Analysis {
    analyze(&[root.to_path_buf()], &Options::default()).expect("analysis runs")
}

fn host<'a>(a: &'a Analysis, root: &str) -> &'a evacdoc::model::inventory::Host {
    a.hosts
        .iter()
        .find(|h| h.roots.iter().any(|r| r == root))
        .unwrap_or_else(|| panic!("no host with root {root}: {:?}", a.hosts))
}

fn detector_ids(a: &Analysis) -> Vec<String> {
    let mut ids: Vec<String> = detect(a, &DetectOptions::default())
        .into_iter()
        .map(|f| f.detector.to_string())
        .collect();
    ids.sort();
    ids
}

/// The 2020 crashdump as another collector would hand it over: no `juju_status.yaml`,
/// no `baremetal/` level, no hostname files, no unit links.
fn bare_crashdump(to: &Path) {
    copy_tree(&scenario("2020-juju-evacuate-race"), to, &|rel| {
        if rel == "juju_status.yaml" || rel.ends_with("/hostname") {
            return None;
        }
        Some(rel.replacen("/baremetal/", "/", 1))
    });
}

#[test]
fn juju_machines_without_status_are_hosts_named_by_their_own_lines() {
    let dir = tempfile::tempdir().unwrap();
    bare_crashdump(dir.path());
    // The masakari container's journal names it; the API container has nothing.
    write(
        dir.path(),
        "3/lxd/4/var/log/syslog",
        "Dec  8 19:40:01 juju-4f2a1c-3-lxd-4 CRON[4410]: (root) CMD (command -v debian-sa1 > /dev/null && debian-sa1 1 1)\n\
         Dec  8 19:48:43 juju-4f2a1c-3-lxd-4 systemd[1]: Started Session 52 of user ubuntu.\n",
    );
    let a = run(dir.path());
    assert_eq!(a.layout, Layout::JujuCrashdump);
    assert_eq!(a.hosts.len(), 6, "{:?}", a.hosts);
    // The compute hosts' nova.conf say what nova-compute calls them.
    for (root, name) in [
        ("0/", "node01ob100.maas"),
        ("1/", "node02ob100.maas"),
        ("2/", "node03ob100.maas"),
    ] {
        let h = host(&a, root);
        assert_eq!(h.hostname, name);
        assert_eq!(h.hostname_source, "host option of its config");
        assert!(h.aliases.contains(&root.trim_end_matches('/').to_string()));
    }
    let masakari = host(&a, "3/lxd/4/");
    assert_eq!(masakari.hostname, "juju-4f2a1c-3-lxd-4");
    assert_eq!(masakari.hostname_source, "journal host field");
    let api = host(&a, "3/lxd/6/");
    assert_eq!(api.hostname, "3/lxd/6");
    assert_eq!(api.hostname_source, MACHINE_ID);
    assert_eq!(host(&a, "3/").hostname, "3");

    // The machine id and the host name find the same lines.
    let by_id = select(&a, &Subject::Host("3/lxd/4".into()));
    let by_name = select(&a, &Subject::Host("juju-4f2a1c-3-lxd-4".into()));
    assert!(!by_id.is_empty());
    assert_eq!(by_id, by_name);
    assert!(
        by_id
            .iter()
            .any(|&e| a.events[e.index()].host == masakari.id)
    );

    // Hosts named from lines give the same answer as the original bundle.
    let original = analyze(&[scenario("2020-juju-evacuate-race")], &Options::default()).unwrap();
    assert_eq!(detector_ids(&a), detector_ids(&original));
}

#[test]
fn machines_and_containers_each_stay_a_host() {
    let dir = tempfile::tempdir().unwrap();
    let line = |host: &str| {
        format!(
            "Jul 22 11:04:10 {host} nova-compute[3417]: 2024-07-22 11:04:10.212 3417 INFO nova.compute.manager [-] Running periodic task\n"
        )
    };
    let mut expected = Vec::new();
    for n in 0..3 {
        let name = format!("node0{n}");
        write(dir.path(), &format!("{n}/var/log/syslog"), &line(&name));
        expected.push((format!("{n}/"), name));
    }
    // Machines whose only evidence is what their services log about themselves.
    write(
        dir.path(),
        "3/var/log/nova/nova-compute.log",
        "2024-07-22 11:04:10.212 3417 INFO nova.compute.resource_tracker [req-7a1c2e40-1b2d-4c3e-9f40-5a6b7c8d9e0f - - - - -] Compute_service record updated for node03:node03.maas\n",
    );
    expected.push(("3/".into(), "node03".into()));
    write(
        dir.path(),
        "4/var/log/masakarimonitors/masakari-instancemonitor.log",
        "2024-07-22 11:04:10.212 1093 INFO masakarimonitors.instancemonitor.libvirt_handler.callback [-] Libvirt Event: type=VM, hostname=node04, uuid=e3b1f7c2-5a94-4d0e-b8f6-2c7a9d1e4f58, time=2024-07-22 11:04:10.212000, event_id=LIFECYCLE, detail=STOPPED_FAILED)\n",
    );
    expected.push(("4/".into(), "node04".into()));
    // Every container the same way: `N/lxd/0`, which once all became one host.
    for n in 0..4 {
        let name = format!("juju-9a8b7c-{n}-lxd-0");
        write(
            dir.path(),
            &format!("{n}/lxd/0/var/log/syslog"),
            &line(&name),
        );
        expected.push((format!("{n}/lxd/0/"), name));
    }
    // Two containers whose hostname files give one name are still two hosts.
    write(dir.path(), "4/lxd/1/etc/hostname", "twin\n");
    write(dir.path(), "4/lxd/2/etc/hostname", "twin\n");
    write(
        dir.path(),
        "4/lxd/1/var/log/syslog",
        &line("juju-9a8b7c-4-lxd-1"),
    );
    write(
        dir.path(),
        "4/lxd/2/var/log/syslog",
        &line("juju-9a8b7c-4-lxd-2"),
    );
    let a = run(dir.path());
    assert_eq!(a.hosts.len(), 11, "{:?}", a.hosts);
    for (root, name) in &expected {
        let h = host(&a, root);
        assert_eq!(&h.hostname, name);
        assert_eq!(h.roots, [root.as_str()]);
    }
    let twins: Vec<_> = a.hosts.iter().filter(|h| h.hostname == "twin").collect();
    assert_eq!(twins.len(), 2);
    // The hostname file wins over the journal.
    assert!(twins.iter().all(|h| h.hostname_source == "etc/hostname"));
    let files_of = |h: u32| a.files.iter().filter(|f| f.host == h).count();
    assert!(twins.iter().all(|h| files_of(h.id) == 1));
}

#[test]
fn nova_conf_host_option_names_a_machine_with_no_other_evidence() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "0/etc/nova/nova.conf",
        "[DEFAULT]\nhost = cmp07\n[libvirt]\nvirt_type = kvm\n",
    );
    write(
        dir.path(),
        "0/var/log/nova/nova-compute.log",
        "2024-07-22 11:04:10.212 3417 INFO nova.compute.manager [-] Running periodic task\n",
    );
    write(
        dir.path(),
        "0/lxd/3/var/log/masakari/masakari-engine.log",
        "2024-07-22 11:04:10.212 3417 INFO masakari.engine.manager [-] Processing notification\n",
    );
    let a = run(dir.path());
    let compute = host(&a, "0/");
    assert_eq!(compute.hostname, "cmp07");
    assert_eq!(compute.hostname_source, "host option of its config");
    assert_eq!(host(&a, "0/lxd/3/").hostname, "0/lxd/3");
}

#[test]
fn sosreports_of_hosts_whose_names_end_in_01_keep_it() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(
        &scenario("2024-sosreports-two-timezones"),
        dir.path(),
        &|rel| {
            let rel = rel
                .replace(
                    "sosreport-cmp2-2024-05-21-ab12cd",
                    "sosreport-cmp-01-2024-05-21-ab12cd",
                )
                .replace(
                    "sosreport-cmp3-2024-05-21-ef34gh",
                    "sosreport-cmp-02-01234567-2024-05-21-efghijk",
                );
            // The compute sosreports lose their hostname files; the controller keeps its own.
            let cmp = rel.starts_with("sosreport-cmp");
            (!(cmp && rel.ends_with("hostname"))).then_some(rel)
        },
    );
    let a = run(dir.path());
    let names: Vec<&str> = a.hosts.iter().map(|h| h.hostname.as_str()).collect();
    assert!(names.contains(&"cmp-01"), "{names:?}");
    assert!(names.contains(&"cmp-02"), "{names:?}");
    assert!(names.contains(&"ctl1.example.com"), "{names:?}");
    assert_eq!(a.hosts.len(), 3);
}

#[test]
fn crashdump_scenario_without_status_has_nine_named_hosts() {
    let a = analyze(
        &[scenario("2020-juju-crashdump-no-status")],
        &Options::default(),
    )
    .unwrap();
    assert_eq!(a.layout, Layout::JujuCrashdump);
    let got: Vec<(&str, &str, &str)> = a
        .hosts
        .iter()
        .map(|h| {
            (
                h.roots[0].as_str(),
                h.hostname.as_str(),
                h.hostname_source.as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("0/", "node01ob100.maas", "host option of its config"),
            ("0/lxd/0/", "juju-4f2a1c-0-lxd-0", "journal host field"),
            ("1/", "node02ob100.maas", "host option of its config"),
            ("1/lxd/0/", "1/lxd/0", MACHINE_ID),
            ("2/", "node03ob100.maas", "host option of its config"),
            ("2/lxd/0/", "juju-4f2a1c-2-lxd-0", "journal host field"),
            ("3/", "node04ob100", "etc/hostname"),
            ("3/lxd/0/", "juju-4f2a1c-3-lxd-0", "etc/hostname"),
            ("4/", "node05ob100", "journal host field"),
        ]
    );
    // The failed host's own lines are found by its machine id and by its name (the
    // name also finds the lines of other hosts that mention it).
    let failed = a.hosts.iter().find(|h| h.roots == ["1/"]).unwrap().id;
    let by_id = select(&a, &Subject::Host("1".into()));
    let by_name = select(&a, &Subject::Host("node02ob100.maas".into()));
    assert!(by_id.iter().any(|&e| a.events[e.index()].host == failed));
    assert!(by_id.iter().all(|e| by_name.contains(e)));
}
