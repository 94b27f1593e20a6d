"""Edit distances between formulas: Levenshtein over token sequences, Zhang-Shasha over trees.

Both are written here from their textbook definitions (Levenshtein 1966; Zhang & Shasha 1989,
"Simple fast algorithms for the editing distance between trees and related problems").

Tree edit costs are counted in characters of the node labels:
- inserting or deleting a node costs the number of characters of its label (``sin``: 3,
  ``<constant>``: 10);
- renaming a node costs the Levenshtein distance between the two labels as character strings
  (``sin`` -> ``tan``: 2, ``x1`` -> ``x2``: 1, ``+`` -> ``**``: 2), 0 for equal labels.
The character Levenshtein distance never exceeds the cost of deleting one label and inserting
the other, so renaming is never dearer than the detour, and the tree distance is a metric.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from itertools import accumulate, islice
from operator import sub
from typing import Callable, Hashable, Sequence

from srbf.expr.tree import Call, Expr


def levenshtein(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """The least number of insertions, deletions and substitutions turning ``a`` into ``b``.

    Myers' bit-parallel programme (Myers 1999, in Hyyro's form for the edit distance): one column
    of the table is two bit vectors of the shorter sequence's length (a Python int), so each item
    of the longer one costs a few integer operations instead of a pass over the column.
    """
    start, end_a, end_b = 0, len(a), len(b)  # a common prefix and suffix cost nothing: drop them
    while start < end_a and start < end_b and a[start] == b[start]:
        start += 1
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a, end_b = end_a - 1, end_b - 1
    a, b = a[start:end_a], b[start:end_b]
    if len(a) < len(b):
        a, b = b, a
    m = len(b)
    if not m:
        return len(a)
    matches: dict[Hashable, int] = {}  # per item, the bits of its positions in b
    bit = 1
    for item in b:
        matches[item] = matches.get(item, 0) | bit
        bit <<= 1
    full = bit - 1
    last = bit >> 1
    plus, minus, distance = full, 0, m  # vertical differences +1 / -1 of the column; its last cell
    get = matches.get
    for item in a:
        eq = get(item, 0)
        xv = eq | minus
        xh = (((eq & plus) + plus) ^ plus) | eq
        hp = minus | (full & ~(xh | plus))
        hm = plus & xh
        if hp & last:
            distance += 1
        elif hm & last:
            distance -= 1
        hp = ((hp << 1) | 1) & full
        hm = (hm << 1) & full
        plus = hm | (full & ~(xv | hp))
        minus = hp & xv
    return distance


def levenshtein_normalized(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    """Levenshtein distance divided by the longer length: 0 identical, 1 nothing in common."""
    longest = max(len(a), len(b))
    if longest == 0:
        return 0.0
    return levenshtein(a, b) / longest


@lru_cache(maxsize=65536)
def label_distance(a: str, b: str) -> int:
    """The character Levenshtein distance between two node labels (the rename cost)."""
    return 0 if a == b else levenshtein(a, b)


# A path that does not exist, for trees of fewer characters: dearer than every edit script (a
# distance is at most the labels' characters of both trees), and a one-digit int (the
# interpreter's fast path), so the columns of a tree are built once for it.
_NEVER = 1 << 28


class PreparedTree:
    """A tree flattened for Zhang-Shasha: 1-based postorder labels, the leftmost leaf of every
    node, and the keyroots. Prepare a tree once to compare it with many others.

    The flattening is of the tree's mirror (every node's children right to left): the distance
    between two mirrors is the distance between the trees (mirroring keeps every ancestry and
    reverses every sibling order alike), and formulas' right operands are more often leaves
    (exponents, variables), so the mirrors' programme fills about a quarter fewer cells.
    """

    __slots__ = ("labels", "leftmost", "keyroots", "size", "sizes", "expr", "shape", "cells", "work", "leaves", "width", "_columns", "_subtrees")

    def __init__(self, root: Expr, label: Callable[[Expr], str]):
        order: list[Expr] = []  # preorder, children left to right: reversed, the mirror's postorder
        stack = [root]
        pop, push, extend = stack.pop, order.append, stack.extend
        while stack:
            node = pop()
            push(node)
            if type(node) is Call:
                extend(reversed(node.args))
        order.reverse()
        leftmost = [0]  # index 0 unused: nodes are numbered 1..n in postorder
        spans: list[int] = []  # the subtree sizes of the nodes whose parent is still to come
        index = 0
        for node in order:
            index += 1
            span = 1
            if type(node) is Call and node.args:  # its children are the last len(args) subtrees
                n = len(node.args)
                span += sum(spans[-n:])
                del spans[-n:]
            spans.append(span)
            leftmost.append(index - span + 1)  # a subtree is numbered contiguously, its leftmost leaf first
        labels = [""]
        labels += map(label, order)
        self.expr = root
        self.labels = labels
        self.leftmost = leftmost
        self.size = size = len(labels) - 1
        self.sizes = [len(x) for x in labels]
        # keyroots: for each leftmost leaf, the highest node having it (largest postorder index)
        highest: dict[int, int] = {}
        for index in range(1, size + 1):
            highest[leftmost[index]] = index
        self.keyroots = sorted(highest.values())
        spans = [k - leftmost[k] + 1 for k in self.keyroots]
        leaves = [k for k in self.keyroots if leftmost[k] == k]  # keyroots that are leaves: closed forms, not rows
        self.leaves = len({labels[k] for k in leaves})  # one closed form per distinct label
        self.work = sum(spans) - len(leaves)  # its rows in the programme, as its rows
        self.width = self.work + len(spans) - len(leaves)  # the columns of a row (with their heads), as its columns
        # tree_edit_cells, asked per comparison, counts the keyroots of the tree as written: the
        # root and every first child, here every last child but the root's: not followed in this
        # postorder by a leaf (the first leaf of a next sibling)
        self.cells = size - leftmost[size] + 1 + sum(k - leftmost[k] + 1 for k in range(1, size) if leftmost[k + 1] == k + 1)
        self.shape = (tuple(labels), tuple(leftmost))  # all the distance depends on: its cache key
        self._columns: tuple[list, ...] | None = None
        self._subtrees: tuple[list[int], list[int], list[int]] | None = None

    def subtrees(self) -> tuple[list[int], list[int], list[int]]:
        """Per node 1..n: the cost of inserting its subtree, its last child (0 for a leaf) and its
        previous sibling (0 for a first child, or the root): what ``_to_leaf`` walks (built once)."""
        if self._subtrees is None:
            leftmost, size = self.leftmost, self.size
            before = list(accumulate(self.sizes))  # sizes[0] is 0: before[k] is the cost of nodes 1..k
            totals = [before[k] - before[leftmost[k] - 1] for k in range(1, size + 1)]
            last = [0 if leftmost[k] == k else k - 1 for k in range(1, size + 1)]
            previous = [0] * (size + 1)
            for k in range(1, size + 1):
                child = k - 1  # the children of k, right to left: k - 1, leftmost[k - 1] - 1, ...
                while child >= leftmost[k]:
                    sibling = leftmost[child] - 1
                    if sibling >= leftmost[k]:
                        previous[child] = sibling
                    child = sibling
            self._subtrees = (totals, last, previous[1:])
        return self._subtrees

    def columns(self, never: int = _NEVER) -> tuple[list, ...]:
        """The tree's nodes as the columns of one row of the programme (built once for the usual
        ``never``).

        The forest distances of every keyroot j that is not a leaf (a leaf's column is a closed
        form, as a leaf's row is) sit side by side, each block led by its empty-forest column
        (entered by deletion only: its insert cost is ``never``). Per column:
        its node (0 for a block head), its insert cost, the column of the forest left of its
        subtree (-1: none), and, for a node off j's left path, the cost of inserting that forest
        (``None`` on the left path, where tree distances are set); then the row of the empty
        forest of rows (inserting each block's forest), ended by ``never`` (read at -1).
        """
        if self._columns is None or never != _NEVER:
            leftmost, sizes = self.leftmost, self.sizes
            nodes: list[int] = []
            inserts: list[int] = []
            cols: list[int] = []
            fronts: list[int | None] = []
            first: list[int] = []
            for j in self.keyroots:
                lj = leftmost[j]
                if lj == j:  # a leaf: its column is a closed form (``_zhang_shasha``)
                    continue
                start = len(first)
                nodes.append(0)
                nodes.extend(range(lj, j + 1))
                inserts.append(never)
                inserts.extend(sizes[lj : j + 1])
                cols.append(-1)
                cols.extend([start + left - lj for left in leftmost[lj : j + 1]])
                first.append(0)
                first.extend(accumulate(sizes[lj : j + 1]))
                fronts.append(never)
                fronts.extend([None if left == lj else first[start + left - lj] for left in leftmost[lj : j + 1]])
            first.append(never)
            if never != _NEVER:
                return nodes, inserts, cols, fronts, first
            self._columns = (nodes, inserts, cols, fronts, first)
        return self._columns


# Cells of the dynamic programme above which the distance is not computed (None): about 4 s at
# 0.85 us a cell here. Formulas need thousands; a right-nested chain of 2,000 powers needs 8 million.
MAX_TREE_EDIT_CELLS = 5_000_000


def tree_edit_cells(tree: PreparedTree) -> int:
    """The rows (or columns) Zhang-Shasha spends on ``tree`` as written: the sizes of its keyroots'
    subtrees (the cap's measure, whichever way round the programme runs)."""
    return tree.cells


def tree_edit_distance(a: Expr | PreparedTree, b: Expr | PreparedTree, label: Callable[[Expr], str]) -> int | None:
    """Zhang-Shasha tree edit distance from ``a`` to ``b`` with character costs (module docstring).

    Children are ordered. ``label`` gives each node's label (unused for prepared trees). Time
    O(|a| |b| min(depth, leaves)^2) in the worst case; far less for formulas. None when the
    programme would fill more than ``MAX_TREE_EDIT_CELLS`` cells, so that no returned formula can
    stall the judge.
    """
    ta = a if isinstance(a, PreparedTree) else PreparedTree(a, label)
    tb = b if isinstance(b, PreparedTree) else PreparedTree(b, label)
    if ta.shape == tb.shape:
        return 0  # same labels in the same postorder with the same shape: the same tree
    if ta.cells * tb.cells > MAX_TREE_EDIT_CELLS:
        return None
    key = (ta.shape, tb.shape)
    with _known_lock:
        found = _known.get(key)
    if found is None:
        # the distance is the same both ways round (inserting and deleting a label cost alike,
        # renaming is symmetric): the rows go to the tree that makes the programme cheaper
        a_rows = ta.work * (tb.width + _ROW_COST) + ta.leaves * tb.size * _LEAF_COST
        b_rows = tb.work * (ta.width + _ROW_COST) + tb.leaves * ta.size * _LEAF_COST
        # a path through ``never`` must cost more than any distance: more than all the characters
        never = max(_NEVER, sum(ta.sizes) + sum(tb.sizes) + 1)
        found = _zhang_shasha(ta, tb, never) if a_rows <= b_rows else _zhang_shasha(tb, ta, never)
        with _known_lock:
            _known[key] = found
            if len(_known) > _KNOWN_SIZE:
                del _known[next(iter(_known))]  # the oldest: skeletons recur within a pass, rarely across
    return found


# A row's own cost (its list, its loop), and a leaf's closed form per node of the other tree, in
# cells: to weigh the rows against the columns.
_ROW_COST = 8
_LEAF_COST = 2

# Distances computed, by the two trees' shapes: methods often return the same skeleton, and
# catalogs share truths (masked skeletons recur more than formulas do).
_KNOWN_SIZE = 8192
_known: dict[tuple, int] = {}
_known_lock = threading.Lock()


def _zhang_shasha(ta: PreparedTree, tb: PreparedTree, never: int) -> int:
    """The distance between two prepared trees by Zhang and Shasha's dynamic programme, ``ta``'s
    nodes as rows, ``tb``'s as columns (``PreparedTree.columns``).

    For each keyroot of ``a``, one pass over its rows fills the forest distances of every keyroot
    of ``b`` at once. Formula trees are small, so the per-row overhead, not the cells, dominated a
    pass per pair of keyroots. A row ends with ``never`` so that a block's first column can read
    "no diagonal" at index -1. A keyroot that is a leaf, of either tree, is a closed form
    (``_to_leaf``: a leaf's distance to every subtree of the other tree), not a pass's rows nor a
    block of its columns: the distances between two trees do not depend on which one is the rows.
    """
    left_a = ta.leftmost
    delete = ta.sizes
    lb = tb.labels
    distinct_b = set(lb)
    rows: dict[str, list[int]] = {}  # one row of rename costs per distinct label of a
    for x in set(ta.labels):
        costs = _rename_costs(x)
        for y in distinct_b.difference(costs):
            costs[y] = label_distance(x, y)
        rows[x] = list(map(costs.__getitem__, lb))
    labels_a = ta.labels
    rename = list(map(rows.__getitem__, labels_a))
    tree = [[0] * (tb.size + 1) for _ in range(ta.size + 1)]
    inner = []  # the keyroots of a that are not leaves: the others' rows are closed forms
    leaves: dict[str, list[int]] = {}  # a leaf's row depends on its label alone
    for i in ta.keyroots:
        if left_a[i] == i:
            row = leaves.get(labels_a[i])
            if row is None:
                row = leaves[labels_a[i]] = _to_leaf(list(map(sub, rename[i], tb.sizes)), tb, delete[i], never)
            tree[i][1:] = row
        else:
            inner.append(i)
    left_b, insert = tb.leftmost, tb.sizes
    columns: dict[str, list[int]] = {}  # and a leaf keyroot's column of b (renames are symmetric)
    for j in tb.keyroots:
        if left_b[j] == j:
            column = columns.get(lb[j])
            if column is None:
                gains = [row[j] - cost for row, cost in zip(rename, delete)]
                column = columns[lb[j]] = _to_leaf(gains, ta, insert[j], never)
            for tree_row, value in zip(islice(tree, 1, None), column):
                tree_row[j] = value
    nodes, inserts, cols, fronts, first = tb.columns(never)
    if not nodes:
        inner = []  # every keyroot of b is a leaf: b is one leaf, its column is the answer

    for i in inner:
        li = left_a[i]
        ioff = li - 1
        forest = [first]
        above = first
        for node_a in range(li, i + 1):
            cost_del = delete[node_a]
            tree_row = tree[node_a]
            row: list[int] = []
            append = row.append
            prev = never
            if left_a[node_a] == li:  # node_a on i's left path: tree distances are set here
                rename_row = rename[node_a]
                above_left = never
                for nb, cost_ins, front, up in zip(nodes, inserts, fronts, above):
                    prev += cost_ins
                    best = up + cost_del
                    if best < prev:
                        prev = best
                    if front is None:
                        best = above_left + rename_row[nb]
                        if best < prev:
                            prev = best
                        tree_row[nb] = prev
                    else:
                        best = front + tree_row[nb]  # the forest left of li is empty
                        if best < prev:
                            prev = best
                    append(prev)
                    above_left = up
            else:
                forest_p = forest[left_a[node_a] - 1 - ioff]
                for nb, cost_ins, col, up in zip(nodes, inserts, cols, above):
                    prev += cost_ins
                    best = up + cost_del
                    if best < prev:
                        prev = best
                    best = forest_p[col] + tree_row[nb]
                    if best < prev:
                        prev = best
                    append(prev)
            append(never)
            forest.append(row)
            above = row
    return tree[ta.size][tb.size]


# Rename costs by label, then by the other label: labels recur across all the trees of a pass.
_RENAME_SIZE = 4096
_renames: dict[str, dict[str, int]] = {}


def _rename_costs(label: str) -> dict[str, int]:
    """The rename costs from ``label`` known so far (the caller adds those it lacks)."""
    costs = _renames.get(label)
    if costs is None or len(costs) > _RENAME_SIZE:
        if len(_renames) > _RENAME_SIZE:
            _renames.clear()  # labels are operators, variables and a few numbers: rarely reached
        costs = _renames[label] = {}
    return costs


def _to_leaf(gains: list[int], tree: PreparedTree, leaf: int, never: int) -> list[int]:
    """The distances between one leaf and every subtree of ``tree`` (nodes 1..n): the subtree's
    insertions plus the leaf's deletion, or less what mapping the leaf onto its best node saves
    (a mapping of one pair is always valid).

    ``gains`` gives, per node of the tree (index 0 unused), the leaf's rename cost onto it less
    the node's own cost; ``leaf`` is the leaf's own cost. The best gain in a subtree comes from
    its root and, through its last child, from the forest of its children; ``forests[k]`` is the
    best gain in the subtrees of k and its previous siblings.
    """
    totals, last, previous = tree.subtrees()
    forests = [never]
    keep = forests.append
    distances = []
    append = distances.append
    for gain, child, sibling, total in zip(islice(gains, 1, None), last, previous, totals):
        best = forests[child]
        if gain < best:
            best = gain
        before = forests[sibling]
        keep(best if best < before else before)
        append(total + (best if best < leaf else leaf))
    return distances
