"""The ``srbench`` adapter, parent side: run an SRBench-style method folder with srbf's worker.

An SRBench method is a folder whose ``regressor.py`` defines ``est`` and ``model(est, X)``. srbf
runs every such folder with one generic method file, ``srbench_main.py`` (standalone, worker
protocol), which imports the folder's ``regressor.py`` in the method's own interpreter, fits a
fresh ``est`` per problem and returns ``model(est, X)`` rewritten into the problem's variable
names. This module gives the parent what it needs: the method file, the worker options that
point it at the folder, a static check of a folder (without importing it: its dependencies live
in another environment), and the content hash that identifies what runs.

A config names such a method as ``adapter: {type: srbench, path: path/to/folder}``; see
docs/methods.md for the options (``budget_param``, ``seed_param``, ``params``, ...).
"""

from __future__ import annotations

import ast
import hashlib
import os
from pathlib import Path
from typing import Any, Mapping

from srbf.core import SrbfError

SRBENCH_MAIN = Path(__file__).resolve().with_name("srbench_main.py")
DIR_OPTION = "srbench_dir"  # the option srbench_main.py reads the folder from


class SRBenchError(SrbfError, ValueError):
    """A path that is not a usable SRBench method folder; the message says what is wrong."""


def regressor_file(path: str | os.PathLike) -> Path:
    """``path/regressor.py`` for a folder, ``path`` itself for a ``.py`` file; SRBenchError if missing."""
    p = Path(path).expanduser().resolve()
    file = p / "regressor.py" if p.is_dir() else p
    if not file.is_file():
        where = f"folder {p} has no regressor.py" if p.is_dir() else f"no such file or folder {p}"
        raise SRBenchError(f"not an SRBench method: {where}")
    return file


def check_method_dir(path: str | os.PathLike) -> list[str]:
    """What is wrong with an SRBench method folder, read statically (nothing is imported): a
    missing or unparsable ``regressor.py``, no top-level ``est``, no ``model`` function."""
    try:
        file = regressor_file(path)
    except SRBenchError as exc:
        return [str(exc)]
    try:
        tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
    except (SyntaxError, UnicodeDecodeError) as exc:
        return [f"{file} is not valid Python: {exc}"]
    defined = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        defined.add(name.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined.update((a.asname or a.name).split(".")[0] for a in node.names)
    problems = []
    if "est" not in defined:
        problems.append(f"{file} defines no est at the top level (the estimator SRBench fits)")
    if "model" not in defined:
        problems.append(f"{file} defines no model(est, X) function (the fitted formula as a string)")
    return problems


def worker_options(path: str | os.PathLike, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The options ``srbench_main.py`` gets: the config's, plus the folder (absolute)."""
    out = dict(options or {})
    out[DIR_OPTION] = str(regressor_file(path).parent)
    return out


def content_hash(path: str | os.PathLike) -> str:
    """sha256 over the folder's ``regressor.py`` and srbf's ``srbench_main.py``: what runs, wherever
    the folder is (for the configuration hash)."""
    digest = hashlib.sha256()
    for file in (regressor_file(path), SRBENCH_MAIN):
        digest.update(file.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def srbench_worker(path: str | os.PathLike, *, python: str | os.PathLike | None = None,
                   options: Mapping[str, Any] | None = None, **kwargs: Any):  # fmt: skip
    """A (not yet started) Worker running the SRBench folder ``path``. Fits must carry the same
    options: pass ``worker_options(path, options)`` as the FitTask's options."""
    from srbf.methods.worker import Worker

    return Worker(SRBENCH_MAIN, python=python, options=worker_options(path, options), **kwargs)
