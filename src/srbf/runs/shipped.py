"""The run configs srbf ships, as package data in ``srbf/configs/``, and how a config is named.

``srbf run -c quickstart`` (or ``-c methods/linear``) reads a shipped config by name, so the
examples work after ``pip install srbf`` as well as in a source checkout; a path to a file of
one's own always wins. Roster methods need no shipped run config: a config says ``method: NAME``
and gets the settings of ``srbf/methods/NAME/method.yaml``. A built-in named bare (``- linear``)
gets those of its shipped config ``methods/NAME.yaml`` the same way (``builtin_defaults``).
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

from srbf.core import DEFAULT_RESULTS, SrbfError

CONFIGS_DIR = Path(__file__).resolve().parents[1] / "configs"


def shipped_configs() -> tuple[str, ...]:
    """The names of the shipped configs (``quickstart``, ``methods/linear``, ...), sorted. The
    catalog files a shipped config names (``configs/catalogs/``, e.g. the leaderboard's distilled
    core) are not run configs."""
    return tuple(sorted(p.relative_to(CONFIGS_DIR).with_suffix("").as_posix() for p in CONFIGS_DIR.rglob("*.yaml")
                        if p.relative_to(CONFIGS_DIR).parts[0] != "catalogs"))


def config_path(ref: str | Path) -> str | Path:
    """The config file ``ref`` names: ``ref`` itself when it is a file (or looks like a path of
    one's own), else the shipped config of that name (``quickstart``), else ``ref`` unchanged so
    that reading it reports the missing file."""
    name = str(ref).removesuffix(".yaml")
    if Path(ref).expanduser().is_file() or name not in shipped_configs():
        return ref
    return CONFIGS_DIR / f"{name}.yaml"


def builtin_defaults(name: str) -> dict[str, Any]:
    """The keys a config's method entry naming the built-in ``name`` without an adapter gets (its
    own keys override them): the method entry of its shipped config ``methods/NAME.yaml`` (options,
    time limit, provenance, budget knob) and that config's ladder as the method's ``budgets``.
    {} for a built-in without a shipped config."""
    return copy.deepcopy(_builtin_defaults(name))


@functools.lru_cache(maxsize=None)
def _builtin_defaults(name: str) -> dict[str, Any]:
    import yaml

    path = CONFIGS_DIR / "methods" / f"{name}.yaml"
    if not path.is_file():
        return {}
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    method = {key: value for key, value in document["method"].items() if key not in ("name", "adapter")}
    return {**method, "budgets": document["budgets"]}


class ConfigResultsError(SrbfError, ValueError):
    """A config whose ``results:`` cannot be read; the message names the file and the value."""


def results_of(config: str | Path, named: str | None = None) -> str:
    """The ``results:`` of the config file (or shipped config) ``config``, else the default: the
    store ``srbf analyze -c CONFIG`` and ``srbf.open(CONFIG)`` read. Only that key is read (the
    rest need not validate: a method file it names may have moved since the run)."""
    from srbf.runs.config_yaml import read_config_file

    path = config_path(config)
    data = read_config_file(path)
    if not isinstance(data, dict):
        raise ConfigResultsError(f"{named or config}: {path} is not a mapping of config keys")
    results = data.get("results", DEFAULT_RESULTS)
    if not isinstance(results, str) or not results.strip():
        raise ConfigResultsError(f"{path}: results: must be a directory name, got {results!r}")
    return results
