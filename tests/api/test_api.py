"""srbf.evaluate and srbf.open against the commands: the same stored metrics as ``srbf run`` of an
SRBench folder, and the same leaderboard and verdicts as ``srbf analyze`` and ``srbf compare``."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import threading
import textwrap
from pathlib import Path

import pandas as pd
import pytest

import srbf
from srbf.api import EstimatorError
from srbf.store.csv_cells import write_csv

pytest.importorskip("sklearn")
from sklearn.linear_model import LinearRegression  # noqa: E402

RUN = {"sets": ["feynman"], "limit": 3, "draws": 1, "workers": 2, "progress": False}
TIME_COLUMNS = {"seconds", "wall_seconds", "cpu_seconds", "method_seconds", "prediction_id", "experiment",
                "config_hash", "adapter", "seed", "method", "method_name", "budget_knob"}  # what ran where, not scores


def linear_formula(est):
    """LinearRegression's fitted formula, every coefficient in full."""
    terms = [f"({float(c)!r})*{name}" for c, name in zip(est.coef_, est.feature_names_in_)]
    return " + ".join([repr(float(est.intercept_)), *terms])


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "srbf", *args], capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    """One store: LinearRegression as "ols" (with, then without intercept: two configurations) beside linear."""
    root = tmp_path_factory.mktemp("api") / "results"
    srbf.evaluate(LinearRegression(fit_intercept=False), formula=linear_formula, name="ols", results=root, **RUN)
    res = srbf.evaluate(LinearRegression(), formula=linear_formula, name="ols", baselines=["linear"], results=root,
                        **RUN)
    return root, res


def _scored(frame: pd.DataFrame) -> pd.DataFrame:
    keep = [c for c in frame.columns if c not in TIME_COLUMNS]
    return frame[keep].sort_values(["catalog", "problem_id", "draw", "budget"]).reset_index(drop=True)


def test_evaluate_stores_what_srbf_run_of_an_srbench_folder_stores(evaluated, tmp_path):
    root, res = evaluated
    folder = tmp_path / "ols"
    folder.mkdir()
    (folder / "regressor.py").write_text(textwrap.dedent('''
        from sklearn.linear_model import LinearRegression

        est = LinearRegression()


        def model(est, X=None):
            terms = [f"({float(c)!r})*{name}" for c, name in zip(est.coef_, est.feature_names_in_)]
            return " + ".join([repr(float(est.intercept_)), *terms])
    '''))
    config = tmp_path / "run.yaml"
    config.write_text(f"experiment: folder\ncatalogs: [feynman]\nlimit: 3\nsampling: {{draws: 1}}\nbudgets: [1]\n"
                      f"methods:\n  - name: ols\n    adapter: {{type: srbench, path: {folder}}}\n"
                      f"    python: {sys.executable}\nresults: {tmp_path / 'folder-results'}\n")
    for args in (("run", "-c", str(config), "--quiet"), ("score", "--results", str(tmp_path / "folder-results"))):
        done = cli(*args)
        assert done.returncode == 0, done.stderr
    via_run = srbf.open(tmp_path / "folder-results").metrics()
    via_api = res.where(method="ols").metrics()
    assert len(via_api) == 3 and (via_api["status"] == "ok").all()
    assert via_api["expression"].str.contains(r"\*").all()  # the formula of the fit, not a constant
    assert (via_api["success"] == 1).all() and via_api["log10_fvu_validation"].notna().all()  # parsed and judged
    pd.testing.assert_frame_equal(_scored(via_api), _scored(via_run), check_dtype=False, check_exact=True)


def test_latest_reading_equals_the_commands_default(evaluated, tmp_path):
    root, res = evaluated
    assert {c["method"] for c in res.summary()["configurations"]} >= {"ols", "linear"}
    assert len([c for c in res.summary()["configurations"] if not c["read"]]) == 1  # the older ols, set aside
    latest = res.where(configs="latest")
    done = cli("analyze", "--results", str(root), "-o", str(tmp_path / "report"))
    assert done.returncode == 0, done.stderr
    write_csv(latest.leaderboard(), tmp_path / "leaderboard.csv")  # as the report writes its tables
    written = (tmp_path / "report" / "tables" / "leaderboard.csv").read_text()
    assert (tmp_path / "leaderboard.csv").read_text() == written
    done = cli("compare", "ols", "linear", "--results", str(root), "--json")
    assert done.returncode == 0, done.stderr
    records = pd.DataFrame(json.loads(done.stdout))
    verdicts = latest.compare("ols", "linear")
    assert list(verdicts["verdict"]) == list(records["verdict"])
    assert verdicts["delta"].to_numpy() == pytest.approx(records["delta"].to_numpy(dtype=float), nan_ok=True)
    every = res.where(configs="all").metrics()
    assert sorted(every["method"].unique())[-1].startswith("ols@")  # the older configuration, under its hash


def test_where_narrows_and_names_what_it_cannot_find(evaluated):
    _, res = evaluated
    assert set(res.where(method="linear").fits()["method"]) == {"linear"}
    with pytest.raises(ValueError, match=r"where\(method=...\): 'nope' not in the results read"):
        res.where(method="nope").metrics()
    assert "<b>srbf results</b>" in res._repr_html_()


class Unpicklable(LinearRegression):
    def __init__(self, fit_intercept=True):
        super().__init__(fit_intercept=fit_intercept)
        self.lock = threading.Lock()

    def model(self):
        return "0"


def test_an_estimator_that_does_not_pickle_is_refused_before_any_fit(tmp_path):
    with pytest.raises(EstimatorError, match="cannot be sent to a worker process, it does not pickle"):
        srbf.evaluate(Unpicklable(), results=tmp_path / "r", **RUN)
    assert not (tmp_path / "r" / "srbf.sqlite").exists()
    with pytest.raises(EstimatorError, match="cannot give its formula"):
        srbf.evaluate(LinearRegression(), results=tmp_path / "r", **RUN)


def test_import_srbf_is_light_and_ships_type_hints():
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", "import srbf"], capture_output=True, text=True)
    own = [line for line in out.stderr.splitlines() if line.rstrip().endswith(("srbf",)) or "srbf." in line]
    micros = sum(int(line.split("|")[1]) for line in own)  # self time of srbf's own modules
    assert micros < 30_000, out.stderr
    assert "srbf.api" not in out.stderr and "pandas" not in out.stderr
    assert (Path(srbf.__file__).parent / "py.typed").is_file()
    assert srbf.open is srbf.api.open_results and "evaluate" in dir(srbf)


def test_ranks_report_and_site_are_the_commands(evaluated, tmp_path):
    root, res = evaluated
    done = cli("ranks", "--results", str(root), "--json")
    assert done.returncode == 0, done.stderr
    marks = json.loads(done.stdout)["marks"]
    ranks = res.ranks()
    assert list(ranks["mean_rank"]) == [m["mean_rank"] for mark in marks for m in mark["methods"]]
    assert list(ranks["method"]) == [m["method"] for mark in marks for m in mark["methods"]]
    report = res.report(tmp_path / "report", at_budget="max")
    assert report.index.is_file() and (tmp_path / "report" / "tables" / "leaderboard.csv").is_file()
    write_csv(res.leaderboard(at_budget="max"), tmp_path / "board.csv")
    assert (tmp_path / "board.csv").read_text() == (tmp_path / "report" / "tables" / "leaderboard.csv").read_text()
    site = res.where(method=["ols", "linear"]).site(tmp_path / "site")
    assert site.index.is_file()


def test_open_reads_the_store_a_config_names(evaluated, tmp_path):
    root, _ = evaluated
    config = tmp_path / "c.yaml"
    config.write_text(f"results: {root}\n")
    assert srbf.open(config).root == str(root)
    with pytest.raises(ValueError, match="no results store at"):
        srbf.open(tmp_path / "nothing")
    fits = srbf.open(root).where(configs="all").fits()
    assert len(fits) == 9 and set(fits["status"]) == {"ok"}  # 3 problems x (ols twice, linear)


def test_a_store_of_two_conditions_is_analysed_one_at_a_time(tmp_path):
    one = {**RUN, "limit": 2, "results": tmp_path / "r", "name": "ols", "formula": linear_formula}
    srbf.evaluate(LinearRegression(), noise=0.0, **one)
    res = srbf.evaluate(LinearRegression(), noise=0.01, **one)
    assert len(res.metrics()) == 4 and res.metrics()["condition"].nunique() == 2
    with pytest.raises(ValueError, match=r"2 data conditions .*choose one with \.where\(condition=\.\.\.\)"):
        res.leaderboard()
    board = res.where(condition="n_support=512;noise=0.01").leaderboard()
    assert set(board["method"]) == {"ols"}
    assert len(res.where(condition="n_support=512;noise=0").fits()) == 2
