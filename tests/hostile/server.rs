//! The real `evacdoc serve` binary on a free loopback port, for the hostile tests.

use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use serde_json::Value;

pub const TOKEN: &str = "hostile-token-0123456789";

/// A running server; killed when dropped.
#[derive(Debug)]
pub struct Server {
    pub child: Child,
    pub base: String,
    pub client: reqwest::Client,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `evacdoc serve` on `data` with `args`, through `sh -c` when `shell` is given
/// (it ends with `exec "$@"`, for limits set by the shell: `ulimit`, `trap`).
pub fn serve(data: &Path, tmp: &Path, args: &[&str], shell: Option<&str>) -> Server {
    let bin = env!("CARGO_BIN_EXE_evacdoc");
    let mut command = match shell {
        Some(script) => {
            let mut c = Command::new("sh");
            c.args(["-c", script, "sh", bin]);
            c
        }
        None => Command::new(bin),
    };
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--data"])
        .arg(data)
        .args(args)
        .env("EVACDOC_TOKEN", TOKEN)
        .env("TMPDIR", tmp);
    let (child, base) = crate::util::spawn_serve(command);
    Server {
        child,
        base,
        client: reqwest::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .unwrap(),
    }
}

impl Server {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub async fn get_json(&self, path: &str) -> Value {
        self.client
            .get(self.url(path))
            .bearer_auth(TOKEN)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// `POST /api/v1/analyses?name=` with `body`: the status and the answer.
    pub async fn upload(&self, name: &str, body: Vec<u8>) -> (u16, Value) {
        let response = self
            .client
            .post(self.url("/api/v1/analyses"))
            .query(&[("name", name)])
            .bearer_auth(TOKEN)
            .header("content-type", "application/octet-stream")
            .body(body)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// `/healthz` answers 200.
    pub async fn assert_healthy(&self) {
        let response = self.client.get(self.url("/healthz")).send().await.unwrap();
        assert_eq!(response.status(), 200);
    }

    /// Polls an analysis until it is done or failed.
    pub async fn wait_ended(&self, id: &str) -> Value {
        let started = Instant::now();
        loop {
            let view = self.get_json(&format!("/api/v1/analyses/{id}")).await;
            if view["status"] == "done" || view["status"] == "failed" {
                return view;
            }
            assert!(started.elapsed() < Duration::from_secs(120), "{view}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}
