"""bench/micro/coll through experiments.collbench: real runs on a small simulated chip and natively."""

from experiments import collbench
from experiments.collbench import REPO, Job, frame, run_jobs

CHIP4 = REPO / "chips" / "pimp-4x4.toml"


def test_root_positions_follow_the_mesh():
    assert collbench.root_positions(8, 8) == {"corner": 0, "edge": 3, "centre": 27}
    assert collbench.root_positions(4, 4) == {"corner": 0, "edge": 1, "centre": 5}
    assert collbench.chip_mesh(REPO / "chips" / "pimp-8x8.toml") == (8, 8)


def test_every_bcast_algorithm_and_the_selector_give_right_results_on_a_simulated_chip():
    names = collbench.algorithms("bcast")
    assert "linear" in names and "auto" not in names
    jobs = [Job(op="bcast", algorithm=a, ranks=16, sizes=[1, 8, 1024], iters=[2], roots=[0, 5], chip=CHIP4)
            for a in names + ["auto"]]
    data = frame(run_jobs(jobs)[0])
    assert len(data) == len(jobs) * 3 * 2
    assert (data["status"] == "ok").all(), data[data["status"] != "ok"].to_string()
    assert (data["unit"] == "cycles").all() and (data["time"] > 0).all()
    named = data[data["algorithm"] != "auto"]
    assert (named["chosen"] == named["algorithm"]).all()
    assert set(data[data["algorithm"] == "auto"]["chosen"]) <= set(names)


def test_operations_without_a_root_run_natively_in_nanoseconds():
    jobs = [Job(op=op, algorithm="auto", ranks=3, sizes=[4, 4096], iters=[5], native=True)
            for op in ("barrier", "allreduce", "alltoall", "allgather", "reduce_scatter", "scan")]
    data = frame(run_jobs(jobs)[0])
    assert (data["status"] == "ok").all(), data[data["status"] != "ok"].to_string()
    assert (data["unit"] == "ns").all() and (data["root"] == "-").all()
    assert list(data[data["op"] == "barrier"]["bytes"]) == [0]


def test_a_failing_run_becomes_rows_that_say_so():
    # Root 99 does not exist on 4 cores: the program stops with an error, the runner keeps going.
    job = Job(op="gather", algorithm="auto", ranks=4, sizes=[8, 64], iters=[1], roots=[99], chip=CHIP4)
    data = frame(run_jobs([job])[0])
    assert len(data) == 2 and data["status"].str.startswith("failed: exit").all()
    assert data["time"].isna().all()


def test_a_budget_lowers_the_iteration_count_of_slow_points_only():
    job = Job(op="bcast", algorithm="linear", ranks=16, sizes=[8, 4096], iters=[30], budget=50_000, chip=CHIP4)
    data = frame(run_jobs([job])[0])
    assert (data["status"] == "ok").all()
    iterations = dict(zip(data["bytes"], data["iterations"].astype(int)))
    assert 1 <= iterations[4096] < iterations[8] <= 30
