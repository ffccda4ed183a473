"""Ping-pong: libnocmsg on a simulated chip (cycles), natively (ns), and Open MPI natively (ns), in one run.

    python3 bench/micro/pingpong.py [--out results/bench] [--iterations N]

Writes pingpong_sim.csv (pair, bytes, round_trip_cycles, cycles_per_extra_word) and pingpong_native.csv (pair,
bytes, nocmsg_ns, openmpi_ns, ratio = nocmsg / Open MPI; below 1 means nocmsg is faster), and prints both, with the
simulated ratios issue 14 sets bounds on (8 B round trip, 1 KiB / 512 B, 1 B / 8 B; PASS or FAIL).
Native runs use two ranks pinned to two cores; both libraries run back to back in the same invocation, so the
ratio compares them under the same machine load.
"""

import argparse
import csv
import io
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCE = os.path.join(ROOT, "bench", "micro", "pingpong.c")
NOCMSG = os.environ.get("NOCMSG", os.path.join(ROOT, "target", "release", "nocmsg"))


def run(cmd, **kw):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)
    return out.stdout


def parse(text):
    rows = list(csv.DictReader(io.StringIO(text)))
    return {(r["pair"], int(r["bytes"])): float(r["round_trip"]) for r in rows}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "bench"))
    ap.add_argument("--iterations", type=int, default=2000)
    ap.add_argument("--chip", default=os.path.join(ROOT, "chips", "pimp-4x4.toml"))
    args = ap.parse_args()
    build = os.path.join(ROOT, "target", "bench")
    os.makedirs(build, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)

    elf = os.path.join(build, "pingpong.elf")
    run([os.path.join(ROOT, "bin", "nocmsg-cc"), "-O2", SOURCE, "-o", elf])
    sim = parse(run([NOCMSG, "run", "--chip", args.chip, "--no-prefix", elf, "65536", "20"]))
    sim_rows = []
    for (pair, size), cycles in sorted(sim.items()):
        base = sim[(pair, 8)]
        extra = (cycles - base) / (size / 8 - 1) if size > 8 and size % 8 == 0 else 0.0
        sim_rows.append({"pair": pair, "bytes": size, "round_trip_cycles": cycles,
                         "cycles_per_extra_word": round(extra, 2)})
    write(os.path.join(args.out, "pingpong_sim.csv"), sim_rows)
    for pair in ("neighbour", "far"):
        # The 8 B bound is for neighbours; the far corners add the network's 20 cycles.
        for what, value, bound in ((f"{pair} 8 B round trip, cycles", sim[(pair, 8)], 100.0 if pair == "neighbour"
                                    else 130.0),
                                   (f"{pair} 1 KiB / 512 B", sim[(pair, 1024)] / sim[(pair, 512)], 2.2),
                                   (f"{pair} 1 B / 8 B", sim[(pair, 1)] / sim[(pair, 8)], 1.3),
                                   (f"{pair} 3 B / 8 B", sim[(pair, 3)] / sim[(pair, 8)], 1.5),
                                   (f"{pair} 13 B / 16 B", sim[(pair, 13)] / sim[(pair, 16)], 1.5)):
            print(f"  {'PASS' if value <= bound else 'FAIL'}  {what}: {value:.2f} (at most {bound})")

    native = os.path.join(build, "pingpong")
    run([os.path.join(ROOT, "bin", "nocmsg-cc-native"), "-O2", SOURCE, "-o", native])
    iters = str(args.iterations)
    ours = parse(run([NOCMSG, "native", "-n", "2", "--pin", native, "65536", iters]))
    mpicc, mpirun = shutil.which("mpicc.openmpi"), shutil.which("mpirun.openmpi")
    theirs = {}
    if mpicc and mpirun:
        ompi = os.path.join(build, "pingpong_openmpi")
        run([mpicc, "-O2", "-DPINGPONG_MPI", SOURCE, "-o", ompi])
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        theirs = parse(run([mpirun, "--oversubscribe", "-np", "2", "--bind-to", "core", ompi, "65536", iters], env=env))
    else:
        print("pingpong: Open MPI not found (apt-get install libopenmpi-dev openmpi-bin); native column only",
              file=sys.stderr)
    native_rows = []
    for key, ns in sorted(ours.items()):
        other = theirs.get(key)
        native_rows.append({"pair": key[0], "bytes": key[1], "nocmsg_ns": ns,
                            "openmpi_ns": other if other is not None else "",
                            "ratio": round(ns / other, 3) if other else ""})
    write(os.path.join(args.out, "pingpong_native.csv"), native_rows)


def write(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print(f"== {os.path.relpath(path, ROOT)}")
    with open(path) as f:
        sys.stdout.write(f.read())


if __name__ == "__main__":
    main()
