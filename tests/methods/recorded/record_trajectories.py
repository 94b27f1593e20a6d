"""Record the timed trajectories of the roster methods installed here, for tests/methods/test_incumbents.py.

Run it under srbf's own interpreter, with the methods' environments installed
(``srbf methods install NAME``); a method without one is left out of the recording::

    .venv/bin/python tests/methods/recorded/record_trajectories.py [NAME ...]

Each method fits one small problem (``toy(0, kind="positive")``: y = log(u)*v + sqrt(v)) through
the real Worker, at a budget that gives several incumbents in a few seconds (the Worker records a
report only when the incumbent changes); ``trajectories.json`` keeps, per method, the
package version, the budget and options, the returned expression and the trajectory exactly as the
Worker recorded it: (seconds since the fit started, expression) rows.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from recorded.adapter_checks import method_python, toy, worker_fits  # noqa: E402

# budget and options per method: several generations, a few seconds on a busy core
RUNS = {
    "bingo": (80, {}),
    "gplearn": (16, {"params": {"population_size": 200}}),
    "deap_gp": (16, {}),
    "operon": (16, {}),
    "rils_rols": (4096, {}),
    "eggp": (8, {}),
    "symregg": (64, {}),
    "ffx": (1, {}),
    "hroch": (1024, {}),
    "itea": (8, {}),
}
SEED = 5


def record(name: str, python: str) -> dict:
    from srbf.methods.envs import read_manifest

    budget, options = RUNS[name]
    X, y = toy(0, kind="positive")
    (result,) = worker_fits(name, python, [(X, y, ("u", "v"), budget, SEED)], options=options)
    if result.status != "ok":
        raise SystemExit(f"{name}: {result.status}: {result.error}")
    manifest = read_manifest(name) or {}
    return {
        "package_version": manifest.get("installed_version"),
        "budget": budget,
        "seed": SEED,
        "options": options,
        "variables": ["u", "v"],
        "expression": result.expression,
        "trajectory": [[seconds, expression] for seconds, expression in result.trajectory],
    }


def main(names: list[str]) -> None:
    path = HERE / "trajectories.json"
    recorded = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"methods": {}}
    for name in names or list(RUNS):
        python = method_python(name)
        if python is None:
            print(f"{name}: no environment, left out")
            continue
        recorded["methods"][name] = record(name, python)
        print(f"{name}: {len(recorded['methods'][name]['trajectory'])} trajectory rows")
    recorded["methods"] = dict(sorted(recorded["methods"].items()))
    path.write_text(json.dumps(recorded, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
