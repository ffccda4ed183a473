//! `nocmsg native`: N copies of a program as ordinary processes on this machine (ranks 0..N-1), the native
//! counterpart of `nocmsg run` for programs built against libnocmsg for the host.
//!
//! The launcher does as little as the library needs and no more: it creates one empty shared-memory file, tells each
//! rank where it is and who it is through `NOCMSG_*` variables, and never writes the file (the ranks size and map
//! it); it only reads the ranks' wait records at its start, to stop a job whose rank exited without finalizing or
//! whose ranks are deadlocked (`native_watch.rs`). What it does own is the job's lifetime: no rank and no shared-memory file may outlive the job,
//! whether it succeeds, a rank fails, the time limit passes, the launcher is interrupted or the launcher itself is
//! killed. Hence:
//!
//! * the launcher's signals (SIGCHLD, SIGINT, SIGTERM, SIGHUP) are blocked in every thread and taken synchronously
//!   with `sigtimedwait`, so a Ctrl-C can never end the launcher before it has stopped the ranks and removed the file;
//! * the ranks share one process group of their own, so they (and their children) are stopped together;
//! * every rank asks for SIGKILL when the launcher dies (`PR_SET_PDEATHSIG`), and a forked watchdog removes the file
//!   when the launcher's end of a pipe closes, which also covers a launcher killed with SIGKILL;
//! * when stdin is a terminal the ranks' group gets the terminal while they run (rank 0 inherits stdin, and reading
//!   a terminal from a background group would stop it), and a Ctrl-Z stops the whole job, launcher included.
//!
//! Exit status: 0 when every rank exits 0; the status of the first rank seen to fail (128 + the signal when a signal
//! killed it); 201 when a rank exits 0 without having finalized the library it initialized; 200 for a deadlock;
//! 124 at `--timeout`; 128 + the signal when the launcher is interrupted; 2 for bad usage. Linux only.

use crate::native_watch::Watch;
use crate::Exit;
use anyhow::Context;
use clap::Args;
use std::collections::HashMap;
use std::ffi::{CStr, CString, OsStr, OsString};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The largest `-n`.
pub const MAX_RANKS: usize = 1024;
/// How long ranks get between SIGTERM and SIGKILL.
const GRACE: Duration = Duration::from_secs(1);
/// The longest the launcher sleeps without looking at its ranks (signals wake it earlier).
const POLL: Duration = Duration::from_millis(100);
/// Exit status when a rank exits without finalizing the library it initialized.
pub const STATUS_UNFINALIZED: u8 = 201;

#[derive(Args)]
pub struct NativeArgs {
    /// Number of ranks (processes), 1 to 1024.
    #[arg(short = 'n', value_name = "N", value_parser = parse_ranks)]
    pub ranks: usize,
    /// Pin rank r to CPU number (r mod C) of the C CPUs this launcher may run on.
    #[arg(long)]
    pub pin: bool,
    /// Kill the job and exit with status 124 if ranks are still running after SECONDS.
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout)]
    pub timeout: Option<Timeout>,
    /// Prefix every line the ranks print with "[rank R] " (their output then goes through pipes).
    #[arg(long)]
    pub tag_output: bool,
    /// Create the shared-memory file in DIR instead of /dev/shm (for tests).
    #[arg(long, value_name = "DIR", hide = true)]
    pub shm_dir: Option<PathBuf>,
    /// The program and its arguments, passed to every rank untouched.
    #[arg(value_name = "PROGRAM", required = true, num_args = 1.., trailing_var_arg = true, allow_hyphen_values = true)]
    pub command: Vec<OsString>,
}

/// `-n`: a whole number of ranks in 1..=MAX_RANKS.
fn parse_ranks(s: &str) -> Result<usize, String> {
    let n: usize = s.trim().parse().map_err(|_| format!("'{s}' is not a whole number of ranks"))?;
    if !(1..=MAX_RANKS).contains(&n) {
        return Err(format!("the number of ranks must be 1 to {MAX_RANKS}"));
    }
    Ok(n)
}

/// `--timeout`: a positive number of seconds, as written and as a duration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timeout {
    pub seconds: f64,
    pub duration: Duration,
}

fn parse_timeout(s: &str) -> Result<Timeout, String> {
    let seconds: f64 = s.trim().parse().map_err(|_| format!("'{s}' is not a number of seconds"))?;
    if seconds.is_nan() || seconds <= 0.0 {
        return Err("the time limit must be more than 0 seconds".to_string());
    }
    let duration = Duration::try_from_secs_f64(seconds).map_err(|_| format!("{s} seconds is too long"))?;
    Ok(Timeout { seconds, duration })
}

pub fn run(args: NativeArgs) -> anyhow::Result<()> {
    // Everything the user could have got wrong is checked before anything is created or started.
    let program = resolve_program(&args.command[0]).map_err(Exit::Usage)?;
    let shm_dir = match &args.shm_dir {
        Some(dir) if dir.is_dir() => dir.clone(),
        Some(dir) => return Err(Exit::Usage(format!("--shm-dir {}: not a directory", dir.display())).into()),
        None if Path::new("/dev/shm").is_dir() => PathBuf::from("/dev/shm"),
        None => std::env::temp_dir(),
    };
    let pins = if args.pin { Some(allowed_cpus().context("cannot read this process's CPU affinity")?) } else { None };

    // Before the first thread or child exists, so that all of them inherit the blocked mask.
    let signals = Signals::block().context("cannot block the launcher's signals")?;
    let shm = SharedMemoryFile::create(&shm_dir)
        .with_context(|| format!("cannot create a shared-memory file in {}", shm_dir.display()))?;
    let _watchdog = spawn_watchdog(&shm.path).context("cannot start the shared-memory watchdog")?;

    let mut job = Job::new();
    let mut watch = std::fs::File::open(&shm.path).ok().map(|f| Watch::new(f, args.ranks, program.clone()));
    if let Err(err) = job.start(&args, &program, &shm, pins.as_deref()) {
        job.stop(libc::SIGTERM, &signals);
        job.finish();
        return Err(err);
    }
    let deadline = args.timeout.and_then(|t| Instant::now().checked_add(t.duration));
    let outcome = job.supervise(deadline, &signals, watch.as_mut());
    match outcome {
        Outcome::Succeeded => {}
        Outcome::Interrupted(sig) => job.stop(sig, &signals),
        Outcome::Failed { .. } | Outcome::TimedOut(_) | Outcome::Unfinalized(_) | Outcome::Deadlock(_) => {
            job.stop(libc::SIGTERM, &signals)
        }
    }
    job.finish();
    drop(shm);

    match outcome {
        Outcome::Succeeded => Ok(()),
        Outcome::Failed { rank, end: RankEnd::Exited(code) } => {
            Err(Exit::Status(code as u8, format!("nocmsg native: rank {rank} exited with status {code}")).into())
        }
        Outcome::Failed { rank, end: RankEnd::Killed(sig) } => Err(Exit::Status(
            (128 + sig) as u8,
            format!("nocmsg native: rank {rank} was killed by signal {sig} ({})", signal_name(sig)),
        )
        .into()),
        Outcome::TimedOut(running) => Err(Exit::Status(
            124,
            format!(
                "nocmsg native: timed out after {} s; ranks still running: {}",
                args.timeout.map_or(0.0, |t| t.seconds),
                rank_list(&running)
            ),
        )
        .into()),
        Outcome::Interrupted(sig) => Err(Exit::Status(
            (128 + sig) as u8,
            format!("nocmsg native: interrupted by {}; all ranks stopped", signal_name(sig)),
        )
        .into()),
        Outcome::Unfinalized(rank) => Err(Exit::Status(
            STATUS_UNFINALIZED,
            format!("nocmsg native: rank {rank} exited {}; all ranks stopped", chip::diagnose::UNFINALIZED),
        )
        .into()),
        Outcome::Deadlock(report) => Err(Exit::Report(chip::chip::STATUS_DEADLOCK, report).into()),
    }
}

/// The program as `execvp` would find it, or why it cannot be run.
fn resolve_program(name: &OsStr) -> Result<PathBuf, String> {
    let shown = Path::new(name).display();
    if name.is_empty() {
        return Err("the program name is empty".to_string());
    }
    if name.as_bytes().contains(&b'/') {
        return executable(Path::new(name))
            .map(|()| PathBuf::from(name))
            .map_err(|why| format!("program '{shown}' {why}"));
    }
    let path = std::env::var_os("PATH").unwrap_or_else(|| OsString::from("/usr/local/bin:/usr/bin:/bin"));
    std::env::split_paths(&path)
        .map(|dir| if dir.as_os_str().is_empty() { PathBuf::from(".").join(name) } else { dir.join(name) })
        .find(|candidate| executable(candidate).is_ok())
        .ok_or_else(|| format!("program '{shown}' was not found on PATH"))
}

fn executable(path: &Path) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => "does not exist".to_string(),
        _ => format!("cannot be read: {e}"),
    })?;
    if meta.is_dir() {
        return Err("is a directory".to_string());
    }
    if !meta.is_file() {
        return Err("is not a regular file".to_string());
    }
    let c_path = CString::new(path.as_os_str().as_bytes()).map_err(|_| "contains a NUL byte".to_string())?;
    if unsafe { libc::access(c_path.as_ptr(), libc::X_OK) } != 0 {
        return Err("is not executable".to_string());
    }
    Ok(())
}

/// The CPUs this process may run on, in increasing order.
fn allowed_cpus() -> io::Result<Vec<usize>> {
    // SAFETY: cpu_set_t is plain bits; sched_getaffinity writes at most its size.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    if unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let cpus: Vec<usize> =
        (0..libc::CPU_SETSIZE as usize).filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) }).collect();
    if cpus.is_empty() {
        return Err(io::Error::other("the affinity mask is empty"));
    }
    Ok(cpus)
}

fn one_cpu(cpu: usize) -> libc::cpu_set_t {
    // SAFETY: as above; CPU_SET only sets a bit below CPU_SETSIZE.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    unsafe { libc::CPU_SET(cpu, &mut set) };
    set
}

/// The launcher's signals, blocked and waited for instead of handled.
struct Signals {
    waited: libc::sigset_t,
}

impl Signals {
    fn block() -> io::Result<Signals> {
        // SAFETY: plain libc calls on sigset_t values owned here.
        unsafe {
            let mut waited: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut waited);
            for sig in [libc::SIGCHLD, libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                libc::sigaddset(&mut waited, sig);
            }
            // SIGTTOU too: the launcher must be able to take the terminal back (tcsetpgrp) from the background.
            let mut blocked = waited;
            libc::sigaddset(&mut blocked, libc::SIGTTOU);
            let rc = libc::pthread_sigmask(libc::SIG_BLOCK, &blocked, std::ptr::null_mut());
            if rc != 0 {
                return Err(io::Error::from_raw_os_error(rc));
            }
            // An inherited SIG_IGN would let the kernel reap the ranks and hide their exit statuses.
            libc::signal(libc::SIGCHLD, libc::SIG_DFL);
            Ok(Signals { waited })
        }
    }

    /// The next of the launcher's signals, or None after `timeout`.
    fn wait(&self, timeout: Duration) -> Option<libc::c_int> {
        let timeout = timeout.min(POLL);
        let ts = libc::timespec { tv_sec: 0, tv_nsec: timeout.as_nanos() as libc::c_long };
        // SAFETY: the set and timespec outlive the call; the siginfo pointer may be null.
        let sig = unsafe { libc::sigtimedwait(&self.waited, std::ptr::null_mut(), &ts) };
        (sig > 0).then_some(sig)
    }
}

/// The empty file the ranks size and map; removed when dropped.
struct SharedMemoryFile {
    path: PathBuf,
    job: String,
}

impl SharedMemoryFile {
    fn create(dir: &Path) -> io::Result<SharedMemoryFile> {
        let pid = std::process::id();
        let mut attempt = 0u32;
        loop {
            let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
            let job = format!("{pid}-{nanos:x}{attempt:x}");
            let path = dir.join(format!("nocmsg-{job}"));
            match std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path) {
                Ok(file) => {
                    let shm = SharedMemoryFile { path, job };
                    // The umask may have taken bits from 0600; the ranks need exactly read and write.
                    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
                    return Ok(shm);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 64 => attempt += 1,
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for SharedMemoryFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Forks a process that removes `path` once the returned pipe end closes, i.e. when the launcher exits however it
/// exits (even by SIGKILL). It leaves the launcher's session and keeps the launcher's blocked signals, so neither a
/// Ctrl-C nor a SIGTERM to the launcher's process group ends it first.
fn spawn_watchdog(path: &Path) -> io::Result<OwnedFd> {
    let path = CString::new(path.as_os_str().as_bytes()).map_err(|_| io::Error::other("path contains a NUL byte"))?;
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills both descriptors, which are then owned here.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let (read_end, write_end) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    match unsafe { libc::fork() } {
        -1 => Err(io::Error::last_os_error()),
        // SAFETY: the child only makes async-signal-safe calls on values prepared before the fork.
        0 => unsafe { watchdog(read_end.as_raw_fd(), write_end.as_raw_fd(), &path) },
        _ => Ok(write_end),
    }
}

unsafe fn watchdog(read_fd: libc::c_int, write_fd: libc::c_int, path: &CStr) -> ! {
    libc::close(write_fd);
    libc::setsid();
    libc::prctl(libc::PR_SET_NAME, c"nocmsg-shmwatch".as_ptr());
    let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
    if null >= 0 {
        for fd in 0..3 {
            libc::dup2(null, fd);
        }
        if null > 2 {
            libc::close(null);
        }
    }
    let mut byte = 0u8;
    loop {
        let n = libc::read(read_fd, (&mut byte as *mut u8).cast(), 1);
        if n == 0 || (n < 0 && *libc::__errno_location() != libc::EINTR) {
            break;
        }
    }
    libc::unlink(path.as_ptr());
    libc::_exit(0)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum RankEnd {
    Exited(i32),
    Killed(i32),
}

#[derive(Clone, Debug, PartialEq)]
enum Outcome {
    Succeeded,
    /// The first rank seen to exit non-zero or be killed.
    Failed {
        rank: usize,
        end: RankEnd,
    },
    /// These ranks were still running at the deadline.
    TimedOut(Vec<usize>),
    /// The launcher received this signal.
    Interrupted(libc::c_int),
    /// This rank exited 0 without finalizing the library it initialized.
    Unfinalized(usize),
    /// Every running rank is blocked: the report.
    Deadlock(String),
}

struct RankProcess {
    pid: libc::pid_t,
    end: Option<RankEnd>,
}

/// The ranks started so far and what the launcher knows about them.
struct Job {
    ranks: Vec<RankProcess>,
    by_pid: HashMap<libc::pid_t, usize>,
    /// The ranks' process group: rank 0's pid. Signalled only while some rank is unreaped, so it cannot have been
    /// reused by another group.
    group: libc::pid_t,
    running: usize,
    /// With --tag-output: the ranks' pipes, until all ranks are started (forking is slow once there are thousands
    /// of threads), then the threads that copy them.
    pipes: Vec<(usize, Stream, Box<dyn Read + Send>)>,
    forwarders: Vec<JoinHandle<()>>,
    terminal: Option<Terminal>,
}

/// What `reap` saw.
#[derive(Default)]
struct Reaped {
    ended: Vec<(usize, RankEnd)>,
    /// A rank stopped by the terminal (SIGTSTP, SIGTTIN or SIGTTOU).
    terminal_stop: Option<libc::c_int>,
}

impl Job {
    fn new() -> Job {
        Job {
            ranks: Vec::new(),
            by_pid: HashMap::new(),
            group: 0,
            running: 0,
            pipes: Vec::new(),
            forwarders: Vec::new(),
            terminal: Terminal::of_stdin(),
        }
    }

    /// Starts every rank, then the output threads.
    fn start(
        &mut self,
        args: &NativeArgs,
        program: &Path,
        shm: &SharedMemoryFile,
        pins: Option<&[usize]>,
    ) -> anyhow::Result<()> {
        for rank in 0..args.ranks {
            self.spawn(rank, args, program, shm, pins)
                .with_context(|| format!("cannot start rank {rank} ({})", Path::new(&args.command[0]).display()))?;
        }
        for (rank, stream, pipe) in std::mem::take(&mut self.pipes) {
            self.forwarders.push(forward(rank, pipe, stream).context("cannot start a thread for the ranks' output")?);
        }
        Ok(())
    }

    fn spawn(
        &mut self,
        rank: usize,
        args: &NativeArgs,
        program: &Path,
        shm: &SharedMemoryFile,
        pins: Option<&[usize]>,
    ) -> io::Result<()> {
        let mut cmd = Command::new(program);
        cmd.arg0(&args.command[0])
            .args(&args.command[1..])
            .env("NOCMSG_SHM", &shm.path)
            .env("NOCMSG_RANK", rank.to_string())
            .env("NOCMSG_SIZE", args.ranks.to_string())
            .env("NOCMSG_JOB", &shm.job)
            .stdin(if rank == 0 { Stdio::inherit() } else { Stdio::null() })
            .process_group(if rank == 0 { 0 } else { self.group });
        if args.tag_output {
            cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        }
        let cpu = pins.map(|cpus| one_cpu(cpus[rank % cpus.len()]));
        let parent = unsafe { libc::getpid() };
        // SAFETY: the closure runs between fork and exec and only makes async-signal-safe calls.
        unsafe { cmd.pre_exec(move || prepare_rank(parent, cpu.as_ref())) };
        let mut child = cmd.spawn()?;
        let pid = child.id() as libc::pid_t;
        if rank == 0 {
            self.group = pid;
            if let Some(terminal) = &mut self.terminal {
                terminal.hand_over(pid);
            }
        }
        self.ranks.push(RankProcess { pid, end: None });
        self.by_pid.insert(pid, rank);
        self.running += 1;
        if let Some(out) = child.stdout.take() {
            self.pipes.push((rank, Stream::Stdout, Box::new(out)));
        }
        if let Some(err) = child.stderr.take() {
            self.pipes.push((rank, Stream::Stderr, Box::new(err)));
        }
        Ok(())
    }

    /// Waits until every rank has exited 0, one fails, the ranks deadlock, the deadline passes or the launcher is
    /// signalled.
    fn supervise(&mut self, mut deadline: Option<Instant>, signals: &Signals, mut watch: Option<&mut Watch>) -> Outcome {
        loop {
            let reaped = self.reap(false);
            if let Some(&(rank, end)) = reaped.ended.iter().find(|(_, end)| *end != RankEnd::Exited(0)) {
                return Outcome::Failed { rank, end };
            }
            if let Some(w) = watch.as_deref() {
                if let Some(&(rank, _)) = reaped.ended.iter().find(|(rank, _)| w.exited_unfinalized(*rank)) {
                    return Outcome::Unfinalized(rank);
                }
            }
            if self.running == 0 {
                return Outcome::Succeeded;
            }
            if let Some(sig) = reaped.terminal_stop {
                let paused = self.terminal_stop(sig);
                deadline = deadline.and_then(|d| d.checked_add(paused));
                if let Some(w) = watch.as_deref_mut() {
                    w.reset();
                }
                continue;
            }
            if let Some(w) = watch.as_deref_mut() {
                let ended: Vec<Option<String>> = self.ranks.iter().map(|r| r.end.map(describe_end)).collect();
                if let Some(report) = w.check(&ended) {
                    return Outcome::Deadlock(report.to_string());
                }
            }
            let now = Instant::now();
            let wait = match deadline {
                Some(d) if now >= d => return Outcome::TimedOut(self.running_ranks()),
                Some(d) => d - now,
                None => POLL,
            };
            match signals.wait(wait) {
                Some(sig) if sig != libc::SIGCHLD => return Outcome::Interrupted(sig),
                _ => {}
            }
        }
    }

    /// Collects the ranks that have ended, without blocking (or blocking until one has, with `block`).
    fn reap(&mut self, block: bool) -> Reaped {
        let mut reaped = Reaped::default();
        let watch_stops = self.terminal.is_some();
        while self.running > 0 {
            let mut status = 0;
            let flags = if block { 0 } else { libc::WNOHANG } | if watch_stops { libc::WUNTRACED } else { 0 };
            // SAFETY: waitpid writes the status word only.
            let pid = unsafe { libc::waitpid(-1, &mut status, flags) };
            if pid <= 0 {
                break;
            }
            // Other children (the watchdog) are not ranks.
            let Some(&rank) = self.by_pid.get(&pid) else { continue };
            if libc::WIFSTOPPED(status) {
                let sig = libc::WSTOPSIG(status);
                if [libc::SIGTSTP, libc::SIGTTIN, libc::SIGTTOU].contains(&sig) {
                    reaped.terminal_stop = Some(sig);
                }
                continue;
            }
            let end = if libc::WIFSIGNALED(status) {
                RankEnd::Killed(libc::WTERMSIG(status))
            } else {
                RankEnd::Exited(libc::WEXITSTATUS(status))
            };
            self.ranks[rank].end = Some(end);
            self.running -= 1;
            reaped.ended.push((rank, end));
            if block {
                break;
            }
        }
        reaped
    }

    fn running_ranks(&self) -> Vec<usize> {
        (0..self.ranks.len()).filter(|&r| self.ranks[r].end.is_none()).collect()
    }

    /// Sends `sig` to the ranks' group and to each unreaped rank (in case one left the group).
    fn signal_all(&self, sig: libc::c_int) {
        if self.running == 0 {
            return;
        }
        // SAFETY: the group and pids belong to unreaped children, so none can name another process.
        unsafe {
            libc::killpg(self.group, sig);
            for rank in self.ranks.iter().filter(|r| r.end.is_none()) {
                libc::kill(rank.pid, sig);
            }
        }
    }

    /// Ends every rank still running: `first` (SIGTERM, or the signal the launcher got), SIGKILL after the grace
    /// period or at a second signal to the launcher; returns once all are reaped.
    fn stop(&mut self, first: libc::c_int, signals: &Signals) {
        self.reap(false);
        self.signal_all(first);
        self.signal_all(libc::SIGCONT);
        let until = Instant::now() + GRACE;
        while self.running > 0 {
            let now = Instant::now();
            if now >= until {
                break;
            }
            if matches!(signals.wait(until - now), Some(sig) if sig != libc::SIGCHLD) {
                break;
            }
            self.reap(false);
        }
        self.signal_all(libc::SIGKILL);
        while self.running > 0 {
            self.reap(true);
        }
    }

    /// A rank was stopped by the terminal. If it read the terminal before the ranks were given it, give it to them
    /// now; otherwise (Ctrl-Z, or the launcher is in the background) stop the whole job, launcher included, so the
    /// shell sees it stopped, and continue it when the shell continues the launcher. Returns the time stopped.
    fn terminal_stop(&mut self, sig: libc::c_int) -> Duration {
        let Some(terminal) = self.terminal.as_mut() else { return Duration::ZERO };
        if sig != libc::SIGTSTP && !terminal.handed && terminal.hand_over(self.group) {
            self.signal_all(libc::SIGCONT);
            return Duration::ZERO;
        }
        terminal.take_back();
        self.signal_all(libc::SIGSTOP);
        let stopped = Instant::now();
        // SAFETY: stops this process until a SIGCONT; SIGSTOP cannot be caught, blocked or discarded.
        unsafe { libc::raise(libc::SIGSTOP) };
        let paused = stopped.elapsed();
        if let Some(terminal) = self.terminal.as_mut() {
            terminal.hand_over(self.group);
        }
        self.signal_all(libc::SIGCONT);
        paused
    }

    /// After the last rank is reaped: the terminal goes back to the launcher and the output is drained.
    fn finish(&mut self) {
        if let Some(terminal) = &mut self.terminal {
            terminal.take_back();
        }
        self.pipes.clear();
        for forwarder in self.forwarders.drain(..) {
            let _ = forwarder.join();
        }
    }
}

/// How a rank that is no longer running ended, for a deadlock report.
fn describe_end(end: RankEnd) -> String {
    match end {
        RankEnd::Exited(code) => format!("has exited with status {code}"),
        RankEnd::Killed(sig) => format!("was killed by signal {sig} ({})", signal_name(sig)),
    }
}

/// Runs in each rank between fork and exec.
fn prepare_rank(parent: libc::pid_t, cpu: Option<&libc::cpu_set_t>) -> io::Result<()> {
    // SAFETY: async-signal-safe calls only, on values prepared before the fork.
    unsafe {
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        libc::pthread_sigmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
            return Err(io::Error::last_os_error());
        }
        // The launcher may have died before the request above took effect.
        if libc::getppid() != parent {
            return Err(io::Error::from_raw_os_error(libc::ESRCH));
        }
        if let Some(set) = cpu {
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
    }
    Ok(())
}

/// The terminal on the launcher's stdin, which rank 0 inherits.
struct Terminal {
    launcher_group: libc::pid_t,
    /// The ranks' group is the terminal's foreground group.
    handed: bool,
}

impl Terminal {
    fn of_stdin() -> Option<Terminal> {
        // SAFETY: queries on file descriptor 0.
        (unsafe { libc::isatty(0) } == 1)
            .then(|| Terminal { launcher_group: unsafe { libc::getpgrp() }, handed: false })
    }

    /// Makes `group` the foreground group if the launcher's group is; true when it did.
    fn hand_over(&mut self, group: libc::pid_t) -> bool {
        // SAFETY: terminal ioctls on descriptor 0; SIGTTOU is blocked.
        if !self.handed
            && unsafe { libc::tcgetpgrp(0) } == self.launcher_group
            && unsafe { libc::tcsetpgrp(0, group) } == 0
        {
            self.handed = true;
        }
        self.handed
    }

    fn take_back(&mut self) {
        if self.handed {
            // SAFETY: as above.
            unsafe { libc::tcsetpgrp(0, self.launcher_group) };
            self.handed = false;
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        self.take_back();
    }
}

#[derive(Clone, Copy)]
enum Stream {
    Stdout,
    Stderr,
}

/// Copies one rank's pipe to the launcher's stdout or stderr line by line, each line prefixed "[rank R] " and
/// written whole, so lines of different ranks never mix. Keeps draining if the launcher's output is closed.
fn forward(rank: usize, pipe: impl Read + Send + 'static, stream: Stream) -> io::Result<JoinHandle<()>> {
    std::thread::Builder::new().name(format!("rank-{rank}-output")).stack_size(64 * 1024).spawn(move || {
        let mut reader = BufReader::new(pipe);
        let mut line = format!("[rank {rank}] ").into_bytes();
        let prefix_len = line.len();
        let mut writable = true;
        loop {
            line.truncate(prefix_len);
            match reader.read_until(b'\n', &mut line) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
            if !line.ends_with(b"\n") {
                line.push(b'\n');
            }
            if writable {
                let written = match stream {
                    Stream::Stdout => io::stdout().lock().write_all(&line),
                    Stream::Stderr => io::stderr().lock().write_all(&line),
                };
                writable = written.is_ok();
            }
        }
    })
}

/// "0, 3, 7": ascending ranks; past 16 of them, runs of three or more as ranges ("0-9, 12, 14-1023").
fn rank_list(ranks: &[usize]) -> String {
    if ranks.len() <= 16 {
        return ranks.iter().map(usize::to_string).collect::<Vec<_>>().join(", ");
    }
    let mut parts = Vec::new();
    let mut i = 0;
    while i < ranks.len() {
        let mut j = i;
        while j + 1 < ranks.len() && ranks[j + 1] == ranks[j] + 1 {
            j += 1;
        }
        if j - i >= 2 {
            parts.push(format!("{}-{}", ranks[i], ranks[j]));
        } else {
            parts.extend(ranks[i..=j].iter().map(usize::to_string));
        }
        i = j + 1;
    }
    parts.join(", ")
}

fn signal_name(sig: libc::c_int) -> String {
    const NAMES: &[(libc::c_int, &str)] = &[
        (libc::SIGHUP, "SIGHUP"),
        (libc::SIGINT, "SIGINT"),
        (libc::SIGQUIT, "SIGQUIT"),
        (libc::SIGILL, "SIGILL"),
        (libc::SIGTRAP, "SIGTRAP"),
        (libc::SIGABRT, "SIGABRT"),
        (libc::SIGBUS, "SIGBUS"),
        (libc::SIGFPE, "SIGFPE"),
        (libc::SIGKILL, "SIGKILL"),
        (libc::SIGUSR1, "SIGUSR1"),
        (libc::SIGSEGV, "SIGSEGV"),
        (libc::SIGUSR2, "SIGUSR2"),
        (libc::SIGPIPE, "SIGPIPE"),
        (libc::SIGALRM, "SIGALRM"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGSTKFLT, "SIGSTKFLT"),
        (libc::SIGCHLD, "SIGCHLD"),
        (libc::SIGCONT, "SIGCONT"),
        (libc::SIGSTOP, "SIGSTOP"),
        (libc::SIGTSTP, "SIGTSTP"),
        (libc::SIGTTIN, "SIGTTIN"),
        (libc::SIGTTOU, "SIGTTOU"),
        (libc::SIGURG, "SIGURG"),
        (libc::SIGXCPU, "SIGXCPU"),
        (libc::SIGXFSZ, "SIGXFSZ"),
        (libc::SIGVTALRM, "SIGVTALRM"),
        (libc::SIGPROF, "SIGPROF"),
        (libc::SIGWINCH, "SIGWINCH"),
        (libc::SIGIO, "SIGIO"),
        (libc::SIGPWR, "SIGPWR"),
        (libc::SIGSYS, "SIGSYS"),
    ];
    match NAMES.iter().find(|(n, _)| *n == sig) {
        Some((_, name)) => name.to_string(),
        None if (libc::SIGRTMIN()..=libc::SIGRTMAX()).contains(&sig) => format!("SIGRTMIN+{}", sig - libc::SIGRTMIN()),
        None => format!("signal {sig}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_counts() {
        assert_eq!(parse_ranks("1"), Ok(1));
        assert_eq!(parse_ranks("1024"), Ok(1024));
        assert!(parse_ranks("0").unwrap_err().contains("1 to 1024"));
        assert!(parse_ranks("1025").unwrap_err().contains("1 to 1024"));
        assert!(parse_ranks("four").unwrap_err().contains("not a whole number"));
    }

    #[test]
    fn timeouts() {
        assert_eq!(parse_timeout("2").unwrap().duration, Duration::from_secs(2));
        assert_eq!(parse_timeout("0.25").unwrap().duration, Duration::from_millis(250));
        assert!(parse_timeout("0").unwrap_err().contains("more than 0"));
        assert!(parse_timeout("-1").unwrap_err().contains("more than 0"));
        assert!(parse_timeout("nan").unwrap_err().contains("more than 0"));
        assert!(parse_timeout("1e30").unwrap_err().contains("too long"));
        assert!(parse_timeout("soon").unwrap_err().contains("not a number"));
    }

    #[test]
    fn rank_lists_collapse_runs() {
        assert_eq!(rank_list(&[0, 3]), "0, 3");
        assert_eq!(rank_list(&[0, 1, 2, 5]), "0, 1, 2, 5");
        let long: Vec<usize> = [0, 1].into_iter().chain(3..20).chain([25]).collect();
        assert_eq!(rank_list(&long), "0, 1, 3-19, 25");
        assert_eq!(rank_list(&(0..1024).collect::<Vec<_>>()), "0-1023");
        assert_eq!(rank_list(&[]), "");
    }

    #[test]
    fn signal_names() {
        assert_eq!(signal_name(libc::SIGSEGV), "SIGSEGV");
        assert_eq!(signal_name(libc::SIGRTMIN() + 2), "SIGRTMIN+2");
        assert_eq!(signal_name(200), "signal 200");
    }

    #[test]
    fn programs_are_resolved_like_execvp() {
        assert!(resolve_program(OsStr::new("sh")).unwrap().ends_with("sh"));
        assert!(resolve_program(OsStr::new("/nonexistent/prog")).unwrap_err().contains("does not exist"));
        assert!(resolve_program(OsStr::new("/")).unwrap_err().contains("is a directory"));
        assert!(resolve_program(OsStr::new("no-such-program-anywhere")).unwrap_err().contains("not found on PATH"));
        assert!(resolve_program(OsStr::new("")).unwrap_err().contains("empty"));
    }
}
