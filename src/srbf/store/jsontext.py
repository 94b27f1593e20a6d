"""JSON text for the store's free-form columns (configs, method internals, metrics).

Everything written is standard JSON, so that any reader (SQLite's JSON functions, DuckDB, a
strict parser, another language) can read the store. NumPy scalars and arrays are written as
plain numbers and lists. JSON has no NaN or infinity, so a non-finite float is written as the
string ``"NaN"``, ``"Infinity"`` or ``"-Infinity"`` (the spelling of Protocol Buffers' JSON
mapping), and srbf's reader turns those three strings back into floats: through srbf's frames
(``ResultsStore.predictions_frame`` etc.) a NaN or an infinity reads back exactly. The price: a
string that is exactly one of the three also reads back as a float. Stores written before this
held bare ``NaN`` tokens; they read back as before.
"""

from __future__ import annotations

import json
import math
from typing import Any

from srbf.core import to_plain

NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _plain(value: Any) -> Any:
    """What the JSON encoder cannot write itself (NumPy arrays and scalars, paths) as plain values."""
    plain = to_plain(value)
    if plain is value:
        raise TypeError(f"{type(value).__name__} value {value!r:.80} is not JSON-serialisable")
    return plain


def _write(value: Any) -> str:
    return json.dumps(value, default=_plain, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def dumps(value: Any, what: str) -> str:
    """``value`` as compact standard JSON text; a ``TypeError`` naming ``what`` if it cannot be written."""
    try:
        try:
            return _write(value)
        except ValueError as exc:  # a non-finite float somewhere (or a circular reference)
            if "Out of range float" not in str(exc):
                raise
            return _write(to_plain(value, non_finite="string"))  # Protocol Buffers' spelling
    except (TypeError, ValueError, RecursionError) as exc:
        raise TypeError(f"{what}: {exc}") from None


def _nonfinite_back(value: Any) -> Any:
    if isinstance(value, str):
        return NON_FINITE.get(value, value)
    if isinstance(value, dict):
        return {k: _nonfinite_back(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_nonfinite_back(v) for v in value]
    return value


def loads(text: str | None) -> Any:
    """The value stored as JSON ``text`` (``None`` for SQL NULL), non-finite floats restored."""
    if text is None:
        return None
    value = json.loads(text)
    if '"NaN"' in text or 'Infinity"' in text:
        value = _nonfinite_back(value)
    return value


def loads_many(texts: list[str]) -> list[Any]:
    """``[loads(text) for text in texts]`` for many JSON objects, none of them NULL, parsed in one
    go (one parser call instead of one per text: the long frame's metrics are thousands). Texts
    that are not one object each are parsed one by one, so a broken one fails as with ``loads``."""
    if not all(text.startswith("{") and text.endswith("}") for text in texts):
        return [loads(text) for text in texts]
    try:
        values = json.loads("[" + ",".join(texts) + "]")
    except ValueError:
        values = None
    if values is None or len(values) != len(texts) or not all(isinstance(v, dict) for v in values):
        return [loads(text) for text in texts]
    for i, text in enumerate(texts):
        if '"NaN"' in text or 'Infinity"' in text:
            values[i] = _nonfinite_back(values[i])
    return values
