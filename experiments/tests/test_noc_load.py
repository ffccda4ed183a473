"""The noc-load experiment end to end on the real simulator (quick version), into a temporary directory."""

import pandas as pd
import pytest

from experiments import noc_load
from experiments.__main__ import main
from experiments.common import run_traffic


def test_quick_run_writes_data_plot_and_provenance(tmp_path):
    out = tmp_path / "noc-load"
    assert main(["noc-load", "--quick", "--out", str(out)]) == 0
    data = pd.read_csv(out / "data.csv")
    assert set(data["config"]) == {label for label, _ in noc_load.CONFIGS}
    # Below saturation accepted follows offered; the single-cycle router saturates last.
    ok = data[~data["saturated"]]
    assert ((ok["accepted_rate"] - ok["offered_rate"]).abs() < 0.03 * ok["offered_rate"] + 1e-3).all()
    peak = data.groupby("config")["accepted_rate"].max()
    assert peak["1stage, 1 VC"] > peak["4stage, 2 VCs"] > peak["4stage, 1 VC"]
    assert (out / "plot.png").stat().st_size > 10_000
    readme = (out / "README.md").read_text()
    assert "git revision" in readme and "nocmsg traffic --mesh 8x8" in readme


def test_lowest_load_latency_is_close_to_the_analytic_zero_load_value():
    points, _ = run_traffic(["--mesh", "8x8", "--rate", "0.01", "--measure", "20000"])
    p = points[0]
    assert p["zero_load_latency"] == pytest.approx(33.25)
    assert p["avg_zero_load_latency_measured"] <= p["avg_packet_latency"] < 1.05 * p["avg_zero_load_latency_measured"]


def test_simulator_errors_surface_with_the_message():
    with pytest.raises(RuntimeError, match="outside"):
        run_traffic(["--rate", "2"])
