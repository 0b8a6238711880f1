//! Issue 27: time from upload to findings with 1, 2 and 3 workers on loopback: one API
//! process (`serve --jobs 0`) and N `evacdoc worker`s on a throwaway PostgreSQL, the files
//! in a throwaway Swift all-in-one (`swift`, the default) or a shared folder (`file`).
//! The mix: the four sample scenarios as .tar.gz and a 50 000-line nova-compute log
//! (.log.gz), each uploaded twice (10 uploads); the clock runs from the first upload to
//! the last analysis `done` (its findings served).
//!
//!   cargo run --example bench_scale [swift|file] [WORKERS...]
//!   EVACDOC=path   the binary (default target/debug/evacdoc: build it first)
//!   BENCH_SCALE_BUNDLES=a.tar.gz:b.tar.xz   upload these files (each once) in place of
//!                  the mix: a bench mix packed as one bundle gives GB per hour per worker

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use evacdoc::blobs::throwaway_swift::{CLOUD, ThrowawaySwift};
use evacdoc::store::throwaway::ThrowawayCluster;

const TOKEN: &str = "bench-scale-token-0123456789";
const SCENARIOS: [&str; 4] = [
    "2020-juju-evacuate-race",
    "2022-juju-pending-after-finished-yoga",
    "2024-sunbeam-bfv-delay",
    "2024-sosreports-two-timezones",
];

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn tarball(scenario: &str) -> anyhow::Result<Vec<u8>> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples/scenarios")
        .join(scenario);
    let encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut builder = tar::Builder::new(encoder);
    builder.append_dir_all(scenario, &folder)?;
    Ok(builder.into_inner()?.finish()?)
}

fn slow_log() -> anyhow::Result<Vec<u8>> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    for i in 0..50_000u32 {
        let (m, s, ms) = ((i / 6000) % 60, (i / 100) % 60, i % 1000);
        writeln!(
            encoder,
            "2024-10-08 06:{m:02}:{s:02}.{ms:03} 1187 INFO nova.compute.manager [req-6f2b1c9e-3d4a-4e5f-8a7b-{i:012} - - - - -] [instance: 8f0d3c52-1a7e-4b39-9c61-2e5b7a4d9f10] Took 0.{ms:03} seconds to build instance."
        )?;
    }
    Ok(encoder.finish()?)
}

fn start(
    binary: &Path,
    args: &[String],
    env: &[(String, String)],
    log: &Path,
) -> anyhow::Result<Killed> {
    let child = Command::new(binary)
        .args(args)
        .envs(env.iter().cloned())
        .env("EVACDOC_TOKEN", TOKEN)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log)?)
        .spawn()?;
    Ok(Killed(child))
}

fn base_url(log: &Path) -> anyhow::Result<String> {
    let started = Instant::now();
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if let Some(line) = text.lines().find(|l| l.starts_with("evacdoc: serving on ")) {
            return Ok(line["evacdoc: serving on ".len()..]
                .trim_end_matches('/')
                .to_owned());
        }
        anyhow::ensure!(
            started.elapsed() < Duration::from_secs(120),
            "no start: {text}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let kind = args.first().cloned().unwrap_or_else(|| "swift".into());
    let counts: Vec<usize> = args.iter().skip(1).filter_map(|a| a.parse().ok()).collect();
    let counts = if counts.is_empty() {
        vec![1, 2, 3]
    } else {
        counts
    };
    let binary = std::env::var("EVACDOC").map_or_else(
        |_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/debug/evacdoc"),
        PathBuf::from,
    );
    let cluster = ThrowawayCluster::start()?;
    let swift = if kind == "swift" {
        Some(ThrowawaySwift::start()?)
    } else {
        None
    };
    let given = std::env::var("BENCH_SCALE_BUNDLES").unwrap_or_default();
    let mut mix = Vec::new();
    for path in given.split(':').filter(|p| !p.is_empty()) {
        let name = Path::new(path)
            .file_name()
            .map_or_else(|| "bundle".into(), |n| n.to_string_lossy().into_owned());
        mix.push((name, std::fs::read(path)?));
    }
    let uploads: Vec<&(String, Vec<u8>)> = if mix.is_empty() {
        mix.push(("slow.log.gz".to_owned(), slow_log()?));
        for scenario in SCENARIOS {
            mix.push((format!("{scenario}.tar.gz"), tarball(scenario)?));
        }
        mix.iter().chain(mix.iter()).collect()
    } else {
        mix.iter().collect()
    };
    let bytes: usize = uploads.iter().map(|(_, b)| b.len()).sum();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let http = reqwest::Client::new();
    for (round, workers) in counts.iter().enumerate() {
        let dir = tempfile::tempdir()?;
        let store = cluster.create_database(&format!("bench{round}"))?;
        let (blobs, env) = match &swift {
            Some(swift) => (
                format!("swift://bench{round}?cloud={CLOUD}"),
                vec![(
                    "OS_CLIENT_CONFIG_FILE".to_owned(),
                    swift.clouds_yaml()?.display().to_string(),
                )],
            ),
            None => (
                format!("file://{}", dir.path().join("blobs").display()),
                Vec::new(),
            ),
        };
        let common = |data: &str| {
            vec![
                "--store".to_owned(),
                store.clone(),
                "--blobs".into(),
                blobs.clone(),
                "--data".into(),
                dir.path().join(data).display().to_string(),
            ]
        };
        let mut serve_args: Vec<String> = vec![
            "serve".into(),
            "--listen".into(),
            "127.0.0.1:0".into(),
            "--jobs".into(),
            "0".into(),
        ];
        serve_args.extend(common("api"));
        let api_log = dir.path().join("api.log");
        let _api = start(&binary, &serve_args, &env, &api_log)?;
        let base = base_url(&api_log)?;
        let _workers: Vec<Killed> = (0..*workers)
            .map(|n| {
                let mut worker_args: Vec<String> =
                    vec!["worker".into(), "--jobs".into(), "1".into()];
                worker_args.extend(common(&format!("worker-{n}")));
                start(
                    &binary,
                    &worker_args,
                    &env,
                    &dir.path().join(format!("worker-{n}.log")),
                )
            })
            .collect::<anyhow::Result<_>>()?;
        let elapsed = runtime.block_on(async {
            let started = Instant::now();
            let mut ids = Vec::new();
            for (name, body) in &uploads {
                let answer: serde_json::Value = http
                    .post(format!("{base}/api/v1/analyses?name={name}"))
                    .bearer_auth(TOKEN)
                    .header("content-type", "application/octet-stream")
                    .body(body.clone())
                    .send()
                    .await?
                    .json()
                    .await?;
                ids.push(answer["id"].as_str().unwrap_or_default().to_owned());
            }
            loop {
                let mut open = 0;
                for id in &ids {
                    let view: serde_json::Value = http
                        .get(format!("{base}/api/v1/analyses/{id}"))
                        .bearer_auth(TOKEN)
                        .send()
                        .await?
                        .json()
                        .await?;
                    match view["status"].as_str() {
                        Some("done") => {}
                        Some("failed") => anyhow::bail!("{id} failed: {view}"),
                        _ => open += 1,
                    }
                }
                if open == 0 {
                    return Ok::<_, anyhow::Error>(started.elapsed());
                }
                anyhow::ensure!(
                    started.elapsed() < Duration::from_secs(900),
                    "not done in 900 s"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })?;
        let secs = elapsed.as_secs_f64();
        println!(
            "bench_scale {kind}: {workers} worker(s), {} uploads ({:.1} MB): {secs:.1} s upload->all findings, {:.0} bundles/h, {:.2} GB/h",
            uploads.len(),
            bytes as f64 / 1e6,
            uploads.len() as f64 * 3600.0 / secs,
            bytes as f64 / 1e9 * 3600.0 / secs
        );
    }
    Ok(())
}
