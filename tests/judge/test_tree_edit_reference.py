"""The judge's tree edit distance against a textbook Zhang-Shasha written here, on random trees.

The judge runs the programme on the trees' mirrors, the cheaper tree as rows, with the leaves'
keyroots as closed forms: every distance must still be the textbook one, number for number (it is
a stored metric), and the cell count that caps the programme must be the textbook one too.
"""

import random

import pytest

from srbf.expr.tree import Call, Var
from srbf.judge import distances
from srbf.judge.distances import PreparedTree, label_distance, tree_edit_cells, tree_edit_distance

pytestmark = pytest.mark.slow

LABELS = ["+", "*", "**", "sin", "exp", "log", "neg", "x_0", "x_1", "x1", "<constant>", "-1", "0.5", "2", "3"]


def label(node):
    return node.op if isinstance(node, Call) else node.name


def textbook(root):
    """1-based postorder labels and leftmost leaves, children left to right, by recursion."""
    labels, leftmost = [""], [0]

    def walk(node):
        children = node.args if isinstance(node, Call) else ()
        first = None
        for child in children:
            leaf = walk(child)
            first = leaf if first is None else first
        labels.append(label(node))
        leftmost.append(first if first is not None else len(labels) - 1)
        return leftmost[-1]

    walk(root)
    return labels, leftmost


def keyroots(leftmost):
    highest = {leaf: k for k, leaf in enumerate(leftmost) if k}  # the last node with each leftmost leaf
    return sorted(highest.values())


def reference_distance(a, b):
    """Zhang and Shasha (1989) as printed: one forest table per pair of keyroots."""
    la, lma = textbook(a)
    lb, lmb = textbook(b)
    tree = {}
    for i in keyroots(lma):
        for j in keyroots(lmb):
            li, lj = lma[i], lmb[j]
            forest = {(li - 1, lj - 1): 0}
            for x in range(li, i + 1):
                forest[x, lj - 1] = forest[x - 1, lj - 1] + len(la[x])
            for y in range(lj, j + 1):
                forest[li - 1, y] = forest[li - 1, y - 1] + len(lb[y])
            for x in range(li, i + 1):
                for y in range(lj, j + 1):
                    delete = forest[x - 1, y] + len(la[x])
                    insert = forest[x, y - 1] + len(lb[y])
                    if lma[x] == li and lmb[y] == lj:
                        forest[x, y] = min(delete, insert, forest[x - 1, y - 1] + label_distance(la[x], lb[y]))
                        tree[x, y] = forest[x, y]
                    else:
                        forest[x, y] = min(delete, insert, forest[lma[x] - 1, lmb[y] - 1] + tree[x, y])
    return tree[len(la) - 1, len(lb) - 1]


def reference_cells(root):
    _, leftmost = textbook(root)
    return sum(k - leftmost[k] + 1 for k in keyroots(leftmost))


def random_tree(rng, size, arity):
    """A tree of ``size`` nodes, each call with 1..``arity`` children."""
    if size <= 1:
        return Var(rng.choice(LABELS))
    k = rng.randint(1, min(arity, size - 1))
    cuts = sorted(rng.sample(range(1, size - 1), k - 1))
    sizes = [b - a for a, b in zip([0, *cuts], [*cuts, size - 1])]
    return Call(rng.choice(LABELS), tuple(random_tree(rng, s, arity) for s in sizes))


def chain(rng, depth, right):
    """A power chain nested on one side, as deep as ``depth``."""
    node = Var(rng.choice(LABELS))
    for _ in range(depth):
        leaf = Var(rng.choice(LABELS))
        node = Call(rng.choice(["**", "+", "sin"]), (leaf, node) if right else (node, leaf))
    return node


def wide_sum(rng, terms):
    """A linear model's shape: a constant plus a constant times each variable."""
    return Call("+", (Var("<constant>"), *(Call("*", (Var("<constant>"), Var(f"x_{v}"))) for v in range(terms))))


def mutate(rng, node):
    """The tree with one label changed, one subtree dropped or one leaf added somewhere."""
    if not isinstance(node, Call) or rng.random() < 0.3:
        roll = rng.random()
        if roll < 0.5:
            return Var(rng.choice(LABELS)) if not isinstance(node, Call) else Call(rng.choice(LABELS), node.args)
        if roll < 0.8 or not isinstance(node, Call):
            return Call(rng.choice(LABELS), (node,))
        return Call(node.op, node.args[1:]) if len(node.args) > 1 else node.args[0]
    index = rng.randrange(len(node.args))
    args = list(node.args)
    args[index] = mutate(rng, args[index])
    return Call(node.op, tuple(args))


def some_tree(rng):
    roll = rng.random()
    if roll < 0.05:
        return Var(rng.choice(LABELS))
    if roll < 0.15:
        return chain(rng, rng.randint(1, 20), right=rng.random() < 0.5)
    if roll < 0.25:
        return wide_sum(rng, rng.randint(1, 10))
    if roll < 0.35:
        return random_tree(rng, rng.randint(2, 40), arity=rng.choice([2, 6]))
    return random_tree(rng, rng.randint(1, 16), arity=rng.choice([1, 2, 3, 5]))


def pairs(seed, count):
    rng = random.Random(seed)
    for _ in range(count):
        a = some_tree(rng)
        roll = rng.random()
        if roll < 0.1:
            b = a
        elif roll < 0.3:
            b = mutate(rng, a)
        else:
            b = some_tree(rng)
        yield a, b


@pytest.mark.parametrize("seed", range(4))
def test_distances_and_cells_are_the_textbook_ones(seed):
    for a, b in pairs(seed, 600):
        expected = reference_distance(a, b)
        prepared_a, prepared_b = PreparedTree(a, label), PreparedTree(b, label)
        assert tree_edit_distance(prepared_a, prepared_b, label) == expected, (a, b)
        assert tree_edit_distance(b, a, label) == expected, (b, a)
        assert tree_edit_cells(prepared_a) == reference_cells(a)
        assert tree_edit_cells(prepared_b) == reference_cells(b)


def test_degenerate_trees():
    x, y = Var("x_0"), Var("<constant>")
    deep = chain(random.Random(1), 40, right=True)
    cases = [
        (x, x),
        (x, y),
        (x, Call("sin", (y,))),
        (Call("f", ()), x),  # a call without arguments is a leaf
        (deep, x),
        (deep, chain(random.Random(1), 40, right=False)),
        (wide_sum(None, 10), wide_sum(None, 9)),
        (wide_sum(None, 10), deep),
    ]
    for a, b in cases:
        assert tree_edit_distance(a, b, label) == reference_distance(a, b)
        assert tree_edit_distance(b, a, label) == reference_distance(b, a)


def test_trees_of_more_characters_than_the_usual_sentinel(monkeypatch):
    """Past ``_NEVER`` characters, the programme's "no path" grows with the trees (built afresh)."""
    monkeypatch.setattr(distances, "_NEVER", 12)
    for a, b in pairs(7, 200):
        distances._known.clear()
        assert tree_edit_distance(a, b, label) == reference_distance(a, b), (a, b)
