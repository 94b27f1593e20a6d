"""``srbf methods new NAME`` (or ``srbf new``): the three files of a new method, working as written.

- ``NAME.py``: a method file following docs/adapters.md (a small working search to replace);
- ``NAME.yaml``: a run config for it (file adapter, interpreter, budgets, provenance label);
- ``test_NAME.py``: pytest tests that run the method in srbf's worker process and put the config
  through every step of ``srbf check`` (load, sample, start worker, fit, parse, evaluate, score).

``write_method(name, directory, python=None)`` writes them and returns their paths; it refuses to
overwrite a file unless ``force``.
"""

from __future__ import annotations

import re
from pathlib import Path

from srbf.core import DEFAULT_RESULTS, SrbfError

__all__ = ["NAME_PATTERN", "ScaffoldError", "write_method"]

NAME_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


class ScaffoldError(SrbfError, ValueError):
    """A name or place ``srbf methods new`` cannot use; one line."""


METHOD_TEMPLATE = '''\
"""{name}: <one line on what the method does>.

srbf runs this file in a worker process of its own (docs/adapters.md): ``setup(options)`` once per
process, before any timed fit, then ``fit(...)`` once per problem. Replace the body of ``fit`` with
your method; keep its signature and return a dict with an "expression" string written in the
names of ``variables``. The search below is a small working placeholder: y ~ a * term + b for the
best of a few terms of single variables, one candidate per unit of budget.
"""

import time

import numpy as np

FUNCTIONS = {{  # a term as written in the formula ({{v}}: the variable) -> how to compute it
    "{{v}}": lambda x: x,
    "{{v}}**2": lambda x: x**2,
    "{{v}}**3": lambda x: x**3,
    "sin({{v}})": np.sin,
    "cos({{v}})": np.cos,
    "exp({{v}})": np.exp,
    "log(abs({{v}}))": lambda x: np.log(np.abs(x)),
    "sqrt(abs({{v}}))": lambda x: np.sqrt(np.abs(x)),
}}
TERMS = tuple(FUNCTIONS)


def setup(options):
    """Once per worker process: import heavy packages, compile, load weights here (never timed)."""


def fit(X, y, *, budget, seed, variables, options, report):
    """Fit the points X (n x d float64) and y (n,); return {{"expression": str, ...}}.

    budget: the swept budget in this method's unit (here: candidate terms tried); seed: draw all
    randomness from it; options: the config's options; report(expression): call it whenever the
    best formula so far changes (srbf keeps the sequence as the search trajectory).
    """
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    candidates = [(template, i) for template in TERMS for i in range(len(variables))]
    order = rng.permutation(len(candidates))
    best = None
    for k in order[: max(1, int(budget))]:
        template, i = candidates[k]
        with np.errstate(all="ignore"):
            feature = FUNCTIONS[template](X[:, i])
        if not np.all(np.isfinite(feature)):
            continue
        design = np.column_stack([feature, np.ones_like(feature)])
        (a, b), *_ = np.linalg.lstsq(design, y, rcond=None)
        loss = float(np.mean((design @ np.array([a, b]) - y) ** 2))
        if best is None or loss < best[0]:
            expression = f"{{float(a)!r}} * {{template.format(v=variables[i])}} + {{float(b)!r}}"
            best = (loss, expression, [float(a), float(b)])
            report(expression)
    if best is None:  # no finite candidate: fall back to the mean
        best = (float(np.var(y)), repr(float(np.mean(y))), [float(np.mean(y))])
    return {{
        "expression": best[1],
        "constants": best[2],
        "support_mse": best[0],
        "fit_seconds": time.perf_counter() - started,
    }}
'''

CONFIG_TEMPLATE = '''\
# {name}: a run config for the method in {name}.py (docs/config.md explains every key).
#
#   srbf check -c {name}.yaml     two problems, every step named: the first thing to run
#   srbf run -c {name}.yaml       the run itself, into {results} (resumes if interrupted)
#   srbf status -c {name}.yaml    what is done and what is left

experiment: {name}
seed: 0
catalogs: [nguyen]            # shipped problem sets (srbf catalogs list), or paths to catalog files
limit: 4                      # the first 4 problems of each set; remove it for all

sampling:
  n_support: 256
  n_validation: 256
  draws: 1

method:
  name: {name}
  adapter: {{type: file, path: {name}.py}}   # relative to this file
{python_line}  options: {{}}                 # handed to setup() and fit() as `options`
  time_limit: 60              # seconds per fit; past it the fit is recorded as a timeout
  config_provenance: upstream_default   # your method's own defaults; see docs/config.md
  budget_knob: candidate terms tried

budgets: [1, 4, 16]           # the ladder the benchmark sweeps (never tuned)
results: {results}
'''

TEST_TEMPLATE = '''\
"""Tests for the {name} method: run them with `python -m pytest test_{name}.py`.

The first runs one fit in srbf's worker process, exactly as a benchmark run does; the second puts
{name}.yaml through every step of `srbf check` (load config, load catalog, sample, start worker,
fit, parse, evaluate, score) on two real problems.
"""

from pathlib import Path

from srbf.core import SrbfError

import numpy as np

from srbf.methods import Worker
from srbf.cli.check import run_check
from srbf.core import FitTask, TaskKey

HERE = Path(__file__).resolve().parent
PYTHON = {python!r}  # the interpreter the config names (None: the one running srbf)


def test_one_fit_in_a_worker():
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, size=(128, 2))
    y = 3 * np.sin(X[:, 1]) + 0.5
    key = TaskKey("{name}", "-", "test", 1, "sin", 0, 16, "n_support=128;noise=0", 0)
    with Worker(HERE / "{name}.py", python=PYTHON) as worker:
        result = worker.fit(FitTask(key, X, y, ("x0", "x1"), time_limit=60))
    assert result.status == "ok", f"{{result.error}}\\n{{result.stderr_tail}}"
    assert isinstance(result.expression, str) and result.expression.strip()


def test_srbf_check_passes():
    report = run_check(HERE / "{name}.yaml")
    assert report.ok, report.text
'''


def write_method(
    name: str, directory: str | Path = ".", *, python: str | None = None, force: bool = False
) -> list[Path]:
    """Write NAME.py, NAME.yaml and test_NAME.py into ``directory``; return their paths."""
    if not NAME_PATTERN.fullmatch(name):
        raise ScaffoldError(f"method name must be letters, digits and _ (starting with a letter), got {name!r}")
    folder = Path(directory).expanduser()
    python_path = None
    if python is not None:
        import os
        import shutil

        found = python if os.sep in python else shutil.which(python)
        if not found or not Path(found).is_file() or not os.access(found, os.X_OK):
            raise ScaffoldError(f"--python: {python!r} is not an executable interpreter")
        python_path = str(Path(found).absolute())
    files = {
        folder / f"{name}.py": METHOD_TEMPLATE.format(name=name),
        folder / f"{name}.yaml": CONFIG_TEMPLATE.format(
            name=name,
            results=DEFAULT_RESULTS,
            python_line=f"  python: {python_path}   # the worker's interpreter; it needs NumPy, not srbf\n"
            if python_path
            else "",
        ),
        folder / f"test_{name}.py": TEST_TEMPLATE.format(name=name, python=python_path),
    }
    existing = [str(p) for p in files if p.exists()]
    if existing and not force:
        raise ScaffoldError(f"{', '.join(existing)} already exist(s); choose another name or pass --force")
    folder.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    return list(files)
