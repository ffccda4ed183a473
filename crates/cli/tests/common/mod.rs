//! Helpers shared by the integration tests: where the repository is, scratch directories, and readable output
//! when a command fails. (Each test binary compiles this module; not every one uses every helper.)
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// Path of a chip preset in `chips/`.
pub fn chip(name: &str) -> String {
    root().join("chips").join(format!("{name}.toml")).display().to_string()
}

/// A fresh, empty scratch directory for one test (unique per test process).
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nocmsg-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A command's outcome as readable blocks, for assertion messages.
pub fn show(out: &Output) -> String {
    format!("--- status ---\n{:?}\n--- stdout ---\n{}--- stderr ---\n{}", out.status, text(&out.stdout), text(&out.stderr))
}

/// Runs a build step and fails the test with its output if it fails.
pub fn run_checked(cmd: &mut Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    assert!(out.status.success(), "{what} failed\n{}", show(&out));
}
