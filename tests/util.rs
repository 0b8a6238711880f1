use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// The repository's `samples/` folder.
pub fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples")
}

/// Copies the tree `from` to `to`, links as links.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type().unwrap();
        if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&src).unwrap(), &dst).unwrap();
        } else if kind.is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// Runs the `evacdoc` binary with `args`.
pub fn evacdoc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_evacdoc"))
        .args(args)
        .output()
        .expect("run evacdoc")
}

/// Spawns `command`, an `evacdoc serve --listen 127.0.0.1:0 ...`, and waits for the
/// address it prints: the child and its base URL. Its standard error is drained from then
/// on, so the server never blocks on a full pipe.
pub fn spawn_serve(mut command: Command) -> (Child, String) {
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let base = loop {
        let line = lines.next().expect("serve printed its address").unwrap();
        if let Some(rest) = line.strip_prefix("evacdoc: serving on ") {
            break rest.trim_end_matches('/').to_string();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    (child, base)
}

/// Standard output as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

/// `evacdoc analyze --format json` of `bundle`, which must succeed.
pub fn analysis_json(bundle: &Path) -> serde_json::Value {
    let out = evacdoc(&["analyze", "--format", "json", bundle.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

/// Each finding of an analysis document `doc`: its id, window and instances, by id.
pub fn finding_keys(
    doc: &serde_json::Value,
) -> Vec<(String, serde_json::Value, serde_json::Value)> {
    let mut found: Vec<_> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["id"].as_str().unwrap().to_string(),
                f["window"].clone(),
                f["instance_uuids"].clone(),
            )
        })
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

/// Standard error as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A loopback listener that counts the connections made to it and answers none: the
/// place a redirect points at, to show nobody followed it.
pub struct Tripwire {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    count: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Tripwire {
    pub async fn start() -> Tripwire {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = count.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                drop(stream);
            }
        });
        Tripwire { url, count }
    }

    /// How many connections were made to it.
    pub fn connections(&self) -> usize {
        self.count.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// `len` bytes that look random (xorshift64*, seeded): what a user who uploads the wrong
/// file sends. The same bytes on every run.
pub fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed.max(1);
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        out.extend_from_slice(&state.wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes());
    }
    out.truncate(len);
    out
}
