"""The public names docs/ teach carry numpydoc sections a reader can scan, and their Examples run.

Each listed name must have the sections it needs (Parameters, Returns, Raises, Examples; a class
has no Returns), and every example in its module runs here as a doctest, so an example that drifts
from the code fails the suite (after scikit-learn's doctests of its public estimators).
"""

from __future__ import annotations

import doctest
import importlib
import inspect

import pytest

PUBLIC = [
    # (module, name): what docs/ tell a user to call
    ("srbf.judge.scoring", "score"),
    ("srbf.judge.scoring", "Judge"),
    ("srbf.runs.driver", "run_config"),
    ("srbf.store.results", "ResultsStore"),
    ("srbf.stats.analysis", "analyze"),
    ("srbf.stats.paired", "paired_comparison"),
    ("srbf.stats.ranks", "friedman_nemenyi"),
    ("srbf.catalogs.loader", "load_catalog"),
    ("srbf.catalogs.sampling", "sample_problem"),
    ("srbf.expr.parser", "parse"),
    ("srbf.expr.canonical", "canonical"),
]
SLOW = {"srbf.runs.driver", "srbf.store.results", "srbf.stats.analysis"}  # their examples run a run or a full analysis
MODULES = [pytest.param(module, marks=[pytest.mark.slow] if module in SLOW else [])
           for module in sorted({module for module, _ in PUBLIC})]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def sections(doc: str) -> set[str]:
    """The numpydoc section titles of ``doc``: a line followed by a line of dashes as long."""
    lines = [line.strip() for line in inspect.cleandoc(doc).splitlines()]
    return {title for title, rule in zip(lines, lines[1:]) if title and rule == "-" * len(title)}


@pytest.mark.parametrize(("module", "name"), PUBLIC, ids=[f"{m}.{n}" for m, n in PUBLIC])
def test_a_public_name_has_the_sections_a_reader_scans(module, name):
    target = getattr(importlib.import_module(module), name)
    needed = {"Parameters", "Raises", "Examples"} | (set() if inspect.isclass(target) else {"Returns"})
    assert needed <= sections(target.__doc__ or ""), f"{module}.{name} lacks {sorted(needed - sections(target.__doc__ or ''))}"


@pytest.mark.parametrize("module", MODULES)
def test_the_examples_run(module, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an example that writes files writes them here
    tests = [test for test in doctest.DocTestFinder().find(importlib.import_module(module)) if test.examples]
    assert tests, f"{module} has no examples"
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in tests:
        runner.run(test)
    assert runner.failures == 0, f"{runner.failures} example(s) of {module} failed (the report above shows which)"
