"""The config's field validators: one function per kind of value, each raising with the value it got.

Each validator checks one value (a positive integer, a budget ladder, an interpreter, ...) and
raises ``PydanticCustomError`` of type ``srbf`` carrying ``(place, message)`` problems;
``config_schema`` attaches them to its pydantic fields through the ``Annotated`` types at the end
of this module (``config_catalogs`` does the same for catalogs), and ``srbf.runs.config`` turns the
errors into one ``ConfigProblem`` each. Mappings come back read-only (``MappingProxyType``), as
the frozen models hold them. The defaults and the closed sets of names (provenance labels, adapter
types) live here too.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import shutil
import sys
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any, Mapping, Sequence

from pydantic import BeforeValidator, ValidationInfo
from pydantic_core import PydanticCustomError

from srbf.core import canonical_budget, did_you_mean
from srbf.methods.boundary import Limits
from srbf.runs.config_errors import _show, _unknown_key
from srbf.runs.config_limits import (
    BUDGET,
    CHECKPOINTS,
    DRAWS,
    FIT_BYTES,
    LIMIT,
    MEMORY_LIMIT,
    NOISE,
    POINTS,
    REPEATS,
    SEED,
    TIME_LIMIT,
    TRAJECTORY_ROWS,
    WORKERS,
    Range,
)
from srbf.runs.sweeps import canonical_json

PROVENANCE_LABELS = ("upstream_default", "author_blessed", "harness_tuned")
DEFAULT_PROVENANCE = "harness_tuned"  # an unlabeled configuration was chosen by whoever assembled it
ADAPTER_TYPES = ("builtin", "file", "srbench")
BUILTIN_METHODS = ("enumeration", "linear", "oracle", "prior")  # fallback for builtin_method_names()
DEFAULT_BUDGETS = (1, 2, 4, 8)
from srbf.core import DEFAULT_RESULTS  # noqa: E402, F401 - re-exported for config_schema; the one default, shared with the CLI and the store
DEFAULT_TIME_LIMIT = 600.0
DEFAULT_CHECKPOINTS = 180  # SymbolicArena's grid: one a minute over a 180-minute fit
RESERVED_OPTIONS = {"truth": "the driver passes the ground truth to the oracle; a config never sets it"}
MAX_POWER_OF_TWO = 62  # budgets up to 2**62; a wider ladder is a typo
SEALED = "sealed"  # seed: sealed, a random run seed kept in the store
LIMITS_RANGES = {"expression_bytes": FIT_BYTES, "internals_bytes": FIT_BYTES, "trajectory_rows": TRAJECTORY_ROWS,
                 "trajectory_bytes": FIT_BYTES}  # the Range of each field of a method's limits
UNBOUNDED = Range(1, 2**63 - 1)  # a limits field without its own Range yet (a test insists on one)

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")


def _fail(message: str, *at: Any) -> PydanticCustomError:
    """A validation error at ``at`` below the value being validated."""
    return PydanticCustomError("srbf", "{message}", {"message": message, "problems": [(at, message)]})


def _fail_all(problems: Sequence[tuple[tuple[Any, ...], str]]) -> PydanticCustomError:
    """Several problems from one validator, each at its own place below the validated value."""
    return PydanticCustomError("srbf", "{message}", {"message": problems[0][1], "problems": list(problems)})


# --- scalar validators (each raises with the value it got) --------------------------------------


def _in(bounds: Range):
    """A validator of one numeric value within ``bounds`` (``config_limits``): integers come back
    as int (3.0 is 3), numbers as float."""

    def check(value: Any) -> Any:
        problem = bounds.problem(value)
        if problem is not None:
            raise _fail(problem)
        return int(value) if bounds.integer else float(value)

    return check


def _seed(value: Any) -> int | str:
    """A public run seed in 0 .. 2**63-1, or ``sealed`` (a random seed kept in the store: docs/fairness.md)."""
    if value == SEALED:
        return SEALED
    return _in(SEED)(value)


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _fail(f"must be true or false, got {_show(value)}")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(f"must be a non-empty text, got {_show(value)}")
    return value.strip()


def _name(value: Any) -> str:
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        rule = "letters, digits and . _ + - (starting with a letter or digit)"
        raise _fail(f"must be a name of {rule}, got {_show(value)}")
    return value


def _provenance(value: Any) -> str:
    if value not in PROVENANCE_LABELS:
        hint = did_you_mean(value, PROVENANCE_LABELS)
        raise _fail(f"must be one of {', '.join(PROVENANCE_LABELS)}, got {_show(value)}{hint}")
    return value


LADDER_MODES = ("one_fit", "separate")  # a ladder from one fit's exact trajectory, or a fit per budget


def _ladder(value: Any) -> str:
    if value not in LADDER_MODES:
        hint = did_you_mean(value, LADDER_MODES)
        raise _fail(f"must be one of {', '.join(LADDER_MODES)}, got {_show(value)}{hint}")
    return value


def _adapter_type(value: Any) -> str:
    if value not in ADAPTER_TYPES:
        hint = did_you_mean(value, ADAPTER_TYPES)
        raise _fail(f"must be one of {', '.join(ADAPTER_TYPES)}, got {_show(value)}{hint}")
    return value


def _json_like(value: Any, at: tuple[Any, ...], problems: list) -> Any:
    """``value`` if it is JSON-like (text, number, true/false, null, list, mapping with text keys)."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            problems.append((at, f"must be a finite number, got {_show(value)}"))
        return value
    if isinstance(value, (list, tuple)):
        return [_json_like(v, at + (i,), problems) for i, v in enumerate(value)]
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                problems.append((at, f"keys must be text, got key {_show(k)}"))
                continue
            out[k] = _json_like(v, at + (k,), problems)
        return out
    problems.append((at, f"must be text, a number, true/false, null, a list or a mapping, got {_show(value)}"))
    return value


def _options(value: Any) -> Mapping[str, Any]:
    if value is None:
        return MappingProxyType({})
    if not isinstance(value, Mapping):
        raise _fail(f"must be a mapping of option names to values, got {_show(value)}")
    problems: list = [((k,), f"reserved: {why}") for k, why in RESERVED_OPTIONS.items() if k in value]
    plain = _json_like(value, (), problems)
    if problems:
        raise _fail_all(problems)
    return MappingProxyType(plain)


def _sweep_values(value: Any) -> tuple[Any, ...]:
    if not isinstance(value, (list, tuple)) or not value:
        raise _fail(f"must be a non-empty list of values, got {_show(value)}")
    problems: list = []
    values = [_json_like(v, (i,), problems) for i, v in enumerate(value)]
    if not problems:
        seen: dict[str, int] = {}
        for i, v in enumerate(values):
            text = canonical_json(v)
            if text in seen:
                problems.append(((i,), f"{_show(v)} is already values[{seen[text]}]; each value once"))
            seen.setdefault(text, i)
    if problems:
        raise _fail_all(problems)
    return tuple(values)


def _list_of(value: Any, item: Any, what: str) -> tuple[Any, ...]:
    """A scalar or a non-empty list of distinct items, each checked by ``item``; scalars stay scalar."""
    scalar = not isinstance(value, (list, tuple))
    items = [value] if scalar else list(value)
    if not items:
        raise _fail(f"must be {what} or a non-empty list of them, got []")
    problems, out = [], []
    for i, v in enumerate(items):
        at = () if scalar else (i,)
        try:
            checked = item(v)
        except PydanticCustomError as error:
            problems.append((at, error.context["message"]))
            continue
        if checked in out:
            problems.append((at, f"{_show(v)} is listed twice"))
        out.append(checked)
    if problems:
        raise _fail_all(problems)
    return tuple(out)


def _support_sizes(value: Any) -> tuple[int, ...]:
    return _list_of(value, _in(POINTS), "a positive integer")


def _noise_levels(value: Any) -> tuple[float, ...]:
    return _list_of(value, _in(NOISE), "a number >= 0")


def _budget(value: Any) -> int | float:
    """A budget rung in its one canonical form (``srbf.core.canonical_budget``: 5 and 5.0 are the
    integer 5), so that a fit's key, its method seed and its stored row agree."""
    number = _in(BUDGET)(value)
    if isinstance(value, int) and not isinstance(value, bool) and float(value) != value:
        raise _fail(f"must be a number a stored budget holds exactly (a 64-bit float), got {_show(value)}")
    return canonical_budget(number)


def _budgets(value: Any) -> tuple[float, ...]:
    """A number, a list of positive numbers, or ``{powers_of_two: [first, last]}``; sorted ascending."""
    if isinstance(value, Mapping):
        unknown = [k for k in value if k != "powers_of_two"]
        if unknown:
            form = " (the short form is {powers_of_two: [first, last]})"
            raise _fail_all([((k,), "unknown key" + (did_you_mean(k, ["powers_of_two"]) or form)) for k in unknown])
        if "powers_of_two" not in value:
            raise _fail("missing required key (the short form is {powers_of_two: [first, last]})", "powers_of_two")
        bounds = value["powers_of_two"]
        ok = (isinstance(bounds, (list, tuple)) and len(bounds) == 2
              and all(isinstance(b, int) and not isinstance(b, bool) for b in bounds))  # fmt: skip
        if not ok:
            raise _fail(f"must be [first, last], two integer exponents, got {_show(bounds)}", "powers_of_two")
        first, last = bounds
        if first > last:
            raise _fail(f"first exponent {first} is above last {last}", "powers_of_two")
        if max(abs(first), abs(last)) > MAX_POWER_OF_TWO:
            raise _fail(f"exponents must lie within +-{MAX_POWER_OF_TWO}, got {_show(bounds)}", "powers_of_two")
        return tuple(canonical_budget(2.0**e) for e in range(first, last + 1))
    if isinstance(value, (list, tuple)) or (isinstance(value, (int, float)) and not isinstance(value, bool)):
        return tuple(sorted(_list_of(value, _budget, "a positive number")))
    raise _fail(f"must be a list of positive numbers or {{powers_of_two: [first, last]}}, got {_show(value)}")


# --- paths --------------------------------------------------------------------------------------


def _base_dir(info: ValidationInfo) -> Path:
    context = info.context or {}
    return Path(context.get("base_dir") or Path.cwd())


def _resolve(text: str, info: ValidationInfo) -> Path:
    path = Path(text).expanduser()
    return path if path.is_absolute() else (_base_dir(info) / path).resolve()


def _python(value: Any, info: ValidationInfo) -> str:
    from srbf.methods import roster
    from srbf.methods.envs import env_name, is_env_spec

    if value is None:  # the interpreter srbf runs under, as when the key is left out
        return sys.executable
    text = _text(value)
    if is_env_spec(text):  # env:NAME, made by `srbf methods install NAME`; resolved when workers start
        try:
            name = env_name(text)
        except ValueError as error:
            raise _fail(str(error)) from None
        if name not in roster.ROSTER:
            hint = did_you_mean(name, tuple(roster.ROSTER))
            raise _fail(f"no method environment {name!r} in the roster{hint}")
        return f"env:{name}"
    if "/" in text or "\\" in text or text.startswith("~"):
        path = _resolve(text, info)
        if not path.is_file():
            raise _fail(f"no such interpreter {str(path)!r}")
        if not os.access(path, os.X_OK):
            raise _fail(f"{str(path)!r} is not executable")
        return str(path)
    found = shutil.which(text)
    if found is None:
        raise _fail(f"no interpreter {text!r} on PATH; give its full path")
    return found


def _method_path(value: Any, info: ValidationInfo) -> str:
    """The adapter's path made absolute; whether it must be a file or a folder depends on the type."""
    return str(_resolve(_text(value), info))


def builtin_method_names() -> tuple[str, ...]:
    """The built-in reference methods (``srbf.methods.builtin.BUILTIN_METHODS``)."""
    try:
        from srbf.methods import builtin
    except ImportError:  # a partial install: the names this module knows
        return BUILTIN_METHODS
    return tuple(getattr(builtin, "BUILTIN_METHODS", BUILTIN_METHODS))


def _env(value: Any) -> Mapping[str, str | None]:
    """Environment variables for the worker: NAME: value (numbers become text), or null to unset."""
    if value is None:
        return MappingProxyType({})
    if not isinstance(value, Mapping):
        raise _fail(f"must be a mapping of variable names to values, got {_show(value)}")
    problems, out = [], {}
    for name, v in value.items():
        if not isinstance(name, str) or not name or "=" in name or "\0" in name:
            problems.append(((), f"{_show(name)} is not an environment variable name"))
        elif v is not None and (isinstance(v, bool) or not isinstance(v, (str, int, float))):
            problems.append(((name,), f"must be text, a number or null (to unset it), got {_show(v)}"))
        else:
            out[name] = None if v is None else str(v)
    if problems:
        raise _fail_all(problems)
    return MappingProxyType(out)


def _limits(value: Any) -> Limits:
    """What one fit may send back: null (the defaults of ``srbf.methods.boundary.Limits``) or a
    mapping of some of its fields, each a positive integer."""
    if value is None:
        return Limits()
    if not isinstance(value, Mapping):
        raise _fail(f"must be a mapping, got {_show(value)}")
    names = [field.name for field in dataclasses.fields(Limits)]
    problems, checked = [], {}
    for name in names:  # the fields' problems first, then the unknown keys, as for every section
        if name in value:
            try:
                checked[name] = _in(LIMITS_RANGES.get(name, UNBOUNDED))(value[name])
            except PydanticCustomError as error:
                problems.append(((name,), error.context["message"]))
    problems += [((key,), _unknown_key(key, names)) for key in value if key not in names]
    if problems:
        raise _fail_all(problems)
    return Limits(**checked)


# --- the types the schema's fields use ------------------------------------------------------------
# A numeric type carries its Range as metadata too: the tests find every numeric field by it.

Name = Annotated[str, BeforeValidator(_name)]
Text = Annotated[str, BeforeValidator(_text)]
Limit = Annotated[int, BeforeValidator(_in(LIMIT)), LIMIT]
Workers = Annotated[int, BeforeValidator(_in(WORKERS)), WORKERS]
Draws = Annotated[int, BeforeValidator(_in(DRAWS)), DRAWS]
Repeats = Annotated[int, BeforeValidator(_in(REPEATS)), REPEATS]
Checkpoints = Annotated[int, BeforeValidator(_in(CHECKPOINTS)), CHECKPOINTS]
Points = Annotated[int, BeforeValidator(_in(POINTS)), POINTS]
Seed = Annotated[int | str, BeforeValidator(_seed), SEED]
TimeLimit = Annotated[float, BeforeValidator(_in(TIME_LIMIT)), TIME_LIMIT]
MemoryLimit = Annotated[float, BeforeValidator(_in(MEMORY_LIMIT)), MEMORY_LIMIT]  # MiB
Flag = Annotated[bool, BeforeValidator(_flag)]
Provenance = Annotated[str, BeforeValidator(_provenance)]
Ladder = Annotated[str, BeforeValidator(_ladder)]
AdapterType = Annotated[str, BeforeValidator(_adapter_type)]
Options = Annotated[Any, BeforeValidator(_options)]
SweepValues = Annotated[Any, BeforeValidator(_sweep_values)]
SupportSizes = Annotated[Any, BeforeValidator(_support_sizes), POINTS]
NoiseLevels = Annotated[Any, BeforeValidator(_noise_levels), NOISE]
Budgets = Annotated[Any, BeforeValidator(_budgets), BUDGET]
Env = Annotated[Any, BeforeValidator(_env)]
FitLimits = Annotated[Limits, BeforeValidator(_limits)]  # each field's Range: LIMITS_RANGES
Python = Annotated[str, BeforeValidator(_python)]
MethodPath = Annotated[str, BeforeValidator(_method_path)]
