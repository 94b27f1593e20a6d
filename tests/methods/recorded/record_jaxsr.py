"""Record jaxsr's raw output for tests/methods/test_adapter_jaxsr.py.

Run under an interpreter that has jaxsr (not srbf)::

    /tmp/env-jaxsr/bin/python tests/methods/recorded/record_jaxsr.py

It fits small problems through the adapter's own ``fit`` (capturing the estimator it builds;
float64, as the adapter runs JAX), and writes ``jaxsr.json``: per case the points, the selected
basis functions as the adapter reads them (type, configuration, display name) with their
coefficients, the adapter's srbf infix, and **jaxsr's own predictions** on the support points and
on fresh points: ``SymbolicRegressor.predict`` for the selected model, and the library's
``evaluate`` times the coefficients for the other models of its Pareto front.
"""

from __future__ import annotations

import importlib.metadata
import json
import platform
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
from record import floats, load_adapter, small_problem as problem  # noqa: E402  (the recorded/ folder is on sys.path when run as a script)



class Capture:
    """The jaxsr module, except that constructing ``SymbolicRegressor`` keeps the instance."""

    def __init__(self, module):
        self.module, self.instances = module, []

    def __getattr__(self, name):
        value = getattr(self.module, name)
        if name != "SymbolicRegressor":
            return value

        def make(*args, **kwargs):
            instance = value(*args, **kwargs)
            self.instances.append(instance)
            return instance

        return make



WIDE = {"unary": ["sin", "cos", "exp", "log", "sqrt", "tan", "tanh", "abs", "sinh", "cosh"],
        "binary": ["add", "sub", "mul", "div"]}  # fmt: skip
FITS = [  # (kind, variables, max_terms, options)
    ("poly_sin", ("u", "v"), 3, {}),
    ("log_sqrt", ("x1", "x2"), 5, WIDE),
    ("three", ("a", "b", "c"), 4, {}),
]


def main():
    adapter = load_adapter("jaxsr")
    adapter.setup({"warmup": False})
    capture = Capture(adapter._jaxsr)
    adapter._jaxsr = capture
    cases = []
    for kind, variables, max_terms, options in FITS:
        X, y, X_eval = problem(kind, seed=len(cases))
        reports = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = adapter.fit(X, y, budget=max_terms, seed=0, variables=variables, options=options,
                                 report=reports.append)  # fmt: skip
        model = capture.instances[-1]
        library = model.basis_library
        functions = library.basis_functions

        def case(label, indices, coefficients, predict):
            indices = [int(i) for i in np.asarray(indices).ravel()]
            terms = [[functions[i].func_type, dict(functions[i].func_config or {}), functions[i].name] for i in indices]
            return {
                "name": f"{kind} {label}",
                "variables": list(variables),
                "budget": max_terms,
                "options": options,
                "X": [floats(r) for r in X],
                "y": floats(y),
                "X_eval": [floats(r) for r in X_eval],
                "raw": {"terms": terms, "coefficients": floats(coefficients)},
                "printout": str(model.expression_) if label == "selected" else None,
                "expression": adapter.model_infix(floats(coefficients),
                                                  [adapter.term_infix(t, c, n, variables) for t, c, n in terms]),
                "predictions": floats(predict(X)),
                "predictions_eval": floats(predict(X_eval)),
            }

        selected = case("selected", model.selected_indices_, model.coefficients_,
                        lambda points: np.asarray(model.predict(points)))  # fmt: skip
        assert selected["expression"] == result["expression"]
        selected["front"] = [f["expression"] for f in result["front"]]
        selected["reports"] = reports
        selected["library"] = result["library_functions"]
        cases.append(selected)
        for j, entry in enumerate(model.pareto_front_):
            idx = np.asarray(entry.selected_indices)
            coef = np.asarray(entry.coefficients)

            def predict(points, idx=idx, coef=coef):
                return np.asarray(library.evaluate(points))[:, idx] @ coef

            cases.append(case(f"front {j}", idx, coef, predict))
    out = {
        "package": "jaxsr",
        "version": importlib.metadata.version("jaxsr"),
        "jax": importlib.metadata.version("jax"),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "recorded_by": "tests/methods/recorded/record_jaxsr.py",
        "cases": cases,
    }
    path = HERE / "jaxsr.json"
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path} ({len(cases)} cases)")


if __name__ == "__main__":
    main()
