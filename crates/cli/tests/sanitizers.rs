//! libnocmsg and the MPI layer under AddressSanitizer and UndefinedBehaviorSanitizer, natively: the library suite
//! (`tests/lib`), the collectives suite (`tests/coll`) and every MPI test program (`tests/mpi`) built with
//! `NOCMSG_SANITIZE=1 bin/nocmsg-cc-native` (which links `lib/build/native-asan/libnocmsg.a`, built with the same
//! `-fsanitize=address,undefined -fno-sanitize-recover=all`) and run with `nocmsg native` on 1, 3 and 4 ranks.
//! Every run must succeed with no sanitizer report on stderr; the MPI programs must also print their `done` line,
//! and on 4 ranks exactly their `.expected` output. Out-of-bounds accesses (issue 14: MINLOC on `MPI_DOUBLE_INT` in
//! a non-blocking reduction wrote past a buffer sized at MPI's packed size), misaligned objects and null pointers
//! passed to `memcpy` stop the rank with a report, so these tests fail on them.
//!
//! Leaks are reported too (`detect_leaks=1`): every program here ends with `MPI_Finalize` or `nocmsg_finalize`, after
//! which the library holds no memory, so a leak report is a real leak. (A program that exits without finalizing
//! would legitimately leave the library's state behind; none of these does.) `allocator_may_return_null=1` lets an
//! impossible allocation fail with NULL, as it does without ASan, so out-of-memory paths run as in production.
//!
//! Nothing is skipped: a missing compiler or sanitizer runtime fails the build step with its message.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// Rank counts: one rank alone, an odd count, and the count the MPI golden files were made with.
const RANKS: &[usize] = &[1, 3, 4];

const ASAN_OPTIONS: &str = "halt_on_error=1:detect_leaks=1:allocator_may_return_null=1";
const UBSAN_OPTIONS: &str = "halt_on_error=1:print_stacktrace=1";

/// What a sanitizer prints when it finds something (ASan and LSan: `==PID==ERROR: ...`; UBSan: `file:line:col:
/// runtime error: ...`).
const REPORTS: &[&str] = &["ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:"];

fn build_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| scratch("sanitizers"))
}

/// Builds `sources` with the sanitizing native wrapper into `out`.
fn build(sources: &[PathBuf], flags: &[&str], out: &Path, what: &str) {
    run_checked(
        Command::new(root().join("bin/nocmsg-cc-native"))
            .env("NOCMSG_SANITIZE", "1")
            .args(flags)
            .args(sources)
            .arg("-o")
            .arg(out)
            .arg("-lm"),
        &format!("NOCMSG_SANITIZE=1 nocmsg-cc-native {what}"),
    );
}

/// A C suite (`tests/lib` or `tests/coll`) built once per test run.
fn suite(dir: &'static str) -> &'static Path {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    static COLL: OnceLock<PathBuf> = OnceLock::new();
    let cell = match dir {
        "tests/lib" => &LIB,
        "tests/coll" => &COLL,
        other => panic!("no suite {other}"),
    };
    cell.get_or_init(|| {
        let out = build_dir().join(dir.replace('/', "-"));
        build(&c_sources(dir), &["-O2", "-Wall"], &out, &format!("{dir}/*.c"));
        out
    })
}

/// `nocmsg native -n ranks` with the sanitizers' options.
fn run(exe: &Path, ranks: usize) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nocmsg"))
        .args(["native", "-n", &ranks.to_string(), "--timeout", "120"])
        .arg(exe)
        .env("ASAN_OPTIONS", ASAN_OPTIONS)
        .env("UBSAN_OPTIONS", UBSAN_OPTIONS)
        .current_dir(build_dir())
        .stdin(Stdio::null())
        .output()
        .expect("nocmsg runs")
}

/// What is wrong with a run, if anything: a failure, a sanitizer report, or (when given) a missing last line.
fn problem(what: &str, out: &Output, last_line: Option<&str>) -> Option<String> {
    let stderr = text(&out.stderr);
    let stdout = text(&out.stdout);
    let reported = REPORTS.iter().any(|r| stderr.contains(r));
    let ended = last_line.map_or(true, |l| stdout.lines().last() == Some(l));
    if out.status.success() && !reported && ended && !stdout.contains("FAIL") {
        return None;
    }
    Some(format!("==== {what} ====\n{}", show(out)))
}

fn suite_is_clean(dir: &'static str, summary: &str) {
    let exe = suite(dir);
    let failures: Vec<String> = RANKS
        .iter()
        .filter_map(|&n| {
            let out = run(exe, n);
            let passed = text(&out.stdout).lines().any(|l| l == format!("{summary}: {n} ranks, all checks passed"));
            let what = format!("{dir} on {n} ranks");
            problem(&what, &out, None).or_else(|| (!passed).then(|| format!("==== {what}: no pass line ====\n{}", show(&out))))
        })
        .collect();
    assert!(failures.is_empty(), "{dir} under ASan and UBSan\n\n{}", failures.join("\n"));
}

#[test]
fn library_suite_is_clean_under_sanitizers() {
    suite_is_clean("tests/lib", "libnocmsg suite");
}

#[test]
fn collectives_suite_is_clean_under_sanitizers() {
    suite_is_clean("tests/coll", "libnocmsg collectives");
}

/// Every MPI test program, on every rank count; on 4 ranks its output must be its golden file.
#[test]
fn mpi_programs_are_clean_under_sanitizers() {
    let mut failures = Vec::new();
    for source in c_sources("tests/mpi") {
        let program = source.file_stem().unwrap().to_string_lossy().into_owned();
        let exe = build_dir().join(&program);
        build(&[source.clone()], &["-O2", "-Wall", "-Wextra", "-Werror"], &exe, &format!("tests/mpi/{program}.c"));
        let done = format!("{program}: done");
        let expected = std::fs::read_to_string(source.with_extension("expected")).unwrap_or_default();
        for &n in RANKS {
            let out = run(&exe, n);
            let what = format!("{program} on {n} ranks");
            if let Some(p) = problem(&what, &out, Some(&done)) {
                failures.push(p);
            } else if n == 4 && text(&out.stdout) != expected {
                failures.push(format!("==== {what}: output differs from tests/mpi/{program}.expected ====\n{}", show(&out)));
            }
        }
    }
    assert!(failures.is_empty(), "tests/mpi under ASan and UBSan\n\n{}", failures.join("\n"));
}
