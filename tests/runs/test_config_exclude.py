"""A run config's ``exclude``: problems a training source does not hold out are dropped and listed."""

from __future__ import annotations

import pytest
import yaml

from srbf.runs.config import ConfigError, config_from_dict, load_config
from srbf.runs.driver import run_config
from srbf.runs.plan import make_plan

from driver_helpers import rows

BASE = {"experiment": "x", "catalogs": "nguyen", "method": "linear"}


def training_file(tmp_path, formulas):
    path = tmp_path / "training.yaml"
    path.write_text(yaml.safe_dump({"problems": [{"id": f"t{i}", "formula": f} for i, f in enumerate(formulas)]}))
    return path


def test_excluded_problems_leave_the_plan_and_are_listed(tmp_path):
    training = training_file(tmp_path, ["sin(a) + sin(b**2)", "sqrt(z)"])  # Nguyen-9 and Nguyen-8, renamed
    config = config_from_dict({**BASE, "exclude": [str(training)]})
    plan = make_plan(config)
    assert sorted(plan.excluded["nguyen"]) == ["Nguyen-8", "Nguyen-9"]
    run_ids = {fit.key.problem_id for fit in plan.fits}
    assert len(run_ids) == 10 and not run_ids & {"Nguyen-8", "Nguyen-9"}
    assert config.to_dict()["exclude"] == [str(training)]


@pytest.mark.slow
def test_a_run_logs_what_it_dropped(tmp_path):
    training = training_file(tmp_path, ["sqrt(z)"])
    config_file = tmp_path / "run.yaml"
    config_file.write_text(yaml.safe_dump({**BASE, "exclude": "training.yaml", "problems": ["Nguyen-8", "Nguyen-1"],
                                           "budgets": [1], "results": str(tmp_path / "results"),
                                           "sampling": {"n_support": 32, "n_validation": 16, "draws": 1}}))
    lines = []
    summary = run_config(load_config(config_file), progress=False, log=lines.append)
    assert summary.recorded == 1
    assert "exclude: 1 problem(s) of nguyen not run: Nguyen-8" in lines
    assert {row[2] for row in rows(tmp_path / "results")} == {"Nguyen-1"}
    assert training.is_file()


def test_no_exclude_keeps_the_stored_text():
    assert "exclude" not in config_from_dict(BASE).to_dict()
    assert make_plan(config_from_dict(BASE)).excluded == {}


@pytest.mark.parametrize("value, message", [
    (["nguyenn"], "exclude[0]: unknown catalog 'nguyenn'"),
    ("missing.yaml", "exclude: no such training file"),
    ([3], "exclude[0]: must be a catalog name or a path to a training file, got 3"),
])
def test_a_bad_exclude_names_the_field(value, message):
    with pytest.raises(ConfigError) as caught:
        config_from_dict({**BASE, "exclude": value}, "q.yaml")
    assert message in str(caught.value)
