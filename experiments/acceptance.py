"""The acceptance criteria of libnocmsg's collectives, computed from ``bench/micro/coll`` data.

Each check returns rows ``{check, case, value, limit, passed}``; ``value`` and ``limit`` are numbers in the unit the
check names, so a reader sees by how much a case passed or failed. A check with no data to decide on says so
(``passed`` is False: a criterion is shown, not assumed).

    barrier <= 250 cycles        on 64 cores, with the best barrier algorithm
    mesh_center >= 5x linear     bcast of 1 KiB on 64 cores (8x8), each root measured
    recursive_doubling faster    allreduce of 8 B, than reduce_bcast, on every core count measured from 16 on
    selector within 20%          "auto" at most 1.2x the best algorithm measured, for every case measured

A case is (operation, cores, bytes, root). The checks judge latency: rows timed with sync "each" (the default of
bench/micro/coll.c: a barrier before every call and a common start). Back-to-back rows (sync "once") are left out:
there consecutive calls overlap, so a pipelined algorithm shows its throughput and a reduction its queueing.
"""

import pandas as pd

from .common import command_lines, fenced

BARRIER_LIMIT_CYCLES = 250
BCAST_SPEEDUP = 5.0
SELECTOR_SLACK = 1.2
CASE = ["op", "ranks", "bytes", "root", "sync"]
TIMING = "each"


def usable(data):
    """Latency rows that completed and checked out, with numeric times, each (case, algorithm) once."""
    ok = data[data["status"] == "ok"].copy()
    ok["time"] = pd.to_numeric(ok["time"])
    ok["sync"] = ok["sync"].fillna(TIMING) if "sync" in ok else TIMING
    ok = ok[ok["sync"] == TIMING]
    return ok.drop_duplicates(subset=CASE + ["algorithm"])


def _row(check, case, value, limit, passed):
    return {"check": check, "case": case, "value": value, "limit": limit, "passed": bool(passed)}


def _missing(check, what):
    return [_row(check, f"no data: {what}", float("nan"), float("nan"), False)]


def barrier(data, ranks=64):
    check = f"barrier <= {BARRIER_LIMIT_CYCLES} cycles"
    d = usable(data)
    d = d[(d["op"] == "barrier") & (d["ranks"] == ranks) & (d["algorithm"] != "auto")]
    if d.empty:
        return _missing(check, f"barrier on {ranks} cores")
    best = d.loc[d["time"].idxmin()]
    return [_row(check, f"{ranks} cores, best = {best['algorithm']}", best["time"], BARRIER_LIMIT_CYCLES,
                 best["time"] <= BARRIER_LIMIT_CYCLES)]


def bcast_speedup(data, ranks=64, nbytes=1024, fast="mesh_center", slow="linear"):
    check = f"{fast} bcast >= {BCAST_SPEEDUP:g}x {slow}"
    d = usable(data)
    d = d[(d["op"] == "bcast") & (d["ranks"] == ranks) & (d["bytes"] == nbytes)]
    rows = []
    for root, group in d.groupby("root", sort=False):
        times = group.set_index("algorithm")["time"]
        if fast in times and slow in times:
            speedup = times[slow] / times[fast]
            rows.append(_row(check, f"{nbytes} B, {ranks} cores, root {root} "
                                    f"({times[slow]:.0f} / {times[fast]:.0f} cycles)",
                             round(speedup, 2), BCAST_SPEEDUP, speedup >= BCAST_SPEEDUP))
    return rows or _missing(check, f"{fast} and {slow} bcast of {nbytes} B on {ranks} cores")


def allreduce_rd(data, from_ranks=16, nbytes=8, fast="recursive_doubling", slow="reduce_bcast"):
    """At the size of the core sweep (one 8-byte value, as in the PIMP paper); larger sizes are in the tables."""
    check = f"{fast} allreduce < {slow} from {from_ranks} cores"
    d = usable(data)
    d = d[(d["op"] == "allreduce") & (d["ranks"] >= from_ranks) & (d["bytes"] == nbytes)]
    rows = []
    for (ranks, nbytes), group in d.groupby(["ranks", "bytes"]):
        times = group.set_index("algorithm")["time"]
        if fast in times and slow in times:
            ratio = times[fast] / times[slow]
            rows.append(_row(check, f"{ranks} cores, {nbytes} B ({times[fast]:.0f} vs {times[slow]:.0f} cycles)",
                             round(ratio, 3), 1.0, ratio < 1.0))
    return rows or _missing(check, f"{fast} and {slow} allreduce of {nbytes} B from {from_ranks} cores")


def selector_ratios(data):
    """One row per case with both "auto" and at least one algorithm measured: auto's time over the best's."""
    d = usable(data)
    rows = []
    for key, group in d.groupby(CASE, sort=False):
        auto = group[group["algorithm"] == "auto"]
        named = group[group["algorithm"] != "auto"]
        if auto.empty or named.empty:
            continue
        best = named.loc[named["time"].idxmin()]
        rows.append(dict(zip(CASE, key), chosen=auto["chosen"].iloc[0], best=best["algorithm"],
                         auto_time=auto["time"].iloc[0], best_time=best["time"],
                         ratio=auto["time"].iloc[0] / best["time"]))
    return pd.DataFrame(rows)


def selector(data):
    """One row: the worst case, and how many cases are over the limit (selector_ratios has them all)."""
    check = f"auto <= {SELECTOR_SLACK:g}x best"
    ratios = selector_ratios(data)
    if ratios.empty:
        return _missing(check, "auto next to other algorithms")
    worst = ratios.loc[ratios["ratio"].idxmax()]
    over = int((ratios["ratio"] > SELECTOR_SLACK).sum())
    where = f"{worst['op']} {worst['ranks']} cores {worst['bytes']} B root {worst['root']}"
    return [_row(check, f"{over} of {len(ratios)} cases over; worst: {where}, auto={worst['chosen']} "
                        f"{worst['auto_time']:.0f} vs {worst['best']} {worst['best_time']:.0f} cycles",
                 round(worst["ratio"], 3), SELECTOR_SLACK, over == 0)]


def selector_table(data, over_only=False):
    """Every case of the selector check (or only those over the limit) as text, worst first."""
    ratios = selector_ratios(data)
    if over_only and not ratios.empty:
        ratios = ratios[ratios["ratio"] > SELECTOR_SLACK]
    if ratios.empty:
        return "(no cases)"
    ratios = ratios.sort_values("ratio", ascending=False)
    ratios["ratio"] = ratios["ratio"].round(3)
    return ratios.to_string(index=False)


def broken(data):
    """Rows whose status is not "ok": failed runs, wrong results, error codes."""
    return data[data["status"] != "ok"]


def as_frame(rows):
    frame = pd.DataFrame(rows, columns=["check", "case", "value", "limit", "passed"])
    frame["result"] = frame["passed"].map({True: "PASS", False: "FAIL"})
    return frame


def table(frame, extra=()):
    """Checks as printable text, left-aligned: result, the ``extra`` columns, check, value, limit, case."""
    if frame.empty:
        return "(no checks)"
    cols = ["result", *extra, "check", "value", "limit", "case"]
    cells = [cols] + [[f"{v:g}" if isinstance(v, float) else str(v) for v in row]
                      for row in frame[cols].itertuples(index=False)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cols))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells)


def readme_sections(check_frame, data, summary, commands, built):
    """The part of an experiment's README after its header: the acceptance checks, the selector against the best
    algorithm, the results and the simulator commands (``built`` names what was built, e.g. "programs built")."""
    return [
        *fenced("Acceptance checks:", table(check_frame)),
        *fenced("The selector (\"auto\") against the best algorithm, every case (`selector.csv`):",
                selector_table(data)),
        *fenced("Results:", summary),
        *command_lines(f"Simulator commands ({built} with `bin/nocmsg-cc -O2` into `target/bench/`):", commands),
    ]
