"""The draw's shortcuts give what the long way gives: key material, Problem construction, clipping."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from srbf.catalogs import draws, sampling, streams
from srbf.catalogs.model import CatalogEntry, VariableSpec

V = VariableSpec


def _json_material(*key) -> str:
    return json.dumps([streams.KEY_SCHEME, *key], separators=(",", ":"))


@pytest.mark.parametrize(
    "key",
    [
        ("feynman", 1, "I.6.2a", 0, 0),
        ('q"uo\\te', 0, "tab\there\nnew", -7, 3),
        ("caf\u00e9", 12, "\u2028\U0001f600\x00\x7f", 2**80, 2**63),
    ],
)
def test_key_material_is_json_dumps(key):
    assert streams.key_material(*key) == _json_material(*key)


def test_key_material_of_other_types_is_still_json_dumps():
    assert streams.key_material("toy", True, "p1", 0, 0) == _json_material("toy", True, "p1", 0, 0)  # true, not True
    with pytest.raises(TypeError):  # as json.dumps refuses a NumPy integer
        streams.key_material("toy", 1, "p1", np.int64(3), 0)


def test_a_sampled_problem_is_the_dataclass_the_constructor_makes():
    e = CatalogEntry("p1", "a / b", (V("a", 1.0, 2.0), V("b", -1.0, 1.0)))
    p = sampling.sample_problem(e, catalog="toy", catalog_version=1, n_support=16, n_validation=16, ood=True)
    q = dataclasses.replace(p)  # through Problem.__init__
    for f in dataclasses.fields(sampling.Problem):
        assert getattr(q, f.name) is getattr(p, f.name), f.name
    assert p.ood_reason is None and p.noise == 0.0 and p.target == "y"
    assert "inputs_hash" not in p.__dict__  # hashed when asked for
    assert p.inputs_hash == q.inputs_hash == sampling._hash_arrays((k, a) for k, a in p.arrays.items() if k[0] == "X")
    assert p.verify()
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.seed = 1


RANGES = [(-1.0, 1.0), (0.0, 1.0), (1e-300, 1e-299), (-3.3, -3.2999999999999994), (-1e308, 1e308), (5.0, 5.0),
          (0.1, 0.7), (-7.0, 1e15)]


@pytest.mark.parametrize(
    "low, high, distribution",
    [(low, high, "uniform") for low, high in RANGES]
    + [(low, high, "integer") for low, high in RANGES if np.ceil(low) <= np.floor(high)],  # an integer in range
)
def test_clipping_at_low_is_skipped_only_where_it_is_a_no_op(low, high, distribution):
    plan = draws.plan_for((V("x", low, high, distribution),))
    assert not plan.clip_low
    U = np.random.default_rng(0).random((4096, 1))
    U[:3, 0] = [0.0, np.nextafter(1.0, 0.0), 0.5]
    with np.errstate(invalid="ignore"):  # 0 * inf for the widest range
        M, _ = draws._magnitudes(plan, U)
    clipped = np.maximum(M, plan.low)
    np.testing.assert_array_equal(clipped.view(np.uint64), M.view(np.uint64))  # bit for bit, signed zeros too


def test_a_negative_zero_low_or_a_log_range_keeps_the_clip():
    assert draws.plan_for((V("negative_zero", -0.0, 1.0),)).clip_low  # (plan_for's cache takes -0.0 for 0.0)
    assert draws.plan_for((V("x", 1.0, 2.0), V("y", 1e-3, 1.0, "log_uniform"))).clip_low
