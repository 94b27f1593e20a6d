"""The formula tree: four node types, compared and hashed by structure.

Trees are never changed once built, so they can be cached, used as dictionary keys and shared
between threads.
The parser produces binary ``add``/``mul``; later passes (canonical form) may build n-ary ones.
A long sum parses into a tree as deep as it is long, so nothing here recurses: a call computes
its hash once, on first use, from its children's, and compares with an explicit stack.

Why the node types are not frozen (the one place that says so): scoring builds hundreds of
thousands of nodes, and a frozen dataclass's ``__init__`` sets each field through
``object.__setattr__``, while a plain slotted class stores it directly; and a call keeps the hash it
computes on first use (or at build, ``hashed_call``). Measured by ``benchmarks/tree_nodes.py``:
frozen twins built through their constructors cost about twice as much per node (``Num``, ``Var``
0.15 against 0.08 us; ``Call`` 0.3-0.45 against 0.1 us). So the classes are plain slotted
dataclasses (fields, repr, equality, pickling) that nothing writes to after ``__init__``, except a
call's own cached hash; ``tests/test_frozen.py`` holds the rest of srbf to writing no frozen object.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Union


@dataclass(slots=True, init=False)
class Num:
    """A number written in the formula (a constant a method fitted, or an exponent)."""

    value: float

    def __init__(self, value: float) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        # NaN literals compare equal to themselves so that trees stay comparable.
        if not isinstance(other, Num):
            return NotImplemented
        a, b = self.value, other.value
        return a == b or (a != a and b != b)

    def __hash__(self) -> int:
        value = self.value
        return hash(("Num", value if value == value else "nan"))


@dataclass(slots=True, init=False, unsafe_hash=True)
class Var:
    """An input variable, by name; the column it reads is fixed when the formula is compiled."""

    name: str

    def __init__(self, name: str) -> None:
        self.name = name


@dataclass(slots=True, init=False, unsafe_hash=True)
class Const:
    """A named mathematical constant: ``pi`` or ``e``."""

    name: str

    def __init__(self, name: str) -> None:
        self.name = name


@dataclass(slots=True, init=False)
class Call:
    """An operator applied to its arguments (``op`` is a name from the operator table)."""

    op: str
    args: tuple["Expr", ...]
    _hash: int | None = field(default=None, init=False, repr=False, compare=False)  # set on first use, then kept

    def __init__(self, op: str, args: tuple["Expr", ...]) -> None:
        self.op = op
        self.args = args
        self._hash = None

    def __hash__(self) -> int:
        found = self._hash
        if found is not None:
            return found
        stack = [self]  # children first, without recursion
        while stack:
            node = stack[-1]
            pending = [a for a in node.args if type(a) is Call and a._hash is None]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            node._hash = hash((node.op, node.args))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not Call:
            return NotImplemented
        if hash(self) != hash(other):
            return False
        stack = [(self, other)]
        while stack:
            a, b = stack.pop()
            if a is b:
                continue
            if type(a) is Call:
                if type(b) is not Call or hash(a) != hash(b) or a.op != b.op or len(a.args) != len(b.args):
                    return False
                stack.extend(zip(a.args, b.args))
            elif a != b:
                return False
        return True

    def __reduce__(self):
        return (Call, (self.op, self.args))  # the hash is recomputed: str hashes differ between processes


Expr = Union[Num, Var, Const, Call]


def hashed_call(op: str, args: tuple[Expr, ...]) -> Call:
    """``Call(op, args)`` with its hash computed now, from its children's (computed already when
    they were built this way): for a tree built bottom-up whose every node will be compared."""
    node = Call(op, args)
    node._hash = hash((op, args))
    return node


def walk(expr: Expr) -> Iterator[Expr]:
    """Every node of the tree in prefix order (iteratively: deep trees do not hit the recursion limit)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, Call):
            stack.extend(reversed(node.args))


def rebuild(expr: Expr, leaf, call) -> Expr:
    """Rebuild a tree bottom-up without recursion (a long sum parses into a deep binary tree):
    ``leaf(x)`` maps a leaf, ``call(node, args)`` a call given its rebuilt arguments."""
    out: list[Expr] = []
    stack: list = [expr]  # a node, or (call,): its arguments are the last of ``out``, build it
    pop, push, extend, append = stack.pop, stack.append, stack.extend, out.append
    while stack:
        node = pop()
        kind = type(node)
        if kind is Call:
            push((node,))
            extend(reversed(node.args))
        elif kind is tuple:
            node = node[0]
            n = len(node.args)
            args = tuple(out[len(out) - n:])
            del out[len(out) - n:]
            append(call(node, args))
        else:
            append(leaf(node))
    return out[0]


def variables_of(expr: Expr) -> set[str]:
    """The names of the variables a formula uses (a plain stack, not ``walk``: the judge asks this
    of every truth and formula, and a generator costs more than the work)."""
    names: set[str] = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if type(node) is Call:
            stack.extend(node.args)
        elif type(node) is Var:
            names.add(node.name)
    return names


def count_nodes(expr: Expr) -> int:
    """How many nodes the tree has (operators, variables, numbers and constants)."""
    return sum(1 for _ in walk(expr))
