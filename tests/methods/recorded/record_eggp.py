"""Record eggp's raw output for tests/methods/test_adapter_eggp.py.

Run under an interpreter that has eggp (not srbf)::

    /tmp/env-eggp/bin/python tests/methods/recorded/record_eggp.py            # eggp
    /tmp/env-symregg/bin/python tests/methods/recorded/record_eggp.py symregg # SymRegg, same layout

It fits small problems through the adapter's own ``fit`` (capturing the estimator it builds), and
writes ``NAME.json``: per case the points, the raw row of the results table (display text, which
the adapter converts; NumPy code and ``theta``), the adapter's srbf infix, the package's reported
training loss (``loss_train``, computed by its Haskell core) and the **package's own predictions**
(``predict`` for the selected model, ``make_function``/``evaluate_model`` for other rows: all
evaluate the NumPy code) on the support points and on fresh points. eggp has no seed, so a rerun
records different formulas.
"""

from __future__ import annotations

import importlib.metadata
import json
import platform
import re
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
from record import floats, load_adapter, small_problem as problem  # noqa: E402  (the recorded/ folder is on sys.path when run as a script)
CLASSES = {"eggp": "EGGP", "symregg": "SymRegg"}



class Capture:
    """The package module, except that constructing the estimator class keeps the instance."""

    def __init__(self, module, cls):
        self.module, self.cls, self.instances = module, cls, []

    def __getattr__(self, name):
        value = getattr(self.module, name)
        if name != self.cls:
            return value

        def make(*args, **kwargs):
            instance = value(*args, **kwargs)
            self.instances.append(instance)
            return instance

        return make



WIDE = {"unary": ["sin", "cos", "exp", "log", "sqrt", "abs", "tan", "tanh", "asin", "acos", "atan", "sinh",
                  "cosh", "square", "cube", "cbrt", "inv"],
        "binary": ["add", "sub", "mul", "div", "pow"]}  # fmt: skip
# SymRegg 1.0.4 did not finish 15 iterations in minutes with cbrt among its nonterminals
WIDE_SYMREGG = {"unary": [u for u in WIDE["unary"] if u != "cbrt"], "binary": WIDE["binary"]}


def fits(name):
    """(kind, variables, budget, options, extra rows to record) per fit."""
    if name == "eggp":  # 10 to 15 generations of 100 expressions
        return [
            ("poly_sin", ("u", "v"), 10, {}, 3),
            ("three", ("x1", "x2", "x3"), 10, {}, 2),
            ("log_sqrt", ("a", "b"), 15, WIDE, 0),  # rows covering every NumPy function
        ]
    return [  # SymRegg inserts about one expression per iteration; 100 is its default
        ("poly_sin", ("u", "v"), 100, {}, 3),
        ("three", ("x1", "x2", "x3"), 100, {}, 2),
        ("log_sqrt", ("a", "b"), 100, WIDE_SYMREGG, 0),
    ]


def main(name="eggp"):
    adapter = load_adapter(name)
    adapter.setup({})
    module_attr = "_" + name
    capture = Capture(getattr(adapter, module_attr), CLASSES[name])
    setattr(adapter, module_attr, capture)
    cases = []
    for kind, variables, budget, options, extra in fits(name):
        X, y, X_eval = problem(kind, seed=len(cases))
        reports = []
        result = adapter.fit(X, y, budget=budget, seed=0, variables=variables, options=options, report=reports.append)
        model = capture.instances[-1]
        # SymRegg reads an empty theta as NaN under pandas 3 and its evaluate_model then fails
        model.results["theta"] = model.results["theta"].fillna("")
        table = model.results.reset_index(drop=True)
        rows = adapter.read_rows(table)
        best = adapter.best_row(rows)
        position = {int(i): p for p, i in enumerate(table["id"])}

        def case(row, label, predict):
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                theirs, theirs_eval = predict(X), predict(X_eval)
            return {
                "name": f"{kind} {label}",
                "variables": list(variables),
                "budget": budget,
                "options": options,
                "X": [floats(r) for r in X],
                "y": floats(y),
                "X_eval": [floats(r) for r in X_eval],
                "raw": {"display": row["display"], "numpy": row["numpy"],
                        "theta_text": str(table.loc[position[row["id"]], "theta"])},
                "loss_train": row["loss"],
                "expression": adapter.to_infix(row["display"], variables),
                "predictions": floats(theirs),
                "predictions_eval": floats(theirs_eval),
            }

        if name == "eggp":  # EGGP.predict picks the lowest training loss itself
            best_case = case(best, "best", model.predict)
        else:  # SymRegg.predict takes the table's last row, which with trace=True is not the best
            p_best = position[best["id"]]
            best_case = case(best, "best", lambda points: model.evaluate_model(p_best, points))
        assert best_case["expression"] == result["expression"]
        best_case["front"] = [f["expression"] for f in result["front"]]
        best_case["trajectory_by_evaluation"] = result["trajectory_by_evaluation"]
        best_case["reports"] = reports
        cases.append(best_case)

        chosen, seen = [], {best["numpy"]}
        if extra:
            for row in sorted(rows, key=lambda r: r["loss"]):
                if len(chosen) == extra:
                    break
                if row["numpy"] not in seen and "t[" in row["numpy"]:
                    chosen.append(row)
                    seen.add(row["numpy"])
        else:  # one row for each NumPy function the table uses, and rows that test the reading
            functions = set()
            for row in rows:
                new = set(re.findall(r"np\.(\w+)", row["numpy"])) - functions
                if new and row["numpy"] not in seen:
                    chosen.append(row)
                    seen.add(row["numpy"])
                    functions |= new
            # a power of a power (which the NumPy code prints unbracketed) and a negative base
            for pattern, how_many in ((r"\*\*.*\*\*", 2), (r"\(-\d[\d.e-]*\s\^", 2)):
                field = "numpy" if "*" in pattern else "display"
                matches = [r for r in rows if re.search(pattern, r[field]) and r["numpy"] not in seen]
                for row in matches[:how_many]:
                    chosen.append(row)
                    seen.add(row["numpy"])
        for i, row in enumerate(chosen):
            if name == "eggp":  # its evaluate_model checks a row position against the ids: use make_function
                f, theta = capture.module.make_function(row["numpy"]), np.array(row["theta"])
                predict = lambda points, f=f, theta=theta: f(points, theta)  # noqa: E731
            else:
                predict = lambda points, p=position[row["id"]]: model.evaluate_model(p, points)  # noqa: E731
            cases.append(case(row, f"row {i} (id {row['id']})", predict))
    out = {
        "package": name,
        "version": importlib.metadata.version(name),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "recorded_by": f"tests/methods/recorded/record_eggp.py {name}",
        "cases": cases,
    }
    path = HERE / f"{name}.json"
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path} ({len(cases)} cases)")


if __name__ == "__main__":
    main(*sys.argv[1:2])
