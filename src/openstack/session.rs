//! The executor's signed-in session on one cloud, built from `openstack_sdk`'s parts (its
//! service catalog and version-document parser, its Keystone auth plugins, its request
//! builders) around the HTTP client of [`transport`], which follows no redirect. Every
//! request goes through that client: version discovery, the sign-in (and a new one after
//! a 401), every Nova and Cinder call. `openstack_sdk`'s own session (`AsyncOpenStack`)
//! is not used: it builds its reqwest client with reqwest's default policy (up to ten
//! redirects, to any host) and offers no way to change it.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::AsyncReadExt;
use http::request::Builder;
use http::{HeaderMap, HeaderValue, Method, Response, Uri};
use openstack_sdk::api::{ApiError, AsyncClient, RestClient};
use openstack_sdk::auth::auth_helper::Noop;
use openstack_sdk::auth::authtoken::{AuthToken, AuthTokenScope};
use openstack_sdk::auth::{Auth, AuthError};
use openstack_sdk::config::CloudConfig;
use openstack_sdk::types::{ApiVersion, BoxedAsyncRead, ServiceType};
use openstack_sdk_auth_core::OpenStackAuthType;
use openstack_sdk_auth_core::types::Project;
use openstack_sdk_core::catalog::{Catalog, ServiceEndpoint};
use secrecy::ExposeSecret;
use url::Url;

use super::call::error_chain;
use super::transport::{self, RefusedRedirect};
use crate::openstack::cloud::CloudError;

/// How a request failed before an answer (the `RestClient` error of [`Api`]).
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    /// No answer: refused, reset, timed out, or a redirect refused (see
    /// [`transport::refused`]).
    #[error("{0}")]
    Send(#[from] reqwest::Error),
    /// The request could not be put together.
    #[error("could not build the request: {0}")]
    Build(String),
    /// A 401, and signing in again failed.
    #[error("signing in again after a 401: {0}")]
    SignIn(Box<CloudError>),
}

/// What signing in takes, kept to sign in again when a token is refused.
struct Credentials {
    plugin: &'static dyn OpenStackAuthType,
    values: HashMap<String, secrecy::SecretString>,
    scope: AuthTokenScope,
    hints: Option<serde_json::Value>,
    /// Keystone's v3 endpoint, as discovered.
    identity: Url,
}

struct Inner {
    http: reqwest::Client,
    config: CloudConfig,
    catalog: RwLock<Catalog>,
    credentials: Credentials,
    token: RwLock<AuthToken>,
    /// One new sign-in at a time when several calls meet a 401 together.
    renewing: tokio::sync::Mutex<()>,
}

/// A signed-in session and the global request id every call carries, so the clouds'
/// logs (and `evacdoc analyze` of them) tie the calls of one recovery together.
#[derive(Clone)]
pub struct Api {
    inner: Arc<Inner>,
    /// `req-<uuid>`, sent as `X-OpenStack-Request-ID`.
    pub global_request_id: String,
}

impl fmt::Debug for Api {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Api")
            .field("identity", &self.inner.credentials.identity.as_str())
            .field("global_request_id", &self.global_request_id)
            .finish_non_exhaustive()
    }
}

/// The auth plugin of the configuration's `auth_type` (as `connect` normalised it).
fn plugin(config: &CloudConfig) -> Result<&'static dyn OpenStackAuthType, CloudError> {
    match config.auth_type.as_deref() {
        None | Some("v3password") => Ok(&openstack_sdk_auth_password::ANCHOR),
        Some("v3applicationcredential") => Ok(&openstack_sdk_auth_applicationcredential::ANCHOR),
        Some("v3token") => Ok(&openstack_sdk_auth_token::ANCHOR),
        Some(other) => Err(CloudError::Config(format!(
            "auth_type '{other}' is not supported"
        ))),
    }
}

/// A refused redirect as the error of `method url`.
fn redirect_error(method: &str, refused: &RefusedRedirect) -> CloudError {
    let path = Url::parse(&refused.from).map_or_else(|_| refused.from.clone(), |u| u.path().into());
    CloudError::Redirect {
        method: method.into(),
        path,
        status: refused.status,
        location: refused.location.clone(),
    }
}

impl Api {
    /// Discovers Keystone at the configuration's `auth_url`, signs in with its
    /// credentials and reads the catalog of the token.
    pub async fn sign_in(config: &CloudConfig, timeout: Duration) -> Result<Api, CloudError> {
        let auth_url = config
            .auth
            .as_ref()
            .and_then(|a| a.auth_url.clone())
            .ok_or_else(|| CloudError::Config("no auth_url".into()))?;
        let keystone =
            |message: String| CloudError::Auth(format!("keystone at {auth_url}: {message}"));
        let http = transport::client(config, timeout)?;
        let mut catalog = Catalog::default();
        catalog
            .register_catalog_endpoint(
                "identity",
                &auth_url,
                config.region_name.as_ref(),
                Some("public"),
            )
            .and_then(|c| c.configure(config))
            .map_err(|e| CloudError::Config(format!("auth_url {auth_url}: {e}")))?;
        discover(&http, &mut catalog, config, &ServiceType::Identity, None)
            .await
            .map_err(|e| match e {
                e @ CloudError::Redirect { .. } => e,
                other => keystone(other.to_string()),
            })?;

        let plugin = plugin(config)?;
        let hints = config
            .auth_methods
            .as_ref()
            .map(|methods| serde_json::json!({ "auth_methods": methods }));
        let config_error = |e: &dyn std::error::Error| CloudError::Config(error_chain(e));
        let requirements = plugin
            .requirements(hints.as_ref())
            .map_err(|e| config_error(&e))?;
        let values =
            openstack_sdk_core::auth::gather_auth_data(&requirements, config, &Noop::default())
                .await
                .map_err(|e| config_error(&e))?;
        let scope = AuthTokenScope::try_from(config).map_err(|e| config_error(&e))?;
        let identity = catalog
            .get_service_endpoint(
                "identity",
                Some(&ApiVersion::from(plugin.api_version())),
                config.region_name.as_ref(),
                config.interface.as_ref(),
            )
            .map_err(|e| keystone(error_chain(&e)))?
            .url()
            .clone();
        let credentials = Credentials {
            plugin,
            values,
            scope,
            hints,
            identity,
        };
        let token = credentials.token(&http).await?;
        let info = token.auth_info.as_ref().map(|a| &a.token);
        let Some(endpoints) = info.and_then(|t| t.catalog.as_ref()) else {
            return Err(keystone("the token has no service catalog".into()));
        };
        catalog
            .set_project_id(info.and_then(|t| t.project.as_ref()?.id.clone()))
            .configure(config)
            .and_then(|c| c.process_catalog_endpoints(endpoints))
            .map_err(|e| keystone(format!("service catalog: {}", error_chain(&e))))?;
        Ok(Api {
            inner: Arc::new(Inner {
                http,
                config: config.clone(),
                catalog: RwLock::new(catalog),
                credentials,
                token: RwLock::new(token),
                renewing: tokio::sync::Mutex::new(()),
            }),
            global_request_id: format!("req-{}", uuid::Uuid::new_v4()),
        })
    }

    /// Reads the version document of `service` into the catalog (nothing when the
    /// catalog has no such service).
    pub async fn discover(&self, service: &ServiceType) -> Result<(), CloudError> {
        let token = self.token();
        let mut catalog = self.catalog().clone();
        discover(
            &self.inner.http,
            &mut catalog,
            &self.inner.config,
            service,
            Some(&token),
        )
        .await?;
        *self
            .inner
            .catalog
            .write()
            .unwrap_or_else(|e| e.into_inner()) = catalog;
        Ok(())
    }

    /// The endpoint of `service` for `version` (any when `None`).
    pub fn endpoint(
        &self,
        service: &ServiceType,
        version: Option<&ApiVersion>,
    ) -> Result<ServiceEndpoint, openstack_sdk_core::catalog::CatalogError> {
        let config = &self.inner.config;
        self.catalog()
            .get_service_endpoint(
                service.to_string(),
                version,
                config.region_name.as_ref(),
                config.interface.as_ref(),
            )
            .cloned()
    }

    fn catalog(&self) -> std::sync::RwLockReadGuard<'_, Catalog> {
        self.inner.catalog.read().unwrap_or_else(|e| e.into_inner())
    }

    fn token(&self) -> AuthToken {
        self.inner
            .token
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The token's secret, when Keystone issued it (when it says) and when it expires
    /// (Unix seconds), for a client that sends it itself (the Swift blob store).
    pub fn token_secret(&self) -> (String, Option<i64>, i64) {
        let token = self.token();
        let info = token.auth_info.as_ref().map(|a| &a.token);
        let issued = info.and_then(|t| t.issued_at).map(|t| t.timestamp());
        let expires = info.map_or(i64::MAX, |t| t.expires_at.timestamp());
        (token.token.expose_secret().to_owned(), issued, expires)
    }

    /// Signs in again unless the token is no longer `seen` (another call renewed it).
    pub async fn renew_token(&self, seen: &str) -> Result<(), CloudError> {
        let current = self.token();
        if current.token.expose_secret() != seen {
            return Ok(());
        }
        self.renew(&current).await
    }

    /// Signs in again unless another call did since `refused` was sent.
    async fn renew(&self, refused: &AuthToken) -> Result<(), CloudError> {
        let _one = self.inner.renewing.lock().await;
        if self.token().token.expose_secret() != refused.token.expose_secret() {
            return Ok(());
        }
        let token = self.inner.credentials.token(&self.inner.http).await?;
        *self.inner.token.write().unwrap_or_else(|e| e.into_inner()) = token;
        Ok(())
    }

    /// Sends one request with the session's token; the answer whatever its status.
    async fn execute(
        &self,
        method: &Method,
        uri: &Uri,
        headers: &HeaderMap,
        body: &[u8],
        token: &AuthToken,
    ) -> Result<Response<Bytes>, ApiError<TransportError>> {
        let mut headers = headers.clone();
        token
            .set_header(&mut headers)
            .map_err(|e| ApiError::client(TransportError::Build(e.to_string())))?;
        let answer = self
            .inner
            .http
            .request(method.clone(), uri.to_string())
            .headers(headers)
            .body(body.to_vec())
            .send()
            .await
            .map_err(|e| ApiError::client(TransportError::Send(e)))?;
        let mut response = Response::builder()
            .status(answer.status())
            .version(answer.version());
        if let Some(out) = response.headers_mut() {
            out.extend(answer.headers().clone());
        }
        let bytes = answer
            .bytes()
            .await
            .map_err(|e| ApiError::client(TransportError::Send(e)))?;
        response
            .body(bytes)
            .map_err(|e| ApiError::client(TransportError::Build(e.to_string())))
    }
}

impl Credentials {
    /// A new token from Keystone.
    async fn token(&self, http: &reqwest::Client) -> Result<AuthToken, CloudError> {
        let auth = self
            .plugin
            .auth(
                http,
                &self.identity,
                &self.values,
                Some(&self.scope),
                self.hints.as_ref(),
            )
            .await
            .map_err(|e| self.auth_error(&e))?;
        match auth {
            Auth::AuthToken(token) if token.auth_info.is_some() => Ok(*token),
            _ => Err(CloudError::Auth(format!(
                "keystone at {}: no token in the answer",
                self.identity
            ))),
        }
    }

    fn auth_error(&self, error: &AuthError) -> CloudError {
        match transport::refused(error) {
            Some(refused) => redirect_error("POST", refused),
            None => CloudError::Auth(format!(
                "keystone at {}: {}",
                self.identity,
                error_chain(error)
            )),
        }
    }
}

/// The version discovery of `openstack_sdk`'s session, over `http`: the version document
/// at the catalog's endpoint of `service`, else one level up, to the root.
async fn discover(
    http: &reqwest::Client,
    catalog: &mut Catalog,
    config: &CloudConfig,
    service: &ServiceType,
    token: Option<&AuthToken>,
) -> Result<(), CloudError> {
    let region = config.region_name.as_ref();
    let interface = config.interface.as_ref();
    let Ok(endpoint) = catalog.get_service_endpoint(service.to_string(), None, region, interface)
    else {
        return Ok(());
    };
    if !catalog.discovery_allowed(service.to_string()) {
        return Ok(());
    }
    let start = endpoint.url().clone();
    let unexpected = |message: String| CloudError::Unexpected {
        method: "GET".into(),
        path: format!("{service} version document"),
        message,
    };
    let mut url = start.clone();
    if let Ok(mut segments) = url.path_segments_mut() {
        segments.pop_if_empty().push("");
    }
    loop {
        let mut request = http.get(url.clone());
        if let Some(token) = token {
            let mut headers = HeaderMap::new();
            if token.set_header(&mut headers).is_ok() {
                request = request.headers(headers);
            }
        }
        request = request.header(
            http::header::ACCEPT,
            HeaderValue::from_static("application/json"),
        );
        let answer = match request.send().await {
            Ok(answer) => answer,
            Err(e) => {
                return Err(match transport::refused(&e) {
                    Some(refused) => redirect_error("GET", refused),
                    None => CloudError::Connection {
                        method: "GET".into(),
                        path: url.path().into(),
                        message: error_chain(&e),
                    },
                });
            }
        };
        let found = answer.status() != http::StatusCode::NOT_FOUND;
        let body = answer.bytes().await.unwrap_or_default();
        if found
            && catalog
                .process_endpoint_discovery(service, &url, &body, region, interface)
                .is_ok()
        {
            return Ok(());
        }
        if url.path() == "/" {
            return Err(unexpected(format!(
                "no version document at {start} or above"
            )));
        }
        if let Ok(mut segments) = url.path_segments_mut() {
            segments.pop();
        }
    }
}

#[async_trait]
impl RestClient for Api {
    type Error = TransportError;

    fn get_current_project(&self) -> Option<Project> {
        self.token().auth_info?.token.project
    }
}

#[async_trait]
impl AsyncClient for Api {
    /// Sends the request; on a 401, signs in again once and sends it again, as
    /// `openstack_sdk`'s session does.
    async fn rest_async(
        &self,
        request: Builder,
        body: Vec<u8>,
    ) -> Result<Response<Bytes>, ApiError<Self::Error>> {
        let method = request.method_ref().cloned().unwrap_or(Method::GET);
        let uri = request.uri_ref().cloned().unwrap_or_default();
        let headers = request.headers_ref().cloned().unwrap_or_default();
        let token = self.token();
        let answer = self.execute(&method, &uri, &headers, &body, &token).await?;
        if answer.status() != http::StatusCode::UNAUTHORIZED {
            return Ok(answer);
        }
        self.renew(&token)
            .await
            .map_err(|e| ApiError::client(TransportError::SignIn(Box::new(e))))?;
        self.execute(&method, &uri, &headers, &body, &self.token())
            .await
    }

    async fn rest_read_body_async(
        &self,
        request: Builder,
        mut body: BoxedAsyncRead,
    ) -> Result<Response<Bytes>, ApiError<Self::Error>> {
        let mut bytes = Vec::new();
        body.read_to_end(&mut bytes)
            .await
            .map_err(|e| ApiError::client(TransportError::Build(e.to_string())))?;
        self.rest_async(request, bytes).await
    }

    async fn download_async(
        &self,
        request: Builder,
        body: Vec<u8>,
    ) -> Result<(HeaderMap, BoxedAsyncRead), ApiError<Self::Error>> {
        let answer = self.rest_async(request, body).await?;
        let (parts, bytes) = answer.into_parts();
        let reader = futures_util::io::Cursor::new(bytes.to_vec());
        Ok((parts.headers, BoxedAsyncRead::new(reader)))
    }

    async fn get_service_endpoint(
        &self,
        service_type: &ServiceType,
        version: Option<&ApiVersion>,
    ) -> Result<ServiceEndpoint, ApiError<Self::Error>> {
        self.endpoint(service_type, version)
            .map_err(ApiError::catalog)
    }
}
