"""The shared-memory experiment end to end on the real simulator (quick version), into a temporary directory."""

import pandas as pd

from experiments.__main__ import main


def test_shmem_vs_msg_quick_measures_every_part_and_contention_slows_shared_memory(tmp_path):
    out = tmp_path / "shmem-vs-msg"
    assert main(["shmem-vs-msg", "--quick", "--out", str(out)]) == 0
    data = pd.read_csv(out / "data.csv")
    assert set(data["part"]) == {"bandwidth", "jitter", "jitter-sweep", "contention", "exchange400"}
    bw = data[data["part"] == "bandwidth"]
    assert set(bw["way"]) == {"shm none", "shm all", "msg", "xmsg"}
    # Larger messages move more bytes per cycle, whichever way they go.
    for way, g in bw.groupby("way"):
        g = g.sort_values("size")
        assert g["bytes_per_cycle"].iloc[-1] > 10 * g["bytes_per_cycle"].iloc[0], way
    # Each seed is one run, and the seeds differ.
    jitter = data[data["part"] == "jitter"]
    assert (jitter.groupby("way")["cycles"].nunique() > 1).all()
    checks = pd.read_csv(out / "checks.csv")
    assert len(checks) == 5
    assert checks.set_index("check").loc["shared-memory latency grows with contention", "passed"]
    # NoCMsg's raw transfers stream faster than shared memory once a message is a few lines long (16 KiB).
    assert checks.set_index("check").loc["messages beat shared memory in bandwidth at 16384 B", "passed"]
    # And at every size: from one byte on, NoCMsg's transfers take less than the three remote accesses of shared
    # memory (the inline UDN paths, lib/include/nocmsg_inline_udn.h).
    assert checks.set_index("check").loc["messages beat shared memory in bandwidth at every size", "passed"]
    # The noise sweep: every way at every level, and more noise spreads every way's run times more.
    sweep = data[data["part"].isin(["jitter", "jitter-sweep"])]
    assert set(sweep["noise"]) == {"light (0.5%)", "main (2%)", "heavy (20%)"}
    spread = sweep.groupby(["noise", "way"])["cycles"].std().unstack("way")
    assert (spread.loc["heavy (20%)"] > spread.loc["light (0.5%)"]).all()
    readme = (out / "README.md").read_text()
    assert "against the noise" in readme
    assert "git revision" in readme and "--threads --hash-mode all" in readme and "--perturb seed=1," in readme
    assert (out / "plot.png").stat().st_size > 10_000
