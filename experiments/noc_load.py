"""noc-load: packet latency and accepted throughput against offered load on an 8x8 mesh.

Uniform random traffic, 1-flit packets, 8-flit buffers, XY routing; three router configurations: the textbook
4-stage virtual-channel router with one and with two VCs, and a single-cycle router. The analytic zero-load latency
of each is drawn as a dashed line; saturated points (source queues growing without bound) are drawn hollow.
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from .common import provenance, run_traffic  # noqa: E402

CONFIGS = [
    ("4stage, 1 VC", ["--router", "4stage", "--vcs", "1"]),
    ("4stage, 2 VCs", ["--router", "4stage", "--vcs", "2"]),
    ("1stage, 1 VC", ["--router", "1stage", "--vcs", "1"]),
]


def sweep_args(quick):
    base = ["--mesh", "8x8", "--pattern", "uniform", "--packet-flits", "1", "--buffer-flits", "8", "--routing", "xy", "--seed", "1", "--jobs", "2"]
    if quick:
        return base + ["--rates", "0.02:0.5:0.04", "--warmup", "1000", "--measure", "3000", "--drain-limit", "6000"]
    return base + ["--rates", "0.01:0.6:0.01", "--warmup", "2000", "--measure", "20000"]


def collect(quick):
    frames, commands = [], []
    for label, extra in CONFIGS:
        points, cmd = run_traffic(sweep_args(quick) + extra)
        frame = pd.DataFrame(points)
        frame.insert(0, "config", label)
        frames.append(frame)
        commands.append(cmd)
    return pd.concat(frames, ignore_index=True), commands


def summarize(data):
    """One row per configuration: zero-load latency (analytic and lowest-load measured) and saturation throughput."""
    rows = []
    for label, group in data.groupby("config", sort=False):
        lowest = group.sort_values("rate").iloc[0]
        stable = group[~group["saturated"]]
        rows.append(
            {
                "config": label,
                "zero_load_analytic": round(lowest["zero_load_latency"], 2),
                f"latency_at_{lowest['rate']:g}": round(lowest["avg_packet_latency"], 2),
                "max_unsaturated_rate": stable["rate"].max() if len(stable) else float("nan"),
                "peak_accepted_rate": round(group["accepted_rate"].max(), 4),
            }
        )
    return pd.DataFrame(rows)


def plot(data, path):
    fig, (lat, thr) = plt.subplots(1, 2, figsize=(11, 4.2))
    for (label, group), color in zip(data.groupby("config", sort=False), ["C0", "C1", "C2"]):
        group = group.sort_values("rate")
        ok, sat = group[~group["saturated"]], group[group["saturated"]]
        lat.plot(ok["offered_rate"], ok["avg_packet_latency"], "o-", color=color, label=label, markersize=4)
        lat.plot(sat["offered_rate"], sat["avg_packet_latency"], "o", color=color, mfc="none", markersize=4)
        lat.axhline(group["zero_load_latency"].iloc[0], color=color, ls="--", lw=0.8)
        thr.plot(group["offered_rate"], group["accepted_rate"], "-", color=color, label=label)
        thr.plot(ok["offered_rate"], ok["accepted_rate"], "o", color=color, markersize=4)
        thr.plot(sat["offered_rate"], sat["accepted_rate"], "o", color=color, mfc="none", markersize=4)
    top = 4 * data["zero_load_latency"].max()
    lat.set_ylim(0, top)
    lat.set_xlabel("offered load (flits/node/cycle)")
    lat.set_ylabel("average packet latency (cycles)")
    lat.set_title("8x8 mesh, uniform, 1-flit packets (dashed: analytic zero-load)")
    lat.legend(loc="upper left")
    limit = data["offered_rate"].max()
    thr.plot([0, limit], [0, limit], color="grey", lw=0.8, ls=":")
    thr.set_xlabel("offered load (flits/node/cycle)")
    thr.set_ylabel("accepted load (flits/node/cycle)")
    thr.set_title("throughput (hollow: saturated)")
    thr.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_readme(path, commands, summary, quick):
    lines = [
        "# noc-load: latency and throughput against offered load",
        "",
        __doc__.strip(),
        "",
        *provenance("noc-load", quick),
        "- raw data: `data.csv` (one row per configuration and rate, all fields of `nocmsg traffic --json`)",
        "- plot: `plot.png`",
        "",
        "Simulator commands:",
        "",
    ]
    lines += [f"    {c}" for c in commands]
    lines += ["", "Summary:", "", "```", summary.to_string(index=False), "```", ""]
    Path(path).write_text("\n".join(lines))


def run(out_dir="results/noc-load", quick=False):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    data, commands = collect(quick)
    data.to_csv(out / "data.csv", index=False)
    plot(data, out / "plot.png")
    summary = summarize(data)
    write_readme(out / "README.md", commands, summary, quick)
    print(summary.to_string(index=False))
    print(f"wrote {out / 'data.csv'}, {out / 'plot.png'}, {out / 'README.md'}")
    return data
