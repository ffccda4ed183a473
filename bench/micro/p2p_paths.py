"""Point-to-point paths: the round trip through each way a program calls send and receive, on simulated chips.

    python3 bench/micro/p2p_paths.py [--out results/bench] [--iterations N]

Builds bench/micro/p2p_paths.c and runs it between neighbours on pimp-4x4 (ranks 0 and 1) and between the opposite
corners of pimp-8x8 (ranks 0 and 63). Writes p2p_paths.csv (chip, pair, api, path, bytes, round_trip_cycles) and
prints, per chip, a table of cycles per round trip (one row per API and path, one column per size) and the ratios
issue 14 asks for, each with PASS or FAIL:
    on pimp-4x4: 8 B round trip at most 100 cycles (libnocmsg and MPI, constant arguments), 1 KiB at most 2.2x the
    512 B round trip (the step from eager to rendezvous), 1 B at most 1.3x the 8 B round trip (on pimp-8x8 these
    are reported without a bound); 3, 13 and 100 B next to the next whole word (reported);
    on both: MPI with the count from the command line, and with a duplicated communicator or a datatype in a
    variable, at most 1.5x the constant-argument MPI round trip for 8 B
The exit status is 0 even when a ratio fails (the numbers are the result); the tests hold the bounds.
"""

import argparse
import csv
import io
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCE = os.path.join(ROOT, "bench", "micro", "p2p_paths.c")
NOCMSG = os.environ.get("NOCMSG", os.path.join(ROOT, "target", "release", "nocmsg"))
SIZES = "1,3,8,13,16,64,100,104,512,1024"
RUNS = [("pimp-4x4", "neighbour", "1"), ("pimp-8x8", "far", "63")]


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def checks(rt, chip):
    """(description, value, bound or None) for the issue's ratios; rt maps (api, path, bytes) to cycles. The bounds
    on sizes hold on pimp-4x4 (the issue's acceptance); elsewhere those ratios are reported without one."""
    out = []
    on_4x4 = chip == "pimp-4x4"
    for api in ("nocmsg", "mpi"):
        out.append((f"{api} 8 B round trip (const), cycles", rt[(api, "const", 8)], 100.0 if on_4x4 else None))
        out.append((f"{api} 1 KiB / 512 B (var)", rt[(api, "var", 1024)] / rt[(api, "var", 512)],
                    2.2 if on_4x4 else None))
        out.append((f"{api} 1 B / 8 B (var)", rt[(api, "var", 1)] / rt[(api, "var", 8)], 1.3 if on_4x4 else None))
    base = rt[("mpi", "const", 8)]
    for path in ("var", "status", "var-int", "var-double", "dup", "dup-double", "anytype"):
        out.append((f"mpi {path} / mpi const, 8 B", rt[("mpi", path, 8)] / base, 1.5))
    for small, whole in ((3, 8), (13, 16), (100, 104)):
        out.append((f"{small} B / {whole} B (mpi var)", rt[("mpi", "var", small)] / rt[("mpi", "var", whole)], None))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "bench"))
    ap.add_argument("--iterations", type=int, default=20)
    args = ap.parse_args()
    build = os.path.join(ROOT, "target", "bench")
    os.makedirs(build, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    elf = os.path.join(build, "p2p_paths.elf")
    run([os.path.join(ROOT, "bin", "nocmsg-cc"), "-O2", SOURCE, "-o", elf])

    rows = []
    for chip, pair, peer in RUNS:
        text = run([NOCMSG, "run", "--chip", os.path.join(ROOT, "chips", chip + ".toml"), "--no-prefix", elf, peer,
                    str(args.iterations), SIZES])
        found = list(csv.DictReader(io.StringIO(text)))
        rt = {(r["api"], r["path"], int(r["bytes"])): float(r["round_trip_cycles"]) for r in found}
        for r in found:
            rows.append({"chip": chip, "pair": pair, "api": r["api"], "path": r["path"], "bytes": int(r["bytes"]),
                         "round_trip_cycles": float(r["round_trip_cycles"])})
        print(f"== {chip}, {pair} (ranks 0 and {peer}): cycles per round trip")
        sizes = sorted({k[2] for k in rt})
        print(f"{'api/path':<20}" + "".join(f"{s:>9}" for s in sizes))
        for api in ("nocmsg", "mpi"):
            for path in dict.fromkeys(k[1] for k in rt if k[0] == api):
                cells = [f"{rt[(api, path, s)]:9.1f}" if (api, path, s) in rt else " " * 9 for s in sizes]
                print(f"{api + '/' + path:<20}" + "".join(cells))
        for what, value, bound in checks(rt, chip):
            if bound is None:
                print(f"  info  {what}: {value:.2f}")
            else:
                print(f"  {'PASS' if value <= bound else 'FAIL'}  {what}: {value:.2f} (at most {bound})")
        print()

    path = os.path.join(args.out, "p2p_paths.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print(f"== wrote {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
