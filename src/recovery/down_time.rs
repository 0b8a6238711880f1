//! Nova's `service_down_time`, which its API does not publish: read from a nova.conf or
//! from a bundle's configs, so that an unfenced host is waited for as long as that cloud's
//! Nova takes to see it down, not the 60 s of Nova's default.

use std::time::Duration;

use evacdoc_parsers::ini::parse_ini;

use crate::model::inventory::{ConfigValue, nova_service_down_time, positive_seconds};

/// Nova's default.
pub const NOVA_DEFAULT: Duration = Duration::from_secs(60);

/// Where the value the executor uses came from.
#[derive(Debug, Clone, PartialEq)]
pub struct DownTime {
    pub value: Duration,
    /// `--service-down-time`, `<file> [DEFAULT] service_down_time`, or `Nova's default`.
    pub source: String,
}

/// The last `[DEFAULT] service_down_time` of a nova.conf's text (oslo.config takes the
/// last), when it is a positive number of seconds.
pub fn from_nova_conf(text: &str) -> Option<Duration> {
    parse_ini(text)
        .entries
        .iter()
        .rev()
        .find(|e| e.section == "DEFAULT" && e.key == "service_down_time")
        .and_then(|e| positive_seconds(&e.value))
}

/// The value a bundle's nova configs give (the last file read that sets it), with its file.
pub fn from_bundle(config: &[ConfigValue]) -> Option<(Duration, String)> {
    nova_service_down_time(config)
}

/// The value without a flag or a nova.conf given: the bundle's, else Nova's default; the
/// last two steps of `recover`'s choice, and all of the trigger's and the service's.
pub fn bundle_or_default(bundle: Option<(Duration, String)>) -> DownTime {
    match bundle {
        Some((value, file)) => DownTime {
            value,
            source: format!("the bundle's {file} [DEFAULT] service_down_time"),
        },
        None => DownTime {
            value: NOVA_DEFAULT,
            source: "Nova's default".to_owned(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_default_value_counts_and_other_sections_do_not() {
        let conf = "[DEFAULT]\nreport_interval = 10\nservice_down_time = 120\n\
                    [api]\nservice_down_time = 5\n[DEFAULT]\nservice_down_time = 180\n";
        assert_eq!(from_nova_conf(conf), Some(Duration::from_secs(180)));
    }

    #[test]
    fn an_absent_or_unusable_value_gives_nothing() {
        assert_eq!(from_nova_conf("[DEFAULT]\nreport_interval = 10\n"), None);
        assert_eq!(
            from_nova_conf("[DEFAULT]\nservice_down_time = soon\n"),
            None
        );
        assert_eq!(from_nova_conf("[DEFAULT]\nservice_down_time = -5\n"), None);
    }
}
