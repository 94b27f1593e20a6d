"""Every message between a run's parent and its slots crosses the pipe through ``encode`` and
``decode`` unchanged, and ``decode`` refuses what is not a message of its direction."""

from __future__ import annotations

import pickle

import pytest

from driver_helpers import swiss_config
from srbf.core import FitResult
from srbf.runs import slot_messages as msg
from srbf.runs.config import load_config
from srbf.runs.plan import make_plan
from srbf.runs.problems import fit_order


@pytest.fixture(scope="module")
def orders(tmp_path_factory):
    config = load_config(swiss_config(tmp_path_factory.mktemp("messages"), n=2))
    return [fit_order(fit, config) for fit in make_plan(config).fits]


def every_message(orders):
    spec = orders[0].spec
    ends = msg.AbnormalEnds(2, "crashed: killed by SIGKILL")
    failed = msg.StartFailed("method m.py failed to start: ImportError", ends)
    outcome = msg.SlotOutcome(FitResult(status="ok", expression="x + 1", wall_seconds=0.5), "d" * 16, "i" * 16, 1, "x")
    return [
        msg.StartWorker(spec),
        msg.CloseWorker(spec),
        msg.RunFits(orders),
        msg.Stop(),
        msg.Done(),
        msg.Done(2),
        failed,
        msg.Outcomes([outcome, msg.SlotOutcome(FitResult(status="crashed", error="died"))]),
        msg.BatchEnd(1, ends),
        msg.BatchEnd(0, ends, failed),
    ]


def test_every_message_type_round_trips(orders):
    messages = every_message(orders)
    assert {type(m) for m in messages} == set(msg.TO_SLOT) | set(msg.TO_PARENT)
    for message in messages:
        direction = msg.TO_SLOT if type(message) in msg.TO_SLOT else msg.TO_PARENT
        back = msg.decode(msg.encode(message), direction)
        assert type(back) is type(message)
        if isinstance(message, msg.RunFits):  # a FitOrder pickles as plain values: compare its key and spec
            assert [(o.key, o.spec, o.entry.id) for o in back.orders] == [(o.key, o.spec, o.entry.id) for o in orders]
        else:
            assert back == message


def test_a_message_of_the_other_direction_is_refused(orders):
    with pytest.raises(msg.BadSlotMessage, match="got a Stop, expected one of Done"):
        msg.decode(msg.encode(msg.Stop()), msg.TO_PARENT)
    with pytest.raises(msg.BadSlotMessage, match="got a Done, expected one of StartWorker"):
        msg.decode(msg.encode(msg.Done()), msg.TO_SLOT)


@pytest.mark.parametrize(
    "message, complaint",
    [
        (("end", 1, None, 0, ""), "got a tuple"),  # the old positional shape
        (msg.BatchEnd("1", msg.AbnormalEnds()), r"BatchEnd.run is a str"),
        (msg.BatchEnd(1, (0, "")), r"BatchEnd.ends is a tuple"),
        (msg.StartFailed("no", msg.AbnormalEnds("2", "")), r"AbnormalEnds.count is a str"),
        (msg.Outcomes([FitResult(status="ok")]), r"Outcomes.outcomes holds a FitResult"),
    ],
)
def test_a_message_with_a_field_of_the_wrong_type_is_refused(message, complaint):
    with pytest.raises(msg.BadSlotMessage, match=complaint):
        msg.decode(pickle.dumps(message), msg.TO_PARENT)


def test_bytes_that_are_no_message_are_refused():
    with pytest.raises(msg.BadSlotMessage, match="cannot be decoded"):
        msg.decode(b"not a pickle", msg.TO_SLOT)
