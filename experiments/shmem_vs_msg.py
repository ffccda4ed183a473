"""shmem-vs-msg: NoCMsg's shared memory against messages (its Figs. 5 to 8) on tilepro-64.

Pairs of cores exchange messages back and forth (``bench/shmem/pingpong.c``):

- **shm**: two threads of one process (``nocmsg run --threads``) through coherent shared memory. Each copies its
  message into a buffer the other reads and raises a sequence flag; the other waits for the flag and copies the
  message out. The lines go through the caches, homes and directory of ``docs/shmem.md``. With ``--hash-mode
  none`` every page is homed at the tile that touches it first; with ``all`` every line is hashed over the tiles.
- **msg**: two processes through libnocmsg's messages on the UDN (``nocmsg_send``/``nocmsg_recv``: flow-controlled,
  eager up to the limit, rendezvous beyond), with the same caches (``--memory cached``), so both sides pay for their
  copies alike.
- **xmsg**: the same through NoCMsg's non-flow-controlled transfers (``nocmsg_xsend``/``nocmsg_xrecv``), which
  stream the message into the network with stalling writes, no handshake: what NoCMsg offers for a receiver known to
  be waiting, as each side of a ping-pong is.

The parts:

- ``bandwidth`` (Fig. 5): one pair, 1 B to 1 MiB. Bandwidth is the bytes both ways over the cycles of the round
  trips.
- ``jitter`` (Fig. 6): one pair, 1 MiB (64 KiB quick), over 20 seeded runs (``--perturb seed=S,skew=2000,
  period=50000,noise=1000``: every core starts up to 2,000 cycles late and loses 1,000 cycles about every 50,000,
  2% noise; our choice). Every run moves the same bytes, so the spread of the run times is their standard
  deviation in cycles, the time by which one run may differ from another (the coefficient of variation, relative to
  each way's own mean, beside it). ``jitter-sweep``: the same with 0.5% and 20% noise, 10 seeds each (3 quick).
- ``contention`` (Fig. 7): 4 to 27 pairs at once, 8-byte messages through shared memory. The one-way latency is
  half a round trip, averaged over the pairs.
- ``exchange400`` (Fig. 8): a 400-byte exchange with 1 to 27 pairs at once, shared memory against messages.

The paper measured these on the TilePro64 (its figures as issue 19 quotes their trends). Messages beat shared
memory in bandwidth and jitter, and shared-memory latency grows with contention. Ours are measured on the model;
the README sets them side by side.
"""

import shlex
import statistics
import subprocess
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from .common import REPO, command_lines, fenced, nocmsg_binary, parallel_runs, provenance  # noqa: E402

CHIP = REPO / "chips" / "tilepro-64.toml"
PROGRAM = REPO / "bench" / "shmem" / "pingpong.c"
FREQUENCY_MHZ = 700
PERTURB = "skew=2000,period=50000,noise=1000"
# The jitter against the amount of noise: lighter and heavier than PERTURB (0.5% and 20% of the time lost).
NOISE_LEVELS = {"light (0.5%)": "skew=2000,period=50000,noise=250", "main (2%)": PERTURB,
                "heavy (20%)": "skew=2000,period=20000,noise=4000"}
# The ways of exchanging: (label, nocmsg run options, pingpong mode).
WAYS = [
    ("shm none", ["--threads", "--hash-mode", "none"], "shm"),
    ("shm all", ["--threads", "--hash-mode", "all"], "shm"),
    ("msg", ["--memory", "cached"], "msg"),
    ("xmsg", ["--memory", "cached"], "xmsg"),
]
MESSAGES = ["msg", "xmsg"]
SHARED = ["shm none", "shm all"]


def build(elf):
    cmd = [str(REPO / "bin" / "nocmsg-cc"), "--chip", str(CHIP), "-O2", "-Wall", str(PROGRAM), "-o", str(elf)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return shlex.join(["bin/nocmsg-cc", "--chip", "chips/tilepro-64.toml", "-O2", "-Wall", "bench/shmem/pingpong.c", "-o", "pingpong.elf"])


def reps_for(size):
    """Enough round trips to average over, without simulating more than about 8 MiB each way."""
    return max(2, min(50, (8 << 20) // max(size, 1)))


def run_point(elf, part, way, size, reps, pairs, seed=None, level="main (2%)"):
    label, options, mode = next(w for w in WAYS if w[0] == way)
    args = ["run", "--chip", str(CHIP), "-n", str(2 * pairs), "--no-prefix", *options]
    if seed is not None:
        args += ["--perturb", f"seed={seed},{NOISE_LEVELS[level]}"]
    prog = [mode, str(size), str(reps)] + ([str(pairs)] if mode == "shm" else [])
    cmd = [str(nocmsg_binary()), *args, str(elf), *prog]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    shown = shlex.join(["nocmsg", *[a if a != str(CHIP) else "chips/tilepro-64.toml" for a in args], "pingpong.elf", *prog])
    if proc.returncode != 0:
        raise RuntimeError(f"{shown} failed ({proc.returncode}): {proc.stdout.strip()} {proc.stderr.strip()}")
    rows = []
    for line in proc.stdout.splitlines():
        if line.startswith("pingpong,"):
            _, _, pair, sz, rp, cycles = line.split(",")
            rows.append({"part": part, "way": label, "pairs": pairs, "pair": int(pair), "size": int(sz), "reps": int(rp),
                         "seed": seed, "noise": level if seed is not None else None, "cycles": int(cycles)})
    if len(rows) != pairs:
        raise RuntimeError(f"{shown}: expected {pairs} result lines, got {proc.stdout!r}")
    return rows, shown


def points(quick):
    sizes = [1, 64, 1024, 16384] if quick else [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1 << 20]
    pts = [("bandwidth", way, s, reps_for(s), 1, None) for s in sizes for way, _, _ in WAYS]
    jitter_size, seeds = (65536, 4) if quick else (1 << 20, 20)
    pts += [("jitter", way, jitter_size, 2, 1, seed) for way, _, _ in WAYS for seed in range(1, seeds + 1)]
    sweep_seeds = 3 if quick else 10
    pts += [("jitter-sweep", way, jitter_size, 2, 1, seed, level) for level in NOISE_LEVELS if level != "main (2%)"
            for way, _, _ in WAYS for seed in range(1, sweep_seeds + 1)]
    pairs = [4, 8] if quick else [4, 8, 16, 27]
    pts += [("contention", "shm none", 8, 20, p, None) for p in pairs]
    pts += [("exchange400", way, 400, 20, p, None) for p in [1] + pairs for way in ("shm none", "msg", "xmsg")]
    return pts


def collect(quick, tmp):
    elf = Path(tmp) / "pingpong.elf"
    commands = [build(elf)]
    results = parallel_runs(run_point, [(elf, *p) for p in points(quick)], "shmem-vs-msg")
    rows = []
    for r, cmd in results:
        rows.extend(r)
        commands.append(cmd)
    data = pd.DataFrame(rows)
    data["one_way_cycles"] = data["cycles"] / (2 * data["reps"])
    data["bytes_per_cycle"] = 2 * data["size"] * data["reps"] / data["cycles"]
    data["mb_per_s"] = data["bytes_per_cycle"] * FREQUENCY_MHZ
    return data, commands


def summaries(data):
    bw = data[data["part"] == "bandwidth"].pivot_table(index="size", columns="way", values="mb_per_s")
    j = data[data["part"] == "jitter"]
    jitter = j.groupby("way")["cycles"].agg(["mean", "std", "min", "max", "count"])
    jitter["cv_percent"] = 100 * jitter["std"] / jitter["mean"]
    jitter["spread_percent"] = 100 * (jitter["max"] - jitter["min"]) / jitter["mean"]
    c = data[data["part"] == "contention"].groupby("pairs")["one_way_cycles"].agg(["mean", "max"])
    x = data[data["part"] == "exchange400"].groupby(["pairs", "way"])["one_way_cycles"].mean().unstack("way")
    return bw, jitter, c, x


def noise_sweep(data):
    """Each way's spread of run times at each noise level (the main jitter runs included): the standard deviation in
    cycles and the coefficient of variation (%)."""
    j = data[data["part"].isin(["jitter", "jitter-sweep"])]
    g = j.groupby(["noise", "way"])["cycles"].agg(["mean", "std"])
    g["cv_percent"] = 100 * g["std"] / g["mean"]
    table = g[["std", "cv_percent"]].unstack("way")
    return table.reindex([level for level in NOISE_LEVELS if level in table.index])


def checks(bw, jitter, contention, exchange):
    largest = bw.index.max()
    # Where NoCMsg's transfers (the better of the two message ways) beat both shared-memory ways.
    wins = bw[MESSAGES].max(axis=1) > bw[SHARED].max(axis=1)
    losing = [int(s) for s in wins.index[~wins]]
    rows = [
        {"check": f"messages beat shared memory in bandwidth at {largest} B",
         "measured": ", ".join(f"{w} {bw.loc[largest, w]:.0f} MB/s" for w in bw.columns),
         "paper": "messages higher", "passed": bool(wins.loc[largest])},
        {"check": "messages beat shared memory in bandwidth at every size",
         "measured": "all sizes" if not losing else f"not at {', '.join(f'{s} B' for s in losing)}",
         "paper": "messages higher", "passed": not losing},
        {"check": "messages vary less than shared memory across seeded runs (standard deviation of the run time)",
         "measured": ", ".join(f"{w} {jitter.loc[w, 'std']:,.0f} cycles ({jitter.loc[w, 'cv_percent']:.2f}% of its mean)"
                               for w in jitter.index),
         "paper": "messages less jitter", "passed": bool(jitter.loc[MESSAGES, "std"].max() < jitter.loc[SHARED, "std"].min())},
        {"check": "shared-memory latency grows with contention",
         "measured": ", ".join(f"{p} pairs {v:.0f}" for p, v in contention["mean"].items()),
         "paper": "grows", "passed": bool(contention["mean"].is_monotonic_increasing and contention["mean"].iloc[-1] > contention["mean"].iloc[0])},
    ]
    most = exchange.index.max()
    rows.append({"check": f"400 B under contention ({most} pairs): messages faster",
                 "measured": f"msg {exchange.loc[most, 'msg']:.0f} cycles, xmsg {exchange.loc[most, 'xmsg']:.0f}, shm {exchange.loc[most, 'shm none']:.0f}",
                 "paper": "messages faster", "passed": bool(exchange.loc[most, MESSAGES].max() < exchange.loc[most, "shm none"])})
    return pd.DataFrame(rows)


def plot(data, bw, jitter, contention, exchange, path):
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    ax = axes[0][0]
    for way in bw.columns:
        ax.plot(bw.index, bw[way], "o-", label=way)
    ax.set(xscale="log", yscale="log", xlabel="message size (bytes)", ylabel="MB/s (700 MHz)", title="Fig. 5: bandwidth, one pair")
    ax.legend()
    ax = axes[0][1]
    j = data[data["part"] == "jitter"]
    # Each way's run times less its own mean: the spreads in time, side by side.
    ax.boxplot([(j[j["way"] == w]["cycles"] - jitter.loc[w, "mean"]) / 1000 for w in jitter.index],
               tick_labels=list(jitter.index))
    ax.set(ylabel="run time less the way's mean (thousand cycles)",
           title=f"Fig. 6: run time of 1 MiB over {int(jitter['count'].iloc[0])} seeded runs")
    ax = axes[1][0]
    ax.plot(contention.index, contention["mean"], "o-", label="mean over pairs")
    ax.plot(contention.index, contention["max"], "s--", label="slowest pair")
    ax.set(xlabel="pairs at once", ylabel="one-way cycles (8 B)", title="Fig. 7: shared-memory latency under contention")
    ax.legend()
    ax = axes[1][1]
    for way in exchange.columns:
        ax.plot(exchange.index, exchange[way], "o-", label=way)
    ax.set(xlabel="pairs at once", ylabel="one-way cycles", title="Fig. 8: 400 B exchange under contention")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run(out_dir, quick=False):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        data, commands = collect(quick, tmp)
    bw, jitter, contention, exchange = summaries(data)
    table = checks(bw, jitter, contention, exchange)
    data.to_csv(out / "data.csv", index=False)
    table.to_csv(out / "checks.csv", index=False)
    plot(data, bw, jitter, contention, exchange, out / "plot.png")
    lines = [
        "# shmem-vs-msg: NoCMsg's shared memory against messages on tilepro-64",
        "",
        __doc__.strip(),
        "",
        *provenance("shmem-vs-msg", quick),
        "- raw data: `data.csv` (one row per pair and run), `checks.csv`; plot: `plot.png`",
        "",
        *fenced("Trends against the paper's:", table.to_string(index=False)),
        *fenced("Fig. 5, bandwidth (MB/s at 700 MHz) against message size (bytes):", bw.round(1).to_string()),
        *fenced("Fig. 6, run time (cycles) over the seeded runs:", jitter.round(2).to_string()),
        *fenced("The same spread against the noise (the share of time the noise takes): standard deviation (cycles) "
                "and coefficient of variation (%):", noise_sweep(data).round(3).to_string()),
        *fenced("Fig. 7, one-way latency (cycles) of 8-byte shared-memory messages against the pairs at once:", contention.round(1).to_string()),
        *fenced("Fig. 8, one-way latency (cycles) of a 400-byte exchange against the pairs at once:", exchange.round(1).to_string()),
        "![plot](plot.png)",
        "",
        *command_lines("Commands (every run):", commands),
        "",
    ]
    (out / "README.md").write_text("\n".join(lines))
    print(table.to_string(index=False))
