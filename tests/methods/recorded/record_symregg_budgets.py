"""Record what SymRegg's budget (``gen``) does, for tests/methods/test_adapter_symregg.py. Run under an
interpreter that has symregg (not srbf)::

    ~/.local/share/srbf/envs/symregg/bin/python tests/methods/recorded/record_symregg_budgets.py

Per small problem it fits through the adapter's own ``fit`` at budgets 1, 2, 4, ..., 128, all in
this one process (SymRegg seeds its Haskell core once per process and starts every fit from that
same state, so every fit here begins from the same initial e-graph), and writes
``symregg_budgets.json``: per fit the budget, SymRegg's trace table as it came (``id`` column in
table order, display text, training loss), the adapter's result fields and the fit's seconds.
"""

from __future__ import annotations

import importlib.metadata
import json
import platform
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
from record import floats, load_adapter, small_problem  # noqa: E402  (the recorded/ folder is on sys.path when run as a script)

BUDGETS = (1, 2, 4, 8, 16, 32, 64, 128)


def cubic(seed, n=64):
    """Nguyen-1, x**3 + x**2 + x on [-1, 1]."""
    X = np.random.default_rng(seed).uniform(-1, 1, (n, 1))
    return X, X[:, 0] ** 3 + X[:, 0] ** 2 + X[:, 0]


def problems():
    X, y = cubic(0)
    yield "cubic", ("x",), X, y
    for i, (kind, variables) in enumerate((("poly_sin", ("u", "v")), ("three", ("x1", "x2", "x3")))):
        X, y, _ = small_problem(kind, seed=10 + i)
        yield kind, variables, X, y


def main():
    adapter = load_adapter("symregg")
    adapter.setup({})
    real = adapter._symregg
    made = []

    class Capture:
        def __getattr__(self, name):
            value = getattr(real, name)
            if name != "SymRegg":
                return value

            def make(*args, **kwargs):
                made.append(value(*args, **kwargs))
                return made[-1]

            return make

    adapter._symregg = Capture()
    fits = []
    for kind, variables, X, y in problems():
        for budget in BUDGETS:
            result = adapter.fit(X, y, budget=budget, seed=0, variables=variables, options={}, report=lambda e: None)
            table = made[-1].results
            fits.append({
                "problem": kind,
                "variables": list(variables),
                "budget": budget,
                "X": [floats(r) for r in X],
                "y": floats(y),
                "table": {
                    "id": [int(i) for i in table["id"]],
                    "display": [str(e) for e in table["Expression"]],
                    "loss_train": [float(v) for v in table["loss_train"]],
                },
                "result": {k: result[k] for k in ("expression", "knob", "n_visited", "n_initial", "n_inserted",
                                                  "loss_train", "size", "fit_seconds")},
            })  # fmt: skip
            print(kind, budget, result["n_initial"], result["n_inserted"], round(result["fit_seconds"], 3),
                  result["expression"])
    out = {
        "package": "symregg",
        "version": importlib.metadata.version("symregg"),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "recorded_by": "tests/methods/recorded/record_symregg_budgets.py",
        "fits": fits,
    }
    path = HERE / "symregg_budgets.json"
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path} ({len(fits)} fits)")


if __name__ == "__main__":
    main()
