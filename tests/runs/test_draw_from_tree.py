"""``ProblemSource.draw(..., tree=)``: the scoring pass hands the sampler the shipped parsed truth
instead of letting it parse the formula; the points and hashes must be the ones a parse gives."""

from __future__ import annotations

import numpy as np
import pytest

from srbf.catalogs.admission import parse_entry
from srbf.catalogs.loader import load_catalog
from srbf.expr import parse
from srbf.runs.problems import ProblemSource

SETTINGS = [{"n_support": 64, "noise": 0.0, "n_validation": 32, "ood": False},
            {"n_support": 16, "noise": 0.05, "n_validation": 16, "ood": True}]  # fmt: skip


def draw(source, catalog, entry, settings, **extra):
    return source.draw(entry, catalog=catalog.name, catalog_version=catalog.version, seed=3, draw=1, **settings, **extra)


def same_problem(a, b):
    assert a.data_hash == b.data_hash and a.inputs_hash == b.inputs_hash
    assert a.placeholder_reason == b.placeholder_reason and a.ood_reason == b.ood_reason
    for name, array in a.arrays.items():
        assert array.tobytes() == b.arrays[name].tobytes(), name


@pytest.mark.parametrize("name", ["feynman", "erbench-syneq", "livermore2", "srsd-dummy"])
@pytest.mark.parametrize("settings", SETTINGS)
def test_a_tree_given_draws_the_points_a_parse_draws(name, settings):
    catalog = load_catalog(name)
    for entry in catalog.entries[::40]:
        parsed = draw(ProblemSource(), catalog, entry, settings)
        given = draw(ProblemSource(), catalog, entry, settings, tree=parse_entry(entry))
        same_problem(given, parsed)


def test_a_tree_that_does_not_compile_is_left_to_the_sampler():
    catalog = load_catalog("feynman")
    entry = catalog.entries[0]
    stranger = parse("zz_not_a_column + 1", ["zz_not_a_column"])
    given = draw(ProblemSource(), catalog, entry, SETTINGS[0], tree=stranger)
    same_problem(given, draw(ProblemSource(), catalog, entry, SETTINGS[0]))
    assert np.isfinite(given.y_support).all()
