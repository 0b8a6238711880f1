//! Which config options a public view may show the value of. Option names are always
//! shown; a value only when the option is on an allow-list of harmless ones (timeouts,
//! intervals, booleans, counts, driver names, Masakari's waits and Nova's
//! `service_down_time`), a secret option's value never, and every other value is
//! replaced word by word.

/// What a public view does with an option's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionClass {
    /// Hidden outright.
    Secret,
    /// Shown through the public step (vocabulary words, numbers, ids kept).
    Harmless,
    /// Replaced: every word gets a pseudonym (numbers, ids and booleans stay).
    Other,
}

/// Harmless options by exact name.
const HARMLESS: &[&str] = &[
    "debug",
    "verbose",
    "use_syslog",
    "use_stderr",
    "use_journal",
    "service_down_time",
    "wait_period_after_service_update",
    "wait_period_after_evacuation",
    "wait_period_after_power_off",
    "wait_period_after_power_on",
    "evacuate_all_instances",
    "ignore_instances_in_error_state",
    "add_reserved_host_to_aggregate",
    "host_failure_recovery_threads",
    "duration",
    "driver",
    "compute_driver",
    "auth_type",
    "auth_strategy",
    "interface",
    "valid_interfaces",
    "endpoint_type",
    "os_interface",
    "monitoring_driver",
    "disable_ipmi_check",
    "restrict_to_remotes",
    "heartbeat_rate",
    "heartbeat_timeout_threshold",
    "rabbit_ha_queues",
    "amqp_durable_queues",
    "virt_type",
    "cpu_mode",
    "images_type",
    "vif_plugging_is_fatal",
];

/// Harmless options by the end of their name.
const HARMLESS_SUFFIXES: &[&str] = &[
    "_timeout",
    "_interval",
    "_time",
    "_delay",
    "_retries",
    "_attempts",
    "_count",
    "_workers",
    "_threads",
    "_period",
    "_driver",
    "_enabled",
    "_size",
    "_limit",
    "_ratio",
    "_percent",
    "_version",
    "_level",
];

/// Harmless options by the start of their name.
const HARMLESS_PREFIXES: &[&str] = &["enable_", "use_", "wait_period_", "max_", "min_", "num_"];

/// Words that make an option a secret wherever they are in its name.
const SECRET_WORDS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "credential",
    "transport_url",
    "connection",
    "backend_argument",
];

/// The class of `option` (`[section] option`, `section.option` or the bare name).
pub fn classify_option(option: &str) -> OptionClass {
    let name = option
        .rsplit(['.', ' ', ']'])
        .next()
        .unwrap_or(option)
        .trim()
        .to_ascii_lowercase()
        .replace('-', "_");
    let secret = SECRET_WORDS.iter().any(|w| name.contains(w))
        || name == "key"
        || name.ends_with("_key")
        || name.ends_with("_pass");
    if secret {
        OptionClass::Secret
    } else if HARMLESS.contains(&name.as_str())
        || HARMLESS_SUFFIXES.iter().any(|s| name.ends_with(s))
        || HARMLESS_PREFIXES.iter().any(|p| name.starts_with(p))
    {
        OptionClass::Harmless
    } else {
        OptionClass::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_harmless_and_the_rest() {
        for secret in [
            "memcache_secret_key",
            "fixed_key",
            "auth_encryption_key",
            "keystone_authtoken.password",
            "database.connection",
            "backend_argument",
            "key",
        ] {
            assert_eq!(classify_option(secret), OptionClass::Secret, "{secret}");
        }
        for harmless in [
            "service_down_time",
            "wait_period_after_service_update",
            "rpc_response_timeout",
            "DEFAULT.debug",
            "compute_driver",
            "report_interval",
        ] {
            assert_eq!(
                classify_option(harmless),
                OptionClass::Harmless,
                "{harmless}"
            );
        }
        for other in [
            "host",
            "my_ip",
            "region_name",
            "auth_url",
            "username",
            "project_name",
        ] {
            assert_eq!(classify_option(other), OptionClass::Other, "{other}");
        }
    }
}
