//! Scripted faults: the next K requests matching a method and a path answer a chosen
//! status (with a `Location`, for a redirect), wait longer, or both, within a window of
//! scenario time.

use regex::Regex;

use super::scenario::FaultConfig;

/// One fault and how many more calls it applies to.
#[derive(Debug)]
struct Fault {
    method: Option<String>,
    prefix: Option<String>,
    regex: Option<Regex>,
    status: Option<u16>,
    location: Option<String>,
    remaining: Option<u64>,
    latency_ms: u64,
    from_s: f64,
    until_s: f64,
}

/// What a matching fault does to a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    /// Answer this status instead of the real answer.
    pub status: Option<u16>,
    /// With this `Location` header.
    pub location: Option<String>,
    /// Wait this long first.
    pub latency_ms: u64,
}

/// Every fault of the scenario.
#[derive(Debug, Default)]
pub struct Faults {
    faults: Vec<Fault>,
}

impl Faults {
    /// The faults of a checked scenario (a regex that does not compile is left out;
    /// `Scenario::parse` has refused those already).
    pub fn new(configs: &[FaultConfig]) -> Faults {
        let faults = configs
            .iter()
            .map(|c| Fault {
                method: c.method.as_ref().map(|m| m.to_ascii_uppercase()),
                prefix: c.path.clone(),
                regex: c.path_regex.as_deref().and_then(|r| Regex::new(r).ok()),
                status: c.status,
                location: c.location.clone(),
                remaining: c.count,
                latency_ms: c.latency_ms,
                from_s: c.from_s.unwrap_or(f64::NEG_INFINITY),
                until_s: c.until_s.unwrap_or(f64::INFINITY),
            })
            .collect();
        Faults { faults }
    }

    /// What the faults do to `method path_and_query` at scenario second `now`: the
    /// first matching fault with a status decides it (and one call is counted off it);
    /// the latencies of every matching fault add up.
    pub fn apply(&mut self, method: &str, path_and_query: &str, now: f64) -> Applied {
        // An empty query (`/servers/x?`, as openstack_sdk sends) is no query, for Nova as
        // for a `$`-anchored regex.
        let path_and_query = path_and_query.strip_suffix('?').unwrap_or(path_and_query);
        let path = path_and_query.split('?').next().unwrap_or(path_and_query);
        let mut applied = Applied {
            status: None,
            location: None,
            latency_ms: 0,
        };
        for fault in &mut self.faults {
            let matches = fault.method.as_deref().is_none_or(|m| m == method)
                && fault.prefix.as_deref().is_none_or(|p| path.starts_with(p))
                && fault
                    .regex
                    .as_ref()
                    .is_none_or(|r| r.is_match(path_and_query))
                && (fault.from_s..fault.until_s).contains(&now)
                && fault.remaining != Some(0);
            if !matches || (fault.status.is_some() && applied.status.is_some()) {
                continue;
            }
            if let Some(left) = &mut fault.remaining {
                *left -= 1;
            }
            applied.latency_ms += fault.latency_ms;
            if fault.status.is_some() {
                applied.status = fault.status;
                applied.location.clone_from(&fault.location);
            }
        }
        applied
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::scenario::Scenario;

    fn faults(toml: &str) -> Faults {
        Faults::new(&Scenario::parse(toml).unwrap().faults)
    }

    #[test]
    fn a_counted_fault_answers_k_times_then_stops() {
        let mut f = faults(
            "[[faults]]\nmethod = \"get\"\npath = \"/compute/v2.1/servers/\"\nstatus = 503\ncount = 2\n",
        );
        let get = |f: &mut Faults| f.apply("GET", "/compute/v2.1/servers/x?a=b", 0.0).status;
        assert_eq!(f.apply("POST", "/compute/v2.1/servers/x", 0.0).status, None);
        assert_eq!(get(&mut f), Some(503));
        assert_eq!(get(&mut f), Some(503));
        assert_eq!(get(&mut f), None);
    }

    #[test]
    fn an_empty_query_does_not_defeat_an_anchored_regex() {
        let mut f = faults(
            "[[faults]]\npath_regex = \"^/compute/v2\\\\.1/servers/[0-9a-f-]{36}$\"\nstatus = 503\n",
        );
        let server = "/compute/v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96";
        assert_eq!(f.apply("GET", &format!("{server}?"), 0.0).status, Some(503));
        assert_eq!(f.apply("GET", server, 0.0).status, Some(503));
        assert_eq!(
            f.apply("GET", &format!("{server}/action"), 0.0).status,
            None
        );
    }

    #[test]
    fn windows_and_regexes_select_requests() {
        let mut f = faults(
            "[[faults]]\npath = \"/identity\"\nstatus = 503\nfrom_s = 10\nuntil_s = 20\n\
             [[faults]]\npath_regex = \"os-services\\\\?host=\"\nlatency_ms = 30\n",
        );
        assert_eq!(
            f.apply("POST", "/identity/v3/auth/tokens", 5.0).status,
            None
        );
        assert_eq!(
            f.apply("POST", "/identity/v3/auth/tokens", 15.0).status,
            Some(503)
        );
        assert_eq!(
            f.apply("POST", "/identity/v3/auth/tokens", 25.0).status,
            None
        );
        let slow = f.apply("GET", "/compute/v2.1/os-services?host=c1", 0.0);
        assert_eq!((slow.status, slow.latency_ms), (None, 30));
    }

    #[test]
    fn a_redirect_fault_carries_its_location() {
        let mut f = faults(
            "[[faults]]\npath = \"/identity/v3/auth/tokens\"\nstatus = 307\nlocation = \"http://127.0.0.1:9/v3/auth/tokens\"\ncount = 1\n",
        );
        let first = f.apply("POST", "/identity/v3/auth/tokens", 0.0);
        assert_eq!(first.status, Some(307));
        assert_eq!(
            first.location.as_deref(),
            Some("http://127.0.0.1:9/v3/auth/tokens")
        );
        assert_eq!(
            f.apply("POST", "/identity/v3/auth/tokens", 0.0).location,
            None
        );
    }
}
