//! The whole loop: Masakari's flow races Nova in the simulator, the finding is made from
//! the logs and remediated; a killed run; `watch` with a policy.

use super::*;

/// The loop closes: Masakari's flow with a short sleep races Nova in the simulator, the
/// logs of both give `evacuate-400-race`, and `remediate` of that finding (fenced)
/// brings the instances back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_loop_closes_a_race_in_the_sim_analyzed_then_remediated() {
    let notification = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f";
    let bench = race_in_the_sim(notification).await;

    let log_dir = bench.log_dir();
    let report = tokio::task::block_in_place(|| {
        evacdoc::run::analyze_inputs(std::slice::from_ref(&log_dir), &Default::default())
    })
    .unwrap();
    let finding = report
        .findings
        .iter()
        .find(|f| f.detector == "evacuate-400-race")
        .unwrap_or_else(|| panic!("{:#?}", report.findings));
    assert_eq!(finding.failed_host.as_deref(), Some("compute-1"));
    assert_eq!(finding.id, format!("evacuate-400-race:{notification}"));

    remediate_finished(&bench, &log_dir, &finding.id, &["--host-fenced"]);
    for server in bench.servers().await {
        assert_eq!(server.status, "ACTIVE", "{server:?}");
        assert_ne!(server.host.as_deref(), Some("compute-1"), "{server:?}");
        assert!(!server.locked);
    }
    bench.sim.shutdown().await;
}

/// evacdoc killed mid-run: the next start marks the recovery and its open move failed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_run_is_marked_failed_at_the_next_start() {
    let toml = scenario_file("sru-nova-503.toml").replace("rebuild_s = 3", "rebuild_s = 60");
    let mut scenario = Scenario::parse(&toml).unwrap();
    scenario.faults.clear();
    let bench = Bench::start(scenario, false).await;
    let data = bench.dir.path().join("data-killed");
    let args = [
        "recover",
        "host",
        "compute-1",
        "--cloud",
        "evacdoc-sim",
        "--apply",
        "--data",
        data.to_str().unwrap(),
        "--poll-interval",
        "0.05",
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_evacdoc"))
        .args(args)
        .env("OS_CLIENT_CONFIG_FILE", bench.clouds_yaml())
        .env_remove("OS_CLOUD")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the move is under way (the evacuation takes 60 s), then kill -9.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let server = bench.cloud.server(SRU_VM).await.unwrap();
        if server.task_state.is_some() {
            break;
        }
        assert!(Instant::now() < deadline, "the run never evacuated");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    child.kill().unwrap();
    child.wait().unwrap();

    // The next start (a dry run does not open the journal; an apply does).
    let (second, _, stderr) = tokio::task::block_in_place(|| {
        let mut again: Vec<&str> = args.to_vec();
        again.extend(["--rebuild-timeout", "0.2", "--format", "json"]);
        command_json(&bench, &again)
    });
    assert!(
        stderr.contains("recovery 1 had been interrupted"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("released the lock recovery 1 left on {SRU_VM}")),
        "{stderr}"
    );
    let store = SqliteStore::open(&data).unwrap();
    let killed = evacdoc::store::RecoveryJournal::recovery(&store, 1)
        .unwrap()
        .unwrap();
    assert_eq!(killed.status, RecoveryStatus::Failed);
    assert_closed(&killed);
    assert!(
        killed.moves[0]
            .message
            .as_deref()
            .unwrap()
            .starts_with("interrupted")
    );
    // The lock the killed run left (evacdoc's reason) was released by the next one.
    let server = bench.cloud.server(SRU_VM).await.unwrap();
    assert!(!server.locked, "{server:?}\n{second}");
    bench.sim.shutdown().await;
}

/// The whole chain, live: Masakari's flow races Nova in the simulator while `watch`
/// follows the logs; the finding is emitted once the recovery ends, the policy remediates
/// it with the executor (not fenced: it waits for Nova to see the host down), and the
/// instances are back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_finds_the_race_and_the_policy_remediates_it() {
    use evacdoc::recovery::remediator::ExecutorRemediator;
    use evacdoc::store::RecoveryJournal as _;
    use evacdoc::trigger::{Outcome, Policy, Trigger, TriggerCounters};
    use evacdoc::watch::{WatchOptions, Watcher};
    use std::sync::Arc;

    // Real time; Nova sees a dead host down after 6 s, so the flow's 2 s wait races it.
    let toml = scenario_file("evacuate-race.toml")
        .replace("rebuild_s = 5", "rebuild_s = 1")
        .replace("service_down_time = 60", "service_down_time = 6")
        .replace("report_interval = 10", "report_interval = 2");
    let bench = Bench::start(Scenario::parse(&toml).unwrap(), true).await;
    let log_dir = bench.log_dir();
    let notification = "0c2d3e4f-5a6b-4c7d-8e9f-a0b1c2d3e4f5";
    let log = EngineLog::new(&log_dir, "controller-0", notification);
    let mut watcher = Watcher::new(
        std::slice::from_ref(&log_dir),
        WatchOptions {
            poll: Duration::from_millis(50),
            from_start: true,
            ..WatchOptions::default()
        },
    )
    .unwrap();
    masakari_races_nova(&bench, &log).await;
    let ended = Instant::now();

    let finding = tokio::task::spawn_blocking(move || {
        loop {
            if let Some(found) = watcher
                .poll()
                .into_iter()
                .find(|f| f.detector == "evacuate-400-race")
            {
                return found;
            }
            assert!(ended.elapsed() < Duration::from_secs(20), "no finding");
            std::thread::sleep(watcher.poll_interval());
        }
    })
    .await
    .unwrap();
    assert_eq!(finding.id, format!("evacuate-400-race:{notification}"));
    assert_eq!(finding.failed_host.as_deref(), Some("compute-1"));

    let policy = Policy::parse(
        "[guards]\ncooldown_secs = 0\n\n[[rule]]\ndetector = \"evacuate-400-race\"\n\
         action = \"remediate\"\napply = true\ncloud = \"evacdoc-sim\"\n",
    )
    .unwrap();
    let remediator = ExecutorRemediator {
        journal: Some(Arc::new(
            SqliteStore::open(&bench.dir.path().join("data")).unwrap(),
        )),
        options: bench.options(false),
        config_file: Some(bench.clouds_yaml()),
    };
    let trigger = Trigger::new(
        policy,
        None,
        Some(Arc::new(remediator)),
        Arc::new(TriggerCounters::default()),
    );
    let decisions = trigger.handle(&finding).await;
    assert_eq!(decisions.len(), 1, "{decisions:?}");
    assert_eq!(decisions[0].outcome, Outcome::Applied, "{decisions:?}");
    for server in bench.servers().await {
        assert_eq!(server.status, "ACTIVE", "{server:?}");
        assert_ne!(server.host.as_deref(), Some("compute-1"), "{server:?}");
        assert!(!server.locked, "{server:?}");
    }
    // The journal holds the recovery, started by the finding.
    let recoveries = bench.store.recoveries(10).unwrap();
    assert_eq!(recoveries[0].source, finding.id);
    assert_eq!(recoveries[0].status, RecoveryStatus::Finished);
    bench.sim.shutdown().await;
}
