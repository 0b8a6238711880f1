//! The scenario file of `evacdoc sim`: a TOML description of the cloud (credentials,
//! Nova's liveness settings, hosts, instances, timings) and the faults to inject.
//! `samples/sim/README.md` documents every key.

use std::path::Path;

use serde::Deserialize;

use super::error::ScenarioError;
use super::microversion::Microversion;

/// A whole scenario, as read from its file and checked.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Who may sign in.
    #[serde(default)]
    pub auth: AuthConfig,
    /// Nova's liveness settings and API range.
    #[serde(default)]
    pub nova: NovaConfig,
    /// Cinder's settings.
    #[serde(default)]
    pub cinder: CinderConfig,
    /// How long things take.
    #[serde(default)]
    pub timing: TimingConfig,
    /// The compute hosts.
    #[serde(default)]
    pub hosts: Vec<HostConfig>,
    /// The servers on them.
    #[serde(default)]
    pub instances: Vec<InstanceConfig>,
    /// Scripted faults, checked in order on every request.
    #[serde(default)]
    pub faults: Vec<FaultConfig>,
}

/// `[auth]`: one user in one project, and optionally an application credential.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AuthConfig {
    pub user: String,
    pub password: String,
    pub project: String,
    /// The domain of the user and of the project (by name; its id is its lowercase).
    pub domain: String,
    pub region: String,
    pub application_credential: Option<AppCredentialConfig>,
}

impl Default for AuthConfig {
    fn default() -> Self {
        AuthConfig {
            user: "admin".into(),
            password: "secret".into(),
            project: "admin".into(),
            domain: "Default".into(),
            region: "RegionOne".into(),
            application_credential: None,
        }
    }
}

/// `[auth.application_credential]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppCredentialConfig {
    pub id: String,
    pub secret: String,
    #[serde(default)]
    pub name: Option<String>,
}

/// `[nova]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NovaConfig {
    /// Seconds after the last heartbeat Nova still reports a service up.
    pub service_down_time: f64,
    /// Seconds between heartbeats of a live service.
    pub report_interval: f64,
    /// The highest compute microversion offered (`2.95`).
    pub max_microversion: String,
    /// The controller host whose logs hold nova-api, nova-conductor and Apache.
    pub controller: String,
    /// Nova's `[api] max_limit`: the most servers one list page holds.
    pub max_limit: usize,
    /// The nova-scheduler stopped heartbeating long before the start: Nova reports it down.
    pub scheduler_down: bool,
}

impl Default for NovaConfig {
    fn default() -> Self {
        NovaConfig {
            service_down_time: 60.0,
            report_interval: 10.0,
            max_microversion: "2.95".into(),
            controller: "controller-0".into(),
            max_limit: 1000,
            scheduler_down: false,
        }
    }
}

/// `[cinder]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CinderConfig {
    /// The highest volume microversion offered (`3.70`).
    pub max_microversion: String,
    /// Bug #2004555's guard: deleting an in-use attachment without a service token is
    /// refused with 409.
    pub attachment_deletion_guard: bool,
}

impl Default for CinderConfig {
    fn default() -> Self {
        CinderConfig {
            max_microversion: "3.70".into(),
            attachment_deletion_guard: false,
        }
    }
}

/// `[timing]`, in scenario seconds.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TimingConfig {
    /// How long a rebuild on the destination takes.
    pub rebuild_s: f64,
    /// When set, a rebuild held by a volume still attached to the dead host goes on
    /// after this many seconds anyway (the old attachment is dropped then).
    pub attachment_hold: Option<f64>,
    /// Scenario seconds per real second: 10 runs the scenario ten times faster.
    pub time_scale: f64,
}

impl Default for TimingConfig {
    fn default() -> Self {
        TimingConfig {
            rebuild_s: 5.0,
            attachment_hold: None,
            time_scale: 1.0,
        }
    }
}

/// `[[hosts]]`: a compute host.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    pub name: String,
    /// `up`, `dead` (stops heartbeating at the start) or `down` (dead long before the
    /// start: Nova already reports it down).
    #[serde(default)]
    pub state: HostState,
    /// The host dies this many seconds after the start.
    #[serde(default)]
    pub dies_at_s: Option<f64>,
    /// The compute service starts disabled.
    #[serde(default)]
    pub disabled: bool,
    /// A dead host repaired: nova-compute starts again this many seconds after the start,
    /// heartbeats, and moves the `done` evacuations from the host to `completed`.
    #[serde(default)]
    pub returns_at_s: Option<f64>,
}

/// How a host starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HostState {
    #[default]
    Up,
    Dead,
    Down,
}

/// `[[instances]]`: a server.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstanceConfig {
    pub id: String,
    pub name: String,
    pub host: String,
    #[serde(default = "yes")]
    pub ha_enabled: bool,
    /// The volume it boots from (its id); none for an image-backed server.
    #[serde(default)]
    pub volume: Option<String>,
    #[serde(default)]
    pub multiattach: bool,
    /// `ACTIVE` (default), `SHUTOFF` or `ERROR`.
    #[serde(default = "active")]
    pub status: String,
    /// Locked by another user: evacuating it answers 409.
    #[serde(default)]
    pub locked_by_other: bool,
}

fn yes() -> bool {
    true
}

fn active() -> String {
    "ACTIVE".into()
}

/// `[[faults]]`: what to do to the requests that match.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultConfig {
    /// The HTTP method (any when absent).
    #[serde(default)]
    pub method: Option<String>,
    /// A prefix of the request path (`/compute/v2.1/servers/`).
    #[serde(default)]
    pub path: Option<String>,
    /// A regular expression over the path and query.
    #[serde(default)]
    pub path_regex: Option<String>,
    /// The status to answer instead of the real answer (none: only the latency).
    #[serde(default)]
    pub status: Option<u16>,
    /// A `Location` header for that answer (a redirect: `status = 307`).
    #[serde(default)]
    pub location: Option<String>,
    /// How many matching calls it applies to (every one when absent).
    #[serde(default)]
    pub count: Option<u64>,
    /// Real milliseconds added before answering.
    #[serde(default)]
    pub latency_ms: u64,
    /// Active from this many scenario seconds after the start.
    #[serde(default)]
    pub from_s: Option<f64>,
    /// Active until this many scenario seconds after the start.
    #[serde(default)]
    pub until_s: Option<f64>,
}

impl Scenario {
    /// Reads and checks a scenario file.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
            file: file.clone(),
            source,
        })?;
        Scenario::parse(&text).map_err(|reason| ScenarioError::Invalid { file, reason })
    }

    /// Parses and checks scenario text; the error is the reason, without the file.
    pub fn parse(text: &str) -> Result<Scenario, String> {
        let scenario: Scenario = toml::from_str(text).map_err(|e| e.to_string())?;
        scenario.check()?;
        Ok(scenario)
    }

    fn check(&self) -> Result<(), String> {
        Microversion::parse(&self.nova.max_microversion).ok_or_else(|| {
            format!(
                "nova.max_microversion {:?} is not X.Y",
                self.nova.max_microversion
            )
        })?;
        Microversion::parse(&self.cinder.max_microversion).ok_or_else(|| {
            format!(
                "cinder.max_microversion {:?} is not X.Y",
                self.cinder.max_microversion
            )
        })?;
        if self.nova.max_limit == 0 {
            return Err("nova.max_limit must be at least 1".into());
        }
        if !(self.nova.report_interval > 0.0 && self.nova.service_down_time > 0.0) {
            return Err("nova.report_interval and nova.service_down_time must be positive".into());
        }
        if !(self.timing.time_scale > 0.0 && self.timing.time_scale.is_finite()) {
            return Err("timing.time_scale must be a positive number".into());
        }
        if self.timing.rebuild_s < 0.0 || self.timing.attachment_hold.is_some_and(|h| h < 0.0) {
            return Err("timing.rebuild_s and timing.attachment_hold cannot be negative".into());
        }
        let mut names = std::collections::HashSet::new();
        for host in &self.hosts {
            if host.name.is_empty() || !names.insert(host.name.as_str()) {
                return Err(format!("host name {:?} is empty or repeated", host.name));
            }
            if host.name == self.nova.controller {
                return Err(format!("host {:?} is also the controller", host.name));
            }
            if let Some(back) = host.returns_at_s {
                let dead_before = match (host.state, host.dies_at_s) {
                    (HostState::Up, None) => false,
                    (HostState::Up, Some(dies)) => dies < back,
                    (_, _) => back > 0.0,
                };
                if !dead_before {
                    return Err(format!(
                        "host {:?} returns at {back} s but is not dead before then",
                        host.name
                    ));
                }
            }
        }
        let mut ids = std::collections::HashSet::new();
        for instance in &self.instances {
            if !evacdoc_parsers::text::is_uuid(&instance.id) || !ids.insert(&instance.id) {
                return Err(format!(
                    "instance id {:?} is not a UUID or is repeated",
                    instance.id
                ));
            }
            if !names.contains(instance.host.as_str()) {
                return Err(format!(
                    "instance {} is on host {:?}, which is not among [[hosts]]",
                    instance.id, instance.host
                ));
            }
            if let Some(volume) = &instance.volume
                && (!evacdoc_parsers::text::is_uuid(volume) || !ids.insert(volume))
            {
                return Err(format!("volume id {volume:?} is not a UUID or is repeated"));
            }
            if !["ACTIVE", "SHUTOFF", "ERROR"].contains(&instance.status.as_str()) {
                return Err(format!(
                    "instance {} has status {:?}; ACTIVE, SHUTOFF or ERROR",
                    instance.id, instance.status
                ));
            }
        }
        for (n, fault) in self.faults.iter().enumerate() {
            if fault.path.is_none() && fault.path_regex.is_none() {
                return Err(format!("fault {} has neither path nor path_regex", n + 1));
            }
            if let Some(re) = &fault.path_regex {
                regex::Regex::new(re).map_err(|e| format!("fault {}: path_regex: {e}", n + 1))?;
            }
            if fault.status.is_some_and(|s| !(100..=599).contains(&s)) {
                return Err(format!("fault {}: status must be 100 to 599", n + 1));
            }
            if fault.location.is_some() && fault.status.is_none() {
                return Err(format!("fault {}: location needs a status", n + 1));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTS: &str = r#"
        [[hosts]]
        name = "compute-1"
        [[hosts]]
        name = "compute-2"
        dies_at_s = 5
    "#;

    #[test]
    fn defaults_fill_what_is_left_out() {
        let s = Scenario::parse(HOSTS).unwrap();
        assert_eq!(s.nova.service_down_time, 60.0);
        assert_eq!(s.auth.user, "admin");
        assert_eq!(s.hosts[1].dies_at_s, Some(5.0));
        assert_eq!(s.hosts[0].state, HostState::Up);
    }

    #[test]
    fn bad_scenarios_say_why() {
        let unknown = Scenario::parse("[nova]\nservice_down = 3\n").unwrap_err();
        assert!(unknown.contains("service_down"), "{unknown}");
        let orphan = format!(
            "{HOSTS}\n[[instances]]\nid = \"6f0a2b1c-0000-4000-8000-000000000001\"\nname = \"a\"\nhost = \"nowhere\"\n"
        );
        assert!(Scenario::parse(&orphan).unwrap_err().contains("nowhere"));
        let bad_id =
            format!("{HOSTS}\n[[instances]]\nid = \"x\"\nname = \"a\"\nhost = \"compute-1\"\n");
        assert!(Scenario::parse(&bad_id).unwrap_err().contains("not a UUID"));
        let fault = "[[faults]]\nstatus = 503\n";
        assert!(Scenario::parse(fault).unwrap_err().contains("neither path"));
        let regex = "[[faults]]\npath_regex = \"(\"\n";
        assert!(Scenario::parse(regex).unwrap_err().contains("path_regex"));
        let location = "[[faults]]\npath = \"/identity\"\nlocation = \"http://x/\"\n";
        assert!(
            Scenario::parse(location)
                .unwrap_err()
                .contains("needs a status")
        );
    }

    #[test]
    fn load_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("broken.toml");
        std::fs::write(&path, "[[hosts]\n").unwrap();
        let message = Scenario::load(&path).unwrap_err().to_string();
        assert!(message.contains("broken.toml"), "{message}");
    }
}
