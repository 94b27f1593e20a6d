"""JSON text for the store's free-form columns (configs, method internals, metrics).

NumPy scalars and arrays are written as plain numbers and lists. Non-finite floats are kept:
``NaN``, ``Infinity`` and ``-Infinity`` are written as Python's ``json`` writes them, so they read
back exactly through srbf's readers. SQLite's own JSON functions accept them from SQLite 3.42 on
(JSON5; NaN reads as NULL there) and fail with "malformed JSON" before; strict JSON parsers reject
them: read the store through srbf's frames (``ResultsStore.predictions_frame`` etc.).
"""

from __future__ import annotations

import json
from pathlib import PurePath
from typing import Any

import numpy as np


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, PurePath):
        return str(value)
    raise TypeError(f"{type(value).__name__} value {value!r:.80} is not JSON-serialisable")


def dumps(value: Any, what: str) -> str:
    """``value`` as compact JSON text; a ``TypeError`` naming ``what`` if it cannot be written."""
    try:
        return json.dumps(value, default=_plain, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what}: {exc}") from None


def loads(text: str | None) -> Any:
    """The value stored as JSON ``text`` (``None`` for SQL NULL)."""
    return None if text is None else json.loads(text)
