"""Record ITEA's raw output for tests/methods/test_adapter_itea.py.

Run under an interpreter that has itea (not srbf)::

    $SRBF_HOME/envs/itea/bin/python tests/methods/recorded/record_itea.py

It fits small problems through the adapter's ``run`` and builds one IT expression by hand with
every transformation function the adapter knows, then writes ``itea.json``: per case the points,
the terms, weights and intercept the adapter reads, ITEA's printout, the adapter's srbf infix and
**ITEA's own predictions** on the support points and on fresh points (``predict``).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from record import built_case, fitted_case, load_adapter, write_recording  # noqa: E402

WIDE = {"unary": ["sin", "cos", "exp", "log", "sqrt", "tan", "abs", "tanh", "sinh", "cosh", "atan"],
        "binary": ["add", "sub", "mul", "div", "pow"]}  # fmt: skip


def every_function(adapter):
    """An IT expression with one term per transformation function, fitted by ITEA's least squares."""
    from itea.regression import ITExpr_regressor

    names = list(adapter.TRANSFORMATIONS)
    exponents = [[1, 0], [0, 1], [1, 1], [2, -1], [-1, 0], [0, -2], [1, -1], [2, 0], [-2, 1], [1, 2], [0, 0], [-1, 1]]
    expr = [(name, exponents[i % len(exponents)]) for i, name in enumerate(names)]
    tfuncs = {name: function for name, (function, _) in adapter.TRANSFORMATIONS.items()}
    rng = np.random.default_rng(5)
    X = rng.uniform(0.3, 1.2, (60, 2))
    X_eval = rng.uniform(0.3, 1.2, (20, 2))
    y = X[:, 0] * X[:, 1] + np.sin(X[:, 0])
    model = ITExpr_regressor(expr=expr, tfuncs=tfuncs, labels=["a", "b"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    data = adapter.model_data(model)
    return built_case("built: every transformation function", ("a", "b"), X, X_eval, data, model.to_str(places=6),
                      adapter.to_infix(data, ("a", "b")), model.predict(X), model.predict(X_eval),
                      "an ITExpr_regressor built by hand, weights fitted by ITEA")  # fmt: skip


def main():
    adapter = load_adapter("itea")

    def predict(model, X):
        return model.predict(X)

    raw = lambda r: r["model_data"]  # noqa: E731
    printout = lambda r: r["model"]  # noqa: E731
    cases = [
        fitted_case(adapter, "poly_sin default operators", "poly_sin", ("u", "v"), 8, 1, None, predict, raw, printout),
        fitted_case(adapter, "log_sqrt wide operator set", "log_sqrt", ("m_1", "theta"), 8, 2, WIDE,
                    predict, raw, printout),  # fmt: skip
        fitted_case(adapter, "three variables", "three", ("p", "q", "r"), 8, 3, None, predict, raw, printout),
        every_function(adapter),
    ]
    write_recording("itea", "itea", cases, "tests/methods/recorded/record_itea.py")


if __name__ == "__main__":
    main()
