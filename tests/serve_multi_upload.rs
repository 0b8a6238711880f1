//! Several files in one multipart upload (one sosreport per node): one analysis over all
//! of them, the same as an analysis of the same files in one folder; the upload's digest
//! is that of the parts' `sha256sum` listing; at most 64 parts, their sum within the size
//! limit, errors that name the part.

use std::path::Path;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::analysis::scenario;
use crate::serve_api::{TOKEN, TestServer};

/// A folder packed as a `.tar.gz` holding it under `name`.
fn tar_gz(dir: &Path, name: &str) -> Vec<u8> {
    let encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut tar = tar::Builder::new(encoder);
    tar.follow_symlinks(false);
    tar.append_dir_all(name, dir).unwrap();
    tar.into_inner().unwrap().finish().unwrap()
}

/// A `multipart/form-data` body of file parts: its content type and bytes.
fn multipart(parts: &[(String, Vec<u8>)]) -> (String, Vec<u8>) {
    let boundary = "evacdoc-parts-7f3a";
    let mut body = Vec::new();
    for (name, bytes) in parts {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

async fn post(server: &TestServer, parts: &[(String, Vec<u8>)]) -> (u16, Value) {
    let (content_type, body) = multipart(parts);
    let answer = server
        .client
        .post(server.url("/api/v1/analyses"))
        .bearer_auth(TOKEN)
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    (status, answer.json().await.unwrap_or(Value::Null))
}

/// (path, records) of each file read, and the findings' ids.
fn what_was_read(document: &Value) -> (Vec<(String, u64)>, Vec<String>) {
    let mut files: Vec<(String, u64)> = document["analysis"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["records"].as_u64().unwrap(),
            )
        })
        .collect();
    files.sort();
    let mut findings: Vec<String> = document["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap().to_string())
        .collect();
    findings.sort();
    (files, findings)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_files_are_one_analysis_as_one_folder_of_them() {
    // One part per sosreport (packed as its node sends it) and per capture beside them.
    let root = scenario("2024-sosreports-two-timezones");
    let folder = tempfile::tempdir().unwrap();
    let mut entries: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap() != "README.md")
        .collect();
    entries.sort();
    let mut parts = Vec::new();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let (name, bytes) = if path.is_dir() {
            (format!("{name}.tar.gz"), tar_gz(&path, &name))
        } else {
            (name, std::fs::read(&path).unwrap())
        };
        std::fs::write(folder.path().join(&name), &bytes).unwrap();
        parts.push((name, bytes));
    }
    assert!(parts.len() >= 4);
    let listing: String = parts
        .iter()
        .map(|(name, bytes)| format!("{}  {name}\n", hex::encode(Sha256::digest(bytes))))
        .collect();

    let server = TestServer::start().await;
    let (status, created) = post(&server, &parts).await;
    assert_eq!(status, 202, "{created}");
    let id = created["id"].as_str().unwrap();
    let view = server.wait_done(id).await;
    assert_eq!(view["status"], "done", "{view}");
    assert_eq!(
        view["sha256"],
        hex::encode(Sha256::digest(listing.as_bytes()))
    );
    let size: usize = parts.iter().map(|(_, b)| b.len()).sum();
    assert_eq!(view["size_bytes"].as_u64().unwrap() as usize, size);

    let local =
        evacdoc::run::analyze_inputs(&[folder.path().to_path_buf()], &Default::default()).unwrap();
    let document = evacdoc::triage::report::json_document(&local.analysis, &local.findings);
    let (uploaded_files, uploaded_findings) = what_was_read(&view["result"]);
    let (folder_files, folder_findings) = what_was_read(&document);
    assert_eq!(uploaded_files, folder_files);
    assert_eq!(uploaded_findings, folder_findings);
    // Every node's logs are in the one analysis.
    for node in ["cmp2", "cmp3", "ctl1"] {
        assert!(
            uploaded_files.iter().any(|(p, _)| p.contains(node)),
            "{node}: {uploaded_files:?}"
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parts_past_the_bounds_are_refused_naming_the_part() {
    let server = TestServer::start_with(|c| c.max_upload = 4000).await;
    let line = |n: usize| {
        (
            format!("n{n}.log"),
            b"2024-05-21 08:05:00.000 1 INFO x y\n".to_vec(),
        )
    };

    let many: Vec<_> = (1..=65).map(line).collect();
    let (status, answer) = post(&server, &many[..]).await;
    // 65 parts of 35 bytes are within the size: the count is what is refused.
    assert_eq!(status, 400, "{answer}");
    let said = answer["message"].as_str().unwrap();
    assert!(said.starts_with("part 65 (n65.log): "), "{said}");
    assert!(said.contains("64"), "{said}");

    let big = vec![
        ("a.log".to_string(), vec![b'a'; 2500]),
        ("b.log".to_string(), vec![b'b'; 2500]),
    ];
    let (status, answer) = post(&server, &big).await;
    assert_eq!(status, 413, "{answer}");
    let said = answer["message"].as_str().unwrap();
    assert!(said.starts_with("part 2 (b.log): "), "{said}");
    assert!(said.contains("4000 bytes"), "{said}");

    let empty = vec![line(1), ("empty.log".to_string(), Vec::new())];
    let (status, answer) = post(&server, &empty).await;
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .starts_with("part 2 (empty.log): "),
        "{answer}"
    );
    // Nothing refused was kept.
    assert_eq!(
        server.get_json("/api/v1/analyses").await,
        serde_json::json!([])
    );
    server.stop().await;
}
