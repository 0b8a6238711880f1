//! Random faults at every kind of call the executor makes.

use super::*;

/// Where a random fault can hit: every kind of call the executor makes.
const FAULT_PATHS: [(&str, &str); 7] = [
    ("GET", "^/compute/v2\\.1/os-services"),
    ("PUT", "^/compute/v2\\.1/os-services"),
    ("GET", "^/compute/v2\\.1/servers/detail"),
    ("GET", "^/compute/v2\\.1/servers/[0-9a-f-]{36}$"),
    ("POST", "^/compute/v2\\.1/servers/[0-9a-f-]{36}/action"),
    ("GET", "^/volume/v3/.*/volumes/"),
    ("DELETE", "^/volume/v3/.*/attachments/"),
];

fn with_faults(faults: &[(usize, u16, u64)]) -> Scenario {
    let mut toml = scenario_file("bfv-host.toml").replace("rebuild_s = 10", "rebuild_s = 2");
    for (path, status, count) in faults {
        let (method, regex) = FAULT_PATHS[*path];
        toml.push_str(&format!(
            "\n[[faults]]\nmethod = \"{method}\"\npath_regex = '{regex}'\nstatus = {status}\ncount = {count}\n"
        ));
    }
    let mut scenario = Scenario::parse(&toml).unwrap();
    scenario.timing.time_scale = 20.0;
    scenario
}

mod random_faults {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 6, failure_persistence: None, ..ProptestConfig::default() })]

        /// Whatever fails, and however often (up to the retry bound), no move is left
        /// open, no instance locked, and `finished` means every move succeeded.
        #[test]
        fn random_faults_never_leave_a_move_open_an_instance_locked_or_a_false_finish(
            faults in proptest::collection::vec(
                (0..FAULT_PATHS.len(), prop_oneof![Just(500u16), Just(503), Just(409), Just(400), Just(404)], 1..=3u64),
                1..4,
            ),
        ) {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async {
                let bench = Bench::start(with_faults(&faults), false).await;
                let options = bench.options(false);
                let row = match plan(&bench.cloud, "compute-1", &options).await {
                    Ok(planned) => apply(&bench.cloud, &bench.store, &planned, &options, "cli", &evacdoc::recovery::Quiet)
                        .await
                        .unwrap(),
                    // A plan that cannot be read changes nothing.
                    Err(_) => {
                        bench.sim.shutdown().await;
                        return;
                    }
                };
                assert_closed(&row);
                for server in bench.servers().await {
                    assert!(!server.locked, "{} left locked with faults {faults:?}: {row:#?}", server.id);
                }
                bench.sim.shutdown().await;
            });
        }
    }
}
