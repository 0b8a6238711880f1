//! The `--blobs` URL: `file:///abs/dir`, `s3://BUCKET?endpoint=http://HOST:PORT&region=R`,
//! `swift://CONTAINER?cloud=NAME`.

use std::path::PathBuf;

use super::error::BlobError;
use super::s3::S3Config;
use super::swift::SwiftConfig;

/// A parsed `--blobs` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlobUrl {
    File(PathBuf),
    S3(S3Config),
    Swift(SwiftConfig),
}

impl BlobUrl {
    /// Reads `text`; S3 keys come from `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`.
    pub fn parse(text: &str) -> Result<BlobUrl, BlobError> {
        BlobUrl::parse_with(text, |name| std::env::var(name).ok())
    }

    /// [`BlobUrl::parse`] with the environment given as a function (testable).
    pub fn parse_with(
        text: &str,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<BlobUrl, BlobError> {
        let bad = |why: &str| BlobError::Config(format!("--blobs {text:?}: {why}"));
        let parsed = ::url::Url::parse(text).map_err(|e| bad(&e.to_string()))?;
        let query = |name: &str| {
            parsed
                .query_pairs()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.into_owned())
                .filter(|v| !v.is_empty())
        };
        let name = parsed.host_str().unwrap_or("").to_owned();
        match parsed.scheme() {
            "file" => parsed
                .to_file_path()
                .map(BlobUrl::File)
                .map_err(|()| bad("not an absolute local path")),
            "s3" => {
                if name.is_empty() {
                    return Err(bad("no bucket (s3://BUCKET?endpoint=…&region=…)"));
                }
                let endpoint = query("endpoint").ok_or_else(|| {
                    bad("no endpoint (s3://BUCKET?endpoint=http://HOST:PORT&region=R)")
                })?;
                let endpoint = ::url::Url::parse(&endpoint).map_err(|e| bad(&e.to_string()))?;
                if endpoint.scheme() != "http" {
                    return Err(bad(
                        "the endpoint must be http:// (no TLS client is built in: a private \
                         network or a TLS tunnel)",
                    ));
                }
                let access_key = env("AWS_ACCESS_KEY_ID").filter(|v| !v.is_empty());
                let secret_key = env("AWS_SECRET_ACCESS_KEY").filter(|v| !v.is_empty());
                let (Some(access_key), Some(secret_key)) = (access_key, secret_key) else {
                    return Err(bad("set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"));
                };
                Ok(BlobUrl::S3(S3Config {
                    bucket: name,
                    endpoint,
                    region: query("region").unwrap_or_else(|| "us-east-1".into()),
                    access_key,
                    secret_key,
                    part_size: super::s3::PART_SIZE,
                }))
            }
            "swift" => {
                if name.is_empty() {
                    return Err(bad("no container (swift://CONTAINER?cloud=NAME)"));
                }
                let cloud = query("cloud")
                    .ok_or_else(|| bad("no cloud (swift://CONTAINER?cloud=NAME of clouds.yaml)"))?;
                Ok(BlobUrl::Swift(SwiftConfig::new(
                    name,
                    super::swift_auth::SwiftAuth::Cloud {
                        cloud,
                        config_file: env("OS_CLIENT_CONFIG_FILE").map(PathBuf::from),
                    },
                )))
            }
            other => Err(bad(&format!(
                "unknown scheme {other}: (file:///ABS/DIR, s3://BUCKET?endpoint=…, \
                 swift://CONTAINER?cloud=NAME)"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(name: &str) -> Option<String> {
        match name {
            "AWS_ACCESS_KEY_ID" => Some("AKID".into()),
            "AWS_SECRET_ACCESS_KEY" => Some("secret".into()),
            _ => None,
        }
    }

    #[test]
    fn the_three_forms_are_read() {
        assert_eq!(
            BlobUrl::parse_with("file:///srv/evacdoc%20blobs", keys).unwrap(),
            BlobUrl::File(PathBuf::from("/srv/evacdoc blobs"))
        );
        let BlobUrl::S3(s3) = BlobUrl::parse_with(
            "s3://evacdoc?endpoint=http://10.0.0.5:7480&region=eu-west-1",
            keys,
        )
        .unwrap() else {
            panic!("not s3")
        };
        assert_eq!(s3.bucket, "evacdoc");
        assert_eq!(s3.endpoint.as_str(), "http://10.0.0.5:7480/");
        assert_eq!(s3.region, "eu-west-1");
        assert_eq!(s3.access_key, "AKID");
        let BlobUrl::Swift(swift) =
            BlobUrl::parse_with("swift://evacdoc?cloud=prod", keys).unwrap()
        else {
            panic!("not swift")
        };
        assert_eq!(swift.container, "evacdoc");
        assert!(matches!(swift.auth, SwiftAuth::Cloud { ref cloud, .. } if cloud == "prod"));
    }

    #[test]
    fn what_is_missing_is_named() {
        for (url, expected) in [
            ("/srv/b", "relative URL"),
            ("file://relative", "not an absolute"),
            ("s3://b", "no endpoint"),
            ("s3://b?endpoint=https://h:1", "must be http://"),
            ("swift://c", "no cloud"),
            ("ftp://x", "unknown scheme"),
        ] {
            let error = BlobUrl::parse_with(url, keys).unwrap_err().to_string();
            assert!(error.contains(expected), "{url}: {error}");
        }
        let error = BlobUrl::parse_with("s3://b?endpoint=http://h:1", |_| None)
            .unwrap_err()
            .to_string();
        assert!(error.contains("AWS_ACCESS_KEY_ID"), "{error}");
    }

    use super::super::swift_auth::SwiftAuth;
}
