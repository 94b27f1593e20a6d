"""Label noise (``sampling: {noise: [...]}``) as SymbolicArena's robustness conditions ask: it
perturbs the training (support) targets a method receives and nothing else; the ID (validation)
and OOD points a fit is judged on stay clean, and the repeats of a fit share its noisy targets."""

from __future__ import annotations

import numpy as np
import pytest

from srbf.expr import compile_expr, parse
from srbf.judge import Judge
from srbf.runs.config import config_from_dict
from srbf.runs.plan import make_plan
from srbf.runs.problems import ProblemSource, fit_order

LEVELS = (0.0, 0.01, 0.05)


def truth_values(entry, X) -> np.ndarray:
    """The formula on ``X`` by srbf's evaluator, apart from the sampler."""
    names = list(entry.variable_names)
    with np.errstate(all="ignore"):
        return np.broadcast_to(compile_expr(parse(entry.formula, names), names)(X), (X.shape[0],))


@pytest.fixture(scope="module")
def drawn():
    """Every fit of a noisy run with OOD points and two repeats: its task and its sampled problem."""
    config = config_from_dict({
        "experiment": "noise", "catalogs": ["nguyen", "keijzer"], "problems": ["Nguyen-5", "Keijzer-4"],
        "method": "linear", "budgets": [1], "repeats": 2,
        "sampling": {"n_support": 4096, "n_validation": 256, "draws": 1, "noise": list(LEVELS), "ood": True},
    })  # fmt: skip
    source = ProblemSource(config)
    return [(fit, source.prepare(fit_order(fit, config)), source.problem(fit)) for fit in make_plan(config).fits]


def test_the_method_receives_the_noisy_support_targets(drawn):
    for fit, task, problem in drawn:
        assert np.array_equal(task.y, problem.y_support) and np.array_equal(task.X, problem.X_support)
        assert problem.noise == fit.condition.noise


def test_noise_moves_only_the_support_targets_by_sigma_times_their_spread(drawn):
    by_problem: dict[str, dict[float, object]] = {}
    for fit, _, problem in drawn:
        by_problem.setdefault(fit.key.problem_id, {})[fit.condition.noise] = (fit.entry, problem)
    assert len(by_problem) == 2
    for levels in by_problem.values():
        entry, clean = levels[0.0]
        np.testing.assert_allclose(clean.y_support, truth_values(entry, clean.X_support), rtol=1e-12)
        for sigma in LEVELS[1:]:
            _, noisy = levels[sigma]
            for name in ("X_support", "X_validation", "y_validation", "X_ood", "y_ood"):
                assert np.array_equal(getattr(noisy, name), getattr(clean, name)), name
            residual = noisy.y_support - clean.y_support
            ratio = residual.std() / clean.y_support.std()
            assert 0.95 * sigma < ratio < 1.05 * sigma, (sigma, ratio)  # 4096 points: about 1 % error
        for problem in (p for _, p in levels.values()):  # the judged points are the formula's own
            np.testing.assert_allclose(problem.y_validation, truth_values(entry, problem.X_validation), rtol=1e-12)
            np.testing.assert_allclose(problem.y_ood, truth_values(entry, problem.X_ood), rtol=1e-12)


def test_repeats_of_a_noisy_fit_share_its_noisy_targets(drawn):
    tasks: dict[tuple, list] = {}
    for fit, task, _ in drawn:
        tasks.setdefault((fit.key.problem_id, fit.key.condition), []).append(task)
    for repeats in tasks.values():
        first, second = repeats
        assert first.key.repeat == 0 and second.key.repeat == 1
        assert np.array_equal(first.y, second.y) and first.data_hash == second.data_hash


def test_the_judge_scores_a_noisy_fit_on_clean_points(drawn):
    """The true formula fits the noisy support only up to the noise, the clean validation exactly."""
    for fit, _, problem in drawn:
        if fit.key.repeat:
            continue
        record = Judge(fit.entry.formula, problem, variables=fit.entry.variable_names).score(fit.entry.formula)
        assert record["fvu_validation"] == pytest.approx(0.0, abs=1e-20)
        sigma = fit.condition.noise
        # noise of sigma * std(y) leaves a fraction of about sigma**2 of the support variance unexplained
        assert record["fvu_support"] == pytest.approx(sigma**2, rel=0.1, abs=1e-20)
