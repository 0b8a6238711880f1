//! Who a request comes from and how it reached us: the client's address (the peer's, or
//! the one a trusted proxy names in `X-Forwarded-For`) and whether the browser talks
//! HTTPS (`--public-url https://…`, or `X-Forwarded-Proto: https` from a trusted proxy).
//! Headers from any other peer are ignored: anyone can send them.

use std::net::{IpAddr, Ipv6Addr, SocketAddr};

use axum::extract::ConnectInfo;
use axum::http::{Extensions, HeaderMap, Request};

/// How the service is published.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientPolicy {
    /// The service is reached over HTTPS (`--public-url https://…`).
    pub public_https: bool,
    /// Proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed.
    pub trusted_proxies: Vec<IpAddr>,
}

impl ClientPolicy {
    /// The policy of a public URL (`https://…` makes cookies `Secure`) and trusted proxies.
    pub fn new(public_url: Option<&url::Url>, trusted_proxies: Vec<IpAddr>) -> ClientPolicy {
        ClientPolicy {
            public_https: public_url.is_some_and(|u| u.scheme() == "https"),
            trusted_proxies,
        }
    }

    fn trusted(&self, peer: Option<IpAddr>) -> bool {
        peer.is_some_and(|p| self.trusted_proxies.contains(&canonical(p)))
    }

    /// The client's address: the peer's, or when the peer is a trusted proxy the last
    /// address of `X-Forwarded-For` that is not itself a trusted proxy. In-process calls
    /// (no peer) are all one unspecified address.
    pub fn client_ip(&self, peer: Option<IpAddr>, headers: &HeaderMap) -> IpAddr {
        let unspecified = IpAddr::V6(Ipv6Addr::UNSPECIFIED);
        let Some(peer) = peer.map(canonical) else {
            return unspecified;
        };
        if !self.trusted(Some(peer)) {
            return peer;
        }
        // Each proxy appends the address it got the request from: read from the right.
        let forwarded = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .collect::<Vec<_>>();
        for hop in forwarded.into_iter().rev() {
            match hop.parse::<IpAddr>() {
                Ok(ip) if self.trusted(Some(ip)) => continue,
                Ok(ip) => return canonical(ip),
                // Garbage: whatever is left of it is not to be believed.
                Err(_) => break,
            }
        }
        peer
    }

    /// Whether the browser reached the service over HTTPS.
    pub fn is_https(&self, peer: Option<IpAddr>, headers: &HeaderMap) -> bool {
        if self.public_https {
            return true;
        }
        self.trusted(peer)
            && headers
                .get_all("x-forwarded-proto")
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(','))
                .next_back()
                .is_some_and(|proto| proto.trim().eq_ignore_ascii_case("https"))
    }
}

/// The peer's address of a request, when it came through the listener.
pub fn peer<B>(request: &Request<B>) -> Option<IpAddr> {
    peer_in(request.extensions())
}

/// The peer's address in a request's extensions, when it came through the listener.
pub fn peer_in(extensions: &Extensions) -> Option<IpAddr> {
    extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip())
}

/// An IPv4 address mapped into IPv6 as the IPv4 address it is.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    }
}

/// The key a client is throttled under: its IPv4 address, or its IPv6 /64 (one host
/// usually holds a whole /64, and could step through it).
pub fn throttle_key(ip: IpAddr) -> IpAddr {
    match canonical(ip) {
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(Ipv6Addr::from(bits))
        }
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, value.parse().unwrap());
        }
        map
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn forwarded_headers_count_only_from_a_trusted_proxy() {
        let policy = ClientPolicy::new(None, vec![ip("10.0.0.5")]);
        let forwarded = headers(&[
            ("x-forwarded-for", "203.0.113.9, 198.51.100.4"),
            ("x-forwarded-proto", "https"),
        ]);
        // Through the proxy: the last hop before it, and HTTPS.
        assert_eq!(
            policy.client_ip(Some(ip("10.0.0.5")), &forwarded),
            ip("198.51.100.4")
        );
        assert!(policy.is_https(Some(ip("10.0.0.5")), &forwarded));
        // The same headers from anyone else say nothing.
        assert_eq!(
            policy.client_ip(Some(ip("192.0.2.1")), &forwarded),
            ip("192.0.2.1")
        );
        assert!(!policy.is_https(Some(ip("192.0.2.1")), &forwarded));
        assert!(!policy.is_https(None, &forwarded));
        // A proxy without the header: the proxy itself.
        assert_eq!(
            policy.client_ip(Some(ip("10.0.0.5")), &HeaderMap::new()),
            ip("10.0.0.5")
        );
        assert!(!policy.is_https(
            Some(ip("10.0.0.5")),
            &headers(&[("x-forwarded-proto", "http")])
        ));
    }

    #[test]
    fn a_public_https_url_makes_every_request_https() {
        let https = url::Url::parse("https://evacdoc.example.org/").unwrap();
        let http = url::Url::parse("http://evacdoc.example.org/").unwrap();
        assert!(ClientPolicy::new(Some(&https), vec![]).is_https(None, &HeaderMap::new()));
        assert!(!ClientPolicy::new(Some(&http), vec![]).is_https(None, &HeaderMap::new()));
    }

    #[test]
    fn clients_are_throttled_by_address_and_ipv6_prefix() {
        assert_eq!(throttle_key(ip("192.0.2.7")), ip("192.0.2.7"));
        assert_eq!(throttle_key(ip("::ffff:192.0.2.7")), ip("192.0.2.7"));
        assert_eq!(
            throttle_key(ip("2001:db8:1:2:aaaa:bbbb:cccc:dddd")),
            ip("2001:db8:1:2::")
        );
    }
}
