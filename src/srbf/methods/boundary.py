"""What a worker sends back, checked before srbf uses it: text, types and sizes.

A method is untrusted code, and so is the worker process it runs in: a method can write on the
protocol pipe itself, or return anything. The parent therefore reads every message through this
module, whatever the worker's own checks did (``worker_main`` refuses most of the same things
earlier, with the same reasons, so that an honest mistake costs no transfer):

- text is made storable: lone surrogates (which no UTF-8 file or database can hold) become
  U+FFFD, and the record says so under ``internals["srbf_sanitized"]``;
- sizes are capped (``Limits``): an expression or internals over their limit fail the fit; a
  trajectory over its limit keeps its first rows and its last, with a note;
- wrong types are refused: a report or result of the wrong shape fails the fit with the reason
  (``BadMessage``), never srbf.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass
from typing import Any

from srbf.methods import worker_main as wire
from srbf.core import FitResult, SrbfError

SANITIZED_KEY = "srbf_sanitized"  # srbf's notes on what it repaired in a record (a list of lines)
MAX_DEPTH = wire.MAX_DEPTH
ERROR_CHARS = 2 * wire.ERROR_CHARS  # of an error and of its traceback (the worker cuts at half that)
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Limits:
    """The most a fit may send back (bytes of UTF-8; rows); a method's config can change them."""

    expression_bytes: int = 100_000  # the returned expression, and each reported one
    internals_bytes: int = 1_000_000  # every other returned key, as JSON
    trajectory_rows: int = 10_000  # reports kept per fit
    trajectory_bytes: int = 10_000_000  # their expressions together

    def __post_init__(self):
        for name, value in asdict(self).items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"limits.{name} must be a positive integer, got {value!r}")

    def changed(self) -> dict[str, int]:
        """The limits that differ from the defaults (a config hash covers only those)."""
        default = Limits()
        return {name: value for name, value in asdict(self).items() if value != getattr(default, name)}

    def for_worker(self) -> dict[str, int]:
        """The limits the worker applies itself (sent with ``start``)."""
        return {"expression_bytes": self.expression_bytes, "internals_bytes": self.internals_bytes}

    @property
    def frame_bytes(self) -> int:
        """The largest message header accepted from a worker: room for a result at its limits,
        with JSON escaping at its worst; a larger one breaks the protocol."""
        return 8 * (self.expression_bytes + self.internals_bytes + ERROR_CHARS) + (1 << 20)


class BadMessage(SrbfError, ValueError):
    """A message of the wrong shape from a worker; the fit fails with this reason."""


def _malformed(kind: str, detail: str) -> BadMessage:
    return BadMessage(f"the worker sent a malformed {kind}: {detail}")


def _replace_surrogates(text: str) -> tuple[str, int]:
    try:
        text.encode("utf-8")
        return text, 0
    except UnicodeEncodeError:
        return _SURROGATE.subn("\ufffd", text)


def _note(notes: list[str], where: str, count: int) -> None:
    if count:
        notes.append(f"{where}: {count} lone surrogate(s) replaced by U+FFFD")


def clean_text(text: str, notes: list[str], where: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD (noted in ``notes`` as ``where: ...``)."""
    text, count = _replace_surrogates(text)
    _note(notes, where, count)
    return text


def clean_value(value: Any, notes: list[str], where: str) -> Any:
    """The JSON value ``value`` with every string (keys too) cleaned; BadMessage when it is nested
    deeper than ``MAX_DEPTH``. Iterative, so that no depth can exhaust the stack; a value without
    lone surrogates (one pass of the JSON encoder tells) is returned as it is."""
    _check_depth(value, where)
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
        return value
    except UnicodeEncodeError:
        pass
    replaced = 0
    root: list[Any] = [None]
    stack = [(value, root, 0)]  # (value, its container, its index or key there)
    while stack:
        item, parent, slot = stack.pop()
        if isinstance(item, str):
            item, count = _replace_surrogates(item)
            replaced += count
        elif isinstance(item, list):
            copy: Any = [None] * len(item)
            stack.extend((v, copy, i) for i, v in enumerate(item))
            item = copy
        elif isinstance(item, dict):
            copy = {}
            for key, v in item.items():
                key, count = _replace_surrogates(key)
                replaced += count
                copy[key] = None
                stack.append((v, copy, key))
            item = copy
        parent[slot] = item
    _note(notes, where, replaced)
    return root[0]


def _clean_internals(internals: dict, notes: list[str]) -> tuple[dict, int]:
    """``clean_value(internals)`` and the size of its compact JSON in bytes, with one pass of
    the encoder when there is nothing to clean (the common case: once per fit)."""
    _check_depth(internals, "internals")
    try:
        return internals, len(json.dumps(internals, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    except UnicodeEncodeError:
        internals = clean_value(internals, notes, "internals")
        return internals, _bytes(json.dumps(internals, ensure_ascii=False, separators=(",", ":")))


def _check_depth(value: Any, where: str) -> None:
    """BadMessage when ``value`` nests lists and objects deeper than MAX_DEPTH (only containers
    are collected level by level: a long list of numbers is scanned, never copied)."""
    level = [value] if isinstance(value, (list, dict)) else []
    depth = 0  # of the containers in ``level``; the value itself is at 0
    while level:
        if depth > MAX_DEPTH:
            raise _malformed("result", f"{where} nested deeper than {MAX_DEPTH} levels")
        level = [
            child
            for item in level
            for child in (item.values() if isinstance(item, dict) else item)
            if isinstance(child, (list, dict))
        ]
        depth += 1


def _number(message: dict, name: str, kind: str) -> float | None:
    value = message.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _malformed(kind, f"{name!r} is {type(value).__name__}, not a number")
    value = float(value)
    if not math.isfinite(value) or value < 0:
        raise _malformed(kind, f"{name!r} is {value!r}, not a finite number >= 0")
    return value


def _text(message: dict, name: str, kind: str) -> str | None:
    value = message.get(name)
    if value is not None and not isinstance(value, str):
        raise _malformed(kind, f"{name!r} is {type(value).__name__}, not str")
    return value


def _bytes(text: str) -> int:
    return len(text.encode("utf-8"))


class Trajectory:
    """The reports of one fit, as they arrive: checked, cleaned and capped (``rows``, ``notes``)."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.rows: list[tuple[float, str]] = []
        self.marks: list[tuple[float, float, str]] = []  # (budget, seconds, expression): see FitResult.marks
        self.notes: list[str] = []
        self._received = 0
        self._bytes = 0
        self._oversized = 0
        self._full = False  # once a limit is reached, each new report replaces the last row

    def add(self, message: dict, received: float | None = None) -> None:
        """Take one ``report`` message; BadMessage if it is not ``{t: seconds, expression: str}``.
        ``received``: the parent's seconds since the fit started, when the report arrived; it
        replaces the worker's own ``t`` (a method can write any ``t``, not arrive before it sent)."""
        seconds = _number(message, "t", "report")
        expression = _text(message, "expression", "report")
        budget = _number(message, "budget", "report")
        if seconds is None or expression is None:
            raise _malformed("report", "it needs 't' and 'expression'")
        if received is not None:
            seconds = received
        self._received += 1
        expression, replaced = _replace_surrogates(expression)
        size = _bytes(expression)
        if size > self.limits.expression_bytes:
            self._oversized += 1
            return
        _note(self.notes, "trajectory", replaced)
        if budget is not None and len(self.marks) < self.limits.trajectory_rows:
            self.marks.append((budget, seconds, expression))
        if self.rows and self.rows[-1][1] == expression:
            return  # a budget step's report of the same incumbent: a mark, not a new row
        self._full = self._full or (
            len(self.rows) >= self.limits.trajectory_rows or self._bytes + size > self.limits.trajectory_bytes
        )
        if self._full and self.rows:
            self._bytes -= _bytes(self.rows[-1][1])
            self.rows[-1] = (seconds, expression)  # the last row is always the latest incumbent
        else:
            self.rows.append((seconds, expression))
        self._bytes += size

    def summary(self) -> list[str]:
        """The notes, with what the caps dropped."""
        notes = list(self.notes)
        if self._oversized:
            limit = wire.format_size(self.limits.expression_bytes)
            notes.append(f"trajectory: {self._oversized} report(s) over {limit} dropped (limits.expression_bytes)")
        kept = len(self.rows) + self._oversized
        if self._received > kept:
            notes.append(
                f"trajectory: {self._received:,} reports, kept the first {len(self.rows) - 1:,} and the last "
                f"(limits.trajectory_rows {self.limits.trajectory_rows:,}, limits.trajectory_bytes "
                f"{wire.format_size(self.limits.trajectory_bytes)})"
            )
        return notes


def with_notes(internals: dict, notes: list[str]) -> dict:
    """``internals`` carrying srbf's ``notes`` (a method's own value under the key is not kept)."""
    internals = {k: v for k, v in internals.items() if k != SANITIZED_KEY}
    if notes:
        internals[SANITIZED_KEY] = list(dict.fromkeys(notes))
    return internals


def failed(reason: str, trajectory: Trajectory, status: str = "failed", **times: float | None) -> FitResult:
    """A fit that ends without a result (``status`` failed, timeout or crashed) for ``reason``,
    with the trajectory received until then."""
    return FitResult(
        status=status,
        error=reason,
        trajectory=trajectory.rows,
        marks=trajectory.marks,
        internals=with_notes({}, trajectory.summary()),
        **times,
    )


def fit_result(message: dict, trajectory: Trajectory, limits: Limits) -> FitResult:
    """The ``FitResult`` of a ``result`` message: ``ok`` only when everything in it is in order
    (over a limit: ``failed`` with the sizes); BadMessage when it has the wrong shape."""
    notes: list[str] = []
    status = message.get("status")
    if status not in ("ok", "failed"):
        raise _malformed("result", f"'status' is {str(status)[:40]!r}, not 'ok' or 'failed'")
    # The worker's own clocks ("wall", "cpu") run in the method's process: checked, never used (the
    # parent times the fit from outside, ``worker``); "method_seconds" is the method's claim, kept apart.
    times = {name: _number(message, name, "result") for name in ("wall", "cpu", "method_seconds")}
    raw_internals = message.get("internals") or {}
    if not isinstance(raw_internals, dict):
        raise _malformed("result", f"'internals' is {type(raw_internals).__name__}, not an object")
    expression = None
    if status == "ok":
        expression = _text(message, "expression", "result")
        if not expression or not expression.strip():
            raise _malformed("result", "status ok without an expression")
        expression, replaced = _replace_surrogates(expression)
        size = _bytes(expression)
        if size > limits.expression_bytes:
            return failed(wire.over_limit("the expression", size, limits.expression_bytes, "expression_bytes"), trajectory)
        _note(notes, "expression", replaced)
    internals, size = _clean_internals(raw_internals, notes)
    if size > limits.internals_bytes:
        return failed(wire.over_limit("the internals' JSON", size, limits.internals_bytes, "internals_bytes"), trajectory)
    error = None
    if status == "failed":
        reason = _text(message, "error", "result") or "the worker sent a failed result without a reason"
        error, replaced = _replace_surrogates(reason[:ERROR_CHARS])
        traceback, more = _replace_surrogates((_text(message, "traceback", "result") or "")[-ERROR_CHARS:])
        _note(notes, "error", replaced + more)
        if traceback:
            error = f"{error}\n\n{traceback}"
    return FitResult(
        status=status,
        expression=expression,
        error=error,
        method_seconds=times["method_seconds"],
        internals=with_notes(internals, notes + trajectory.summary()),
        trajectory=trajectory.rows,
        marks=trajectory.marks,
    )


READY_FIELDS = {"type": str, "pid": int, "python": str, "executable": str, "numpy": str, "setup_seconds": float}


def clean_start_message(message: dict) -> dict:
    """A ``ready`` or ``start_error`` message with its text storable and printable. Of a ``ready``
    message only the fields the worker sends are kept, and only with their types (the method's
    import runs before it and could have written one)."""
    try:
        message = clean_value(message, [], "start")
    except BadMessage:
        return {"type": "start_error", "error": "the worker's start message is nested too deeply"}
    if message.get("type") != "ready":
        return message
    kept = {}
    for name, kind in READY_FIELDS.items():
        value = message.get(name)
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if isinstance(value, kind) and not isinstance(value, bool) and (kind is not float or math.isfinite(value)):
            kept[name] = value
    return kept
