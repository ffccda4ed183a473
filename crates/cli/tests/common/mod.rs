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

/// The `.c` files of a directory under the repository root, in a fixed order (a C test suite's sources).
pub fn c_sources(dir: &str) -> Vec<PathBuf> {
    let dir = root().join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "c"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no C sources in {}", dir.display());
    files
}

/// Runs a build step and fails the test with its output if it fails.
pub fn run_checked(cmd: &mut Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    assert!(out.status.success(), "{what} failed\n{}", show(&out));
}
