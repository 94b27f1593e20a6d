"""One validator for every roster method's options, driven by the constraints its method.yaml declares.

A method.yaml lists each option its adapter takes with what it may be::

    options:
      generations_per_call: {type: int, range: [1, null]}
      budget_unit: {type: str, choices: [generations, evaluations]}
      unary: {type: list, items: {type: str}}
      params: {type: mapping, forbidden: [generations, random_state], why: the benchmark sets them}

Constraint keys: ``type`` (int, number, bool, str, list, mapping, any), ``range`` ([low, high],
closed, null for no bound), ``choices``, ``nullable``, ``items`` (a constraint for every element
of a list), ``length`` (of a list: n, or [low, high]), ``keys`` (a mapping's only keys, each with its constraint),
``forbidden`` (keys a mapping may not set) with ``why``, ``signature`` (``module:Name``, the
estimator a mapping's keys are handed to: checked in the method's own interpreter by
``srbf.methods.param_names``, at ``srbf check`` and before a run). ``option_problems`` checks a config's
options against them when the config is loaded, so a bad option stops ``srbf check`` and
``srbf run`` before any fit, with one message in the manner of scikit-learn's parameter
validation: which option of which method, what is allowed, what was given. Defaults are the
adapter's business (what it does when an option is left out), not this module's.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from srbf.core import did_you_mean

TYPES = ("int", "number", "bool", "str", "list", "mapping", "any")
CONSTRAINT_KEYS = ("type", "range", "choices", "nullable", "items", "length", "keys", "forbidden", "why", "signature")
_ARTICLE = {"int": "an int", "number": "a number", "bool": "true or false", "str": "a string", "list": "a list",
            "mapping": "a mapping", "any": "any value"}  # fmt: skip


def _show(value: Any) -> str:
    return repr(value) if not isinstance(value, bool) else str(value).lower()


def _is(kind: str, value: Any) -> bool:
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "str":
        return isinstance(value, str)
    if kind == "list":
        return isinstance(value, (list, tuple))
    if kind == "mapping":
        return isinstance(value, Mapping)
    return True


def describe(constraint: Mapping[str, Any]) -> str:
    """What a constraint allows, in words: ``an int in [1, inf)``, ``one of 'a', 'b'``."""
    kind = constraint.get("type", "any")
    if "choices" in constraint:
        text = "one of " + ", ".join(_show(c) for c in constraint["choices"])
    else:
        text = _ARTICLE[kind]
    if "range" in constraint:
        low, high = constraint["range"]
        text += f" in {'(-inf' if low is None else '[' + _show(low)}, {'inf)' if high is None else _show(high) + ']'}"
    if "length" in constraint:
        text += f" of {_lengths(constraint['length'])}"
    if "items" in constraint:
        text += f", each {describe(constraint['items'])}"
    if "keys" in constraint:
        text += " with keys among " + ", ".join(constraint["keys"])
    if "forbidden" in constraint:
        text += " not setting " + ", ".join(constraint["forbidden"])
        if constraint.get("why"):
            text += f" ({constraint['why']})"
    if constraint.get("nullable"):
        text += " or null"
    return text


def _bounds(length: Any) -> tuple[Any, Any]:
    """A ``length`` constraint (n, or [low, high] with null for no bound) as (low, high)."""
    return (length, length) if isinstance(length, int) else tuple(length)


def _within(value: Any, bounds: Any) -> bool:
    low, high = bounds
    return (low is None or value >= low) and (high is None or value <= high)


def _lengths(length: Any) -> str:
    low, high = _bounds(length)
    if low == high:
        return f"length {low}"
    return f"at least {low} item(s)" if high is None else f"{low} to {high} items"


def _problems(method: str, constraint: Mapping[str, Any], value: Any, where: str) -> list[tuple[str, str]]:
    """(option path, message) for ``value`` against ``constraint``; [] if it holds."""
    if value is None and constraint.get("nullable"):
        return []
    kind = constraint.get("type", "any")
    wrong = [(where, f"The {where!r} option of {method} must be {describe(constraint)}. Got {_show(value)} instead.")]
    if not _is(kind, value):
        return wrong
    if "choices" in constraint and value not in constraint["choices"]:
        return wrong
    if "range" in constraint:
        if math.isnan(value) or not _within(value, constraint["range"]):
            return wrong
    if "length" in constraint and not _within(len(value), _bounds(constraint["length"])):
        return wrong
    if "forbidden" in constraint and any(key in value for key in constraint["forbidden"]):
        return wrong
    found: list[tuple[str, str]] = []
    for i, item in enumerate(value if "items" in constraint else ()):
        found += _problems(method, constraint["items"], item, f"{where}[{i}]")
    for key, item in (value.items() if "keys" in constraint else ()):
        if key in constraint["keys"]:
            found += _problems(method, constraint["keys"][key], item, f"{where}.{key}")
        else:
            found.append((f"{where}.{key}", f"The {where!r} option of {method} has no key {key!r}"
                                            f"{did_you_mean(key, constraint['keys'])} (its keys: "
                                            f"{', '.join(constraint['keys'])})"))
    return found


def option_problems(method: str, constraints: Mapping[str, Any], options: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(option path, message) for each option of ``options`` that ``constraints`` (a method.yaml's
    ``options``) does not allow; [] when all are allowed."""
    found = []
    for key, value in options.items():
        if key in constraints:
            found += _problems(method, constraints[key], value, str(key))
        elif not constraints:
            found.append((str(key), f"{method} takes no options; got {key!r}"))
        else:
            found.append((str(key), f"{method} has no option {key!r}{did_you_mean(key, constraints)} "
                                    f"(its options: {', '.join(constraints)})"))
    return found


def constraint_problems(method: str, constraints: Mapping[str, Any], where: str = "options") -> list[str]:
    """What is wrong with a method.yaml's constraints themselves (unknown keys or types, a bad
    range), as ``options.KEY: ...`` lines; [] when they are well formed."""
    found = []
    for key, constraint in constraints.items():
        at = f"{where}.{key}"
        if not isinstance(constraint, Mapping):
            found.append(f"{at}: must be a mapping of constraint keys ({', '.join(CONSTRAINT_KEYS)}), got {constraint!r}")
            continue
        unknown = [k for k in constraint if k not in CONSTRAINT_KEYS]
        if unknown:
            found.append(f"{at}: unknown constraint key {unknown[0]!r}{did_you_mean(unknown[0], CONSTRAINT_KEYS)} "
                         f"(known: {', '.join(CONSTRAINT_KEYS)})")
        kind = constraint.get("type", "any")
        if kind not in TYPES:
            found.append(f"{at}.type: must be one of {', '.join(TYPES)}, got {kind!r}")
        bounds = constraint.get("range")
        if bounds is not None and not (isinstance(bounds, (list, tuple)) and len(bounds) == 2 and all(
                b is None or _is("number", b) for b in bounds)):  # fmt: skip
            found.append(f"{at}.range: must be [low, high] (numbers or null), got {bounds!r}")
        length = constraint.get("length")
        if length is not None and not (_is("int", length) or (isinstance(length, (list, tuple)) and len(length) == 2
                                                              and all(b is None or _is("int", b) for b in length))):
            found.append(f"{at}.length: must be n or [low, high] (integers or null), got {length!r}")
        if "items" in constraint:
            found += constraint_problems(method, {"items": constraint["items"]}, at)
        if "keys" in constraint:
            found += constraint_problems(method, constraint["keys"], f"{at}.keys")
    return found
