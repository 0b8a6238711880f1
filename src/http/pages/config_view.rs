//! The configuration values that matter for instance HA: those the findings' remediation
//! names, and Masakari's and Nova's options that decide how a host failure is recovered
//! (defaults from Masakari's `conf/engine.py`, `conf/engine_driver.py` and Nova's
//! `conf/service.py`), as set on each host or left to their default.

use super::format::{FileLinks, short_path};
use crate::correlate::Analysis;
use crate::detect::Finding;

/// An option worth showing: where it lives, its default, what it does.
struct HaOption {
    service: &'static str,
    section: &'static str,
    option: &'static str,
    default: &'static str,
    role: &'static str,
}

const HA_OPTIONS: &[HaOption] = &[
    HaOption {
        service: "masakari",
        section: "DEFAULT",
        option: "wait_period_after_service_update",
        default: "180",
        role: "sleep after disabling nova-compute, before evacuating; must outlast Nova's service_down_time",
    },
    HaOption {
        service: "masakari",
        section: "DEFAULT",
        option: "wait_period_after_evacuation",
        default: "90",
        role: "how long each evacuation is polled before it times out",
    },
    HaOption {
        service: "masakari",
        section: "DEFAULT",
        option: "verify_interval",
        default: "1",
        role: "seconds between status polls",
    },
    HaOption {
        service: "masakari",
        section: "DEFAULT",
        option: "wait_period_after_power_off",
        default: "180",
        role: "how long to wait for a stopped instance to shut down",
    },
    HaOption {
        service: "masakari",
        section: "DEFAULT",
        option: "wait_period_after_power_on",
        default: "60",
        role: "how long to wait for an instance to start",
    },
    HaOption {
        service: "masakari",
        section: "DEFAULT",
        option: "host_failure_recovery_threads",
        default: "3",
        role: "instances evacuated in parallel",
    },
    HaOption {
        service: "masakari",
        section: "DEFAULT",
        option: "process_unfinished_notifications_interval",
        default: "120",
        role: "seconds between retries of notifications in error",
    },
    HaOption {
        service: "masakari",
        section: "DEFAULT",
        option: "retry_notification_new_status_interval",
        default: "60",
        role: "age after which a notification still new is processed again",
    },
    HaOption {
        service: "masakari",
        section: "host_failure",
        option: "evacuate_all_instances",
        default: "True",
        role: "evacuate instances without the HA metadata key too",
    },
    HaOption {
        service: "masakari",
        section: "host_failure",
        option: "ha_enabled_instance_metadata_key",
        default: "HA_Enabled",
        role: "the metadata key that marks an instance for HA",
    },
    HaOption {
        service: "masakari",
        section: "host_failure",
        option: "ignore_instances_in_error_state",
        default: "False",
        role: "leave instances in error on the failed host",
    },
    HaOption {
        service: "masakari",
        section: "host_failure",
        option: "add_reserved_host_to_aggregate",
        default: "False",
        role: "add the reserved host to the failed host's aggregates",
    },
    HaOption {
        service: "masakari",
        section: "instance_failure",
        option: "process_all_instances",
        default: "False",
        role: "recover instances without the HA metadata key",
    },
    HaOption {
        service: "nova",
        section: "DEFAULT",
        option: "service_down_time",
        default: "60",
        role: "seconds without a heartbeat before Nova calls a compute service down (and allows evacuating it)",
    },
    HaOption {
        service: "nova",
        section: "DEFAULT",
        option: "report_interval",
        default: "10",
        role: "seconds between a service's heartbeats",
    },
    HaOption {
        service: "nova",
        section: "DEFAULT",
        option: "servicegroup_driver",
        default: "db",
        role: "how service liveness is tracked",
    },
];

/// One row of the table: an option as set in one file, or left to its default.
#[derive(Debug, Clone)]
pub struct ConfigRow {
    pub service: String,
    /// `[section] option`.
    pub name: String,
    pub host: String,
    /// The value in force; empty when unset.
    pub value: String,
    /// The default, when known.
    pub default: String,
    /// `path:line` where it is set (the path shortened).
    pub location: String,
    /// The whole path.
    pub file: String,
    /// The raw file view of that line, when the file was read.
    pub link: Option<String>,
    /// What the option does, or the finding's note about it.
    pub role: String,
    /// Whether a finding's remediation names it.
    pub named: bool,
}

/// The rows: options named by findings first, then the HA options in their order.
pub fn config_rows(
    analysis: &Analysis,
    findings: &[Finding],
    links: &FileLinks<'_>,
) -> Vec<ConfigRow> {
    let named: Vec<(&str, &str, &str)> = findings
        .iter()
        .flat_map(|f| f.remediation.config_changes.iter())
        .map(|c| (c.section.as_str(), c.option.as_str(), c.note.as_str()))
        .collect();
    let is_named =
        |section: &str, option: &str| named.iter().any(|(s, o, _)| *s == section && *o == option);
    let mut rows: Vec<ConfigRow> = Vec::new();
    // Options named by findings that are not HA options (shown first anyway).
    let mut extra: Vec<(&str, &str, &str)> = Vec::new();
    for &(section, option, note) in &named {
        let known = HA_OPTIONS
            .iter()
            .any(|o| o.section == section && o.option == option);
        if !known && !extra.iter().any(|(s, o, _)| *s == section && *o == option) {
            extra.push((section, option, note));
        }
    }
    for (section, option, note) in extra {
        rows.extend(rows_of(
            analysis, links, None, section, option, "", note, true,
        ));
    }
    for o in HA_OPTIONS {
        let named = is_named(o.section, o.option);
        rows.extend(rows_of(
            analysis,
            links,
            Some(o.service),
            o.section,
            o.option,
            o.default,
            o.role,
            named,
        ));
    }
    rows.sort_by_key(|r| !r.named);
    rows
}

/// The rows of one option: one per file that sets it, or one saying it is unset.
#[allow(clippy::too_many_arguments)]
fn rows_of(
    analysis: &Analysis,
    links: &FileLinks<'_>,
    service: Option<&str>,
    section: &str,
    option: &str,
    default: &str,
    role: &str,
    named: bool,
) -> Vec<ConfigRow> {
    let name = format!("[{section}] {option}");
    let set: Vec<ConfigRow> = analysis
        .config
        .iter()
        .filter(|c| c.section == section && c.option == option)
        .filter(|c| service.is_none_or(|s| c.service == s))
        .map(|c| ConfigRow {
            service: c.service.clone(),
            name: name.clone(),
            host: analysis
                .host(c.host)
                .map(|h| h.hostname.clone())
                .unwrap_or_default(),
            value: c.value.clone(),
            default: default.to_string(),
            location: format!("{}:{}", short_path(&c.file), c.line),
            file: c.file.clone(),
            link: links.line(&c.file, c.line as u64),
            role: role.to_string(),
            named,
        })
        .collect();
    if !set.is_empty() {
        return set;
    }
    vec![ConfigRow {
        service: service.unwrap_or("").to_string(),
        name,
        host: String::new(),
        value: String::new(),
        default: default.to_string(),
        location: String::new(),
        file: String::new(),
        link: None,
        role: role.to_string(),
        named,
    }]
}
