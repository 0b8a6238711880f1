//! The executor's [`Cloud`](crate::openstack::cloud::Cloud) on a real OpenStack, through `openstack_sdk`: the cloud found
//! as the `openstack` CLI finds it (`connect`), Keystone auth by password or application
//! credential (`session`), microversions chosen from what the cloud announces
//! (`versions`), Nova and Cinder calls (`compute`, `volume`) with errors that name the
//! call (`call`), all over one HTTP client that follows no redirect (`transport`).
//!
//! Its own module, below both users: the recovery executor and the Swift blob store
//! (which signs in with the same clouds.yaml lookup and Keystone session). `cloud` is the
//! executor's view of a cloud, the trait this client implements.

pub mod call;
pub mod cloud;
pub mod compute;
pub mod connect;
pub mod session;
pub mod transport;
pub mod versions;
pub mod volume;

use std::collections::BTreeMap;
use std::time::Duration;

use openstack_sdk::types::ServiceType;

pub use connect::{ConnectOptions, ResolvedCloud};

use self::call::error_chain;
use self::session::Api;
use crate::openstack::cloud::{
    Cloud, CloudError, CloudVersions, ComputeService, Migration, NovaService, Server, Volume,
    VolumeAttachment,
};

/// How long one request may take before it counts as a connection failure.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// A signed-in session on one cloud.
#[derive(Debug, Clone)]
pub struct OpenStack {
    session: Api,
    versions: CloudVersions,
    source: String,
}

impl OpenStack {
    /// Finds the cloud (`options`, then `OS_CLOUD`, then `OS_*`), signs in to Keystone and
    /// reads Nova's and Cinder's microversion ranges.
    pub async fn connect(options: ConnectOptions) -> Result<OpenStack, CloudError> {
        Self::connect_with_env(&options, &connect::process_env()).await
    }

    /// [`OpenStack::connect`] with the environment given as a map.
    pub async fn connect_with_env(
        options: &ConnectOptions,
        env: &BTreeMap<String, String>,
    ) -> Result<OpenStack, CloudError> {
        let resolved = connect::resolve(options, env)?;
        // Nothing is cached on disk (no `~/.osc` token or discovery cache): a recovery tool
        // must not act on a stale catalog, and tokens should not outlive the command.
        let session = Api::sign_in(&resolved.config, REQUEST_TIMEOUT)
            .await
            .map_err(|e| match e {
                CloudError::Config(message) => {
                    CloudError::Config(format!("{}: {message}", resolved.source))
                }
                other => other,
            })?;
        let compute_max = discovered_version(&session, ServiceType::Compute).await?;
        // A cloud without Cinder: volume calls fail when made, host recovery of
        // image-backed servers still works. A redirect is refused all the same.
        let volume_max = match discovered_version(&session, ServiceType::BlockStorage).await {
            Err(e @ CloudError::Redirect { .. }) => return Err(e),
            found => found.unwrap_or((3, 0)),
        };
        Ok(OpenStack {
            session,
            versions: CloudVersions {
                compute_max,
                volume_max,
            },
            source: resolved.source,
        })
    }

    /// The `X-OpenStack-Request-ID` all calls of this session carry (Nova and Cinder log
    /// it as the global request id).
    pub fn global_request_id(&self) -> &str {
        &self.session.global_request_id
    }

    /// Where the configuration came from: `cloud 'prod' of /etc/openstack/clouds.yaml`.
    pub fn source(&self) -> &str {
        &self.source
    }
}

/// The version document's `version` of `service` (its maximum microversion).
async fn discovered_version(session: &Api, service: ServiceType) -> Result<(u32, u32), CloudError> {
    session.discover(&service).await?;
    let endpoint = session
        .endpoint(&service, None)
        .map_err(|e| CloudError::Unexpected {
            method: "GET".into(),
            path: format!("{service} endpoint"),
            message: error_chain(&e),
        })?;
    let version = endpoint.version();
    Ok((u32::from(version.major), u32::from(version.minor)))
}

impl Cloud for OpenStack {
    fn versions(&self) -> CloudVersions {
        self.versions
    }

    async fn compute_service(&self, host: &str) -> Result<Option<ComputeService>, CloudError> {
        compute::compute_service(&self.session, self.versions.compute_max, host).await
    }

    async fn services(&self) -> Result<Vec<NovaService>, CloudError> {
        compute::services(&self.session, self.versions.compute_max).await
    }

    async fn enable(&self, service: &ComputeService) -> Result<ComputeService, CloudError> {
        compute::enable(&self.session, self.versions.compute_max, service).await
    }

    async fn force_down(
        &self,
        service: &ComputeService,
        forced_down: bool,
    ) -> Result<ComputeService, CloudError> {
        compute::force_down(
            &self.session,
            self.versions.compute_max,
            service,
            forced_down,
        )
        .await
    }

    async fn disable(
        &self,
        service: &ComputeService,
        reason: &str,
    ) -> Result<ComputeService, CloudError> {
        compute::disable(&self.session, self.versions.compute_max, service, reason).await
    }

    async fn done_evacuations(&self, host: &str) -> Result<Vec<Migration>, CloudError> {
        compute::done_evacuations(&self.session, self.versions.compute_max, host).await
    }

    async fn servers_on_host(&self, host: &str) -> Result<Vec<Server>, CloudError> {
        compute::servers_on_host(&self.session, self.versions.compute_max, host).await
    }

    async fn server(&self, id: &str) -> Result<Server, CloudError> {
        compute::get_server(&self.session, self.versions.compute_max, id).await
    }

    async fn lock(&self, id: &str, reason: &str) -> Result<(), CloudError> {
        compute::lock(&self.session, self.versions.compute_max, id, reason).await
    }

    async fn unlock(&self, id: &str) -> Result<(), CloudError> {
        compute::unlock(&self.session, id).await
    }

    async fn evacuate(&self, id: &str) -> Result<(), CloudError> {
        compute::evacuate(&self.session, self.versions.compute_max, id).await
    }

    async fn volume(&self, id: &str) -> Result<Volume, CloudError> {
        volume::get_volume(&self.session, self.versions.volume_max, id).await
    }

    async fn clear_attachment(
        &self,
        volume: &Volume,
        attachment: &VolumeAttachment,
    ) -> Result<(), CloudError> {
        volume::clear_attachment(&self.session, self.versions.volume_max, volume, attachment).await
    }
}
