"""fc-elimination: communication time with flow control, with the automatic plan, and hand-eliminated (NoCMsg Fig. 11).

NoCMsg drops flow control where a communication region cannot deadlock without it; the paper did it by hand, with
its non-flow-controlled exchange (``xchg``), and measured CG, FT and IS with flow control and without. We run the
kernels of ``bench/npb`` (class S, on 32 cores of ``tilepro-64``) four ways:

- **flow control**: every point-to-point send keeps flow control (a plan that releases nothing,
  ``{"table": []}``, so the library takes the same general path as with a real plan);
- **automatic plan**: profiled (``nocmsg run --comm-profile``), planned (``nocmsg fc-plan``) and applied
  (``NOCMSG_FC_PLAN``) with no change to the program; a second run in checking mode (``NOCMSG_FC_CHECK=1``) must
  report no violation;
- **hand xchg**: the kernels built with ``-DNPB_XCHG``, whose exchanges are rank-ordered non-flow-controlled
  pairwise exchanges written by hand, as in the paper (CG's transpose, FT's and IS's all-to-alls over the XOR
  schedule), run with the release-nothing plan so that the library's paths are the same as in the first two;
- **no plan**: the plain program and library, for reference (the fast paths a plan turns off).

The automatic plan releases the program's own point-to-point calls (rules R1-R4, C1, C2) and the all-to-alls that
end regions (rule C3: ``alltoall``/``alltoallv`` run as pairwise raw exchanges in chunks that fit a receive queue,
each behind a ready token, between an entry check and an exit barrier; ``docs/fc-plan.md``). FT and IS communicate
only through collectives, so what the plan does for them is C3; their allreduces and other collectives keep flow
control.

Beside the paper: NoCMsg found that removing flow control cut the communication time of CG, FT and IS. The
automatic plan does that for all three here too. CG's gain is of the paper's kind (its exchanges without the
handshake). FT's and IS's is larger than flow control alone explains, because a released all-to-all also bypasses
the library's progress engine, which the hand-written version keeps (``docs/fc-plan.md`` discusses the figures).
"""

import json
import re
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
KERNELS = ["cg", "ft", "is"]
VARIANTS = ["flow control", "automatic plan", "hand xchg", "no plan"]
FIELDS = ["kernel", "class", "ranks", "total_seconds", "comm_seconds", "compute_seconds", "verified"]


def build(out, xchg):
    flags = "-O2 -Wall -Wextra" + (" -DNPB_XCHG" if xchg else "")
    cmd = ["make", "-s", "-C", str(REPO / "bench" / "npb"), f"CC={REPO / 'bin' / 'nocmsg-cc'} --chip {CHIP}",
           f"CFLAGS={flags}", f"OUT={out}", "EXE=.elf"]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return (f"make -C bench/npb CC='bin/nocmsg-cc --chip chips/tilepro-64.toml' CFLAGS='{flags}' "
            f"OUT=build{'-xchg' if xchg else ''} EXE=.elf")


def shown(args):
    return shlex.join(["nocmsg", *[a.replace(str(CHIP), "chips/tilepro-64.toml") for a in args]])


def nocmsg(args, what):
    proc = subprocess.run([str(nocmsg_binary()), *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{shown(args)} ({what}) failed ({proc.returncode}): {proc.stdout[-800:]} {proc.stderr[-800:]}")
    return proc


def run_kernel(elf, kernel, ranks, klass, env):
    # Plans are read by the simulated program, from the run's work directory (the plans' directory).
    args = ["run", "--chip", str(CHIP), "-n", str(ranks), "--no-prefix", "--max-cycles", "200000000000",
            "--work-dir", str(Path(elf).parent.parent)]
    for e in env:
        args += ["--env", e]
    args += [str(elf), klass]
    proc = nocmsg(args, kernel)
    lines = [l for l in proc.stdout.splitlines() if l.startswith(f"{kernel},")]
    if len(lines) != 1:
        raise RuntimeError(f"{shown(args)}: no report line: {proc.stdout[-800:]}")
    row = dict(zip(FIELDS, lines[0].split(",")))
    if row["verified"] != "yes":
        raise RuntimeError(f"{shown(args)}: {row['verified']}")
    # The simulated cores' stderr, where the library reports violations, comes out with their stdout.
    violations = sum(int(m) for m in re.findall(r"(\d+) calls broke the flow-control plan", proc.stdout + proc.stderr))
    return row, violations, args


def plan_for(elf, kernel, ranks, klass, work):
    """Profiles the kernel and plans it; returns (plan path, the plan's summary, commands)."""
    profile, plan = work / f"{kernel}.profile.json", work / f"{kernel}.plan.json"
    args = ["run", "--chip", str(CHIP), "-n", str(ranks), "--no-prefix", "--max-cycles", "200000000000",
            "--comm-profile", str(profile), str(elf), klass]
    nocmsg(args, f"{kernel} profile")
    plan_args = ["fc-plan", str(profile), "-o", str(plan)]
    nocmsg(plan_args, f"{kernel} plan")
    summary = json.loads(plan.read_text())["summary"]
    return plan, summary, [shown(args), shown(plan_args)]


def point(work, kernel, variant, ranks, klass):
    """One measurement: (row, commands)."""
    plain, xchg = work / "build" / f"{kernel}.elf", work / "build-xchg" / f"{kernel}.elf"
    keep_all = work / "keep-all.plan.json"
    commands, summary, violations = [], None, 0
    if variant == "automatic plan":
        plan, summary, commands = plan_for(plain, kernel, ranks, klass, work)
        row, _, args = run_kernel(plain, kernel, ranks, klass, [f"NOCMSG_FC_PLAN={plan.name}"])
        commands.append(shown(args))
        _, violations, check_args = run_kernel(plain, kernel, ranks, klass,
                                               [f"NOCMSG_FC_PLAN={plan.name}", "NOCMSG_FC_CHECK=1"])
        commands.append(shown(check_args))
    else:
        elf = xchg if variant == "hand xchg" else plain
        env = [] if variant == "no plan" else [f"NOCMSG_FC_PLAN={keep_all.name}"]
        row, violations, args = run_kernel(elf, kernel, ranks, klass, env)
        commands.append(shown(args))
    return {
        "kernel": kernel, "variant": variant, "ranks": ranks, "class": klass,
        "comm_seconds": float(row["comm_seconds"]), "total_seconds": float(row["total_seconds"]),
        "plan_calls": summary["calls"] if summary else None,
        "plan_dropped": summary["dropped"] if summary else None,
        "plan_collectives": summary.get("collectives") if summary else None,
        "plan_collectives_released": summary.get("collectives_released") if summary else None,
        "check_violations": violations,
    }, commands


def collect(quick, work):
    commands = [build(work / "build", False), build(work / "build-xchg", True),
                "echo '{\"table\": []}' > work/keep-all.plan.json"]
    (work / "keep-all.plan.json").write_text('{"table": []}\n')
    kernels, ranks = (["is", "cg"], 8) if quick else (KERNELS, 32)
    points = [(work, k, v, ranks, "S") for k in kernels for v in VARIANTS]
    results = parallel_runs(point, points, "fc-elimination")
    for _, cmds in results:
        commands += cmds
    return pd.DataFrame([row for row, _ in results]), commands


def summarise(data):
    wide = data.pivot_table(index="kernel", columns="variant", values="comm_seconds", sort=False)
    table = pd.DataFrame({v: wide[v] for v in VARIANTS})
    base = table["flow control"]
    table["plan_vs_fc"] = table["automatic plan"] / base - 1
    table["xchg_vs_fc"] = table["hand xchg"] / base - 1
    plans = data[data["variant"] == "automatic plan"].set_index("kernel")
    table["plan_calls"] = plans["plan_calls"]
    table["plan_dropped"] = plans["plan_dropped"]
    table["plan_a2a_released"] = plans["plan_collectives_released"]
    table["check_violations"] = plans["check_violations"]
    return table.reset_index()


def plot(table, path, ranks):
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.2
    for i, v in enumerate(VARIANTS[:3]):
        ax.bar([k + (i - 1) * width for k in range(len(table))], table[v] / table["flow control"], width, label=v)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(table)), list(table["kernel"]))
    ax.set(ylabel="communication time / with flow control",
           title=f"flow-control elimination, {ranks} cores of tilepro-64 (class S)")
    ax.set_ylim(0.8, 1.05)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def run(out_dir, quick=False):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    revision = provenance("fc-elimination", quick)  # the code the runs use, not what is there when they end
    with tempfile.TemporaryDirectory() as tmp:
        data, commands = collect(quick, Path(tmp))
    commands = [c.replace(tmp, "work") for c in commands]
    ranks = int(data["ranks"].iloc[0])
    table = summarise(data)
    data.to_csv(out / "data.csv", index=False)
    table.to_csv(out / "summary.csv", index=False)
    plot(table, out / "plot.png", ranks)
    shown_table = table.to_string(index=False, float_format=lambda v: f"{v:.4g}")
    lines = [
        "# fc-elimination: communication time with and without flow control (NoCMsg Fig. 11)",
        "",
        __doc__.strip(),
        "",
        *revision,
        "",
        *fenced(f"Communication seconds (maxima over ranks), {ranks} cores, and the change against flow control:",
                shown_table),
        "![plot](plot.png)",
        "",
        *command_lines("Commands (work/ is a temporary directory):", commands),
    ]
    (out / "README.md").write_text("\n".join(lines) + "\n")
    print(shown_table)
    return table
