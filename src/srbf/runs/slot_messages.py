"""Every message between a run's parent and its slot processes, with its fields named.

Parent -> slot: ``StartWorker`` and ``CloseWorker`` (answered with ``Done`` or ``StartFailed``),
``RunFits`` (answered with any number of ``Outcomes``, then one ``BatchEnd``), ``Stop``.
Slot -> parent: ``Done``, ``StartFailed``, ``Outcomes``, ``BatchEnd``.

``encode`` and ``decode`` are the only way a message crosses the pipe: ``decode`` refuses anything
that is not a message of the expected direction with fields of the declared types (a slot process
is srbf's own code, so a refusal is a bug, said as ``BadSlotMessage``). A change to a message is
one change here, which both ends and the round-trip test see.
"""

from __future__ import annotations

import pickle
import types
import typing
from dataclasses import dataclass, fields

from srbf.core import FitResult
from srbf.runs.problems import FitOrder
from srbf.runs.worker_spec import WorkerSpec

__all__ = [
    "AbnormalEnds", "BadSlotMessage", "BatchEnd", "CloseWorker", "Done", "Outcomes", "RunFits", "SlotOutcome",
    "StartFailed", "StartWorker", "Stop", "TO_PARENT", "TO_SLOT", "decode", "encode",
]  # fmt: skip


@dataclass(frozen=True)
class AbnormalEnds:
    """A method's abnormal ends in a row in one slot (timeouts, crashes, failed restarts), and the
    latest one's reason."""

    count: int = 0
    last_error: str = ""


@dataclass
class SlotOutcome:
    """What came of one order: the result and the hashes of the points; ``abnormal`` is the
    method's abnormal ends in a row in this slot after it, with ``last_error`` the latest."""

    result: FitResult
    data_hash: str = ""
    inputs_hash: str = ""
    abnormal: int = 0
    last_error: str = ""


# ---------------------------------------------------------------- parent -> slot


@dataclass(frozen=True)
class StartWorker:
    """Start a method worker for ``spec`` and keep it for the fits to come."""

    spec: WorkerSpec


@dataclass(frozen=True)
class CloseWorker:
    """End the method worker of ``spec`` (its count of abnormal ends is forgotten)."""

    spec: WorkerSpec


@dataclass(frozen=True)
class RunFits:
    """Run these orders, all of one method, in order (``slot._run_orders``)."""

    orders: list[FitOrder]


@dataclass(frozen=True)
class Stop:
    """End the method workers and the slot process."""


# ---------------------------------------------------------------- slot -> parent


@dataclass(frozen=True)
class Done:
    """``StartWorker`` or ``CloseWorker`` done; ``value`` is what it returned (workers closed)."""

    value: int | None = None


@dataclass(frozen=True)
class StartFailed:
    """A method worker could not be (re)started: the message, and the method's abnormal ends in
    a row in this slot, the failed start included."""

    error: str
    ends: AbnormalEnds


@dataclass(frozen=True)
class Outcomes:
    """The outcomes of the next orders of a ``RunFits``, in order."""

    outcomes: list[SlotOutcome]


@dataclass(frozen=True)
class BatchEnd:
    """A ``RunFits`` is over: ``run`` orders were run (their outcomes sent); ``start_failed`` is
    set when the worker could not be (re)started for order number ``run``; ``ends`` is the
    method's abnormal ends in a row in this slot."""

    run: int
    ends: AbnormalEnds
    start_failed: StartFailed | None = None


TO_SLOT = (StartWorker, CloseWorker, RunFits, Stop)
TO_PARENT = (Done, StartFailed, Outcomes, BatchEnd)


class BadSlotMessage(RuntimeError):
    """What came over a slot pipe is not a message of its direction (a bug in srbf, not the user's)."""


def _checks(cls: type) -> tuple[tuple[str, tuple[type, ...], tuple[type, ...]], ...]:
    """(field, allowed types, allowed element types of a list) for each field of ``cls``."""
    hints = typing.get_type_hints(cls)
    checks = []
    for f in fields(cls):
        hint = hints[f.name]
        options = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
        allowed, elements = [], ()
        for option in options:
            if typing.get_origin(option) is list:
                allowed.append(list)
                elements = typing.get_args(option)
            else:
                allowed.append(type(None) if option is None else option)
        checks.append((f.name, tuple(allowed), elements))
    return tuple(checks)


_CHECKS = {cls: _checks(cls) for cls in (AbnormalEnds, *TO_SLOT, *TO_PARENT)}


def _validate(value: object, where: str) -> None:
    for name, allowed, elements in _CHECKS[type(value)]:
        field_value = getattr(value, name)
        if not isinstance(field_value, allowed):
            raise BadSlotMessage(f"{where}: {type(value).__name__}.{name} is a {type(field_value).__name__}")
        if type(field_value) in _CHECKS:
            _validate(field_value, where)
        for item in field_value if elements else ():  # the items' type; their fields are their maker's
            if not isinstance(item, elements):
                raise BadSlotMessage(f"{where}: {type(value).__name__}.{name} holds a {type(item).__name__}")


def encode(message: object) -> bytes:
    """The bytes that carry ``message`` over a slot pipe."""
    return pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)


def decode(data: bytes, expected: tuple[type, ...]) -> object:
    """The message in ``data``, checked to be one of ``expected`` (``TO_SLOT`` or ``TO_PARENT``)
    with fields of the declared types; BadSlotMessage otherwise."""
    where = "slot message"
    try:
        message = pickle.loads(data)
    except Exception as exc:  # noqa: BLE001 - any unpickling failure is a bad message
        raise BadSlotMessage(f"{where}: cannot be decoded ({type(exc).__name__}: {exc})") from None
    if type(message) not in expected:
        names = ", ".join(cls.__name__ for cls in expected)
        raise BadSlotMessage(f"{where}: got a {type(message).__name__}, expected one of {names}")
    _validate(message, where)
    return message
