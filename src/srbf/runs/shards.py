"""Shards: one run split across separately scheduled jobs (SLURM arrays), each into its own store.

``--shard K/N`` keeps the fits whose position in the full plan is K-1 modulo N: interleaved, so
every shard holds a share of every method, catalog and budget, and deterministic, so a shard run
again resumes its own fits. Each shard store records who it is (``srbf.store.ShardInfo``: K, N, the digest of
the whole run's plan, its share of the fits) so that ``srbf merge`` can check that the shards it
is given belong together and that none is missing or given twice (``srbf.store.shard_table``).

The shards of one run must also share the run secret (the key under which each fit's method seed
is derived, ``srbf.methods.isolation.method_seed``), or the same fit would get a different seed in
a different split. They read it from one secret file beside the results (``run.secret`` in the
config's results directory by default, ``--secret-file`` otherwise): the first shard to start
creates it (atomically, readable by its owner only), the others read it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from srbf.core import SrbfError, TaskKey
from srbf.runs.plan import CatalogCounts, Plan
from srbf.store.rows import key_values
from srbf.store.shard_table import ShardInfo

__all__ = ["SECRET_BYTES", "Shard", "ShardError", "plan_digest", "shard_paths", "shard_plan", "shared_secret"]

SECRET_BYTES = 32
SECRET_FILENAME = "run.secret"
_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


class ShardError(SrbfError):
    """A bad ``--shard`` or secret file, or a store that belongs to another shard; one line."""


@dataclass(frozen=True)
class Shard:
    """Shard ``k`` of ``n`` (1-based): the fits at plan positions ``k - 1``, ``k - 1 + n``, ..."""

    k: int
    n: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        match = _SHARD.fullmatch(text)
        if not match:
            raise ShardError(f"--shard: expected K/N (e.g. 2/8), got {text!r}")
        k, n = int(match.group(1)), int(match.group(2))
        if not 1 <= k <= n:
            raise ShardError(f"--shard {text}: K must be between 1 and N")
        return cls(k, n)

    def takes(self, index: int) -> bool:
        """Whether the fit at position ``index`` of the full plan belongs to this shard."""
        return index % self.n == self.k - 1

    def __str__(self) -> str:
        return f"{self.k}/{self.n}"


def plan_digest(keys: list[TaskKey]) -> str:
    """A digest of the whole plan of a run (every key, in plan order): shards of one run share it;
    a different config, catalog version, filter or limit changes it. A key of repeat 0 is digested
    without its repeat, so a run without repeats keeps the digest it had before keys had one."""
    digest = hashlib.sha256()
    for key in keys:
        values = key_values(key)
        digest.update(json.dumps(values if key.repeat else values[:-1], separators=(",", ":")).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def shard_paths(results: str | Path, shard: Shard) -> tuple[Path, Path]:
    """The default store of ``shard`` and the default secret file of its run, for a config whose
    results are at ``results``: ``<results>/shard-K-of-N/`` and ``<results>/run.secret``."""
    from srbf.store import resolve_path

    file = resolve_path(results)
    return file.parent / f"shard-{shard.k}-of-{shard.n}" / file.name, file.parent / SECRET_FILENAME


def shared_secret(path: str | Path) -> bytes:
    """The run secret kept in ``path`` (64 hex digits), created there if the file does not exist.

    Creation is atomic (written aside, then hard-linked into place, which fails if another shard
    got there first), so shards started at once all end with the same secret."""
    path = Path(path).expanduser()
    if not path.exists():
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".run.secret.")
            try:
                os.write(fd, (os.urandom(SECRET_BYTES).hex() + "\n").encode())
                os.fsync(fd)
            finally:
                os.close(fd)
            try:
                os.link(temporary, path)  # mkstemp made it readable by its owner only
            except FileExistsError:
                pass  # another shard created it first: use theirs
            finally:
                os.unlink(temporary)
        except OSError as exc:
            raise ShardError(f"secret file {path}: cannot create it: {exc.strerror or exc}") from None
    try:
        text = path.read_text().strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise ShardError(f"secret file {path}: cannot read it: {exc}") from None
    if not re.fullmatch(rf"[0-9a-f]{{{2 * SECRET_BYTES}}}", text):
        raise ShardError(f"secret file {path}: expected {2 * SECRET_BYTES} hexadecimal digits (as srbf writes it)")
    return bytes.fromhex(text)


def shard_plan(plan: Plan, shard: Shard) -> tuple[Plan, ShardInfo]:
    """``plan`` cut to the share of ``shard``, and what its store records about it."""
    keys = [key for index, key in enumerate(plan.keys) if shard.takes(index)]
    fits = [fit for fit in plan.fits if shard.takes(fit.index)]
    counts: dict[str, CatalogCounts] = {}
    pending = {fit.key for fit in fits}
    for key in keys:
        tally = counts.setdefault(key.catalog, CatalogCounts())
        tally.planned += 1
        tally.stored += key not in pending
    info = ShardInfo(shard.k, shard.n, plan_digest(plan.keys), len(keys))
    return dataclasses.replace(plan, fits=fits, keys=keys, counts=counts), info
