"""Running the collective micro-benchmark ``bench/micro/coll.c`` (and ``pingpong.c``) on a simulated chip or natively.

One ``Job`` is one run of the program: one operation, its algorithms, sizes and roots, on the first N cores of a
chip (``nocmsg run -n N``) or as N native processes (``nocmsg native -n N``). Each algorithm gets its own run, so
that an algorithm that fails or hangs costs only its own rows (status ``failed: ...``), and runs go two at a time
(simulated cycles do not depend on the machine's load; native jobs run one at a time).

The compilers are ``bin/nocmsg-cc`` and ``bin/nocmsg-cc-native``, or ``$NOCMSG_CC`` and ``$NOCMSG_CC_NATIVE``.
"""

import csv
import io
import os
import shlex
import subprocess
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .common import REPO, nocmsg_binary

COLL_SOURCE = REPO / "bench" / "micro" / "coll.c"
PINGPONG_SOURCE = REPO / "bench" / "micro" / "pingpong.c"
BUILD_DIR = REPO / "target" / "bench"
FIELDS = ["op", "algorithm", "chosen", "ranks", "bytes", "root", "iterations", "sync", "time", "unit", "xfer",
          "status"]
ROOTED = {"bcast", "reduce", "gather", "scatter"}
# A run that is still going after this many simulated cycles has hung (the largest quick and full points take a
# few hundred million).
MAX_CYCLES = 3_000_000_000
TIMEOUT_SECONDS = 900

_built = {}


def compiler(native):
    if native:
        return os.environ.get("NOCMSG_CC_NATIVE", str(REPO / "bin" / "nocmsg-cc-native"))
    return os.environ.get("NOCMSG_CC", str(REPO / "bin" / "nocmsg-cc"))


def needs_own_build(chip):
    """Whether programs for ``chip`` need a build of their own: chips whose network interface is not PIMP's (the
    library's port differs) or whose cores are not rv64im (the default build's)."""
    with open(chip, "rb") as f:
        config = tomllib.load(f)
    return config.get("ni", {}).get("kind", "pimp") != "pimp" or config.get("core", {}).get("isa", "rv64im") != "rv64im"


def build(source=COLL_SOURCE, native=False, chip=None, libs=()):
    """Compiles ``source`` once per process (into target/bench/) and returns the program's path: for the default
    chips (PIMP, rv64im) as ``NAME.elf``, for ``chip`` when it needs its own build as ``NAME-CHIP.elf``."""
    chip = chip if chip is not None and not native and needs_own_build(chip) else None
    key = (Path(source), native, chip)
    if key not in _built:
        BUILD_DIR.mkdir(parents=True, exist_ok=True)
        stem = Path(source).stem + (f"-{Path(chip).stem}" if chip else "")
        out = BUILD_DIR / (stem + ("" if native else ".elf"))
        # Build beside the final name, then rename, so concurrent builds never run a half-written file.
        tmp = out.with_name(f".{out.name}.{os.getpid()}")
        cmd = [compiler(native), *(["--chip", str(chip)] if chip else []), "-O2", "-Wall", str(source), "-o",
               str(tmp), *libs]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{shlex.join(cmd)} failed ({proc.returncode}):\n{proc.stderr.strip()}")
        os.replace(tmp, out)
        _built[key] = out
    return _built[key]


def chip_mesh(chip):
    """(width, height) of a chip file's mesh."""
    with open(chip, "rb") as f:
        mesh = tomllib.load(f)["mesh"]
    return int(mesh["width"]), int(mesh["height"])


def root_positions(width, height):
    """Ranks (= tiles, when the whole chip runs) of a corner, the middle of an edge and the centre of a mesh."""
    cx, cy = (width - 1) // 2, (height - 1) // 2
    return {"corner": 0, "edge": cx, "centre": cy * width + cx}


def algorithms(op, chip=REPO / "chips" / "pimp-2x2.toml"):
    """The algorithms of ``op``, as the library lists them (``coll --list OP`` on one simulated core)."""
    cmd = [str(nocmsg_binary()), "run", "--chip", str(chip), "-n", "1", "--no-prefix", str(build(chip=chip)), "--list",
           op]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise RuntimeError(f"{shlex.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return proc.stdout.split()


@dataclass
class Job:
    op: str
    algorithm: str  # one name, or "auto"
    ranks: int
    sizes: list
    iters: list  # one count, or one per size
    roots: list = field(default_factory=lambda: [0])
    chip: Path = REPO / "chips" / "pimp-8x8.toml"
    native: bool = False
    warmup: int = 2
    budget: int = 0  # time units per repetition (0: always `iters` calls)
    reps: list = field(default_factory=lambda: [1])  # one count, or one per size
    sync: str = "each"  # "each": a barrier and a common start before every call (latency); "once": back to back
    xfer: int = -1  # -1: the library's default
    label: str = ""  # which part of an experiment this job belongs to
    sim_options: list = field(default_factory=list)  # more options of `nocmsg run` (e.g. --background SPEC)

    def program_args(self):
        args = ["--op", self.op, "--alg", self.algorithm, "--sizes", ",".join(map(str, self.sizes)),
                "--roots", ",".join(map(str, self.roots)), "--iters", ",".join(map(str, self.iters)),
                "--warmup", str(self.warmup), "--reps", ",".join(map(str, self.reps)), "--sync", self.sync]
        if self.budget:
            args += ["--budget", str(self.budget)]
        if self.xfer >= 0:
            args += ["--xfer", str(self.xfer)]
        return args

    def command(self, program):
        if self.native:
            launch = [str(nocmsg_binary()), "native", "-n", str(self.ranks), "--pin", "--timeout", str(TIMEOUT_SECONDS)]
        else:
            launch = [str(nocmsg_binary()), "run", "--chip", str(self.chip), "-n", str(self.ranks), "--no-prefix",
                      "--max-cycles", str(MAX_CYCLES), *self.sim_options]
        return launch + [str(program)] + self.program_args()

    def shown(self):
        """The command line as a reader would type it from the repository root."""
        if self.native:
            head = ["target/release/nocmsg", "native", "-n", str(self.ranks), "--pin", "target/bench/coll"]
        else:
            chip = os.path.relpath(self.chip, REPO)
            program = os.path.relpath(build(chip=self.chip), REPO)
            head = ["target/release/nocmsg", "run", "--chip", chip, "-n", str(self.ranks), *self.sim_options, program]
        return shlex.join(head + self.program_args())


def parse(text):
    """The CSV rows a run printed (lines outside the CSV, if any, are ignored)."""
    lines = [line for line in text.splitlines() if line.count(",") == len(FIELDS) - 1]
    return list(csv.DictReader(io.StringIO("\n".join(lines))))


def failed_rows(job, reason):
    """Placeholder rows for every point of a job that did not complete, so the failure shows in tables and checks."""
    roots = job.roots if job.op in ROOTED else ["-"]
    sizes = [0] if job.op == "barrier" else job.sizes
    return [{"op": job.op, "algorithm": job.algorithm, "chosen": "", "ranks": job.ranks, "bytes": b, "root": r,
             "iterations": "", "sync": job.sync, "time": "", "unit": "ns" if job.native else "cycles", "xfer": "",
             "status": f"failed: {reason}"} for b in sizes for r in roots]


def run_job(job):
    """Runs one job; returns its rows (every row carries the job's label)."""
    program = build(native=job.native, chip=job.chip)
    cmd = job.command(program)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_SECONDS + 30)
        rows = parse(proc.stdout)
        if proc.returncode != 0 or not rows:
            lines = proc.stderr.strip().splitlines() or [""]
            rows = failed_rows(job, f"exit {proc.returncode} {lines[-1][:120]}".strip())
    except subprocess.TimeoutExpired:
        rows = failed_rows(job, f"timeout after {TIMEOUT_SECONDS + 30} s")
    for row in rows:
        row["label"] = job.label
    return rows


def run_jobs(jobs, workers=None, progress=None):
    """Runs jobs (simulated ones two at a time, native ones one at a time); returns (rows, shown commands)."""
    if workers is None:
        workers = 1 if any(j.native for j in jobs) else min(2, os.cpu_count() or 1)
    for job in jobs:  # compile before starting threads
        build(native=job.native, chip=job.chip)
    rows = []
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for job, result in zip(jobs, pool.map(run_job, jobs)):
            rows.extend(result)
            if progress:
                progress(job, result)
    return rows, [job.shown() for job in jobs]


def run_pingpong(chip, max_bytes, iterations):
    """bench/micro/pingpong on every core of ``chip``; returns (rows, shown command)."""
    program = build(PINGPONG_SOURCE, chip=chip)
    args = [str(max_bytes), str(iterations)]
    cmd = [str(nocmsg_binary()), "run", "--chip", str(chip), "--no-prefix", str(program), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_SECONDS)
    if proc.returncode != 0:
        raise RuntimeError(f"{shlex.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    chip = os.path.relpath(chip, REPO)
    shown = shlex.join(["target/release/nocmsg", "run", "--chip", chip, os.path.relpath(program, REPO), *args])
    return rows, shown


def _volume(op, nbytes, ranks):
    return max(nbytes, 8) * (ranks if op in {"alltoall", "allgather", "gather", "scatter", "reduce_scatter"} else 1)


# Simulated points. With sync "each" (latency, the default) every call starts from the same instant on all cores and
# takes the same cycles every time, so a few calls suffice. With sync "once" (back to back) up to 40 calls, and three
# repetitions of short ones, average out how the cores left the barrier. Either way a point stops at
# SIM_BUDGET_CYCLES (bench/micro/coll.c --budget measures one call first), so that a linear broadcast of 64 KiB to
# 64 cores (millions of cycles, at about half a million simulated cycles per host second) runs once.
SIM_ITERATIONS = {"each": 5, "once": 40}
QUICK_ITERATIONS = {"each": 2, "once": 10}
SIM_BUDGET_CYCLES, QUICK_BUDGET_CYCLES = 400_000, 150_000


def _volume(op, nbytes, ranks):
    return max(nbytes, 8) * (ranks if op in {"alltoall", "allgather", "gather", "scatter", "reduce_scatter"} else 1)


def sim_reps(op, nbytes, ranks, quick=False, sync="each"):
    """Repetitions per point on the simulator (the best is kept): one for latency; back to back, short operations
    are the ones whose time depends on how the cores entered them, so they run three times."""
    if sync == "each":
        return 1
    return 3 if _volume(op, nbytes, ranks) <= (256 if quick else 4096) else 1


def sim_job(op, algorithm, ranks, sizes, quick=False, sync="each", **fields):
    """A simulated Job with the iteration, budget, repetition and warm-up counts of the policy above."""
    return Job(op=op, algorithm=algorithm, ranks=ranks, sizes=list(sizes), sync=sync,
               iters=[(QUICK_ITERATIONS if quick else SIM_ITERATIONS)[sync]],
               budget=QUICK_BUDGET_CYCLES if quick else SIM_BUDGET_CYCLES,
               reps=[sim_reps(op, b, ranks, quick, sync) for b in sizes],
               warmup=1 if quick or sync == "each" else 2, **fields)


def exact_job(op, algorithm, ranks, sizes, iters=1, **fields):
    """A simulated latency Job (sync "each") of `iters` calls after one warm-up, without a budget: each such call
    takes the same cycles, so one suffices, and the longest (minutes of host time) are not run again."""
    return Job(op=op, algorithm=algorithm, ranks=ranks, sizes=list(sizes), sync="each", iters=[iters], budget=0,
               reps=[1] * len(sizes), warmup=1, **fields)


# Native points: back to back (sync "once"): a synchronised start needs every rank on its own CPU through the wait,
# and ranks that share CPUs (or a busy machine) yield while they wait and lose whole time slices. Up to 1,000 calls,
# fewer when they would take more than 20 ms; the best of 3 repetitions.
NATIVE_ITERATIONS, NATIVE_BUDGET_NS, NATIVE_REPS = 1000, 20_000_000, 3


def native_job(op, algorithm, ranks, sizes, **fields):
    """A native Job with the counts above."""
    return Job(op=op, algorithm=algorithm, ranks=ranks, sizes=list(sizes), native=True, iters=[NATIVE_ITERATIONS],
               budget=NATIVE_BUDGET_NS, reps=[NATIVE_REPS], warmup=10, sync="once", **fields)


def frame(rows):
    """Rows as a DataFrame with numeric ranks, bytes and time (NaN where a run failed) and root as text."""
    data = pd.DataFrame(rows, columns=["label", *FIELDS] if rows and "label" in rows[0] else FIELDS)
    for col in ("ranks", "bytes"):
        data[col] = pd.to_numeric(data[col]).astype(int)
    data["time"] = pd.to_numeric(data["time"], errors="coerce")
    data["root"] = data["root"].astype(str)
    return data


def read_csv(path):
    """A data.csv written by an experiment, with the types of ``frame``."""
    return pd.read_csv(path, dtype={"root": str, "chosen": str, "status": str}, keep_default_na=False,
                       na_values={"time": [""]})
