//! Issue 27: two API processes (`serve --jobs 0`) and three workers on one throwaway
//! PostgreSQL and one shared blob folder, on loopback. Twenty uploads spread over both
//! APIs; the worker running the slowest job is killed with SIGKILL while it runs it; every
//! analysis ends `done` exactly once (the killed job on its second attempt, once its lease
//! expired), both APIs answer every analysis with the same findings, and those are the
//! findings a single process (the embedded SQLite default) finds in the same bundles.
//! Skipped, saying why, where PostgreSQL is not installed (unless
//! EVACDOC_REQUIRE_POSTGRES=1, as in CI).
//!
//! Run twice: with a shared folder (`--blobs file:///…`), and with a real object store
//! (`--blobs swift://…` on a throwaway Swift all-in-one, each process with a folder of its
//! own), where deleting an analysis deletes its blobs and a worker started again on the
//! killed one's folder empties it.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use evacdoc::blobs::throwaway_swift::ThrowawaySwift;
use evacdoc::store::throwaway::ThrowawayCluster;
use serde_json::Value;

mod object_store;
mod shares;

const TOKEN: &str = "scale-token-0123456789abcdef";
/// Seconds a dead worker's job waits before another takes it.
const LEASE: &str = "4";
/// The sample scenarios uploaded (with the slow bundle, five distinct uploads).
const SCENARIOS: [&str; 4] = [
    "2020-juju-evacuate-race",
    "2022-juju-pending-after-finished-yoga",
    "2024-sunbeam-bfv-delay",
    "2024-sosreports-two-timezones",
];
const SLOW: &str = "nova-compute-slow.log.gz";

/// Everything a process printed, kept to show when the test fails.
type Log = Arc<Mutex<Vec<String>>>;

struct Process {
    name: String,
    child: Child,
    log: Log,
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn drain(
    name: &str,
    mut child: Child,
) -> (
    Process,
    std::io::Lines<BufReader<std::process::ChildStderr>>,
) {
    let stderr = child.stderr.take().unwrap();
    let lines = BufReader::new(stderr).lines();
    (
        Process {
            name: name.to_owned(),
            child,
            log: Log::default(),
        },
        lines,
    )
}

fn keep_draining(process: &Process, lines: std::io::Lines<BufReader<std::process::ChildStderr>>) {
    let log = process.log.clone();
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            log.lock().unwrap().push(line);
        }
    });
}

/// `evacdoc serve` with `args`; the process and its base URL (from what it prints).
fn serve(name: &str, args: &[&str]) -> (Process, String) {
    serve_with(name, args, &[])
}

fn serve_with(name: &str, args: &[&str], env: &[(&str, String)]) -> (Process, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_evacdoc"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env("EVACDOC_TOKEN", TOKEN)
        .env("EVACDOC_LOG", "evacdoc=info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (process, mut lines) = drain(name, child);
    let started = Instant::now();
    let base = loop {
        let Some(Ok(line)) = lines.next() else {
            panic!(
                "{name} ended before it served: {:?}",
                process.log.lock().unwrap()
            );
        };
        if let Some(rest) = line.strip_prefix("evacdoc: serving on ") {
            break rest.trim_end_matches('/').to_string();
        }
        process.log.lock().unwrap().push(line);
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{name} did not start"
        );
    };
    keep_draining(&process, lines);
    (process, base)
}

fn worker(name: &str, store: &str, blobs: &Blobs, data: &Path) -> Process {
    let child = Command::new(env!("CARGO_BIN_EXE_evacdoc"))
        .args([
            "worker", "--store", store, "--blobs", &blobs.url, "--jobs", "1",
        ])
        .args(["--lease", LEASE])
        .arg("--data")
        .arg(data)
        .envs(blobs.env.iter().map(|(k, v)| (k, v)))
        .env("EVACDOC_LOG", "evacdoc=info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (process, lines) = drain(name, child);
    keep_draining(&process, lines);
    process
}

/// The last lines each process printed, for a failure message.
fn logs(processes: &[&Process]) -> String {
    let mut out = String::new();
    for process in processes {
        let log = process.log.lock().unwrap();
        out.push_str(&format!("--- {} (last lines)\n", process.name));
        for line in log.iter().rev().take(15).rev() {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn get(base: &str, path: &str) -> Value {
    runtime().block_on(async {
        let response = reqwest::Client::new()
            .get(format!("{base}{path}"))
            .bearer_auth(TOKEN)
            .timeout(Duration::from_secs(60))
            .send()
            .await
            .unwrap();
        assert!(
            response.status().is_success(),
            "GET {base}{path}: {}",
            response.status()
        );
        response.json().await.unwrap()
    })
}

fn upload(base: &str, name: &str, body: Vec<u8>) -> String {
    runtime().block_on(async {
        let response = reqwest::Client::new()
            .post(format!("{base}/api/v1/analyses?name={name}"))
            .bearer_auth(TOKEN)
            .timeout(Duration::from_secs(60))
            .body(body)
            .send()
            .await
            .unwrap();
        let status = response.status();
        let created: Value = response.json().await.unwrap();
        assert!(
            status.is_success(),
            "upload {name} to {base}: {status} {created}"
        );
        created["id"].as_str().unwrap().to_string()
    })
}

/// A scenario folder as a .tar.gz.
fn tarball(scenario: &str) -> Vec<u8> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples/scenarios")
        .join(scenario);
    let encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut builder = tar::Builder::new(encoder);
    builder.append_dir_all(scenario, &folder).unwrap();
    builder.into_inner().unwrap().finish().unwrap()
}

/// A gzipped nova-compute log big enough that its analysis takes a second or more.
fn slow_bundle() -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    for i in 0..50_000u32 {
        let (m, s, ms) = ((i / 6000) % 60, (i / 100) % 60, i % 1000);
        writeln!(
            encoder,
            "2024-10-08 06:{m:02}:{s:02}.{ms:03} 1187 INFO nova.compute.manager [req-6f2b1c9e-3d4a-4e5f-8a7b-{i:012} 0f8c3b2a9d7e4f1c8b6a5d4e3f2a1b0c 7c4e2f8a1b3d4c6e9f0a2b4c6d8e0f1a - default default] [instance: 8f0d3c52-1a7e-4b39-9c61-2e5b7a4d9f10] Took 0.{ms:03} seconds to build instance."
        )
        .unwrap();
    }
    encoder.finish().unwrap()
}

/// The five distinct uploads: (name, body).
fn bundles() -> Vec<(String, Vec<u8>)> {
    let mut out = vec![(SLOW.to_owned(), slow_bundle())];
    for scenario in SCENARIOS {
        out.push((format!("{scenario}.tar.gz"), tarball(scenario)));
    }
    out
}

/// Polls until every id is done or failed (through `base`); their views.
fn wait_all(base: &str, ids: &[String], within: Duration, processes: &[&Process]) -> Vec<Value> {
    let started = Instant::now();
    loop {
        let views: Vec<Value> = ids
            .iter()
            .map(|id| get(base, &format!("/api/v1/analyses/{id}")))
            .collect();
        let open: Vec<String> = views
            .iter()
            .filter(|v| v["status"] == "queued" || v["status"] == "running")
            .map(|v| format!("{} {} (attempts {})", v["id"], v["status"], v["attempts"]))
            .collect();
        if open.is_empty() {
            return views;
        }
        assert!(
            started.elapsed() < within,
            "after {within:?} still open: {open:?}\n{}",
            logs(processes)
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// The `--blobs` of every process and the environment it needs.
struct Blobs {
    url: String,
    env: Vec<(&'static str, String)>,
    /// An object store, to look into: the test checks what is left there.
    remote: Option<Arc<dyn evacdoc::blobs::BlobStore>>,
}

#[test]
fn two_apis_and_three_workers_on_postgres_survive_a_killed_worker() {
    let Some(cluster) = ThrowawayCluster::start_or_skip().unwrap() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let blobs = Blobs {
        url: format!("file://{}", dir.path().join("blobs").display()),
        env: Vec::new(),
        remote: None,
    };
    run_scale(&cluster, "scale", &blobs, dir.path());
}

#[test]
fn two_apis_and_three_workers_on_postgres_and_swift_survive_a_killed_worker() {
    let Some(cluster) = ThrowawayCluster::start_or_skip().unwrap() else {
        return;
    };
    let Some(swift) = ThrowawaySwift::start_or_skip().unwrap() else {
        return;
    };
    let clouds = swift.clouds_yaml().unwrap();
    let url = format!(
        "swift://evacdoc?cloud={}",
        evacdoc::blobs::throwaway_swift::CLOUD
    );
    let remote = evacdoc::blobs::SwiftBlobs::open(evacdoc::blobs::SwiftConfig::new(
        "evacdoc".into(),
        evacdoc::blobs::SwiftAuth::Cloud {
            cloud: evacdoc::blobs::throwaway_swift::CLOUD.into(),
            config_file: Some(clouds.clone()),
        },
    ))
    .unwrap();
    let blobs = Blobs {
        url,
        env: vec![("OS_CLIENT_CONFIG_FILE", clouds.display().to_string())],
        remote: Some(Arc::new(remote)),
    };
    let dir = tempfile::tempdir().unwrap();
    run_scale(&cluster, "scale_swift", &blobs, dir.path());
}

fn as_str(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

fn run_scale(cluster: &ThrowawayCluster, database: &str, blobs: &Blobs, dir: &Path) {
    let test_started = Instant::now();
    let store = cluster.create_database(database).unwrap();
    let folder = |name: &str| dir.join(name).display().to_string();
    let (data_a, data_b) = (folder("api-a"), folder("api-b"));
    let shared = |data: &str| {
        vec![
            "--jobs".to_owned(),
            "0".into(),
            "--store".into(),
            store.clone(),
            "--blobs".into(),
            blobs.url.clone(),
            "--lease".into(),
            LEASE.into(),
            "--data".into(),
            data.to_owned(),
        ]
    };
    let (args_a, mut args_b) = (shared(&data_a), shared(&data_b));
    // API b keeps fetched indexes within one byte: each fetch evicts the ones before it.
    args_b.extend(["--index-cache".to_owned(), "1".into()]);
    let (api_a, base_a) = serve_with("api-a", &as_str(&args_a), &blobs.env);
    let (api_b, base_b) = serve_with("api-b", &as_str(&args_b), &blobs.env);
    let mut workers: Vec<Process> = (0..3)
        .map(|n| {
            let name = format!("worker-{n}");
            worker(&name, &store, blobs, &dir.join(&name))
        })
        .collect();
    let bundles = bundles();

    // The slow job first, so that a worker is busy with it when the others arrive.
    let mut uploads: Vec<(String, usize)> = Vec::new();
    for n in 0..20 {
        let base = if n % 2 == 0 { &base_a } else { &base_b };
        let which = n % bundles.len();
        let (name, body) = &bundles[which];
        uploads.push((upload(base, name, body.clone()), which));
    }
    let slow_id = uploads[0].0.clone();

    // Find who runs the slow job (the lease names host:pid:…) and kill it mid-job.
    let mut db = postgres::Client::connect(&store, postgres::NoTls).unwrap();
    let started = Instant::now();
    let owner: String = loop {
        let row = db
            .query_opt(
                "SELECT lease_owner FROM analyses WHERE id = $1 AND status = 'running'",
                &[&slow_id],
            )
            .unwrap();
        if let Some(owner) = row.and_then(|row| row.get::<_, Option<String>>(0)) {
            break owner;
        }
        let all: Vec<&Process> = workers.iter().chain([&api_a, &api_b]).collect();
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the slow job never ran\n{}",
            logs(&all)
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let pid: u32 = owner.split(':').nth(1).unwrap().parse().unwrap();
    let victim = workers
        .iter()
        .position(|w| w.child.id() == pid)
        .unwrap_or_else(|| panic!("lease owner {owner} is none of the workers"));
    let mut killed = workers.remove(victim);
    let killed_folder = dir.join(killed.name.clone());
    killed.child.kill().unwrap(); // SIGKILL
    killed.child.wait().unwrap();
    let row = db
        .query_one(
            "SELECT status, attempts FROM analyses WHERE id = $1",
            &[&slow_id],
        )
        .unwrap();
    assert_eq!(
        (row.get::<_, String>(0).as_str(), row.get::<_, i64>(1)),
        ("running", 1),
        "the slow job was still running its first attempt when its worker was killed"
    );

    let ids: Vec<String> = uploads.iter().map(|(id, _)| id.clone()).collect();
    let mut all: Vec<&Process> = workers.iter().collect();
    all.extend([&killed, &api_a, &api_b]);
    let views = wait_all(&base_a, &ids, Duration::from_secs(150), &all);
    for view in &views {
        assert_eq!(view["status"], "done", "{view}\n{}", logs(&all));
        let expected = if view["id"] == slow_id.as_str() { 2 } else { 1 };
        assert_eq!(view["attempts"], expected, "{view}");
    }
    // Exactly once: one result row and the stored findings of one run per analysis.
    for (id, _) in &uploads {
        let row = db
            .query_one(
                "SELECT (SELECT COUNT(*) FROM results WHERE analysis_id = $1),
                        (SELECT COUNT(*) FROM findings WHERE analysis_id = $1),
                        (SELECT finding_count FROM analyses WHERE id = $1)",
                &[id],
            )
            .unwrap();
        assert_eq!(row.get::<_, i64>(0), 1, "{id}: one result");
        assert_eq!(
            row.get::<_, i64>(1),
            row.get::<_, i64>(2),
            "{id}: findings once"
        );
    }

    // Both APIs answer every analysis, with the same findings.
    let mut found: HashMap<usize, Value> = HashMap::new();
    for (id, which) in &uploads {
        let a = get(&base_a, &format!("/api/v1/analyses/{id}/findings"));
        let b = get(&base_b, &format!("/api/v1/analyses/{id}/findings"));
        assert_eq!(a, b, "{id}: the two APIs differ");
        let view_b = get(&base_b, &format!("/api/v1/analyses/{id}"));
        assert_eq!(view_b["status"], "done");
        if let Some(earlier) = found.get(which) {
            assert_eq!(earlier, &a, "{id}: the same bundle gave other findings");
        }
        found.insert(*which, a);
    }
    // A share made on API a, served signed out by API b with the same bytes.
    let race = uploads
        .iter()
        .skip(2)
        .find(|(_, which)| bundles[*which].0.starts_with(SCENARIOS[0]))
        .unwrap()
        .0
        .clone();
    shares::share_checks(&base_a, &base_b, &race, &mut db);
    if let Some(remote) = &blobs.remote {
        // The bundle is kept in the object store; API b's copy of the upload it fetched
        // to make it is gone.
        let key = format!("analyses/{race}/share/redacted.tar.gz");
        assert!(remote.size(&key).unwrap().is_some(), "{key}");
        let input = Path::new(&data_b)
            .join("analyses")
            .join(&race)
            .join("input");
        assert!(!input.exists(), "{}", input.display());
    }

    // The index the second worker built for the killed job, searched through both APIs.
    let started = Instant::now();
    loop {
        let view = get(&base_a, &format!("/api/v1/analyses/{slow_id}"));
        if view["index"]["state"] == "done" {
            break;
        }
        assert_ne!(view["index"]["state"], "failed", "{view}");
        assert!(
            started.elapsed() < Duration::from_secs(90),
            "index of {slow_id}: {view}"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    let query = format!("/api/v1/analyses/{slow_id}/search?q=%22build%20instance%22&per_page=5");
    let (hits_a, hits_b) = (get(&base_a, &query), get(&base_b, &query));
    assert_eq!(hits_a["total"], 50_000, "{hits_a}");
    assert_eq!(hits_a, hits_b, "the two APIs search the same index");
    if blobs.remote.is_some() {
        // Another analysis searched through API b: its index is fetched and the first one
        // leaves b's cache (`--index-cache 1`), while answers stay right.
        let other = &uploads
            .iter()
            .find(|(_, which)| *which != uploads[0].1)
            .unwrap()
            .0;
        let started = Instant::now();
        while get(&base_b, &format!("/api/v1/analyses/{other}"))["index"]["state"] != "done" {
            assert!(
                started.elapsed() < Duration::from_secs(90),
                "index of {other}"
            );
            std::thread::sleep(Duration::from_millis(250));
        }
        let hits = get(
            &base_b,
            &format!("/api/v1/analyses/{other}/search?q=masakari"),
        );
        assert!(hits["total"].as_u64().unwrap_or(0) > 0, "{hits}");
        let cached = |id: &str| Path::new(&data_b).join("analyses").join(id).join("index");
        assert!(cached(other).is_dir());
        assert!(!cached(&slow_id).exists(), "evicted past --index-cache");
    }
    if let Some(remote) = &blobs.remote {
        object_store::object_store_checks(
            remote.as_ref(),
            &base_a,
            &ids,
            &store,
            blobs,
            &killed_folder,
        );
    }
    drop(workers);
    drop(api_a);
    drop(api_b);

    // The same bundles in one process on the embedded default.
    let data = dir.join("single");
    let data_arg = data.display().to_string();
    let (single, base) = serve("single", &["--jobs", "2", "--data", &data_arg]);
    let single_ids: Vec<String> = bundles
        .iter()
        .map(|(name, body)| upload(&base, name, body.clone()))
        .collect();
    wait_all(&base, &single_ids, Duration::from_secs(120), &[&single]);
    let mut compared = BTreeMap::new();
    for (which, id) in single_ids.iter().enumerate() {
        let alone = get(&base, &format!("/api/v1/analyses/{id}/findings"));
        assert_eq!(
            found.get(&which),
            Some(&alone),
            "{}: findings differ from a single process's",
            bundles[which].0
        );
        compared.insert(
            bundles[which].0.clone(),
            alone.as_array().map_or(0, Vec::len),
        );
    }
    assert!(
        compared.values().any(|n| *n > 0),
        "some bundle has findings: {compared:?}"
    );
    eprintln!(
        "serve_scale ({}): 20 analyses on 2 APIs + 3 workers (one killed), findings per \
         bundle {compared:?}, {:.1} s",
        blobs.url,
        test_started.elapsed().as_secs_f64()
    );
}
