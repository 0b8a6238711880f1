use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// The repository's `samples/` folder.
pub fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples")
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
