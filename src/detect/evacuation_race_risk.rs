//! `evacuation-race-risk`: from the configuration alone, Masakari's wait after disabling
//! a failed host's compute service cannot cover Nova's down detection, so evacuations
//! will race (see `evacuate-400-race`) on the next host failure.
//!
//! Inputs: masakari.conf (required: without it nothing is known of the wait);
//! nova.conf (optional: Nova's defaults apply when absent, and the finding says so).
//!
//! Logic: `wait_period_after_service_update` (default 180) against `service_down_time`
//! (default 60) plus `report_interval` (default 10): a wait below their sum races.

use crate::correlate::Analysis;
use crate::detect::evacuate_400_race::{charm_words, recommended_wait};
use crate::detect::evidence::of_config;
use crate::detect::finding::{ConfigChange, Finding, Remediation, Severity};
use crate::detect::{DetectContext, Detector};
use crate::model::inventory::ConfigValue;

/// The detector.
#[derive(Debug)]
pub struct EvacuationRaceRisk;

fn number(value: Option<&ConfigValue>, default: i64) -> i64 {
    value
        .and_then(|v| v.value.trim().parse().ok())
        .unwrap_or(default)
}

impl Detector for EvacuationRaceRisk {
    fn id(&self) -> &'static str {
        "evacuation-race-risk"
    }

    fn doc(&self) -> &'static str {
        "The configuration alone makes evacuations race Nova: Masakari's \
         wait_period_after_service_update is shorter than Nova's service_down_time plus \
         report_interval."
    }

    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding> {
        settings(ctx.analysis)
            .filter(|s| s.wait_s < s.sdt_s + s.ri_s)
            .map(|s| finding(self.id(), ctx.analysis, &s))
            .into_iter()
            .collect()
    }
}

/// Masakari's wait and Nova's down detection as configured (defaults where unset).
struct Settings<'a> {
    /// The first masakari.conf read.
    masakari_file: &'a str,
    wait: Option<&'a ConfigValue>,
    sdt: Option<&'a ConfigValue>,
    ri: Option<&'a ConfigValue>,
    wait_s: i64,
    sdt_s: i64,
    ri_s: i64,
    /// The nova.conf files read, sorted.
    nova_files: Vec<&'a str>,
}

/// The settings, when a masakari.conf was read.
fn settings(analysis: &Analysis) -> Option<Settings<'_>> {
    let mut masakari_files: Vec<&str> = analysis
        .config
        .iter()
        .filter(|c| c.service == "masakari")
        .map(|c| c.file.as_str())
        .collect();
    masakari_files.dedup();
    let masakari_file = masakari_files.first().copied()?;
    let wait = analysis.config_value("masakari", "DEFAULT", "wait_period_after_service_update");
    let sdt = analysis.config_value("nova", "DEFAULT", "service_down_time");
    let ri = analysis.config_value("nova", "DEFAULT", "report_interval");
    let mut nova_files: Vec<&str> = analysis
        .config
        .iter()
        .filter(|c| c.service == "nova")
        .map(|c| c.file.as_str())
        .collect();
    nova_files.sort_unstable();
    nova_files.dedup();
    Some(Settings {
        masakari_file,
        wait,
        sdt,
        ri,
        wait_s: number(wait, 180),
        sdt_s: number(sdt, 60),
        ri_s: number(ri, 10),
        nova_files,
    })
}

/// What the bundle says of Nova's settings when it sets neither.
fn nova_note(s: &Settings<'_>) -> String {
    let nova_known = s.sdt.is_some() || s.ri.is_some();
    match (nova_known, s.nova_files.as_slice()) {
        (true, _) => String::new(),
        (false, []) => " No nova.conf was found: Nova's defaults are assumed.".to_string(),
        (false, files) => format!(
            " The bundle's nova.conf files ({}) set neither service_down_time nor \
             report_interval: Nova's defaults apply.",
            files.join(", ")
        ),
    }
}

/// The finding for a wait shorter than Nova's detection.
fn finding(id: &'static str, analysis: &Analysis, s: &Settings<'_>) -> Finding {
    let (wait, wait_s, sdt_s, ri_s) = (s.wait, s.wait_s, s.sdt_s, s.ri_s);
    let evidence = [wait, s.sdt, s.ri]
        .into_iter()
        .flatten()
        .map(|v| of_config(analysis, v))
        .collect();
    let recommended = recommended_wait(sdt_s, ri_s);
    let charm = charm_words(analysis);
    let file = wait.map_or(s.masakari_file, |w| w.file.as_str());
    Finding {
        id: format!("{id}:{file}").into(),
        detector: id,
        severity: Severity::Warning,
        title: format!(
            "Masakari waits {wait_s} s after disabling a host; Nova needs {sdt_s} s + {ri_s} s to see it down"
        ),
        summary: format!(
            "wait_period_after_service_update = {wait_s}{charm} is shorter than Nova's service_down_time \
             ({sdt_s}) plus report_interval ({ri_s}): evacuations will be refused with HTTP 400 \"Compute \
             service of <host> is still in use\" on host failures."
        ),
        failed_host: None,
        instance_uuids: Vec::new(),
        notification_id: None,
        request_ids: Vec::new(),
        window: None,
        evidence,
        explanation: format!(
            "After disabling a failed host's nova-compute, Masakari sleeps \
             wait_period_after_service_update ({wait_s} s) and then evacuates. Nova accepts an \
             evacuation only when it sees the source compute service down, which happens \
             service_down_time ({sdt_s} s) after the service's last heartbeat, sent every \
             report_interval ({ri_s} s). A host that dies just after a heartbeat is seen down up to \
             {} s after Masakari is told, so a shorter wait makes the evacuate calls race Nova.{}",
            sdt_s + ri_s,
            nova_note(s)
        ),
        remediation: Remediation {
            summary: format!(
                "Raise wait_period_after_service_update to at least {recommended}{charm}, or fence failed \
                 hosts and force their compute service down before evacuating."
            ),
            config_changes: vec![ConfigChange {
                file: file.to_string(),
                section: "DEFAULT".into(),
                option: "wait_period_after_service_update".into(),
                current: wait.map(|w| w.value.clone()),
                recommended: recommended.to_string(),
                note: format!(
                    "above service_down_time + report_interval ({}) with a margin",
                    sdt_s + ri_s
                ),
            }],
            actions: Vec::new(),
        },
        known_bugs: Vec::new(),
        highlights: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use crate::detect::context::testing::findings;

    fn configs(wait: Option<u32>, service_down_time: u32) -> Vec<(&'static str, String)> {
        let masakari = match wait {
            Some(w) => {
                format!("[DEFAULT]\ndebug = False\nwait_period_after_service_update = {w}\n")
            }
            None => "[DEFAULT]\ndebug = False\n".to_string(),
        };
        vec![
            ("ctl/etc/masakari/masakari.conf", masakari),
            (
                "ctl/etc/nova/nova.conf",
                format!(
                    "[DEFAULT]\nservice_down_time = {service_down_time}\nreport_interval = 10\n"
                ),
            ),
        ]
    }

    fn run(files: &[(&'static str, String)]) -> Vec<crate::detect::Finding> {
        let borrowed: Vec<(&str, &str)> = files.iter().map(|(p, c)| (*p, c.as_str())).collect();
        findings("evacuation-race-risk", &borrowed)
    }

    #[test]
    fn a_wait_below_nova_detection_is_a_risk() {
        let found = run(&configs(Some(60), 60));
        assert_eq!(found.len(), 1);
        let change = &found[0].remediation.config_changes[0];
        assert_eq!(
            (change.current.as_deref(), change.recommended.as_str()),
            (Some("60"), "180")
        );
        assert_eq!(found[0].evidence.len(), 3);
        assert_eq!(
            found[0].evidence[0].text,
            "wait_period_after_service_update = 60"
        );
        assert_eq!(found[0].evidence[0].line, 3);
    }

    /// Kolla keeps one nova.conf per container (`etc/kolla/nova-*/nova.conf`): when none
    /// sets Nova's timings, the finding says the defaults apply, not that none was found.
    #[test]
    fn kolla_nova_confs_are_found_even_without_the_timings() {
        let nova =
            "[DEFAULT]\ndebug = False\ntransport_url = rabbit://openstack:x@10.0.0.1:5672//\n";
        let found = run(&[
            (
                "ctl01/etc/kolla/masakari-engine/masakari.conf",
                "[DEFAULT]\nwait_period_after_service_update = 30\n".into(),
            ),
            ("ctl01/etc/kolla/nova-api/nova.conf", nova.into()),
            ("cmp01/etc/kolla/nova-compute/nova.conf", nova.into()),
        ]);
        assert_eq!(found.len(), 1, "{found:#?}");
        let explanation = &found[0].explanation;
        assert!(!explanation.contains("No nova.conf"), "{explanation}");
        assert!(
            explanation.contains("etc/kolla/nova-api/nova.conf")
                && explanation.contains("Nova's defaults apply"),
            "{explanation}"
        );
        let alone = run(&[(
            "ctl01/etc/kolla/masakari-engine/masakari.conf",
            "[DEFAULT]\nwait_period_after_service_update = 30\n".into(),
        )]);
        assert!(alone[0].explanation.contains("No nova.conf was found"));
    }

    #[test]
    fn defaults_and_long_waits_are_safe() {
        assert!(run(&configs(None, 60)).is_empty());
        assert!(run(&configs(Some(180), 60)).is_empty());
        // A long service_down_time makes even the default wait too short.
        assert_eq!(run(&configs(None, 300)).len(), 1);
        // Without masakari.conf nothing is known of the wait.
        assert!(
            run(&[(
                "ctl/etc/nova/nova.conf",
                "[DEFAULT]\nservice_down_time = 600\n".into()
            )])
            .is_empty()
        );
    }
}
