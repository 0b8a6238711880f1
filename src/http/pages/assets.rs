//! The UI's static assets, embedded in the binary and served under `/static/`. Pages link
//! them with `?v=<version>` (a hash of their contents), so they can be cached for good.

use std::sync::LazyLock;

use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

/// An embedded file: its name, content type and bytes.
struct Asset {
    name: &'static str,
    content_type: &'static str,
    bytes: &'static [u8],
}

const ASSETS: &[Asset] = &[
    Asset {
        name: "app.css",
        content_type: "text/css; charset=utf-8",
        bytes: include_bytes!("../../../web/static/app.css"),
    },
    Asset {
        name: "app.js",
        content_type: "text/javascript; charset=utf-8",
        bytes: include_bytes!("../../../web/static/app.js"),
    },
    Asset {
        name: "live.js",
        content_type: "text/javascript; charset=utf-8",
        bytes: include_bytes!("../../../web/static/live.js"),
    },
    Asset {
        name: "copy.js",
        content_type: "text/javascript; charset=utf-8",
        bytes: include_bytes!("../../../web/static/copy.js"),
    },
    Asset {
        name: "brush.js",
        content_type: "text/javascript; charset=utf-8",
        bytes: include_bytes!("../../../web/static/brush.js"),
    },
    Asset {
        name: "favicon.svg",
        content_type: "image/svg+xml",
        bytes: include_bytes!("../../../web/static/favicon.svg"),
    },
];

/// The first 12 hex digits of the SHA-256 of all assets.
static VERSION: LazyLock<String> = LazyLock::new(|| {
    let mut hasher = Sha256::new();
    for asset in ASSETS {
        hasher.update(asset.name.as_bytes());
        hasher.update(asset.bytes);
    }
    hex::encode(hasher.finalize()).chars().take(12).collect()
});

/// The assets' version, for their URLs.
pub fn version() -> &'static str {
    VERSION.as_str()
}

/// `GET /static/{name}`.
pub async fn asset(Path(name): Path<String>) -> Response {
    let Some(asset) = ASSETS.iter().find(|a| a.name == name) else {
        return (StatusCode::NOT_FOUND, "no such asset\n").into_response();
    };
    let mut response = asset.bytes.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(asset.content_type),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=31536000, immutable"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn assets_are_served_with_their_type_and_cached() {
        let css = asset(Path("app.css".to_string())).await;
        assert_eq!(css.status(), StatusCode::OK);
        assert_eq!(
            css.headers()[header::CONTENT_TYPE],
            "text/css; charset=utf-8"
        );
        assert!(
            css.headers()[header::CACHE_CONTROL]
                .to_str()
                .unwrap()
                .contains("max-age")
        );
        let js = asset(Path("app.js".to_string())).await;
        assert_eq!(
            js.headers()[header::CONTENT_TYPE],
            "text/javascript; charset=utf-8"
        );
        let missing = asset(Path("../Cargo.toml".to_string())).await;
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
        assert_eq!(version().len(), 12);
    }
}
