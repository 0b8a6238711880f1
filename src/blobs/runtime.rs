//! The runtime a remote backend's requests run on: two threads of its own, so that
//! blocking callers on any thread (inside another runtime's blocking pool or not) wait on
//! a plain channel, and pooled connections never outlive the runtime that made them.

use std::future::Future;

use super::error::BlobError;

#[derive(Debug)]
pub(crate) struct Background {
    runtime: Option<tokio::runtime::Runtime>,
}

impl Background {
    pub(crate) fn new(name: &str) -> Result<Background, BlobError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name(format!("blobs-{name}"))
            .enable_all()
            .build()
            .map_err(|e| BlobError::io("the blob store's runtime", e))?;
        Ok(Background {
            runtime: Some(runtime),
        })
    }

    /// Runs `work` on the backend's runtime and waits for it.
    pub(crate) fn wait<T: Send + 'static>(
        &self,
        work: impl Future<Output = Result<T, BlobError>> + Send + 'static,
    ) -> Result<T, BlobError> {
        let Some(runtime) = &self.runtime else {
            return Err(BlobError::Config("the blob store is stopped".into()));
        };
        let (send, receive) = std::sync::mpsc::sync_channel(1);
        runtime.spawn(async move {
            let _ = send.send(work.await);
        });
        receive
            .recv()
            .map_err(|_| BlobError::Config("a blob request was dropped".into()))?
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        // Dropping a runtime inside another's async context panics; not waiting does not.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}
