"""A batch of fit orders sent to a slot process in one message: every order gets its own outcome,
whatever the fits before it did, and a batch that cannot go on says where it stopped."""

from __future__ import annotations

import signal
import threading
from pathlib import Path

import pytest

from driver_helpers import swiss_config
from srbf.methods.worker import WorkerStartError
from srbf.runs.config import load_config
from srbf.runs.plan import make_plan
from srbf.runs.problems import fit_order
from srbf.runs.slot import SlotGone, SlotProcess, SlotSettings
from srbf.runs import slot_messages as msg
from srbf.runs.slot_messages import StartWorker


def orders(tmp_path, n, **options):
    config = load_config(swiss_config(tmp_path, n=n, time_limit=1, options=options))
    return [fit_order(fit, config) for fit in make_plan(config).fits]


@pytest.fixture
def slot():
    process = SlotProcess(SlotSettings(max_restarts=1))
    yield process
    process.close()


@pytest.mark.slow
def test_a_fit_that_kills_its_worker_or_hangs_in_a_batch_leaves_the_other_fits_alone(tmp_path, slot):
    batch = orders(tmp_path, 5, mode="crash3_hang5")[1:]  # p02..p05: p03 kills its worker, p05 hangs
    outcomes = list(slot.fits(batch))
    assert [o.result.status for o in outcomes] == ["ok", "crashed", "ok", "timeout"]
    assert [o.result.expression for o in outcomes if o.result.status == "ok"] == ["x + 2", "x + 4"]
    assert "SIGKILL" in outcomes[1].result.error and "time limit of 1 s" in outcomes[3].result.error
    assert [o.abnormal for o in outcomes] == [0, 1, 0, 1]  # an ok fit ends the run of abnormal ends
    assert all(o.data_hash for o in outcomes)


@pytest.mark.slow
def test_a_batch_stops_after_the_method_is_past_its_restarts_and_the_rest_is_not_run(tmp_path, slot):
    batch = orders(tmp_path, 4, mode="always_crash")
    outcomes = list(slot.fits(batch))  # max_restarts 1: the second abnormal end in a row stops it
    assert [o.result.status for o in outcomes] == ["crashed", "crashed"]
    assert outcomes[-1].abnormal == 2 and "died" in outcomes[-1].last_error
    assert [o.result.status for o in slot.fits(batch[2:3])] == ["crashed"]  # the slot still answers


@pytest.mark.slow
def test_a_worker_that_cannot_restart_in_a_batch_raises_after_the_fits_it_ran(tmp_path, slot):
    marker = tmp_path / "started-once"
    batch = orders(tmp_path, 3, mode="crash_then_no_restart", no_restart_after=str(marker))
    seen = []
    with pytest.raises(WorkerStartError, match="cannot start a second time") as caught:
        for outcome in slot.fits(batch):
            seen.append(outcome.result.status)
    assert seen == ["crashed"]  # p01 ran; p02 could not start a worker; p03 was not tried
    assert caught.value.ends.count == 2


@pytest.mark.slow
def test_cancelling_a_batch_in_flight_ends_the_slot_process(tmp_path, slot):
    batch = orders(tmp_path, 6, mode="slow", seconds=5)
    timer = threading.Timer(1.0, slot.cancel)
    timer.start()
    with pytest.raises(SlotGone):
        list(slot.fits(batch))
    timer.join()
    slot.process.join(10)
    assert not slot.alive


@pytest.mark.slow
def test_batches_follow_the_methods_pace_and_leave_a_share_for_every_slot(tmp_path):
    from collections import deque

    from srbf.runs.local_executor import MAX_BATCH, LocalExecutor

    config = load_config(swiss_config(tmp_path, n=400, budgets=(1, 2)))
    fits = make_plan(config).fits  # p001 budget 1, p001 budget 2, p002 budget 1, ...
    spec = fits[0].spec
    executor = LocalExecutor(2)
    executor._live = {0, 1}
    executor._pending[spec] = deque(fits)
    first = executor._take(0, None)
    assert [f.key.budget for f in first] == [1, 2]  # nothing known yet: one fit, with its draw's other rung
    executor._pace[spec] = 0.001  # 1 ms a fit: a quarter of a second is 250 fits, but at most MAX_BATCH
    cheap = executor._take(0, spec)
    assert len(cheap) == MAX_BATCH and cheap[0] is fits[2]
    executor._pace[spec] = 5.0  # a slow method: one fit (and its rung) at a time
    assert len(executor._take(1, spec)) == 2
    executor._pace[spec] = 0.001
    while len(executor._pending[spec]) > 20:
        executor._pending[spec].popleft()
    share = executor._take(1, spec)  # 20 left for 2 slots: a quarter of them, rounded to whole draws
    assert len(share) == 6 and len({(f.key.problem_id) for f in share}) == 3


def test_a_slot_process_never_sent_anything_is_killed_at_close_without_waiting_for_it():
    process = SlotProcess(SlotSettings())  # spawned before a plan exists (LocalExecutor.prestart)
    process.close()
    assert not process.alive and process.process.exitcode == -signal.SIGKILL


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the process tree from /proc")
@pytest.mark.slow
def test_a_stopped_slot_process_ends_its_workers_and_then_exits_with_code_0(tmp_path, slot):
    assert [o.result.status for o in slot.fits(orders(tmp_path, 2))] == ["ok", "ok"]
    pid = slot.process.pid
    tasks = Path(f"/proc/{pid}/task").iterdir()  # its workers are started from a thread of its own
    workers = [int(child) for task in tasks for child in (task / "children").read_text().split()]
    assert workers  # the method worker's guard
    slot.close()  # ends without the interpreter's teardown (os._exit), after closing its workers
    assert slot.process.exitcode == 0
    assert not any(Path(f"/proc/{worker}").exists() for worker in workers)


@pytest.mark.slow
def test_a_worker_started_early_gives_its_reply_to_the_first_start_request(tmp_path, slot):
    good = orders(tmp_path, 2)
    (tmp_path / "bad").mkdir()
    bad = orders(tmp_path / "bad", 1, setup="raise")[0].spec
    slot.start_early(good[0].spec)  # the driver does this before planning (LocalExecutor.prestart)
    slot.start_early(bad)
    with pytest.raises(WorkerStartError, match="setup exploded"):
        slot.request(StartWorker(bad))
    assert slot.request(StartWorker(good[0].spec)) is None  # already running: the early reply
    assert [o.result.status for o in slot.fits(good)] == ["ok", "ok"]


@pytest.mark.slow
def test_the_outcomes_of_quick_fits_travel_together_and_in_order(tmp_path, monkeypatch):
    import multiprocessing

    from srbf.runs import slot as slot_module

    batch = orders(tmp_path, 4)
    ours, theirs = multiprocessing.Pipe()
    worker = slot_module.Slot(SlotSettings())
    try:
        monkeypatch.setattr(slot_module, "HOLD_SECONDS", 60.0)  # every fit here is quicker
        slot_module._run_orders(worker, batch, theirs)
        def receive():
            return msg.decode(ours.recv_bytes(), msg.TO_PARENT)

        held = receive()
        assert [o.result.expression for o in held.outcomes] == ["x + 1", "x + 2", "x + 3", "x + 4"]
        assert receive() == msg.BatchEnd(4, msg.AbnormalEnds())
        monkeypatch.setattr(slot_module, "HOLD_SECONDS", 0.0)  # nothing held: one message a fit
        slot_module._run_orders(worker, batch[:2], theirs)
        assert [len(receive().outcomes) for _ in range(2)] == [1, 1] and isinstance(receive(), msg.BatchEnd)
    finally:
        worker.close()
