"""Record the QLattice's (feyn's) raw output for tests/methods/test_adapter_qlattice.py.

Run under an interpreter that has feyn (not srbf)::

    /tmp/env-qlattice/bin/python tests/methods/recorded/record_qlattice.py

It fits small problems through the adapter's own ``fit`` (capturing the models
``get_diverse_models`` returns), and writes ``qlattice.json``: per case the points, the model's
graph as the adapter reads it (each element's function, input name, parameters and children), the
adapter's srbf infix, and **feyn's own predictions** on the support points and on fresh points:
``Model.predict``, which clips the arguments of exp, log, sqrt, inverse and squared into a safe
range, and the same evaluation without those protections (``unprotected``).
"""

from __future__ import annotations

import importlib.metadata
import json
import logging
import platform
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
from record import floats, load_adapter, small_problem as problem  # noqa: E402  (the recorded/ folder is on sys.path when run as a script)



class Capture:
    """The feyn module, except that what ``get_diverse_models`` returns is kept."""

    def __init__(self, module):
        self.module, self.chosen = module, []

    def __getattr__(self, name):
        value = getattr(self.module, name)
        if name != "get_diverse_models":
            return value

        def chosen(*args, **kwargs):
            models = value(*args, **kwargs)
            self.chosen.append(models)
            return models

        return chosen



FITS = [  # (kind, variables, epochs, seed, options): the best model, and others for new functions
    ("poly_sin", ("u", "v"), 2, 1, {}),
    ("three", ("x1", "x2", "x3"), 1, 2, {"unary": ["sin", "cos", "exp", "log", "sqrt", "tanh"]}),
    ("log_sqrt", ("a", "b"), 1, 3, {"unary": ["sin", "cos", "exp", "log", "sqrt", "tanh"]}),
]


def main():
    logging.getLogger("feyn").setLevel(logging.WARNING)
    adapter = load_adapter("qlattice")
    adapter.setup({})
    capture = Capture(adapter._feyn)
    adapter._feyn = capture
    pd = adapter._pd
    cases = []
    seen = set()
    for kind, variables, epochs, seed, options in FITS:
        X, y, X_eval = problem(kind, seed)
        reports = []
        result = adapter.fit(X, y, budget=epochs, seed=seed, variables=variables, options=options, report=reports.append)
        models = capture.chosen[-1]
        inputs = {f"in{i}": v for i, v in enumerate(variables)}

        def frame(points):
            return pd.DataFrame({name: points[:, i] for i, name in enumerate(inputs)})

        for i, model in enumerate(models):
            elements = [[e.fname, e.name, {k: v for k, v in dict(e.params).items()}, list(e.children)] for e in model]
            functions = {e[0] for e in elements}
            if i > 0 and functions <= seen:
                continue
            seen |= functions
            case = {
                "name": f"{kind} model {i}",
                "variables": list(variables),
                "budget": epochs,
                "seed": seed,
                "options": options,
                "X": [floats(r) for r in X],
                "y": floats(y),
                "X_eval": [floats(r) for r in X_eval],
                "raw": {"elements": elements, "inputs": inputs},
                "printout": str(model.sympify(signif=6)),
                "expression": adapter.model_infix(elements, inputs),
                "loss": float(model.loss_value),
                "predictions": floats(model.predict(frame(X))),
                "predictions_eval": floats(model.predict(frame(X_eval))),
                # feyn's evaluation without its protections (what the formula computes)
                "unprotected": floats(model._get_activations(frame(X), protected=False)[0]),
                "unprotected_eval": floats(model._get_activations(frame(X_eval), protected=False)[0]),
            }
            if i == 0:
                assert case["expression"] == result["expression"]
                case["trajectory_by_epoch"] = result["trajectory_by_epoch"]
                case["reports"] = reports
                case["function_names"] = result["function_names"]
                case["front"] = [f["expression"] for f in result["front"]]
            cases.append(case)
    out = {
        "package": "feyn",
        "version": importlib.metadata.version("feyn"),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "recorded_by": "tests/methods/recorded/record_qlattice.py",
        "cases": cases,
    }
    path = HERE / "qlattice.json"
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path} ({len(cases)} cases)")


if __name__ == "__main__":
    main()
