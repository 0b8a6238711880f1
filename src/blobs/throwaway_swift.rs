//! A throwaway Swift all-in-one on loopback ports, for tests and benchmarks: Debian's
//! `swift-proxy`, `swift-object`, `swift-container`, `swift-account` (and `memcached`,
//! where tempauth keeps its tokens), one device each in a temporary folder, rings made
//! with `swift-ring-builder`, `mount_check = false`, tempauth with one user, and the
//! proxy's `s3api` middleware so the same server answers S3 (access key `test:tester`,
//! secret `testing`). Every process is killed and the folder removed when dropped.
//!
//! Tempauth is Swift's v1 auth, not Keystone: the `clouds.yaml` it writes names the
//! cloud with `auth_type: v1password` (see `blobs::swift_auth`).

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Set to `1` (CI): a machine without Swift fails the tests instead of skipping them.
pub const REQUIRE_ENV: &str = "EVACDOC_REQUIRE_SWIFT";

/// tempauth's account, user and key (also the S3 keys through s3api).
pub const ACCOUNT_USER: &str = "test:tester";
pub const KEY: &str = "testing";
/// The cloud name of the `clouds.yaml` written.
pub const CLOUD: &str = "throwaway-swift";

const SERVERS: [&str; 3] = ["account", "container", "object"];

/// Why Swift could not be had.
#[derive(Debug, thiserror::Error)]
pub enum SwiftError {
    #[error(
        "Swift is not installed ({hint}): apt-get install swift-proxy swift-object swift-container swift-account memcached"
    )]
    NotInstalled { hint: String },
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{command} failed: {output}")]
    Command { command: String, output: String },
    #[error("the proxy did not answer on port {port} within 60 s; logs: {logs}")]
    NotReady { port: u16, logs: String },
}

/// A running Swift all-in-one; stopped and removed on drop.
#[derive(Debug)]
pub struct ThrowawaySwift {
    children: Vec<Child>,
    proxy_port: u16,
    dir: tempfile::TempDir,
}

fn io(what: &str, source: std::io::Error) -> SwiftError {
    SwiftError::Io {
        what: what.to_owned(),
        source,
    }
}

fn free_port() -> Result<u16, SwiftError> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| io("cannot find a free loopback port", e))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| io("cannot find a free loopback port", e))
}

fn installed() -> Result<(), SwiftError> {
    for program in [
        "/usr/bin/swift-proxy-server",
        "/usr/bin/swift-object-server",
        "/usr/bin/swift-container-server",
        "/usr/bin/swift-account-server",
        "/usr/bin/swift-ring-builder",
        "/usr/bin/memcached",
    ] {
        if !Path::new(program).is_file() {
            return Err(SwiftError::NotInstalled {
                hint: format!("no {program}"),
            });
        }
    }
    // The servers read the hash path prefix and suffix from this file only.
    if !Path::new("/etc/swift/swift.conf").is_file() {
        return Err(SwiftError::NotInstalled {
            hint: "no /etc/swift/swift.conf (the packages' own)".into(),
        });
    }
    Ok(())
}

fn user_name() -> String {
    Command::new("id")
        .arg("-un")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "root".into())
}

fn write(path: &Path, text: &str) -> Result<(), SwiftError> {
    std::fs::write(path, text).map_err(|e| io(&format!("cannot write {}", path.display()), e))
}

impl ThrowawaySwift {
    /// A started Swift, or `None` (the reason printed) when it is not installed and
    /// [`REQUIRE_ENV`] is not `1`.
    pub fn start_or_skip() -> Result<Option<ThrowawaySwift>, SwiftError> {
        match ThrowawaySwift::start() {
            Err(SwiftError::NotInstalled { hint })
                if std::env::var(REQUIRE_ENV).as_deref() != Ok("1") =>
            {
                eprintln!(
                    "skipped: Swift is not installed here ({hint}; {REQUIRE_ENV}=1 makes this a failure)"
                );
                Ok(None)
            }
            other => other.map(Some),
        }
    }

    /// Builds the rings and starts memcached, the three storage servers and the proxy.
    /// A port chosen free can be taken by another process before the server binds it
    /// (tests start servers in parallel): a start whose proxy is not the one answering
    /// is made again with other ports, three times at most.
    pub fn start() -> Result<ThrowawaySwift, SwiftError> {
        let mut tries = 0;
        loop {
            tries += 1;
            match ThrowawaySwift::start_once() {
                Err(SwiftError::NotReady { .. }) if tries < 3 => continue,
                other => return other,
            }
        }
    }

    fn start_once() -> Result<ThrowawaySwift, SwiftError> {
        installed()?;
        let dir = tempfile::Builder::new()
            .prefix("evacdoc-swift-")
            .tempdir()
            .map_err(|e| io("cannot make a temporary folder", e))?;
        let etc = dir.path().join("etc");
        let devices = dir.path().join("node");
        for folder in [&etc, &devices.join("d1")] {
            std::fs::create_dir_all(folder).map_err(|e| io("cannot make a folder", e))?;
        }
        let mut swift = ThrowawaySwift {
            children: Vec::new(),
            proxy_port: free_port()?,
            dir,
        };
        let memcached_port = free_port()?;
        let user = user_name();
        let mut ports = Vec::new();
        for server in SERVERS {
            let port = free_port()?;
            ports.push(port);
            build_ring(&etc, server, port)?;
            write(
                &etc.join(format!("{server}-server.conf")),
                &format!(
                    "[DEFAULT]\nbind_ip = 127.0.0.1\nbind_port = {port}\nworkers = 0\n\
                     user = {user}\ndevices = {}\nmount_check = false\nswift_dir = {}\n\
                     log_level = WARNING\n\n\
                     [pipeline:main]\npipeline = {server}-server\n\n\
                     [app:{server}-server]\nuse = egg:swift#{server}\n\n\
                     [{server}-replicator]\n[{server}-updater]\n[{server}-auditor]\n",
                    devices.display(),
                    etc.display()
                ),
            )?;
        }
        write(
            &etc.join("proxy-server.conf"),
            &format!(
                "[DEFAULT]\nbind_ip = 127.0.0.1\nbind_port = {}\nworkers = 0\nuser = {user}\n\
                 swift_dir = {}\nlog_level = WARNING\n\n\
                 [pipeline:main]\npipeline = catch_errors gatekeeper healthcheck proxy-logging \
                 cache listing_formats bulk s3api tempauth copy slo dlo proxy-logging proxy-server\n\n\
                 [app:proxy-server]\nuse = egg:swift#proxy\naccount_autocreate = true\n\n\
                 [filter:catch_errors]\nuse = egg:swift#catch_errors\n\
                 [filter:gatekeeper]\nuse = egg:swift#gatekeeper\n\
                 [filter:healthcheck]\nuse = egg:swift#healthcheck\n\
                 [filter:proxy-logging]\nuse = egg:swift#proxy_logging\n\
                 [filter:cache]\nuse = egg:swift#memcache\nmemcache_servers = 127.0.0.1:{memcached_port}\n\
                 [filter:listing_formats]\nuse = egg:swift#listing_formats\n\
                 [filter:bulk]\nuse = egg:swift#bulk\n\
                 [filter:s3api]\nuse = egg:swift#s3api\nlocation = us-east-1\n\
                 [filter:tempauth]\nuse = egg:swift#tempauth\nuser_test_tester = {KEY} .admin\n\
                 [filter:copy]\nuse = egg:swift#copy\n\
                 [filter:slo]\nuse = egg:swift#slo\n\
                 [filter:dlo]\nuse = egg:swift#dlo\n",
                swift.proxy_port,
                etc.display()
            ),
        )?;
        swift.spawn(
            "memcached",
            Command::new("/usr/bin/memcached").args([
                "-l",
                "127.0.0.1",
                "-p",
                &memcached_port.to_string(),
                "-U",
                "0",
                "-u",
                &user,
                "-m",
                "16",
            ]),
        )?;
        for server in SERVERS {
            let conf = etc.join(format!("{server}-server.conf"));
            swift.spawn(
                server,
                Command::new(format!("/usr/bin/swift-{server}-server")).arg(&conf),
            )?;
        }
        swift.spawn(
            "proxy",
            Command::new("/usr/bin/swift-proxy-server").arg(etc.join("proxy-server.conf")),
        )?;
        let mut waits = vec![swift.proxy_port, memcached_port];
        waits.extend(ports);
        swift.wait_listening(&waits)?;
        swift.wait_healthy()?;
        Ok(swift)
    }

    /// Waits until the proxy on its port is this one: its healthcheck answers `OK` while
    /// every server still runs (a server whose port another process took exits, and the
    /// other process answers something else).
    fn wait_healthy(&mut self) -> Result<(), SwiftError> {
        let deadline = Instant::now() + Duration::from_secs(40);
        loop {
            let exited = self
                .children
                .iter_mut()
                .any(|c| c.try_wait().ok().flatten().is_some());
            if !exited && self.healthy() {
                return Ok(());
            }
            if exited || Instant::now() > deadline {
                return Err(SwiftError::NotReady {
                    port: self.proxy_port,
                    logs: self.logs(),
                });
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Whether `GET /healthcheck` on the proxy's port answers `200` and `OK`.
    fn healthy(&self) -> bool {
        use std::io::{Read, Write};
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.proxy_port)) else {
            return false;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
        if stream
            .write_all(b"GET /healthcheck HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            .is_err()
        {
            return false;
        }
        let mut answer = String::new();
        let _ = stream.take(64 << 10).read_to_string(&mut answer);
        answer.starts_with("HTTP/1.") && answer.contains(" 200 ") && answer.ends_with("OK")
    }

    fn spawn(&mut self, name: &str, command: &mut Command) -> Result<(), SwiftError> {
        let log = self.dir.path().join(format!("{name}.log"));
        let out = std::fs::File::create(&log).map_err(|e| io("cannot make a log file", e))?;
        let err = out
            .try_clone()
            .map_err(|e| io("cannot make a log file", e))?;
        let child = command
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .map_err(|e| io(&format!("cannot start {name}"), e))?;
        self.children.push(child);
        Ok(())
    }

    fn wait_listening(&mut self, ports: &[u16]) -> Result<(), SwiftError> {
        let deadline = Instant::now() + Duration::from_secs(60);
        for port in ports {
            while TcpStream::connect(("127.0.0.1", *port)).is_err() {
                let exited = self
                    .children
                    .iter_mut()
                    .any(|c| c.try_wait().ok().flatten().is_some());
                if exited || Instant::now() > deadline {
                    return Err(SwiftError::NotReady {
                        port: *port,
                        logs: self.logs(),
                    });
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        Ok(())
    }

    /// The servers' logs so far (for a failure's message).
    pub fn logs(&self) -> String {
        let mut all = String::new();
        for name in ["memcached", "account", "container", "object", "proxy"] {
            let text = std::fs::read_to_string(self.dir.path().join(format!("{name}.log")))
                .unwrap_or_default();
            if !text.trim().is_empty() {
                all.push_str(&format!("\n--- {name}\n{}", text.trim()));
            }
        }
        all
    }

    /// The proxy's port.
    pub fn port(&self) -> u16 {
        self.proxy_port
    }

    /// `http://127.0.0.1:PORT`: the S3 endpoint (s3api).
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.proxy_port)
    }

    /// The v1 auth URL (tempauth).
    pub fn auth_url(&self) -> String {
        format!("{}/auth/v1.0", self.endpoint())
    }

    /// Writes a `clouds.yaml` naming this Swift as cloud [`CLOUD`] (`auth_type:
    /// v1password`) and returns its path.
    pub fn clouds_yaml(&self) -> Result<PathBuf, SwiftError> {
        let path = self.dir.path().join("clouds.yaml");
        write(
            &path,
            &format!(
                "clouds:\n  {CLOUD}:\n    auth_type: v1password\n    auth:\n      \
                 auth_url: {}\n      username: \"{ACCOUNT_USER}\"\n      password: {KEY}\n",
                self.auth_url()
            ),
        )?;
        Ok(path)
    }
}

fn build_ring(etc: &Path, server: &str, port: u16) -> Result<(), SwiftError> {
    let builder = etc.join(format!("{server}.builder"));
    let steps: [Vec<String>; 3] = [
        vec!["create".into(), "6".into(), "1".into(), "0".into()],
        vec![
            "add".into(),
            format!("r1z1-127.0.0.1:{port}/d1"),
            "100".into(),
        ],
        vec!["rebalance".into()],
    ];
    for step in steps {
        let output = Command::new("/usr/bin/swift-ring-builder")
            .arg(&builder)
            .args(&step)
            .output()
            .map_err(|e| io("cannot run swift-ring-builder", e))?;
        // 1 is a warning (e.g. a ring with one device is not balanced across zones).
        if !matches!(output.status.code(), Some(0 | 1)) {
            return Err(SwiftError::Command {
                command: format!("swift-ring-builder {server} {}", step.join(" ")),
                output: format!(
                    "{}{}",
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                ),
            });
        }
    }
    Ok(())
}

impl Drop for ThrowawaySwift {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
