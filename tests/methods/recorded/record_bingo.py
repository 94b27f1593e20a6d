"""Record bingo's raw output for tests/methods/test_adapter_bingo.py.

Run under an interpreter that has bingo-nasa (not srbf)::

    $SRBF_HOME/envs/bingo/bin/python tests/methods/recorded/record_bingo.py

It fits small problems through the adapter's ``run`` and builds one AGraph by hand with every
node kind bingo has, then writes ``bingo.json``: per case the points, the command stack the
adapter reads, bingo's printout, the adapter's srbf infix and **bingo's own predictions** on the
support points and on fresh points (``SymbolicRegressor.predict``, or the AGraph's own
``evaluate_equation_at``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from record import built_case, fitted_case, load_adapter, write_recording  # noqa: E402

WIDE = {"unary": ["sin", "cos", "exp", "log", "sqrt", "abs", "sinh", "cosh", "tanh"],
        "binary": ["add", "sub", "mul", "div", "pow", "max"]}  # fmt: skip
SRBENCH = {"params": {"stack_size": 24, "use_simplification": True, "crossover_prob": 0.3, "mutation_prob": 0.45}}


def every_node_kind(adapter):
    """An AGraph whose stack holds each node kind bingo-nasa 0.5.7 can simplify (0 to 15: tan and
    the later ones stop its compiled backend), summed; bingo evaluates it."""
    from bingo.symbolic_regression.agraph.agraph import AGraph

    rows = [[0, 0, 0], [0, 1, 1], [1, 0, 0], [-1, 2, 2]]  # x0, x1, c0, the integer 2
    rows += [[2, 0, 1], [3, 4, 2], [4, 5, 0], [5, 6, 1]]  # 4: x0 + x1, 5: 4 - c0, 6: 5*x0, 7: 6/x1
    rows += [[10, 0, 3], [13, 5, 2]]  # 8: x0**2, 9: |row 5|**c0
    for node in (6, 7, 8, 9, 11, 12, 14, 15):  # sin cos exp log abs sqrt sinh cosh, of row 5 (negative too)
        rows.append([node, 5, 5])
    first_sum = len(rows)
    rows.append([2, 7, 8])
    for i in range(9, first_sum):
        rows.append([2, len(rows) - 1, i])
    graph = AGraph()
    graph.command_array = np.array(rows, dtype=int)
    graph.set_local_optimization_params([0.75])
    rng = np.random.default_rng(5)
    X = rng.uniform(0.1, 0.9, (40, 2))
    X_eval = rng.uniform(0.1, 0.9, (20, 2))
    data = adapter.stack_data(graph)
    with np.errstate(all="ignore"):
        predictions = graph.evaluate_equation_at(X).ravel(), graph.evaluate_equation_at(X_eval).ravel()
    return built_case("built: every node kind", ("a", "b"), X, X_eval, data, str(graph),
                      adapter.to_infix(data, ("a", "b")), *predictions, "an AGraph built by hand")  # fmt: skip


def main():
    adapter = load_adapter("bingo")

    def predict(model, X):
        return model.predict(X)

    raw = lambda r: r["stack"]  # noqa: E731
    printout = lambda r: r["model"]  # noqa: E731
    cases = [
        fitted_case(adapter, "poly_sin default operators", "poly_sin", ("u", "v"), 10, 1, None, predict, raw, printout),
        fitted_case(adapter, "log_sqrt wide operator set", "log_sqrt", ("m_1", "theta"), 10, 2, WIDE,
                    predict, raw, printout),  # fmt: skip
        fitted_case(adapter, "three variables, srbench configuration", "three", ("p", "q", "r"), 10, 3, SRBENCH,
                    predict, raw, printout),  # fmt: skip
        every_node_kind(adapter),
    ]
    write_recording("bingo", "bingo-nasa", cases, "tests/methods/recorded/record_bingo.py")


if __name__ == "__main__":
    main()
