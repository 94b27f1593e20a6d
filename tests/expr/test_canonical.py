"""Canonical form and masking: idempotent, value-preserving, monotone; the cases the judge relies on."""

import math
import os
import subprocess
import sys
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from srbf.expr import (
    LEVELS,
    MASK,
    OPERATORS,
    Call,
    Const,
    Num,
    Var,
    canonical,
    canonicalize,
    compile_expr,
    mask,
    parse,
    raw_skeleton,
    to_infix,
    to_prefix,
)
from srbf.expr.canonical import cache_info, clear_cache
from srbf.expr.masking import drop_zeros, raw_skeletons
from srbf.expr.tree import walk

NAMES = ["x0", "x1", "x2"]
UNARY = [o.name for o in OPERATORS.values() if o.arity == 1]
BINARY = [o.name for o in OPERATORS.values() if o.arity == 2]


def _trees(numbers, max_leaves=20, binary_ops=BINARY):
    leaves = st.one_of(numbers, st.sampled_from(NAMES).map(Var), st.sampled_from(["pi", "e"]).map(Const))

    def extend(children):
        unary = st.builds(lambda op, a: Call(op, (a,)), st.sampled_from(UNARY), children)
        binary = st.builds(lambda op, a, b: Call(op, (a, b)), st.sampled_from(binary_ops), children, children)
        return st.one_of(unary, binary, binary)  # binary twice: sums and products are the interesting part

    return st.recursive(leaves, extend, max_leaves=max_leaves)


# every float, including inf, nan and -0.0: canonicalisation must never crash on them
any_trees = _trees(st.floats(allow_nan=True, allow_infinity=True, width=64).map(Num))
# small, friendly numbers (many repeats, so like terms and like factors meet often)
SMALL = [0.0, 0.5, 1.0, 2.0, 3.0, -1.0, -2.0, 1.5, 0.25, 1 / 3]
small_trees = _trees(st.sampled_from(SMALL).map(Num))
# atan2 is the one finite function that tells 0.0 from -0.0 (atan2(0, -0.0) is pi); the canonical
# form, written for real numbers, does not keep the sign of zero, so the value test leaves it out
value_trees = _trees(st.sampled_from(SMALL).map(Num), binary_ops=[op for op in BINARY if op != "atan2"])

C = lambda text: canonical(parse(text, NAMES))  # noqa: E731


def P(text):
    return " ".join(to_prefix(C(text)))


# --- properties ---------------------------------------------------------------------------------


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_trees)
@pytest.mark.slow
def test_canonical_form_is_idempotent_and_complete(tree):
    form = canonicalize(tree)
    assert form.complete
    again = canonicalize(form.expr)
    assert again.expr == form.expr, f"{to_prefix(form.expr)} -> {to_prefix(again.expr)}"


@settings(max_examples=400, deadline=None)
@given(any_trees)
@pytest.mark.slow
def test_canonical_trees_use_only_canonical_operators(tree):
    expr = canonical(tree)
    for node in walk(expr):
        assert not isinstance(node, Const)  # pi and e are numbers in the canonical form
        if isinstance(node, Num):
            assert not (node.value == 0 and math.copysign(1, node.value) < 0)
        if isinstance(node, Call):
            assert node.op not in {"sub", "div", "neg", "inv", "sqrt", "cbrt", "square", "cube", "log10", "log2"}
            if node.op in ("add", "mul"):
                assert len(node.args) >= 2
                assert all(not (isinstance(a, Call) and a.op == node.op) for a in node.args)
                assert sum(isinstance(a, Num) for a in node.args) <= 1
                assert not isinstance(node.args[-1], Num) or len(node.args) == 1
            if node.op == "pow":
                assert not isinstance(node.args[0], Num) or not isinstance(node.args[1], Num)


def _intermediate_scale(tree, X):
    """The largest finite magnitude any subtree reaches at each point: the scale of rounding error."""
    scale = np.ones(X.shape[0])
    for node in walk(tree):
        with np.errstate(all="ignore"):
            values = np.abs(compile_expr(node, NAMES)(X))
        scale = np.fmax(scale, np.where(np.isfinite(values), values, 0.0))
    return scale


# Where a function's slope is unbounded (acos at 1, sqrt at 0, ...), one rounding of its argument
# moves its value by about the square root of an ulp, which no scale bounds: acos(x1*(1/x1)) is
# 1.5e-8 where x1*(1/x1) rounds to 1 - 2**-53, and its canonical form acos(1) is 0.
BRANCH_POINTS = {"acos": (-1.0, 1.0), "asin": (-1.0, 1.0), "acosh": (1.0,), "sqrt": (0.0,), "cbrt": (0.0,),
                 "pow": (0.0,)}


def _near_branch_points(tree, X):
    """The points where some subtree's argument lies within 1e-6 of its function's branch point."""
    near = np.zeros(X.shape[0], dtype=bool)
    for node in walk(tree):
        if isinstance(node, Call) and node.op in BRANCH_POINTS:
            with np.errstate(all="ignore"):
                argument = compile_expr(node.args[0], NAMES)(X)
            for point in BRANCH_POINTS[node.op]:
                near |= np.abs(argument - point) < 1e-6
    return near


POINTS = np.random.default_rng(0).uniform(-3, 3, size=(64, 3))
POINTS = np.vstack([POINTS, np.abs(POINTS) + 0.05])


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value_trees)
@example(parse("acos(x1 * (1 / x1))", NAMES))
@pytest.mark.slow
def test_canonical_form_preserves_values_where_both_are_finite(tree):
    expr = canonical(tree)
    original = compile_expr(tree, NAMES)(POINTS)
    rewritten = compile_expr(expr, NAMES)(POINTS)
    both = np.isfinite(original) & np.isfinite(rewritten)
    scale = _intermediate_scale(tree, POINTS)
    # rounding error grows with the largest intermediate value (cancellation), not with the result
    with np.errstate(all="ignore"):
        ok = np.abs(original - rewritten) <= 1e-9 * scale + 1e-7 * np.abs(original)
    bad = both & ~ok & ~_near_branch_points(tree, POINTS)
    assert not bad.any(), (
        f"{to_infix(tree)}\n -> {to_infix(expr)}\n"
        f"at {POINTS[bad][0]}: {original[bad][0]!r} vs {rewritten[bad][0]!r}"
    )


POSITIVE = {"x0", "x2"}
POSITIVE_POINTS = POINTS.copy()
POSITIVE_POINTS[:, [0, 2]] = np.abs(POSITIVE_POINTS[:, [0, 2]])


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value_trees)
@pytest.mark.slow
def test_rules_for_positive_variables_are_idempotent_and_preserve_values(tree):
    form = canonicalize(tree, positive=POSITIVE)
    assert form.complete
    assert canonical(form.expr, positive=POSITIVE) == form.expr
    original = compile_expr(tree, NAMES)(POSITIVE_POINTS)
    rewritten = compile_expr(form.expr, NAMES)(POSITIVE_POINTS)
    both = np.isfinite(original) & np.isfinite(rewritten)
    scale = _intermediate_scale(tree, POSITIVE_POINTS)
    with np.errstate(all="ignore"):
        ok = np.abs(original - rewritten) <= 1e-9 * scale + 1e-7 * np.abs(original)
    bad = both & ~ok & ~_near_branch_points(tree, POSITIVE_POINTS)
    assert not bad.any(), f"{to_infix(tree)}\n -> {to_infix(form.expr)}"


def _renumber(tree, choices):
    """The same tree with its numbers replaced in turn by ``choices`` (cycled)."""
    it = iter(choices * 1000)

    def go(node):
        if isinstance(node, Num):
            return Num(next(it))
        if isinstance(node, Call):
            return Call(node.op, tuple(go(a) for a in node.args))
        return node

    return go(tree)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_trees, st.lists(st.sampled_from([1.0, 2.0, 0.5, -1.0]), min_size=1, max_size=6))
@pytest.mark.slow
def test_masking_levels_are_monotone(tree, choices):
    other = _renumber(tree, choices)
    same = {level: mask(tree, level) == mask(other, level) for level in LEVELS}
    if same["all"]:
        assert same["exponents"]
    if same["exponents"]:
        assert same["structure"]


@settings(max_examples=400, deadline=None)
@given(small_trees)
@pytest.mark.slow
def test_masked_trees_keep_only_exponents_and_signs(tree):
    def signs(masked):
        return {id(n.args[0]) for n in walk(masked) if isinstance(n, Call) and n.op == "mul" and n.args[0] == Num(-1.0)}

    structure = mask(tree, "structure")
    kept = signs(structure)
    for node in walk(structure):
        if isinstance(node, Num):
            assert id(node) in kept
    exponents = mask(tree, "exponents")
    kept = signs(exponents) | {id(n.args[1]) for n in walk(exponents) if isinstance(n, Call) and n.op == "pow"}
    for node in walk(exponents):
        if isinstance(node, Num):
            assert id(node) in kept


@settings(max_examples=300, deadline=None)
@given(any_trees)
@pytest.mark.slow
def test_raw_skeleton_masks_numbers_and_keeps_the_shape(tree):
    skeleton = raw_skeleton(tree)
    written = drop_zeros(tree)
    expected = []  # a number is the placeholder, a negative one under a minus sign, as in the canonical form
    for node, parent in _with_parents(written):
        if isinstance(node, Num) and node.value < 0 and not (parent is not None and parent.op == "pow" and parent.args[1] is node):
            expected += [Call, Const]
        else:
            expected.append(Const if isinstance(node, (Num, Const)) else type(node))
    assert [type(n) for n in walk(skeleton)] == expected
    assert all(n == MASK for n in walk(skeleton) if isinstance(n, Const))


def _with_parents(tree):
    """Each node in prefix order with its parent (None for the root)."""
    stack = [(tree, None)]
    while stack:
        node, parent = stack.pop()
        yield node, parent
        if isinstance(node, Call):
            stack.extend((arg, node) for arg in reversed(node.args))


@settings(max_examples=300, deadline=None)
@given(any_trees)
@pytest.mark.slow
def test_raw_skeletons_are_both_levels_from_one_walk(tree):
    assert raw_skeletons(tree) == (raw_skeleton(tree, "structure"), raw_skeleton(tree, "exponents"))


# --- the cases the judge relies on ---------------------------------------------------------------


@pytest.mark.parametrize(
    "a, b",
    [
        ("x0*x0", "x0**2"),
        ("x0 + x1 + x2", "x2 + x0 + x1"),
        ("x0*x1*x2", "x2*(x1*x0)"),
        ("x0 - x1", "x0 + (-1)*x1"),
        ("sqrt(x0)", "x0**0.5"),
        ("cbrt(x0)", "x0**(1/3)"),
        ("2*x0 + 3*x0", "5*x0"),
        ("--x0", "x0"),
        ("-(-x0)", "x0"),
        ("x0/x1", "x0*x1**-1"),
        ("inv(x0)", "1/x0"),
        ("square(x0) + cube(x1)", "x0**2 + x1**3"),
        ("2*3*x0", "6*x0"),
        ("sin(0.5)*x0", f"{math.sin(0.5)!r}*x0"),
        ("pi*x0", "3.141592653589793*x0"),
        ("x0*x0**2*x0**-0.5", "x0**2.5"),
        ("x0 - x0 + x1", "x1"),
        ("(x0/x1)**2", "x0**2/x1**2"),
        ("3*(x0 + 1)", "3*x0 + 3"),
        ("-(x0 - x1)", "x1 - x0"),
        ("x0 - (x1 - x2)", "x0 + x2 - x1"),
        ("exp(x0)*exp(x1)", "exp(x0 + x1)"),
        ("exp(x0 + 2)", "exp(2)*exp(x0)"),
        ("e**x0", "exp(x0)"),
        ("log(exp(x0))", "x0"),
        ("exp(log(x0))", "x0"),
        ("sqrt(x0**2)", "abs(x0)"),
        ("(x0**3)**2", "x0**6"),
        ("sin(-x0)", "-sin(x0)"),
        ("cos(x1 - x0)", "cos(x0 - x1)"),
        ("max(x0, x1)", "max(x1, x0)"),
        ("x0/x0", "1"),
        ("exp(-x0**2/2)/sqrt(2*pi)", f"{1 / math.sqrt(2 * math.pi)!r}*exp(-0.5*x0**2)"),
        # constants collected the same way wherever they stand; one orientation for even powers
        ("x2/(2*(1 + x0))", "x2/(2 + 2*x0)"),
        ("x0*(2 + 2*x1)", "2*x0*(1 + x1)"),
        ("x0*(x1 - x0)", "-x0*(x0 - x1)"),
        ("(x1 - x0)**2", "(x0 - x1)**2"),
        ("(x1 - x0)**3", "-(x0 - x1)**3"),
        ("(2*x0 + 2)**-2", "0.25*(x0 + 1)**-2"),
        ("sqrt(4*x0 + 4)", "2*sqrt(x0 + 1)"),
        ("abs(2*x0 + 2)", "2*abs(x0 + 1)"),
        ("log(2*x0 + 2)", "log(2) + log(x0 + 1)"),
        ("(3*x0 + 6)/(x0 + 2)", "3"),
        # zeros vanish
        ("x0 + 0*x1", "x0"),
        ("0/2*x0*x1**2", "0"),
        ("x0*x1**0", "x0"),
    ],
)
def test_same_canonical_form(a, b):
    assert C(a) == C(b), f"{P(a)}  vs  {P(b)}"


@pytest.mark.parametrize(
    "a, b",
    [
        ("x0**2", "x0**3"),
        ("sin(x0)**2 + cos(x0)**2", "1"),  # a deeper identity: the form does not prove theorems
        ("(x0 + 1)**2", "x0**2 + 2*x0 + 1"),  # no expansion
        ("log(x0*x1)", "log(x0) + log(x1)"),  # not equal for negative x0, x1
        ("sqrt(x0*x1)", "sqrt(x0)*sqrt(x1)"),  # idem
        ("(x0**0.5)**2", "x0**1.0000001"),
        ("sqrt(x0 - x1)", "sqrt(x1 - x0)"),  # a fractional power keeps the orientation
        ("(x0 - x1)**3", "(x1 - x0)**3"),
        ("x0*(x1 + x2)", "x0*x1 + x0*x2"),  # a sum times a variable is not expanded
    ],
)
def test_different_canonical_form(a, b):
    assert C(a) != C(b)


def test_positive_variables_unlock_more_rules():
    def CP(text):
        return canonical(parse(text, NAMES), positive={"x0", "x1"})

    assert C("sqrt(x0*x1)") != C("sqrt(x0)*sqrt(x1)")
    assert CP("sqrt(x0*x1)") == CP("sqrt(x0)*sqrt(x1)")
    assert CP("log(x0*x1/x2)") == CP("log(x0) + log(x1) + log(1/x2)")
    assert CP("sqrt(x0**2)") == Var("x0")
    assert CP("abs(x0 + x1**2)") == CP("x0 + x1**2")
    assert CP("abs(x2)") == C("abs(x2)")
    assert mask(parse("sqrt(x0/x1)", NAMES), "exponents", positive={"x0", "x1"}) == mask(
        parse("x0**0.5 * x1**-0.5", NAMES), "exponents", positive={"x0", "x1"}
    )
    with pytest.raises(TypeError, match="collection of variable names"):
        canonical(Var("x0"), positive="x0")


def test_canonical_form_is_readable():
    assert P("x1*2.5 + x0") == "+ x0 * 2.5 x1"  # terms by their body; the coefficient leads
    assert P("x0**2 * 3") == "* 3 ** x0 2"
    assert P("x0 + x1 + x2 + 1") == "+/4 1 x0 x1 x2"
    assert to_infix(C("x2*x0*x1*2")) == "2 * x0 * x1 * x2"


def M(text, level):
    return mask(parse(text, NAMES), level)


@pytest.mark.parametrize(
    "a, b, structure, exponents, all_",
    [
        ("x0**2", "x0**3", True, False, False),
        ("2*x0 + 3*x1", "3*x0 + 2*x1", True, True, False),
        ("2.5*x1*sin(x2)", "1.01*(2.5*x1*sin(x2))", True, True, False),
        ("sqrt(x0)", "x0**0.5", True, True, True),
        ("sqrt(x0)", "x0**0.4999", True, False, False),
        ("x0/x1", "x0*x1", False, False, False),
        ("x0/x1", "x0*x1**2", True, False, False),
        ("x0 - 1", "x0 - 2.7", True, True, False),
        ("x0 - 1", "x0 + 2.7", False, False, False),  # a sign is structure, on a number too
        ("sin(2*x0 + 1)", "sin(0.3*x0 + 5)", True, True, False),
        ("sin(2*x0 + 1)", "sin(0.3*x0 - 5)", False, False, False),
        ("x0 - x1", "x0 + x1", False, False, False),  # the -1 is a coefficient: c*x1 is not x1
        ("x0 - x1", "x0 + 2*x1", False, False, False),  # a sign is not a fitted constant
        ("x0 - 2*x1", "x0 - 3*x1", True, True, False),
        ("x0 - 2*x1", "x0 + 3*x1", False, False, False),
        ("x0/x1", "x0*x1**2", True, False, False),  # an exponent is masked whole at "structure", sign included
        ("-x0*x1", "2*x0*x1", False, False, False),
        ("-x0*x1", "-2*x0*x1", False, False, False),  # as x0*x1 and 2*x0*x1
        ("x2/(2*(1 + x0))", "x2/(2 + 2*x0)", True, True, True),
        ("(x0 - x1)**2", "(x1 - x0)**2", True, True, True),
        ("0/2*x0*x1**2", "1/2*x0*x1**2", False, False, False),
        ("x0*x1**0", "x0*x1**2", False, False, False),
        ("2*x0", "x0", False, False, False),  # a coefficient of 1 is no coefficient
        ("exp(-x0**2/2)/sqrt(2*pi)", "0.4*exp(-0.51*x0**2)", True, True, False),
        ("x0**2*x1**3", "x0**3*x1**2", True, False, False),
    ],
)
def test_masking_levels(a, b, structure, exponents, all_):
    assert (M(a, "structure") == M(b, "structure")) is structure
    assert (M(a, "exponents") == M(b, "exponents")) is exponents
    assert (M(a, "all") == M(b, "all")) is all_


def test_masked_forms_print_the_placeholder():
    assert to_prefix(M("2*x0**2 + 3", "exponents")) == ["+", "<constant>", "*", "<constant>", "**", "x0", "2"]
    assert to_prefix(M("2*x0**2 + 3", "structure")) == ["+", "<constant>", "*", "<constant>", "**", "x0", "<constant>"]
    assert M("2*x0**2 + 3", "all") == C("2*x0**2 + 3")
    # terms that become identical by masking stay two terms
    assert to_prefix(M("2*x0**2 + 3*x0**3", "structure")) == to_prefix(M("x0**2*5 + 7*x0**4", "structure"))
    assert M("2*x0**2 + 3*x0**3", "structure") != M("2*x0**2", "structure")
    with pytest.raises(ValueError, match="level must be one of"):
        mask(parse("x0", NAMES), "numbers")


def test_raw_skeleton_is_as_written():
    R = lambda text: raw_skeleton(parse(text, NAMES))  # noqa: E731
    assert R("2*x0 + 3*x1") == R("3.5*x0 + 1*x1")
    assert R("x0*x0") != R("x0**2")
    assert R("x0 + x1") != R("x1 + x0")
    assert to_prefix(R("pi*x0 - 2")) == ["-", "*", "<constant>", "x0", "<constant>"]
    assert R("0*x0 + x1") == R("x1") and R("x0**0*x1 - 0") == R("1*x1")  # literal zeros worked out
    deep = parse(" + ".join(f"{i}*x0" for i in range(1, 3001)), NAMES)  # a deep binary tree
    assert sum(1 for n in walk(raw_skeleton(deep)) if n == MASK) == 3000


# --- domains, time limit, cache, determinism -------------------------------------------------------


def test_documented_domain_changes():
    X = np.array([[0.0, 1.0, 1.0], [-8.0, 1.0, 1.0]])
    # x/x -> 1: the original is NaN at 0, the canonical form is 1 everywhere
    assert np.isnan(compile_expr(parse("x0/x0", NAMES), NAMES)(X)[0])
    assert C("x0/x0") == Num(1.0)
    # cbrt(x) -> x**(1/3): NumPy's power is NaN for negative bases
    assert compile_expr(parse("cbrt(x0)", NAMES), NAMES)(X)[1] == -2.0
    assert np.isnan(compile_expr(C("cbrt(x0)"), NAMES)(X)[1])
    # (x**2)**0.5 is |x|, not x: the rewrite keeps values
    assert C("sqrt(x0**2)") == Call("abs", (Var("x0"),))
    assert C("log(x0**2)") == C("2*log(abs(x0))")


def _huge_formula(n_factors=300, n_terms=20):
    rng = np.random.default_rng(1)
    product = None
    for _ in range(n_factors):
        total = None
        for _ in range(n_terms):
            term = Call("mul", (Num(float(rng.integers(-9, 9))), Var(NAMES[rng.integers(3)])))
            if rng.random() < 0.5:
                term = Call("sin", (term,))
            total = term if total is None else Call("add", (total, term))
        product = total if product is None else Call("mul", (product, total))
    return product


@pytest.mark.slow
def test_time_limit_is_respected_on_a_huge_formula():
    """The limit is the thread's CPU time, so it is measured the same way here; the partial run is
    held to a share of the full one measured beside it, so a loaded machine slows both alike."""
    huge = _huge_formula()
    clear_cache()
    start = time.thread_time()
    form = canonicalize(huge, time_limit=1.0)
    full = time.thread_time() - start
    assert full < 1.2 or not form.complete
    assert full < 1.2 * 1.0 + 0.1
    # with a limit it cannot meet, it gives up quickly, says so and keeps the values; the best of
    # three tries is held to the bound (one try once took 0.46 s in a loaded CI run, not reproduced)
    tries = []
    for _ in range(3):
        clear_cache()
        start = time.thread_time()
        partial = canonicalize(huge, time_limit=0.02)
        tries.append(time.thread_time() - start)
        assert not partial.complete
    assert min(tries) < 0.5 * full, (tries, full)  # the limit plus finishing the tree as written
    X = np.random.default_rng(2).uniform(0.1, 1, size=(8, 3))
    np.testing.assert_allclose(compile_expr(partial.expr, NAMES)(X), compile_expr(huge, NAMES)(X), rtol=1e-9)
    # an incomplete form is not cached: a later call with more time finishes it
    assert canonicalize(huge, time_limit=5.0).complete


def test_time_limit_must_be_positive():
    with pytest.raises(ValueError, match="time_limit"):
        canonicalize(Var("x0"), time_limit=0)


def test_very_deep_formulas_give_up_instead_of_crashing():
    deep = Var("x0")
    for _ in range(5000):
        deep = Call("sin", (deep,))
    form = canonicalize(deep)
    assert not form.complete and form.expr == deep
    assert mask(deep, "structure") is not None


def test_long_sums_are_flattened_without_recursion_limits():
    long_sum = parse(" + ".join(f"{i % 7}*x{i % 3}" for i in range(5000)), NAMES)
    form = canonicalize(long_sum)
    assert form.complete
    assert form.expr == C(f"{sum(i % 7 for i in range(0, 5000, 3))}*x0 + "
                          f"{sum(i % 7 for i in range(1, 5000, 3))}*x1 + "
                          f"{sum(i % 7 for i in range(2, 5000, 3))}*x2")


def test_finished_forms_are_cached():
    clear_cache()
    tree = parse("x0*x1 + sin(x2)/x0", NAMES)
    first = canonicalize(tree)
    assert cache_info()["misses"] == 1
    assert canonicalize(parse("x0*x1 + sin(x2)/x0", NAMES)) is first
    assert cache_info()["hits"] == 1


@pytest.mark.slow
def test_canonical_form_does_not_depend_on_the_hash_seed():
    script = (
        "from srbf.expr import parse, canonical, to_prefix\n"
        "for t in ['x*y + y*x + z', 'sin(b - a) + cos(a - b)*a*b', 'exp(x)*exp(y)/(x*y*z)**0.5',"
        " 'max(b, a) + min(q, p) + log(2*x*exp(y))']:\n"
        "    print(to_prefix(canonical(parse(t))))\n"
    )
    outputs = set()
    for seed in ("1", "2", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        outputs.add(subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True).stdout)
    assert len(outputs) == 1


@pytest.mark.parametrize("text", [
    "2.5*x**2 + 3*x**3 - sin(1.5*y) / x", "sqrt(x*y) + log(x*y)", "x**0.5 * 2 + 0*y", "-(x - 1)**-2 + pi",
    "max(x, 2.0) - min(3, y) * exp(-x**2)",
])  # fmt: skip
def test_masked_levels_are_canonicalize_and_both_masks(text):
    from srbf.expr.canonical import clear_cache
    from srbf.expr.masking import mask, masked_levels

    expr = parse(text, ["x", "y"])
    for positive in ((), ("x",)):
        clear_cache()
        form, exponents, structure = masked_levels(expr, positive=positive)
        clear_cache()  # the separate calls compute from scratch, not from what masked_levels cached
        assert form == canonicalize(expr, positive=positive)
        assert exponents == mask(expr, "exponents", positive=positive)
        assert structure == mask(expr, "structure", positive=positive)


# --- issue 35: signs, an order-independent content rule, exact folding, the documented rewrites ---


def test_folded_numbers_snap_to_small_rationals_and_written_ones_never():
    from srbf.expr.canonical_nodes import snap

    assert snap(0.9999999999999999) == 1.0 and snap(3.0000000000000004) == 3.0
    assert snap(1 / 3 + 2 ** -54) == 1 / 3 and snap(-2.4999999999999996) == -2.5
    assert snap(math.fsum([0.1, 0.2, -0.3]), 0.3) == 0.0  # a cancellation: the ulps of the largest addend
    assert snap(1.0001) == 1.0001 and snap(1 / 13) == 1 / 13 and snap(math.pi) == math.pi
    assert snap(1e7 + 2 ** -29) == 1e7 + 2 ** -29  # beyond the range of small rationals
    assert to_infix(C("10**log10(x0)")) == "x0" and to_infix(C("exp(log(10)*log10(x0))")) == "x0"
    assert to_infix(C("log10(10**x0)")) == "x0" and to_infix(C("exp(log(3))*x0")) == "3 * x0"
    assert to_infix(C("0.9999999999999999*x0")) == "0.9999999999999999 * x0"  # as written: not snapped


def test_a_sum_gives_out_a_constant_by_its_set_of_terms_and_never_frees_an_implicit_one():
    from srbf.expr.canonical_nodes import sum_content

    assert C("x2*(2*x0 + 4*x1)") == C("2*x2*(x0 + 2*x1)")  # no term without a coefficient: the smallest comes out
    assert to_infix(C("x2*(0.5*x0 + x1)")) == "x2 * (0.5 * x0 + x1)"  # x1 keeps its implicit 1
    assert to_infix(C("sqrt(3*x0**2 + x1**2 - 2*x0*x1*cos(x2))")) == "(-2 * x0 * x1 * cos(x2) + 3 * x0**2 + x1**2)**0.5"
    for text in ("-2*x0 + 3*x1 + 5", "3*x1 + 5 - 2*x0", "x1*3 - x0*2 + 5"):
        assert sum_content(canonical_node_of(text)) == -2.0  # the sign of the first body, the smallest size
    assert sum_content(canonical_node_of("x0 - 2*x1")) == 1.0 and sum_content(canonical_node_of("x1 - 0.5*x0")) == -1.0


def canonical_node_of(text):
    from srbf.expr.canonical_nodes import from_expr

    return from_expr(C(text))


def test_denominators_are_cleared_where_no_term_becomes_a_number_or_a_sum():
    assert C("x2/(1 - x1/x0)") == C("x2*x0/(x0 - x1)")
    assert C("1/(1/x0 + x2/x1)") == C("x0*x1/(x1 + x0*x2)")
    assert C("x2*(1 - x1/x0)") == C("x2*(x0 - x1)/x0")
    assert to_infix(C("(log(x1) + 1/x0)/x0")) == "x0**-1 * (log(x1) + x0**-1)"  # 1/x0 would become a constant
    assert to_infix(C("(2*(x0 + x1)/x2 + x0)*x1")) == "x1 * (x0 + 2 * x2**-1 * (x0 + x1))"  # 2*x0 + 2*x1 + x0*x2 would merge


def test_exp_of_a_product_with_a_log_is_a_power_for_a_positive_base_only():
    assert to_infix(canonical(parse("exp(x1*log(x0))", NAMES), positive={"x0"})) == "x0**x1"
    assert to_infix(canonical(parse("exp(x2 + x1*log(x0))", NAMES), positive={"x0"})) == "x0**x1 * exp(x2)"
    assert to_infix(C("exp(x1*log(x0))")) == "exp(x1 * log(x0))"  # x0 may be negative: NaN there, x0**x1 not always


def test_a_negative_number_masks_as_a_sign_on_a_placeholder_in_both_routes():
    from srbf.expr.masking import written_skeletons

    assert to_prefix(M("x0 - 2", "structure")) == ["+", "*", "-1", "<constant>", "x0"]
    assert M("exp(-0.55*x0)", "structure") == M("exp(-2*x0)", "structure") != M("exp(0.55*x0)", "structure")
    W = lambda text: written_skeletons(parse(text, NAMES))  # noqa: E731
    assert W("1/(-1/x0 + x1/x2)") != W("1/(1/x0 + x1/x2)") and W("exp(-1*x0)") == W("exp(-0.55*x0)")
    assert W("exp(1*x0**2)") != W("exp(-1*x0**2)")
    assert W("x0 - x1*x2/x0") == W("x0 - x2/x0*x1")
    assert W("x2*x0 - x1/x2") == W("-(x1/x2) + x0*x2")  # term and factor order forgotten, signs kept
    assert W("x0**2*x1")[1] != W("x0**3*x1")[1] and W("x0**2*x1")[0] == W("x1*x0**3")[0]
    assert to_prefix(raw_skeleton(parse("x0 - -2", NAMES))) == ["-", "x0", "neg", "<constant>"]
