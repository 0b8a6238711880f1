//! Whether anyone has signed in with the service token yet: until someone has, `serve`
//! prints it at every start (a first start that failed after making it would otherwise
//! have lost it). Recorded once, in the data folder (`token.used`, the token's hash).

use std::sync::atomic::{AtomicBool, Ordering};

use crate::store::{DataPaths, mark_token_used};

/// The token's use, as known at start and since.
#[derive(Debug)]
pub struct TokenUse {
    paths: DataPaths,
    token_hash: String,
    used: AtomicBool,
}

impl TokenUse {
    pub fn new(paths: DataPaths, token_hash: String, used: bool) -> TokenUse {
        TokenUse {
            paths,
            token_hash,
            used: AtomicBool::new(used),
        }
    }

    /// Someone signed in with the token: written the first time only.
    pub async fn signed_in(&self) {
        if self.used.swap(true, Ordering::AcqRel) {
            return;
        }
        let (paths, hash) = (self.paths.clone(), self.token_hash.clone());
        match tokio::task::spawn_blocking(move || mark_token_used(&paths, &hash)).await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => tracing::warn!(%error, "cannot record that the token was used"),
            Err(error) => tracing::warn!(%error, "cannot record that the token was used"),
        }
    }
}
