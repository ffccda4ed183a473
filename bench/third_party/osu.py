"""osu_latency from the OSU micro-benchmarks, built unchanged with nocmsg's wrappers: simulated and native latency.

    python3 bench/third_party/osu.py OSU_SOURCE_DIR [--chip chips/pimp-4x4.toml] [--build DIR] [--iterations N]

OSU_SOURCE_DIR is an unpacked OSU micro-benchmarks source tree (the one configure and Makefile.in are in); nocmsg
does not ship it. The script configures it twice out of tree (build-sim with bin/nocmsg-cc for the simulated chip,
build-native with bin/nocmsg-cc-native), builds mpi/pt2pt/osu_latency in each, runs it on two ranks of the chip
(`nocmsg run`, `-i N -x 10`) and natively (`nocmsg native -n 2`), and prints the table docs/mpi.md quotes:
message size, simulated latency in µs, native latency in µs, with the OSU version, the source's git revision (when
it is a git checkout), the chip and nocmsg's own revision. OSU allocates 2 x 4 MiB per rank; a chip whose cores have
less memory is run as a copy with 16 MiB per core (written to the build directory, and said so in the output).
Not part of `make test`: it needs the OSU sources, which the tests cannot fetch.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NOCMSG = os.environ.get("NOCMSG", os.path.join(ROOT, "target", "release", "nocmsg"))
OSU_MEMORY_KIB = 16384


def run(cmd, **kw):
    out = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if out.returncode != 0:
        sys.exit(f"osu.py: {' '.join(cmd)} failed (exit {out.returncode})\n{out.stdout}{out.stderr}")
    return out.stdout


def git_revision(path):
    """The commit checked out at path, saying so when tracked files differ from it; None if path is no git tree."""
    try:
        out = subprocess.run(["git", "-C", path, "rev-parse", "HEAD"], capture_output=True, text=True)
        if out.returncode != 0:
            return None
        dirty = subprocess.run(["git", "-C", path, "diff", "--quiet", "HEAD", "--"], capture_output=True).returncode
    except OSError:
        return None
    return out.stdout.strip() + (" with uncommitted changes" if dirty else "")


def osu_version(src):
    with open(os.path.join(src, "configure.ac")) as f:
        m = re.search(r"AC_INIT\(\[OSU-Micro-Benchmarks\],\s*\[([^\]]+)\]", f.read())
    return m.group(1) if m else "unknown"


def build(src, build_dir, cc, extra):
    """Configures OSU out of tree with `cc` as CC and CXX and builds osu_latency; returns its path."""
    os.makedirs(build_dir, exist_ok=True)
    if not os.path.exists(os.path.join(build_dir, "Makefile")):
        run([os.path.join(src, "configure"), f"CC={cc}", f"CXX={cc}"] + extra, cwd=build_dir)
    pt2pt = os.path.join(build_dir, "mpi", "pt2pt")
    # A git checkout has no file times to go by: keep make from regenerating the autotools files.
    run(["make", "-C", pt2pt, "osu_latency", "ACLOCAL=true", "AUTOCONF=true", "AUTOMAKE=true", "AUTOHEADER=true"])
    return os.path.join(pt2pt, "osu_latency")


def parse(text):
    """OSU's table: lines `size latency` after the `# Size` header."""
    rows = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].isdigit():
            rows[int(parts[0])] = float(parts[1])
    if not rows:
        sys.exit(f"osu.py: no latency table in osu_latency's output\n{text}")
    return rows


def chip_for_osu(chip, build_dir):
    """The chip, or a copy with OSU_MEMORY_KIB per core when its cores have less; returns (path, note)."""
    with open(chip) as f:
        text = f.read()
    m = re.search(r"^memory_kib\s*=\s*(\d+)", text, re.M)
    if m and int(m.group(1)) >= OSU_MEMORY_KIB:
        return chip, ""
    copy = os.path.join(build_dir, os.path.basename(chip).replace(".toml", f"-{OSU_MEMORY_KIB // 1024}m.toml"))
    with open(copy, "w") as f:
        if m:
            f.write(text[: m.start()] + f"memory_kib = {OSU_MEMORY_KIB}" + text[m.end():])
        else:
            f.write(text.replace("[core]\n", f"[core]\nmemory_kib = {OSU_MEMORY_KIB}\n", 1))
    return copy, f" (as a copy with memory_kib = {OSU_MEMORY_KIB}: OSU allocates 2 x 4 MiB per rank)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source", help="unpacked OSU micro-benchmarks source tree")
    ap.add_argument("--chip", default=os.path.join(ROOT, "chips", "pimp-4x4.toml"))
    ap.add_argument("--build", default=os.path.join(ROOT, "target", "osu"), help="build directory (default target/osu)")
    ap.add_argument("--iterations", type=int, default=100, help="simulated iterations per size (osu_latency -i)")
    args = ap.parse_args()
    src = os.path.abspath(args.source)
    if not os.path.exists(os.path.join(src, "configure")):
        sys.exit(f"osu.py: {src} has no configure script: give the top of an OSU micro-benchmarks source tree")
    if not shutil.which("make"):
        sys.exit("osu.py: make not found")

    sim = build(src, os.path.join(args.build, "build-sim"), os.path.join(ROOT, "bin", "nocmsg-cc"),
                ["--host=riscv64-unknown-elf"])
    native = build(src, os.path.join(args.build, "build-native"), os.path.join(ROOT, "bin", "nocmsg-cc-native"), [])
    chip, note = chip_for_osu(os.path.abspath(args.chip), args.build)
    simulated = parse(run([NOCMSG, "run", "--chip", chip, "-n", "2", "--no-prefix", sim, "-i", str(args.iterations),
                           "-x", "10"]))
    natively = parse(run([NOCMSG, "native", "-n", "2", native]))

    chip_name = os.path.basename(args.chip).removesuffix(".toml")
    print(f"osu_latency, OSU micro-benchmarks {osu_version(src)}, source revision "
          f"{git_revision(src) or 'unknown (not a git checkout)'}")
    print(f"nocmsg revision {git_revision(ROOT) or 'unknown'}; simulated on {chip_name}{note}, "
          f"2 ranks, -i {args.iterations} -x 10; natively on this machine, 2 processes, OSU's defaults")
    print()
    print(f"| message | {chip_name} (simulated µs) | native (µs) |")
    print("|---|---|---|")
    for size in sorted(simulated):
        label = f"{size} B" if size < 1024 else f"{size // 1024} KiB" if size < 1 << 20 else f"{size >> 20} MiB"
        print(f"| {label} | {simulated[size]:.2f} | {natively.get(size, float('nan')):.2f} |")


if __name__ == "__main__":
    main()
