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

/// A token is renewed when it has less than this left (or less than half its life, when
/// that is shorter: see [`renew_at`]).
const RENEW_BEFORE: Duration = Duration::from_secs(300);

/// When a token valid from `issued_at` to `expires_at` (Unix seconds) is renewed: five
/// minutes before it expires, or half-way through its life when that is shorter. With
/// Keystone's `[token] expiration` at 300 s or less, a token renewed five minutes before
/// expiry would be renewed before every request, each one a Keystone sign-in.
fn renew_at(issued_at: Option<i64>, expires_at: i64) -> i64 {
    let most = RENEW_BEFORE.as_secs() as i64;
    let before = issued_at.map_or(most, |issued| {
        (expires_at.saturating_sub(issued) / 2).clamp(0, most)
    });
    expires_at.saturating_sub(before)
}

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
    /// From then on (Unix seconds) the token is renewed before use ([`renew_at`]).
    pub renew_at: i64,
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
        now_unix() >= self.renew_at
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
                let (token, issued_at, expires_at) = api.token_secret();
                let stale = refused == Some(token.as_str())
                    || now_unix() >= renew_at(issued_at, expires_at);
                if stale {
                    api.renew_token(&token).await.map_err(|e| BlobError::Auth {
                        store: "keystone".into(),
                        message: e.to_string(),
                    })?;
                }
                let (token, issued_at, expires_at) = api.token_secret();
                let endpoint =
                    api.endpoint(&ServiceType::ObjectStore, None)
                        .map_err(|e| BlobError::Auth {
                            store: "keystone".into(),
                            message: format!("no object-store endpoint in the catalog: {e}"),
                        })?;
                Ok(Signed {
                    token,
                    storage_url: endpoint.url().as_str().trim_end_matches('/').to_owned(),
                    renew_at: renew_at(issued_at, expires_at),
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
    let issued_at = now_unix();
    let expires_at = issued_at.saturating_add(lifetime);
    Ok(Signed {
        token,
        storage_url: storage_url.trim_end_matches('/').to_owned(),
        renew_at: renew_at(Some(issued_at), expires_at),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A token Keystone issued `age` seconds ago, for `lifetime` seconds (Keystone's
    /// `[token] expiration`).
    fn signed(age: i64, lifetime: i64) -> Signed {
        let issued_at = now_unix() - age;
        let expires_at = issued_at + lifetime;
        Signed {
            token: "t".into(),
            storage_url: "http://127.0.0.1:8080/v1/AUTH_test".into(),
            renew_at: renew_at(Some(issued_at), expires_at),
        }
    }

    #[test]
    fn a_token_is_renewed_in_its_last_five_minutes() {
        // Keystone's default lifetime, an hour.
        assert!(!signed(0, 3_600).expiring());
        assert!(!signed(3_600 - 310, 3_600).expiring());
        assert!(signed(3_600 - 290, 3_600).expiring());
        assert!(signed(3_610, 3_600).expiring());
        assert_eq!(renew_at(Some(1_000), 4_600), 4_300);
        // Keystone gave no issue time: five minutes before expiry.
        assert_eq!(renew_at(None, 4_600), 4_300);
    }

    #[test]
    fn a_token_shorter_than_ten_minutes_is_renewed_half_way() {
        // `[token] expiration = 240`: five minutes before expiry is before the token was
        // issued, which renewed it (a Keystone sign-in) before every request.
        assert!(!signed(0, 240).expiring());
        assert!(!signed(110, 240).expiring());
        assert!(signed(130, 240).expiring());
        assert_eq!(renew_at(Some(1_000), 1_240), 1_120);
        assert_eq!(renew_at(Some(1_000), 1_600), 1_300);
        // Issued already expired (clocks apart): renewed at once, no overflow.
        assert_eq!(renew_at(Some(2_000), 1_000), 1_000);
        assert_eq!(renew_at(Some(i64::MIN), i64::MAX), i64::MAX - 300);
    }
}
