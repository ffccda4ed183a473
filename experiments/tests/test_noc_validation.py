"""The noc-validation experiment end to end on the real simulator (quick version), into a temporary directory."""

import pandas as pd

from experiments import noc_validation
from experiments.__main__ import main


def test_quick_run_agrees_with_booksim2_at_low_load(tmp_path):
    out = tmp_path / "noc-validation"
    assert main(["noc-validation", "--quick", "--out", str(out)]) == 0
    data = pd.read_csv(out / "data.csv")
    assert set(data["config"]) == set(noc_validation.CONFIGS)
    assert (data.groupby("config").size() == 2).all()
    # The quick loads are the two lowest of each curve, far below saturation: held to the 5% bound.
    assert data["within_90pct_saturation"].all()
    far = data[data["network_latency_diff"].abs() > noc_validation.BOUND]
    assert far.empty, f"latency more than 5% from BookSim2:\n{far.to_string()}"
    far = data[data["accepted_rate_diff"].abs() > noc_validation.BOUND]
    assert far.empty, f"accepted rate more than 5% from BookSim2:\n{far.to_string()}"
    assert (out / "plot.png").stat().st_size > 10_000
    readme = (out / "README.md").read_text()
    assert "git revision" in readme and "nocmsg traffic --booksim reference/booksim2/F.cfg" in readme
    assert "PASS" in readme and "FAIL" not in readme


def test_rates_spec_reproduces_an_equally_spaced_curve():
    assert noc_validation.rates_spec([0.1, 0.05, 0.15]) == "0.05:0.15:0.05"
    assert noc_validation.rates_spec([0.02, 0.04]) == "0.02:0.04:0.02"
