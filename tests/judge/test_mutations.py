"""The mutation corpus (judge/mutations.py) on a sampled slice of the shipped formulas: equal
mutants match at every level, unequal ones never at the level where their change shows, and a
sign is structure in both routes (benchmarks/judge_mutations.py runs all 6,660 formulas)."""

from __future__ import annotations

import random

import pytest

from srbf.catalogs.admission import parse_entry
from srbf.catalogs.loader import list_catalogs, load_catalog
from srbf.expr import to_infix
from srbf.expr.masking import mask, written_skeletons
from srbf.judge.data import positive_variables
from srbf.judge.mutations import EQUAL_KINDS, KINDS, UNEQUAL_KINDS, judged, mutants

# The cases docs/canonical.md lists as matching by design ("What the mutation corpus leaves above 0").
DOCUMENTED = {("erbench-syneq", "syneq_1264", "change_exponent"), ("erbench-syneq", "syneq_2695", "drop_term")}


def _slice(per_catalog: int = 12) -> list[tuple[str, int, object]]:
    """A fixed sample of every shipped catalog's formulas (the first and a seeded draw of the rest)."""
    rng = random.Random(35)
    chosen = []
    for name in list_catalogs():
        entries = list(load_catalog(name).entries)
        picks = sorted({0, *rng.sample(range(len(entries)), min(per_catalog, len(entries)))})
        chosen.extend((name, k, entries[k]) for k in picks)
    return chosen


@pytest.fixture(scope="module")
def corpus():
    out = []
    for name, k, entry in _slice():
        truth = parse_entry(entry)
        for mutant in mutants(truth, list(entry.variable_names), entry.variables, positive_variables(entry.variables), seed=k):
            out.append((name, entry.id, mutant))
    return out


@pytest.mark.slow
def test_the_slice_makes_every_kind(corpus):
    made = {m.kind for _, _, m in corpus}
    assert made == set(KINDS)
    assert len(corpus) > 1500


@pytest.mark.slow
def test_equal_mutants_match_at_every_level_and_unequal_ones_never_where_they_differ(corpus):
    wrong = []
    for name, problem_id, m in corpus:
        structure, exponents, _ = judged(m)
        if m.differs_at is None:
            bad = not (structure and exponents)
        else:
            bad = structure if m.differs_at == "structure" else exponents
        if bad and (name, problem_id, m.kind) not in DOCUMENTED:
            wrong.append(f"{m.kind} {name} {problem_id}: {to_infix(m.truth)} vs {to_infix(m.tree)}")
    assert not wrong, "\n".join(wrong[:20])


@pytest.mark.slow
def test_a_flipped_sign_matches_in_neither_route(corpus):
    """Each route on its own: the masked canonical forms differ at "structure", and so do the
    written forms (a sign written as a literal -1 or 1 included)."""
    checked = 0
    for _, _, m in corpus:
        if m.kind not in ("flip_sign", "sign_literal"):
            continue
        masked = [mask(tree, "structure", positive=m.positive) for tree in (m.tree, m.truth)]
        assert masked[0] != masked[1], to_infix(m.tree)
        assert written_skeletons(m.tree)[0] != written_skeletons(m.truth)[0], to_infix(m.tree)
        checked += 1
    assert checked > 200


def test_kinds_are_split_into_equal_and_unequal():
    assert set(EQUAL_KINDS).isdisjoint(UNEQUAL_KINDS) and len(KINDS) == 13
