"""The acceptance checks on hand-made data: each criterion passes, fails and reports missing data as it should."""

import pandas as pd

from experiments import acceptance


def rows(op, ranks, nbytes, root, times, chosen=None):
    return [{"op": op, "algorithm": alg, "chosen": chosen if alg == "auto" and chosen else alg, "ranks": ranks,
             "bytes": nbytes, "root": root, "time": t, "status": "ok"} for alg, t in times.items()]


def frame(*parts):
    return pd.DataFrame([r for part in parts for r in part])


def test_barrier_takes_the_best_named_algorithm_on_64_cores():
    data = frame(rows("barrier", 64, 0, "-", {"linear": 900.0, "dissemination": 240.0, "auto": 10.0}),
                 rows("barrier", 16, 0, "-", {"linear": 100.0}))
    [check] = acceptance.barrier(data)
    assert check["passed"] and check["value"] == 240.0 and "dissemination" in check["case"]
    [check] = acceptance.barrier(frame(rows("barrier", 64, 0, "-", {"linear": 251.0})))
    assert not check["passed"]


def test_bcast_speedup_is_checked_at_every_root_and_wrong_results_do_not_count():
    data = frame(rows("bcast", 64, 1024, "0", {"linear": 5000.0, "mesh_center": 1000.0}),
                 rows("bcast", 64, 1024, "27", {"linear": 4000.0, "mesh_center": 1000.0}),
                 rows("bcast", 64, 8, "0", {"linear": 100.0, "mesh_center": 100.0}))
    checks = acceptance.bcast_speedup(data)
    assert [c["passed"] for c in checks] == [True, False]
    assert [c["value"] for c in checks] == [5.0, 4.0]
    data.loc[(data["root"] == "0") & (data["algorithm"] == "mesh_center") & (data["bytes"] == 1024), "status"] = "wrong"
    assert [c["passed"] for c in acceptance.bcast_speedup(data)] == [False]


def test_allreduce_recursive_doubling_must_win_from_16_cores_only():
    data = frame(rows("allreduce", 8, 8, "-", {"reduce_bcast": 100.0, "recursive_doubling": 200.0}),
                 rows("allreduce", 16, 8, "-", {"reduce_bcast": 300.0, "recursive_doubling": 200.0}),
                 rows("allreduce", 64, 8, "-", {"reduce_bcast": 300.0, "recursive_doubling": 300.0}),
                 rows("allreduce", 64, 65536, "-", {"reduce_bcast": 1.0, "recursive_doubling": 9.0}))
    checks = acceptance.allreduce_rd(data)
    assert [c["passed"] for c in checks] == [True, False]  # 16 cores faster; 64 cores a tie is not faster


def test_selector_within_20_percent_of_the_best_in_every_case():
    good = rows("bcast", 64, 8, "0", {"linear": 100.0, "binomial": 50.0, "auto": 59.0}, chosen="binomial")
    bad = rows("bcast", 64, 1024, "0", {"linear": 100.0, "mesh": 50.0, "auto": 100.0}, chosen="linear")
    [check] = acceptance.selector(frame(good, bad))
    assert not check["passed"] and check["value"] == 2.0
    assert check["case"].startswith("1 of 2 cases over") and "1024 B" in check["case"] and "auto=linear" in check["case"]
    assert acceptance.selector(frame(good))[0]["passed"]
    table = acceptance.selector_table(frame(good, bad))
    assert table.index("mesh") < table.index("binomial")  # worst first


def test_missing_data_is_a_visible_failure():
    empty = frame(rows("scan", 4, 8, "-", {"linear": 1.0}))
    for check in (acceptance.barrier, acceptance.bcast_speedup, acceptance.allreduce_rd, acceptance.selector):
        [row] = check(empty)
        assert not row["passed"] and row["case"].startswith("no data")
    text = acceptance.table(acceptance.as_frame(acceptance.barrier(empty)))
    assert text.splitlines()[1].startswith("FAIL")


def test_back_to_back_rows_do_not_decide_the_checks():
    latency = rows("bcast", 64, 8, "0", {"linear": 100.0, "binomial": 50.0, "chain": 400.0, "auto": 55.0},
                   chosen="binomial")
    back_to_back = rows("bcast", 64, 8, "0", {"linear": 90.0, "binomial": 40.0, "chain": 5.0, "auto": 45.0},
                        chosen="binomial")
    for row in back_to_back:
        row["sync"] = "once"
    [check] = acceptance.selector(frame(latency, back_to_back))
    assert check["passed"] and check["value"] == 1.1 and check["case"].startswith("0 of 1 cases over")
