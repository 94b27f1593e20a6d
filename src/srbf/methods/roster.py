"""The roster: the SR packages srbf knows how to install and run, one small frozen record each.

A record says what ``srbf methods install NAME`` puts into the method's own environment (pinned
pip requirements, steps to run first, extra pip flags), what the method's budget means, whether
it reports a search trajectory, and what a user must know before installing it (a licence notice,
a missing external program). The adapter file that runs the method (``adapters/NAME.py``) and
its config (``configs/methods/NAME.yaml``) live beside the roster, not in it.

``ROSTER`` maps names to records; ``get(name)`` looks one up with a did-you-mean message.
The versions pinned are the ones seen working with srbf's adapters (docs/methods.md).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from srbf.core import SrbfError

ADAPTERS_DIR = Path(__file__).resolve().with_name("adapters")
CONFIGS_DIR = Path(__file__).resolve().parents[3] / "configs" / "methods"  # in a source checkout


@dataclass(frozen=True)
class MethodSpec:
    """One roster entry.

    ``requirements`` are pip requirement specifiers, pinned (``gplearn==0.4.3``); NumPy is
    always installed with them. ``pre_install`` lists pip install steps run before the main one
    (each a tuple of requirements), ``pip_flags`` extra flags for the main step. ``import_name``
    is the module ``doctor`` imports; ``needs`` names external programs the method cannot run
    without (checked on PATH and in the env), ``licence`` a notice that ``install`` shows and
    requires ``--accept-licence`` for.
    """

    name: str
    package: str  # the distribution on PyPI
    version: str  # the pinned version
    import_name: str
    requirements: tuple[str, ...]
    budget_knob: str
    trajectory: str  # what the adapter reports during search, "none" if nothing
    pre_install: tuple[tuple[str, ...], ...] = ()
    pip_flags: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()  # external programs, e.g. ("julia",)
    needs_hint: str = ""  # one sentence on why and how, for doctor
    licence: str | None = None
    reproducible: bool = True  # False when the package takes no seed
    notes: str = ""
    size_hint: str = ""  # e.g. "about 1 GB", shown before a large install

    @property
    def adapter_path(self) -> Path:
        """The adapter file, ``src/srbf/methods/adapters/NAME.py`` (it may not exist yet)."""
        return ADAPTERS_DIR / f"{self.name}.py"

    @property
    def config_path(self) -> Path:
        """The method's config, ``configs/methods/NAME.yaml`` in a source checkout."""
        return CONFIGS_DIR / f"{self.name}.yaml"

    def shipped_method(self) -> dict[str, Any]:
        """The ``method`` section of the shipped config, read raw, with its ladder under
        ``_budgets`` ({} without a config; a broken config is the config check's business)."""
        path = self.config_path
        if not path.is_file():
            return {}
        try:
            import yaml

            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except Exception:
            return {}
        method = data.get("method") if isinstance(data.get("method"), dict) else {}
        return {**method, "_budgets": method.get("budgets", data.get("budgets"))}

    @property
    def config_provenance(self) -> str | None:
        """The ``config_provenance`` label of the shipped config (None: no config or no label)."""
        value = self.shipped_method().get("config_provenance")
        return value if isinstance(value, str) else None

    @property
    def pinned(self) -> str:
        return f"{self.package}=={self.version}"


def _spec(name: str, package: str, version: str, **kwargs) -> MethodSpec:
    kwargs.setdefault("import_name", package.replace("-", "_"))
    kwargs.setdefault("requirements", (f"{package}=={version}",))
    return MethodSpec(name=name, package=package, version=version, **kwargs)


_ENTRIES = (
    _spec(
        "gplearn", "gplearn", "0.4.3",
        budget_knob="generations",
        trajectory="best program per generation",
        notes="prints prefix programs such as add(mul(X0, X0), X1); columns X0, X1, ... are 0-based",
    ),
    _spec(
        "operon", "pyoperon", "0.6.2",
        budget_knob="generations (or max_evaluations)",
        trajectory="best model per generation (callback)",
        notes="prints infix with 1-based columns X1, X2, ...",
    ),
    _spec(
        "rils_rols", "rils-rols", "1.6.7",
        budget_knob="max_fit_calls",
        trajectory="incumbents parsed from its verbose output",
        pre_install=(("pybind11", "setuptools"),),
        pip_flags=("--no-build-isolation",),
        notes="only an sdist for Python 3.11: pybind11 and setuptools are installed first, then it is "
        "built with --no-build-isolation (needs a C++ compiler)",
    ),
    _spec(
        "qlattice", "feyn", "3.5.0",
        budget_knob="epochs",
        trajectory="best model per epoch",
        licence="feyn (the QLattice) is free for academic and non-commercial use under Abzu's "
        "end-user licence agreement; commercial use needs a licence from Abzu. No licence key "
        "is needed. Pass --accept-licence to confirm that your use is covered.",
        notes="no licence key needed; its EULA allows academic and non-commercial use",
    ),
    _spec(
        "eggp", "eggp", "2.2.2",
        budget_knob="generations",
        trajectory="trace=True (per generation, no timestamps)",
        reproducible=False,
        notes="takes no seed: its fits are not reproducible",
    ),
    _spec(
        "symregg", "symregg", "1.0.4",
        budget_knob="evaluated expressions (gen)",
        trajectory="trace=True (in insertion order, no timestamps)",
        reproducible=False,
        notes="takes no seed: its fits are not reproducible",
    ),
    _spec(
        "jaxsr", "jaxsr", "0.3.0",
        budget_knob="max terms",
        trajectory="none",
        size_hint="about 1 GB",
        notes="large install (about 1 GB: JAX on CPU, and Jupyter, which jaxsr requires)",
    ),
    _spec(
        "ffx", "ffx", "2.1.0",
        budget_knob="none (one budget)",
        trajectory="none",
        requirements=("ffx==2.1.0", "six"),
        notes="needs six installed alongside",
    ),
    _spec(
        "hroch", "HROCH", "1.4.12",
        import_name="HROCH",
        budget_knob="iter_limit (or time_limit)",
        trajectory="none",
        requirements=("HROCH==1.4.12", "scikit-learn<1.6"),
        notes="needs scikit-learn < 1.6 in its env",
    ),
    _spec(
        "deap_gp", "deap", "1.4.4",
        budget_knob="generations",
        trajectory="logbook per generation",
        notes="srbf's own reference GP, written on DEAP",
    ),
    _spec(
        "pysr", "pysr", "2.7.2",
        budget_knob="iterations (niterations)",
        trajectory="hall of fame per iteration",
        needs=("julia",),
        needs_hint="PySR runs on Julia, which it downloads with its packages from the Julia "
        "package registry on first import; neither is reachable here",
        notes="needs Julia and the Julia package registry at first import",
    ),
)

ROSTER: dict[str, MethodSpec] = {spec.name: spec for spec in _ENTRIES}


class UnknownMethod(SrbfError, KeyError):
    """A name that is not on the roster; the message lists the roster or the closest name."""

    def __str__(self) -> str:
        return self.args[0]


def names() -> tuple[str, ...]:
    return tuple(ROSTER)


def get(name: str) -> MethodSpec:
    """The roster record of ``name``; UnknownMethod with a did-you-mean if there is none."""
    try:
        return ROSTER[name]
    except KeyError:
        pass
    close = difflib.get_close_matches(name.replace("-", "_").lower(), list(ROSTER), n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else f" (the roster: {', '.join(ROSTER)})"
    raise UnknownMethod(f"unknown method {name!r}{hint}") from None


def select(name: str) -> list[MethodSpec]:
    """``all`` -> every record, in roster order; else the one record named."""
    return list(ROSTER.values()) if name == "all" else [get(name)]
