"""The frozen timing subset: a fixed sample of problems, drawn once, that every timed fit uses.

Published times must compare: every method and every budget is timed on the same problems and
the same points (docs/fairness.md, "Timing protocol"). ``freeze_subset`` picks the problems of a
config's sets, stratified by set (each set gets an equal share, a set smaller than its share gives
all it has and the rest goes to the larger sets), draws their points once through
``ProblemSource.draw`` and writes them to a directory:

    DIR/subset.json          the manifest: settings, each problem's key, file and hashes, and
                             the manifest's own hash
    DIR/points/NNNN.npz      one problem each (``catalogs.sampling.save_problem_npz``)

``load_subset`` reads it back and refuses one line at a time: a missing directory, a manifest
changed after freezing (its hash), a points file whose arrays do not match their hash. The timing
run fits from these files only; the readout reads the manifest.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import srbf
from srbf.core import SrbfError

if TYPE_CHECKING:
    from srbf.catalogs.sampling import Problem
    from srbf.runs.config import RunConfig

__all__ = [
    "DEFAULT_TOTAL",
    "FrozenProblem",
    "Subset",
    "TimingError",
    "allocate",
    "freeze_subset",
    "load_subset",
]

DEFAULT_TOTAL = 262  # the subset size of the fairness policy (seed 003)
MANIFEST = "subset.json"
FORMAT = "srbf-timing-subset/1"
STORE_DIR = "results"  # the timing run's results store, inside the subset directory


class TimingError(SrbfError):
    """A timing subset, run or readout srbf refuses; the message is one line."""


@dataclass(frozen=True)
class FrozenProblem:
    """One problem of the subset: its key fields, its points file and their hashes."""

    catalog: str
    catalog_version: int
    problem_id: str
    draw: int
    file: str  # relative to the subset directory
    data_hash: str
    inputs_hash: str


@dataclass(frozen=True)
class Subset:
    """A frozen subset as read back from its directory (manifest checked against its hash)."""

    directory: Path
    manifest: dict[str, Any]
    problems: tuple[FrozenProblem, ...]

    @property
    def hash(self) -> str:
        return str(self.manifest["hash"])

    @property
    def seed(self) -> int:
        return int(self.manifest["seed"])

    @property
    def condition(self) -> str:
        return str(self.manifest["condition"])

    @property
    def store(self) -> Path:
        """Where the timing run records its fits (a results root)."""
        return self.directory / STORE_DIR

    def set_sizes(self) -> dict[str, int]:
        """How many problems each set has in the subset, in subset order."""
        sizes: dict[str, int] = {}
        for p in self.problems:
            sizes[p.catalog] = sizes.get(p.catalog, 0) + 1
        return sizes

    def points(self, problem: FrozenProblem) -> Problem:
        """The problem's points, read from its file; TimingError when they do not match the manifest."""
        from srbf.catalogs.sampling import load_problem_npz

        path = self.directory / problem.file
        try:
            drawn = load_problem_npz(path)
        except FileNotFoundError:
            raise TimingError(f"{path}: missing: the subset is incomplete; freeze it again") from None
        except (OSError, ValueError, KeyError) as exc:
            raise TimingError(f"{path}: unreadable or changed after freezing ({_first_line(exc)})") from None
        if drawn.data_hash != problem.data_hash or (drawn.catalog, drawn.problem_id) != (problem.catalog, problem.problem_id):
            raise TimingError(f"{path}: data_hash: expected {problem.data_hash} ({problem.catalog}/{problem.problem_id}), "
                              f"the file holds {drawn.data_hash} ({drawn.catalog}/{drawn.problem_id})")
        return drawn


def allocate(sizes: dict[str, int], total: int | None = None, per_set: int | None = None) -> dict[str, int]:
    """How many problems each set contributes: ``per_set`` each (capped by the set's size), or
    ``total`` spread as evenly as the sets allow (a set smaller than its share gives everything, the
    rest is shared by the larger sets; leftover single problems go to the first sets in order)."""
    if (total is None) == (per_set is None):
        raise ValueError("give one of total and per_set")
    if per_set is not None:
        return {name: min(n, per_set) for name, n in sizes.items()}
    if total >= sum(sizes.values()):
        return dict(sizes)
    share = 0
    while sum(min(n, share + 1) for n in sizes.values()) <= total:
        share += 1
    counts = {name: min(n, share) for name, n in sizes.items()}
    left = total - sum(counts.values())
    for name, n in sizes.items():
        if left and n > share:
            counts[name] += 1
            left -= 1
    return counts


def freeze_subset(config: RunConfig, out: str | Path, *, total: int | None = None, per_set: int | None = None,
                  log=None) -> Subset:
    """Pick and draw the subset of ``config``'s sets (its problem selection, sampling settings and
    seed; draw 0) and write it into ``out`` (new or empty). Returns the subset as read back."""
    from srbf.runs.plan import load_catalogs
    from srbf.runs.problems import ProblemSource
    from srbf.catalogs.sampling import save_problem_npz

    if total is None and per_set is None:
        total = DEFAULT_TOTAL
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise TimingError(f"{out}: exists and is not an empty directory; a subset is frozen once, into a new directory")
    if config.sealed:
        raise TimingError(f"{config.source}: seed: sealed: a timing subset is published with its seed; give a number")
    conditions = config.sampling.conditions()
    if len(conditions) != 1:
        texts = ", ".join(c.text for c in conditions)
        raise TimingError(f"{config.source}: sampling: a timing subset has one data condition, the config has "
                          f"{len(conditions)} ({texts}); give n_support and noise one value each")
    condition = conditions[0]
    catalogs = load_catalogs(config)
    candidates = {ref: config.select(ref, catalogs[ref].entries) for ref in config.catalogs}
    counts = allocate({ref: len(c) for ref, c in candidates.items()}, total, per_set)
    source = ProblemSource(config, cache_size=1)
    (out / "points").mkdir(parents=True, exist_ok=True)
    problems: list[dict[str, Any]] = []
    sets: dict[str, dict[str, Any]] = {}
    for ref, entries in candidates.items():
        catalog = catalogs[ref]
        order = list(entries)
        random.Random(f"srbf-timing:{config.seed}:{catalog.name}").shuffle(order)  # string seeds hash stably
        position = {e.id: i for i, e in enumerate(entries)}
        chosen: list[tuple[Any, Problem]] = []
        skipped = 0
        for entry in order:
            if len(chosen) == counts[ref]:
                break
            drawn = source.draw(entry, catalog=catalog.name, catalog_version=catalog.version, seed=config.seed, draw=0,
                                n_support=condition.n_support, noise=condition.noise,
                                n_validation=config.sampling.n_validation, ood=False)
            if drawn.is_placeholder:  # sampling gave up on it: nothing to time, take the next one
                skipped += 1
                continue
            chosen.append((entry, drawn))
        chosen.sort(key=lambda pair: position[pair[0].id])
        for entry, drawn in chosen:
            name = f"points/{len(problems):04d}.npz"
            save_problem_npz(drawn, out / name)
            problems.append({"catalog": catalog.name, "catalog_version": catalog.version, "problem_id": entry.id,
                             "draw": 0, "file": name, "data_hash": drawn.data_hash, "inputs_hash": drawn.inputs_hash})
        sets[catalog.name] = {"version": catalog.version, "candidates": len(entries), "chosen": len(chosen),
                              "skipped_placeholders": skipped}
        if log is not None:
            log(f"{catalog.name}: {len(chosen)} of {len(entries)} problems")
    manifest = {
        "format": FORMAT,
        "srbf_version": srbf.__version__,
        "frozen_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "config": config.source,
        "seed": config.seed,
        "condition": condition.text,
        "n_support": condition.n_support,
        "noise": condition.noise,
        "n_validation": config.sampling.n_validation,
        "asked": {"total": total} if total is not None else {"per_set": per_set},
        "sets": sets,
        "problems": problems,
    }
    manifest["hash"] = manifest_hash(manifest)
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return load_subset(out)


def manifest_hash(manifest: dict[str, Any]) -> str:
    """SHA-256 of the manifest's canonical JSON, its own ``hash`` field left out."""
    body = {k: v for k, v in manifest.items() if k != "hash"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def load_subset(directory: str | Path) -> Subset:
    """The subset frozen in ``directory``; TimingError (one line) when it is missing or was changed."""
    directory = Path(directory)
    path = directory / MANIFEST
    if not directory.is_dir():
        raise TimingError(f"{directory}: no such directory (freeze a subset first: srbf timing freeze -c CONFIG -o DIR)")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TimingError(f"{path}: missing: {directory} is not a frozen timing subset") from None
    except (OSError, ValueError) as exc:
        raise TimingError(f"{path}: unreadable ({_first_line(exc)})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else type(manifest).__name__
        raise TimingError(f"{path}: format: expected {FORMAT!r}, got {found!r}")
    expected = manifest_hash(manifest)
    if manifest.get("hash") != expected:
        raise TimingError(f"{path}: hash: the manifest was changed after freezing (it says {manifest.get('hash')!r}, "
                          f"its content hashes to {expected}); freeze a new subset")
    try:
        problems = tuple(FrozenProblem(**p) for p in manifest["problems"])
    except (KeyError, TypeError) as exc:
        raise TimingError(f"{path}: problems: malformed entry ({_first_line(exc)})") from None
    if not problems:
        raise TimingError(f"{path}: problems: the subset is empty")
    return Subset(directory, manifest, problems)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
