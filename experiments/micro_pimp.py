"""micro-pimp: libnocmsg's micro-benchmarks on the 8x8 PIMP chip, as in the PIMP paper's evaluation.

Round trip against message size (neighbours and opposite corners, ``bench/micro/pingpong.c``); and, with
``bench/micro/coll.c`` for every algorithm the library lists and for its selector ("auto"): barrier against the
number of cores, bcast against message size (64 cores, root in a corner), alltoall against the number of cores
(8 bytes per pair), allreduce against message size (64 cores) and against the number of cores (8 bytes). Core
counts below 64 run on the first N cores (``nocmsg run -n N``: whole rows of the mesh). Times are latencies in
cycles: every call follows a barrier and starts on all cores at the same cycle, and a point is the max over cores
of each core's mean time per call. The acceptance checks of ``acceptance.py`` are computed from the same data.
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402
import pandas as pd  # noqa: E402

from . import acceptance  # noqa: E402
from .collbench import REPO, algorithms, frame, run_jobs, run_pingpong, sim_job  # noqa: E402
from .collplot import draw_algorithms, size_label  # noqa: E402
from .common import provenance  # noqa: E402

CHIP = REPO / "chips" / "pimp-8x8.toml"
ALL_CORES = 64


def config(quick):
    """What to measure: one entry per panel (label, op, x column, core counts, sizes)."""
    if quick:
        cores, pp = [4, 16, 64], (4096, 10)
        bcast_sizes, allreduce_sizes = [8, 1024, 8192], [8, 1024, 8192]
    else:
        cores, pp = [2, 4, 8, 16, 32, 64], (65536, 20)
        bcast_sizes = [1 << k for k in range(17)]  # 1 B .. 64 KiB
        allreduce_sizes = [4 << k for k in range(15)]  # 4 B .. 64 KiB
    panels = [
        ("barrier vs cores", "barrier", "ranks", cores, [0]),
        ("bcast vs size", "bcast", "bytes", [ALL_CORES], bcast_sizes),
        ("alltoall vs cores", "alltoall", "ranks", cores, [8]),
        ("allreduce vs size", "allreduce", "bytes", [ALL_CORES], allreduce_sizes),
        ("allreduce vs cores", "allreduce", "ranks", cores, [8]),
    ]
    return panels, pp


def jobs_for(panels, quick):
    return [sim_job(op, alg, n, sizes, quick, chip=CHIP, label=label)
            for label, op, _, cores, sizes in panels for alg in algorithms(op) + ["auto"] for n in cores]


def collect(quick):
    panels, (pp_bytes, pp_iters) = config(quick)
    rows, commands = run_jobs(jobs_for(panels, quick))
    pingpong, pp_command = run_pingpong(CHIP, pp_bytes, pp_iters)
    roundtrip = pd.DataFrame(pingpong)
    roundtrip["bytes"] = roundtrip["bytes"].astype(int)
    roundtrip["round_trip"] = roundtrip["round_trip"].astype(float)
    return frame(rows), roundtrip, [pp_command] + commands


def checks(data):
    rows = acceptance.barrier(data) + acceptance.allreduce_rd(data) + acceptance.selector(data)
    return acceptance.as_frame(rows)


def panel_note(part, x):
    """What a panel holds fixed: the core count of a size sweep, the size of a core sweep (none for barrier)."""
    if part.empty:
        return ""
    if x == "bytes":
        return f"{part['ranks'].iloc[0]} cores, "
    return "" if part["op"].iloc[0] == "barrier" else f"{size_label(part['bytes'].iloc[0])}, "


def tables(data):
    """One pivot table per panel: x down, algorithms across, cycles in the cells ("-" where a run failed)."""
    out = []
    panels = data["label"].drop_duplicates()
    for label in panels:
        part = data[data["label"] == label]
        x = "ranks" if label.endswith("cores") else "bytes"
        pivot = part.pivot_table(index=x, columns="algorithm", values="time", aggfunc="first", sort=False)
        pivot = pivot.reindex(columns=list(dict.fromkeys(part["algorithm"]))).sort_index()
        if x == "bytes":
            pivot.index = [size_label(b) for b in pivot.index]
        out.append(f"{label} ({panel_note(part, x)}cycles):\n" + pivot.round(0).to_string(na_rep="-"))
    return "\n\n".join(out)


def plot(data, roundtrip, path):
    fig, axes = plt.subplots(2, 3, figsize=(15, 8.5))
    ax = axes[0][0]
    for pair, group in roundtrip.groupby("pair", sort=False):
        group = group.sort_values("bytes")
        ax.plot(group["bytes"], group["round_trip"], "o-", markersize=3.5, label=pair)
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: size_label(v)))
    ax.set_yscale("log")
    ax.set_title("round trip vs size (8x8; neighbour, far corners)", fontsize=10)
    ax.set_ylabel("cycles")
    ax.set_xlabel("bytes")
    ax.grid(True, lw=0.4, alpha=0.6)
    ax.legend(fontsize=7)
    places = {"barrier vs cores": axes[0][1], "bcast vs size": axes[0][2], "alltoall vs cores": axes[1][0],
              "allreduce vs size": axes[1][1], "allreduce vs cores": axes[1][2]}
    for label, ax in places.items():
        part = data[data["label"] == label]
        by_size = label.endswith("size")
        x = "bytes" if by_size else "ranks"
        note = panel_note(part, x).rstrip(", ")
        draw_algorithms(ax, part, x, f"{label} ({note})" if note else label, "cycles", logx=True)
        ax.set_xlabel("bytes" if by_size else "cores")
        if label.startswith("barrier"):
            ax.axhline(acceptance.BARRIER_LIMIT_CYCLES, color="grey", lw=0.8, ls=":")
    fig.suptitle("libnocmsg on pimp-8x8 (PIMP network interface, 1-cycle routers)", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_readme(path, commands, summary, check_frame, data, quick):
    lines = [
        "# micro-pimp: libnocmsg micro-benchmarks on pimp-8x8",
        "",
        __doc__.strip(),
        "",
        *provenance("micro-pimp", quick),
        "- raw data: `data.csv` (one row per panel, algorithm, core count, size; fields of `bench/micro/coll`), "
        "`roundtrip.csv` (`bench/micro/pingpong`), `checks.csv` (acceptance checks), `selector.csv` (auto against "
        "the best, every case)",
        "- plot: `plot.png`",
        "",
    ]
    lines += acceptance.readme_sections(check_frame, data, summary, commands, "programs built")
    Path(path).write_text("\n".join(lines) + "\n")


def run(out_dir="results/micro-pimp", quick=False):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    data, roundtrip, commands = collect(quick)
    data.to_csv(out / "data.csv", index=False)
    roundtrip.to_csv(out / "roundtrip.csv", index=False)
    check_frame = checks(data)
    check_frame.to_csv(out / "checks.csv", index=False)
    plot(data, roundtrip, out / "plot.png")
    rt = roundtrip.pivot_table(index="bytes", columns="pair", values="round_trip", sort=False).sort_index()
    rt.index = [size_label(b) for b in rt.index]
    summary = "round trip (cycles):\n" + rt.to_string() + "\n\n" + tables(data)
    bad = acceptance.broken(data)
    if len(bad):
        summary += f"\n\n{len(bad)} points did not complete or gave wrong results:\n" + \
            bad[["op", "algorithm", "ranks", "bytes", "root", "status"]].to_string(index=False)
    acceptance.selector_ratios(data).to_csv(out / "selector.csv", index=False)
    write_readme(out / "README.md", commands, summary, check_frame, data, quick)
    print(summary)
    print("\nacceptance checks:")
    print(acceptance.table(check_frame))
    over = acceptance.selector_table(data, over_only=True)
    if over != "(no cases)":
        print(f"cases where auto is more than {acceptance.SELECTOR_SLACK:g}x the best:\n{over}")
    names = ["data.csv", "roundtrip.csv", "checks.csv", "selector.csv", "plot.png", "README.md"]
    print("wrote " + ", ".join(str(out / n) for n in names))
    return data
