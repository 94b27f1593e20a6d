"""Levenshtein and Zhang-Shasha against hand-worked values and a brute-force recursion."""

from functools import lru_cache

import numpy as np
import pytest

from srbf.expr import MASK, parse
from srbf.expr.tree import Call, Var
from srbf.judge.distances import PreparedTree, label_distance, levenshtein, levenshtein_normalized, tree_edit_distance
from srbf.judge.length import node_label


def label(node):
    return node.op if isinstance(node, Call) else node.name


def T(name, *children):
    return Call(name, tuple(children)) if children else Var(name)


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ("kitten", "sitting", 3),
        ("flaw", "lawn", 2),
        ("", "abc", 3),
        ("abc", "", 3),
        ("same", "same", 0),
        (["+", "x", "y"], ["+", "y", "x"], 2),
        (["*", "x1", "sin", "x2"], ["*", "x1", "cos", "x2"], 1),
    ],
)
def test_levenshtein_hand_values(a, b, expected):
    assert levenshtein(a, b) == expected
    assert levenshtein(b, a) == expected


@pytest.mark.slow
def test_levenshtein_equals_the_full_programme_on_random_sequences():
    """Dropping a common prefix and suffix first changes no distance (checked against the full table)."""
    import random

    def full(a, b):
        table = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
        for i in range(1, len(a) + 1):
            for j in range(1, len(b) + 1):
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
        return table[-1][-1]

    rng = random.Random(3)
    for _ in range(500):
        a = [rng.choice("xy+*") for _ in range(rng.randint(0, 9))]
        b = a[: rng.randint(0, len(a))] + [rng.choice("xy+*") for _ in range(rng.randint(0, 4))] + a[rng.randint(0, len(a)):]
        assert levenshtein(a, b) == full(a, b), (a, b)
        assert levenshtein(tuple(a), tuple(b)) == full(a, b)
    # unrelated sequences over alphabets of 1 to 8 items, some longer than a machine word (the
    # bit-parallel columns are Python ints of any length)
    for _ in range(500):
        alphabet = "xy+*abcd"[: rng.randint(1, 8)]
        a = [rng.choice(alphabet) for _ in range(rng.choice((rng.randint(0, 12), rng.randint(60, 90))))]
        b = [rng.choice(alphabet) for _ in range(rng.randint(0, 70))]
        assert levenshtein(a, b) == levenshtein(b, a) == full(a, b), (a, b)


def test_levenshtein_normalized():
    assert levenshtein_normalized(["+", "x", "y"], ["+", "y", "x"]) == pytest.approx(2 / 3)
    assert levenshtein_normalized(["a"], ["b", "c", "d", "e"]) == 1.0
    assert levenshtein_normalized([], []) == 0.0


def test_label_costs():
    assert label_distance("sin", "tan") == 2
    assert label_distance("sin", "cos") == 3  # no letter in place: three substitutions
    assert label_distance("x1", "x2") == 1
    assert label_distance("+", "**") == 2
    assert label_distance("<constant>", "<constant>") == 0


def test_zhang_shasha_paper_example():
    # f(d(a, c(b)), e) -> f(c(d(a, b)), e): delete c under d, insert c above d (unit labels)
    t1 = T("f", T("d", T("a"), T("c", T("b"))), T("e"))
    t2 = T("f", T("c", T("d", T("a"), T("b"))), T("e"))
    assert tree_edit_distance(t1, t2, label) == 2
    assert tree_edit_distance(t2, t1, label) == 2


def test_character_costs_on_formulas():
    sin, tan = parse("sin(x)"), parse("tan(x)")
    x = parse("x")
    assert tree_edit_distance(sin, tan, node_label) == 2  # rename sin -> tan
    assert tree_edit_distance(sin, x, node_label) == 3  # delete sin
    assert tree_edit_distance(x, Call("add", (x, MASK)), node_label) == 11  # insert + and <constant>
    assert tree_edit_distance(parse("x + y"), parse("x * y"), node_label) == 1
    # x1 + x2 -> x2 + x1: two renames of one character each
    assert tree_edit_distance(parse("x1 + x2"), parse("x2 + x1"), node_label) == 2
    # x**2 -> x**3 renames the exponent label "2" -> "3"
    assert tree_edit_distance(parse("x**2"), parse("x**3"), node_label) == 1
    # deleting a whole subtree costs all its characters: sin(x) + y -> y is 1 (+) + 3 + 1
    assert tree_edit_distance(parse("sin(x) + y"), parse("y"), node_label) == 5


def test_prepared_trees_give_the_same_distance():
    a, b = parse("sin(x) * (y + 2)"), parse("cos(x) * y")
    prepared_a, prepared_b = PreparedTree(a, node_label), PreparedTree(b, node_label)
    assert tree_edit_distance(prepared_a, prepared_b, node_label) == tree_edit_distance(a, b, node_label)


# ---- a brute-force ordered forest edit distance (exponential, memoised) to cross-check -------


def _as_tuple(node):
    return (label(node), tuple(_as_tuple(c) for c in node.args) if isinstance(node, Call) else ())


def _size(forest):
    return sum(len(lab) + _size(children) for lab, children in forest)


@lru_cache(maxsize=None)
def _forest_distance(f, g):
    if not f and not g:
        return 0
    if not f:
        return _size(g)
    if not g:
        return _size(f)
    (lv, cv), (lw, cw) = f[-1], g[-1]
    return min(
        _forest_distance(f[:-1] + cv, g) + len(lv),  # delete the rightmost root of f
        _forest_distance(f, g[:-1] + cw) + len(lw),  # insert the rightmost root of g
        _forest_distance(cv, cw) + _forest_distance(f[:-1], g[:-1]) + label_distance(lv, lw),
    )


def _random_tree(rng, size):
    labels = ["a", "bb", "ccc", "sin", "+", "<constant>"]
    if size <= 1:
        return Var(str(rng.choice(labels)))
    k = int(rng.integers(1, min(3, size - 1) + 1))
    cuts = sorted(rng.choice(np.arange(1, size - 1), size=k - 1, replace=False)) if k > 1 else []
    sizes = np.diff([0, *cuts, size - 1])
    return Call(str(rng.choice(labels)), tuple(_random_tree(rng, int(s)) for s in sizes))


def test_zhang_shasha_matches_brute_force_on_random_trees():
    rng = np.random.default_rng(7)
    for _ in range(150):
        a = _random_tree(rng, int(rng.integers(1, 8)))
        b = _random_tree(rng, int(rng.integers(1, 8)))
        expected = _forest_distance((_as_tuple(a),), (_as_tuple(b),))
        assert tree_edit_distance(a, b, label) == expected


def test_a_tree_too_costly_to_compare_gives_no_distance_instead_of_stalling():
    """A right-nested power chain makes Zhang-Shasha quadratic in its length: past the cell cap the
    distance is missing, below it the distance is computed as before."""
    from srbf.expr import parse
    from srbf.judge.distances import MAX_TREE_EDIT_CELLS, PreparedTree, tree_edit_cells, tree_edit_distance
    from srbf.judge.length import node_label

    truth = PreparedTree(parse("x0 + x1", ["x0", "x1"]), node_label)
    short = PreparedTree(parse("x0" + "**1" * 20 + " + x1", ["x0", "x1"]), node_label)
    long = PreparedTree(parse("x0" + "**1" * 3000 + " + x1", ["x0", "x1"]), node_label)
    assert tree_edit_cells(short) * tree_edit_cells(truth) <= MAX_TREE_EDIT_CELLS
    assert tree_edit_distance(short, truth, node_label) == 20 * len("**1")
    assert tree_edit_cells(long) * tree_edit_cells(truth) > MAX_TREE_EDIT_CELLS
    assert tree_edit_distance(long, truth, node_label) is None
