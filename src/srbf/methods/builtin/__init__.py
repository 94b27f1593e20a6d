"""Built-in reference methods: floors and ceilings every benchmark run can be read against.

| method | budget | role |
| --- | --- | --- |
| ``linear`` | unused | floor: least squares on the inputs plus an intercept |
| ``oracle`` | unused | ceiling of the fitting stage: the truth's structure, constants refitted |
| ``prior`` | candidates drawn | random-search baseline over a grammar |
| ``enumeration`` | size bound (nodes) | exhaustive baseline over all skeletons up to a size |

Each is one module following the worker protocol (``fit(X, y, *, budget, seed, variables,
options, report) -> dict``, optional ``setup(options)``), so the worker runs it like any method
file: ``path_of("prior")`` gives the file. Only ``oracle`` sees the truth (``SEES_TRUTH``).
``fitting`` (constant fitting) and ``search`` (normal form, incumbent bookkeeping) are shared.
See docs/builtin_methods.md.
"""

from __future__ import annotations

from pathlib import Path

BUILTIN_METHODS = ("linear", "oracle", "prior", "enumeration")
ORACLE_METHODS = frozenset({"oracle"})  # the only built-ins the driver may pass the truth to
# each built-in's primary search paradigm, as roster methods give theirs in method.yaml (seed 002's
# grouping); the oracle searches nothing (it is handed the structure), so it is ``reference``,
# outside the grouping, and never a probe
BUILTIN_PARADIGMS = {"linear": "structured_search", "oracle": "reference", "prior": "structured_search",
                     "enumeration": "structured_search"}  # fmt: skip


def path_of(name: str) -> Path:
    """The method file of the built-in ``name`` (for the worker, which runs methods by file)."""
    if name not in BUILTIN_METHODS:
        raise ValueError(f"unknown built-in method {name!r} (known: {', '.join(BUILTIN_METHODS)})")
    return Path(__file__).with_name(f"{name}.py")
