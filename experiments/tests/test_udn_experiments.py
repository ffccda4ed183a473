"""The UDN experiments end to end on the real simulator (quick versions), into temporary directories."""

import pandas as pd

from experiments.__main__ import main


def test_nocmsg_deadlock_finds_the_predicted_thresholds_and_the_library_always_completes(tmp_path):
    out = tmp_path / "nocmsg-deadlock"
    assert main(["nocmsg-deadlock", "--quick", "--out", str(out)]) == 0
    table = pd.read_csv(out / "thresholds.csv")
    # Neighbours (1 hop) and a diagonal step (2 hops): 43 + 3 hops words is the largest raw exchange that fits.
    assert list(table["hops"]) == [1, 2]
    assert list(table["largest_completing"]) == [46, 49] and list(table["smallest_deadlocking"]) == [47, 50]
    data = pd.read_csv(out / "data.csv")
    lib = data[data["mode"] != "raw"]
    assert set(lib["mode"]) == {"lib", "lib-interrupt"} and (lib["outcome"] == "completes").all()
    # The interrupt-driven baseline is slower than the work loop at every size.
    wide = lib.pivot_table(index=["tiles", "words"], columns="mode", values="cycles")
    assert (wide["lib-interrupt"] > wide["lib"]).all(), wide.to_string()
    readme = (out / "README.md").read_text()
    assert "git revision" in readme and "exchange.elf raw 47" in readme
    assert (out / "plot.png").stat().st_size > 10_000
