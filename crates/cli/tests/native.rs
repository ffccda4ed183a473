//! `nocmsg native`: the real binary starting small C programs (built here with the system `cc`, without
//! libnocmsg) as ranks. Checks the environment contract, the shared-memory file, argument passing, failure and
//! timeout handling, signals to the launcher, pinning, tagged output, bad usage, and that no shared-memory file and
//! no rank outlives a job in any of these cases.

mod common;
use common::*;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Prints one line per rank: its variables, the shared-memory file's size and mode, the first line of its stdin,
/// its CPUs and its arguments.
const PROBE_C: &str = r#"
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *var(const char *name) { const char *v = getenv(name); return v ? v : "(unset)"; }

int main(int argc, char **argv) {
    const char *shm = getenv("NOCMSG_SHM");
    struct stat st;
    int found = shm && stat(shm, &st) == 0;
    char in[64] = "EOF";
    if (fgets(in, sizeof in, stdin)) in[strcspn(in, "\n")] = 0;
    cpu_set_t set;
    static char cpus[16384];
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set)) snprintf(cpus + strlen(cpus), sizeof cpus - strlen(cpus), "%s%d", *cpus ? "," : "", c);
    printf("%s: size=%s shm=%s job=%s bytes=%ld mode=%o stdin=%s cpus=%s argc=%d", var("NOCMSG_RANK"), var("NOCMSG_SIZE"),
           var("NOCMSG_SHM"), var("NOCMSG_JOB"), found ? (long)st.st_size : -1L, found ? (unsigned)(st.st_mode & 0777) : 0u,
           in, cpus, argc);
    for (int i = 1; i < argc; i++) printf(" [%s]", argv[i]);
    printf("\n");
    return 0;
}
"#;

/// Every rank sizes and maps the shared-memory file and writes rank + 1 into its slot; rank 0 waits for all slots
/// and checks their sum, which only works if the ranks really share the segment.
const SHM_C: &str = r#"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(void) {
    int rank = atoi(getenv("NOCMSG_RANK")), size = atoi(getenv("NOCMSG_SIZE"));
    int fd = open(getenv("NOCMSG_SHM"), O_RDWR);
    if (fd < 0) { perror("open"); return 10; }
    size_t bytes = 16384;
    if (ftruncate(fd, bytes) != 0) { perror("ftruncate"); return 11; }
    long *slot = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (slot == MAP_FAILED) { perror("mmap"); return 12; }
    __atomic_store_n(&slot[rank], (long)rank + 1, __ATOMIC_RELEASE);
    if (rank != 0) return 0;
    for (int tries = 0; tries < 10000; tries++) {
        long sum = 0;
        int filled = 0;
        for (int r = 0; r < size; r++) {
            long v = __atomic_load_n(&slot[r], __ATOMIC_ACQUIRE);
            filled += v != 0;
            sum += v;
        }
        if (filled == size) {
            printf("sum=%ld\n", sum);
            return sum == (long)size * (size + 1) / 2 ? 0 : 1;
        }
        usleep(1000);
    }
    printf("not every rank wrote its slot\n");
    return 2;
}
"#;

/// behave exit R CODE:     rank R exits with CODE after 50 ms, the others sleep forever
/// behave segv R:          rank R writes through a null pointer, the others sleep forever
/// behave stubborn R CODE: like exit, but the others ignore SIGTERM
/// behave pidfile DIR:     every rank writes its pid to DIR/rank-R.pid and sleeps forever
/// behave hang:            every rank sleeps forever
const BEHAVE_C: &str = r#"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int *volatile nowhere = 0;

int main(int argc, char **argv) {
    int rank = atoi(getenv("NOCMSG_RANK"));
    const char *mode = argc > 1 ? argv[1] : "hang";
    if (!strcmp(mode, "pidfile")) {
        char path[4096], tmp[4200];
        snprintf(path, sizeof path, "%s/rank-%d.pid", argv[2], rank);
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        FILE *f = fopen(tmp, "w");
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
        rename(tmp, path);
    } else if (strcmp(mode, "hang")) {
        if (rank == atoi(argv[2])) {
            usleep(50000);
            if (!strcmp(mode, "segv")) *nowhere = 1;
            return atoi(argv[3]);
        }
        if (!strcmp(mode, "stubborn")) signal(SIGTERM, SIG_IGN);
    }
    for (;;) pause();
}
"#;

/// Two lines on stdout, one on stderr, then a last stdout line without a newline.
const LINES_C: &str = r#"
#include <stdio.h>
int main(void) {
    printf("first line\nsecond line\n");
    fflush(stdout);
    fprintf(stderr, "to stderr\n");
    printf("no newline");
    return 0;
}
"#;


/// Builds the C programs once per test run.
fn builds() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch("programs");
        for (name, source) in [("probe", PROBE_C), ("shm", SHM_C), ("behave", BEHAVE_C), ("lines", LINES_C)] {
            let c = dir.join(format!("{name}.c"));
            std::fs::write(&c, source).unwrap();
            let out = Command::new("cc")
                .args(["-O1", "-std=gnu11", "-Wall", "-Werror"])
                .arg(&c)
                .arg("-o")
                .arg(dir.join(name))
                .output();
            let out = out.unwrap_or_else(|e| panic!("cc {name}.c: cannot start: {e}"));
            assert!(out.status.success(), "cc {name}.c failed\n{}", show(&out));
        }
        dir
    })
}

fn program(name: &str) -> String {
    builds().join(name).display().to_string()
}



/// A launcher that fails to stop its ranks would hang the test; `--timeout` on every job that should end by itself
/// much sooner turns that into a failure.
const SAFETY_TIMEOUT: &str = "20";

fn launcher(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_nocmsg"));
    cmd.arg("native").args(args).stdin(Stdio::null());
    cmd
}

/// Runs the launcher to the end; also returns how long it took.
fn native(args: &[&str]) -> (Output, Duration) {
    let started = Instant::now();
    let out = launcher(args).output().expect("nocmsg runs");
    (out, started.elapsed())
}

/// The files left in a directory.
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
}

/// Probe lines by rank: "R: rest".
fn by_rank(stdout: &str) -> BTreeMap<usize, String> {
    stdout
        .lines()
        .map(|line| {
            let (rank, rest) = line.split_once(": ").unwrap_or_else(|| panic!("not a probe line: {line:?}"));
            (rank.parse().unwrap_or_else(|_| panic!("no rank in {line:?}")), rest.to_string())
        })
        .collect()
}

/// The value of `key=` in a probe line.
fn field<'a>(line: &'a str, key: &str) -> &'a str {
    let start = line.find(&format!("{key}=")).unwrap_or_else(|| panic!("no {key} in {line:?}")) + key.len() + 1;
    line[start..].split(' ').next().unwrap()
}

/// True once the process is gone or a zombie (dead, waiting for whoever inherited it to reap it).
fn dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('Z')),
    }
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(5);
    while !done() {
        assert!(Instant::now() < until, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Starts `behave pidfile` on `n` ranks and returns the launcher once every rank is running, with the ranks' pids.
fn start_pidfile_job(dir: &Path, n: usize) -> (Child, Vec<u32>) {
    let shm_dir = dir.join("shm");
    std::fs::create_dir_all(&shm_dir).unwrap();
    let n_text = n.to_string();
    let child = launcher(&[
        "--shm-dir",
        &shm_dir.display().to_string(),
        "--timeout",
        SAFETY_TIMEOUT,
        "-n",
        &n_text,
        &program("behave"),
        "pidfile",
        &dir.display().to_string(),
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .expect("nocmsg starts");
    let pid_file = |r: usize| dir.join(format!("rank-{r}.pid"));
    wait_until("every rank has written its pid", || (0..n).all(|r| pid_file(r).exists()));
    let pids = (0..n).map(|r| std::fs::read_to_string(pid_file(r)).unwrap().trim().parse().unwrap()).collect();
    (child, pids)
}

#[test]
fn ranks_get_their_rank_size_job_and_an_empty_private_shared_memory_file() {
    let dir = scratch("env");
    let mut child = launcher(&["--shm-dir", &dir.display().to_string(), "-n", "4", &program("probe")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let launcher_pid = child.id();
    child.stdin.take().unwrap().write_all(b"hello rank 0\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(text(&out.stderr), "");
    let ranks = by_rank(&text(&out.stdout));
    assert_eq!(ranks.keys().copied().collect::<Vec<_>>(), vec![0, 1, 2, 3], "{}", show(&out));
    let shm = field(&ranks[&0], "shm").to_string();
    let job = field(&ranks[&0], "job").to_string();
    assert!(
        shm.starts_with(&format!("{}/nocmsg-{launcher_pid}-", dir.display())),
        "shared-memory file {shm} is not nocmsg-<launcher pid>-<suffix> in the --shm-dir"
    );
    assert!(!job.is_empty() && shm.ends_with(&job), "job id {job:?} names the file {shm}");
    for (rank, line) in &ranks {
        assert_eq!(field(line, "size"), "4", "rank {rank}: {line}");
        assert_eq!(field(line, "shm"), shm, "rank {rank}: every rank gets the same file");
        assert_eq!(field(line, "job"), job, "rank {rank}: every rank gets the same job");
        assert_eq!(field(line, "bytes"), "0", "rank {rank}: the file starts empty");
        assert_eq!(field(line, "mode"), "600", "rank {rank}: the file is private to the user");
        let want_stdin = if *rank == 0 { "hello" } else { "EOF" };
        assert_eq!(field(line, "stdin"), want_stdin, "rank {rank}: only rank 0 reads the launcher's stdin");
    }
    assert_eq!(leftovers(&dir), Vec::<String>::new(), "the shared-memory file is removed");
}

#[test]
fn the_shared_memory_file_goes_in_dev_shm_by_default_and_is_removed() {
    let (out, _) = native(&["-n", "2", &program("probe")]);
    assert!(out.status.success(), "{}", show(&out));
    let ranks = by_rank(&text(&out.stdout));
    let shm = field(&ranks[&1], "shm");
    let dir = if Path::new("/dev/shm").is_dir() { PathBuf::from("/dev/shm") } else { std::env::temp_dir() };
    assert_eq!(Path::new(shm).parent(), Some(dir.as_path()), "{shm}");
    assert!(!Path::new(shm).exists(), "{shm} is left behind");
}

#[test]
fn ranks_communicate_through_the_shared_memory_file() {
    let dir = scratch("shm");
    for n in [1, 5, 32] {
        let (out, _) = native(&["--shm-dir", &dir.display().to_string(), "-n", &n.to_string(), &program("shm")]);
        assert!(out.status.success(), "{n} ranks\n{}", show(&out));
        assert_eq!(text(&out.stdout), format!("sum={}\n", n * (n + 1) / 2), "{n} ranks");
        assert_eq!(leftovers(&dir), Vec::<String>::new(), "{n} ranks: the shared-memory file is removed");
    }
}

#[test]
fn arguments_after_the_program_pass_through_untouched() {
    let args = ["two words", "-x", "--pin", "-n", "3", "--", "", "--timeout=1", "[]"];
    let probe = program("probe");
    let mut cmd = vec!["-n", "2", probe.as_str()];
    cmd.extend(args);
    let (out, _) = native(&cmd);
    assert!(out.status.success(), "{}", show(&out));
    let want: String = args.iter().map(|a| format!(" [{a}]")).collect();
    let ranks = by_rank(&text(&out.stdout));
    assert_eq!(ranks.len(), 2, "-n 3 after the program is the program's: {}", show(&out));
    for line in ranks.values() {
        assert!(
            line.ends_with(&format!("argc={}{want}", args.len() + 1)),
            "expected ...argc={}{want}\nactual {line}",
            args.len() + 1
        );
    }
}

#[test]
fn a_failing_rank_is_reported_and_its_siblings_are_stopped() {
    let dir = scratch("exit");
    let (out, took) = native(&[
        "--shm-dir",
        &dir.display().to_string(),
        "--timeout",
        SAFETY_TIMEOUT,
        "-n",
        "4",
        &program("behave"),
        "exit",
        "2",
        "3",
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert_eq!(text(&out.stderr), "nocmsg native: rank 2 exited with status 3\n");
    assert!(took < Duration::from_secs(5), "the sleeping ranks were not stopped promptly: {took:?}");
    assert_eq!(leftovers(&dir), Vec::<String>::new());
}

#[test]
fn a_segfaulting_rank_is_reported_with_its_signal() {
    let dir = scratch("segv");
    let (out, took) = native(&[
        "--shm-dir",
        &dir.display().to_string(),
        "--timeout",
        SAFETY_TIMEOUT,
        "-n",
        "3",
        &program("behave"),
        "segv",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(139), "{}", show(&out));
    assert_eq!(text(&out.stderr), "nocmsg native: rank 1 was killed by signal 11 (SIGSEGV)\n");
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert_eq!(leftovers(&dir), Vec::<String>::new());
}

#[test]
fn ranks_that_ignore_sigterm_are_killed_after_the_grace_period() {
    let dir = scratch("stubborn");
    let (out, took) = native(&[
        "--shm-dir",
        &dir.display().to_string(),
        "--timeout",
        SAFETY_TIMEOUT,
        "-n",
        "3",
        &program("behave"),
        "stubborn",
        "0",
        "5",
    ]);
    assert_eq!(out.status.code(), Some(5), "{}", show(&out));
    assert_eq!(text(&out.stderr), "nocmsg native: rank 0 exited with status 5\n");
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(5),
        "SIGKILL after about 1 s, took {took:?}"
    );
    assert_eq!(leftovers(&dir), Vec::<String>::new());
}

#[test]
fn timeout_kills_a_hung_job_with_status_124() {
    let dir = scratch("timeout");
    let (out, took) =
        native(&["--shm-dir", &dir.display().to_string(), "-n", "3", "--timeout", "0.5", &program("behave"), "hang"]);
    assert_eq!(out.status.code(), Some(124), "{}", show(&out));
    assert_eq!(text(&out.stderr), "nocmsg native: timed out after 0.5 s; ranks still running: 0, 1, 2\n");
    assert!(took >= Duration::from_millis(500) && took < Duration::from_secs(5), "{took:?}");
    assert_eq!(leftovers(&dir), Vec::<String>::new());
}

/// SIGTERM or SIGINT to the launcher: ranks stopped, file removed, 128 + signal.
fn signal_the_launcher(name: &str, sig: i32, signame: &str) {
    let dir = scratch(name);
    let (child, pids) = start_pidfile_job(&dir, 3);
    assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(128 + sig), "{}", show(&out));
    assert_eq!(text(&out.stderr), format!("nocmsg native: interrupted by {signame}; all ranks stopped\n"));
    for pid in pids {
        assert!(dead(pid), "rank process {pid} outlived the launcher");
    }
    assert_eq!(leftovers(&dir.join("shm")), Vec::<String>::new());
}

#[test]
fn sigterm_to_the_launcher_stops_the_ranks_and_exits_143() {
    signal_the_launcher("sigterm", libc::SIGTERM, "SIGTERM");
}

#[test]
fn sigint_to_the_launcher_stops_the_ranks_and_exits_130() {
    signal_the_launcher("sigint", libc::SIGINT, "SIGINT");
}

#[test]
fn a_launcher_killed_with_sigkill_leaves_no_rank_and_no_file_behind() {
    let dir = scratch("sigkill");
    let (mut child, pids) = start_pidfile_job(&dir, 3);
    child.kill().unwrap();
    child.wait().unwrap();
    wait_until("the ranks are dead", || pids.iter().all(|&pid| dead(pid)));
    wait_until("the shared-memory file is removed", || leftovers(&dir.join("shm")).is_empty());
}

#[test]
fn pin_puts_rank_r_on_the_r_th_allowed_cpu() {
    let (out, _) = native(&["-n", "1", &program("probe")]);
    assert!(out.status.success(), "{}", show(&out));
    let allowed: Vec<String> = field(&by_rank(&text(&out.stdout))[&0], "cpus").split(',').map(String::from).collect();
    let (out, _) = native(&["-n", "5", "--pin", &program("probe")]);
    assert!(out.status.success(), "{}", show(&out));
    let ranks = by_rank(&text(&out.stdout));
    assert_eq!(ranks.len(), 5);
    for (rank, line) in &ranks {
        assert_eq!(
            field(line, "cpus"),
            allowed[rank % allowed.len()],
            "rank {rank} of 5 with CPUs {allowed:?} allowed"
        );
    }
}

#[test]
fn tag_output_prefixes_every_line_with_the_rank() {
    let (out, _) = native(&["-n", "3", "--tag-output", &program("lines")]);
    assert!(out.status.success(), "{}", show(&out));
    let stdout = text(&out.stdout);
    for rank in 0..3 {
        let mine: Vec<&str> = stdout.lines().filter(|l| l.starts_with(&format!("[rank {rank}] "))).collect();
        let want = [
            format!("[rank {rank}] first line"),
            format!("[rank {rank}] second line"),
            format!("[rank {rank}] no newline"),
        ];
        assert_eq!(mine, want, "rank {rank}, in order\n{}", show(&out));
    }
    assert_eq!(stdout.lines().count(), 9, "{}", show(&out));
    let mut stderr: Vec<String> = text(&out.stderr).lines().map(String::from).collect();
    stderr.sort();
    assert_eq!(stderr, (0..3).map(|r| format!("[rank {r}] to stderr")).collect::<Vec<_>>());
}

#[test]
fn bad_usage_is_one_line_and_status_2_before_anything_starts() {
    let dir = scratch("usage");
    let shm_dir = dir.join("shm");
    std::fs::create_dir_all(&shm_dir).unwrap();
    let not_executable = dir.join("data.txt");
    std::fs::write(&not_executable, "not a program\n").unwrap();
    let (probe, shm, ne, d) = (
        program("probe"),
        shm_dir.display().to_string(),
        not_executable.display().to_string(),
        dir.display().to_string(),
    );
    let missing = dir.join("no-such-program").display().to_string();
    let cases: &[(&[&str], &str)] = &[
        (&["-n", "0", &probe], "the number of ranks must be 1 to 1024"),
        (&["-n", "5000", &probe], "the number of ranks must be 1 to 1024"),
        (&["-n", "four", &probe], "not a whole number of ranks"),
        (&["-n", "2", &missing], "does not exist"),
        (&["-n", "2", "no-such-program-on-path"], "was not found on PATH"),
        (&["-n", "2", &ne], "is not executable"),
        (&["-n", "2", &d], "is a directory"),
        (&["-n", "2"], "<PROGRAM>"),
        (&[&probe], "-n <N>"),
        (&["-n", "2", "--timeout", "0", &probe], "more than 0 seconds"),
        (&["-n", "2", "--timeout", "soon", &probe], "not a number of seconds"),
    ];
    for (args, want) in cases {
        let mut all = vec!["--shm-dir", &shm];
        all.extend_from_slice(args);
        let (out, _) = native(&all);
        assert_eq!(out.status.code(), Some(2), "nocmsg native {}\n{}", all.join(" "), show(&out));
        let stderr = text(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "one line for {args:?}\n{}", show(&out));
        assert!(
            stderr.starts_with("nocmsg: error: ") && stderr.contains(want),
            "expected a line with {want:?}\nactual {stderr}"
        );
        assert_eq!(text(&out.stdout), "", "{args:?}: nothing started");
        assert_eq!(leftovers(&shm_dir), Vec::<String>::new(), "{args:?}");
    }
    let (out, _) = native(&["--shm-dir", &missing, "-n", "1", &probe]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert_eq!(text(&out.stderr), format!("nocmsg: error: --shm-dir {missing}: not a directory\n"));
}
