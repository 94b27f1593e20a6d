"""Task descriptors and task scores on hand-made records, against values worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from srbf.distill.descriptors import descriptors
from srbf.distill.scores import log_error, task_scores

NAN = math.nan


def _rows():
    # probe a: three valid runs on t1 (NMSE 1e-2, 1e-4, 1e-3 on ID; 1e-1 each on OOD)
    # probe b: one valid run on t1 (1e0 ID, 1e2 OOD), two invalid; t2 without OOD points
    return [
        ("a", "s/t1", 0, True, 0.1, 1e-2, 1e-1), ("a", "s/t1", 1, True, 0.1, 1e-4, 1e-1), ("a", "s/t1", 2, True, 0.1, 1e-3, 1e-1),
        ("b", "s/t1", 0, True, 0.1, 1.0, 1e2), ("b", "s/t1", 1, False, NAN, NAN, NAN), ("b", "s/t1", 2, False, NAN, NAN, NAN),
        ("a", "s/t2", 0, True, 0.1, 1e-20, NAN), ("a", "s/t2", 1, True, 0.1, 1e-20, NAN), ("a", "s/t2", 2, True, 0.1, 1e-20, NAN),
        ("b", "s/t2", 0, False, NAN, NAN, NAN), ("b", "s/t2", 1, False, NAN, NAN, NAN), ("b", "s/t2", 2, False, NAN, NAN, NAN),
        ("c", "s/t1", 0, True, 0.1, 1e30, 1e30),  # a third method, not a probe; one of its three runs recorded
    ]  # fmt: skip


def test_log_error_clips_and_flags_invalid_values():
    assert list(log_error([1e-20, 1e-3, 1e20])) == [-12.0, -3.0, 12.0]
    assert np.isnan(log_error([NAN, math.inf, -1.0])).all()


def test_task_scores_by_hand(records_from):
    z = task_scores(records_from(_rows()))
    assert z.loc["s/t1", "a"] == pytest.approx(-(-3 + -1) / 2)  # medians -3 (ID), -1 (OOD), no failure
    assert z.loc["s/t1", "b"] == pytest.approx(-(0 + 2) / 2 - 2 * 2 / 3)  # one valid run of three
    assert z.loc["s/t2", "a"] == pytest.approx(12.0)  # no OOD points: m_id twice
    assert z.loc["s/t2", "b"] == -12.0  # no valid run
    assert z.loc["s/t1", "c"] == pytest.approx(-12 - 2 * 2 / 3)  # clipped at 12, two runs missing
    assert z.loc["s/t2", "c"] == -12.0  # never run there


def test_descriptors_by_hand(records_from):
    d = descriptors(records_from(_rows()), ["a", "b"]).set_index("task")
    t1, t2 = d.loc["s/t1"], d.loc["s/t2"]
    assert (t1["m_id@a"], t1["m_ood@a"], t1["iqr_id@a"], t1["v@a"]) == (-3.0, -1.0, 1.0, 1.0)  # IQR of -2, -4, -3
    assert (t1["m_id@b"], t1["m_ood@b"], t1["iqr_id@b"]) == (0.0, 2.0, 0.0)
    assert t1["v@b"] == pytest.approx(1 / 3)
    assert np.isnan(t2["m_id@b"]) and t2["v@b"] == 0.0 and t2["m_ood@a"] == -12.0
    # Disc: Var_p m_id is 2.25 on t1 and 0 on t2 (one probe valid): normalised 1 and 0; the same for OOD;
    # entropy of the valid share 4/6 on t1, 3/6 on t2 (1 bit): normalised 0 and 1
    assert t1["disc"] == pytest.approx(0.9) and t2["disc"] == pytest.approx(0.1)
    # u = mean_p (iqr_id + iqr_ood + 1 - v): t1 (1 + 0 + 0 + 0 + 0 + 2/3) / 2, t2 (0 + 0 + 0 + 0 + 0 + 1) / 2
    assert t1["stab"] == pytest.approx(0.0) and t2["stab"] == pytest.approx(1.0)  # u(t1) = 5/6 > u(t2) = 1/2
    assert d["info"].tolist() == pytest.approx([0.0, 0.1])
    assert t1["difficulty"] == pytest.approx(((-3 - 1) / 2 + (0 + 2) / 2) / 2)
    assert t2["difficulty"] == pytest.approx((-12 + 12) / 2)  # b had no valid run: it counts 12
    assert t1["winner"] == "a" and t2["winner"] == "a"
    assert t1["limited"] and t2["limited"] and t2["one_sided"] and not t1["one_sided"]
    assert not t1["unstable"]  # a's spread (1 + 0) / 2 is not above one decade
    assert not t1["all_struggle"]  # a's mean log error is -2
    assert t1["ood_degraded"] and not t2["ood_degraded"]  # OOD two decades worse for both probes on t1
    assert d["eligible"].all()
