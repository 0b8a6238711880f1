//! A throwaway PostgreSQL cluster on a loopback port, for tests and the queue benchmark:
//! Debian's `initdb` and `pg_ctl` (`/usr/lib/postgresql/*/bin`) make and start a cluster
//! in a temporary folder, and it is stopped (immediately) and removed when dropped.
//!
//! As root, PostgreSQL refuses to run: the cluster then belongs to the `postgres` user
//! (its folder handed to it, the commands run through `runuser`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Set to `1` (CI): a machine without PostgreSQL fails the tests instead of skipping them.
pub const REQUIRE_ENV: &str = "EVACDOC_REQUIRE_POSTGRES";

const USER: &str = "evacdoc";
const PASSWORD: &str = "throwaway-cluster-password";

/// Why a cluster could not be had.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    #[error("no PostgreSQL server binaries (looked for /usr/lib/postgresql/*/bin/initdb): {hint}")]
    NotInstalled { hint: &'static str },
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{command} failed ({status}): {output}")]
    Command {
        command: String,
        status: String,
        output: String,
    },
}

/// A running cluster; stopped and removed on drop.
#[derive(Debug)]
pub struct ThrowawayCluster {
    bin: PathBuf,
    data: PathBuf,
    port: u16,
    as_postgres: bool,
    dir: tempfile::TempDir,
}

impl ThrowawayCluster {
    /// A started cluster, or `None` (the reason printed) when PostgreSQL is not installed
    /// and [`REQUIRE_ENV`] is not `1`.
    pub fn start_or_skip() -> Result<Option<ThrowawayCluster>, ClusterError> {
        match ThrowawayCluster::start() {
            Err(ClusterError::NotInstalled { .. })
                if std::env::var(REQUIRE_ENV).as_deref() != Ok("1") =>
            {
                eprintln!(
                    "skipped: no PostgreSQL server binaries here (apt-get install postgresql; \
                     {REQUIRE_ENV}=1 makes this a failure)"
                );
                Ok(None)
            }
            other => other.map(Some),
        }
    }

    /// Makes and starts a cluster on a free loopback port.
    pub fn start() -> Result<ThrowawayCluster, ClusterError> {
        let bin = server_bin()?;
        let as_postgres = running_as_root();
        let dir = tempfile::Builder::new()
            .prefix("evacdoc-pg-")
            .tempdir()
            .map_err(|source| io("cannot make a temporary folder", source))?;
        let data = dir.path().join("data");
        let run = dir.path().join("run");
        let pwfile = dir.path().join("pwfile");
        std::fs::write(&pwfile, PASSWORD).map_err(|e| io("cannot write the password file", e))?;
        std::fs::create_dir(&run).map_err(|e| io("cannot make the socket folder", e))?;
        if as_postgres {
            hand_to_postgres(dir.path(), &[&run, &pwfile])?;
        }
        let mut cluster = ThrowawayCluster {
            bin,
            data,
            port: 0,
            as_postgres,
            dir,
        };
        cluster.run(
            "initdb",
            &[
                "-D".as_ref(),
                cluster.data.as_os_str(),
                "-U".as_ref(),
                USER.as_ref(),
                "--pwfile".as_ref(),
                pwfile.as_os_str(),
                "--auth-host=scram-sha-256".as_ref(),
                "--auth-local=trust".as_ref(),
                "-E".as_ref(),
                "UTF8".as_ref(),
                "--no-sync".as_ref(),
            ],
        )?;
        // A port freed just before the start may be taken in between: a few tries.
        let mut last = None;
        for _ in 0..3 {
            cluster.port = free_port()?;
            let options = format!(
                "-p {} -h 127.0.0.1 -k {} -c fsync=off -c synchronous_commit=off \
                 -c full_page_writes=off -c max_connections=200",
                cluster.port,
                run.display()
            );
            let log = cluster.dir.path().join("server.log");
            match cluster.run(
                "pg_ctl",
                &[
                    "-D".as_ref(),
                    cluster.data.as_os_str(),
                    "-o".as_ref(),
                    options.as_ref(),
                    "-l".as_ref(),
                    log.as_os_str(),
                    "-w".as_ref(),
                    "-t".as_ref(),
                    "60".as_ref(),
                    "start".as_ref(),
                ],
            ) {
                Ok(()) => return Ok(cluster),
                Err(error) => last = Some(error),
            }
        }
        Err(last.unwrap_or(ClusterError::NotInstalled {
            hint: "the server did not start",
        }))
    }

    /// The loopback port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `postgres://USER:PASS@127.0.0.1:PORT/DATABASE`.
    pub fn url(&self, database: &str) -> String {
        format!(
            "postgres://{USER}:{PASSWORD}@127.0.0.1:{}/{database}",
            self.port
        )
    }

    /// Makes an empty database `name` (letters, digits, `_`) and returns its URL.
    pub fn create_database(&self, name: &str) -> Result<String, ClusterError> {
        let safe = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !safe {
            return Err(ClusterError::Command {
                command: "CREATE DATABASE".to_owned(),
                status: "refused".to_owned(),
                output: format!("{name:?} is not a plain database name"),
            });
        }
        let mut client = postgres::Client::connect(&self.url("postgres"), postgres::NoTls)
            .map_err(|e| ClusterError::Command {
                command: "connect".to_owned(),
                status: "error".to_owned(),
                output: e.to_string(),
            })?;
        client
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .map_err(|e| ClusterError::Command {
                command: format!("CREATE DATABASE {name}"),
                status: "error".to_owned(),
                output: e.to_string(),
            })?;
        Ok(self.url(name))
    }

    /// Runs one of the server's commands, as `postgres` when we are root.
    fn run(&self, name: &str, args: &[&std::ffi::OsStr]) -> Result<(), ClusterError> {
        let program = self.bin.join(name);
        let mut command = if self.as_postgres {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(&program);
            command
        } else {
            Command::new(&program)
        };
        command.args(args).current_dir(self.dir.path());
        let output = command
            .output()
            .map_err(|e| io(&format!("cannot run {}", program.display()), e))?;
        if output.status.success() {
            return Ok(());
        }
        Err(ClusterError::Command {
            command: name.to_owned(),
            status: output.status.to_string(),
            output: format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ),
        })
    }
}

impl Drop for ThrowawayCluster {
    fn drop(&mut self) {
        if self.port == 0 {
            return;
        }
        let stopped = self.run(
            "pg_ctl",
            &[
                "-D".as_ref(),
                self.data.as_os_str(),
                "-m".as_ref(),
                "immediate".as_ref(),
                "-w".as_ref(),
                "stop".as_ref(),
            ],
        );
        if let Err(error) = stopped {
            eprintln!("throwaway PostgreSQL cluster: cannot stop it: {error}");
        }
    }
}

/// The newest installed server's `bin` folder.
fn server_bin() -> Result<PathBuf, ClusterError> {
    let root = Path::new("/usr/lib/postgresql");
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir(root)
        .map_err(|_| ClusterError::NotInstalled {
            hint: "/usr/lib/postgresql is missing",
        })?
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = entry.path().join("bin");
            (bin.join("initdb").is_file() && bin.join("pg_ctl").is_file()).then_some((version, bin))
        })
        .collect();
    found.sort();
    found
        .pop()
        .map(|(_, bin)| bin)
        .ok_or(ClusterError::NotInstalled {
            hint: "no version folder there has initdb and pg_ctl",
        })
}

/// Whether this process runs as root (the owner of `/proc/self` is our effective user).
fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata("/proc/self").is_ok_and(|meta| meta.uid() == 0)
}

/// Gives `dir` (where initdb makes the cluster) and `owned` to `postgres`.
fn hand_to_postgres(dir: &Path, owned: &[&Path]) -> Result<(), ClusterError> {
    use std::os::unix::fs::PermissionsExt as _;
    let id = |flag: &str| -> Result<u32, ClusterError> {
        let output = Command::new("id")
            .args([flag, "postgres"])
            .output()
            .map_err(|e| io("cannot run id", e))?;
        String::from_utf8_lossy(&output.stdout)
            .trim()
            .parse()
            .map_err(|_| ClusterError::NotInstalled {
                hint: "running as root and there is no postgres user to run the server",
            })
    };
    let (uid, gid) = (id("-u")?, id("-g")?);
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| io("cannot set the temporary folder's mode", e))?;
    // initdb makes the data folder itself, inside this folder, which postgres owns.
    for path in owned.iter().copied().chain([dir]) {
        std::os::unix::fs::chown(path, Some(uid), Some(gid))
            .map_err(|e| io(&format!("cannot give {} to postgres", path.display()), e))?;
    }
    Ok(())
}

fn free_port() -> Result<u16, ClusterError> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| io("cannot find a free loopback port", e))?;
    listener
        .local_addr()
        .map(|addr| addr.port())
        .map_err(|e| io("cannot find a free loopback port", e))
}

fn io(what: &str, source: std::io::Error) -> ClusterError {
    ClusterError::Io {
        what: what.to_owned(),
        source,
    }
}
