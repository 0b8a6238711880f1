//! API microversions (`2.53`, `3.27`) and the request headers that ask for them.

use std::fmt;

use axum::http::HeaderMap;

/// A microversion: major and minor, ordered numerically (`2.9 < 2.53`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Microversion {
    pub major: u16,
    pub minor: u16,
}

impl Microversion {
    pub const fn new(major: u16, minor: u16) -> Self {
        Microversion { major, minor }
    }

    /// `2.53` → 2.53; anything else → `None`.
    pub fn parse(text: &str) -> Option<Microversion> {
        let (major, minor) = text.trim().split_once('.')?;
        Some(Microversion {
            major: major.parse().ok()?,
            minor: minor.parse().ok()?,
        })
    }
}

impl fmt::Display for Microversion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// What a request asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Requested {
    /// No header: the minimum.
    Default,
    /// `latest`: the maximum.
    Latest,
    Exact(Microversion),
    /// A header that is not a version.
    Invalid,
}

/// The version a request asks of `service` (`compute`, `volume`): the
/// `OpenStack-API-Version: <service> X.Y` header, or the legacy one
/// (`X-OpenStack-Nova-API-Version`, `X-OpenStack-Volume-API-Version`).
pub fn requested(headers: &HeaderMap, service: &str, legacy: &str) -> Requested {
    let value = headers
        .get_all("openstack-api-version")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .find_map(|part| {
            let mut words = part.split_whitespace();
            (words.next()?.eq_ignore_ascii_case(service))
                .then(|| words.next().unwrap_or("").to_string())
        })
        .or_else(|| {
            headers
                .get(legacy)
                .and_then(|v| v.to_str().ok())
                .map(|v| v.trim().to_string())
        });
    match value {
        None => Requested::Default,
        Some(v) if v.eq_ignore_ascii_case("latest") => Requested::Latest,
        Some(v) => Microversion::parse(&v).map_or(Requested::Invalid, Requested::Exact),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_order_numerically() {
        assert!(Microversion::parse("2.9").unwrap() < Microversion::parse("2.53").unwrap());
        assert_eq!(Microversion::parse("2.x"), None);
    }

    #[test]
    fn both_headers_are_read() {
        let mut h = HeaderMap::new();
        h.insert("openstack-api-version", "compute 2.53".parse().unwrap());
        assert_eq!(
            requested(&h, "compute", "x-openstack-nova-api-version"),
            Requested::Exact(Microversion::new(2, 53))
        );
        let mut h = HeaderMap::new();
        h.insert("x-openstack-nova-api-version", "latest".parse().unwrap());
        assert_eq!(
            requested(&h, "compute", "x-openstack-nova-api-version"),
            Requested::Latest
        );
        assert_eq!(
            requested(&HeaderMap::new(), "volume", "x"),
            Requested::Default
        );
    }
}
