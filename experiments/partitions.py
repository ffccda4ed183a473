"""partitions: four jobs on tilepro-64 at once, in its quadrants or interleaved: how much they perturb each other.

NoCMsg runs jobs on partitions of the TilePro64 and argues that with dimension-order routing a job confined to a
rectangle of tiles keeps its traffic inside it, so neither its run time nor its deadlock-freedom depends on the
other jobs (a flow-control plan made for it alone still holds). Four 16-rank jobs run at once with
``nocmsg run --job`` in two placements:

- **quadrants**: job j on the 4x4 quadrant j (its routes under XY routing never leave it);
- **interleaved**: job j on the tiles whose column is j modulo 4 (every row has tiles of every job, so routes cross
  other jobs' tiles and share links with them).

``nocmsg run --job`` runs each job once more alone on the same tiles (the simulation is deterministic) and reports
its cycles together and alone and the links its routes share with each other job; the perturbation is
cycles together / cycles alone - 1. The jobs are the NPB-style kernels of ``bench/npb`` (IS, CG, FT, MG, class S)
(``--quick``: four copies of the MPI test program ring).
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

from .common import REPO, command_lines, fenced, nocmsg_binary, provenance  # noqa: E402

CHIP = REPO / "chips" / "tilepro-64.toml"


def quadrant(j):
    """Tiles of quadrant j (0: top left, 1: top right, 2: bottom left, 3: bottom right) of the 8x8 mesh, by rows."""
    x0, y0 = 4 * (j % 2), 4 * (j // 2)
    return [(y0 + dy) * 8 + x0 + dx for dy in range(4) for dx in range(4)]


def interleaved(j):
    """Tiles whose column is j modulo 4, by rows."""
    return [y * 8 + x for y in range(8) for x in range(8) if x % 4 == j]


def tiles_text(tiles):
    return ",".join(str(t) for t in tiles)


def programs(tmp, quick):
    """(name, ELF, args) of the four jobs, built for tilepro-64."""
    wanted = [("is", "bench/npb/is.c", ["S"]), ("cg", "bench/npb/cg.c", ["S"]), ("ft", "bench/npb/ft.c", ["S"]),
              ("mg", "bench/npb/mg.c", ["S"])]
    if quick:
        wanted = [("ring", "tests/mpi/ring.c", [])] * 4
    elif not all((REPO / src).exists() for _, src, _ in wanted):
        wanted = [("jacobi", "tests/mpi/jacobi.c", []), ("ring", "tests/mpi/ring.c", []),
                  ("jacobi", "tests/mpi/jacobi.c", []), ("ring", "tests/mpi/ring.c", [])]
    out, commands = [], []
    for i, (name, src, args) in enumerate(wanted):
        elf = Path(tmp) / f"{name}-{i}.elf"
        cmd = [str(REPO / "bin" / "nocmsg-cc"), "--chip", str(CHIP), "-O2", str(REPO / src), "-o", str(elf), "-lm"]
        subprocess.run(cmd, check=True, capture_output=True, text=True)
        commands.append(shlex.join(["bin/nocmsg-cc", "--chip", "chips/tilepro-64.toml", "-O2", src, "-o", elf.name, "-lm"]))
        out.append((name, elf, args))
    return out, commands


def run_placement(jobs, placement, tmp):
    stats = Path(tmp) / f"{placement}.json"
    place = quadrant if placement == "quadrants" else interleaved
    args = ["run", "--chip", str(CHIP), "--stats", str(stats), "--max-cycles", "20000000000"]
    shown = ["nocmsg", "run", "--chip", "chips/tilepro-64.toml", "--stats", f"{placement}.json"]
    for j, (name, elf, pargs) in enumerate(jobs):
        spec = f"{tiles_text(place(j))}:{elf} {' '.join(pargs)}".strip()
        args += ["--job", spec]
        shown += ["--job", f"{tiles_text(place(j))}:{elf.name} {' '.join(pargs)}".strip()]
    proc = subprocess.run([str(nocmsg_binary()), *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{shlex.join(shown)} failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    with open(stats) as f:
        reports = json.load(f)["jobs"]
    rows = []
    for r in reports:
        rows.append({"placement": placement, "job": r["job"], "program": jobs[r["job"]][0], "cycles": r["cycles"],
                     "cycles_alone": r["cycles_alone"], "perturbation_percent": 100 * r["perturbation"],
                     "links_shared": sum(len(s["links"]) for s in r["shares_links_with"]),
                     "jobs_sharing": len(r["shares_links_with"])})
    return rows, shlex.join(shown)


def plot(data, path):
    fig, ax = plt.subplots(figsize=(7, 4))
    wide = data.pivot(index="job", columns="placement", values="perturbation_percent")
    labels = [f"{j}: {p}" for j, p in data[data["placement"] == "quadrants"][["job", "program"]].itertuples(index=False)]
    wide.plot.bar(ax=ax)
    ax.set_xticks(range(len(labels)), labels, rotation=0)
    ax.set(ylabel="slowdown with the other jobs (%)", xlabel="job", title="four 16-rank jobs on tilepro-64")
    ax.axhline(0, color="black", linewidth=0.8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def run(out_dir, quick=False):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        jobs, commands = programs(tmp, quick)
        rows = []
        for placement in ["quadrants", "interleaved"]:
            r, cmd = run_placement(jobs, placement, tmp)
            rows += r
            commands.append(cmd)
    data = pd.DataFrame(rows)
    data.to_csv(out / "data.csv", index=False)
    plot(data, out / "plot.png")
    lines = [
        "# partitions: four jobs on tilepro-64, quadrants against interleaved",
        "",
        __doc__.strip(),
        "",
        *provenance("partitions", quick),
        "",
        *fenced("Per job and placement (cycles with the others, alone, slowdown, links its routes share with other jobs):",
                data.to_string(index=False, float_format=lambda v: f"{v:.3f}")),
        "![plot](plot.png)",
        "",
        *command_lines("Commands:", commands),
    ]
    (out / "README.md").write_text("\n".join(lines) + "\n")
    print(data.to_string(index=False))
    quads = data[data["placement"] == "quadrants"]
    if (quads["links_shared"] != 0).any() or (quads["cycles"] != quads["cycles_alone"]).any():
        raise RuntimeError("jobs in the quadrants shared links or perturbed each other:\n" + quads.to_string(index=False))
    return data
