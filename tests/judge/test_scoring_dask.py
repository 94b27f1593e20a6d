"""``srbf score --executor dask``: the scoring pass on a real LocalCluster of 2 worker processes
stores the same metrics as the local pass; chunks go out as they are planned, and the command's own
workers freeze what each chunk leaves; its flags fail in one line."""

from __future__ import annotations

import gc
import shutil
import sqlite3

import pytest

pytest.importorskip("distributed", reason="dask/distributed are not installed (the srbf[cluster] extra)")

from srbf.cli import main  # noqa: E402
from srbf.core import FitResult  # noqa: E402
from srbf.judge.scoring_dask import DaskDispatch  # noqa: E402
from srbf.judge.scoring_plan import PLAN_COLUMNS, planned  # noqa: E402
from srbf.store import ResultsStore  # noqa: E402
from test_scoring_pass import write_store  # noqa: E402


def metrics(root) -> list[tuple]:
    conn = sqlite3.connect(f"file:{root / 'srbf.sqlite'}?mode=ro", uri=True)
    try:
        return sorted(conn.execute("SELECT prediction_id, judge_version, metrics FROM metrics").fetchall())
    finally:
        conn.close()


@pytest.mark.slow
def test_dask_scores_what_the_local_pass_scores(tmp_path, capsys):
    fits = []
    for problem_id, truth in (("Nguyen-1", "x1**3 + x1**2 + x1"), ("Nguyen-5", "sin(x1**2) * cos(x1) - 1"),
                              ("Nguyen-7", "log(x1 + 1) + log(x1**2 + 1)")):  # fmt: skip
        for draw in (0, 1):
            fits += [
                ("truth", problem_id, draw, FitResult("ok", truth)),
                ("scaled", problem_id, draw, FitResult("ok", f"1.01 * ({truth})")),
                ("failed", problem_id, draw, FitResult("failed", error="boom")),
            ]
    local, dask = tmp_path / "local", tmp_path / "dask"
    write_store(local, fits)
    shutil.copytree(local, dask)
    assert main(["score", "--results", str(local), "--workers", "2", "--quiet"]) == 0
    assert main(["score", "--results", str(dask), "--executor", "dask", "--local", "2", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "18 prediction(s) scored" in out
    assert len(metrics(dask)) == 18 and metrics(dask) == metrics(local)


@pytest.mark.slow
def test_chunks_go_out_as_planned_and_local_workers_freeze_what_each_leaves(tmp_path):
    write_store(tmp_path / "r", [(method, problem_id, 0, FitResult("ok", "x1 + 1")) for method in ("a", "b")
                                 for problem_id in ("Nguyen-1", "Nguyen-2", "Nguyen-3")])  # fmt: skip
    dispatch = DaskDispatch(local=1)
    try:
        client = dispatch.cluster.client  # up: the first chunk goes out before the plan makes the next
        (frozen,) = client.run(gc.get_freeze_count).values()  # what dask_setup froze
        with ResultsStore(tmp_path / "r") as store:
            works = list(planned(store, store.prediction_rows(PLAN_COLUMNS), []))
        out = []

        def chunks():
            for work in works:
                yield [work]
                out.append(len(dispatch.pending))

        dispatch.submit(chunks(), srbench=False)
        assert out == [1, 2, 3]
        outcomes = [outcome for batch in dispatch for outcome in batch]
        assert len(outcomes) == 6 and all(metrics is not None for _, metrics, _ in outcomes)
        assert list(client.run(gc.get_freeze_count).values())[0] > frozen
    finally:
        dispatch.close()


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--scheduler", "tcp://127.0.0.1:1"], "--scheduler and --local choose a Dask cluster: add --executor dask"),
        (["--executor", "dask"], "--executor dask: give either --scheduler ADDRESS or --local N"),
        (["--executor", "dask", "--scheduler", "tcp://127.0.0.1:1"], "cannot connect to 127.0.0.1:1"),
    ],
)
def test_score_executor_flag_errors_are_one_line(tmp_path, capsys, flags, message):
    write_store(tmp_path / "r", [("truth", "Nguyen-1", 0, FitResult("ok", "x1"))])
    assert main(["score", "--results", str(tmp_path / "r"), *flags]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
