"""Record QLattice fits that recover a benchmark formula numerically, for
tests/methods/test_adapter_qlattice.py (why they never match the truth's structure).

The points are srbf's own (the roster's problems, run seed 0), written by ``srbf sample`` first;
the fit runs under an interpreter that has feyn (not srbf), exactly as srbf's worker runs it
(the adapter's ``fit``, budget 4 epochs, seed 0, Python's and NumPy's global generators seeded
with it: feyn resamples the data with ``np.random``)::

    srbf sample feynman I.12.1 --draw 0 -o /tmp/I.12.1_0.npz
    srbf sample nguyen Nguyen-8 --draw 0 -o /tmp/Nguyen-8_0.npz
    ~/.local/share/srbf/envs/qlattice/bin/python tests/methods/recorded/record_qlattice_truths.py \\
        /tmp/I.12.1_0.npz /tmp/Nguyen-8_0.npz

It writes ``qlattice_truths.json``: per problem the truth, the support and validation points, the
returned model's graph (as the adapter reads it), the adapter's infix, and feyn's own predictions
on the validation points, with (``Model.predict``) and without (``unprotected``) its clipping.
"""

from __future__ import annotations

import importlib.metadata
import json
import logging
import platform
import random
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
from record import floats, load_adapter  # noqa: E402  (the recorded/ folder is on sys.path when run as a script)
from record_qlattice import Capture  # noqa: E402

BUDGET, SEED = 4, 0


def main(paths):
    logging.getLogger("feyn").setLevel(logging.WARNING)
    adapter = load_adapter("qlattice")
    adapter.setup({})
    capture = Capture(adapter._feyn)
    adapter._feyn = capture
    pd = adapter._pd
    cases = []
    for path in paths:
        data = np.load(path)
        variables = [str(v) for v in data["variables"]]
        X, y = data["X_support"], data["y_support"]
        X_val, y_val = data["X_validation"], data["y_validation"]
        random.seed(SEED)  # as srbf's worker does before each fit
        np.random.seed(SEED)
        result = adapter.fit(X, y, budget=BUDGET, seed=SEED, variables=variables, options={}, report=lambda e: None)
        model = capture.chosen[-1][0]
        elements = [[e.fname, e.name, dict(e.params), list(e.children)] for e in model]
        inputs = {f"in{i}": v for i, v in enumerate(variables)}
        frame = pd.DataFrame({name: X_val[:, i] for i, name in enumerate(inputs)})
        case = {
            "name": f"{data['catalog']} {data['problem_id']} draw {int(data['draw'])}",
            "truth": str(data["formula"]),
            "variables": variables,
            "budget": BUDGET,
            "seed": SEED,
            "X_support": [floats(r) for r in X],
            "y_support": floats(y),
            "X_validation": [floats(r) for r in X_val],
            "y_validation": floats(y_val),
            "raw": {"elements": elements, "inputs": inputs},
            "printout": str(model.sympify(signif=6)),
            "expression": adapter.model_infix(elements, inputs),
            "loss": float(model.loss_value),
            "predictions_validation": floats(model.predict(frame)),
            "unprotected_validation": floats(model._get_activations(frame, protected=False)[0]),
        }
        assert case["expression"] == result["expression"]
        cases.append(case)
        print(case["name"], case["expression"])
    out = {
        "package": "feyn",
        "version": importlib.metadata.version("feyn"),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "recorded_by": "tests/methods/recorded/record_qlattice_truths.py",
        "cases": cases,
    }
    path = HERE / "qlattice_truths.json"
    path.write_text(json.dumps(out) + "\n", encoding="utf-8")
    print(f"wrote {path} ({len(cases)} cases)")


if __name__ == "__main__":
    main(sys.argv[1:])
