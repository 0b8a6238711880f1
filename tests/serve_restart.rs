//! `evacdoc serve` killed with SIGKILL while an analysis runs: at the next start the job
//! is run again (and ends done, with its result), or failed once it was interrupted too
//! often; nothing half-written is ever shown as done. Killed while an upload is being
//! received or an index built: the partial upload and the half-built index are removed,
//! the analysis's findings kept.

use std::io::Write;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use serde_json::Value;

const TOKEN: &str = "restart-token-0123456789";

/// The binary serving `data` on a free port; its base URL.
fn serve(data: &std::path::Path) -> (Child, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_evacdoc"));
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--jobs", "1", "--data"])
        .arg(data)
        .env("EVACDOC_TOKEN", TOKEN);
    crate::util::spawn_serve(command)
}

fn get(base: &str, path: &str) -> Value {
    let response = client::get_text(base, path);
    serde_json::from_str(&response).unwrap()
}

/// Minimal blocking HTTP over reqwest's async client, on a small runtime of its own.
mod client {
    pub fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    pub fn get_text(base: &str, path: &str) -> String {
        runtime().block_on(async {
            reqwest::Client::new()
                .get(format!("{base}{path}"))
                .bearer_auth(super::TOKEN)
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap()
        })
    }

    /// Starts an upload that sends `first` then never ends; returns when it is sent.
    pub fn start_endless_upload(base: &str, first: Vec<u8>) -> std::thread::JoinHandle<()> {
        let url = format!("{base}/api/v1/analyses?name=endless.tar.gz");
        std::thread::spawn(move || {
            use futures_util::StreamExt as _;
            runtime().block_on(async move {
                let chunks =
                    futures_util::stream::once(async move { Ok::<_, std::io::Error>(first) })
                        .chain(futures_util::stream::pending());
                // Ends with an error when the server is killed.
                let _ = reqwest::Client::new()
                    .post(url)
                    .bearer_auth(super::TOKEN)
                    .body(reqwest::Body::wrap_stream(chunks))
                    .send()
                    .await;
            })
        })
    }

    pub fn upload(base: &str, name: &str, body: Vec<u8>) -> String {
        runtime().block_on(async {
            let created: serde_json::Value = reqwest::Client::new()
                .post(format!("{base}/api/v1/analyses?name={name}"))
                .bearer_auth(super::TOKEN)
                .body(body)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            created["id"].as_str().unwrap().to_string()
        })
    }
}

/// A gzipped nova-compute log big enough that its analysis takes a while.
fn slow_bundle() -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    for i in 0..150_000u32 {
        let (m, s, ms) = ((i / 6000) % 60, (i / 100) % 60, i % 1000);
        writeln!(
            encoder,
            "2024-10-08 06:{m:02}:{s:02}.{ms:03} 1187 INFO nova.compute.manager [req-6f2b1c9e-3d4a-4e5f-8a7b-{i:012} 0f8c3b2a9d7e4f1c8b6a5d4e3f2a1b0c 7c4e2f8a1b3d4c6e9f0a2b4c6d8e0f1a - default default] [instance: 8f0d3c52-1a7e-4b39-9c61-2e5b7a4d9f10] Took 0.{ms:03} seconds to build instance."
        )
        .unwrap();
    }
    encoder.finish().unwrap()
}

/// Polls the analysis until `done(view)` holds; the view.
fn wait_for(base: &str, id: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let started = Instant::now();
    loop {
        let view = get(base, &format!("/api/v1/analyses/{id}"));
        // Never done without its result.
        if view["status"] == "done" {
            assert_eq!(view["result"]["schema"], "evacdoc.analysis/v1", "{view}");
        }
        if done(&view) {
            return view;
        }
        assert!(
            started.elapsed() < Duration::from_secs(180),
            "waiting for {what}: {view}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn kill(mut child: Child) {
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
}

#[test]
fn a_job_killed_while_running_is_run_again_then_failed_when_killed_too_often() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let bundle = slow_bundle();

    // Killed once: re-run at the next start, and done.
    let (server, base) = serve(&data);
    let first = client::upload(&base, "nova-compute.log.gz", bundle.clone());
    wait_for(&base, &first, "running", |v| v["status"] == "running");
    kill(server);
    let (server, base) = serve(&data);
    let view = get(&base, &format!("/api/v1/analyses/{first}"));
    assert!(
        view["status"] == "queued" || view["status"] == "running",
        "{view}"
    );
    let view = wait_for(&base, &first, "done", |v| v["status"] == "done");
    assert_eq!(view["attempts"], 2, "{view}");
    assert!(view["error"].is_null(), "{view}");
    assert!(
        view["result"]["stats"]["records"].as_u64().unwrap() >= 150_000,
        "{view}"
    );

    // Killed twice: failed with the reason, never left running.
    let second = client::upload(&base, "nova-compute.log.gz", bundle);
    wait_for(&base, &second, "running", |v| v["status"] == "running");
    kill(server);
    let (server, base) = serve(&data);
    wait_for(&base, &second, "running again", |v| {
        v["status"] == "running" && v["attempts"] == 2
    });
    kill(server);
    let (server, base) = serve(&data);
    let view = get(&base, &format!("/api/v1/analyses/{second}"));
    assert_eq!(view["status"], "failed", "{view}");
    assert!(
        view["error"].as_str().unwrap().contains("interrupted"),
        "{view}"
    );
    // The first one is untouched.
    let view = get(&base, &format!("/api/v1/analyses/{first}"));
    assert_eq!(view["status"], "done", "{view}");
    kill(server);
}

/// Files under `dir` whose name ends in `.part` (uploads being received).
fn partial_uploads(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(partial_uploads(&path));
        } else if path.extension().is_some_and(|e| e == "part") {
            found.push(path);
        }
    }
    found
}

#[test]
fn a_kill_during_an_upload_leaves_no_partial_file_and_no_analysis() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let (server, base) = serve(&data);
    let _upload = client::start_endless_upload(&base, vec![0x1f; 256 * 1024]);
    let analyses = data.join("analyses");
    let started = Instant::now();
    let partial = loop {
        let found = partial_uploads(&analyses)
            .into_iter()
            .find(|part| part.metadata().is_ok_and(|m| m.len() > 0));
        if let Some(part) = found {
            break part;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no partial upload"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    kill(server);
    assert!(partial.exists(), "the kill left the partial upload");

    let (server, base) = serve(&data);
    assert!(!partial.exists(), "{} is still there", partial.display());
    assert_eq!(std::fs::read_dir(&analyses).unwrap().count(), 0);
    assert_eq!(get(&base, "/api/v1/analyses"), serde_json::json!([]));
    kill(server);
}

#[test]
fn a_kill_while_indexing_keeps_the_findings_and_fails_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let (server, base) = serve(&data);
    let id = client::upload(&base, "nova-compute.log.gz", slow_bundle());
    let before = wait_for(&base, &id, "done while indexing", |v| {
        v["status"] == "done" && v["index"]["state"] == "running"
    });
    kill(server);
    let index = data.join("analyses").join(&id).join("index");
    assert!(index.exists());

    let (server, base) = serve(&data);
    let view = get(&base, &format!("/api/v1/analyses/{id}"));
    assert_eq!(view["status"], "done", "{view}");
    assert_eq!(view["result"], before["result"], "the result is kept whole");
    assert_eq!(view["index"]["state"], "failed", "{view}");
    assert!(
        view["index"]["error"]
            .as_str()
            .unwrap()
            .contains("interrupted"),
        "{view}"
    );
    assert!(!index.exists(), "the half-built index is removed");
    kill(server);
}
