//! Host roots and layouts of real bundle shapes.

use super::*;
use crate::ingest::discover::{FoundFile, FoundLink};

fn found(paths: &[&str]) -> Found {
    Found {
        files: paths
            .iter()
            .map(|p| FoundFile {
                rel: p.to_string(),
                abs: std::path::PathBuf::from("/nonexistent").join(p),
                name: p.into(),
                size: 1,
                given: false,
                unpacked: false,
            })
            .collect(),
        inputs: vec!["/cases/00123".into()],
        ..Found::default()
    }
}

#[test]
fn case_folder_with_sosreports_and_loose_captures() {
    let f = found(&[
        "sosreport-ctl1-2024-05-21-xkqpwz/sos_commands/date/date",
        "sosreport-ctl1-2024-05-21-xkqpwz/var/log/masakari/masakari-engine.log",
        "sosreport-cmp2-2024-05-21-ab12cd/sos_commands/date/date",
        "sosreport-cmp2-2024-05-21-ab12cd/var/log/nova/nova-compute.log",
        "notification-show.txt",
    ]);
    let roots = host_roots(&f, |_| None);
    assert_eq!(roots.len(), 2);
    assert_eq!(roots[0].hostname, "ctl1");
    assert_eq!(roots[0].layout, Layout::Sosreport);
    assert_eq!(root_of(&roots, "notification-show.txt"), None);
    assert_eq!(
        root_of(
            &roots,
            "sosreport-cmp2-2024-05-21-ab12cd/var/log/nova/nova-compute.log"
        ),
        Some(1)
    );
}

#[test]
fn juju_machines_and_unit_links() {
    let mut f = found(&[
        "juju_status.yaml",
        "3/lxd/4/var/log/masakari/masakari-engine.log",
        "0/baremetal/var/log/nova/nova-compute.log",
    ]);
    f.links.push(FoundLink {
        rel: "masakari_0".into(),
        target: "3/lxd/4".into(),
    });
    let roots = host_roots(&f, |_| None);
    assert_eq!(roots.len(), 2);
    let masakari = &roots[root_of(&roots, "3/lxd/4/var/log/masakari/masakari-engine.log").unwrap()];
    assert_eq!(masakari.layout, Layout::JujuCrashdump);
    // The status names no hostname and there is no hostname file: the machine id.
    assert_eq!(masakari.hostname, "3/lxd/4");
    assert_eq!(masakari.hostname_source, MACHINE_ID);
    assert!(masakari.aliases.contains(&"masakari_0".to_string()));
    assert_eq!(overall_layout(&roots), Layout::JujuCrashdump);
}

#[test]
fn kolla_host_folders_and_sunbeam_pods() {
    let f = found(&[
        "ctl01/var/log/kolla/masakari/masakari-engine.log",
        "cmp01/var/log/kolla/nova/nova-compute.log",
    ]);
    let roots = host_roots(&f, |_| None);
    assert_eq!(roots.len(), 2);
    assert!(roots.iter().all(|r| r.layout == Layout::Kolla));
    assert_eq!(roots[0].hostname, "ctl01");

    let f = found(&[
        "sos_commands/kubernetes/cluster-info/openstack/podlogs/masakari-0/k8s_kubectl_--namespace_openstack_logs_masakari-0_-c_masakari-engine",
        "var/log/syslog",
    ]);
    let roots = host_roots(&f, |_| None);
    let pod = root_of(
        &roots,
        "sos_commands/kubernetes/cluster-info/openstack/podlogs/masakari-0/x",
    )
    .unwrap();
    assert_eq!(roots[pod].hostname, "masakari-0");
    assert_eq!(overall_layout(&roots), Layout::Sunbeam);
}

/// Writes `files` (path, content) under a new temporary folder.
fn tree(files: &[(&str, &str)]) -> (tempfile::TempDir, Found) {
    let dir = tempfile::tempdir().unwrap();
    for (rel, content) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
    }
    let found = crate::ingest::discover::discover(
        &[dir.path().to_path_buf()],
        &dir.path().join("work-unused"),
    )
    .unwrap();
    (dir, found)
}

fn roots_of(found: &Found) -> Vec<HostRoot> {
    let abs: BTreeMap<&str, &Path> = found
        .files
        .iter()
        .map(|f| (f.rel.as_str(), f.abs.as_path()))
        .collect();
    host_roots(found, |rel| abs.get(rel).map(|p| p.to_path_buf()))
}

fn names(roots: &[HostRoot]) -> Vec<&str> {
    roots.iter().map(|r| r.hostname.as_str()).collect()
}

#[test]
fn juju_tree_without_status_keeps_every_machine_and_container() {
    let log = "2024-07-22 11:04:10.212 3417 INFO nova.compute.manager [-] x\n";
    let mut files = Vec::new();
    let paths: Vec<String> = (0..5)
        .map(|n| format!("{n}/var/log/nova/nova-compute.log"))
        .chain((0..4).map(|n| format!("{n}/lxd/0/var/log/masakari/masakari-engine.log")))
        .collect();
    for p in &paths {
        files.push((p.as_str(), log));
    }
    let (_dir, found) = tree(&files);
    let roots = roots_of(&found);
    assert_eq!(roots.len(), 9, "{:?}", names(&roots));
    let mut got = names(&roots);
    got.sort_unstable();
    assert_eq!(
        got,
        [
            "0", "0/lxd/0", "1", "1/lxd/0", "2", "2/lxd/0", "3", "3/lxd/0", "4"
        ]
    );
    assert!(roots.iter().all(|r| r.layout == Layout::JujuCrashdump));
    assert!(roots.iter().all(|r| r.hostname_source == MACHINE_ID));
    let container =
        &roots[root_of(&roots, "2/lxd/0/var/log/masakari/masakari-engine.log").unwrap()];
    assert_eq!(container.prefix, "2/lxd/0/");
    assert!(container.aliases.contains(&"2/lxd/0".to_string()));
    let machine = &roots[root_of(&roots, "2/var/log/nova/nova-compute.log").unwrap()];
    assert_eq!(machine.prefix, "2/");
}

#[test]
fn three_folder_juju_tree_and_hostname_files() {
    let (_dir, found) = tree(&[
        ("0/var/log/nova/nova-compute.log", "x\n"),
        ("0/etc/hostname", "node01ob100\n"),
        ("3/lxd/4/var/log/masakari/masakari-engine.log", "x\n"),
        ("3/lxd/4/hostname", "juju-4f2a1c-3-lxd-4\n"),
        ("3/lxd/6/var/log/nova/nova-api-wsgi.log", "x\n"),
    ]);
    let roots = roots_of(&found);
    assert_eq!(
        names(&roots),
        ["node01ob100", "juju-4f2a1c-3-lxd-4", "3/lxd/6"]
    );
    assert_eq!(roots[0].hostname_source, "etc/hostname");
    assert_eq!(roots[1].hostname_source, "hostname");
    // The machine id stays an alias of a host renamed by its hostname file.
    assert!(roots[0].aliases.contains(&"0".to_string()));
    assert!(roots[1].aliases.contains(&"3/lxd/4".to_string()));

    // The same machines in juju-crashdump's own shape.
    let (_dir, found) = tree(&[
        ("0/baremetal/var/log/nova/nova-compute.log", "x\n"),
        ("3/lxd/4/var/log/masakari/masakari-engine.log", "x\n"),
        ("3/lxd/6/var/log/nova/nova-api-wsgi.log", "x\n"),
    ]);
    assert_eq!(names(&roots_of(&found)), ["0", "3/lxd/4", "3/lxd/6"]);
}

#[test]
fn numbered_folders_are_juju_machines_only_with_juju_marks() {
    let (_dir, found) = tree(&[
        ("1/var/log/nova/nova-compute.log", "x\n"),
        ("2/var/log/nova/nova-compute.log", "x\n"),
    ]);
    let roots = roots_of(&found);
    assert_eq!(names(&roots), ["1", "2"]);
    assert!(roots.iter().all(|r| r.layout == Layout::Plain));

    let (_dir, found) = tree(&[
        ("1/var/log/nova/nova-compute.log", "x\n"),
        ("1/var/log/juju/machine-1.log", "x\n"),
    ]);
    let roots = roots_of(&found);
    assert_eq!(roots[0].layout, Layout::JujuCrashdump);
    assert_eq!(roots[0].hostname_source, MACHINE_ID);
}

#[test]
fn sosreport_folder_names_keep_dashed_host_names() {
    let (_dir, found) = tree(&[
        (
            "sosreport-cmp-01-2024-05-21-xkqpwza/sos_commands/date/date",
            "x\n",
        ),
        (
            "sosreport-cmp-01-2024-05-21-xkqpwza/var/log/nova/nova-compute.log",
            "x\n",
        ),
        (
            "sosreport-ctl-02-00345678-2024-05-21-abcdefg/sos_commands/date/date",
            "x\n",
        ),
        (
            "sosreport-db-03-2024-05-21-qwertyu/sos_commands/host/hostname",
            "db-03.example.com\n",
        ),
    ]);
    let roots = roots_of(&found);
    assert_eq!(names(&roots), ["cmp-01", "ctl-02", "db-03.example.com"]);
    assert_eq!(roots[0].hostname_source, "folder name");
    assert_eq!(roots[2].hostname_source, "sos_commands/host/hostname");
}

#[test]
fn sosreport_given_as_the_input_is_named_after_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let sos = dir.path().join("sosreport-cmp-01-2024-05-21-xkqpwza");
    std::fs::create_dir_all(sos.join("sos_commands/date")).unwrap();
    std::fs::write(sos.join("sos_commands/date/date"), "x\n").unwrap();
    let found = crate::ingest::discover::discover(&[sos], &dir.path().join("work-unused")).unwrap();
    assert_eq!(names(&roots_of(&found)), ["cmp-01"]);
}

#[test]
fn folders_with_only_docker_logs_are_hosts() {
    let line = r#"{"log":"2024-07-22 11:04:10.212 7 INFO nova.compute.manager [-] x\n","stream":"stderr","time":"2024-07-22T11:04:10.212345678Z"}"#;
    let id = "3f4e5d6c7b8a99887766554433221100ffeeddccbbaa99887766554433221100";
    let log = format!("{line}\n");
    let a = format!("cmp-a/var/lib/docker/containers/{id}/{id}-json.log");
    let b = format!("cmp-b/var/lib/docker/containers/{id}/{id}-json.log");
    let (_dir, found) = tree(&[
        (a.as_str(), log.as_str()),
        (b.as_str(), log.as_str()),
        ("cmp-b/etc/hostname", "compute-b.example.net\n"),
    ]);
    let roots = roots_of(&found);
    let mut hosts = names(&roots);
    hosts.sort();
    assert_eq!(hosts, ["cmp-a", "compute-b.example.net"]);
    assert!(roots.iter().all(|r| r.layout == Layout::Plain));
}

const NOVA_LINE: &str = "2024-07-22 11:04:10.212 3417 INFO nova.compute.manager [-] x\n";

#[test]
fn plain_folders_of_host_folders_are_one_host_each() {
    let (_dir, found) = tree(&[
        ("ctl1/masakari-engine.log", NOVA_LINE),
        ("ctl1/masakari.conf", "[DEFAULT]\n"),
        ("cmp1/nova-compute.log", NOVA_LINE),
        ("cmp2/nova/nova-compute.log", NOVA_LINE),
    ]);
    let roots = roots_of(&found);
    let mut hosts = names(&roots);
    hosts.sort();
    assert_eq!(hosts, ["cmp1", "cmp2", "ctl1"]);
    assert!(roots.iter().all(|r| r.layout == Layout::Plain));
}

#[test]
fn a_log_tree_without_var_log_stays_one_host() {
    // Service folders, not hosts: one host's /var/log copied as is.
    let (_dir, found) = tree(&[
        ("nova/nova-compute.log", NOVA_LINE),
        ("masakari/masakari-engine.log", NOVA_LINE),
        ("apache2/nova-api-os-compute_access.log", NOVA_LINE),
    ]);
    assert!(
        roots_of(&found).is_empty(),
        "the files go to the input's host"
    );
}

#[test]
fn several_plain_inputs_never_share_a_host() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    for (dir, name) in [(&a, "masakari-engine.log"), (&b, "nova-compute.log")] {
        std::fs::write(dir.path().join(name), NOVA_LINE).unwrap();
    }
    let work = tempfile::tempdir().unwrap();
    let found = crate::ingest::discover::discover(
        &[a.path().to_path_buf(), b.path().to_path_buf()],
        work.path(),
    )
    .unwrap();
    let roots = roots_of(&found);
    assert_eq!(roots.len(), 2, "{roots:#?}");
    assert_ne!(
        root_of(&roots, &found.files[0].rel),
        root_of(&roots, &found.files[1].rel)
    );
}
