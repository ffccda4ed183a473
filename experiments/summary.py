"""The demo's closing summary: the acceptance checks of the collective experiments and where the plots are.

    python -m experiments.summary [RESULTS_DIR]

Reads ``checks.csv`` of micro-pimp and bcast-algorithms (and notes which experiments have results) under
RESULTS_DIR (default ``results``); prints one table of checks with PASS/FAIL and the numbers, then the plots.
It only reports: the exit status is 0 whether the checks pass or not (``make demo`` shows the state of the library).
"""

import sys
from pathlib import Path

import pandas as pd

from . import acceptance

EXPERIMENTS = ["noc-load", "micro-pimp", "bcast-algorithms"]


def checks(results):
    frames = []
    for name in EXPERIMENTS:
        path = Path(results) / name / "checks.csv"
        if path.exists():
            frame = pd.read_csv(path)
            frame.insert(0, "experiment", name)
            frames.append(frame)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    results = Path(argv[0] if argv else "results")
    table = checks(results)
    print("== acceptance checks of libnocmsg's collectives (pimp-8x8, cycles)")
    if table.empty:
        print("(no checks.csv found: run python -m experiments micro-pimp / bcast-algorithms)")
    else:
        table["result"] = table["passed"].map({True: "PASS", False: "FAIL"})
        print(acceptance.table(table, extra=["experiment"]))
        print(f"{int(table['passed'].sum())} of {len(table)} checks pass")
    for name in EXPERIMENTS:
        data = results / name / "data.csv"
        if data.exists() and name != "noc-load":
            frame = pd.read_csv(data, keep_default_na=False)
            bad = acceptance.broken(frame)
            if len(bad):
                print(f"{name}: {len(bad)} of {len(frame)} points failed or gave wrong results (see {data})")
    print("== plots")
    for name in EXPERIMENTS:
        for png in sorted((results / name).glob("*.png")):
            print(f"  {png}")
        readme = results / name / "README.md"
        if readme.exists():
            print(f"  {readme}  (command, git revision, tables)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
