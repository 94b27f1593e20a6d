"""Probe selection by calibration usability on a table whose answer is known."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from srbf.distill.errors import DistillError
from srbf.distill.probes import Usability, select_panel, usability

NAN, INF = math.nan, math.inf


def test_usability_by_hand(records_from):
    # two tasks x 2 repeats; t2 has no OOD points (so only train and ID count there)
    rows = [
        ("m", "s/t1", 0, True, 0.1, 0.2, 0.3),  # joint, no explosion
        ("m", "s/t1", 1, True, 0.1, 0.2, 500.0),  # joint, explodes on OOD
        ("m", "s/t2", 0, True, NAN, 0.2, NAN),  # no training error: not joint
        ("m", "s/t2", 1, True, 0.1, 101.0, NAN),  # joint (t2 has no OOD), explodes on ID
        ("n", "s/t1", 0, False, NAN, NAN, NAN),
        ("n", "s/t1", 1, True, 0.5, 100.0, INF),  # OOD not finite: not joint; 100 is not above tau
        ("n", "s/t2", 0, True, 0.5, 0.5, NAN),  # joint
    ]  # n's second run on t2 is missing: it counts in the schedule, as a run without a result
    scores = {s.method: s for s in usability(records_from(rows, repeats=2), {"m": "evolutionary", "n": "hybrid"})}
    m, n = scores["m"], scores["n"]
    assert (m.runs, m.q, m.b) == (4, Fraction(3, 4), Fraction(2, 4))
    assert m.h == Fraction(1, 2) * Fraction(3, 4) + Fraction(1, 2) * Fraction(1, 2)
    assert (n.q, n.b, n.h) == (Fraction(1, 4), Fraction(0), Fraction(1, 8) + Fraction(1, 2))


def _u(method, paradigm, h):
    return Usability(method, paradigm, 100, Fraction(0), Fraction(0), Fraction(h))


def test_best_panel_and_exact_ties():
    scores = [_u("a", "evolutionary", "0.99"), _u("b", "evolutionary", "0.98"), _u("c", "evolutionary", "0.97"),
              _u("d", "structured_search", "0.90"), _u("e", "neural_policy", "0.80"), _u("f", "neural_policy", "0.80"),
              _u("o", "reference", "1")]  # fmt: skip
    # >= 3 paradigms: at most two evolutionary members; e and f tie exactly (0.80 as fractions)
    choice = select_panel(scores, min_paradigms=3)
    assert choice.best == (Fraction("0.99") + Fraction("0.98") + Fraction("0.90") + Fraction("0.80")) / 4
    assert choice.optima == [("a", "b", "d", "e"), ("a", "b", "d", "f")]
    assert choice.total == math.comb(6, 4)  # the oracle is never a candidate
    # d is in every feasible panel, with 3 of {a, b, c, e, f} but not {a, b, c}: C(5, 3) - 1
    assert choice.feasible == 9
    # with two paradigms the three evolutionary methods join the best panel
    assert select_panel(scores, min_paradigms=2).optima == [("a", "b", "c", "d")]


def test_too_few_paradigms_is_one_clear_line():
    scores = [_u(name, "evolutionary" if name < "c" else "structured_search", "0.9") for name in "abcde"]
    with pytest.raises(DistillError) as error:
        select_panel(scores, min_paradigms=3)
    message = str(error.value)
    assert "\n" not in message
    assert "cover 2 paradigm(s) (evolutionary, structured_search)" in message
    assert "--probes A,B,C,D or --min-paradigms 2" in message
