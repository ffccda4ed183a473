"""nocmsg-vs-opera: NoCMsg's work loop against an interrupt-driven message layer (NoCMsg's Figs. 10-11).

NoCMsg compared its polling work loop on the TilePro64's UDN with Tilera's OperaMPI, whose messages are taken by
interrupts and acknowledged packet by packet, on NPB codes over 2 to 64 processes, and found NoCMsg faster on every
code beyond 32 processes. OperaMPI is not available (nor the chip); libnocmsg's UDN port has both ways
(``docs/udn.md``): the work loop (default) and an interrupt-driven mode in OperaMPI's style
(``--env NOCMSG_UDN_MODE=interrupt``: the arrival interrupt takes every word into a software ring, every data packet
is acknowledged and a sender waits for the ACK before its next packet to that destination). Everything else (the
library, the collectives, the programs, the chip) is the same, so the difference is the message layer's alone.

The programs are ours (``bench/npb``: IS, CG, FT, MG from the NPB specification, and TF*IDF), class S, on
``tilepro-64`` (RV64IMAC, software floating point as on the TilePro), 2 to 64 cores. Each run's report line gives,
as maxima over ranks, the timed section's total and the time inside MPI communication calls (simulated seconds);
the ratio interrupt-driven / work loop of each is the work loop's speed-up.

The absolute numbers are not the paper's: our cores are RV64 with a classic in-order timing model and no caches
(memory costs one cycle), so computation is faster relative to communication than on the TilePro, and our
interrupt-driven layer is a model of OperaMPI's design, not its code. The comparison to make is the trend: which
layer communicates faster, and how that changes with the number of cores.
"""

import shlex
import subprocess
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from .common import REPO, command_lines, fenced, nocmsg_binary, parallel_runs, provenance  # noqa: E402

CHIP = REPO / "chips" / "tilepro-64.toml"
KERNELS = ["is", "cg", "ft", "mg", "tfidf"]
MODES = ["poll", "interrupt"]
FIELDS = ["kernel", "class", "ranks", "total_seconds", "comm_seconds", "compute_seconds", "verified"]


def build(out):
    cmd = ["make", "-s", "-C", str(REPO / "bench" / "npb"), f"CC={REPO / 'bin' / 'nocmsg-cc'} --chip {CHIP}", f"OUT={out}", "EXE=.elf"]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return "make -C bench/npb CC='bin/nocmsg-cc --chip chips/tilepro-64.toml' OUT=build EXE=.elf"


def run_point(elfs, kernel, ranks, mode, klass):
    args = ["run", "--chip", str(CHIP), "-n", str(ranks), "--no-prefix", "--max-cycles", "200000000000",
            "--env", f"NOCMSG_UDN_MODE={mode}"]
    cmd = [str(nocmsg_binary()), *args, str(Path(elfs) / f"{kernel}.elf"), klass]
    shown = shlex.join(["nocmsg", *[a if a != str(CHIP) else "chips/tilepro-64.toml" for a in args], f"build/{kernel}.elf", klass])
    proc = subprocess.run(cmd, capture_output=True, text=True)
    lines = [l for l in proc.stdout.splitlines() if l.startswith(f"{kernel},")]
    if proc.returncode != 0 or len(lines) != 1:
        raise RuntimeError(f"{shown} failed ({proc.returncode}): {proc.stdout[-1000:]} {proc.stderr[-1000:]}")
    row = dict(zip(FIELDS, lines[0].split(",")))
    if row["verified"] != "yes":
        raise RuntimeError(f"{shown}: {row['verified']}")
    return {"kernel": kernel, "ranks": ranks, "mode": mode, "total_seconds": float(row["total_seconds"]),
            "comm_seconds": float(row["comm_seconds"]), "compute_seconds": float(row["compute_seconds"])}, shown


def collect(quick, tmp, ranks=None):
    commands = [build(tmp)]
    kernels = ["is"] if quick else KERNELS
    ranks = ranks or ([4, 8] if quick else [2, 4, 8, 16, 32, 64])
    if any(r < 1 or r > 64 for r in ranks):
        raise SystemExit(f"nocmsg-vs-opera: core counts must be 1 to 64 (tilepro-64), not {ranks}")
    points = [(tmp, kernel, n, mode, "S") for kernel in kernels for n in ranks for mode in MODES]
    results = parallel_runs(run_point, points, "nocmsg-vs-opera")
    commands += [cmd for _, cmd in results]
    return pd.DataFrame([row for row, _ in results]), commands


def speedups(data):
    wide = data.pivot_table(index=["kernel", "ranks"], columns="mode", values=["total_seconds", "comm_seconds"])
    table = pd.DataFrame({
        "comm_work_loop": wide[("comm_seconds", "poll")],
        "comm_interrupt": wide[("comm_seconds", "interrupt")],
        "total_work_loop": wide[("total_seconds", "poll")],
        "total_interrupt": wide[("total_seconds", "interrupt")],
    })
    table["comm_speedup"] = table["comm_interrupt"] / table["comm_work_loop"]
    table["total_speedup"] = table["total_interrupt"] / table["total_work_loop"]
    return table.reset_index()


def plot(table, path):
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    for kernel, g in table.groupby("kernel", sort=False):
        left.plot(g["ranks"], g["comm_speedup"], "o-", label=kernel)
        right.plot(g["ranks"], g["total_speedup"], "o-", label=kernel)
    for ax, what in [(left, "communication time"), (right, "total time")]:
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set(xscale="log", xlabel="cores (tilepro-64)", ylabel=f"interrupt-driven / work loop ({what})",
               title=f"work loop speed-up, {what}")
        ax.set_xticks(sorted(table["ranks"].unique()), [str(r) for r in sorted(table["ranks"].unique())])
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def run(out_dir, quick=False, ranks=None):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    revision = provenance("nocmsg-vs-opera", quick, ranks)  # the code the runs use, not what is there when they end
    with tempfile.TemporaryDirectory() as tmp:
        data, commands = collect(quick, tmp, ranks)
    table = speedups(data)
    data.to_csv(out / "data.csv", index=False)
    table.to_csv(out / "speedup.csv", index=False)
    plot(table, out / "plot.png")
    at32 = table[table["ranks"] == 32]
    verdict = ("On 32 cores the work loop communicates faster than the interrupt-driven layer on every kernel: "
               + ("yes" if len(at32) and (at32["comm_speedup"] > 1).all() else "no") + ".") if len(at32) else ""
    lines = [
        "# nocmsg-vs-opera: the work loop against an interrupt-driven layer (NoCMsg Figs. 10-11)",
        "",
        __doc__.strip(),
        "",
        *revision,
        "",
        *fenced("Simulated seconds (maxima over ranks) and the work loop's speed-up:",
                table.to_string(index=False, float_format=lambda v: f"{v:.4g}")),
        verdict,
        "",
        "![plot](plot.png)",
        "",
        *command_lines("Commands:", commands),
    ]
    (out / "README.md").write_text("\n".join(lines) + "\n")
    print(table.to_string(index=False))
    return table
