"""The fpu experiment end to end on the real simulator (quick version), into a temporary directory."""

import pandas as pd

from experiments.__main__ import main


def test_quick_run_measures_both_builds_and_the_fpu_wins(tmp_path):
    out = tmp_path / "fpu"
    assert main(["fpu", "--quick", "--out", str(out)]) == 0
    data = pd.read_csv(out / "data.csv")
    assert set(data["variant"]) == {"soft-float", "fpu"}
    assert sorted(set(data["cores"])) == [1, 4, 16]
    # The same checksums under software floating point and with the FPU (the experiment itself refuses otherwise).
    assert data["output"].nunique() == 1 and data["output"].iloc[0].startswith("matmul checksum")
    # Only the FPU build spends cycles in FP instructions.
    assert (data[data["variant"] == "soft-float"]["fp_stall_cycles"] == 0).all()
    assert (data[data["variant"] == "fpu"]["fp_stall_cycles"] > 0).all()
    speed = pd.read_csv(out / "speedup.csv")
    # Software double arithmetic is tens of instructions an operation, so the FPU must win clearly on one core.
    assert speed.loc[speed["cores"] == 1, "fpu_speedup"].iloc[0] > 2.0, speed.to_string()
    assert (out / "plot.png").stat().st_size > 10_000
    readme = (out / "README.md").read_text()
    assert "Revision:" in readme and "nocmsg-cc --chip" in readme
