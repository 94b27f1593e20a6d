"""The judge's regression corpus (tests/judge/corpus/*.yaml, described in its README): every pair
scored by the judge gives the structural outcome its kind fixes, and every label is checked
against the pair's values, independently of the judge."""

from pathlib import Path

import numpy as np
import pytest
import yaml

from srbf.expr import compile_expr, parse, variables_of
from srbf.judge import score

CORPUS = Path(__file__).parent / "corpus"
KINDS = {  # srr_structure, srr_exponents, srr_all
    "equal": (1, 1, 1),
    "fitted": (1, 1, 0),
    "exponent": (1, 0, 0),
    "different": (0, 0, 0),
    "identity": (0, 0, 0),
}
SAME_VALUES = {"equal", "identity"}


def _pairs():
    for path in sorted(CORPUS.glob("*.yaml")):
        for i, pair in enumerate(yaml.safe_load(path.read_text(encoding="utf-8"))):
            yield pytest.param(pair, id=f"{path.stem}-{i}:{pair['t']} vs {pair['p']}")


PAIRS = list(_pairs())


def _points(pair: dict) -> tuple[list[str], np.ndarray, np.ndarray]:
    names = sorted(variables_of(parse(pair["t"])) | variables_of(parse(pair["p"])))
    low, high = pair.get("range", [0.5, 2.0])
    rng = np.random.default_rng(len(pair["t"]) * 1000 + len(pair["p"]))
    return names, rng.uniform(low, high, (64, len(names))), rng.uniform(low, high, (64, len(names)))


def test_the_corpus_is_large_and_every_kind_is_known():
    assert len(PAIRS) >= 165
    kinds = [param.values[0]["kind"] for param in PAIRS]
    assert set(kinds) == set(KINDS)
    assert sum(kind in ("different", "exponent") for kind in kinds) >= 100  # near-misses outnumber the rest


@pytest.mark.parametrize("pair", PAIRS)
def test_the_label_agrees_with_the_values(pair):
    names, X, _ = _points(pair)
    truth = compile_expr(parse(pair["t"], names), names)(X)
    predicted = compile_expr(parse(pair["p"], names), names)(X)
    assert np.all(np.isfinite(truth)) and np.all(np.isfinite(predicted))
    gap = np.max(np.abs(truth - predicted)) / np.max(np.abs(truth))
    if pair["kind"] in SAME_VALUES:
        assert gap < 1e-12
    else:
        assert gap > 1e-14


@pytest.mark.parametrize("pair", PAIRS)
def test_the_judge_gives_the_outcome_of_the_kind(pair):
    names, X, X_validation = _points(pair)
    f = compile_expr(parse(pair["t"], names), names)
    data = {"X_support": X, "y_support": f(X), "X_validation": X_validation, "y_validation": f(X_validation)}
    metrics = score(pair["t"], pair["p"], data, variables=names, positive=pair.get("positive", ()))
    assert metrics["success"] == 1, metrics["failure_reason"]
    assert metrics["canonical_complete"] is True
    got = (metrics["srr_structure"], metrics["srr_exponents"], metrics["srr_all"])
    assert got == KINDS[pair["kind"]], pair.get("note", "")
