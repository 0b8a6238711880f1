//! The one HTTP client of the executor's OpenStack requests. It follows no redirect: a
//! 3xx with a `Location` fails the request with [`RefusedRedirect`], naming the status and
//! where it pointed. Following one would send a Keystone request's credentials (a 307 or
//! 308 re-sends the body) or the `X-Auth-Token` header (reqwest strips `Authorization`
//! and cookies on a cross-host redirect, not this one) to a host nobody configured.

use std::error::Error;
use std::fmt;
use std::io::Read;
use std::time::Duration;

use openstack_sdk::config::CloudConfig;
use reqwest::redirect::{Attempt, Policy};
use reqwest::{Certificate, Client};

use crate::openstack::cloud::CloudError;

/// How long a connection may take to open (what `openstack_sdk`'s own client allows).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A redirect the client did not follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedRedirect {
    /// The 3xx status.
    pub status: u16,
    /// The URL that answered it.
    pub from: String,
    /// Where it pointed (its `Location`, made absolute).
    pub location: String,
}

impl fmt::Display for RefusedRedirect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} answered {} redirecting to {}, which is not followed",
            self.from, self.status, self.location
        )
    }
}

impl Error for RefusedRedirect {}

/// The redirect `error` (or one of its sources) is about, if any.
pub fn refused<'a>(error: &'a (dyn Error + 'static)) -> Option<&'a RefusedRedirect> {
    let mut current = Some(error);
    while let Some(e) = current {
        if let Some(refused) = e.downcast_ref::<RefusedRedirect>() {
            return Some(refused);
        }
        current = e.source();
    }
    None
}

fn refuse(attempt: Attempt<'_>) -> reqwest::redirect::Action {
    let refused = RefusedRedirect {
        status: attempt.status().as_u16(),
        from: attempt
            .previous()
            .last()
            .map_or_else(String::new, |u| u.to_string()),
        location: attempt.url().to_string(),
    };
    attempt.error(refused)
}

/// The client for `config`: its CA bundle and `verify` setting, `timeout` per request,
/// no redirects.
pub fn client(config: &CloudConfig, timeout: Duration) -> Result<Client, CloudError> {
    let mut builder = Client::builder()
        .redirect(Policy::custom(refuse))
        .timeout(timeout)
        .connect_timeout(CONNECT_TIMEOUT);
    if let Some(cacert) = &config.cacert {
        let path = openstack_sdk_core::utils::expand_tilde(cacert).unwrap_or_else(|| cacert.into());
        let mut pem = Vec::new();
        std::fs::File::open(&path)
            .and_then(|mut f| f.read_to_end(&mut pem))
            .map_err(|e| CloudError::Config(format!("cacert {}: {e}", path.display())))?;
        let certificates = Certificate::from_pem_bundle(&pem)
            .map_err(|e| CloudError::Config(format!("cacert {}: {e}", path.display())))?;
        for certificate in certificates {
            builder = builder.add_root_certificate(certificate);
        }
    }
    if config.verify == Some(false) {
        tracing::warn!("TLS verification is off for this cloud (verify: false)");
        builder = builder.tls_danger_accept_invalid_certs(true);
    }
    builder
        .build()
        .map_err(|e| CloudError::Config(format!("HTTP client: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_redirect_is_found_under_other_errors() {
        #[derive(Debug)]
        struct Outer(RefusedRedirect);
        impl fmt::Display for Outer {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("request failed")
            }
        }
        impl Error for Outer {
            fn source(&self) -> Option<&(dyn Error + 'static)> {
                Some(&self.0)
            }
        }
        let inner = RefusedRedirect {
            status: 307,
            from: "http://keystone:5000/v3/auth/tokens".into(),
            location: "http://elsewhere/".into(),
        };
        assert_eq!(refused(&Outer(inner.clone())), Some(&inner));
        assert_eq!(refused(&std::fmt::Error), None);
        assert_eq!(
            inner.to_string(),
            "http://keystone:5000/v3/auth/tokens answered 307 redirecting to http://elsewhere/, which is not followed"
        );
    }
}
