"""fpu: what a hardware FPU changes, as in NoCMsg's FPU study (its NPB runs used software floating point).

``bench/kernels/fp.c`` (a dense double matrix multiply and conjugate-gradient iterations on a sparse 5-point
Laplacian, the work shared by libnocmsg: rows, allreduce of dot products, allgatherv of the search direction) runs
on 1 to 64 cores of pimp-8x8 twice: built for its RV64IM cores (software floating point, picolibc's soft-float
routines) and for the same chip with RV64GC cores (``core.isa = "rv64gc"``: hardware F and D with the default FP
latencies of ``docs/cores.md``). Each point is the run's total cycles (``stats.json``); the speed-up of a core
count is soft-float cycles / FPU cycles. Both builds must print the same checksums (IEEE double either way), which
the experiment checks.

The kernel is small (32 x 32 matrices, a 576-unknown grid): with more cores each
core's share of the floating-point work shrinks while the collectives of every CG iteration (two allreduces of a
double, an allgatherv of the search direction) stay, and an FPU does not make them faster, so the speed-up falls as
the cores grow (the instruction counts in data.csv show the library's share growing). NoCMsg reports its FPU study
for NPB codes on the TilePro64, which we do not have figures of in this repository; this experiment measures the
same question on our chips rather than reproducing a published number.
"""

import json
import shlex
import subprocess
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from .common import REPO, git_revision, nocmsg_binary  # noqa: E402

CHIP = REPO / "chips" / "pimp-8x8.toml"
KERNEL = REPO / "bench" / "kernels" / "fp.c"


def fpu_chip(directory):
    """pimp-8x8 with RV64GC cores, written into `directory`."""
    text = CHIP.read_text()
    if "[core]\n" not in text:
        raise RuntimeError(f"{CHIP} has no [core] table")
    text = text.replace("[core]\n", '[core]\nisa = "rv64gc"\n', 1).replace('name = "pimp-8x8"', 'name = "pimp-8x8-rv64gc"', 1)
    path = Path(directory) / "pimp-8x8-rv64gc.toml"
    path.write_text(text)
    return path


def build(out, chip=None):
    cmd = [str(REPO / "bin" / "nocmsg-cc")] + (["--chip", str(chip)] if chip else []) + ["-O2", "-Wall", str(KERNEL), "-o", str(out)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return cmd


def run_point(chip, elf, cores, rounds, tmp):
    stats = Path(tmp) / f"stats-{Path(elf).stem}-{cores}.json"
    cmd = [str(nocmsg_binary()), "run", "--chip", str(chip), "-n", str(cores), "--stats", str(stats), "--no-prefix",
           str(elf), str(rounds), "split"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{shlex.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")
    with open(stats) as f:
        s = json.load(f)
    fp_stalls = sum(c["stalls"].get("fp", 0) for c in s["cores"])
    return {"cycles": s["total_cycles"], "instructions": s["instructions"], "fp_stall_cycles": fp_stalls,
            "output": proc.stdout.strip()}, cmd


def collect(quick, tmp):
    cores = [1, 4, 16] if quick else [1, 2, 4, 8, 16, 32, 64]
    rounds = 1 if quick else 2
    gc_chip = fpu_chip(tmp)
    soft_elf, fpu_elf = Path(tmp) / "fp-soft.elf", Path(tmp) / "fp-fpu.elf"
    commands = [shlex.join(build(soft_elf)), shlex.join(build(fpu_elf, gc_chip))]
    rows = []
    for n in cores:
        for variant, chip, elf in [("soft-float", CHIP, soft_elf), ("fpu", gc_chip, fpu_elf)]:
            point, cmd = run_point(chip, elf, n, rounds, tmp)
            rows.append({"cores": n, "variant": variant, **point})
            commands.append(shlex.join(cmd))
    data = pd.DataFrame(rows)
    outputs = set(data["output"])
    if len(outputs) != 1:
        raise RuntimeError(f"soft-float and FPU builds printed different results: {sorted(outputs)}")
    return data, commands


def speedups(data):
    wide = data.pivot(index="cores", columns="variant", values="cycles")
    table = pd.DataFrame({
        "cores": wide.index,
        "soft_float_cycles": wide["soft-float"].values,
        "fpu_cycles": wide["fpu"].values,
    })
    table["fpu_speedup"] = table["soft_float_cycles"] / table["fpu_cycles"]
    first = table.iloc[0]
    table["soft_float_parallel_speedup"] = first["soft_float_cycles"] / table["soft_float_cycles"]
    table["fpu_parallel_speedup"] = first["fpu_cycles"] / table["fpu_cycles"]
    return table


def plot(table, path):
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    left.plot(table["cores"], table["soft_float_cycles"], "o-", label="soft-float (rv64im)")
    left.plot(table["cores"], table["fpu_cycles"], "s-", label="FPU (rv64gc)")
    left.set(xscale="log", yscale="log", xlabel="cores", ylabel="cycles", title="fp.c (matmul + CG) on pimp-8x8")
    left.set_xticks(table["cores"], [str(c) for c in table["cores"]])
    left.legend()
    right.plot(table["cores"], table["fpu_speedup"], "o-", color="C2")
    right.set(xscale="log", xlabel="cores", ylabel="soft-float cycles / FPU cycles", title="FPU speed-up")
    right.set_xticks(table["cores"], [str(c) for c in table["cores"]])
    right.set_ylim(bottom=0)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def run(out_dir, quick=False):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        data, commands = collect(quick, tmp)
    table = speedups(data)
    data.to_csv(out / "data.csv", index=False)
    table.to_csv(out / "speedup.csv", index=False)
    plot(table, out / "plot.png")
    lines = [
        "# fpu: software floating point vs an FPU (NoCMsg's FPU study)",
        "",
        __doc__.strip(),
        "",
        f"Revision: {git_revision()}. Regenerate: `python -m experiments fpu{' --quick' if quick else ''}`.",
        f"Both builds print: `{data['output'].iloc[0]}`.",
        "",
        "```",
        table.to_string(index=False, float_format=lambda v: f"{v:.2f}"),
        "```",
        "",
        "Commands:",
        "",
        *[f"    {c}" for c in commands],
    ]
    (out / "README.md").write_text("\n".join(lines) + "\n")
    print(table.to_string(index=False))
    return table
