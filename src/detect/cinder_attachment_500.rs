//! `cinder-attachment-500`: a boot-from-volume evacuation fails because Cinder answered
//! 500 to the destination's attachment update (`PUT /v3/<project>/attachments/<id>`, the
//! connector of the new host). Before nova 29.0.0 Nova does not retry it: nova-compute logs
//! `Update attachment failed for attachment <id>. Error: … (HTTP 500) … Code: 500`, the
//! rebuild stops and the instance goes to ERROR (`Setting instance vm_state to ERROR`).
//! From 29.0.0 Nova retries a 500 or 504 up to five times (Launchpad bug 1970642).
//!
//! Inputs: nova-compute logs of the destination; cinder-api logs (optional: Cinder's side
//! of the failure, joined by the attachment id).
//!
//! Logic (measuring): Nova's `Update attachment failed` records with code 500; the
//! evacuation they belong to (`Evacuating instance` of the same request on that host); the
//! Cinder records naming the attachment with a 500; whether the instance was rebuilt after
//! all (`Instance spawned successfully.` on that host later: a retry went through). Telling:
//! one finding per instance not rebuilt.

use crate::detect::evidence::{self, host_name, of_events};
use crate::detect::finding::{Finding, Remediation, Severity};
use crate::detect::{DetectContext, Detector};
use crate::model::EventsById;
use crate::model::{Event, EventId, Project, Uuid};

/// The detector.
#[derive(Debug)]
pub struct CinderAttachment500;

/// One instance whose evacuation stopped on a Cinder 500.
#[derive(Clone, Debug, PartialEq)]
pub struct Failed {
    /// The instance.
    pub instance: Uuid,
    /// The destination host.
    pub host: String,
    /// The attachment.
    pub attachment: String,
    /// The volumes the evacuation's records name.
    pub volumes: Vec<Uuid>,
    /// `Evacuating instance` on the destination.
    pub evacuating: EventId,
    /// Nova's `Update attachment failed` records.
    pub nova: Vec<EventId>,
    /// Cinder's records of the 500 on that attachment.
    pub cinder: Vec<EventId>,
    /// `Setting instance vm_state to ERROR` after it, if logged.
    pub errored: Option<EventId>,
}

/// The attachment id and the HTTP code of Nova's failed attachment update.
pub fn failed_update(message: &str) -> Option<(&str, &str)> {
    let (_, rest) = message.split_once("Update attachment failed for attachment ")?;
    let (id, rest) = rest.split_once(". Error: ")?;
    let (_, code) = rest.rsplit_once(" Code: ")?;
    Some((id, code.trim()))
}

fn is_nova_compute(ctx: &DetectContext<'_>, e: &Event) -> bool {
    ctx.analysis
        .file(e.file)
        .is_some_and(|f| f.service.name().starts_with("nova-compute"))
}

/// Measures every instance whose evacuation a Cinder 500 stopped.
pub fn measure(ctx: &DetectContext<'_>) -> Vec<Failed> {
    let analysis = ctx.analysis;
    let mut out: Vec<Failed> = Vec::new();
    for (i, e) in analysis.events.iter().enumerate() {
        let message = e.message();
        let Some((attachment, "500")) = failed_update(&message) else {
            continue;
        };
        if !is_nova_compute(ctx, e) {
            continue;
        }
        let Some((evacuating, instance)) = evacuation_of(ctx, e) else {
            continue;
        };
        if let Some(f) = out
            .iter_mut()
            .find(|f| f.instance == instance && f.attachment == attachment)
        {
            f.nova.push(EventId::at(i));
            continue;
        }
        let host = host_name(analysis, e);
        let instance_events = || evidence::instance_events(analysis, instance);
        // A retry went through: the instance was rebuilt on that host after all.
        if instance_events().any(|(_, o)| {
            o.time >= e.time
                && o.message().starts_with("Instance spawned successfully")
                && host_name(analysis, o) == host
        }) {
            continue;
        }
        let errored = instance_events()
            .find(|(_, o)| {
                o.time >= e.time
                    && o.file == e.file
                    && o.message()
                        .starts_with("Setting instance vm_state to ERROR")
            })
            .map(|(j, _)| j);
        let volumes = request_volumes(ctx, e);
        out.push(Failed {
            instance,
            host,
            attachment: attachment.to_string(),
            volumes,
            evacuating,
            nova: vec![EventId::at(i)],
            cinder: cinder_500s(ctx, attachment),
            errored,
        });
    }
    out
}

/// The evacuation `e` belongs to: `Evacuating instance` of the same request on the same
/// log, before it.
fn evacuation_of(ctx: &DetectContext<'_>, e: &Event) -> Option<(EventId, Uuid)> {
    let request = e.request_id?;
    let events = ctx.analysis.index.request.get(&request)?;
    events.iter().rev().find_map(|&j| {
        let o = ctx.analysis.events.by_id(j)?;
        let instance = *o.instances.first()?;
        (o.file == e.file && o.time <= e.time && o.message().starts_with("Evacuating instance"))
            .then_some((j, instance))
    })
}

/// The volumes named by the records of `e`'s request.
fn request_volumes(ctx: &DetectContext<'_>, e: &Event) -> Vec<Uuid> {
    let mut out: Vec<Uuid> = Vec::new();
    let Some(events) = e
        .request_id
        .and_then(|r| ctx.analysis.index.request.get(&r))
    else {
        return out;
    };
    for v in events
        .iter()
        .filter_map(|&j| ctx.analysis.events.by_id(j))
        .flat_map(|o| o.volumes.iter())
    {
        if !out.contains(v) {
            out.push(*v);
        }
    }
    out
}

/// Cinder's records of a 500 on `attachment`: its request line and the error it logged.
fn cinder_500s(ctx: &DetectContext<'_>, attachment: &str) -> Vec<EventId> {
    let analysis = ctx.analysis;
    let path = format!("/attachments/{attachment}");
    // The request ids Cinder answered 500 for that attachment.
    let mut requests: Vec<Uuid> = Vec::new();
    let mut out: Vec<EventId> = Vec::new();
    for (j, o) in analysis.events.iter().enumerate() {
        if evidence::project(analysis, o) != Project::Cinder {
            continue;
        }
        let text = o.text();
        let status_500 = o
            .http()
            .map_or(text.contains("returned with HTTP 500"), |h| h.status == 500);
        if text.contains(&path) && status_500 {
            out.push(EventId::at(j));
            requests.extend(o.request_id);
        }
    }
    for r in &requests {
        for &j in analysis.index.request.get(r).unwrap_or(&[]) {
            let is_error = analysis.events.by_id(j).is_some_and(|o| {
                matches!(
                    o.level,
                    Some(crate::model::LogLevel::Error | crate::model::LogLevel::Critical)
                )
            });
            if is_error && !out.contains(&j) {
                out.push(j);
            }
        }
    }
    out
}

impl Detector for CinderAttachment500 {
    fn id(&self) -> &'static str {
        "cinder-attachment-500"
    }

    fn doc(&self) -> &'static str {
        "A boot-from-volume evacuation stopped because Cinder answered 500 to the destination's \
         attachment update and Nova did not retry it (bug 1970642, retried from nova 29.0.0)."
    }

    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding> {
        measure(ctx).iter().map(|f| self.tell(ctx, f)).collect()
    }
}

impl CinderAttachment500 {
    fn tell(&self, ctx: &DetectContext<'_>, f: &Failed) -> Finding {
        let analysis = ctx.analysis;
        let mut ids = vec![f.evacuating];
        ids.extend(f.nova.iter().take(2));
        ids.extend(f.cinder.iter().take(3));
        ids.extend(f.errored);
        let (host, instance, attachment) = (&f.host, f.instance, &f.attachment);
        let cinder = if f.cinder.is_empty() {
            " (the bundle has no cinder-api log of it)".to_string()
        } else {
            String::new()
        };
        let state = if f.errored.is_some() {
            "the rebuild stopped and Nova set the instance to ERROR"
        } else {
            "the rebuild stopped"
        };
        Finding {
            id: format!("{}:{instance}", self.id()).into(),
            detector: self.id(),
            severity: Severity::Critical,
            title: format!(
                "Evacuation of {instance} to {host} failed: Cinder answered 500 to the attachment update"
            ),
            summary: format!(
                "While evacuating boot-from-volume instance {instance} to {host}, Cinder answered 500 to \
                 `PUT …/attachments/{attachment}`{cinder}; {state}."
            ),
            failed_host: Some(host.clone()),
            instance_uuids: vec![instance.to_string()],
            notification_id: None,
            request_ids: evidence::request_ids(analysis, &ids),
            window: evidence::window(analysis, &ids),
            evidence: of_events(analysis, ids.iter().copied()),
            explanation: format!(
                "An evacuation of a boot-from-volume instance moves its volume attachments to the destination: \
                 nova-compute on {host} updates each attachment with its own connector. Cinder failed that \
                 update of attachment {attachment} with an internal error (500). Before nova 29.0.0 Nova does \
                 not retry it, so one transient Cinder error ends the evacuation (Launchpad bug 1970642); from \
                 29.0.0 a 500 or 504 is retried up to five times."
            ),
            remediation: Remediation::advice(format!(
                "Read Cinder's error for the attachment (cinder-api and cinder-volume logs at that time) and fix \
                 its cause; then reset instance {instance} to `error`→`active` state as needed and evacuate it \
                 again (the volume's old attachment may need clearing). Upgrade nova to 29.0.0 or later so that \
                 transient 500s are retried."
            )),
            known_bugs: Vec::new(),
            highlights: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::failed_update;

    #[test]
    fn the_failed_update_is_read() {
        let m = "Update attachment failed for attachment 4b1d8f2e-6a3c-4e9b-8d7f-0c2a5e9b1f36. Error: Unable to update the attachment. (HTTP 500) (Request-ID: req-0f3a) Code: 500";
        assert_eq!(
            failed_update(m),
            Some(("4b1d8f2e-6a3c-4e9b-8d7f-0c2a5e9b1f36", "500"))
        );
        assert_eq!(failed_update("Update attachment failed"), None);
    }
}
