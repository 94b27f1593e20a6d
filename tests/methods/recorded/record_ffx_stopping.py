"""Record why FFX's models stop at about 1e-3 FVU, for tests/methods/test_adapter_ffx.py.

Run under the interpreter of FFX's own environment (which has ffx, not srbf)::

    $SRBF_HOME/envs/ffx/bin/python tests/methods/recorded/record_ffx_stopping.py

On small problems whose truth is a linear combination of FFX's own bases (``x0*x1``, a linear
function) and on one that is not (``sqrt(x0)``: ffx 2.1.0 never builds its power bases), it runs
the adapter's ``run`` as srbf does and records, per problem:

- ``front``: every model of FFX's Pareto set, as the adapter reads it (``raw``, its srbf infix,
  its loss = FFX's ``test_nmse``) with **FFX's own predictions** on the support points and on
  fresh points; the last one is the model the adapter returns;
- ``regressor``: the predictions of ``ffx.FFXRegressor`` (the scikit-learn wrapper) fitted on the
  same points, whose choice the adapter follows;
- ``lowered_target``: not what srbf runs. The same ``ffx.run`` with the build strategy's stopping
  target ``final_target_train_nmse`` lowered from 0.01 to 1e-9, the returned model and FFX's
  predictions: the evidence that FFX's 1% stopping target, not srbf's conversion, bounds the
  accuracy;
- ``approaches``: the (inter, denom, expon, nonlin, thresh) settings ``ffx.run`` built models
  with, and the shipped strategy's constants.

FFX is deterministic: a rerun records the same models.
"""

from __future__ import annotations

import importlib.metadata
import json
import platform
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
from record import floats, load_adapter  # noqa: E402  (the recorded/ folder is on sys.path when run as a script)

LOWERED = 1e-9


def problem(kind: str, n: int = 128, n_eval: int = 64, seed: int = 11):
    rng = np.random.default_rng(seed)
    if kind == "product":  # Feynman I.12.1's form and range: mu*Nn on [1, 5]^2
        X = rng.uniform(1, 5, (n + n_eval, 2))
        y = X[:, 0] * X[:, 1]
    elif kind == "linear":  # 2.5*x0 - x1 + 0.75 on [-2, 2]^2
        X = rng.uniform(-2, 2, (n + n_eval, 2))
        y = 2.5 * X[:, 0] - X[:, 1] + 0.75
    elif kind == "sqrt":  # Nguyen-8: sqrt(x) on [0, 4]
        X = rng.uniform(0, 4, (n + n_eval, 1))
        y = np.sqrt(X[:, 0])
    else:
        raise ValueError(kind)
    return X[:n], y[:n], X[n:], y[n:]


PROBLEMS = (
    ("product", ("mu", "Nn"), "mu*Nn", True),
    ("linear", ("a", "b"), "2.5*a - b + 0.75", True),
    ("sqrt", ("x1",), "sqrt(x1)", False),
)


def main() -> None:
    import ffx
    from ffx.core import build_strategy

    adapter = load_adapter("ffx")
    shipped_init = build_strategy.FFXBuildStrategy.__init__
    approaches, target = [], {"value": None}

    def init(self, approach):
        shipped_init(self, approach)
        approaches.append(tuple(int(a) for a in approach))
        if target["value"] is not None:
            self.final_target_train_nmse = target["value"]

    build_strategy.FFXBuildStrategy.__init__ = init
    shipped = build_strategy.FFXBuildStrategy(ffx.core.approach.Approach(1, 0, 0, 0, 0))
    constants = {"final_target_train_nmse": shipped.final_target_train_nmse,
                 "final_max_num_bases": shipped.final_max_num_bases, "l1_ratio": shipped.l1_ratio,
                 "all_expr_exponents": list(shipped.all_expr_exponents)}  # fmt: skip
    approaches.clear()

    cases = []
    for kind, variables, truth, in_basis_space in PROBLEMS:
        X, y, X_eval, y_eval = problem(kind)
        approaches.clear()
        models, result = adapter.run(X, y, budget=1, seed=0, variables=variables, options={}, report=None)
        built_with = sorted(set(approaches))
        front = []
        for model, entry in zip(models, result["front"]):
            front.append({
                "raw": adapter.model_data(model), "printout": str(model), "expression": entry["expression"],
                "loss": entry["loss"], "num_bases": entry["num_bases"],
                "predictions": floats(model.predict(X)), "predictions_eval": floats(model.predict(X_eval)),
            })  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            regressor = ffx.FFXRegressor().fit(X, y)
        target["value"] = LOWERED
        try:
            lowered_models, lowered = adapter.run(X, y, budget=1, seed=0, variables=variables, options={}, report=None)
        finally:
            target["value"] = None
        best = lowered_models[-1]
        cases.append({
            "name": kind, "variables": list(variables), "truth": truth, "in_basis_space": in_basis_space,
            "X": [floats(r) for r in X], "y": floats(y), "X_eval": [floats(r) for r in X_eval], "y_eval": floats(y_eval),
            "expression": result["expression"], "front": front, "approaches": built_with,
            "regressor": {"predictions": floats(regressor.predict(X)), "predictions_eval": floats(regressor.predict(X_eval))},
            "lowered_target": {
                "final_target_train_nmse": LOWERED, "raw": lowered["model_data"], "printout": lowered["model"],
                "expression": lowered["expression"], "loss": lowered["front"][-1]["loss"],
                "predictions": floats(best.predict(X)), "predictions_eval": floats(best.predict(X_eval)),
            },
        })  # fmt: skip
        print(f"{kind}: {len(front)} models; returned {result['model']}; lowered target: {lowered['model'][:120]}")
    out = {
        "method": "ffx",
        "package": "ffx",
        "version": importlib.metadata.version("ffx"),
        "numpy": np.__version__,
        "python": platform.python_version(),
        "recorded_with": "tests/methods/recorded/record_ffx_stopping.py",
        "strategy": constants,
        "cases": cases,
    }
    path = HERE / "ffx_stopping.json"
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path} ({len(cases)} cases)")


if __name__ == "__main__":
    main(*sys.argv[1:])
