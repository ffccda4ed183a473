"""Drawing collective timings: one line per algorithm, the selector ("auto") dashed in black on top."""

import matplotlib

matplotlib.use("Agg")
from matplotlib.ticker import FuncFormatter, NullFormatter  # noqa: E402


def algorithm_styles(names):
    """A fixed colour per algorithm name (in the order given), black for "auto"."""
    styles, i = {}, 0
    for name in names:
        if name == "auto":
            styles[name] = {"color": "black", "ls": "--", "marker": "x", "zorder": 5}
        elif name not in styles:
            styles[name] = {"color": f"C{i % 10}", "ls": "-", "marker": "o"}
            i += 1
    return styles


def draw_algorithms(ax, data, x, title, unit, logx=False, logy=True):
    """Time against column ``x``, one line per algorithm; failed or wrong points are left out."""
    ok = data[data["status"] == "ok"]
    styles = algorithm_styles(list(dict.fromkeys(data["algorithm"])))
    for name, group in ok.groupby("algorithm", sort=False):
        group = group.drop_duplicates(subset=[x]).sort_values(x)
        ax.plot(group[x], group["time"], label=name, markersize=3.5, lw=1.2, **styles[name])
    if logx:
        ax.set_xscale("log", base=2)
    values = sorted(ok[x].unique())
    if 0 < len(values) <= 8:
        ax.set_xticks(values)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: size_label(v) if x == "bytes" else f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    if logy:
        ax.set_yscale("log")
    ax.set_title(title, fontsize=10)
    ax.set_ylabel(unit)
    ax.grid(True, which="major", lw=0.4, alpha=0.6)
    if not ok.empty:
        ax.legend(fontsize=7)
    else:
        ax.text(0.5, 0.5, "no successful runs", ha="center", va="center", transform=ax.transAxes)


def size_label(nbytes):
    """1 B, 64 B, 1 KiB, 1 MiB."""
    nbytes = int(round(nbytes))
    if nbytes >= 1 << 20 and nbytes % (1 << 20) == 0:
        return f"{nbytes >> 20} MiB"
    if nbytes >= 1024 and nbytes % 1024 == 0:
        return f"{nbytes >> 10} KiB"
    return f"{nbytes} B"
