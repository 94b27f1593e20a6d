"""Whether a draw gives up, and the reason it gives, depend on the key and the budget alone: not on
the valid fraction the process saw before (which sizes the first round) nor on the round cap."""

from __future__ import annotations

import numpy as np
import pytest

from srbf.catalogs import draws, sampling
from srbf.catalogs.draws import Shortfall, Stream, fill, plan_for
from srbf.catalogs.model import CatalogEntry, VariableSpec
from srbf.catalogs.sampling import ProblemSampler, compile_entry, draw_inputs, stream_generator

X01 = (VariableSpec("x", 0.0, 1.0),)
NEED, FLOOR = 50, 0.25  # a budget of 200 points
BUDGET = 200
PRIORS = (1.0, 0.6, 0.3, FLOOR)  # what earlier draws of the formula may have taught the process


def entry(formula: str) -> CatalogEntry:
    return CatalogEntry(id="p1", formula=formula, variables=X01)


def first_budget(name: str) -> np.ndarray:
    """x of the stream's first BUDGET points, drawn in one go."""
    return draw_inputs(X01, BUDGET, stream_generator("toy", 1, "p1", 7, 0, name))[:, 0]


def fill_support(formula: str, prior: float, *more: Stream) -> Stream:
    stream = Stream("support", stream_generator("toy", 1, "p1", 7, 0, "support"), NEED, prior, FLOOR)
    fill([stream, *more], plan_for(X01), compile_entry(entry(formula)), FLOOR, None)
    return stream


@pytest.mark.parametrize("max_rounds", [1, 2, 8])
def test_a_stream_succeeds_iff_its_first_budget_points_hold_enough(monkeypatch, max_rounds):
    monkeypatch.setattr(draws, "MAX_ROUNDS", max_rounds)
    xs = first_budget("support")
    top = np.sort(xs)[::-1]
    enough = float(top[NEED - 1] + top[NEED]) / 2  # sqrt(x - c) is finite on exactly NEED of them
    short = float(top[NEED - 2] + top[NEED - 1]) / 2  # on NEED - 1: just below NEED / BUDGET
    for prior in PRIORS:
        X, _ = fill_support(f"sqrt(x - {enough!r})", prior).result()
        np.testing.assert_array_equal(X[:, 0], xs[xs > enough])  # the first NEED valid rows
        with pytest.raises(Shortfall) as info:
            fill_support(f"sqrt(x - {short!r})", prior)
        assert str(info.value) == (
            f"support: only {NEED - 1} of {BUDGET} points drawn with a finite target; {NEED} needed "
            f"(the budget of {BUDGET} points allows a valid fraction down to 0.25)"
        )


def test_the_first_stream_in_order_to_run_out_is_the_one_reported():
    formula = "sqrt(x - 0.9)"  # 10 % valid: both streams run out
    valid = np.count_nonzero(first_budget("support") >= 0.9)
    for support_prior, validation_prior in [(1.0, FLOOR), (FLOOR, 1.0)]:  # either stream runs out first
        validation = Stream("validation", stream_generator("toy", 1, "p1", 7, 0, "validation"), NEED,
                            validation_prior, FLOOR)  # fmt: skip
        with pytest.raises(Shortfall, match=f"^support: only {valid} of {BUDGET} points"):
            fill_support(formula, support_prior, validation)


@pytest.mark.parametrize(
    "formula, ood",
    [
        ("sqrt(x - 0.995)", False),  # 0.5 % valid, under the 1 % floor: a placeholder
        ("log(x - 0.993)", False),
        ("sqrt(1.002 - x)", True),  # valid on all of [0, 1], on 0.4 % of the widened part (1, 1.5]
    ],
)
def test_a_reason_does_not_depend_on_what_the_process_drew_before(monkeypatch, formula, ood):
    monkeypatch.setattr(sampling, "_KERNELS", {})  # this formula's kernel is fresh
    e = entry(formula)
    fresh = ProblemSampler(e, catalog="toy", catalog_version=1).sample(seed=5, ood=ood)
    reason = fresh.ood_reason if ood else fresh.placeholder_reason
    assert reason is not None and "round" not in reason and "of 51200 points drawn" in reason
    sampler = ProblemSampler(e, catalog="toy", catalog_version=1)
    for seed in range(3):  # warms the kernel: it learns the formula's valid fractions
        sampler.sample(seed=seed, ood=ood)
    for prior in (None, 1.0, 0.5, 0.01):  # and any other history
        if prior is not None:
            sampler._kernel.valid = sampler._kernel.valid_ood = prior
        again = sampler.sample(seed=5, ood=ood)
        assert (again.placeholder_reason, again.ood_reason) == (fresh.placeholder_reason, fresh.ood_reason)
        assert again.data_hash == fresh.data_hash
