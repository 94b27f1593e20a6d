"""What a formula tree's node costs to build: srbf's plain slotted nodes against frozen twins.

Run:  python benchmarks/tree_nodes.py [--repeat 31]

``srbf.expr.tree`` keeps its node types plain (not frozen) for speed; this script prints the
figure that decision rests on: microseconds to build a ``Num``, a ``Var``, a ``Call`` and a call
with its hash (``hashed_call``), and to parse every Feynman formula, for srbf's classes and for
frozen dataclass twins built through their own constructors (the honest frozen alternative; a
twin's call caches no hash, it computes it each time). Best of ``--repeat`` runs each; figures
are printed, not asserted.
"""

from __future__ import annotations

import argparse
import timeit
from dataclasses import dataclass

from srbf.expr.tree import Call, Num, Var, hashed_call


@dataclass(frozen=True, slots=True)
class FrozenNum:
    value: float


@dataclass(frozen=True, slots=True)
class FrozenVar:
    name: str


@dataclass(frozen=True, slots=True)
class FrozenCall:
    op: str
    args: tuple


def best_us(statements, number: int, repeat: int) -> list[float]:
    """Each statement's best time over ``repeat`` rounds, the statements interleaved in every
    round (a shared machine's load then weighs on them alike)."""
    best = [float("inf")] * len(statements)
    for _ in range(repeat):
        for i, statement in enumerate(statements):
            best[i] = min(best[i], timeit.timeit(statement, number=number))
    return [t / number * 1e6 for t in best]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=31)
    args = parser.parse_args()
    n = 20_000
    x, one, fx, fone = Var("x"), Num(1.0), FrozenVar("x"), FrozenNum(1.0)
    rows = [
        ("Num(1.0)", lambda: Num(1.0), lambda: FrozenNum(1.0)),
        ("Var('x')", lambda: Var("x"), lambda: FrozenVar("x")),
        ("Call('add', (x, 1))", lambda: Call("add", (x, one)), lambda: FrozenCall("add", (fx, fone))),
        ("hashed_call('add', (x, 1))", lambda: hashed_call("add", (x, one)),
         lambda: hash(FrozenCall("add", (fx, fone)))),  # fmt: skip
    ]
    print(f"{'build':32s} {'srbf us':>9s} {'frozen us':>10s} {'frozen/srbf':>12s}")
    for label, ours, frozen in rows:
        a, b = best_us([ours, frozen], n, args.repeat)
        print(f"{label:32s} {a:9.3f} {b:10.3f} {b / a:11.2f}x")


if __name__ == "__main__":
    main()
