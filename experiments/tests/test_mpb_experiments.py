"""scc-bcast and pimp-vs-mpb end to end on the real simulator, cut down to a few points, into a temporary directory:
data, plot, checks and provenance are written and the checks are computed from the data."""

import pandas as pd

from experiments import pimp_vs_mpb, scc_bcast
from experiments.__main__ import main


def test_scc_bcast_measures_the_family_in_every_part_and_the_apps(tmp_path, monkeypatch):
    cfg = {"size": [1, 4096], "source": {"bytes": 1024, "roots": {"corner": 0, "far corner": 47}},
           "receivers": {"bytes": 1024, "cores": [2, 48]}, "traffic": {"bytes": 1024, "intervals": [0, 16]},
           "apps": [("matmul", ["16"]), ("bucketsort", ["2048", "scatter"])], "app_bcasts": ["rcce", "modmpb"]}
    monkeypatch.setattr(scc_bcast, "config", lambda quick: cfg)
    out = tmp_path / "scc-bcast"
    assert main(["scc-bcast", "--quick", "--out", str(out)]) == 0
    data = pd.read_csv(out / "data.csv", dtype={"root": str})
    assert set(data["algorithm"]) == set(scc_bcast.FAMILY) and (data["status"] == "ok").all()
    assert set(data["part"]) == {"size", "source", "receivers", "traffic"}
    assert set(data[data["part"] == "source"]["root"]) == {"0", "47"}
    assert set(data[data["part"] == "receivers"]["ranks"]) == {2, 48}
    # Background traffic slows the broadcasts down, never speeds them up.
    traffic = data[data["part"] == "traffic"].pivot_table(index="algorithm", columns="value", values="time")
    assert (traffic[16] >= traffic[0]).all()
    apps = pd.read_csv(out / "apps.csv")
    assert len(apps) == 4 and (apps["check"] == "ok").all()
    assert (apps["compute"] > 0).all() and (apps["communication"] > 0).all()
    checks = pd.read_csv(out / "checks.csv")
    assert any(checks["check"].str.startswith("modmpb vs rcce"))
    readme = (out / "README.md").read_text()
    assert "git revision" in readme and "--background" in readme and "bench/apps" in readme
    assert (out / "plot.png").stat().st_size > 10_000


def test_pimp_vs_mpb_measures_all_three_ways(tmp_path, monkeypatch):
    cfg = {"pingpong_max": 64, "lengths": [8, 256], "cores": [2, 4], "alltoall_bytes": 8, "iters": 1}
    monkeypatch.setattr(pimp_vs_mpb, "config", lambda quick: cfg)
    out = tmp_path / "pimp-vs-mpb"
    assert main(["pimp-vs-mpb", "--quick", "--out", str(out)]) == 0
    data = pd.read_csv(out / "data.csv")
    assert (data["status"] == "ok").all()
    for part in ["round trip", "bcast", "reduce", "allreduce", "barrier", "alltoall"]:
        assert set(data[data["part"] == part]["way"]) == {"pimp", "rcce", "mpb best"}, part
    assert set(data[data["part"] == "allreduce (recursive doubling)"]["way"]) == {"pimp", "mpb best"}
    checks = pd.read_csv(out / "checks.csv")
    assert len(checks) == 3
    # Cheap and robust on any core count: a PIMP round trip per extra word costs less than the MPB ones.
    assert bool(checks.iloc[0]["passed"])
    assert (out / "plot.png").stat().st_size > 10_000
