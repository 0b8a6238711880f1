//! The recovery executor against the in-process simulator, over real HTTP through the
//! OpenStack client: the SRU test plan of seed 001, the evacuate race, boot-from-volume,
//! random faults, a remediation from a bundle's finding, and the speed comparison with
//! Masakari's flow.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use evacdoc::recovery::openstack::{ConnectOptions, OpenStack};
use evacdoc::recovery::{Cloud, RecoveryOptions, RetryPolicy, Server, apply, plan};
use evacdoc::sim::clouds_yaml::clouds_yaml;
use evacdoc::sim::{RunningSim, Scenario, start};
use evacdoc::store::{MoveStatus, RecoveryRow, RecoveryStatus, SqliteStore};
use serde_json::Value;
use tempfile::TempDir;

use crate::masakari_flow::{EngineLog, MasakariTimings, masakari_host_recovery};

/// A simulator, its clouds.yaml, a signed-in client and a store, in one folder.
pub(crate) struct Bench {
    pub(crate) sim: RunningSim,
    pub(crate) cloud: OpenStack,
    pub(crate) store: SqliteStore,
    pub(crate) dir: TempDir,
    scale: f64,
}

pub(crate) fn scenario_file(name: &str) -> String {
    std::fs::read_to_string(crate::util::samples().join("sim").join(name)).unwrap()
}

/// The sample scenario `name`, `scale` times faster, with its faults or without.
fn sample(name: &str, scale: f64, keep_faults: bool) -> Scenario {
    let mut scenario = Scenario::parse(&scenario_file(name)).unwrap();
    scenario.timing.time_scale = scale;
    if !keep_faults {
        scenario.faults.clear();
    }
    scenario
}

impl Bench {
    pub(crate) async fn start(scenario: Scenario, with_logs: bool) -> Bench {
        let dir = tempfile::tempdir().unwrap();
        let scale = scenario.timing.time_scale;
        let logs = with_logs.then(|| dir.path().join("logs"));
        let sim = start(scenario, "127.0.0.1:0".parse().unwrap(), logs.as_deref())
            .await
            .unwrap();
        std::fs::write(
            dir.path().join("clouds.yaml"),
            clouds_yaml(&sim.scenario(), &sim.auth_url()),
        )
        .unwrap();
        let cloud = OpenStack::connect_with_env(
            &ConnectOptions {
                cloud: Some("evacdoc-sim".into()),
                config_file: Some(dir.path().join("clouds.yaml")),
            },
            &BTreeMap::new(),
        )
        .await
        .unwrap();
        let store = SqliteStore::open(&dir.path().join("data")).unwrap();
        Bench {
            sim,
            cloud,
            store,
            dir,
            scale,
        }
    }

    pub(crate) fn clouds_yaml(&self) -> PathBuf {
        self.dir.path().join("clouds.yaml")
    }

    pub(crate) fn log_dir(&self) -> PathBuf {
        self.dir.path().join("logs")
    }

    /// The executor's options at this simulator's speed: Nova's 60 s is 60/scale here.
    pub(crate) fn options(&self, fenced: bool) -> RecoveryOptions {
        RecoveryOptions {
            host_fenced: fenced,
            service_down_time: Duration::from_secs_f64(60.0 / self.scale),
            down_margin: Duration::from_secs_f64(10.0 / self.scale),
            rebuild_timeout: Duration::from_secs(20),
            poll_interval: Duration::from_millis(25),
            retry: RetryPolicy {
                attempts: 4,
                conflict_attempts: 6,
                base_delay: Duration::from_millis(10),
                max_delay: Duration::from_millis(80),
            },
            ..RecoveryOptions::default()
        }
    }

    async fn recover(&self, host: &str, options: &RecoveryOptions) -> RecoveryRow {
        let planned = plan(&self.cloud, host, options).await.unwrap();
        apply(
            &self.cloud,
            &self.store,
            &planned,
            options,
            "cli",
            &evacdoc::recovery::Quiet,
        )
        .await
        .unwrap()
    }

    /// Every server of the cloud, wherever it is.
    pub(crate) async fn servers(&self) -> Vec<Server> {
        let mut all = Vec::new();
        for host in self.sim.scenario().hosts {
            all.extend(self.cloud.servers_on_host(&host.name).await.unwrap());
        }
        all
    }

    pub(crate) fn nova_access_log(&self) -> String {
        let path = self
            .log_dir()
            .join("controller-0/var/log/apache2/nova-api-os-compute_access.log");
        std::fs::read_to_string(path).unwrap_or_default()
    }
}

/// What every run must leave: no move open, each closed one with times and a message,
/// `finished` only when all moves succeeded or were ignored.
fn assert_closed(row: &RecoveryRow) {
    for m in &row.moves {
        assert!(
            !matches!(m.status, MoveStatus::Pending | MoveStatus::Ongoing),
            "{m:?}"
        );
        assert!(
            m.started.is_some() && m.ended.is_some() && m.message.is_some(),
            "{m:?}"
        );
    }
    let all_good = row
        .moves
        .iter()
        .all(|m| matches!(m.status, MoveStatus::Succeeded | MoveStatus::Ignored));
    if row.status == RecoveryStatus::Finished {
        assert!(all_good, "{row:#?}");
    }
    assert!(row.ended.is_some());
}

const SRU_VM: &str = "0f7e3c2a-9b1d-4e6f-8a2c-3d4e5f6a7b01";

/// `evacdoc recover host ...` against `bench`'s simulator; its JSON report and exit code.
fn recover_command(bench: &Bench, extra: &[&str]) -> (Value, i32, String) {
    let mut args = vec!["recover", "host", "compute-1", "--retry-delay", "0.01"];
    args.extend_from_slice(extra);
    on_sim(bench, &args)
}

/// `evacdoc ARGS` on `bench`'s cloud and data folder, polling fast, reporting in JSON.
pub(crate) fn on_sim(bench: &Bench, args: &[&str]) -> (Value, i32, String) {
    let data = bench.dir.path().join("data");
    let mut all = args.to_vec();
    all.extend([
        "--cloud",
        "evacdoc-sim",
        "--format",
        "json",
        "--data",
        data.to_str().unwrap(),
        "--poll-interval",
        "0.05",
    ]);
    command_json(bench, &all)
}

fn command_json(bench: &Bench, args: &[&str]) -> (Value, i32, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_evacdoc"))
        .args(args)
        .env("OS_CLIENT_CONFIG_FILE", bench.clouds_yaml())
        .env_remove("OS_CLOUD")
        .output()
        .unwrap();
    let stderr = crate::util::stderr(&output);
    let document = serde_json::from_str(&crate::util::stdout(&output))
        .unwrap_or_else(|e| panic!("{e}: {}\n{stderr}", crate::util::stdout(&output)));
    (document, output.status.code().unwrap_or(-1), stderr)
}

/// `evacdoc remediate BUNDLE --finding FINDING --apply` (and `extra`) on the bench's
/// cloud, which must end `finished` with exit code 0; its JSON document.
fn remediate_finished(bench: &Bench, bundle: &Path, finding: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "remediate",
        bundle.to_str().unwrap(),
        "--finding",
        finding,
        "--apply",
    ];
    args.extend_from_slice(extra);
    let (document, code, stderr) = tokio::task::block_in_place(|| on_sim(bench, &args));
    assert_eq!(
        (document["status"].as_str(), code),
        (Some("finished"), 0),
        "{document}\n{stderr}"
    );
    document
}

pub(crate) async fn run_command(bench: &Bench, extra: &[&str]) -> (Value, i32, String) {
    let extra: Vec<String> = extra.iter().map(|s| (*s).to_owned()).collect();
    tokio::task::block_in_place(|| {
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        recover_command(bench, &extra)
    })
}

pub(crate) fn action_posts(access_log: &str) -> Vec<&str> {
    access_log
        .lines()
        .filter(|line| line.contains("\"POST /compute/v2.1/servers/") && line.contains("/action"))
        .collect()
}

/// Masakari's flow on compute-1 with a short sleep after disabling it: it races Nova,
/// which still sees the host up, and every instance stays down. Its engine log is `log`.
async fn masakari_races_nova(bench: &Bench, log: &EngineLog) {
    let timings = MasakariTimings {
        wait_after_disable: Duration::from_secs(2),
        ..MasakariTimings::defaults_at(1.0)
    };
    let outcome = masakari_host_recovery(&bench.cloud, "compute-1", timings, Some(log)).await;
    assert!(
        outcome.iter().all(|(_, back)| back.is_none()),
        "{outcome:?}"
    );
}

/// The race sample played in the simulator by Masakari's flow (its engine log written
/// for `notification`), which leaves every instance down.
pub(crate) async fn race_in_the_sim(notification: &str) -> Bench {
    // Real time: the engine log's times and the simulator's must agree.
    let toml = scenario_file("evacuate-race.toml").replace("rebuild_s = 5", "rebuild_s = 1");
    let bench = Bench::start(Scenario::parse(&toml).unwrap(), true).await;
    let log = EngineLog::new(&bench.log_dir(), "controller-0", notification);
    masakari_races_nova(&bench, &log).await;
    bench
}

/// Random faults.
mod faults;
/// The loop from logs to remediation.
mod loops;
/// The executor's plans.
mod plans;
