//! Signing in to Swift: a `clouds.yaml` entry found as the `openstack` CLI finds it (the
//! executor's lookup, `openstack::connect`), then either Keystone through the
//! executor's session (token and the catalog's `object-store` endpoint) or, with
//! `auth_type: v1password`, Swift's own v1 auth (tempauth: `auth_url`, `username` as
//! `account:user`, `password`). The token is renewed before it expires and after a 401.

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use openstack_sdk::types::ServiceType;
use reqwest::Client;
use secrecy::ExposeSecret;

use super::error::BlobError;
use crate::openstack::ConnectOptions;
use crate::openstack::session::Api;

/// A token is renewed when it has less than this left.
const RENEW_BEFORE: Duration = Duration::from_secs(300);

/// How a Swift store signs in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SwiftAuth {
    /// The entry `cloud` of `config_file` (else of the usual `clouds.yaml` places).
    Cloud {
        cloud: String,
        config_file: Option<PathBuf>,
    },
}

/// A token and where it is good.
#[derive(Debug, Clone)]
pub(crate) struct Signed {
    pub token: String,
    /// `http://HOST:PORT/v1/AUTH_project`, no trailing `/`.
    pub storage_url: String,
    /// Unix seconds.
    pub expires_at: i64,
}

/// What renews tokens.
#[derive(Debug)]
pub(crate) enum SignIn {
    Keystone(Api),
    V1 {
        http: Client,
        auth_url: String,
        user: String,
        key: secrecy::SecretString,
    },
}

fn now_unix() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

impl Signed {
    pub(crate) fn expiring(&self) -> bool {
        self.expires_at.saturating_sub(now_unix()) < RENEW_BEFORE.as_secs() as i64
    }
}

impl SignIn {
    /// Reads the cloud and signs in the first time.
    pub(crate) async fn start(
        auth: &SwiftAuth,
        http: &Client,
    ) -> Result<(SignIn, Signed), BlobError> {
        let SwiftAuth::Cloud { cloud, config_file } = auth;
        let failed = |message: String| BlobError::Auth {
            store: format!("cloud '{cloud}'"),
            message,
        };
        let options = ConnectOptions {
            cloud: Some(cloud.clone()),
            config_file: config_file.clone(),
        };
        let resolved = crate::openstack::connect::resolve(&options, &Default::default())
            .map_err(|e| failed(e.to_string()))?;
        let config = resolved.config;
        let sign_in = if config.auth_type.as_deref() == Some("v1password") {
            let auth = config.auth.as_ref();
            let field = |value: Option<String>, name: &str| {
                value.ok_or_else(|| failed(format!("v1password needs auth.{name}")))
            };
            SignIn::V1 {
                http: http.clone(),
                auth_url: field(auth.and_then(|a| a.auth_url.clone()), "auth_url")?,
                user: field(auth.and_then(|a| a.username.clone()), "username")?,
                key: field(
                    auth.and_then(|a| a.password.as_ref().map(|p| p.expose_secret().to_owned())),
                    "password",
                )?
                .into(),
            }
        } else {
            let api = Api::sign_in(&config, Duration::from_secs(60))
                .await
                .map_err(|e| failed(e.to_string()))?;
            SignIn::Keystone(api)
        };
        let signed = sign_in.signed(None).await?;
        Ok((sign_in, signed))
    }

    /// A token: the session's current one (renewed first when it was `refused` or is
    /// about to expire), or a new v1 token.
    pub(crate) async fn signed(&self, refused: Option<&str>) -> Result<Signed, BlobError> {
        match self {
            SignIn::Keystone(api) => {
                let (token, expires_at) = api.token_secret();
                let stale = refused == Some(token.as_str())
                    || expires_at.saturating_sub(now_unix()) < RENEW_BEFORE.as_secs() as i64;
                if stale {
                    api.renew_token(&token).await.map_err(|e| BlobError::Auth {
                        store: "keystone".into(),
                        message: e.to_string(),
                    })?;
                }
                let (token, expires_at) = api.token_secret();
                let endpoint =
                    api.endpoint(&ServiceType::ObjectStore, None)
                        .map_err(|e| BlobError::Auth {
                            store: "keystone".into(),
                            message: format!("no object-store endpoint in the catalog: {e}"),
                        })?;
                Ok(Signed {
                    token,
                    storage_url: endpoint.url().as_str().trim_end_matches('/').to_owned(),
                    expires_at,
                })
            }
            SignIn::V1 {
                http,
                auth_url,
                user,
                key,
            } => v1_sign_in(http, auth_url, user, key.expose_secret()).await,
        }
    }
}

/// Swift's v1 auth: `GET auth_url` with `X-Auth-User`/`X-Auth-Key`.
async fn v1_sign_in(
    http: &Client,
    auth_url: &str,
    user: &str,
    key: &str,
) -> Result<Signed, BlobError> {
    let failed = |message: String| BlobError::Auth {
        store: auth_url.to_owned(),
        message,
    };
    let answer = http
        .get(auth_url)
        .header("X-Auth-User", user)
        .header("X-Auth-Key", key)
        .send()
        .await
        .map_err(|e| BlobError::connection("GET", auth_url, &e))?;
    if !answer.status().is_success() {
        return Err(failed(format!("answered {}", answer.status())));
    }
    let header = |name: &str| {
        answer
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let token = header("X-Auth-Token").ok_or_else(|| failed("no X-Auth-Token".into()))?;
    let storage_url = header("X-Storage-Url").ok_or_else(|| failed("no X-Storage-Url".into()))?;
    let lifetime = header("X-Auth-Token-Expires")
        .and_then(|v| v.parse::<f64>().ok())
        .map_or(86_400, |secs| secs as i64);
    Ok(Signed {
        token,
        storage_url: storage_url.trim_end_matches('/').to_owned(),
        expires_at: now_unix().saturating_add(lifetime),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signed(left: i64) -> Signed {
        Signed {
            token: "t".into(),
            storage_url: "http://127.0.0.1:8080/v1/AUTH_test".into(),
            expires_at: now_unix() + left,
        }
    }

    #[test]
    fn a_token_is_renewed_in_its_last_five_minutes() {
        assert!(!signed(3_600).expiring());
        assert!(!signed(310).expiring());
        assert!(signed(290).expiring());
        assert!(signed(-10).expiring());
    }
}
