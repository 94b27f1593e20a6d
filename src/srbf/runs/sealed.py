"""Sealed draws: a run seed that nobody can know before the run is published.

A public run seed (``seed: 0``) makes a run reproducible by anyone: with srbf's catalogs and
sampler, the seed, problem and draw index give back every point. That is what a public benchmark
wants, and also what a method that imports srbf could use to rebuild its own problem. A config
with ``seed: sealed`` (or ``srbf run --sealed``) draws with a seed derived from the results
store's random secret instead (63 bits of HMAC-SHA256 under it, so the shards of a run, which
share their secret file, share the seed too). The store keeps it (``srbf.store.sealed_table``);
``srbf status --reveal-seed`` shows it to whoever holds the store, and ``srbf export`` writes it
only once every fit of the run is stored. docs/fairness.md says what each level guarantees.
"""

from __future__ import annotations

import hashlib
import hmac
import os

from srbf.core import SrbfError
from srbf.runs.config import RunConfig

__all__ = ["SealedError", "check_seed", "planning_seed", "sealed_seed"]

_LABEL = b"srbf sealed run seed"


class SealedError(SrbfError):
    """A sealed run that cannot go on as asked (one line)."""


def sealed_seed(secret: bytes) -> int:
    """The run seed of a sealed run whose store (or shards' secret file) holds ``secret``: within
    0 .. 2**63-1, unpredictable without the secret, the same for every shard of the run."""
    digest = hmac.new(secret, _LABEL, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "little") & (2**63 - 1)


def planning_seed(config: RunConfig, *, from_store: bool = True) -> RunConfig:
    """``config`` with a seed to plan with, for commands that never write a store: a sealed config
    takes its store's seed (``srbf status``); with no store yet (nothing stored, so no key can
    match), or ``from_store=False`` (``srbf check``), a fresh random one."""
    if not config.sealed or isinstance(config.seed, int):
        return config
    from srbf.store import ResultsStore, resolve_path

    path = resolve_path(config.results)
    if from_store and path.is_file():
        with ResultsStore.open_readonly(path) as store:
            held = store.sealed()
        if held is not None:
            return config.with_seed(held.seed)
    return config.with_seed(int.from_bytes(os.urandom(8), "little") & (2**63 - 1))


def check_seed(config: RunConfig) -> None:
    """SealedError unless ``config``'s seed is a number (a sealed config gets it from its store)."""
    if not isinstance(config.seed, int):
        raise SealedError(f"{config.source}: seed: sealed: the run seed comes from the results store; "
                          "plan it with srbf.runs.sealed.planning_seed or run it")
