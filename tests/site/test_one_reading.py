"""One reading everywhere: on one store, the report's tables (``srbf analyze``), ``srbf compare
--json`` and the explorer's data file (``srbf site build``) give the same verdict for every pair,
metric and mark, read where the same rule says (docs/report.md, "Where values are read").

Two real stores: the demo's (``make demo``'s config, run into a temporary folder) and one with a
max-tested method and an ablation pair (one method file, two option sets), read as the data
chooses and at time marks asked for."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest
import yaml
from site_helpers import run_cli

from srbf.report import read_table
from srbf.site.build import read_data

pytestmark = pytest.mark.slow

# Least squares on the first `budget` inputs, its coefficients scaled by the option `scale` (the
# ablation), taking budget * 40 ms so that its ladder spans time marks and `linear` (instant) is max tested there.
SLOW_SCALED = """
import time
import numpy as np

def fit(X, y, *, budget, seed, variables, options, report):
    time.sleep(0.04 * budget)
    k = max(1, min(X.shape[1], int(budget)))
    w = np.linalg.lstsq(np.c_[X[:, :k], np.ones(len(y))], y, rcond=None)[0] * float(options.get("scale", 1.0))
    return {"expression": " + ".join(f"{v}*{float(c)!r}" for v, c in zip(variables[:k], w)) + f" + {float(w[-1])!r}"}
"""


def _run_and_score(config: dict, folder: Path) -> Path:
    config["results"] = str(folder / "results")
    (folder / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    for argv in (("run", "-c", str(folder / "config.yaml"), "--quiet"), ("score", "--results", config["results"])):
        code, out, err = run_cli(*argv)
        assert code == 0, out + err
    return Path(config["results"])


@pytest.fixture(scope="module")
def ablation_store(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("ablation")
    (folder / "scaled.py").write_text(SLOW_SCALED)
    adapter = {"type": "file", "path": str(folder / "scaled.py")}
    return _run_and_score({
        "experiment": "ablation", "catalogs": ["feynman"], "limit": 4, "seed": 0, "workers": 2,
        "sampling": {"n_support": 64, "n_validation": 64, "draws": 2}, "budgets": [1, 2, 4],
        "methods": [
            {"name": "full", "adapter": adapter, "options": {"scale": 1.0}},
            {"name": "shrunk", "adapter": adapter, "options": {"scale": 0.9}},  # the ablation of `full`
            {"name": "linear", "budgets": [1]},
        ],
    }, folder)


def _deap_installed() -> bool:
    from srbf.methods.envs import env_python

    try:
        return Path(env_python("deap_gp")).is_file()
    except Exception:  # noqa: BLE001 - not installed, in whatever way the lookup says so
        return False


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory) -> Path:
    from srbf.runs.shipped import CONFIGS_DIR

    if not _deap_installed():
        pytest.skip("the demo needs the deap_gp environment: srbf methods install deap_gp")
    config = yaml.safe_load((CONFIGS_DIR / "demo.yaml").read_text())
    return _run_and_score(config, tmp_path_factory.mktemp("demo"))


def _key(metric, axis, time, budget, a, b):
    place = time if axis == "time" else budget if axis == "budget" else None
    return (metric, axis, None if place is None or (isinstance(place, float) and math.isnan(place)) else float(place),
            a, b)


def _number(value):
    return float("nan") if value in (None, "NaN") else float(value)


def three_readings(store: Path, out: Path, reading: list[str]) -> tuple[dict, dict, dict, dict]:
    """Verdicts keyed by (metric, axis, place, A, B), A < B: of the report, of compare --json, of the site."""
    import json

    code, printed, err = run_cli("analyze", "--results", str(store), "-o", str(out / "report"), *reading)
    assert code == 0, printed + err
    said = [line for line in err.splitlines() if line.startswith("srbf: reading at")]
    assert len(said) == 1  # the one line saying where, and why
    report = read_table(out / "report" / "tables" / "comparisons.csv")
    from_report = {_key(r.metric, r.axis, r.time, r.budget, r.method_a, r.method_b): r.verdict
                   for r in report.itertuples()}

    code, printed, err = run_cli("site", "build", "--results", str(store), "-o", str(out / "site"), *reading)
    assert code == 0, printed + err
    assert [line for line in err.splitlines() if line.startswith("srbf: reading at")] == said  # the same reading
    scope = read_data(out / "site" / "data" / "c0-s0.js")
    cells = read_data(out / "site" / "data" / "c0-s0-paired.js")["cells"]
    ours = {(m["axis"], None if m["axis"] != "time" else float(m["x"])) for m in scope["marks"] if m["reading"] == "report"}
    from_site = {}
    for row in (dict(zip(cells["columns"], r)) for r in cells["data"]):
        key = _key(row["metric"], row["axis"], _number(row["time"]), _number(row["budget"]), row["method_a"],
                   row["method_b"])
        if row["method_a"] < row["method_b"] and ((key[1], key[2]) in ours or row["same_configuration"]):
            from_site[key] = row["verdict"]

    from_compare = {}
    methods = sorted({r.method_a for r in report.itertuples()} | {r.method_b for r in report.itertuples()})
    for a, b in itertools.combinations(methods, 2):
        code, printed, err = run_cli("compare", a, b, "--results", str(store), "--json", *reading)
        assert code == 0, printed + err
        for r in json.loads(printed):
            from_compare[_key(r["metric"], r["axis"], r["time"], r["budget"], a, b)] = r["verdict"]
        assert [line for line in err.splitlines() if line.startswith("srbf: reading at")] == said
    return from_report, from_compare, from_site, scope


def _assert_identical(from_report, from_compare, from_site):
    assert from_report and set(from_report) == set(from_compare) == set(from_site)
    for key, verdict in from_report.items():
        assert from_compare[key] == verdict == from_site[key], key


def test_the_demo_store_reads_one_answer_everywhere(demo_store, tmp_path):
    from_report, from_compare, from_site, scope = three_readings(demo_store, tmp_path, [])
    _assert_identical(from_report, from_compare, from_site)
    # the demo's fits end far below 1 s: the data chooses each method's largest budget, and says why
    assert scope["reading"]["axis"] == "max_budget" and scope["reading"]["chosen"] == "data"
    assert "no time mark among 1, 10, 100, 1000 s" in scope["reading"]["reason"]
    assert {m["axis"] for m in scope["marks"]} == {"max_budget", "time"}  # the page offers both readings
    assert ("nrr_validation", "max_budget", None, "deap_gp", "linear") in from_report


def test_an_ablation_pair_reads_at_one_configuration_and_a_max_tested_method_at_time(ablation_store, tmp_path):
    for name, reading in (("chosen", []), ("timed", ["--at-seconds", "0.06", "--at-seconds", "0.1"])):
        from_report, from_compare, from_site, scope = three_readings(ablation_store, tmp_path / name, reading)
        _assert_identical(from_report, from_compare, from_site)
        same = {k for k in from_report if {k[3], k[4]} == {"full", "shrunk"}}
        assert same and {k[1] for k in same} == {"budget"}  # the ablation: at budgets 1, 2 and 4, whatever the reading
        assert {k[2] for k in same} == {1.0, 2.0, 4.0}
        others = set(from_report) - same
        assert others and {k[1] for k in others} == ({"max_budget"} if name == "chosen" else {"time"})
    # at the time marks `linear` (instant) is max tested, and its verdicts say so where it matters
    report = read_table(tmp_path / "timed" / "report" / "tables" / "comparisons.csv")
    timed = report[report["axis"] == "time"]
    assert (timed.loc[timed["method_a"] == "linear", "status_a"] == "max_tested").all()
    assert timed["decided_by"].str.contains("interval|identical|overturn").all()


def test_an_unknown_reading_is_one_line(ablation_store, tmp_path):
    for command in (("compare", "full", "linear"), ("site", "build", "-o", str(tmp_path / "s"))):
        code, out, err = run_cli(*command, "--results", str(ablation_store), "--at-budget", "max", "--at-seconds", "1")
        assert code == 2 and err.count("\n") == 1 and "exclude each other" in err, err
