//! With an object store: the blobs each analysis leaves, deleted with it; a killed worker's
//! folder emptied when it starts again.

use super::*;

/// With an object store: every analysis has its upload, document and index there (the
/// killed job's under its second attempt's name); deleting an analysis through an API
/// deletes them; a worker started again on the killed worker's folder empties it.
pub(super) fn object_store_checks(
    remote: &dyn evacdoc::blobs::BlobStore,
    base: &str,
    ids: &[String],
    store: &str,
    blobs: &Blobs,
    killed_folder: &Path,
) {
    for id in ids {
        let view = get(base, &format!("/api/v1/analyses/{id}"));
        let attempt = view["attempts"].as_u64().unwrap();
        let keys = remote.list(&format!("analyses/{id}/")).unwrap();
        for wanted in [
            format!("analyses/{id}/a{attempt}/document.json.zst"),
            format!("analyses/{id}/a{attempt}/index.tar"),
        ] {
            assert!(keys.contains(&wanted), "{wanted} missing from {keys:?}");
        }
        assert!(
            keys.iter()
                .any(|k| k.starts_with(&format!("analyses/{id}/input/"))),
            "{keys:?}"
        );
    }
    let gone = &ids[1];
    runtime().block_on(async {
        let response = reqwest::Client::new()
            .delete(format!("{base}/api/v1/analyses/{gone}"))
            .bearer_auth(TOKEN)
            .send()
            .await
            .unwrap();
        assert!(response.status().is_success(), "{}", response.status());
    });
    assert_eq!(
        remote.list(&format!("analyses/{gone}/")).unwrap(),
        Vec::<String>::new(),
        "deleting an analysis deletes its blobs"
    );
    let count = |name: &str| std::fs::read_dir(killed_folder.join(name)).map_or(0, |e| e.count());
    let left = count("tmp") + count("analyses");
    let again = worker("worker-again", store, blobs, killed_folder);
    let started = Instant::now();
    loop {
        if count("tmp") + count("analyses") == 0 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the killed worker's folder was not emptied ({left} entries at its death)\n{}",
            logs(&[&again])
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        left > 0,
        "the killed worker had left its copies and work folder"
    );
}
