//! Plans over an in-memory cloud: the order of the calls, what is moved and what not.

use super::*;
use crate::recovery::test_cloud::{State, TestCloud, server, service, volume};

const WEB: &str = "56ce6206-3659-495e-a6ea-f4d3d578cc96";
const BATCH: &str = "8d3a2f10-5b7e-4c1d-9f2a-6e4b3c2d1a02";
const DB: &str = "2b6f0c8e-1d4a-4e3b-8c7d-5a9e0f1b2c01";
const SHARED: &str = "2b6f0c8e-1d4a-4e3b-8c7d-5a9e0f1b2c02";

fn cloud(up: bool) -> TestCloud {
    TestCloud::new(State {
        service: Some(service(up)),
        servers: vec![
            server(BATCH, "batch-1", false, &[]),
            server(DB, "db-1", true, &["vol-db"]),
            server(SHARED, "shared-1", true, &["vol-shared"]),
            server(WEB, "web-1", true, &[]),
        ],
        volumes: vec![
            volume("vol-db", DB, false),
            volume("vol-shared", SHARED, true),
        ],
        ..State::default()
    })
}

fn summary(plan: &Plan) -> Vec<String> {
    plan.steps
        .iter()
        .map(|s| {
            let who = s.instance.as_deref().map(|i| &i[..8]).unwrap_or("host");
            format!(
                "{who} {} {}",
                s.method,
                s.path.split('?').next().unwrap_or("")
            )
        })
        .collect()
}

#[tokio::test]
async fn a_down_host_plans_disable_then_each_move_locked_cleared_evacuated_followed_unlocked() {
    let cloud = cloud(false);
    let plan = plan(&cloud, "compute-1", &RecoveryOptions::default())
        .await
        .unwrap();
    assert_eq!(plan.host_action, HostAction::AlreadyDown);
    // HA-enabled first, in Nova's order, then the others.
    let order: Vec<&str> = plan.moves.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(order, ["db-1", "shared-1", "web-1", "batch-1"]);
    let steps = summary(&plan);
    assert_eq!(
        steps[..10],
        [
            "host GET /os-services",
            "host GET /os-services",
            "host GET /servers/detail",
            "host PUT /os-services/5f0c3a9e-1d2b-4c3d-8e4f-000000000001",
            "2b6f0c8e POST /servers/2b6f0c8e-1d4a-4e3b-8c7d-5a9e0f1b2c01/action",
            "2b6f0c8e DELETE /attachments/att-vol-db",
            "2b6f0c8e POST /servers/2b6f0c8e-1d4a-4e3b-8c7d-5a9e0f1b2c01/action",
            "2b6f0c8e GET /servers/2b6f0c8e-1d4a-4e3b-8c7d-5a9e0f1b2c01",
            "2b6f0c8e POST /servers/2b6f0c8e-1d4a-4e3b-8c7d-5a9e0f1b2c01/action",
            // The multiattach volume is not cleared.
            "2b6f0c8e POST /servers/2b6f0c8e-1d4a-4e3b-8c7d-5a9e0f1b2c02/action",
        ]
    );
    assert_eq!(
        plan.steps[1].why,
        "read: 1 of 4 nova-compute services down (at most 50 % allowed), 1 of 1 \
         nova-scheduler up"
    );
    assert!(plan.steps[4].why.starts_with("lock"));
    assert!(plan.steps[6].why.starts_with("evacuate"));
    assert!(plan.steps[8].why.starts_with("unlock"));
    assert_eq!(plan.moves[1].attachments, []);
    // Planning only reads.
    assert!(cloud.calls().iter().all(|call| {
        ["compute_service", "services", "servers_on_host", "volume"]
            .iter()
            .any(|read| call.starts_with(read))
    }));
}

#[tokio::test]
async fn an_up_host_plans_a_bounded_wait_unless_fenced_then_a_force_down() {
    let options = RecoveryOptions::default();
    let waiting = plan(&cloud(true), "compute-1", &options).await.unwrap();
    assert_eq!(waiting.host_action, HostAction::WaitThenRefuse);
    assert_eq!(waiting.steps[3].method, "WAIT");
    assert!(
        waiting.steps[3].why.contains("up to 80s"),
        "{}",
        waiting.steps[3].why
    );

    let fenced = RecoveryOptions {
        host_fenced: true,
        ..RecoveryOptions::default()
    };
    let forcing = plan(&cloud(true), "compute-1", &fenced).await.unwrap();
    assert_eq!(forcing.host_action, HostAction::ForceDown);
    let steps = summary(&forcing);
    assert_eq!(
        steps[3],
        "host PUT /os-services/5f0c3a9e-1d2b-4c3d-8e4f-000000000001"
    );
    assert!(forcing.steps[3].why.contains("forced_down=true"));
    assert!(forcing.steps[4].why.starts_with("disable"));
}

#[tokio::test]
async fn masakari_selection_ignores_non_ha_and_error_instances_when_asked() {
    let cloud = cloud(false);
    cloud.state.lock().unwrap().servers[3].status = "ERROR".to_owned();
    let options = RecoveryOptions {
        selection: crate::recovery::Selection {
            all_instances: false,
            ignore_error_instances: true,
            ..Default::default()
        },
        ..RecoveryOptions::default()
    };
    let plan = plan(&cloud, "compute-1", &options).await.unwrap();
    let ignored: Vec<(&str, bool)> = plan
        .moves
        .iter()
        .map(|m| (m.name.as_str(), m.ignored.is_some()))
        .collect();
    assert_eq!(
        ignored,
        [
            ("db-1", false),
            ("shared-1", false),
            ("web-1", true),
            ("batch-1", true)
        ]
    );
    assert!(
        plan.moves[2]
            .ignored
            .as_deref()
            .unwrap()
            .contains("error state")
    );
    assert!(
        plan.moves[3]
            .ignored
            .as_deref()
            .unwrap()
            .contains("HA_Enabled")
    );
}

#[tokio::test]
async fn a_host_nova_does_not_know_gives_no_plan() {
    let cloud = TestCloud::new(State::default());
    let error = plan(&cloud, "compute-9", &RecoveryOptions::default())
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "nova has no nova-compute service on host compute-9"
    );
}

#[tokio::test]
async fn too_many_computes_down_or_no_scheduler_up_gives_no_plan_and_reads_no_server() {
    use crate::recovery::test_cloud::other;
    let cloud = cloud(false);
    cloud.state.lock().unwrap().others = Some(vec![
        other("nova-scheduler", "controller-0", true),
        other("nova-compute", "compute-2", false),
        other("nova-compute", "compute-3", true),
    ]);
    let error = plan(&cloud, "compute-1", &RecoveryOptions::default())
        .await
        .unwrap_err();
    assert!(matches!(
        error,
        PlanError::Guard(GuardError::TooManyComputesDown {
            down: 2,
            total: 3,
            max_percent: 50
        })
    ));
    assert_eq!(error.code(), "too_many_computes_down");
    assert!(
        error
            .to_string()
            .contains("2 of 3 nova-compute services are down")
    );
    assert!(
        !cloud
            .calls()
            .iter()
            .any(|c| c.starts_with("servers_on_host"))
    );
    // A higher share allowed plans it.
    let options = RecoveryOptions {
        max_down_percent: 70,
        ..RecoveryOptions::default()
    };
    assert!(plan(&cloud, "compute-1", &options).await.is_ok());

    cloud.state.lock().unwrap().others = Some(vec![
        other("nova-scheduler", "controller-0", false),
        other("nova-compute", "compute-2", true),
    ]);
    let error = plan(&cloud, "compute-1", &RecoveryOptions::default())
        .await
        .unwrap_err();
    assert_eq!(error.code(), "no_scheduler_up");
}

#[tokio::test]
async fn a_host_not_declared_fenced_is_a_warning_of_the_plan_a_fenced_one_is_not() {
    let unfenced = plan(&cloud(false), "compute-1", &RecoveryOptions::default())
        .await
        .unwrap();
    assert_eq!(unfenced.warnings.len(), 1);
    assert!(
        unfenced.warnings[0].starts_with(
            "compute-1 is not declared fenced (--host-fenced): evacuating a host that may \
             still run its instances risks data corruption"
        ),
        "{:?}",
        unfenced.warnings
    );
    let report = crate::recovery::RecoveryReport::planned(&unfenced, "cli");
    assert!(
        report
            .text()
            .contains("  WARNING: compute-1 is not declared fenced")
    );
    let fenced = RecoveryOptions {
        host_fenced: true,
        ..RecoveryOptions::default()
    };
    let fenced = plan(&cloud(false), "compute-1", &fenced).await.unwrap();
    assert_eq!(fenced.warnings, Vec::<String>::new());
    let json =
        serde_json::to_value(crate::recovery::RecoveryReport::planned(&fenced, "cli")).unwrap();
    assert!(json.get("warnings").is_none(), "{json}");
}

#[tokio::test]
async fn a_host_an_earlier_recovery_disabled_is_resumed_from_novas_state() {
    let cloud = cloud(false);
    {
        let mut state = cloud.state.lock().unwrap();
        let service = state.service.as_mut().unwrap();
        service.enabled = false;
        service.forced_down = true;
        service.disabled_reason = Some("Masakari detected host failed.".to_owned());
        // One instance moved already by that recovery, one still rebuilding.
        state.servers[0].host = Some("compute-2".to_owned());
        state.servers[1].task_state = Some("rebuilding".to_owned());
    }
    let resumed = plan(&cloud, "compute-1", &RecoveryOptions::default())
        .await
        .unwrap();
    assert_eq!(
        resumed.steps[0].why,
        "read: nova-compute on compute-1 is down, disabled, forced down; disabled by an \
         earlier recovery (\"Masakari detected host failed.\"): resumed from nova's state, \
         only what is still on the host is moved"
    );
    assert!(!resumed.disable, "disabled already");
    assert_eq!(resumed.moves.len(), 3);
    assert!(resumed.moves.iter().any(|m| m.evacuating));
    // An operator's own reason is not a recovery's.
    cloud
        .state
        .lock()
        .unwrap()
        .service
        .as_mut()
        .unwrap()
        .disabled_reason = Some("maintenance".to_owned());
    let again = plan(&cloud, "compute-1", &RecoveryOptions::default())
        .await
        .unwrap();
    assert!(!again.steps[0].why.contains("earlier recovery"));
}
