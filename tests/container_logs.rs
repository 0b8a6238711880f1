//! Container logs as the kubelet and Docker keep them: CRI lines under `var/log/pods/`
//! and `json-file` lines under `var/lib/docker/containers/`, read as the service inside.

use std::path::Path;

use evacdoc::correlate::Analysis;
use evacdoc::run::{Options, analyze};

const UID: &str = "3f6b1c2d-8e4a-4b7c-9d0e-1a2b3c4d5e6f";
const DOCKER_ID: &str = "4c1e9d7b2a6f83e5d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7";
const INSTANCE: &str = "89606586-ae8d-49a4-aa24-fdaec2e518bb";

/// masakari-engine lines (ref §1.5 / §2 shapes, the Zed+ sample's story), each written by
/// containerd as its own CRI line; the WARNING's traceback lines arrive one CRI line each.
const ENGINE: [&str; 9] = [
    "2025-06-10 19:21:18.604 21 INFO masakari.engine.manager [None req-48356509-c001-4151-ab53-ac03d1326655 a53734a86e57488b82b5469b8287f19a 9fa253a8dfa24c4f93a80e5f35319364 - - default default] Processing notification 35d0a1c8-7f2e-4b9a-8c61-e4f9b2d7a031 of type: COMPUTE_HOST",
    "2025-06-10 19:21:18.771 21 INFO masakari.compute.nova [req-48356509-c001-4151-ab53-ac03d1326655 req-13e68491-7cd1-4773-a0cf-98791e92d281 nova - - - - -] Disable nova-compute on compute-1",
    "2025-06-10 19:24:20.689 21 INFO masakari.compute.nova [req-48356509-c001-4151-ab53-ac03d1326655 req-bdebf561-214b-48a2-bc42-bed8cf8870c2 nova - - - - -] Call evacuate command for instance 89606586-ae8d-49a4-aa24-fdaec2e518bb on host None",
    "2025-06-10 19:24:21.934 21 WARNING masakari.engine.drivers.taskflow.host_failure [req-48356509-c001-4151-ab53-ac03d1326655 req-bdebf561-214b-48a2-bc42-bed8cf8870c2 nova - - - - -] Failed to evacuate instance 89606586-ae8d-49a4-aa24-fdaec2e518bb: masakari.exception.InstanceEvacuateFailed: Failed to evacuate instance 89606586-ae8d-49a4-aa24-fdaec2e518bb",
    "2025-06-10 19:24:21.934 21 ERROR masakari.engine.drivers.taskflow.host_failure Traceback (most recent call last):",
    "2025-06-10 19:24:21.934 21 ERROR masakari.engine.drivers.taskflow.host_failure   File \"/var/lib/openstack/lib/python3.10/site-packages/masakari/compute/nova.py\", line 84, in wrapper",
    "2025-06-10 19:24:21.934 21 ERROR masakari.engine.drivers.taskflow.host_failure masakari.exception.InstanceEvacuateFailed: Failed to evacuate instance 89606586-ae8d-49a4-aa24-fdaec2e518bb",
    "2025-06-10 19:24:21.934 21 ERROR masakari.engine.drivers.taskflow.host_failure ",
    "2025-06-10 19:24:22.010 21 INFO masakari.engine.manager [None req-a49b59c8-ae66-4306-938a-49d97c4d3c44 - - - - - -] Notification 35d0a1c8-7f2e-4b9a-8c61-e4f9b2d7a031 exits with status: error.",
];

fn cri_file(lines: &[&str]) -> String {
    lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            // containerd stamps the read time in UTC with nanoseconds.
            let time = format!("{}T{}{:06}Z", &l[..10], &l[11..23], 412_377 + i);
            format!("{time} stderr F {l}\n")
        })
        .collect()
}

fn docker_file() -> String {
    let compute = [
        "2025-06-10 19:24:21.101 7 INFO nova.compute.manager [req-bdebf561-214b-48a2-bc42-bed8cf8870c2 a53734a86e57488b82b5469b8287f19a 9fa253a8dfa24c4f93a80e5f35319364 - - default default] [instance: 89606586-ae8d-49a4-aa24-fdaec2e518bb] Evacuating instance",
        "2025-06-10 19:24:21.230 7 INFO nova.compute.claims [req-bdebf561-214b-48a2-bc42-bed8cf8870c2 a53734a86e57488b82b5469b8287f19a 9fa253a8dfa24c4f93a80e5f35319364 - - default default] [instance: 89606586-ae8d-49a4-aa24-fdaec2e518bb] Claim successful on node compute-2",
    ];
    compute
        .iter()
        .map(|l| {
            let log = serde_json::to_string(&format!("{l}\n")).unwrap();
            let time = format!("{}T{}918273Z", &l[..10], &l[11..23]);
            format!("{{\"log\":{log},\"stream\":\"stderr\",\"time\":\"{time}\"}}\n")
        })
        .collect()
}

fn bundle(dir: &Path) {
    let pod = dir.join(format!(
        "ctl1/var/log/pods/openstack_masakari-engine-0_{UID}/masakari-engine"
    ));
    std::fs::create_dir_all(&pod).unwrap();
    std::fs::write(pod.join("0.log"), cri_file(&ENGINE)).unwrap();
    let docker = dir.join(format!("ctl1/var/lib/docker/containers/{DOCKER_ID}"));
    std::fs::create_dir_all(&docker).unwrap();
    std::fs::write(docker.join(format!("{DOCKER_ID}-json.log")), docker_file()).unwrap();
}

fn file_id(a: &Analysis, path: &str) -> usize {
    a.files
        .iter()
        .position(|f| f.path == path)
        .unwrap_or_else(|| {
            panic!(
                "{path} not read: files {:?}, skipped {:?}",
                a.files, a.skipped
            )
        })
}

#[test]
fn a_cri_pod_log_is_read_as_its_container_service() {
    let dir = tempfile::tempdir().unwrap();
    bundle(dir.path());
    let a = analyze(&[dir.path().to_path_buf()], &Options::default()).unwrap();
    let path = format!("ctl1/var/log/pods/openstack_masakari-engine-0_{UID}/masakari-engine/0.log");
    let id = file_id(&a, &path);
    let file = &a.files[id];
    assert_eq!(file.service.name(), "masakari-engine");
    assert_eq!(file.format, "cri");
    assert_eq!(file.unparsed, 0);
    // The traceback's four CRI lines join the WARNING record.
    assert_eq!(file.records, 5);
    assert!(a.skipped.iter().all(|s| !s.path.contains("var/log/pods")));
    let evacuate = a
        .events
        .iter()
        .filter(|e| e.file as usize == id)
        .find(|e| e.text().contains("Call evacuate command"))
        .expect("the evacuate call is an event");
    assert_eq!(evacuate.instances.len(), 1);
    assert_eq!(evacuate.instances[0].to_string(), INSTANCE);
    assert_eq!(evacuate.line, 3);
}

#[test]
fn a_docker_json_file_is_read_as_the_service_its_loggers_name() {
    let dir = tempfile::tempdir().unwrap();
    bundle(dir.path());
    let a = analyze(&[dir.path().to_path_buf()], &Options::default()).unwrap();
    let path = format!("ctl1/var/lib/docker/containers/{DOCKER_ID}/{DOCKER_ID}-json.log");
    let file = &a.files[file_id(&a, &path)];
    assert_eq!(file.service.name(), "nova-compute");
    assert_eq!(file.format, "docker");
    assert_eq!((file.records, file.unparsed), (2, 0));
}

/// Every line of `text` behind `kubectl logs --prefix --timestamps` prefixes: the pod and
/// container, and the runtime's UTC time (the line's own oslo time, which is UTC here;
/// a continuation line keeps the time of the line before).
fn kubectl_logs(text: &str, pod: &str, container: &str) -> String {
    let mut stamp = "2022-01-01T00:00:00.000000000Z".to_string();
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        let b = line.as_bytes();
        if b.len() > 23 && b[4] == b'-' && b[10] == b' ' && b[19] == b'.' {
            stamp = format!("{}T{}{:06}Z", &line[..10], &line[11..23], 100 + i % 900);
        }
        out.push_str(&format!("[pod/{pod}/{container}] {stamp} {line}\n"));
    }
    out
}

/// Every oslo log under `dir`, rewritten as `kubectl logs --prefix --timestamps` shows it.
fn prefix_logs(dir: &Path, pod: &str) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            prefix_logs(&path, pod);
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let logs = path.to_string_lossy().contains("/var/log/");
        if !logs || !name.ends_with(".log") || path.to_string_lossy().contains("apache2") {
            continue;
        }
        let container = name.trim_end_matches(".log");
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, kubectl_logs(&text, pod, container)).unwrap();
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&src, &dst);
        } else if entry.file_type().unwrap().is_file() {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

#[test]
fn a_pending_after_finished_recovery_is_found_in_kubectl_logs() {
    let scenario = "2022-juju-pending-after-finished-yoga";
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bundle");
    copy_tree(
        &crate::util::samples().join("scenarios").join(scenario),
        &root,
    );
    prefix_logs(&root, "openstack-0");
    let engine = "3/lxd/5/var/log/masakari/masakari-engine.log";
    let head = std::fs::read_to_string(root.join(engine)).unwrap();
    assert!(
        head.starts_with("[pod/openstack-0/masakari-engine] 20"),
        "{}",
        &head[..80]
    );
    let a = analyze(&[root], &Options::default()).unwrap();
    let f = &a.files[file_id(&a, engine)];
    assert_eq!(f.format, "kubectl", "{f:?}");
    assert_eq!(f.unparsed, 0, "{f:?}");
    // Nothing skipped that the unprefixed scenario reads.
    let original = crate::analysis::analyze_scenario(scenario);
    let paths =
        |a: &Analysis| -> Vec<String> { a.skipped.iter().map(|s| s.path.clone()).collect() };
    assert_eq!(paths(&a), paths(&original), "{:?}", a.skipped);
    let findings: Vec<String> = evacdoc::detect::detect(&a, &Default::default())
        .into_iter()
        .map(|f| f.id.to_string())
        .collect();
    assert!(
        findings
            .contains(&"pending-after-finished:653ee3e5-bd71-457e-b501-d50e01a03d62".to_string()),
        "{findings:?}"
    );
    // The same findings as the unprefixed scenario.
    let mut expected: Vec<String> = evacdoc::detect::detect(&original, &Default::default())
        .into_iter()
        .map(|f| f.id.to_string())
        .collect();
    let mut found = findings.clone();
    expected.sort();
    found.sort();
    assert_eq!(found, expected);
}
