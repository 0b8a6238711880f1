use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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

/// Standard output as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

/// Standard error as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
