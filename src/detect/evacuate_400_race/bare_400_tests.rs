//! A bare 400 quoted by Masakari is the race only when it answers an evacuate call.

use crate::detect::context::testing::findings;

#[test]
fn a_bare_400_to_another_action_is_not_the_race() {
    let i = "6307306f-f3eb-4496-a751-db87e94fb0d6";
    let q = "6246a5f0-b0e6-4ecf-b80c-3fe380f00470";
    let engine = format!(
        "2022-06-14 08:43:12.344 27 INFO masakari.compute.nova [req-605a521d-6b51-44da-835c-d6e99aea0b63 nova - - - -] Call reset state command on instance {i} to status: error.\n\
         2022-06-14 08:43:12.764 27 WARNING masakari.engine.drivers.taskflow.host_failure [req-28825d14-81a7-43b4-ba3a-16b082b0a451 nova - - - -] Invalid input received: Bad request (HTTP 400) (Request-ID: req-{q}): masakari.exception.InvalidInput: Invalid input received: Bad request (HTTP 400) (Request-ID: req-{q})\n"
    );
    let api = format!(
        "2022-06-14 08:43:12.724 25 INFO nova.api.openstack.requestlog [req-{q} 08a0419364fb7ad609c321afda575cd1 feb5d25ac552ffcca04733134c03b994 - default default] 10.30.0.11 \"POST /v2.1/servers/{i}/action\" status: 400 len: 85 microversion: 2.53 time: 0.360000\n"
    );
    let found = findings(
        "evacuate-400-race",
        &[
            ("ctl01/var/log/kolla/masakari/masakari-engine.log", &engine),
            ("ctl01/var/log/kolla/nova/nova-api.log", &api),
        ],
    );
    assert!(found.is_empty(), "{found:#?}");
    // The same 400 answering an evacuate call is the race, bare as it is.
    let evacuate = engine.replace(
        &format!("Call reset state command on instance {i} to status: error."),
        &format!("Call evacuate command for instance {i} on host None"),
    );
    let found = findings(
        "evacuate-400-race",
        &[
            (
                "ctl01/var/log/kolla/masakari/masakari-engine.log",
                &evacuate,
            ),
            ("ctl01/var/log/kolla/nova/nova-api.log", &api),
        ],
    );
    assert_eq!(found.len(), 1, "{found:#?}");
}
