"""Which roster adapters report incumbents (``FitResult.trajectory``: (seconds, expression) rows),
checked on timed trajectories recorded through the real Worker (``recorded/trajectories.json``,
written by ``recorded/record_trajectories.py``) and, where a method's environment is installed,
on a fresh fit. docs/methods.md ("Incumbents") states the same classes."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from recorded.adapter_checks import evaluate, method_python, recording, toy, worker_fits
from recorded.record_trajectories import RUNS, SEED
from srbf.methods.roster import names as roster_names

# incumbents reported while the search runs, several per fit
DURING_SEARCH = ("bingo", "deap_gp", "gplearn", "operon", "pysr", "qlattice", "rils_rols")
# the package shows nothing while it runs: the result is reported once, when the fit ends
AT_THE_END = ("eggp", "flash_ansr", "jaxsr", "symregg")
NONE = ("ffx", "hroch", "itea")  # no search to report on, or no way to see it
# the last incumbent is the returned expression, character for character
ENDS_ON_THE_ANSWER = ("deap_gp", "gplearn", "operon")

RECORDED = recording("trajectories")["methods"]
DOCS = Path(__file__).resolve().parents[2] / "docs" / "methods.md"


def check_incumbents(trajectory, expression, variables, name) -> None:
    """More than one row (a method that reports only at the end sends one), their times
    increasing, every expression parsing and evaluating. How many a search takes to reach its
    answer is the package's own business: rils_rols finds this toy's formula in two."""
    X, _ = toy(0, kind="positive")
    assert len(trajectory) >= 2, f"{name}: {len(trajectory)} incumbents"
    seconds = [t for t, _ in trajectory]
    assert all(0 <= a < b for a, b in zip(seconds, seconds[1:])), f"{name}: times {seconds}"
    for _, text in trajectory:
        assert evaluate(text, variables, X).shape == (X.shape[0],)
    if name in ENDS_ON_THE_ANSWER:
        assert trajectory[-1][1] == expression


def test_the_classes_cover_known_roster_methods_once():
    classes = DURING_SEARCH + AT_THE_END + NONE
    assert len(set(classes)) == len(classes) and set(classes) <= set(roster_names())


def test_the_docs_state_the_same_classes():
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("## Incumbents") :]
    rows = dict(re.findall(r"^\| (\w+) \| (during the search|once, at the end|none)", section, re.M))
    assert {m for m, c in rows.items() if c == "during the search"} == set(DURING_SEARCH)
    assert {m for m, c in rows.items() if c == "once, at the end"} == set(AT_THE_END)
    assert {m for m, c in rows.items() if c == "none"} == set(NONE)


def test_the_recording_covers_the_methods_installed_where_it_was_made():
    assert {"deap_gp", "gplearn", "operon"} <= set(RECORDED)


@pytest.mark.parametrize("name", sorted(set(RECORDED) & set(DURING_SEARCH)))
def test_recorded_incumbents_are_timed_and_parse(name):
    case = RECORDED[name]
    check_incumbents([tuple(row) for row in case["trajectory"]], case["expression"], case["variables"], name)


@pytest.mark.parametrize("name", sorted(set(RECORDED) - set(DURING_SEARCH)))
def test_recorded_methods_without_a_live_trajectory_report_the_answer_or_nothing(name):
    case = RECORDED[name]
    expected = [case["expression"]] if name in AT_THE_END else []
    assert [text for _, text in case["trajectory"]] == expected


@pytest.mark.parametrize("name", [n for n in sorted(RUNS) if n in DURING_SEARCH])
@pytest.mark.slow
def test_a_fresh_fit_reports_timed_incumbents(name):
    python = method_python(name)
    if python is None:
        pytest.skip(f"no {name} environment ($SRBF_HOME/envs/{name} or /tmp/env-{name})")
    budget, options = RUNS[name]
    X, y = toy(0, kind="positive")
    (result,) = worker_fits(name, python, [(X, y, ("u", "v"), budget, SEED)], options=options)
    assert result.status == "ok", result.error
    check_incumbents(result.trajectory, result.expression, ("u", "v"), name)
    assert np.isfinite(evaluate(result.expression, ("u", "v"), X)).all()
