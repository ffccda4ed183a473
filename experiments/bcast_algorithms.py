"""bcast-algorithms: every broadcast algorithm of libnocmsg on the 8x8 PIMP chip, against message size and root.

All 64 cores; the root in a corner (tile 0), in the middle of an edge (tile 3, x=3 y=0) and at the centre (tile 27,
x=3 y=3); every algorithm ``nocmsg_coll_algorithms("bcast")`` lists, and the selector ("auto", with the algorithm it
picked). Times are in cycles, the max over cores of each core's mean time per broadcast (``bench/micro/coll.c``),
measured two ways: latency ("sync each", the suite's default: every broadcast after a barrier, all cores starting it
at the same cycle) and back to back after one barrier ("sync once": consecutive broadcasts overlap, so a pipelined
algorithm such as ``chain`` shows its throughput rather than its latency). ``plot.png`` has one row per way,
``speedup.png`` each algorithm's speed-up over ``linear`` (the root sends to every core in turn).
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, NullFormatter  # noqa: E402
import pandas as pd  # noqa: E402

from . import acceptance  # noqa: E402
from .collbench import REPO, algorithms, chip_mesh, frame, root_positions, run_jobs, sim_job  # noqa: E402
from .collplot import algorithm_styles, draw_algorithms, size_label  # noqa: E402
from .common import provenance  # noqa: E402

CHIP = REPO / "chips" / "pimp-8x8.toml"
SYNCS = {"each": "latency", "once": "back to back"}


def sizes(quick):
    return [8, 1024, 8192] if quick else [1 << k for k in range(17)]  # 1 B .. 64 KiB


def positions():
    width, height = chip_mesh(CHIP)
    return width * height, root_positions(width, height)


def collect(quick):
    cores, roots = positions()
    sz = sizes(quick)
    jobs = [sim_job("bcast", alg, cores, sz, quick, roots=list(roots.values()), chip=CHIP, sync=sync,
                    label=f"bcast, {SYNCS[sync]}")
            for sync in SYNCS for alg in algorithms("bcast") + ["auto"]]
    rows, commands = run_jobs(jobs)
    data = frame(rows)
    names = {str(rank): name for name, rank in roots.items()}
    data.insert(data.columns.get_loc("root") + 1, "position", data["root"].map(names))
    return data, commands


def checks(data):
    return acceptance.as_frame(acceptance.bcast_speedup(data) + acceptance.selector(data))


def tables(data):
    out = []
    for (sync, position), part in data.groupby(["sync", "position"], sort=False):
        pivot = part.pivot_table(index="bytes", columns="algorithm", values="time", aggfunc="first", sort=False)
        pivot = pivot.reindex(columns=list(dict.fromkeys(part["algorithm"]))).sort_index()
        ok = part[(part["status"] == "ok") & (part["algorithm"] != "auto")]
        best = pd.Series(dtype=str)
        if len(ok):
            best = ok.loc[ok.groupby("bytes")["time"].idxmin()].set_index("bytes")["algorithm"]
        chosen = part[part["algorithm"] == "auto"].set_index("bytes")["chosen"]
        pivot["best"] = best.reindex(pivot.index).fillna("-")
        pivot["auto picks"] = chosen.reindex(pivot.index).fillna("-")
        pivot.index = [size_label(b) for b in pivot.index]
        root = part["root"].iloc[0]
        out.append(f"sync {sync} ({SYNCS.get(sync, sync)}), root {root} ({position}), 64 cores, cycles:\n"
                   + pivot.round(0).to_string(na_rep="-"))
    return "\n\n".join(out)


def _grid(data):
    syncs = list(dict.fromkeys(data["sync"]))
    positions = list(dict.fromkeys(data["position"]))
    fig, axes = plt.subplots(len(syncs), len(positions), figsize=(5 * len(positions), 4 * len(syncs)), squeeze=False)
    cells = []
    for row, sync in enumerate(syncs):
        for col, position in enumerate(positions):
            part = data[(data["sync"] == sync) & (data["position"] == position)]
            where = f"root {part['root'].iloc[0]} ({position}), {SYNCS.get(sync, sync)}"
            cells.append((axes[row][col], part, where))
    return fig, cells


def plot(data, path):
    """Cycles against size: one row per timing, one column per root position."""
    fig, cells = _grid(data)
    for ax, part, where in cells:
        draw_algorithms(ax, part, "bytes", where, "cycles", logx=True)
        ax.set_xlabel("bytes")
    fig.suptitle("bcast algorithms on pimp-8x8 (64 cores)", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_speedup(data, path):
    """Speed-up over linear against size, laid out as plot()."""
    styles = algorithm_styles(list(dict.fromkeys(data["algorithm"])))
    fig, cells = _grid(data)
    for ax, part, where in cells:
        ok = part[part["status"] == "ok"].drop_duplicates(subset=["algorithm", "bytes"])
        linear = ok[ok["algorithm"] == "linear"].set_index("bytes")["time"]
        for name, group in ok.groupby("algorithm", sort=False):
            group = group.sort_values("bytes")
            speedup = linear.reindex(group["bytes"]).to_numpy() / group["time"].to_numpy()
            ax.plot(group["bytes"], speedup, label=name, markersize=3.5, lw=1.2, **styles[name])
        ax.axhline(acceptance.BCAST_SPEEDUP, color="grey", lw=0.8, ls=":")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: size_label(v)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}x"))
        ax.yaxis.set_minor_formatter(NullFormatter())
        if 0 < ok["bytes"].nunique() <= 8:
            ax.set_xticks(sorted(ok["bytes"].unique()))
        ax.set_title(f"speed-up over linear, {where}", fontsize=9)
        ax.set_xlabel("bytes")
        ax.set_ylabel("linear time / time")
        ax.grid(True, lw=0.4, alpha=0.6)
        if len(ok):
            ax.legend(fontsize=7)
    fig.suptitle("bcast algorithms on pimp-8x8 (64 cores): speed-up over linear (dotted: 5x)", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_readme(path, commands, summary, check_frame, data, quick):
    lines = [
        "# bcast-algorithms: every broadcast algorithm on pimp-8x8, against size and root position",
        "",
        __doc__.strip(),
        "",
        *provenance("bcast-algorithms", quick),
        "- raw data: `data.csv` (one row per algorithm, size and root; fields of `bench/micro/coll` and the root's "
        "position), `checks.csv` (acceptance checks), `selector.csv` (auto against the best, every case)",
        "- plots: `plot.png` (cycles), `speedup.png` (over linear)",
        "",
    ]
    lines += acceptance.readme_sections(check_frame, data, summary, commands, "`bench/micro/coll.c` built")
    Path(path).write_text("\n".join(lines) + "\n")


def run(out_dir="results/bcast-algorithms", quick=False):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    data, commands = collect(quick)
    data.to_csv(out / "data.csv", index=False)
    check_frame = checks(data)
    check_frame.to_csv(out / "checks.csv", index=False)
    plot(data, out / "plot.png")
    plot_speedup(data, out / "speedup.png")
    summary = tables(data)
    bad = acceptance.broken(data)
    if len(bad):
        summary += f"\n\n{len(bad)} points did not complete or gave wrong results:\n" + \
            bad[["algorithm", "sync", "bytes", "root", "status"]].to_string(index=False)
    acceptance.selector_ratios(data).to_csv(out / "selector.csv", index=False)
    write_readme(out / "README.md", commands, summary, check_frame, data, quick)
    print(summary)
    print("\nacceptance checks:")
    print(acceptance.table(check_frame))
    over = acceptance.selector_table(data, over_only=True)
    if over != "(no cases)":
        print(f"cases where auto is more than {acceptance.SELECTOR_SLACK:g}x the best:\n{over}")
    names = ["data.csv", "checks.csv", "selector.csv", "plot.png", "speedup.png", "README.md"]
    print("wrote " + ", ".join(str(out / n) for n in names))
    return data
