//! Each hostile case uploaded to the real service: done with the skipped entries, or
//! failed with the reason; nothing written outside its data and work folders; the
//! service answering throughout.

use super::corpus::{self, LIMIT_FLAGS};
use super::server::serve;
use super::{check, snapshot};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_hostile_case_through_the_service() {
    let root = tempfile::tempdir().unwrap();
    let inputs = root.path().join("in");
    let tmp = root.path().join("tmp");
    let data = root.path().join("data");
    std::fs::create_dir(&tmp).unwrap();
    std::fs::create_dir(root.path().join("around")).unwrap();
    std::fs::write(root.path().join("around/canary"), "untouched\n").unwrap();
    let cases = corpus::build(&inputs);
    let mut args = vec!["--jobs", "2"];
    args.extend_from_slice(LIMIT_FLAGS);
    let server = serve(&data, &tmp, &args, None);
    let outside = |tree: std::collections::BTreeMap<String, String>| {
        tree.into_iter()
            .filter(|(path, _)| !path.starts_with("data"))
            .collect::<Vec<_>>()
    };
    let before = outside(snapshot(root.path()));

    let mut uploaded = Vec::new();
    for case in &cases {
        let name = case
            .path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let body = std::fs::read(&case.path).unwrap();
        let (status, answer) = server.upload(&name, body.clone()).await;
        if body.is_empty() {
            assert_eq!(status, 400, "{answer}");
            assert_eq!(answer["message"], "the upload is empty");
            continue;
        }
        assert_eq!(status, 202, "{}: {answer}", case.name);
        uploaded.push((case, answer["id"].as_str().unwrap().to_string()));
        server.assert_healthy().await;
    }
    let started = std::time::Instant::now();
    for (case, id) in &uploaded {
        let view = server.wait_ended(id).await;
        eprintln!("{}: ended after {:?}", case.name, started.elapsed());
        server.assert_healthy().await;
        match view["status"].as_str() {
            Some("done") => check(case, Some(&view["result"]), ""),
            _ => check(case, None, view["error"].as_str().unwrap_or_default()),
        }
        let text = view.to_string();
        assert!(
            !text.contains(&*tmp.to_string_lossy()),
            "{}: {text}",
            case.name
        );
        assert!(
            !text.contains(&*data.to_string_lossy()),
            "{}: {text}",
            case.name
        );
    }
    // Nothing outside the data folder changed, the work folders are gone, and nothing
    // an entry named escaped into the data folder.
    assert_eq!(outside(snapshot(root.path())), before);
    assert!(!std::path::Path::new(&corpus::absolute_target()).exists());
    for path in snapshot(&data).keys() {
        assert!(
            !path.contains("evil") && !path.contains("escaped"),
            "{path} in the data folder"
        );
    }
    server.assert_healthy().await;
}
