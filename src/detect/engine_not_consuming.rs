//! `engine-not-consuming`: masakari-api accepted notifications (`POST /v1/notifications`
//! answered 202) and no masakari-engine ever took them: no engine logs `Processing
//! notification` after them, and RabbitMQ holds them in the engine's queue with no
//! consumer. masakari-api hands a notification to the engine by an RPC cast on the topic
//! `masakari_topic` (`ha_engine` by default, masakari/conf/engine.py:20 and
//! masakari/engine/rpcapi.py:38); with every engine stopped, hung, or connected to another
//! broker or vhost, the casts wait in that queue and no recovery starts, while the
//! notifications stay `new`.
//!
//! Inputs: masakari-api access logs (the 202s); RabbitMQ's queues
//! (`sos_commands/rabbitmq/rabbitmqctl_report`, `rabbitmqctl list_queues … name messages
//! consumers`); masakari-engine logs (optional: a `Processing notification` after the
//! first 202 means the engine consumes); masakari.conf (optional: `masakari_topic`).
//!
//! Logic (measuring): the 202 answers to `POST …/notifications`; the engine's `Processing
//! notification` lines after the first; the queues named as the topic with messages and
//! no consumer. Telling: one finding when notifications were accepted, none processed, and
//! the queue shows nobody consuming.

use std::collections::BTreeSet;

use crate::detect::evidence::{self, host_name, of_events};
use crate::detect::finding::{Evidence, Finding, Remediation, Severity};
use crate::detect::{DetectContext, Detector};
use crate::model::{EventId, EventsById, Project};
use evacdoc_parsers::capture::{Capture, QueueRow};

/// The detector.
#[derive(Debug)]
pub struct EngineNotConsuming;

/// Masakari's default RPC topic, the queue of its engines.
const DEFAULT_TOPIC: &str = "ha_engine";

/// Notifications accepted and never taken.
#[derive(Clone, Debug, PartialEq)]
pub struct NotConsumed {
    /// The 202 answers to `POST …/notifications`.
    pub accepted: Vec<EventId>,
    /// The engine's queue rows with messages and no consumer (file, row).
    pub queues: Vec<(String, QueueRow)>,
    /// The topic looked for.
    pub topic: String,
}

/// The engine's topic: `masakari_topic` when a masakari.conf sets it.
fn topic(ctx: &DetectContext<'_>) -> String {
    ctx.analysis
        .config
        .iter()
        .rev()
        .find(|c| c.service == "masakari" && c.section == "DEFAULT" && c.option == "masakari_topic")
        .map_or_else(|| DEFAULT_TOPIC.to_string(), |c| c.value.trim().to_string())
}

/// Whether a request answered 202 to `POST …/notifications`.
fn accepts_notification(method: &str, path: &str, status: u16) -> bool {
    method == "POST"
        && path
            .split('?')
            .next()
            .is_some_and(|p| p.ends_with("/notifications"))
        && status == 202
}

/// Whether `e` is masakari-api's own request line (its eventlet server, logger
/// `masakari.masakari_api.wsgi.server`, in Nova's eventlet format: `127.0.0.1 "POST
/// /v1/<project>/notifications HTTP/1.1" status: 202 len: 782 time: 1.5807905`) answering
/// 202 to a notification. Nova's request lines carry their request parsed; this one only
/// its text.
fn own_request_accepts(e: &crate::model::Event) -> bool {
    e.logger().is_some_and(|l| l.ends_with(".wsgi.server"))
        && evacdoc_parsers::nova_request::parse_nova_request(&e.message())
            .is_ok_and(|(_, r)| accepts_notification(r.method, r.uri, r.status))
}

/// The 202 answers of masakari-api to a notification: access-log lines (Apache, uWSGI)
/// and masakari-api's own request lines.
fn accepted(ctx: &DetectContext<'_>) -> Vec<EventId> {
    let analysis = ctx.analysis;
    (0..analysis.events.len())
        .map(EventId::at)
        .filter(|&i| {
            analysis.events.by_id(i).is_some_and(|e| {
                evidence::project(analysis, e) == Project::Masakari
                    && match e.http() {
                        Some(h) => accepts_notification(&h.method, &h.path, h.status),
                        None => own_request_accepts(e),
                    }
            })
        })
        .collect()
}

/// Whether an engine logged `Processing notification` at or after `time`.
fn processed_since(ctx: &DetectContext<'_>, time: i64) -> bool {
    ctx.analysis
        .events
        .iter()
        .any(|e| e.time >= time && e.message().starts_with("Processing notification "))
}

/// Clock offset tolerated between masakari-api's and the engine's hosts when no queue
/// listing confirms the engine is absent.
const SKEW_NS: i64 = 120 * 1_000_000_000;

/// How long after the first 202 the bundle must go on, with no queue listing, before its
/// notifications count as never taken: the engine takes one within a second.
const QUIET_NS: i64 = 600 * 1_000_000_000;

/// Whether the bundle holds masakari-engine logs from at least as many hosts as
/// masakari-api answered from. Every controller usually runs both; with fewer engine
/// logs than API hosts, an engine whose log was not collected may have taken the
/// notifications, and the silence of the collected ones proves nothing.
fn engines_cover_apis(ctx: &DetectContext<'_>, accepted: &[EventId]) -> bool {
    let analysis = ctx.analysis;
    let api_hosts: BTreeSet<String> = accepted
        .iter()
        .filter_map(|&i| analysis.events.by_id(i))
        .map(|e| host_name(analysis, e))
        .collect();
    let engine_hosts: BTreeSet<String> = analysis
        .events
        .iter()
        .filter(|e| {
            e.logger().is_some_and(|l| l.starts_with("masakari.engine"))
                || analysis
                    .file(e.file)
                    .is_some_and(|f| f.service.name() == "masakari-engine")
        })
        .map(|e| host_name(analysis, e))
        .collect();
    !engine_hosts.is_empty() && engine_hosts.len() >= api_hosts.len()
}

/// Measures notifications accepted and left in the engine's queue.
pub fn measure(ctx: &DetectContext<'_>) -> Option<NotConsumed> {
    let topic = topic(ctx);
    let queues: Vec<(String, QueueRow)> = ctx
        .analysis
        .captures
        .iter()
        .filter_map(|c| match &c.capture {
            Capture::RabbitQueues(rows) => Some((c, rows)),
            _ => None,
        })
        .flat_map(|(c, rows)| rows.iter().map(move |r| (c.file.clone(), r.clone())))
        .filter(|(_, r)| r.name == topic && r.consumers == 0 && r.messages > 0)
        .collect();
    let accepted = accepted(ctx);
    let first = ctx.analysis.events.by_id(*accepted.first()?)?.time;
    if queues.is_empty() {
        // No queue listing (Kolla and plain folders carry none): the engines' own logs
        // must be in the bundle (as many hosts as the API's), say nothing of the
        // notifications within a clock offset of the first 202, and the bundle must go on
        // long after it.
        let last = ctx.analysis.events.iter().map(|e| e.time).max()?;
        if !engines_cover_apis(ctx, &accepted)
            || processed_since(ctx, first.saturating_sub(SKEW_NS))
            || last < first.saturating_add(QUIET_NS)
        {
            return None;
        }
    } else if processed_since(ctx, first) {
        return None;
    }
    Some(NotConsumed {
        accepted,
        queues,
        topic,
    })
}

impl Detector for EngineNotConsuming {
    fn id(&self) -> &'static str {
        "engine-not-consuming"
    }

    fn doc(&self) -> &'static str {
        "masakari-api accepted notifications (202) that no engine processed, and RabbitMQ shows the \
         engine's queue (ha_engine) holding messages with no consumer: no recovery ever started."
    }

    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding> {
        measure(ctx)
            .map(|m| self.tell(ctx, &m))
            .into_iter()
            .collect()
    }
}

impl EngineNotConsuming {
    fn tell(&self, ctx: &DetectContext<'_>, m: &NotConsumed) -> Finding {
        let analysis = ctx.analysis;
        let ids: Vec<EventId> = m.accepted.iter().copied().take(5).collect();
        let mut evidence = of_events(analysis, ids.iter().copied());
        evidence.extend(m.queues.iter().map(|(file, r)| Evidence {
            path: file.clone(),
            line: r.line,
            host: String::new(),
            timestamp: None,
            text: r.text.clone(),
        }));
        let api_host = ids
            .first()
            .and_then(|&i| analysis.events.by_id(i))
            .map(|e| host_name(analysis, e))
            .unwrap_or_default();
        let waiting: u64 = m.queues.iter().map(|(_, r)| r.messages).max().unwrap_or(0);
        let topic = &m.topic;
        let count = m.accepted.len();
        let (severity, title, queue_words) = if m.queues.is_empty() {
            (
                Severity::Warning,
                format!(
                    "No Masakari engine processed the {count} notification(s) masakari-api accepted"
                ),
                format!(
                    " The bundle holds no RabbitMQ queue listing to show queue {topic} without a consumer \
                     (`rabbitmqctl list_queues name messages consumers`)."
                ),
            )
        } else {
            (
                Severity::Critical,
                format!(
                    "No Masakari engine consumed the notifications: queue {topic} has {waiting} message(s) and no consumer"
                ),
                format!(" RabbitMQ's queue {topic} holds {waiting} message(s) with 0 consumers."),
            )
        };
        Finding {
            id: format!("{}:{topic}", self.id()).into(),
            detector: self.id(),
            severity,
            title,
            summary: format!(
                "masakari-api (on {api_host}) accepted {count} notification(s) with 202 and no masakari-engine logged \
                 `Processing notification` after the first;{queue_words}"
            ),
            failed_host: None,
            instance_uuids: Vec::new(),
            notification_id: None,
            request_ids: evidence::request_ids(analysis, &ids),
            window: evidence::window(analysis, &m.accepted),
            evidence,
            explanation: format!(
                "masakari-api stores a notification and casts it to the engines on the RPC topic {topic}; it answers \
                 202 before any engine has it. Every engine consumes that queue. With no consumer the casts wait \
                 there: no recovery starts and the notifications stay `new` until an engine connects (the \
                 engine's periodic task may then retry them)."
            ),
            remediation: Remediation::advice(format!(
                "Start or restart masakari-engine and check its log for the AMQP connection (its transport_url must \
                 name the same broker and vhost as masakari-api's, and masakari_topic must match); once queue \
                 {topic} has a consumer, check the notifications (`openstack notification list`) and evacuate by \
                 hand the hosts whose notification stays new."
            )),
            known_bugs: Vec::new(),
            highlights: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::detect::context::testing::findings;

    const API: &str = "ctl1/var/log/masakari/masakari-api.log";
    const ENGINE: &str = "ctl1/var/log/masakari/masakari-engine.log";
    const QUEUES: &str = "ctl1/sos_commands/rabbitmq/rabbitmqctl_list_queues";

    /// masakari-api 22.0.0's own request line (eventlet server), as the real-stack
    /// `noengine` scenario logged it.
    const ACCEPTED: &str = "2026-12-06 22:18:18.080 26832 INFO masakari.masakari_api.wsgi.server [None req-f00a7fce-fa5b-4439-8588-6a1a4e726701 215fa6b1d51042dab5b095f6dcbef348 b01019a4165b40ce95a7234f7322b072 - - default default] 127.0.0.1 \"POST /v1/b01019a4165b40ce95a7234f7322b072/notifications HTTP/1.1\" status: 202 len: 782 time: 1.5807905\n";

    /// `rabbitmqctl list_queues name messages consumers` of RabbitMQ 3.12 once the
    /// engine had stopped.
    const LISTING: &str = "Timeout: 60.0 seconds ...\nListing queues for vhost / ...\nname\tmessages\tconsumers\nha_engine.ctl1\t0\t0\nha_engine_fanout_547112c2ad534d969ed3da50f64f1957\t0\t0\nha_engine\t1\t0\n";

    #[test]
    fn masakari_api_own_request_line_counts_as_accepted() {
        let found = findings(
            "engine-not-consuming",
            &[(API, ACCEPTED), (QUEUES, LISTING)],
        );
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(found[0].title.contains("queue ha_engine has 1 message(s)"));
        assert!(
            found[0]
                .evidence
                .iter()
                .any(|e| e.text.contains("status: 202"))
        );
    }

    #[test]
    fn an_engine_processing_after_the_202_is_no_finding() {
        let engine = "2026-12-06 22:18:18.400 26901 INFO masakari.engine.manager [None req-f00a7fce-fa5b-4439-8588-6a1a4e726701 215fa6b1d51042dab5b095f6dcbef348 b01019a4165b40ce95a7234f7322b072 - - default default] Processing notification ef016fa8-438e-4bc3-a80b-b1e7e004703e of type: COMPUTE_HOST\n";
        let found = findings(
            "engine-not-consuming",
            &[(API, ACCEPTED), (ENGINE, engine), (QUEUES, LISTING)],
        );
        assert!(found.is_empty(), "{found:#?}");
    }

    /// Kolla's masakari-api under Apache: the 202s only in its access log (Kolla's
    /// LogFormat: X-Forwarded-For, %b, %D); no queue listing in the bundle.
    const KOLLA_ACCESS: &str = "ctl-1/var/log/kolla/masakari/masakari-api-access.log";
    const KOLLA_202S: &str = "10.10.10.31 - - [02/Dec/2024:03:33:03 +0000] \"POST /v1/notifications HTTP/1.1\" 202 912 84213 \"-\" \"openstacksdk/3.0.0 keystoneauth1/5.6.0 python-requests/2.31.0 CPython/3.10.12\"\n\
        10.10.10.33 - - [02/Dec/2024:03:48:03 +0000] \"POST /v1/notifications HTTP/1.1\" 202 912 80117 \"-\" \"openstacksdk/3.0.0 keystoneauth1/5.6.0 python-requests/2.31.0 CPython/3.10.12\"\n";
    const KOLLA_ENGINE: &str = "ctl-2/var/log/kolla/masakari/masakari-engine.log";

    #[test]
    fn accepted_and_never_processed_without_a_queue_listing_is_a_warning() {
        let engine = "2024-12-02 01:33:03.000 25 INFO masakari.service [-] Starting masakari-engine node (version 17.0.1)\n";
        let found = findings(
            "engine-not-consuming",
            &[(KOLLA_ACCESS, KOLLA_202S), (KOLLA_ENGINE, engine)],
        );
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].severity, crate::detect::Severity::Warning);
        // no engine log in the bundle: nothing can be said
        assert!(findings("engine-not-consuming", &[(KOLLA_ACCESS, KOLLA_202S)]).is_empty());
        // an engine 48 s behind the API's clock processed it: no finding
        let skewed = format!(
            "{engine}2024-12-02 03:32:15.400 25 INFO masakari.engine.manager [None req-0e5a8c1b-3d2f-4a6b-9c7d-8e1f2a3b4c5d 0f1e2d3c4b5a69788796a5b4c3d2e1f0 a1b2c3d4e5f60718293a4b5c6d7e8f90 - - default default] Processing notification 1074fa31-8d64-42b0-b67c-44900766430c of type: COMPUTE_HOST\n"
        );
        assert!(
            findings(
                "engine-not-consuming",
                &[(KOLLA_ACCESS, KOLLA_202S), (KOLLA_ENGINE, &skewed)]
            )
            .is_empty()
        );
    }

    /// Two controllers answered 202 but only one controller's engine log was collected:
    /// the other engine (log not in the bundle) may have taken them, so nothing is said;
    /// with both engines' logs silent, the warning stands.
    #[test]
    fn an_uncollected_engine_log_is_no_evidence_of_silence() {
        let engine = "2024-12-02 01:33:03.000 25 INFO masakari.service [-] Starting masakari-engine node (version 17.0.1)\n";
        let (first, second) = KOLLA_202S.split_at(KOLLA_202S.find('\n').unwrap() + 1);
        let ctl3_access = "ctl-3/var/log/kolla/masakari/masakari-api-access.log";
        let one_engine = [
            (KOLLA_ACCESS, first),
            (ctl3_access, second),
            (KOLLA_ENGINE, engine),
        ];
        let found = findings("engine-not-consuming", &one_engine);
        assert!(found.is_empty(), "{found:#?}");
        let ctl3_engine = "ctl-3/var/log/kolla/masakari/masakari-engine.log";
        let both_engines = [
            (KOLLA_ACCESS, first),
            (ctl3_access, second),
            (KOLLA_ENGINE, engine),
            (ctl3_engine, engine),
        ];
        assert_eq!(findings("engine-not-consuming", &both_engines).len(), 1);
    }

    #[test]
    fn a_refused_notification_is_not_accepted() {
        let refused = ACCEPTED.replace("status: 202", "status: 400");
        assert!(
            findings(
                "engine-not-consuming",
                &[(API, &refused), (QUEUES, LISTING)]
            )
            .is_empty()
        );
    }
}
