"""Record RILS-ROLS's raw output for tests/methods/test_adapter_rils_rols.py.

Run under an interpreter that has rils-rols (not srbf)::

    /tmp/env-rils_rols/bin/python tests/methods/recorded/record_rils_rols.py

It fits small problems with the package's regressor as the adapter configures it (in this
process, so that the fitted C++ model can also predict the fresh points), and writes
``rils_rols.json``: per case the points, the formula as the package prints it (constants with six
decimals), the adapter's srbf infix (the printed structure with the constants recovered from the
package's predictions on the support points), and **the package's own predictions** on the
support points and on fresh points (which the recovery never saw). One more fit goes through the
adapter's ``fit`` itself, for its trajectory.
"""

from __future__ import annotations

import importlib.metadata
import json
import platform
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
from record import floats, load_adapter  # noqa: E402  (the recorded/ folder is on sys.path when run as a script)



def problem(kind, seed, n=64, n_eval=32):
    rng = np.random.default_rng(seed)
    if kind == "poly_sin":  # x0**2 + sin(x1) on [-2, 2]^2
        X = rng.uniform(-2, 2, (n + n_eval, 2))
        y = X[:, 0] ** 2 + np.sin(X[:, 1])
    elif kind == "log_sqrt":  # log(x0)*x1 + sqrt(x1) on [0.5, 3]^2
        X = rng.uniform(0.5, 3, (n + n_eval, 2))
        y = np.log(X[:, 0]) * X[:, 1] + np.sqrt(X[:, 1])
    elif kind == "rational":  # x0**3 - x0 + 1/(1 + x0**2) on [-1.5, 1.5]
        X = rng.uniform(-1.5, 1.5, (n + n_eval, 1))
        y = X[:, 0] ** 3 - X[:, 0] + 1 / (1 + X[:, 0] ** 2)
    else:  # damped: exp(-x0)*sin(2.3*x1)/x2 + 0.3*x0**3 on [0.5, 2]^3
        X = rng.uniform(0.5, 2, (n + n_eval, 3))
        y = np.exp(-X[:, 0]) * np.sin(2.3 * X[:, 1]) / X[:, 2] + 0.3 * X[:, 0] ** 3
    return X[:n], y[:n], X[n:]



FITS = [  # (kind, variables, max_fit_calls, seed)
    ("poly_sin", ("u", "v"), 20000, 1),
    ("log_sqrt", ("x1", "x2"), 30000, 2),
    ("rational", ("t",), 30000, 3),
    ("damped", ("a", "b", "c"), 50000, 4),
]


def main():
    adapter = load_adapter("rils_rols")
    adapter.setup({})
    settings = dict(adapter.DEFAULTS)  # rils-rols's own defaults, as the adapter runs it
    cases = []
    for kind, variables, calls, seed in FITS:
        X, y, X_eval = problem(kind, seed)
        adapter._seed_c_rand(seed)
        model = adapter._Regressor(max_fit_calls=calls, verbose=False, random_state=seed, **settings)
        model.fit(X, y)
        printed = str(model.model)
        predictions = np.asarray(model.predict(X), dtype=float)
        formula = adapter.Formula(printed)
        values, error, how = adapter.recover_constants(formula, X, predictions)
        cases.append({
            "name": f"{kind} (seed {seed})",
            "variables": list(variables),
            "budget": calls,
            "seed": seed,
            "X": [floats(r) for r in X],
            "y": floats(y),
            "X_eval": [floats(r) for r in X_eval],
            "raw": {"printed": printed},
            "printout": printed,
            "expression": formula.infix(variables, values),
            "constants_source": how,
            "constants_error": error,
            "predictions": floats(predictions),
            "predictions_eval": floats(model.predict(X_eval)),
        })
    X, y, X_eval = problem("damped", 5)
    reports = []
    result = adapter.fit(X, y, budget=40000, seed=5, variables=("a", "b", "c"), options={}, report=reports.append)
    trajectory = {k: result[k] for k in ("expression", "raw_expression", "constants_source", "progress", "fit_calls",
                                         "stopped_by")}  # fmt: skip
    trajectory.update({"variables": ["a", "b", "c"], "X": [floats(r) for r in X], "y": floats(y), "reports": reports})
    out = {
        "package": "rils-rols",
        "version": importlib.metadata.version("rils-rols"),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "recorded_by": "tests/methods/recorded/record_rils_rols.py",
        "cases": cases,
        "adapter_fit": trajectory,
    }
    path = HERE / "rils_rols.json"
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path} ({len(cases)} cases)")


if __name__ == "__main__":
    main()
