//! Re-enabling over an in-memory cloud: the two steps in order, Nova's refusal while
//! evacuations remain, a reason that is not a recovery's left alone.

use std::time::Duration;

use super::*;
use crate::recovery::Quiet;
use crate::recovery::retry::RetryPolicy;
use crate::recovery::test_cloud::{State, TestCloud, service};

fn options() -> RecoveryOptions {
    RecoveryOptions {
        service_down_time: Duration::from_millis(40),
        down_margin: Duration::from_millis(10),
        poll_interval: Duration::from_millis(5),
        retry: RetryPolicy {
            attempts: 2,
            conflict_attempts: 2,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(2),
        },
        ..RecoveryOptions::default()
    }
}

/// compute-1 as a recovery left it: forced down, disabled with the executor's reason.
fn recovered() -> TestCloud {
    let mut left = service(false);
    left.forced_down = true;
    left.enabled = false;
    left.disabled_reason = Some(crate::recovery::options::DISABLE_REASON.to_owned());
    TestCloud::new(State {
        service: Some(left),
        ..State::default()
    })
}

#[tokio::test]
async fn forced_up_then_seen_up_then_enabled_in_that_order() {
    let cloud = recovered();
    let done = reenable(&cloud, "compute-1", &options(), &Quiet)
        .await
        .unwrap();
    assert!(matches!(
        done,
        Reenabled::Enabled {
            forced_up: true,
            ..
        }
    ));
    let calls: Vec<String> = cloud
        .calls()
        .into_iter()
        .map(|c| c.split(' ').next().unwrap().to_owned())
        .collect();
    assert_eq!(
        calls,
        ["compute_service", "force_down", "compute_service", "enable"]
    );
    let state = cloud.state.lock().unwrap();
    let service = state.service.as_ref().unwrap();
    assert!(service.enabled && !service.forced_down && service.disabled_reason.is_none());
}

#[tokio::test]
async fn done_evacuations_are_a_typed_refusal_naming_the_records_and_nothing_is_enabled() {
    let cloud = recovered();
    cloud.state.lock().unwrap().done_evacuations = true;
    let error = reenable(&cloud, "compute-1", &options(), &Quiet)
        .await
        .unwrap_err();
    let ReenableError::EvacuationsRemain {
        host, remaining, ..
    } = &error
    else {
        panic!("{error:?}");
    };
    assert_eq!(host, "compute-1");
    assert_eq!(remaining.len(), 1);
    assert_eq!(error.code(), "evacuations_remain");
    let text = error.to_string();
    assert!(
        text.contains("1 evacuation(s) from it are still `done`"),
        "{text}"
    );
    assert!(text.contains("start nova-compute there"), "{text}");
    assert!(
        text.contains("Nova said: Unable to force up host compute-1"),
        "{text}"
    );
    // Refused once, not retried as a failure would be; never enabled.
    let calls = cloud.calls();
    assert_eq!(
        calls.iter().filter(|c| c.starts_with("force_down")).count(),
        1
    );
    assert!(!calls.iter().any(|c| c.starts_with("enable")));
}

#[tokio::test]
async fn a_host_that_never_comes_up_is_left_disabled() {
    let cloud = recovered();
    cloud.state.lock().unwrap().stays_down = true;
    let error = reenable(&cloud, "compute-1", &options(), &Quiet)
        .await
        .unwrap_err();
    assert!(matches!(error, ReenableError::NotUp { .. }), "{error:?}");
    assert!(!cloud.calls().iter().any(|c| c.starts_with("enable")));
}

#[tokio::test]
async fn an_operators_own_disable_reason_is_left_alone() {
    let cloud = TestCloud::new(State {
        service: Some(ComputeService {
            enabled: false,
            disabled_reason: Some("RAM replacement, ticket 4411".to_owned()),
            ..service(true)
        }),
        ..State::default()
    });
    let done = reenable(&cloud, "compute-1", &options(), &Quiet)
        .await
        .unwrap();
    assert_eq!(
        done,
        Reenabled::LeftDisabled {
            reason: Some("RAM replacement, ticket 4411".to_owned())
        }
    );
    assert!(!cloud.calls().iter().any(|c| c.starts_with("enable")));
}

#[test]
fn only_novas_answer_is_recognized() {
    let answer = |status, message: &str| CloudError::Status {
        method: "PUT".to_owned(),
        path: "/os-services/x".to_owned(),
        status,
        message: message.to_owned(),
    };
    let nova = "Unable to force up host cmp1 as `done` evacuation migration records remain \
                associated with the host. Ensure the compute service has been restarted, \
                allowing these records to move to `completed` before retrying this request.";
    assert!(is_evacuations_remain(&answer(400, nova)));
    assert!(!is_evacuations_remain(&answer(500, nova)));
    assert!(!is_evacuations_remain(&answer(400, "Invalid uuid x")));
}
