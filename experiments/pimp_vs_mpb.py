"""pimp-vs-mpb: PIMP's comparison with an SCC-like message-passing-buffer many-core, on 64 cores: pimp-8x8 against
mpb-8x8 (the same cores and mesh with SCC-style MPBs instead of PIMP's register FIFOs; docs/mpb.md).

Three ways to communicate, each timed the way ``bench/micro/coll.c`` times collectives (cycles; every call started
at the same cycle on every core; the max over cores):

- ``pimp``: libnocmsg on pimp-8x8, the selector's algorithms ("auto");
- ``rcce``: RCCE on mpb-8x8 (``lib/rcce``, ``bench/rcce/bench.c``): RCCE_send/recv round trips, RCCE_bcast,
  RCCE_barrier, RCCE_reduce and RCCE_allreduce as RCCE has them (linear through UE 0), alltoall as pairwise
  RCCE_send/recv; the MPB baseline of the PIMP paper;
- ``mpb best``: libnocmsg on mpb-8x8 with its best algorithm for MPBs: the MPB port's round trips, the SCC family's
  hybrid broadcast, barrier and reduce ``mpb`` (through MPB flags and slices), and the selector's allreduce and
  ``pairwise`` alltoall over the MPB port (the MPB algorithms are chosen explicitly: the selector does not pick
  them, docs/collectives.md).

The parts follow the PIMP paper's figures 4 to 10: round trip against message length (and its cycles per extra
word), broadcast against length, barrier against cores (with a linear fit a + b n), alltoall against cores,
reduce and allreduce against length, and allreduce by recursive doubling against length.
"""

import csv
import io
import os
import shlex
import subprocess
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from .collbench import REPO, build, exact_job, frame, run_jobs, run_pingpong  # noqa: E402
from .collplot import size_label  # noqa: E402
from .common import command_lines, fenced, nocmsg_binary, provenance  # noqa: E402

PIMP = REPO / "chips" / "pimp-8x8.toml"
MPB = REPO / "chips" / "mpb-8x8.toml"
RCCE_BENCH = REPO / "bench" / "rcce" / "bench.c"
WORD = 8
# The PIMP paper's figures (as issue 17 quotes them).
PAPER = {"word_pimp": 18.0, "word_mpb": 33.0, "barrier_pimp": (83.0, 9.0), "barrier_mpb": (317.0, 120.0)}


def config(quick):
    if quick:
        return {"pingpong_max": 256, "lengths": [8, 1024], "cores": [2, 8, 64], "alltoall_bytes": 8,
                "iters": 1}
    return {"pingpong_max": 512, "lengths": [8, 64, 512, 4096, 16384, 65536], "cores": [2, 4, 8, 16, 32, 64],
            "alltoall_bytes": 64, "iters": 2}


def rcce_run(args, ranks=64):
    """bench/rcce/bench.c on mpb-8x8; returns (rows, shown command)."""
    program = build(RCCE_BENCH, chip=MPB, libs=["-lrcce"])
    cmd = [str(nocmsg_binary()), "run", "--chip", str(MPB), "-n", str(ranks), "--no-prefix", str(program), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    shown = shlex.join(["target/release/nocmsg", "run", "--chip", os.path.relpath(MPB, REPO), "-n", str(ranks),
                        os.path.relpath(program, REPO), *args])
    if proc.returncode != 0:
        raise RuntimeError(f"{shown} failed ({proc.returncode}): {proc.stderr.strip()[-300:]}")
    lines = [line for line in proc.stdout.splitlines() if line.count(",") == 11]
    return list(csv.DictReader(io.StringIO("\n".join(lines)))), shown


def _job(op, alg, chip, ranks, sizes, cfg, label):
    return exact_job(op, alg, ranks, sizes, iters=cfg["iters"], chip=chip, label=label)


def collect(cfg):
    rows, commands = [], []
    # Round trips.
    for way, chip in (("pimp", PIMP), ("mpb best", MPB)):
        pp, shown = run_pingpong(chip, cfg["pingpong_max"], 10)
        commands.append(shown)
        for r in pp:
            if r["pair"] == "neighbour":
                rows.append({"part": "round trip", "way": way, "ranks": 64, "bytes": int(r["bytes"]),
                             "time": float(r["round_trip"]), "status": "ok"})
    sizes = [b for b in [8, 16, 32, 64, 128, 256, 512] if b <= cfg["pingpong_max"]]
    rc, shown = rcce_run(["pingpong", "1", "10", *map(str, sizes)])
    commands.append(shown)
    rows += [{"part": "round trip", "way": "rcce", "ranks": 64, "bytes": int(r["bytes"]), "time": float(r["time"]),
              "status": r["status"]} for r in rc]
    # Collectives against length, on 64 cores.
    lengths = cfg["lengths"]
    plan = [("bcast", {"pimp": "auto", "mpb best": "hybrid"}),
            ("reduce", {"pimp": "auto", "mpb best": "mpb"}),
            ("allreduce", {"pimp": "auto", "mpb best": "auto"}),
            ("allreduce", {"pimp": "recursive_doubling", "mpb best": "recursive_doubling"})]
    jobs = []
    for op, algs in plan:
        part = "allreduce (recursive doubling)" if algs["pimp"] == "recursive_doubling" else op
        for way, alg in algs.items():
            jobs.append(_job(op, alg, PIMP if way == "pimp" else MPB, 64, lengths, cfg, f"{part}|{way}"))
    # Barrier and alltoall against cores.
    for n in cfg["cores"]:
        jobs.append(_job("barrier", "auto", PIMP, n, [0], cfg, "barrier|pimp"))
        jobs.append(_job("barrier", "mpb", MPB, n, [0], cfg, "barrier|mpb best"))
        jobs.append(_job("alltoall", "auto", PIMP, n, [cfg["alltoall_bytes"]], cfg, "alltoall|pimp"))
        jobs.append(_job("alltoall", "pairwise", MPB, n, [cfg["alltoall_bytes"]], cfg, "alltoall|mpb best"))
    coll_rows, coll_commands = run_jobs(jobs)
    commands += coll_commands
    data = frame(coll_rows)
    for r in data.itertuples():
        part, way = r.label.split("|")
        rows.append({"part": part, "way": way, "ranks": r.ranks, "bytes": r.bytes, "time": r.time,
                     "status": r.status, "algorithm": r.chosen})
    # RCCE's collectives.
    length_args = [str(b) for b in lengths]
    for op in ("bcast", "reduce", "allreduce"):
        rc, shown = rcce_run([op, str(cfg["iters"]), *length_args])
        commands.append(shown)
        rows += [{"part": op, "way": "rcce", "ranks": 64, "bytes": int(r["bytes"]), "time": float(r["time"]),
                  "status": r["status"], "algorithm": "rcce"} for r in rc]
    for n in cfg["cores"]:
        for op, size in (("barrier", 0), ("alltoall", cfg["alltoall_bytes"])):
            rc, shown = rcce_run([op, str(cfg["iters"]), str(size)], ranks=n)
            commands.append(shown)
            rows += [{"part": op, "way": "rcce", "ranks": n, "bytes": int(r["bytes"]), "time": float(r["time"]),
                      "status": r["status"], "algorithm": "rcce"} for r in rc]
    out = pd.DataFrame(rows)
    out["time"] = pd.to_numeric(out["time"], errors="coerce")
    return out, commands


def per_word(data, way):
    """Cycles per extra 8-byte word of a round trip: the slope of a least-squares line through 8 B to 256 B."""
    d = data[(data["part"] == "round trip") & (data["way"] == way) & (data["status"] == "ok")]
    d = d[(d["bytes"] >= 8) & (d["bytes"] <= 256) & (d["bytes"] % WORD == 0)]
    if len(d) < 2:
        return float("nan")
    return float(np.polyfit(d["bytes"] / WORD, d["time"], 1)[0])


def barrier_fit(data, way):
    """(a, b) of a least-squares line a + b n through the barrier times against cores."""
    d = data[(data["part"] == "barrier") & (data["way"] == way) & (data["status"] == "ok")]
    if len(d) < 2:
        return float("nan"), float("nan")
    b, a = np.polyfit(d["ranks"], d["time"], 1)
    return float(a), float(b)


def checks(data):
    rows = []
    wp, wm, wr = per_word(data, "pimp"), per_word(data, "mpb best"), per_word(data, "rcce")
    rows.append({"check": "round trip per extra word: PIMP below MPB",
                 "measured": f"pimp {wp:.1f}, rcce {wr:.1f}, mpb best {wm:.1f} cycles",
                 "paper": f"pimp {PAPER['word_pimp']:g}, MPB {PAPER['word_mpb']:g}",
                 "passed": bool(wp < min(wm, wr))})
    fits = {w: barrier_fit(data, w) for w in ("pimp", "rcce", "mpb best")}
    largest = data[data["part"] == "barrier"]["ranks"].max()
    times = data[(data["part"] == "barrier") & (data["ranks"] == largest)].set_index("way")["time"]
    rows.append({"check": f"barrier: PIMP below MPB ({largest} cores)",
                 "measured": ", ".join(f"{w} {fits[w][0]:.0f} + {fits[w][1]:.1f}n" for w in fits),
                 "paper": f"pimp {PAPER['barrier_pimp'][0]:g} + {PAPER['barrier_pimp'][1]:g}n, MPB "
                          f"{PAPER['barrier_mpb'][0]:g} + {PAPER['barrier_mpb'][1]:g}n",
                 "passed": bool(times.get("pimp", np.inf) < min(times.get("rcce", 0), times.get("mpb best", 0)))})
    red = data[(data["part"] == "reduce") & (data["status"] == "ok")]
    pivot = red.pivot_table(index="bytes", columns="way", values="time", aggfunc="first")
    multi = pivot[pivot.index > WORD]
    wins = [b for b in multi.index if multi.loc[b].get("mpb best", np.inf) < multi.loc[b].get("pimp", 0)]
    rows.append({"check": "multi-word reduce: MPB below PIMP",
                 "measured": ("MPB faster at " + ", ".join(size_label(b) for b in wins)) if wins
                 else "PIMP faster at every length",
                 "paper": "MPB faster on multi-word reduce", "passed": bool(wins)})
    return pd.DataFrame(rows)


def tables(data):
    out = []
    for part in ["round trip", "bcast", "reduce", "allreduce", "allreduce (recursive doubling)"]:
        d = data[data["part"] == part]
        if len(d):
            pivot = d.pivot_table(index="bytes", columns="way", values="time", aggfunc="first")
            pivot.index = [size_label(b) for b in pivot.index]
            out.append(f"{part} against length, 64 cores (cycles):\n" + pivot.round(1).to_string(na_rep="-"))
    for part in ["barrier", "alltoall"]:
        d = data[data["part"] == part]
        if len(d):
            pivot = d.pivot_table(index="ranks", columns="way", values="time", aggfunc="first")
            size = d["bytes"].max()
            out.append(f"{part} against cores{'' if part == 'barrier' else f', {size} B per pair'} (cycles):\n"
                       + pivot.round(1).to_string(na_rep="-"))
    out.append("cycles per extra word of a round trip (8 B to 256 B): "
               + ", ".join(f"{w} {per_word(data, w):.1f}" for w in ("pimp", "rcce", "mpb best")))
    out.append("barrier fits: " + ", ".join(f"{w} {a:.0f} + {b:.1f}n" for w, (a, b) in
                                            ((w, barrier_fit(data, w)) for w in ("pimp", "rcce", "mpb best"))))
    bad = data[data["status"] != "ok"]
    if len(bad):
        out.append(f"{len(bad)} points did not complete or gave wrong results:\n"
                   + bad[["part", "way", "ranks", "bytes", "status"]].to_string(index=False))
    return "\n\n".join(out)


def plot(data, path):
    parts = [("round trip", "bytes"), ("bcast", "bytes"), ("barrier", "ranks"), ("alltoall", "ranks"),
             ("reduce", "bytes"), ("allreduce", "bytes"), ("allreduce (recursive doubling)", "bytes")]
    fig, axes = plt.subplots(2, 4, figsize=(20, 9))
    for ax, (part, x) in zip(axes.flat, parts):
        d = data[(data["part"] == part) & (data["status"] == "ok")]
        for way, group in d.groupby("way", sort=False):
            group = group.sort_values(x)
            ax.plot(group[x], group["time"], marker="o", ms=3.5, lw=1.2, label=way)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(part, fontsize=10)
        ax.set_xlabel("bytes" if x == "bytes" else "cores")
        ax.set_ylabel("cycles")
        ax.grid(True, lw=0.4, alpha=0.6)
        if len(d):
            ax.legend(fontsize=7)
    axes.flat[-1].axis("off")
    fig.suptitle("PIMP (pimp-8x8) against MPBs (mpb-8x8): RCCE and libnocmsg's best, 64 cores", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_readme(path, commands, summary, check_frame, quick):
    lines = [
        "# pimp-vs-mpb: PIMP against an SCC-like MPB many-core, 64 cores",
        "",
        __doc__.strip(),
        "",
        *provenance("pimp-vs-mpb", quick),
        "- raw data: `data.csv`, `checks.csv`; plot: `plot.png`",
        "",
        *fenced("Acceptance checks (paper: the PIMP paper's figures as issue 17 quotes them):",
                check_frame.to_string(index=False)),
        *fenced("Results:", summary),
        *command_lines("Simulator commands (programs built with `bin/nocmsg-cc [--chip CHIP] -O2` into "
                       "`target/bench/`):", commands),
    ]
    Path(path).write_text("\n".join(lines) + "\n")


def run(out_dir="results/pimp-vs-mpb", quick=False):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cfg = config(quick)
    data, commands = collect(cfg)
    data.to_csv(out / "data.csv", index=False)
    check_frame = checks(data)
    check_frame.to_csv(out / "checks.csv", index=False)
    plot(data, out / "plot.png")
    summary = tables(data)
    write_readme(out / "README.md", commands, summary, check_frame, quick)
    print(summary)
    print("\nacceptance checks:")
    print(check_frame.to_string(index=False))
    print("wrote " + ", ".join(str(out / n) for n in ["data.csv", "checks.csv", "plot.png", "README.md"]))
    return data
