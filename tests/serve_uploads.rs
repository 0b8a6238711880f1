//! Uploads that are not what they should be, through the real `evacdoc serve`: random
//! bytes end `failed` with what they held (API and UI), a JSON file is refused alike on
//! both paths, members with names too long are skipped while the analysis goes on, and
//! every work file (analysis, share page, share bundle) stays under `--data`.

use std::io::Write as _;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::hostile::server::{Server, TOKEN, serve};
use crate::hostile::snapshot;
use crate::util::random_bytes;

/// The message of an upload that held nothing evacdoc reads.
const NOTHING_READ: &str =
    "no log, config or capture file in upload.bin: 1 file of unknown type, 1,048,576 bytes";

/// A browser signed in with the token: its session cookie and CSRF token.
async fn sign_in(server: &Server) -> (String, String) {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let answer = client
        .post(server.url("/login"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("token={TOKEN}&next=%2F"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 303);
    let set = answer.headers()["set-cookie"].to_str().unwrap();
    let cookie = set.split(';').next().unwrap().to_string();
    let home = page(server, &cookie, "/").await;
    let marker = "name=\"csrf-token\" content=\"";
    let start = home.find(marker).unwrap() + marker.len();
    let csrf = home[start..start + 64].to_string();
    (cookie, csrf)
}

/// A page as the signed-in browser sees it.
async fn page(server: &Server, cookie: &str, path: &str) -> String {
    let answer = server
        .client
        .get(server.url(path))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200, "{path}");
    answer.text().await.unwrap()
}

/// What the home page's script sends for a dropped file: the file as the body, the type
/// the browser gives it (`file.type`), the session and its CSRF token.
async fn upload_from_the_page(
    server: &Server,
    (cookie, csrf): &(String, String),
    name: &str,
    file_type: &str,
    body: Vec<u8>,
) -> (u16, Value) {
    let answer = server
        .client
        .post(server.url("/api/v1/analyses"))
        .query(&[("name", name)])
        .header("cookie", cookie)
        .header("x-csrf-token", csrf)
        .header("content-type", file_type)
        .body(body)
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    (status, answer.json().await.unwrap_or(Value::Null))
}

/// A form upload (`multipart/form-data`) of one file of type `file_type`.
async fn upload_as_form(server: &Server, name: &str, file_type: &str, body: &[u8]) -> (u16, Value) {
    let mut form = Vec::new();
    write!(
        form,
        "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n\
         Content-Type: {file_type}\r\n\r\n"
    )
    .unwrap();
    form.extend_from_slice(body);
    form.extend_from_slice(b"\r\n--XyZ--\r\n");
    let answer = server
        .client
        .post(server.url("/api/v1/analyses"))
        .bearer_auth(TOKEN)
        .header("content-type", "multipart/form-data; boundary=XyZ")
        .body(form)
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    (status, answer.json().await.unwrap_or(Value::Null))
}

/// Polls until the analysis has ended and its index is no longer running.
async fn wait_settled(server: &Server, id: &str) -> Value {
    let started = std::time::Instant::now();
    loop {
        let view = server.wait_ended(id).await;
        if view["index"]["state"] != "running" && view["index"]["state"] != "pending"
            || view["status"] == "failed"
        {
            return view;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "{view}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn folders() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let (data, tmp) = (root.path().join("data"), root.path().join("tmp"));
    std::fs::create_dir(&tmp).unwrap();
    (root, data, tmp)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_bytes_fail_with_what_they_held_and_json_is_refused_on_both_paths() {
    let (_root, data, tmp) = folders();
    let server = serve(&data, &tmp, &[], None);
    let browser = sign_in(&server).await;
    let junk = random_bytes(1 << 20, 22);

    // Through the API and through the page: failed, saying so, the index not running.
    let (status, api) = server.upload("upload.bin", junk.clone()).await;
    assert_eq!(status, 202, "{api}");
    let (status, ui) = upload_from_the_page(
        &server,
        &browser,
        "upload.bin",
        "application/octet-stream",
        junk,
    )
    .await;
    assert_eq!(status, 202, "{ui}");
    for created in [&api, &ui] {
        let id = created["id"].as_str().unwrap();
        let view = wait_settled(&server, id).await;
        assert_eq!(view["status"], "failed", "{view}");
        assert_eq!(view["error"], NOTHING_READ, "{view}");
        assert_eq!(view["index"]["state"], "failed", "{view}");
        assert!(!view.to_string().contains(&*data.to_string_lossy()));
        let shown = page(&server, &browser.0, &format!("/analyses/{id}")).await;
        assert!(shown.contains("The analysis failed"), "{shown}");
        assert!(shown.contains(NOTHING_READ), "{shown}");
        assert!(!shown.contains("alert good"), "never green: {shown}");
    }

    // A 13-byte JSON file: 415 from the API, from the page, and as a form's file.
    let json = br#"{"a": "json"}"#.to_vec();
    assert_eq!(json.len(), 13);
    let refusals = [
        {
            let answer = server
                .client
                .post(server.url("/api/v1/analyses?name=a.json"))
                .bearer_auth(TOKEN)
                .header("content-type", "application/json")
                .body(json.clone())
                .send()
                .await
                .unwrap();
            (
                answer.status().as_u16(),
                answer.json::<Value>().await.unwrap(),
            )
        },
        upload_from_the_page(
            &server,
            &browser,
            "a.json",
            "application/json",
            json.clone(),
        )
        .await,
        upload_as_form(&server, "a.json", "application/json", &json).await,
    ];
    for (status, answer) in &refusals {
        assert_eq!(*status, 415, "{answer}");
        assert_eq!(answer["error"], "unsupported_media_type", "{answer}");
        assert_eq!(
            answer["message"], refusals[0].1["message"],
            "one rule, one answer"
        );
    }
    // Nothing was queued for them.
    let listed = server.get_json("/api/v1/analyses").await;
    assert_eq!(listed.as_array().unwrap().len(), 2, "{listed}");
    server.assert_healthy().await;
}

/// The race scenario as a `.tar.gz`, with a member whose name is over 255 bytes and one
/// whose path is over `PATH_MAX`, each holding a log line.
fn scenario_with_long_names(long_name: &str, long_path: &str) -> Vec<u8> {
    let name = "2020-juju-evacuate-race";
    let mut builder = tar::Builder::new(Vec::new());
    builder.follow_symlinks(false);
    builder
        .append_dir_all(name, crate::analysis::scenario(name))
        .unwrap();
    let line = b"2024-10-08 06:25:03.311 1187 INFO masakari.engine.manager [-] Starting masakari-engine (version 17.0.0)\n";
    for name in [long_name, long_path] {
        let mut header = tar::Header::new_gnu();
        header.set_size(line.len() as u64);
        header.set_mode(0o644);
        builder.append_data(&mut header, name, &line[..]).unwrap();
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&builder.into_inner().unwrap()).unwrap();
    gz.finish().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn members_with_names_too_long_are_skipped_and_the_analysis_goes_on() {
    let (_root, data, tmp) = folders();
    let server = serve(&data, &tmp, &[], None);
    let browser = sign_in(&server).await;
    let long_name = format!("2020-juju-evacuate-race/{}.log", "n".repeat(256));
    let deep: String = (0..20).map(|i| format!("{i:0>250}/")).collect();
    let long_path = format!("2020-juju-evacuate-race/{deep}masakari-engine.log");
    let bundle = scenario_with_long_names(&long_name, &long_path);
    let (status, created) = server.upload("race.tar.gz", bundle).await;
    assert_eq!(status, 202, "{created}");
    let id = created["id"].as_str().unwrap();
    let view = wait_settled(&server, id).await;
    assert_eq!(view["status"], "done", "{view}");
    assert_eq!(view["index"]["state"], "done", "{view}");
    let skipped = view["result"]["analysis"]["skipped"].as_array().unwrap();
    let reason = |name: &str| {
        skipped
            .iter()
            .find(|s| s["path"].as_str().unwrap().ends_with(name))
            .and_then(|s| s["reason"].as_str())
            .unwrap_or_else(|| panic!("{name} not skipped: {skipped:?}"))
            .to_string()
    };
    assert!(reason(&format!("{}.log", "n".repeat(256))).contains("over 255 bytes"));
    assert!(
        reason("/masakari-engine.log").contains("too long"),
        "{skipped:?}"
    );
    // The rest was read: the race is found.
    let findings = view["result"]["findings"].as_array().unwrap();
    assert!(
        findings
            .iter()
            .any(|f| f["title"].as_str().unwrap().contains("raced")),
        "{findings:?}"
    );
    assert!(!view.to_string().contains(&*data.to_string_lossy()));
    // The page says what was read, and lists the skipped members.
    let shown = page(&server, &browser.0, &format!("/analyses/{id}")).await;
    assert!(shown.contains("class=\"read-summary\">Read "), "{shown}");
    assert!(shown.contains("over 255 bytes"), "{shown}");
    assert!(!shown.contains(&*data.to_string_lossy()));
}

/// The race scenario as a `.tar.gz` that also holds a sosreport `.tar.gz` cut in half.
pub(crate) fn scenario_with_a_damaged_member() -> Vec<u8> {
    let gzip = |data: &[u8]| {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(data).unwrap();
        gz.finish().unwrap()
    };
    let line = b"2024-10-08 06:25:03.311 1187 INFO nova.compute.manager [-] Starting instance...\n";
    let mut inner = tar::Builder::new(Vec::new());
    let log = line.repeat(2000);
    let mut header = tar::Header::new_gnu();
    header.set_size(log.len() as u64);
    header.set_mode(0o644);
    inner
        .append_data(&mut header, "var/log/nova/nova-compute.log", &log[..])
        .unwrap();
    let inner = gzip(&inner.into_inner().unwrap());
    let cut = &inner[..inner.len() / 2];
    let name = "2020-juju-evacuate-race";
    let mut builder = tar::Builder::new(Vec::new());
    builder.follow_symlinks(false);
    builder
        .append_dir_all(name, crate::analysis::scenario(name))
        .unwrap();
    let mut header = tar::Header::new_gnu();
    header.set_size(cut.len() as u64);
    header.set_mode(0o644);
    builder
        .append_data(&mut header, "nested/sosreport-cmp1.tar.gz", cut)
        .unwrap();
    gzip(&builder.into_inner().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_nested_archive_is_named_by_the_upload_and_its_member_path() {
    let (_root, data, tmp) = folders();
    let server = serve(&data, &tmp, &[], None);
    let (status, created) = server
        .upload("case-01.tar.gz", scenario_with_a_damaged_member())
        .await;
    assert_eq!(status, 202, "{created}");
    let view = wait_settled(&server, created["id"].as_str().unwrap()).await;
    assert_eq!(view["status"], "done", "{view}");
    let skipped = view["result"]["analysis"]["skipped"].as_array().unwrap();
    let damaged = skipped
        .iter()
        .find(|s| s["path"] == "case-01/nested/sosreport-cmp1")
        .unwrap_or_else(|| panic!("{skipped:?}"));
    let reason = damaged["reason"].as_str().unwrap();
    assert!(
        reason.starts_with(
            "archive damaged, read what came before: case-01/nested/sosreport-cmp1.tar.gz: truncated"
        ),
        "{reason}"
    );
    // No work or data folder in anything the service says of it.
    let text = view.to_string();
    assert!(!text.contains(&*data.to_string_lossy()), "{text}");
    assert!(!text.contains(&*tmp.to_string_lossy()), "{text}");
}

/// A zip of the race scenario's files (links left out: zip keeps them as files).
fn scenario_zip() -> Vec<u8> {
    let root = crate::analysis::scenario("2020-juju-evacuate-race");
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                let name = path.strip_prefix(root.parent().unwrap()).unwrap();
                zip.start_file(name.to_string_lossy(), options).unwrap();
                zip.write_all(&std::fs::read(&path).unwrap()).unwrap();
            }
        }
    }
    zip.finish().unwrap().into_inner()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn work_files_of_analyses_and_shares_stay_under_data_and_are_removed() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    // The system temporary folder is a file: anything made in it fails, even as root.
    let tmp = root.path().join("not-a-folder");
    std::fs::write(&tmp, "TMPDIR\n").unwrap();
    // What a stop left in the data folder's tmp/ is gone at start.
    std::fs::create_dir_all(data.join("tmp/evacdoc-left")).unwrap();
    std::fs::write(data.join("tmp/evacdoc-left/x.log"), "left\n").unwrap();
    let server = serve(&data, &tmp, &[], None);
    let before = snapshot(root.path());
    assert!(
        !before.keys().any(|p| p.contains("evacdoc-left")),
        "{before:?}"
    );

    let (status, created) = server.upload("race.zip", scenario_zip()).await;
    assert_eq!(status, 202, "{created}");
    let view = wait_settled(&server, created["id"].as_str().unwrap()).await;
    assert_eq!(view["status"], "done", "{view}");
    assert_eq!(view["index"]["state"], "done", "{view}");
    assert!(
        view["result"]["analysis"]["files"]
            .as_array()
            .unwrap()
            .len()
            > 3,
        "the zip was unpacked and read: {view}"
    );
    // A public link of the whole analysis: its page gathers the bundle's host names and
    // its bundle is a redacted copy of the upload; both unpack it, under --data too.
    let id = created["id"].as_str().unwrap();
    let response = server
        .client
        .post(server.url(&format!("/api/v1/analyses/{id}/shares")))
        .bearer_auth(TOKEN)
        .json(&serde_json::json!({"scope": {"kind": "analysis"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    let link: Value = response.json().await.unwrap();
    let url = link["url"].as_str().unwrap();
    let path = &url[url.find("/s/").unwrap()..];
    for tail in ["", "/bundle.tar.gz"] {
        let response = server
            .client
            .get(server.url(&format!("{path}{tail}")))
            .send()
            .await;
        let response = response.unwrap();
        assert_eq!(response.status(), 200, "{path}{tail}");
        assert!(!response.bytes().await.unwrap().is_empty());
    }
    assert_eq!(std::fs::read_to_string(&tmp).unwrap(), "TMPDIR\n");
    let work: Vec<_> = std::fs::read_dir(data.join("tmp")).unwrap().collect();
    assert!(work.is_empty(), "the work folder is removed: {work:?}");
    let outside = |tree: std::collections::BTreeMap<String, String>| {
        tree.into_iter()
            .filter(|(path, _)| !Path::new(path).starts_with("data"))
            .collect::<Vec<_>>()
    };
    assert_eq!(outside(snapshot(root.path())), outside(before));
}
