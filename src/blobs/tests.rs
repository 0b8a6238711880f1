//! The contract (`contract.rs`) on each backend; Swift and S3 on a throwaway Swift.

use super::contract::check;
use super::throwaway_swift::{ACCOUNT_USER, CLOUD, KEY, ThrowawaySwift};
use super::*;

#[test]
fn the_folder_keeps_the_contract() -> Result<(), BlobError> {
    let root = tempfile::tempdir().map_err(|e| BlobError::io("tempdir", e))?;
    let store = FileBlobs::new(root.path());
    check(&store, "analyses/one", 3 << 20)?;
    // In place: the folder backend's blobs are its files.
    assert_eq!(
        store.local_path("analyses/x/document.json.zst"),
        Some(root.path().join("analyses/x/document.json.zst"))
    );
    Ok(())
}

fn swift_config(swift: &ThrowawaySwift, container: &str) -> Result<SwiftConfig, BlobError> {
    let clouds = swift
        .clouds_yaml()
        .map_err(|e| BlobError::Config(e.to_string()))?;
    Ok(SwiftConfig::new(
        container.into(),
        SwiftAuth::Cloud {
            cloud: CLOUD.into(),
            config_file: Some(clouds),
        },
    ))
}

#[test]
fn swift_and_its_s3_api_keep_the_contract() -> Result<(), BlobError> {
    let Some(swift) =
        ThrowawaySwift::start_or_skip().map_err(|e| BlobError::Config(e.to_string()))?
    else {
        return Ok(());
    };
    // Swift: above 1 MiB as an SLO of 400 KiB segments.
    let mut config = swift_config(&swift, "evacdoc")?;
    config.slo_above = 1 << 20;
    config.segment_size = 400 << 10;
    let store = SwiftBlobs::open(config)?;
    assert_eq!(store.describe(), format!("swift://evacdoc?cloud={CLOUD}"));
    check(&store, "analyses/one", (2 << 20) + 12_345)
        .map_err(|e| BlobError::Config(format!("{e}{}", swift.logs())))?;
    // Deleting the large object deleted its segments.
    let segments = SwiftBlobs::open(swift_config(&swift, "evacdoc_segments")?)?;
    assert_eq!(segments.list("analyses/")?, Vec::<String>::new());

    // S3 through s3api: above 5 MiB (S3's least part) in parts.
    let endpoint =
        url::Url::parse(&swift.endpoint()).map_err(|e| BlobError::Config(e.to_string()))?;
    let s3 = S3Blobs::open(S3Config {
        bucket: "evacdoc-s3".into(),
        endpoint,
        region: "us-east-1".into(),
        access_key: ACCOUNT_USER.into(),
        secret_key: KEY.into(),
        part_size: 5 << 20,
    })?;
    check(&s3, "analyses/two", (11 << 20) + 7)
        .map_err(|e| BlobError::Config(format!("{e}{}", swift.logs())))?;
    Ok(())
}

#[test]
fn a_wrong_key_or_password_is_an_auth_error_naming_the_store() -> Result<(), BlobError> {
    let Some(swift) =
        ThrowawaySwift::start_or_skip().map_err(|e| BlobError::Config(e.to_string()))?
    else {
        return Ok(());
    };
    let endpoint =
        url::Url::parse(&swift.endpoint()).map_err(|e| BlobError::Config(e.to_string()))?;
    let s3 = S3Blobs::open(S3Config {
        bucket: "evacdoc-s3".into(),
        endpoint,
        region: "us-east-1".into(),
        access_key: ACCOUNT_USER.into(),
        secret_key: "wrong".into(),
        part_size: 5 << 20,
    });
    assert!(
        matches!(s3, Err(BlobError::Status { status: 403, .. })),
        "{s3:?}"
    );
    let clouds = swift
        .clouds_yaml()
        .map_err(|e| BlobError::Config(e.to_string()))?;
    let text = std::fs::read_to_string(&clouds).map_err(|e| BlobError::io(&clouds, e))?;
    std::fs::write(&clouds, text.replace(KEY, "wrong")).map_err(|e| BlobError::io(&clouds, e))?;
    let swift_store = SwiftBlobs::open(SwiftConfig::new(
        "evacdoc".into(),
        SwiftAuth::Cloud {
            cloud: CLOUD.into(),
            config_file: Some(clouds),
        },
    ));
    let error = swift_store
        .expect_err("a wrong password signs in")
        .to_string();
    assert!(
        error.contains("auth/v1.0") && error.contains("401"),
        "{error}"
    );
    Ok(())
}
