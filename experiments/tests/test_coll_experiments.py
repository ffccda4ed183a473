"""micro-pimp and bcast-algorithms end to end on the real simulator, cut down to a few points, into a temporary
directory: data, plot, checks and provenance are written and the checks are computed from the data."""

import pandas as pd

from experiments import bcast_algorithms, micro_pimp
from experiments.__main__ import main
from experiments.collbench import read_csv


def test_micro_pimp_writes_data_plot_checks_and_provenance(tmp_path, monkeypatch):
    panels = [("barrier vs cores", "barrier", "ranks", [4, 16], [0]),
              ("allreduce vs cores", "allreduce", "ranks", [4, 16], [8])]
    monkeypatch.setattr(micro_pimp, "config", lambda quick: (panels, (64, 2)))
    out = tmp_path / "micro-pimp"
    assert main(["micro-pimp", "--quick", "--out", str(out)]) == 0
    data = read_csv(out / "data.csv")
    assert set(data["label"]) == {"barrier vs cores", "allreduce vs cores"}
    assert set(data["ranks"]) == {4, 16} and (data["status"] == "ok").all()
    assert {"linear", "auto"} <= set(data[data["op"] == "barrier"]["algorithm"])
    assert set(pd.read_csv(out / "roundtrip.csv")["pair"]) == {"neighbour", "far"}
    checks = pd.read_csv(out / "checks.csv")
    assert any(checks["check"].str.startswith("recursive_doubling")) and any(checks["check"].str.startswith("auto"))
    assert (out / "plot.png").stat().st_size > 10_000
    readme = (out / "README.md").read_text()
    assert "git revision" in readme and "nocmsg run --chip chips/pimp-8x8.toml -n 16" in readme


def test_bcast_algorithms_measures_every_algorithm_at_corner_edge_and_centre(tmp_path, monkeypatch):
    monkeypatch.setattr(bcast_algorithms, "sizes", lambda quick: [1024])
    out = tmp_path / "bcast-algorithms"
    assert main(["bcast-algorithms", "--quick", "--out", str(out)]) == 0
    data = read_csv(out / "data.csv")
    assert set(data["position"]) == {"corner", "edge", "centre"} and set(data["sync"]) == {"once", "each"}
    assert dict(zip(data["position"], data["root"])) == {"corner": "0", "edge": "3", "centre": "27"}
    assert {"linear", "mesh_center", "auto"} <= set(data["algorithm"]) and (data["status"] == "ok").all()
    checks = pd.read_csv(out / "checks.csv")
    assert len(checks[checks["check"].str.startswith("mesh_center")]) == 3  # every root, latency only
    assert (out / "plot.png").stat().st_size > 10_000 and (out / "speedup.png").stat().st_size > 10_000
