"""Planning a scoring pass: the store's unscored predictions grouped by drawn problem.

``plan`` reads, per campaign, the catalog references and sampling settings its config ran with,
resolves each prediction's catalog (the campaign's file, else the shipped set of that name and
version), reads its condition, parse hints, trajectory and checkpoint grid (for the arena axes,
``run_axes.axis_inputs``), and groups the predictions by drawn problem;
those that cannot be scored at all get a ``ScoreFailure`` with the reason. ``planned`` gives the
same problems one catalog at a time, as each is loaded, and ``chunks`` cuts them into the pieces
the worker processes take as they come: the scoring pass's processes start on the first catalog's
problems while the parent loads the others.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from srbf.catalogs.model import CatalogError
from srbf.judge.problem_scoring import DrawnProblem, StoredPrediction, load_catalog
from srbf.judge.run_axes import axis_inputs
from srbf.judge.score_summary import ScoreFailure
from srbf.store import parse_condition

if TYPE_CHECKING:
    from srbf.store import ResultsStore

__all__ = ["MIN_CHUNK", "PLAN_COLUMNS", "chunks", "plan", "planned"]

# srbf.runs.config.SamplingConfig's defaults (not imported: pydantic costs a third of a second), used
# for a campaign whose config does not say; a wrong guess shows as a hash mismatch, never silently.
DEFAULT_N_VALIDATION = 512
DEFAULT_OOD = False
MIN_CHUNK = 8  # predictions: fewer per chunk and sending them costs more than scoring them
PLAN_COLUMNS = ("id", "campaign_id", "catalog", "catalog_version", "problem_id", "seed", "draw", "condition",
                "status", "expression", "error", "data_hash", "inputs_hash", "internals")  # fmt: skip


def _campaign_settings(campaigns: Sequence[Any]) -> dict[int, tuple[tuple[str, ...], int, bool]]:
    """Per campaign: the catalog references, ``n_validation`` and ``ood`` its config ran with."""
    settings = {}
    for row in campaigns:
        run = row.config.get("run") if isinstance(row.config, Mapping) else None
        run = run if isinstance(run, Mapping) else {}
        sampling = run.get("sampling") if isinstance(run.get("sampling"), Mapping) else {}
        refs = tuple(str(r) for r in run.get("catalogs") or ())
        settings[int(row.id)] = (
            refs, int(sampling.get("n_validation", DEFAULT_N_VALIDATION)), bool(sampling.get("ood", DEFAULT_OOD))
        )
    return settings


def _resolve_catalog(name: str, version: int, refs: tuple[str, ...]) -> str:
    """The reference to load catalog ``name`` version ``version`` from: the campaign's own entry
    (a shipped name or a file), else the shipped catalog of that name. A ``ValueError`` naming the
    catalog when there is none, or when its version is not the store's."""
    from srbf.catalogs.loader import list_catalogs

    shipped = set(list_catalogs())
    candidates = [name] if name in refs else []
    candidates += [r for r in refs if r not in shipped]  # catalog files: their name is inside
    if name in shipped and name not in candidates:
        candidates.append(name)
    problems, versions = [], []
    for ref in candidates:
        try:
            catalog = load_catalog(ref)
        except Exception as error:  # noqa: BLE001 - a missing or broken file: try the next, then say why
            problems.append(f"{ref}: {error}")
            continue
        if catalog.name == name and catalog.version == version:
            return ref
        if catalog.name == name:
            versions.append(f"{'the shipped' if ref == name else 'the file ' + ref} catalog {name!r} is version "
                            f"{catalog.version}")  # fmt: skip
    if versions:
        raise CatalogError(
            f"catalog {name!r}: the stored predictions were drawn from version {version}, but "
            f"{'; '.join(versions)}: its problems are not the same problems; score them with the srbf "
            f"release that shipped {name!r} version {version}"
        )
    detail = f" ({'; '.join(problems)})" if problems else ""
    raise CatalogError(
        f"catalog {name!r} version {version}: not shipped with this srbf and not among the campaign's catalog files{detail}"
    )


def plan(store: ResultsStore, todo: Sequence[Any]) -> tuple[list[DrawnProblem], list[ScoreFailure]]:
    """The predictions ``todo`` (rows with the fields of ``PLAN_COLUMNS``: ``prediction_rows``, or
    a predictions frame's ``itertuples``) grouped by drawn problem, in problem order; and those
    that cannot be scored at all (catalog or condition problems), each with its reason."""
    failures: list[ScoreFailure] = []
    works = sorted(planned(store, todo, failures), key=_order)
    return works, failures


def _order(work: DrawnProblem) -> tuple:
    return work.ref, work.problem_id, work.seed, work.draw, work.condition  # draws of a problem together


def planned(store: ResultsStore, todo: Sequence[Any], failures: list[ScoreFailure]) -> Iterator[DrawnProblem]:
    """``plan``'s drawn problems one catalog at a time, as its file is loaded (each catalog's in
    problem order), so that scoring starts before the last catalog is read; the predictions that
    cannot be scored are appended to ``failures`` as they are met."""
    campaigns = store.campaign_rows()
    settings = _campaign_settings(campaigns)
    steps, grids = axis_inputs(store, {int(row.id) for row in todo}, campaigns)  # for EFF
    by_catalog: dict[tuple[str, int], list[Any]] = defaultdict(list)
    for row in todo:
        by_catalog[(str(row.catalog), int(row.catalog_version))].append(row)
    for (catalog, version), rows in sorted(by_catalog.items()):
        refs_ok: dict[tuple[str, ...], str | ValueError] = {}
        for refs in {settings.get(int(row.campaign_id), ((),))[0] for row in rows}:
            try:
                refs_ok[refs] = _resolve_catalog(catalog, version, refs)
            except ValueError as error:
                refs_ok[refs] = error
        works = []
        for (ref, problem_id, *rest), preds in _groups(rows, settings, refs_ok, steps, grids, failures).items():
            try:
                entry = load_catalog(ref).entry(problem_id)
            except KeyError as error:
                where = DrawnProblem(ref, None, catalog, version, problem_id, *rest, predictions=()).where
                failures += [ScoreFailure(p.id, f"{where}: cannot regenerate the points: {error.args[0]}") for p in preds]
                continue
            works.append(DrawnProblem(ref, entry, catalog, version, problem_id, *rest, predictions=tuple(preds)))
        yield from sorted(works, key=_order)


def _groups(rows: list[Any], settings: dict, refs_ok: dict, steps: dict, grids: dict,
            failures: list[ScoreFailure]) -> dict[tuple, list[StoredPrediction]]:
    """One catalog's predictions by drawn problem (the reference its catalog is loaded from,
    problem id, seed, draw, condition, support size, noise, ``n_validation``, ``ood``); those whose
    catalog, condition, internals or checkpoints cannot be read go to ``failures``."""
    groups: dict[tuple, list[StoredPrediction]] = defaultdict(list)
    condition_of = cache(parse_condition)  # a store holds a few conditions, read once each
    for row in rows:
        refs, n_validation, ood = settings.get(int(row.campaign_id), ((), DEFAULT_N_VALIDATION, DEFAULT_OOD))
        catalog = str(row.catalog)
        ref = refs_ok[refs]
        if isinstance(ref, ValueError):
            failures.append(ScoreFailure(int(row.id), str(ref)))
            continue
        try:
            n_support, noise = condition_of(row.condition)
        except ValueError as error:
            failures.append(ScoreFailure(int(row.id), f"{catalog}/{row.problem_id}: {error}"))
            continue
        try:
            internals = json.loads(row.internals) if isinstance(row.internals, str) else {}
        except ValueError as error:  # a damaged store: this prediction's parse hints are unknown
            failures.append(ScoreFailure(int(row.id), f"{catalog}/{row.problem_id}: its stored internals are not "
                                         f"valid JSON ({error}), so its parse hints cannot be read"))  # fmt: skip
            continue
        internals = internals if isinstance(internals, Mapping) else {}
        inputs_hash = row.inputs_hash if isinstance(row.inputs_hash, str) else ""  # NULL reads as None or NaN
        grid = grids.get(int(row.campaign_id), ())
        if isinstance(grid, str):  # a bad run.checkpoints in a hand-made store
            failures.append(ScoreFailure(int(row.id), grid))
            continue
        prediction = StoredPrediction(
            int(row.id), str(row.status), row.expression, row.error, str(row.data_hash or ""), inputs_hash,
            internals.get("parse"), steps.get(int(row.id), ()), grid,
        )
        key = (ref, str(row.problem_id), int(row.seed), int(row.draw), str(row.condition), n_support, noise,
               n_validation, ood)  # fmt: skip
        groups[key].append(prediction)
    return groups


def chunks(works: Iterable[DrawnProblem], workers: int, total: int) -> Iterator[list[DrawnProblem]]:
    """Whole problems in chunks of about remaining / (4 x workers) predictions (8 to 128), as
    ``works`` come (``total``: their predictions, or more): the chunks shrink towards the end, so
    that no process waits long for another's last chunk."""
    remaining = total
    share = 4 * max(1, workers)
    current, count = [], 0
    for work in works:
        current.append(work)
        count += len(work.predictions)
        if count >= max(MIN_CHUNK, min(128, math.ceil(remaining / share))):
            yield current
            remaining -= count
            current, count = [], 0
    if current:
        yield current
