"""nocmsg-deadlock: NoCMsg's Figure 1 on tilepro-64's own interface, the UDN.

Two cores exchange a message, each sending before it receives (``bench/udn/exchange.c``):

- **raw**: one UDN packet each way, written with stalling writes (``nocmsg_udn_send``), then read. A packet holds
  its wormhole path from header to last word, and a core stalled writing reads nothing, so once a packet no longer
  fits in the buffering of the path between the two cores the two packets hold both directions and the network
  deadlocks: the simulator's watchdog reports the cycle of blocked channels (exit status 200). The buffering is the
  chip's: the sender's output queue (4 words), a 3-flit buffer at every router on the way, the receiver's input
  queue (4) and receive queue (32), and the header, which the receive queue strips: 44 + 3 h words for a path of h
  hops. A packet of L words and its header fits when L + 1 <= 44 + 3 h, so the largest exchange that completes is
  L = 43 + 3 h words; one more deadlocks.
- **lib**: the same exchange through libnocmsg's UDN port (``nocmsg_send`` then ``nocmsg_recv`` up to the eager
  limit of 512 bytes, ``nocmsg_sendrecv`` beyond it): the work loop writes only as many words as it has credits and
  drains what arrives meanwhile, so it completes at every size, in both of the port's modes (the work loop and the
  interrupt-driven baseline).

NoCMsg's figure draws the deadlock on the TilePro64 (its buffering is not given as a number there); ours is the
exact threshold of our chip model, measured, beside the one the buffer sizes predict.
"""

import re
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
PROGRAM = REPO / "bench" / "udn" / "exchange.c"
# Pairs of tiles on the 8x8 mesh and their distance in hops (XY routing).
PAIRS = [("0,1", 1), ("0,9", 2), ("0,27", 6), ("0,63", 14)]


def predicted_largest(hops):
    """The largest raw exchange (words) that fits the path: output queue 4 + 3 per router (hops + 1 routers) +
    input queue 4 + receive queue 32 + the stripped header, less the header itself."""
    return 4 + 3 * (hops + 1) + 4 + 32 + 1 - 1


def build(elf):
    cmd = [str(REPO / "bin" / "nocmsg-cc"), "--chip", str(CHIP), "-O2", "-Wall", str(PROGRAM), "-o", str(elf)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return shlex.join(["bin/nocmsg-cc", "--chip", "chips/tilepro-64.toml", "-O2", "-Wall", "bench/udn/exchange.c", "-o", "exchange.elf"])


def run_point(elf, tiles, mode, words, env=()):
    args = ["run", "--chip", str(CHIP), "--tiles", tiles, "--no-prefix", "--max-cycles", "200000000"]
    for e in env:
        args += ["--env", e]
    cmd = [str(nocmsg_binary()), *args, str(elf), mode, str(words)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    shown = shlex.join(["nocmsg", *[a if a != str(CHIP) else "chips/tilepro-64.toml" for a in args], "exchange.elf", mode, str(words)])
    if proc.returncode == 0:
        line = proc.stdout.strip().splitlines()[-1].split(",")
        return {"outcome": "completes", "cycles": int(line[3])}, shown
    if proc.returncode == 200 and "deadlock" in proc.stderr:
        channels = len(re.findall(r"^\s+\d+\. ", proc.stderr, flags=re.M))
        return {"outcome": "deadlock", "cycles": None, "cycle_length": channels}, shown
    raise RuntimeError(f"{shlex.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")


def collect(quick, tmp):
    elf = Path(tmp) / "exchange.elf"
    commands = [build(elf)]
    rows = []
    pairs = PAIRS[:2] if quick else PAIRS
    for tiles, hops in pairs:
        edge = predicted_largest(hops)
        raw_sizes = sorted({8, edge - 1, edge, edge + 1, edge + 2} | (set() if quick else {16, 32, 64, 96, 127}))
        for words in [w for w in raw_sizes if 1 <= w <= 127]:
            point, cmd = run_point(elf, tiles, "raw", words)
            rows.append({"tiles": tiles, "hops": hops, "mode": "raw", "words": words, "predicted_largest": edge, **point})
            commands.append(cmd)
        lib_sizes = [8, 64, 127] + ([] if quick else [1024, 8192, 65536])
        for mode, env in [("lib", ()), ("lib-interrupt", ("NOCMSG_UDN_MODE=interrupt",))]:
            for words in lib_sizes:
                point, cmd = run_point(elf, tiles, "lib", words, env)
                rows.append({"tiles": tiles, "hops": hops, "mode": mode, "words": words, "predicted_largest": edge, **point})
                commands.append(cmd)
    return pd.DataFrame(rows), commands


def thresholds(data):
    """Per pair: the largest raw exchange that completed, the smallest that deadlocked, and the prediction."""
    raw = data[data["mode"] == "raw"]
    rows = []
    for (tiles, hops), g in raw.groupby(["tiles", "hops"], sort=False):
        done = g[g["outcome"] == "completes"]["words"]
        dead = g[g["outcome"] == "deadlock"]["words"]
        rows.append({"tiles": tiles, "hops": hops, "largest_completing": int(done.max()) if len(done) else None,
                     "smallest_deadlocking": int(dead.min()) if len(dead) else None,
                     "predicted_largest": int(g["predicted_largest"].iloc[0])})
    table = pd.DataFrame(rows)
    table["matches"] = (table["largest_completing"] == table["predicted_largest"]) & (table["smallest_deadlocking"] == table["predicted_largest"] + 1)
    return table


def plot(data, path):
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    raw = data[data["mode"] == "raw"]
    for i, (tiles, g) in enumerate(raw.groupby("tiles", sort=False)):
        ok, dead = g[g["outcome"] == "completes"], g[g["outcome"] == "deadlock"]
        hops = int(g["hops"].iloc[0])
        left.scatter(ok["words"], [i] * len(ok), marker="o", color="C2", label="completes" if i == 0 else None)
        left.scatter(dead["words"], [i] * len(dead), marker="x", color="C3", label="deadlocks" if i == 0 else None)
        left.axvline(predicted_largest(hops) + 0.5, color="C0", alpha=0.3)
    labels = [f"tiles {t} ({h} hops)" for t, h in raw.groupby(["tiles", "hops"], sort=False).groups.keys()]
    left.set_yticks(range(len(labels)), labels)
    left.set(xlabel="words each way (raw UDN packet)", title="raw exchange: deadlock past the path's buffering")
    left.legend(loc="lower right")
    lib = data[data["mode"] != "raw"]
    for (mode, tiles), g in lib.groupby(["mode", "tiles"], sort=False):
        right.plot(g["words"], g["cycles"], "o-" if mode == "lib" else "s--", label=f"{mode}, tiles {tiles}")
    right.set(xscale="log", yscale="log", xlabel="words each way", ylabel="cycles", title="through libnocmsg: always completes")
    right.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def run(out_dir, quick=False):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        data, commands = collect(quick, tmp)
    table = thresholds(data)
    data.to_csv(out / "data.csv", index=False)
    table.to_csv(out / "thresholds.csv", index=False)
    plot(data, out / "plot.png")
    lib = data[data["mode"] != "raw"]
    lines = [
        "# nocmsg-deadlock: NoCMsg's Figure 1 on tilepro-64's UDN",
        "",
        __doc__.strip(),
        "",
        *provenance("nocmsg-deadlock", quick),
        "",
        *fenced("Raw exchanges: the largest that completes and the smallest that deadlocks, against the buffer sizes' prediction:",
                table.to_string(index=False)),
        *fenced("Through libnocmsg (cycles from a common start until both have the other's message):",
                lib.pivot_table(index=["tiles", "words"], columns="mode", values="cycles").to_string()),
        "![plot](plot.png)",
        "",
        *command_lines("Commands:", commands),
    ]
    (out / "README.md").write_text("\n".join(lines) + "\n")
    print(table.to_string(index=False))
    if not table["matches"].all():
        raise RuntimeError("the measured deadlock thresholds differ from the buffer sizes' prediction:\n" + table.to_string(index=False))
    if (lib["outcome"] != "completes").any():
        raise RuntimeError("an exchange through libnocmsg did not complete:\n" + lib.to_string(index=False))
    return table
