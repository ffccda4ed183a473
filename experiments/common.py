"""Helpers shared by experiments: finding the simulator, running it, and recording provenance."""

import json
import os
import shlex
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def nocmsg_binary():
    """The simulator to run: $NOCMSG, or the release build in this repository."""
    path = Path(os.environ.get("NOCMSG", REPO / "target" / "release" / "nocmsg"))
    if not path.exists():
        raise SystemExit(f"nocmsg binary not found at {path}; run `make build` first or set NOCMSG")
    return path


def parallel_runs(fn, points, label):
    """``[fn(*p) for p in points]``, with the simulator runs spread over the host's cores (each run is
    deterministic, so the results do not depend on the order; $NOCMSG_EXPERIMENT_JOBS caps the parallelism). Reports
    each finished point on stderr, for runs that take hours."""
    jobs = max(1, int(os.environ.get("NOCMSG_EXPERIMENT_JOBS", os.cpu_count() or 1)))
    done = 0
    lock = threading.Lock()

    def one(p):
        nonlocal done
        result = fn(*p)
        with lock:
            done += 1
            print(f"{label}: {done}/{len(points)} {' '.join(map(str, p[1:]))}", file=sys.stderr, flush=True)
        return result

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(one, points))


def git_revision():
    try:
        rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
        return rev + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def provenance(name, quick, ranks=None):
    """The README lines saying which revision made the results and how to make them again (with the core counts
    when the run was given its own)."""
    only = f" --ranks {','.join(map(str, ranks))}" if ranks else ""
    return [f"- git revision: `{git_revision()}`",
            f"- version: {'quick (demo)' if quick else 'full'}; reproduce with "
            f"`python -m experiments {name}{' --quick' if quick else ''}{only}`"]


def fenced(title, text):
    """A README section: a title line, then text in a code block."""
    return [title, "", "```", text, "```", ""]


def command_lines(heading, commands):
    """The README's list of simulator commands, indented as code under a heading."""
    return [heading, ""] + [f"    {c}" for c in commands]


def run_traffic(args):
    """Runs ``nocmsg traffic ARGS --json F`` and returns (the points as a list of dicts, the command line)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "points.json"
        cmd = [str(nocmsg_binary()), "traffic", *args, "--json", str(out), "--quiet"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{shlex.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")
        with open(out) as f:
            return json.load(f), shlex.join(["nocmsg", "traffic", *args])
