"""Suite-wide fixtures: ``global_random_seed`` (after scikit-learn's), so a seeded test can run under
many seeds on demand while an ordinary run stays at one.

Set ``SRBF_TEST_SEEDS`` to choose the seeds: ``"3"``, ``"0-9"`` (inclusive), ``"1,5,7"``, or
``"all"`` (0-99); unset, every such test runs once under seed 0. A test that takes the fixture
claims to hold for every seed, so ``SRBF_TEST_SEEDS=all make test-fast`` is how to check that claim.
"""

from __future__ import annotations

import os

ALL_SEEDS = range(100)


def seeds_from(text: str | None) -> list[int]:
    """The seeds ``SRBF_TEST_SEEDS`` names; [0] when it is unset or empty."""
    text = (text or "").strip()
    if not text:
        return [0]
    if text == "all":
        return list(ALL_SEEDS)
    seeds: list[int] = []
    for part in text.split(","):
        low, _, high = part.strip().partition("-")
        try:
            seeds += range(int(low), int(high or low) + 1)
        except ValueError:
            raise ValueError(f"SRBF_TEST_SEEDS: {text!r} is not a seed, a range like 0-9, a list like 1,5,7 or 'all'") from None
    return seeds


def pytest_generate_tests(metafunc):
    if "global_random_seed" in metafunc.fixturenames:
        metafunc.parametrize("global_random_seed", seeds_from(os.environ.get("SRBF_TEST_SEEDS")))
