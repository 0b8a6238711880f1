//! `evacdoc serve` killed with SIGKILL while an analysis runs: at the next start the job
//! is run again (and ends done, with its result), or failed once it was interrupted too
//! often; nothing half-written is ever shown as done.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const TOKEN: &str = "restart-token-0123456789";

/// The binary serving `data` on a free port; its base URL.
fn serve(data: &std::path::Path) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_evacdoc"))
        .args(["serve", "--listen", "127.0.0.1:0", "--jobs", "1", "--data"])
        .arg(data)
        .env("EVACDOC_TOKEN", TOKEN)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let base = loop {
        let line = lines.next().expect("serve printed its address").unwrap();
        if let Some(rest) = line.strip_prefix("evacdoc: serving on ") {
            break rest.trim_end_matches('/').to_string();
        }
    };
    // Keep draining stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    (child, base)
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
