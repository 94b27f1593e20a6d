"""The boundary: what the parent makes of each message a worker may send, honest or not."""

from __future__ import annotations

import json

import pytest

from srbf.methods import worker_main as wire
from srbf.methods.boundary import (
    ERROR_CHARS,
    MAX_DEPTH,
    SANITIZED_KEY,
    BadMessage,
    Limits,
    Trajectory,
    clean_start_message,
    clean_text,
    clean_value,
    fit_result,
)
from srbf.runs.config import ConfigError, config_from_dict


def result(**fields):
    return {"type": "result", "id": 1, "status": "ok", "expression": "x0 + 1", "wall": 0.5, "cpu": 0.4, **fields}


def nested(depth):
    value: list = []
    for _ in range(depth - 1):
        value = [value]
    return value  # ``depth`` levels of lists


def test_lone_surrogates_become_replacement_characters_and_are_noted():
    notes: list[str] = []
    assert clean_text("x1\ud800 + \udfff", notes, "expression") == "x1\ufffd + \ufffd"
    assert notes == ["expression: 2 lone surrogate(s) replaced by U+FFFD"]
    assert clean_text("\U0001f600 é", notes, "expression") == "\U0001f600 é" and len(notes) == 1


def test_every_string_of_a_value_is_cleaned_keys_included():
    notes: list[str] = []
    value = {"a\ud800": ["b\udc00", {"c": "\ud83d"}], "n": 1.5, "ok": "fine"}
    assert clean_value(value, notes, "internals") == {"a\ufffd": ["b\ufffd", {"c": "\ufffd"}], "n": 1.5, "ok": "fine"}
    assert notes == ["internals: 3 lone surrogate(s) replaced by U+FFFD"]


@pytest.mark.slow
def test_nesting_is_refused_past_the_maximum_without_exhausting_the_stack():
    assert clean_value({"t": nested(MAX_DEPTH)}, [], "internals") == {"t": nested(MAX_DEPTH)}
    with pytest.raises(BadMessage, match=f"nested deeper than {MAX_DEPTH} levels"):
        clean_value({"t": nested(MAX_DEPTH + 1)}, [], "internals")
    with pytest.raises(BadMessage):
        clean_value({"t": nested(200_000)}, [], "internals")


def test_a_long_trajectory_keeps_its_first_rows_and_its_latest_report():
    trajectory = Trajectory(Limits(trajectory_rows=3))
    for i in range(10):
        trajectory.add({"t": float(i), "expression": f"x0 + {i}"})
    assert trajectory.rows == [(0.0, "x0 + 0"), (1.0, "x0 + 1"), (9.0, "x0 + 9")]
    assert trajectory.summary() == [
        "trajectory: 10 reports, kept the first 2 and the last "
        "(limits.trajectory_rows 3, limits.trajectory_bytes 10 MB)"
    ]


def test_the_trajectory_bytes_limit_also_keeps_the_latest_report():
    trajectory = Trajectory(Limits(trajectory_bytes=10))
    for text in ("aaaa", "bbbb", "cccc", "dd"):
        trajectory.add({"t": 1, "expression": text})
    assert [e for _, e in trajectory.rows] == ["aaaa", "dd"]


def test_an_oversized_report_is_dropped_and_noted():
    trajectory = Trajectory(Limits(expression_bytes=5))
    trajectory.add({"t": 0.1, "expression": "x0 + 1 + 2"})
    trajectory.add({"t": 0.2, "expression": "x0"})
    assert trajectory.rows == [(0.2, "x0")]
    assert trajectory.summary() == ["trajectory: 1 report(s) over 5 B dropped (limits.expression_bytes)"]


@pytest.mark.parametrize(
    "message, reason",
    [
        ({"t": "soon", "expression": "x0"}, "'t' is str, not a number"),
        ({"t": True, "expression": "x0"}, "'t' is bool, not a number"),
        ({"t": float("nan"), "expression": "x0"}, "'t' is nan, not a finite number >= 0"),
        ({"t": 0.1, "expression": ["x0"]}, "'expression' is list, not str"),
        ({"t": 0.1}, "it needs 't' and 'expression'"),
        ({"t": 0.1, "expression": "x0", "budget": "2"}, "'budget' is str, not a number"),
        ({"t": 0.1, "expression": "x0", "budget": -1}, "'budget' is -1.0, not a finite number >= 0"),
    ],
)
def test_a_report_of_the_wrong_shape_is_refused(message, reason):
    with pytest.raises(BadMessage, match="malformed report: " + reason.replace("(", r"\(")):
        Trajectory(Limits()).add(message)


def test_budget_marks_are_kept_also_when_the_incumbent_does_not_change():
    trajectory = Trajectory(Limits())
    for seconds, expression, budget in [(0.1, "x0", None), (0.2, "x0", 1), (0.3, "x0", 2), (0.4, "x0 + 1", 3)]:
        trajectory.add({"t": seconds, "expression": expression, **({"budget": budget} if budget else {})})
    assert trajectory.rows == [(0.1, "x0"), (0.4, "x0 + 1")]  # one row per change of incumbent
    assert trajectory.marks == [(1.0, 0.2, "x0"), (2.0, 0.3, "x0"), (3.0, 0.4, "x0 + 1")]
    assert fit_result(result(expression="x0 + 1"), trajectory, Limits()).marks == trajectory.marks


def test_an_honest_result_passes_unchanged():
    trajectory = Trajectory(Limits())
    trajectory.add({"t": 0.1, "expression": "x0"})
    got = fit_result(result(internals={"constants": [1.0]}, method_seconds=0.3), trajectory, Limits())
    assert (got.status, got.expression, got.error) == ("ok", "x0 + 1", None)
    # the worker's own clocks are not taken (the parent times the fit); the method's claim is kept apart
    assert (got.wall_seconds, got.cpu_seconds, got.method_seconds) == (None, None, 0.3)
    assert got.internals == {"constants": [1.0]} and got.trajectory == [(0.1, "x0")]


@pytest.mark.parametrize(
    "fields, reason",
    [
        ({"status": "great"}, "'status' is 'great', not 'ok' or 'failed'"),
        ({"wall": "fast"}, "'wall' is str, not a number"),
        ({"cpu": -1}, "'cpu' is -1.0, not a finite number >= 0"),
        ({"method_seconds": float("inf")}, "'method_seconds' is inf, not a finite number >= 0"),
        ({"internals": "not a dict"}, "'internals' is str, not an object"),
        ({"expression": 42}, "'expression' is int, not str"),
        ({"expression": " "}, "status ok without an expression"),
        ({"internals": {"t": nested(MAX_DEPTH + 1)}}, f"internals nested deeper than {MAX_DEPTH} levels"),
    ],
)
def test_a_result_of_the_wrong_shape_is_refused_naming_the_field(fields, reason):
    with pytest.raises(BadMessage) as refused:
        fit_result(result(**fields), Trajectory(Limits()), Limits())
    assert str(refused.value) == f"the worker sent a malformed result: {reason}"


def test_sizes_over_the_limits_fail_the_fit_with_both_sizes():
    limits = Limits(expression_bytes=10, internals_bytes=20)
    got = fit_result(result(expression="x0 + 1 + 1 + 1"), Trajectory(limits), limits)
    assert (got.status, got.error) == ("failed", "the expression is 14 B, over the limit of 10 B (limits.expression_bytes)")
    got = fit_result(result(internals={"front": ["x0"] * 10}), Trajectory(limits), limits)
    size = len(json.dumps({"front": ["x0"] * 10}, separators=(",", ":")))
    assert got.error == f"the internals' JSON is {size} B, over the limit of 20 B (limits.internals_bytes)"
    assert wire.format_size(100_000) == "100 KB" and wire.format_size(10_485_760) == "10.5 MB"


def test_repaired_text_keeps_the_status_and_flags_the_record():
    trajectory = Trajectory(Limits())
    trajectory.add({"t": 0.1, "expression": "x\ud800"})
    got = fit_result(result(expression="x1\ud800", internals={"k\ud800": "v", SANITIZED_KEY: "forged"}), trajectory, Limits())
    assert (got.status, got.expression) == ("ok", "x1\ufffd") and got.trajectory == [(0.1, "x\ufffd")]
    assert got.internals == {
        "k\ufffd": "v",
        SANITIZED_KEY: [
            "expression: 1 lone surrogate(s) replaced by U+FFFD",
            "internals: 1 lone surrogate(s) replaced by U+FFFD",
            "trajectory: 1 lone surrogate(s) replaced by U+FFFD",
        ],
    }


def test_a_failed_result_carries_its_repaired_and_cut_error():
    got = fit_result(
        result(status="failed", expression=None, error="E: \ud800" + "m" * 50_000, traceback="T\udfff"),
        Trajectory(Limits()),
        Limits(),
    )
    assert got.status == "failed" and got.error.startswith("E: \ufffdmmm") and got.error.endswith("\n\nT\ufffd")
    assert len(got.error) == ERROR_CHARS + len("\n\nT\ufffd") and got.internals[SANITIZED_KEY] == ["error: 2 lone surrogate(s) replaced by U+FFFD"]


def frame(header: bytes, payload: int = 0) -> bytes:
    return wire.frame_prefix(header, payload) + header


@pytest.mark.parametrize(
    "data, reason",
    [
        (b"junk", "bad frame magic b'junk'"),
        (b"SR!", "bad frame magic b'SR!'"),
        (b"SRBW" + (2**31).to_bytes(4, "little") + bytes(8), "a frame header of 2147483648 bytes, over the limit of 1000"),
        (frame(b'{"type":"report"}', payload=8), "a frame payload of 8 bytes, over the limit of 0"),
        (frame(b"[" * 100_000 + b"]" * 100_000), "frame header is not JSON"),
        (frame(b'["a list"]'), "frame header has no 'type'"),
    ],
)
def test_the_parent_decoder_refuses_garbage_at_once(data, reason):
    decoder = wire.FrameDecoder(max_header=1000 if b"2147483648" in reason.encode() else 10**6, max_payload=0)
    with pytest.raises(wire.ProtocolError, match=reason.replace("(", r"\(").replace("[", r"\[")):
        decoder.feed(data)


def test_the_parent_decoder_waits_for_a_frame_that_is_only_incomplete():
    decoder = wire.FrameDecoder(max_header=1000, max_payload=0)
    whole = frame(b'{"type":"report"}')
    assert decoder.feed(whole[:2]) == [] and decoder.feed(whole[2:9]) == []
    assert decoder.feed(whole[9:]) == [({"type": "report"}, b"")]


def test_limits_are_positive_integers_and_only_changed_ones_are_listed():
    assert Limits().changed() == {} and Limits(trajectory_rows=5).changed() == {"trajectory_rows": 5}
    with pytest.raises(ValueError, match="limits.expression_bytes must be a positive integer, got 0"):
        Limits(expression_bytes=0)


def _config(limits):
    return {"experiment": "e", "catalogs": ["nguyen"], "method": {"name": "linear", "limits": limits}}


def test_limits_in_a_config_are_checked_and_change_the_hash_only_when_changed():
    default = config_from_dict(_config(None)).variants()[0].config_hash
    assert config_from_dict(_config({"trajectory_rows": 10_000})).variants()[0].config_hash == default
    changed = config_from_dict(_config({"trajectory_rows": 5}))
    assert changed.methods[0].limits == Limits(trajectory_rows=5) and changed.variants()[0].config_hash != default
    with pytest.raises(ConfigError) as error:
        config_from_dict(_config({"expression_byte": 10, "internals_bytes": -1}))
    text = str(error.value)
    assert "method.limits.expression_byte: unknown key; did you mean 'expression_bytes'?" in text
    assert "method.limits.internals_bytes: must be a positive integer, got -1" in text


def test_a_ready_message_keeps_only_the_workers_fields_with_their_types():
    message = {"type": "ready", "pid": 12, "python": "3.11.7\ud800", "numpy": 2, "setup_seconds": "fast", "extra": 1}
    assert clean_start_message(message) == {"type": "ready", "pid": 12, "python": "3.11.7\ufffd"}
    error = {"type": "start_error", "error": "RuntimeError: no \ud800", "traceback": "T"}
    assert clean_start_message(error) == {"type": "start_error", "error": "RuntimeError: no \ufffd", "traceback": "T"}
