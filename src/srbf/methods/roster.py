"""The roster: the SR packages srbf knows how to install and run, one folder each.

Every folder ``srbf/methods/NAME/`` that holds a ``method.yaml`` is a roster method. The folder
holds everything about it: ``adapter.py`` (the file the worker runs under the method's own
interpreter), ``method.yaml`` (what ``srbf methods install NAME`` puts into the environment, the
defaults a config naming the method gets, the options the adapter takes and what each may be)
and the method's locks (``lock-py3.11.txt``, ...). Adding a method is adding a folder.

``ROSTER`` maps names to frozen ``MethodSpec`` records read from those files (once, when this
module is imported); ``get(name)`` looks one up with a did-you-mean message. A ``method.yaml``
that is wrong stops the import with a one-line ``MethodFileError`` naming the file, the field and
the value. The versions pinned are the ones seen working with srbf's adapters (docs/methods.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from srbf.core import SrbfError, did_you_mean

METHODS_DIR = Path(__file__).resolve().parent
METHOD_FILE = "method.yaml"
DEFAULT_CONFIG = "default"  # the name of a method's ``run`` when it carries no provenance label
ADAPTER_FILE = "adapter.py"


@dataclass(frozen=True)
class MethodSpec:
    """One roster entry, as its ``method.yaml`` says (docs/adding_a_method.md lists the fields).

    ``requirements`` are pip requirement specifiers, pinned (``gplearn==0.4.3``); NumPy is
    always installed with them. ``pre_install`` lists pip install steps run before the main one
    (each a tuple of requirements), ``pip_flags`` extra flags for the main step. ``import_name``
    is the module ``doctor`` imports; ``needs`` names external programs the method cannot run
    without (checked on PATH and in the env, or named by the variable ``needs_variables`` gives
    for it, e.g. PySR's ``PYTHON_JULIAPKG_EXE``), ``licence`` a notice that ``install`` shows and
    requires ``--accept-licence`` for. ``run`` holds the defaults of a config that names the
    method (``method: NAME``), its default configuration; ``configs`` the further named ones
    (``author_blessed``, ...), each laid over ``run`` when a config's entry says ``config: NAME``.
    ``paradigm`` is its primary search paradigm in SymbolicArena's grouping (structured_search,
    evolutionary, neural_policy, hybrid, transformer, llm_assisted), which probe selection uses.
    ``options`` holds the constraints of each option its adapter takes. ``python`` is the Python
    its package needs (``>=3.12``), which ``install`` finds an interpreter for.
    """

    name: str
    package: str  # the distribution on PyPI
    version: str  # the pinned version
    import_name: str
    requirements: tuple[str, ...]
    budget_knob: str
    trajectory: str  # what the adapter reports during search, "none" if nothing
    paradigm: str  # its primary search paradigm (method_file.PARADIGMS: seed 002's grouping)
    folder: Path = field(default=METHODS_DIR)  # srbf/methods/NAME/
    python: str = ""  # the Python the package needs (">=3.12"); "" for any (srbf.methods.interpreters)
    pre_install: tuple[tuple[str, ...], ...] = ()
    pip_flags: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()  # external programs, e.g. ("julia",)
    needs_variables: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))  # program -> variable naming it
    needs_hint: str = ""  # one sentence on why, for doctor
    licence: str | None = None
    reproducible: bool = True  # False when the package takes no seed
    notes: str = ""
    size_hint: str = ""  # e.g. "about 1 GB", shown before a large install
    exact_trajectory: bool = False  # report(expr, budget=b) is what a fit of budget b returns: one fit, the whole ladder
    run: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    configs: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: MappingProxyType({}))
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def adapter_path(self) -> Path:
        """The adapter file, ``srbf/methods/NAME/adapter.py`` (it may not exist yet)."""
        return self.folder / ADAPTER_FILE

    def lock_path(self, python: str) -> Path:
        """The committed lock for Python ``python`` (``3.11``): ``srbf/methods/NAME/lock-py3.11.txt``."""
        return self.folder / f"lock-py{python}.txt"

    @property
    def config_provenance(self) -> str | None:
        """The ``config_provenance`` label a config naming the method gets (None: no label)."""
        value = self.run.get("config_provenance")
        return value if isinstance(value, str) else None

    @property
    def default_config(self) -> str:
        """The name of the configuration ``run`` describes: its provenance label (``upstream_default``)."""
        return self.config_provenance or DEFAULT_CONFIG

    def config_names(self) -> tuple[str, ...]:
        """Every configuration a config may choose with ``config: NAME``, the default first."""
        return (self.default_config, *self.configs)

    def config_defaults(self, config: str | None = None) -> dict[str, Any]:
        """The keys a config's method entry gets when it names this method (``adapter: NAME``):
        the adapter file, the method's own environment, its budget knob and ``run`` of its
        method.yaml, with the named configuration ``config`` laid over it (None: the default)."""
        keys = dict(self.run)
        if config is not None and config != self.default_config:
            if config not in self.configs:
                hint = did_you_mean(config, self.config_names()) or f" (its configurations: {', '.join(self.config_names())})"
                raise UnknownMethod(f"{self.name} has no configuration {config!r}{hint}")
            keys.update(self.configs[config])
        ladder = {"ladder": "one_fit"} if self.exact_trajectory else {}
        return {"adapter": {"type": "file", "path": str(self.adapter_path)}, "python": f"env:{self.name}",
                "budget_knob": self.budget_knob, **ladder, **{key: _thawed(value) for key, value in keys.items()}}

    def provenance_of(self, config: str) -> str | None:
        """The ``config_provenance`` label of the configuration named ``config``."""
        keys = self.configs.get(config, self.run)
        value = keys.get("config_provenance")
        return value if isinstance(value, str) else None

    @property
    def pinned(self) -> str:
        return f"{self.package}=={self.version}"


def _thawed(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _thawed(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_thawed(v) for v in value]
    return value


class MethodFileError(SrbfError, ValueError):
    """A method.yaml that cannot be read: the message names the file, the field and the value."""


class UnknownMethod(SrbfError, KeyError):
    """A name that is not on the roster; the message lists the roster or the closest name."""

    def __str__(self) -> str:
        return self.args[0]


def load_folder(folder: Path) -> MethodSpec:
    """The MethodSpec of one method folder; MethodFileError if its method.yaml is wrong."""
    from srbf.methods.method_file import read_method_file

    return read_method_file(folder / METHOD_FILE, MethodSpec)


def scan(root: Path = METHODS_DIR) -> dict[str, MethodSpec]:
    """Every folder under ``root`` holding a method.yaml, by name, in alphabetical order."""
    folders = sorted(p.parent for p in root.glob(f"*/{METHOD_FILE}"))
    return {folder.name: load_folder(folder) for folder in folders}


ROSTER: dict[str, MethodSpec] = scan()


def names() -> tuple[str, ...]:
    return tuple(ROSTER)


def get(name: str) -> MethodSpec:
    """The roster record of ``name``; UnknownMethod with a did-you-mean if there is none."""
    try:
        return ROSTER[name]
    except KeyError:
        pass
    hint = did_you_mean(name.replace("-", "_"), ROSTER) or f" (the roster: {', '.join(ROSTER)})"
    raise UnknownMethod(f"unknown method {name!r}{hint}") from None


def config_entry(entry: Mapping[str, Any], *, run_budgets: bool = False) -> Mapping[str, Any]:
    """A config's method entry with the defaults of the roster method it names, its own keys
    overriding them: ``{name: gplearn}`` (no adapter) or ``{name: mine, adapter: operon}``, and
    ``config: author_blessed`` to take one of its named configurations instead of the default.
    ``run_budgets``: the config sets ``budgets`` for the whole run, which then replaces the
    method's own ladder. Any other entry (a built-in, an adapter mapping, a typo) is returned as it
    is. Raises ValueError for a ``config`` the method does not have, or one given off the roster."""
    adapter = entry.get("adapter")
    named = adapter if isinstance(adapter, str) else entry.get("name") if adapter is None else None
    config = entry.get("config")
    if not isinstance(named, str) or named not in ROSTER:
        if config is not None:
            raise ValueError(f"only a roster method has named configurations (`srbf methods list`), "
                             f"got config {config!r} for {named or entry.get('name')!r}")
        return entry
    if config is not None and not isinstance(config, str):
        raise ValueError(f"must be the name of one of {named}'s configurations, got {config!r}")
    own = {key: value for key, value in entry.items() if key not in ("adapter", "config")}
    try:
        defaults = ROSTER[named].config_defaults(config)
    except UnknownMethod as exc:
        raise ValueError(str(exc)) from None
    if run_budgets:
        defaults.pop("budgets", None)
    return {**defaults, **own}


def option_problems(adapter_path: str | Path, options: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(option path, message) for each option the roster method whose adapter file is
    ``adapter_path`` does not take as given; [] for an allowed set or a file off the roster."""
    from srbf.methods.options import option_problems as problems

    spec = spec_of_adapter(adapter_path)
    return [] if spec is None else problems(spec.name, spec.options, options)


def spec_of_adapter(adapter_path: str | Path) -> MethodSpec | None:
    """The roster method whose adapter file is ``adapter_path``; None for a file off the roster."""
    folder = Path(adapter_path).resolve().parent
    spec = ROSTER.get(folder.name)
    if spec is None or spec.adapter_path.resolve() != Path(adapter_path).resolve():
        return None
    return spec


def param_problems(adapter_path: str | Path, options: Mapping[str, Any], python: str | None) -> list[str]:
    """The pass-through parameters (``params``) of the roster method whose adapter file is
    ``adapter_path`` that its estimator does not take, read in ``python`` (``param_names``): one
    line each; [] for a file off the roster."""
    from srbf.methods.param_names import param_problems as problems

    spec = spec_of_adapter(adapter_path)
    return [] if spec is None else problems(spec.name, spec.options, options, python)


def select(name: str) -> list[MethodSpec]:
    """``all`` -> every record, in roster order; else the one record named."""
    return list(ROSTER.values()) if name == "all" else [get(name)]
