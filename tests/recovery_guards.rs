//! The executor's guards against the simulator, over real HTTP: InstanceHA's (no
//! evacuation when more than a share of the computes is down, or no scheduler is up),
//! read from Nova's `GET /os-services`, refused before any call that changes something;
//! a host given back to Nova in two steps, refused as Nova refuses it while its
//! evacuations are still `done`.

use std::time::{Duration, Instant};

use evacdoc::recovery::{Cloud, GuardError, PlanError, Quiet, ReenableError, plan, reenable};
use evacdoc::sim::Scenario;

use crate::recovery::{Bench, action_posts, on_sim, run_command};

const WEB: &str = "56ce6206-3659-495e-a6ea-f4d3d578cc96";

/// compute-1 (the failed host, down) and `down` more computes down, of `computes`.
fn fleet(computes: usize, down: usize, extra: &str) -> Scenario {
    let mut toml = format!("[nova]\n{extra}\n[timing]\ntime_scale = 20\nrebuild_s = 1\n");
    for n in 1..=computes {
        let state = if n <= down + 1 { "down" } else { "up" };
        toml.push_str(&format!(
            "[[hosts]]\nname = \"compute-{n}\"\nstate = \"{state}\"\n"
        ));
    }
    toml.push_str(&format!(
        "[[instances]]\nid = \"{WEB}\"\nname = \"web-1\"\nhost = \"compute-1\"\n"
    ));
    Scenario::parse(&toml).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn more_than_half_the_computes_down_is_refused_before_any_change() {
    let bench = Bench::start(fleet(4, 2, ""), true).await;
    let error = plan(&bench.cloud, "compute-1", &bench.options(true))
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            PlanError::Guard(GuardError::TooManyComputesDown {
                down: 3,
                total: 4,
                max_percent: 50
            })
        ),
        "{error}"
    );
    assert_eq!(error.code(), "too_many_computes_down");

    // The CLI says why, exits 1, and journals the refusal; Nova saw only reads.
    let (_, code, stderr) = run_command_text(&bench, &["--apply", "--host-fenced"]).await;
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(
            "recovery of compute-1 refused: 3 of 4 nova-compute services are down or forced \
             down, more than the 50 % allowed (--max-down-percent)"
        ),
        "{stderr}"
    );
    let log = bench.nova_access_log();
    // The unfiltered list (the sdk sends it with an empty query, `os-services?`).
    assert!(
        log.lines()
            .any(|l| l.contains("\"GET /compute/v2.1/os-services") && !l.contains("binary=")),
        "{log}"
    );
    assert!(!log.contains("\"PUT "), "{log}");
    assert_eq!(action_posts(&log), Vec::<&str>::new());

    // A larger share allowed: the recovery runs.
    let (done, code, stderr) = run_command(
        &bench,
        &["--apply", "--host-fenced", "--max-down-percent", "75"],
    )
    .await;
    assert_eq!(
        (done["status"].as_str(), code),
        (Some("finished"), 0),
        "{done}\n{stderr}"
    );
    let fleet_step = &done["plan"][1];
    assert_eq!(fleet_step["path"], "/os-services", "{done}");
    assert_eq!(
        fleet_step["why"],
        "read: 3 of 4 nova-compute services down (at most 75 % allowed), 1 of 1 \
         nova-scheduler up"
    );
    bench.sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_scheduler_up_is_refused_and_half_the_computes_down_is_not() {
    let bench = Bench::start(fleet(2, 0, "scheduler_down = true"), true).await;
    let error = plan(&bench.cloud, "compute-1", &bench.options(true))
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            PlanError::Guard(GuardError::NoSchedulerUp { listed: 1 })
        ),
        "{error}"
    );
    let (_, code, stderr) = run_command_text(&bench, &["--apply"]).await;
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("refused: no nova-scheduler service is up (1 listed)"),
        "{stderr}"
    );
    assert_eq!(action_posts(&bench.nova_access_log()), Vec::<&str>::new());
    bench.sim.shutdown().await;

    // One of two computes down is half, not more: planned, with the fencing warning
    // since the host is not declared fenced.
    let bench = Bench::start(fleet(2, 0, ""), false).await;
    let (planned, code, _) = run_command(&bench, &[]).await;
    assert_eq!((planned["status"].as_str(), code), (Some("planned"), 0));
    let warning = planned["warnings"][0].as_str().unwrap_or_default();
    assert!(
        warning.contains("not declared fenced (--host-fenced)")
            && warning.contains("risks data corruption"),
        "{planned}"
    );
    let (fenced, _, _) = run_command(&bench, &["--host-fenced"]).await;
    assert!(fenced.get("warnings").is_none(), "{fenced}");
    let planned = plan(&bench.cloud, "compute-1", &bench.options(false))
        .await
        .unwrap();
    assert_eq!(planned.fleet.down, ["compute-1"]);
    assert_eq!(
        (planned.fleet.computes, planned.fleet.schedulers_up),
        (2, 1)
    );
    bench.sim.shutdown().await;
}

/// `evacdoc recover host compute-1 ARGS` whose stdout may hold no document (a refusal
/// before any plan): its stdout, exit code and stderr.
async fn run_command_text(bench: &Bench, extra: &[&str]) -> (String, i32, String) {
    let data = bench.dir.path().join("data");
    let mut args: Vec<String> = ["recover", "host", "compute-1", "--cloud", "evacdoc-sim"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    args.extend(["--data".to_owned(), data.display().to_string()]);
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    let clouds = bench.clouds_yaml();
    tokio::task::block_in_place(|| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_evacdoc"))
            .args(&args)
            .env("OS_CLIENT_CONFIG_FILE", clouds)
            .env_remove("OS_CLOUD")
            .output()
            .unwrap();
        (
            crate::util::stdout(&output),
            output.status.code().unwrap_or(-1),
            crate::util::stderr(&output),
        )
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forcing_up_waits_for_nova_compute_to_clean_up_then_enables_in_two_steps() {
    // compute-1 dies at the start and is repaired: nova-compute starts again at 400 s
    // (8 s here).
    let scenario = Scenario::parse(&format!(
        "[timing]\ntime_scale = 50\nrebuild_s = 1\n\
         [[hosts]]\nname = \"compute-1\"\nstate = \"dead\"\nreturns_at_s = 400\n\
         [[hosts]]\nname = \"compute-2\"\n[[hosts]]\nname = \"compute-3\"\n\
         [[instances]]\nid = \"{WEB}\"\nname = \"web-1\"\nhost = \"compute-1\"\n"
    ))
    .unwrap();
    let started = Instant::now();
    let bench = Bench::start(scenario, true).await;
    let (done, code, stderr) = run_command(&bench, &["--apply", "--host-fenced"]).await;
    assert_eq!(
        (done["status"].as_str(), code),
        (Some("finished"), 0),
        "{done}\n{stderr}"
    );

    // Nova's 400, typed, with the record it is about; nothing changed.
    let mut options = bench.options(true);
    options.service_down_time = Duration::from_millis(300);
    let error = reenable(&bench.cloud, "compute-1", &options, &Quiet)
        .await
        .unwrap_err();
    let ReenableError::EvacuationsRemain {
        remaining, message, ..
    } = &error
    else {
        panic!("{error:?}");
    };
    assert_eq!(remaining.len(), 1, "{remaining:?}");
    assert_eq!(remaining[0].instance, WEB);
    assert_eq!(remaining[0].status, "done");
    assert!(
        message.starts_with(
            "Unable to force up host compute-1 as `done` evacuation migration records remain \
             associated with the host."
        ),
        "{message}"
    );
    let service = bench
        .cloud
        .compute_service("compute-1")
        .await
        .unwrap()
        .unwrap();
    assert!(service.forced_down && !service.enabled, "{service:?}");
    let log = bench.nova_access_log();
    assert!(
        log.lines()
            .any(|l| l.contains("\"PUT /compute/v2.1/os-services/") && l.contains("\" 400 ")),
        "{log}"
    );

    // The CLI says the same, in its JSON report, and exits 1.
    let (refused, code, _) = tokio::task::block_in_place(|| {
        on_sim(&bench, &["recover", "enable", "compute-1", "--apply"])
    });
    assert_eq!(code, 1, "{refused}");
    assert_eq!(refused["code"], "evacuations_remain", "{refused}");
    assert_eq!(refused["remaining"][0]["instance"], WEB, "{refused}");

    // nova-compute started again: the records are `completed`, the host is forced up,
    // seen up, then enabled.
    let back = Duration::from_millis(8300);
    if let Some(left) = back.checked_sub(started.elapsed()) {
        tokio::time::sleep(left).await;
    }
    let (enabled, code, stderr) = tokio::task::block_in_place(|| {
        on_sim(&bench, &["recover", "enable", "compute-1", "--apply"])
    });
    assert_eq!(
        (enabled["outcome"].as_str(), code),
        (Some("enabled"), 0),
        "{enabled}\n{stderr}"
    );
    let service = bench
        .cloud
        .compute_service("compute-1")
        .await
        .unwrap()
        .unwrap();
    assert!(
        service.up && service.enabled && !service.forced_down,
        "{service:?}"
    );
    assert_eq!(bench.cloud.done_evacuations("compute-1").await.unwrap(), []);
    // Two PUTs after the refusals: forced_down false, then status enabled.
    let log = bench.nova_access_log();
    let puts: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("\"PUT /compute/v2.1/os-services/"))
        .map(|l| l.split("HTTP/1.1\" ").nth(1).unwrap_or(""))
        .collect::<Vec<_>>();
    let last_two: Vec<&str> = puts[puts.len() - 2..].iter().map(|p| &p[..3]).collect();
    assert_eq!(last_two, ["200", "200"], "{puts:?}");
    bench.sim.shutdown().await;
}
