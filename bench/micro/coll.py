"""Collectives: every algorithm of libnocmsg (and its selector, "auto") on a simulated chip (cycles) and natively (ns).

    python3 bench/micro/coll.py [--out results/bench] [--quick] [--only NAME,...] [--native-ranks N]

Runs bench/micro/coll.c (one run per algorithm and core count; see experiments/collbench.py) and writes, into --out:
    coll_barrier_sim.csv          barrier vs cores (2..64 of pimp-8x8)
    coll_bcast_size_sim.csv       bcast vs size, 1 B..64 KiB, 64 cores, root 0
    coll_bcast_size_native.csv    bcast vs size, 1 B..1 MiB, --native-ranks processes (best of 3 repetitions)
    coll_bcast_root_sim.csv       bcast of 8 B and 1 KiB from roots along the diagonal of pimp-8x8 and two edges
    coll_bcast_cores_sim.csv      bcast of 8 B and 1 KiB vs cores, root 0
    coll_reduce_size_sim.csv      reduce vs size, 4 B..64 KiB, 64 cores, root 0
    coll_allreduce_size_sim.csv   allreduce vs size, 4 B..64 KiB, 64 cores
    coll_alltoall_cores_sim.csv   alltoall of 8 B and 1 KiB per pair vs cores
with the columns of bench/micro/coll.c (time in `unit`: cycles simulated, ns native) and prints each as a table of
time by algorithm. Simulated times are latencies (sync "each": a barrier and a common start before every call);
native ones are back to back (sync "once"; see experiments/collbench.py for why). Core counts below 64 run on the
first N cores of pimp-8x8 (`nocmsg run -n N`). Native ranks are pinned; on a machine with fewer CPUs than ranks
they share CPUs (the host port yields while it waits), so native times then include scheduling and vary with the
machine's load. Ping-pong latency and bandwidth are bench/micro/pingpong.py's.
"""

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from experiments.collbench import algorithms, frame, native_job, run_jobs, sim_job  # noqa: E402
from experiments.collplot import size_label  # noqa: E402

CHIP = os.path.join(ROOT, "chips", "pimp-8x8.toml")
CORES = [2, 4, 8, 16, 32, 64]
# Roots of the bcast-vs-root part: the diagonal of the 8x8 mesh (corner, inner rings, centre, far corner) and the
# middles of the top and left edges.
ROOTS = [0, 9, 18, 27, 36, 45, 54, 63, 3, 24]


def pow2(lo, hi):
    out, b = [], lo
    while b <= hi:
        out.append(b)
        b *= 2
    return out


def suite(quick, native_ranks):
    """name -> (jobs, the column that varies)."""
    cores = [4, 16, 64] if quick else CORES
    sim_sizes = [1, 64, 1024] if quick else pow2(1, 65536)
    red_sizes = [4, 64, 1024] if quick else pow2(4, 65536)
    native_sizes = [1, 1024, 65536] if quick else pow2(1, 1 << 20)

    def sim(op, ranks, sizes, roots=(0,)):
        return [sim_job(op, a, ranks, sizes, roots=list(roots), chip=CHIP) for a in algorithms(op) + ["auto"]]

    def per_cores(op, sizes):
        return [j for n in cores for j in sim(op, n, sizes)]

    native = [native_job("bcast", a, native_ranks, native_sizes) for a in algorithms("bcast") + ["auto"]]
    return {
        "barrier_sim": (per_cores("barrier", [0]), "ranks"),
        "bcast_size_sim": (sim("bcast", 64, sim_sizes), "bytes"),
        "bcast_size_native": (native, "bytes"),
        "bcast_root_sim": (sim("bcast", 64, [8, 1024], roots=[0, 27, 63] if quick else ROOTS), "root"),
        "bcast_cores_sim": (per_cores("bcast", [8, 1024]), "ranks"),
        "reduce_size_sim": (sim("reduce", 64, red_sizes), "bytes"),
        "allreduce_size_sim": (sim("allreduce", 64, red_sizes), "bytes"),
        "alltoall_cores_sim": (per_cores("alltoall", [8, 1024]), "ranks"),
    }


def show(data, x):
    """Time by algorithm, one table per value of the columns that do not vary."""
    fixed = [c for c in ("ranks", "bytes", "root") if c != x and data[c].nunique() > 1]
    groups = data.groupby(fixed, sort=False) if fixed else [((), data)]
    for key, part in groups:
        key = key if isinstance(key, tuple) else (key,)
        if fixed:
            print("  " + ", ".join(f"{c} {size_label(v) if c == 'bytes' else v}" for c, v in zip(fixed, key)))
        pivot = part.pivot_table(index=x, columns="algorithm", values="time", aggfunc="first", sort=False)
        pivot = pivot.reindex(columns=list(dict.fromkeys(part["algorithm"])))
        pivot = pivot.sort_index(key=lambda idx: idx.astype(int)) if x == "root" else pivot.sort_index()
        if x == "bytes":
            pivot.index = [size_label(b) for b in pivot.index]
        print(pivot.round(1).to_string(na_rep="-"))
    bad = data[data["status"] != "ok"]
    if len(bad):
        print(f"  {len(bad)} points not ok:")
        print(bad[["algorithm", "ranks", "bytes", "root", "status"]].drop_duplicates().to_string(index=False))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "bench"))
    ap.add_argument("--quick", action="store_true", help="fewer sizes, cores and roots (for testing)")
    ap.add_argument("--only", default="", help="comma-separated names (barrier_sim, bcast_size_native, ...)")
    ap.add_argument("--native-ranks", type=int, default=4)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    parts = suite(args.quick, args.native_ranks)
    wanted = [n for n in args.only.split(",") if n] or list(parts)
    unknown = set(wanted) - set(parts)
    if unknown:
        ap.error(f"unknown --only names: {', '.join(sorted(unknown))} (known: {', '.join(parts)})")
    for name in wanted:
        jobs, x = parts[name]
        start = time.monotonic()
        rows, _ = run_jobs(jobs)
        data = frame(rows)
        path = os.path.join(args.out, f"coll_{name}.csv")
        data.drop(columns=["label"]).to_csv(path, index=False)
        unit = data["unit"].iloc[0]
        print(f"== {os.path.relpath(path, ROOT)} ({len(jobs)} runs, {time.monotonic() - start:.0f} s; {unit})")
        show(data, x)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
