"""Training a tiny Flash-ANSR model offline, on formulas srbf's catalogs hold.

flash-ansr's weights come from a model hub this machine cannot reach, but the package ships its
training code (``flash_ansr.train.train.Trainer``). That code needs a simplipy engine file (the
operators), a tokenizer, model, data-set and trainer configuration, none of which either package
ships; ``src/srbf/methods/flash_ansr/training/`` holds srbf's own set, sized for minutes on one
CPU core. This module writes a training directory from it: the configs, plus a catalog whose
frozen skeletons are srbf catalog formulas (``skeletons``: each formula's prefix tokens in the
engine's vocabulary, numbers as ``<constant>``, variables renamed ``x1..x3`` in order of
appearance; the package draws constants and support points for them). ``train`` then runs the
package's own trainer under the method's environment (``train_tiny.py``) and leaves a model
directory that ``FlashANSR.load`` (and so the adapter's ``options: {model: PATH}``) reads.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Iterable

from srbf.core import SrbfError
from srbf.expr import Call, Const, Expr, Num, Var, parse

FOLDER = Path(__file__).resolve().parent / "flash_ansr"
TEMPLATES = FOLDER / "training"  # engine.yaml, tokenizer.yaml, model.yaml, catalog.yaml, dataset.yaml, train.yaml
TRAIN_SCRIPT = FOLDER / "train_tiny.py"
MAX_VARIABLES = 3  # the tokenizer's x1..x3
MAX_TOKENS = 30  # longer skeletons are left out (the model's decoder is short)
DEFAULT_CATALOGS = ("nguyen", "keijzer", "koza", "korns", "livermore", "vladislavleva", "jin", "neat", "feynman")
# srbf operator -> the engine's token (engine.yaml); others make a formula unusable here
TOKENS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "pow", "neg": "neg", "inv": "inv",
          "sin": "sin", "cos": "cos", "exp": "exp", "log": "log"}  # fmt: skip
NAMED = {"pi": "np.pi", "e": "np.e"}


class TrainingError(SrbfError, RuntimeError):
    """The tiny model could not be trained: the message names the step and the error."""


def skeleton(expr: Expr, names: dict[str, str] | None = None) -> list[str] | None:
    """The prefix tokens of ``expr`` in the engine's vocabulary, or None when it uses an operator
    the engine lacks or more than MAX_VARIABLES variables. Whole powers become products
    (``integer_power``); ``sqrt`` and other powers are ``pow`` with a ``<constant>`` exponent
    the package draws, like every number."""
    names = {} if names is None else names
    out: list[str] = []

    def walk(node: Expr) -> bool:
        if isinstance(node, Num):
            out.append("<constant>")
        elif isinstance(node, Const):
            if node.name not in NAMED:
                return False
            out.append(NAMED[node.name])
        elif isinstance(node, Var):
            if node.name not in names:
                if len(names) == MAX_VARIABLES:
                    return False
                names[node.name] = f"x{len(names) + 1}"
            out.append(names[node.name])
        elif isinstance(node, Call) and integer_power(node) is not None:
            base, k = integer_power(node)
            if k < 0:
                out.append("inv")
            out.extend(["*"] * (abs(k) - 1))
            return all(walk(base) for _ in range(abs(k)))
        elif isinstance(node, Call) and node.op == "sqrt":
            out.append("pow")
            return walk(node.args[0]) and walk(Num(0.5))
        elif isinstance(node, Call) and node.op in TOKENS:
            out.append(TOKENS[node.op])
            return all(walk(arg) for arg in node.args)
        else:
            return False
        return True

    return out if walk(expr) else None


def integer_power(node: Call) -> tuple[Expr, int] | None:
    """(base, k) for ``base**k`` with a whole k in -4..4 other than 0 and 1 (``square``, ``cube``
    included), which ``skeleton`` writes as products so that no exponent is drawn at random."""
    if node.op in ("square", "cube"):
        return node.args[0], 2 if node.op == "square" else 3
    if node.op == "pow" and isinstance(node.args[1], Num):
        k = node.args[1].value
        if float(k).is_integer() and 2 <= abs(k) <= 4 or k == -1:
            return node.args[0], int(k)
    return None


def catalog_skeletons(catalogs: Iterable[str] = DEFAULT_CATALOGS) -> list[list[str]]:
    """The distinct usable skeletons of the formulas of ``catalogs``, in catalog order."""
    from srbf.catalogs.loader import load_catalog

    seen, skeletons = set(), []
    for name in catalogs:
        catalog = load_catalog(name)
        for entry in catalog.entries:
            tokens = skeleton(parse(entry.formula, [v.name for v in entry.variables]))
            if tokens and len(tokens) <= MAX_TOKENS and tuple(tokens) not in seen:
                seen.add(tuple(tokens))
                skeletons.append(tokens)
    return skeletons


def write_training_set(directory: str | Path, skeletons: list[list[str]]) -> Path:
    """Copy the config templates into ``directory`` and write the catalog of ``skeletons`` into
    its data-set config (inline, so the package streams draws from it without end)."""
    import yaml

    if not skeletons:
        raise TrainingError("no skeleton to train on: the catalogs gave none in the engine's vocabulary")
    directory = Path(directory).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    for template in TEMPLATES.glob("*.yaml"):
        shutil.copyfile(template, directory / template.name)
    catalog = yaml.safe_load((directory / "catalog.yaml").read_text(encoding="utf-8"))
    catalog["simplipy_engine"] = str(directory / "engine.yaml")  # an inline catalog resolves no relative path
    catalog["skeletons"] = skeletons
    dataset = yaml.safe_load((directory / "dataset.yaml").read_text(encoding="utf-8"))
    dataset["source"]["catalog"] = catalog
    (directory / "dataset.yaml").write_text(yaml.safe_dump(dataset, sort_keys=False), encoding="utf-8")
    (directory / "catalog.yaml").unlink()
    return directory


def train(directory: str | Path, python: str, *, steps: int, timeout: float = 3600.0) -> dict:
    """Run the package's trainer in ``python`` (the method's environment) on the training set in
    ``directory`` for ``steps`` steps; return what ``train_tiny.py`` reports (the model
    directory, seconds, parameters). TrainingError with the last lines of its output on failure."""
    directory = Path(directory).resolve()
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", WANDB_MODE="disabled", HF_HUB_OFFLINE="1")
    try:
        done = subprocess.run([python, str(TRAIN_SCRIPT), str(directory), str(int(steps))], capture_output=True,
                              text=True, errors="replace", stdin=subprocess.DEVNULL, timeout=timeout, env=env,
                              cwd=directory)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise TrainingError(f"training in {directory} did not run to its end: {exc}") from None
    report = [line for line in done.stdout.splitlines() if line.startswith("srbf-train: ")]
    if done.returncode != 0 or not report:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise TrainingError(f"training in {directory} failed (exit code {done.returncode}):\n{tail}")
    return json.loads(report[-1][len("srbf-train: "):])
