//! A [`Cloud`] that tells an [`Observer`] of every API call it makes, before and after:
//! what a live view of a run (the service's progress stream) shows step by step. The
//! calls go through unchanged.

use std::future::Future;
use std::sync::Arc;

use serde::Serialize;

use super::apply::Observer;
use super::cloud::{
    Cloud, CloudError, CloudVersions, ComputeService, Migration, NovaService, Server, Volume,
    VolumeAttachment,
};

/// One API call, as the plan's steps name them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Call {
    /// `GET`, `PUT`, `POST`, `DELETE`.
    pub method: &'static str,
    pub path: String,
    /// What it does: `read service`, `lock`, `evacuate`...
    pub what: &'static str,
    /// The instance it is for, when it is a move's call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
}

impl Call {
    fn new(method: &'static str, path: String, what: &'static str) -> Call {
        Call {
            method,
            path,
            what,
            instance: None,
        }
    }

    fn of(mut self, instance: &str) -> Call {
        self.instance = Some(instance.to_owned());
        self
    }
}

/// `inner`, with every call reported to `observer`.
#[derive(Clone)]
pub struct ObservedCloud<C> {
    inner: C,
    observer: Arc<dyn Observer>,
}

impl<C> std::fmt::Debug for ObservedCloud<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObservedCloud").finish_non_exhaustive()
    }
}

impl<C: Cloud> ObservedCloud<C> {
    pub fn new(inner: C, observer: Arc<dyn Observer>) -> ObservedCloud<C> {
        ObservedCloud { inner, observer }
    }

    async fn call<T>(
        &self,
        call: Call,
        run: impl Future<Output = Result<T, CloudError>>,
    ) -> Result<T, CloudError> {
        self.observer.call_started(&call);
        let answer = run.await;
        let error = answer.as_ref().err().map(ToString::to_string);
        self.observer.call_ended(&call, error.as_deref());
        answer
    }
}

impl<C: Cloud> Cloud for ObservedCloud<C> {
    fn versions(&self) -> CloudVersions {
        self.inner.versions()
    }

    fn compute_service(
        &self,
        host: &str,
    ) -> impl Future<Output = Result<Option<ComputeService>, CloudError>> + Send {
        let call = Call::new(
            "GET",
            format!("/os-services?binary=nova-compute&host={host}"),
            "read service",
        );
        self.call(call, self.inner.compute_service(host))
    }

    fn services(&self) -> impl Future<Output = Result<Vec<NovaService>, CloudError>> + Send {
        let call = Call::new("GET", "/os-services".to_owned(), "read services");
        self.call(call, self.inner.services())
    }

    fn enable(
        &self,
        service: &ComputeService,
    ) -> impl Future<Output = Result<ComputeService, CloudError>> + Send {
        let call = Call::new("PUT", format!("/os-services/{}", service.id), "enable");
        self.call(call, self.inner.enable(service))
    }

    fn force_down(
        &self,
        service: &ComputeService,
        forced_down: bool,
    ) -> impl Future<Output = Result<ComputeService, CloudError>> + Send {
        let call = Call::new("PUT", format!("/os-services/{}", service.id), "force down");
        self.call(call, self.inner.force_down(service, forced_down))
    }

    fn disable(
        &self,
        service: &ComputeService,
        reason: &str,
    ) -> impl Future<Output = Result<ComputeService, CloudError>> + Send {
        let call = Call::new("PUT", format!("/os-services/{}", service.id), "disable");
        self.call(call, self.inner.disable(service, reason))
    }

    fn done_evacuations(
        &self,
        host: &str,
    ) -> impl Future<Output = Result<Vec<Migration>, CloudError>> + Send {
        let call = Call::new(
            "GET",
            format!("/os-migrations?source_compute={host}&migration_type=evacuation&status=done"),
            "list evacuations",
        );
        self.call(call, self.inner.done_evacuations(host))
    }

    fn servers_on_host(
        &self,
        host: &str,
    ) -> impl Future<Output = Result<Vec<Server>, CloudError>> + Send {
        let call = Call::new(
            "GET",
            format!("/servers/detail?all_tenants=1&host={host}"),
            "list servers",
        );
        self.call(call, self.inner.servers_on_host(host))
    }

    fn server(&self, id: &str) -> impl Future<Output = Result<Server, CloudError>> + Send {
        let call = Call::new("GET", format!("/servers/{id}"), "read server").of(id);
        self.call(call, self.inner.server(id))
    }

    fn lock(&self, id: &str, reason: &str) -> impl Future<Output = Result<(), CloudError>> + Send {
        let call = Call::new("POST", format!("/servers/{id}/action"), "lock").of(id);
        self.call(call, self.inner.lock(id, reason))
    }

    fn unlock(&self, id: &str) -> impl Future<Output = Result<(), CloudError>> + Send {
        let call = Call::new("POST", format!("/servers/{id}/action"), "unlock").of(id);
        self.call(call, self.inner.unlock(id))
    }

    fn evacuate(&self, id: &str) -> impl Future<Output = Result<(), CloudError>> + Send {
        let call = Call::new("POST", format!("/servers/{id}/action"), "evacuate").of(id);
        self.call(call, self.inner.evacuate(id))
    }

    fn volume(&self, id: &str) -> impl Future<Output = Result<Volume, CloudError>> + Send {
        let call = Call::new("GET", format!("/volumes/{id}"), "read volume");
        self.call(call, self.inner.volume(id))
    }

    fn clear_attachment(
        &self,
        volume: &Volume,
        attachment: &VolumeAttachment,
    ) -> impl Future<Output = Result<(), CloudError>> + Send {
        let call = Call::new(
            "DELETE",
            format!("/attachments/{}", attachment.attachment_id),
            "clear attachment",
        )
        .of(&attachment.server_id);
        self.call(call, self.inner.clear_attachment(volume, attachment))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::time::Duration;

    use super::*;
    use crate::recovery::test_cloud::{State, TestCloud, server, service};
    use crate::recovery::{RecoveryOptions, RetryPolicy, apply, plan};
    use crate::store::SqliteStore;

    /// A call as it was told: `started` or `ended`, method, what, error.
    type Told = (&'static str, &'static str, &'static str, Option<String>);

    #[derive(Default)]
    struct Recorder(Mutex<Vec<Told>>);

    impl Observer for Recorder {
        fn call_started(&self, call: &Call) {
            let mut seen = self.0.lock().unwrap();
            seen.push(("started", call.method, call.what, None));
        }

        fn call_ended(&self, call: &Call, error: Option<&str>) {
            let mut seen = self.0.lock().unwrap();
            seen.push(("ended", call.method, call.what, error.map(str::to_owned)));
        }
    }

    #[tokio::test]
    async fn every_call_of_a_run_is_told_before_and_after_with_its_error() {
        const WEB: &str = "56ce6206-3659-495e-a6ea-f4d3d578cc96";
        let inner = TestCloud::new(State {
            service: Some(service(false)),
            servers: vec![server(WEB, "web-1", true, &[])],
            failures: [("evacuate".to_owned(), vec![503])].into(),
            ..State::default()
        });
        let recorder = Arc::new(Recorder::default());
        let cloud = ObservedCloud::new(inner, recorder.clone());
        let options = RecoveryOptions {
            poll_interval: Duration::from_millis(5),
            rebuild_timeout: Duration::from_millis(200),
            retry: RetryPolicy {
                attempts: 3,
                conflict_attempts: 3,
                base_delay: Duration::from_millis(1),
                max_delay: Duration::from_millis(2),
            },
            ..RecoveryOptions::default()
        };
        let root = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(root.path()).unwrap();
        let planned = plan(&cloud, "compute-1", &options).await.unwrap();
        let row = apply(
            &cloud,
            &store,
            &planned,
            &options,
            "test",
            recorder.as_ref(),
        )
        .await
        .unwrap();
        assert_eq!(row.status, crate::store::RecoveryStatus::Finished);
        let seen = recorder.0.lock().unwrap().clone();
        // One start and one end per call the cloud saw, in pairs.
        assert_eq!(seen.len(), 2 * cloud.inner.calls().len(), "{seen:?}");
        assert!(
            seen.chunks(2).all(|pair| pair[0].0 == "started"
                && pair[1].0 == "ended"
                && pair[0].2 == pair[1].2)
        );
        let evacuations: Vec<_> = seen
            .iter()
            .filter(|(when, _, what, _)| *when == "ended" && *what == "evacuate")
            .collect();
        assert_eq!(evacuations.len(), 2, "the 503, then the retry: {seen:?}");
        assert!(
            evacuations[0]
                .3
                .as_deref()
                .is_some_and(|e| e.contains("503"))
        );
        assert_eq!(evacuations[1].3, None);
        assert!(
            seen.iter()
                .any(|(_, method, what, _)| *method == "POST" && *what == "lock")
        );
    }
}
