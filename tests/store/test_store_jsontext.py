"""The store's JSON columns are standard JSON, and srbf reads NaN and infinities back exactly."""

from __future__ import annotations

import json
import math
import sqlite3

import numpy as np
import pytest

from srbf.store.jsontext import dumps, loads


def _refuse(name):
    raise ValueError(f"non-standard constant {name}")


def test_non_finite_floats_are_written_as_strings_and_read_back_as_floats():
    value = {"loss": math.nan, "bounds": [-math.inf, math.inf], "array": np.array([1.0, np.nan]), "n": np.float32("inf")}
    text = dumps(value, "internals")
    assert json.loads(text, parse_constant=_refuse) == {
        "loss": "NaN", "bounds": ["-Infinity", "Infinity"], "array": [1.0, "NaN"], "n": "Infinity"
    }  # fmt: skip
    back = loads(text)
    assert math.isnan(back["loss"]) and back["bounds"] == [-math.inf, math.inf] and back["n"] == math.inf
    assert back["array"][0] == 1.0 and math.isnan(back["array"][1])


def test_sqlite_accepts_the_text_as_json():
    conn = sqlite3.connect(":memory:")
    text = dumps({"loss": math.nan, "nested": {"x": [math.inf]}}, "internals")
    assert conn.execute("SELECT json_valid(?), json_extract(?, '$.nested.x[0]')", (text, text)).fetchone() == (1, "Infinity")


def test_finite_values_are_written_as_before_and_old_bare_tokens_still_read():
    assert dumps({"a": [1, 2.5, "é"], "b": None}, "x") == '{"a":[1,2.5,"é"],"b":null}'
    old = loads('{"loss": NaN, "top": Infinity}')  # written by srbf before standard JSON
    assert math.isnan(old["loss"]) and old["top"] == math.inf
    assert loads(None) is None


def test_what_cannot_be_written_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="internals of fit 3: set value"):
        dumps({"s": {1, 2}}, "internals of fit 3")
    loop: list = []
    loop.append(loop)
    with pytest.raises(TypeError, match="internals of fit 4: Circular reference"):
        dumps({"loop": loop}, "internals of fit 4")
