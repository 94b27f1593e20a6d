"""srbf's reference GP on DEAP: its conversion checked on programs recorded with DEAP 1.4 (no DEAP
needed), its options and config, and real runs through the Worker when its environment exists
(``srbf methods install deap_gp``, or a development venv at /tmp/env-deap_gp)."""

from __future__ import annotations

import numpy as np
import pytest

from recorded.adapter_checks import adapter, cases, evaluate, method_python, r2, toy, worker_fits

NAME = "deap_gp"
dg = adapter(NAME)
CASES = cases(NAME)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_conversion_is_what_the_adapter_recorded(case):
    assert dg.to_infix(case["raw"], case["variables"]) == case["expression"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_own_evaluator_is_srbfs(case):
    X = np.asarray(case["X"])
    ours = dg.evaluate(case["raw"], X)
    assert np.allclose(ours, evaluate(case["expression"], case["variables"], X), rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_trajectory_is_the_best_so_far_and_never_worse(case):
    trajectory = case["trajectory"]
    assert len(trajectory) == case["budget"] + 1  # the initial population and every generation
    assert trajectory[-1] == case["expression"]
    X, y = np.asarray(case["X"]), np.asarray(case["y"])
    errors = []
    for expression in trajectory:
        with np.errstate(all="ignore"):
            errors.append(float(np.mean((evaluate(expression, case["variables"], X) - y) ** 2)))
    assert all(b <= a + 1e-12 for a, b in zip(errors, errors[1:]))  # elitism: the best is kept


def test_every_kernel_matches_srbfs_operator():
    from srbf.expr.operators import OPERATORS

    rng = np.random.default_rng(0)
    a, b = rng.uniform(0.1, 0.9, 16), rng.uniform(0.1, 0.9, 16)
    for name, (arity, kernel) in dg.KERNELS.items():
        args = (a, b)[:arity]
        assert np.allclose(kernel(*args), OPERATORS[name].kernel(*args), rtol=1e-15), name
        tokens = [name] + list(range(arity))
        expression = dg.to_infix(tokens, ["a", "b"])
        assert np.allclose(evaluate(expression, ["a", "b"], np.column_stack([a, b])), kernel(*args)), name


def test_options_over_defaults_and_the_relations_between_them():
    """Each option alone is checked against method.yaml when a config is loaded (test_options.py);
    the adapter fills the defaults and refuses what only two options together can break."""
    assert dg.resolved_options({})["population_size"] == 300
    assert dg.resolved_options({"unary": ["sin", "sin"]})["unary"] == ["sin"]
    with pytest.raises(ValueError, match="elitism"):
        dg.resolved_options({"elitism": 300})
    with pytest.raises(ValueError, match="low <= high"):
        dg.resolved_options({"init_depth": [3, 1]})
    assert dg.generations(None) == 40 and dg.generations(0) == 0
    with pytest.raises(ValueError, match="generations"):
        dg.generations(1.5)


def test_pareto_front_keeps_only_undominated_programs():
    entries = [(1.0, 3, "a"), (0.5, 5, "b"), (0.7, 7, "c"), (0.1, 9, "d"), (2.0, 1, "e")]
    assert [f["expression"] for f in dg._pareto(entries)] == ["e", "a", "b", "d"]


# --- the real package ----------------------------------------------------------------------------

PYTHON = method_python(NAME)
needs_env = pytest.mark.skipif(PYTHON is None, reason="no DEAP environment ($SRBF_HOME/envs/deap_gp or /tmp/env-deap_gp)")


@needs_env
@pytest.mark.slow
def test_real_fits_through_the_worker():
    X, y = toy(0)
    problems = [(X, y, ("u", "v"), 10, 3), (X, y, ("u", "v"), 10, 3), (X, y, ("u", "v"), 0, 3)]
    first, again, initial = worker_fits(NAME, PYTHON, problems)
    for result in (first, again, initial):
        assert result.status == "ok", result.error
    assert first.expression == again.expression  # the seed fixes the run
    assert len(first.trajectory) >= 1 and first.trajectory[-1][1] == first.expression
    assert len(initial.trajectory) == 1 and len(initial.internals["logbook"]) == 1
    internals = first.internals
    assert [entry["gen"] for entry in internals["logbook"]] == list(range(11))
    assert internals["size_limit"] == {"max_height": 17}
    assert internals["front"] and all(np.isfinite(f["loss"]) for f in internals["front"])
    assert r2(first.expression, ("u", "v"), X, y) > 0.5
