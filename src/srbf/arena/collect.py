"""From a results store to the arena's per-run and per-task tables, with every judgment and its reason.

``collect(results)`` reads the stored predictions, trajectories and campaigns, groups the
predictions by drawn problem (``judge.scoring_plan.plan``, as the scoring pass does) and has
``judge.arena_problem.evaluate_problem`` evaluate each problem on its regenerated points. Each
campaign gives its fits' checkpoint grid: ``checkpoints`` of its run config (180 when it does not
say) over the method's time limit. The repeats of one fit (same method, configuration, budget,
condition, problem, draw and run seed; ``repeat`` of the key, 0 in a store that has none) are
judged pairwise for STAB. Placeholders are left out, as the statistics leave them out.

The result (``ArenaData``): ``runs`` (one row per prediction: the five per-run axes, from
``judge.run_axes.axis_metrics``, the function whose values ``srbf score`` stores as the metrics
``arena_id`` ... ``arena_eff``, and what they came from), ``stability`` (one row per repeated fit: N, V, C and STAB, or why there is none),
``judgments`` (every symbolic judgment: against the truth per run, between repeats per pair, each
with its rule) and ``skipped`` (predictions that could not be evaluated, with the reason).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import pandas as pd

from srbf.arena.errors import ArenaError
from srbf.judge.axes import stab_score
from srbf.judge.checkpoints import campaign_grid
from srbf.judge.metric_keys import AXIS_KEYS
from srbf.judge.run_axes import axis_metrics
from srbf.store import parse_condition

__all__ = ["ArenaData", "FIT_COLUMNS", "collect"]

RUN_AXES = ("id", "ood", "sym", "min", "eff")  # runs.csv's columns for AXIS_KEYS, in that order
# What makes runs repeats of one fit: everything of the key but the repeat index.
FIT_COLUMNS = ("method", "config_hash", "budget", "condition", "catalog", "catalog_version", "problem_id", "draw", "seed")


@dataclass
class ArenaData:
    runs: pd.DataFrame
    stability: pd.DataFrame
    judgments: pd.DataFrame
    skipped: pd.DataFrame
    configs_note: str | None = None  # the configurations set aside (srbf.store.configurations)


def _grids(campaigns: pd.DataFrame, where: str) -> dict[int, tuple[str | None, str, bool]]:
    """Per campaign: the method's label, a note on its checkpoint grid, and whether it has one."""
    out = {}
    for row in campaigns.itertuples(index=False):
        config = row.config if isinstance(row.config, Mapping) else {}
        variant = config.get("variant") if isinstance(config.get("variant"), Mapping) else {}
        try:
            times, note = campaign_grid(config)
        except ValueError as error:
            raise ArenaError(f"{where}: campaign {row.id} ({row.name}): {error}") from None
        out[int(row.id)] = (variant.get("label") or None, note, times is not None)
    return out


def collect(results: Any = None, configs: Any = ("latest",)) -> ArenaData:
    """Evaluate every stored prediction for the arena (``results``: a results directory, a store
    file, or an open ``ResultsStore``) of the configurations ``configs`` chooses ("latest" per
    method, "all", or hashes: ``srbf.store.configurations``). ArenaError when there is no store or
    nothing to score."""
    from srbf.store.configurations import select_configurations

    from srbf.judge.arena_problem import evaluate_problem
    from srbf.judge.scoring_plan import plan
    from srbf.store import ResultsStore, resolve_path

    if not isinstance(results, ResultsStore):
        path = resolve_path(results)
        if not path.is_file():
            raise ArenaError(f"no results store at {path} (run something first, or pass --results DIR)")
    store = results if isinstance(results, ResultsStore) else ResultsStore.open_readonly(results)
    try:
        selection = select_configurations(store.configurations(), configs)
        predictions = selection.apply(store.predictions_frame(decode_json=False))
        predictions = predictions[predictions["status"] != "placeholder"].reset_index(drop=True)
        if predictions.empty:
            raise ArenaError(f"{store.path}: no predictions to score (only placeholders, or none at all)")
        if "repeat" not in predictions.columns:  # a store from before repeats: every fit is repeat 0
            predictions["repeat"] = 0
        grids = _grids(store.campaigns_frame(), str(store.path))
        works, failures = plan(store, list(predictions.itertuples(index=False)))  # with trajectories, checkpoints
    finally:
        if store is not results:
            store.close()
    campaign = {int(i): int(c) for i, c in zip(predictions["id"], predictions["campaign_id"])}
    by_repeat = predictions.sort_values("repeat", kind="stable")
    repeats = [tuple(int(i) for i in ids) for _, ids in by_repeat.groupby(list(FIT_COLUMNS), sort=False, dropna=False)["id"]]
    pairs_of = {ids[0]: list(combinations(ids, 2)) for ids in repeats}
    evaluations, pairs, ood_missing = {}, {}, {}
    skipped = [(f.prediction_id, f.reason) for f in failures]
    for work in works:
        ids = {p.id for p in work.predictions}
        wanted = [pair for first in ids for pair in pairs_of.get(first, ())]
        result = evaluate_problem(work, wanted)
        evaluations.update(result.runs)
        pairs.update(result.pairs)
        skipped.extend(result.unscorable.items())
        for pid in result.runs:
            ood_missing[pid] = result.ood_missing
    runs = _runs_frame(predictions, evaluations, grids, campaign, ood_missing)
    if len(runs):
        runs = selection.apply(runs, method="method_name", label="method").reset_index(drop=True)
    return ArenaData(
        runs=runs,
        stability=_stability_frame(runs, repeats, pairs),
        judgments=_judgments_frame(runs, pairs),
        skipped=pd.DataFrame(skipped, columns=["prediction_id", "reason"]),
        configs_note=selection.note(),
    )


def _runs_frame(predictions: pd.DataFrame, evaluations: dict, grids: dict, campaign: dict, ood_missing: dict) -> pd.DataFrame:
    rows = []
    for row in predictions.itertuples(index=False):
        pid = int(row.id)
        e = evaluations.get(pid)
        if e is None:
            continue
        label, grid_note, has_grid = grids[campaign[pid]]
        n_support, noise = parse_condition(row.condition)
        j = e.symbolic
        axes = axis_metrics(e)  # the values `srbf score` stores as arena_id, ..., arena_eff
        if e.trajectory_steps == 0:
            eff_note = "no trajectory: no incumbent reported"
        elif not has_grid:
            eff_note = grid_note
        else:
            unavailable = sum(1 for x in e.checkpoint_id if math.isnan(x))
            eff_note = f"{grid_note}; {unavailable} unavailable (before the first report)"
        rows.append({
            "prediction_id": pid, "method": label or row.method, "method_name": row.method,
            "config_hash": row.config_hash, "budget": row.budget, "condition": row.condition,
            "n_support": n_support, "noise": noise, "catalog": row.catalog, "catalog_version": row.catalog_version,
            "problem_id": row.problem_id, "task": f"{row.catalog}/{row.problem_id}", "draw": row.draw,
            "seed": row.seed, "repeat": int(row.repeat), "status": row.status, "valid": e.valid,
            "seconds": getattr(row, "wall_seconds", float("nan")),
            "nmse_id": e.nmse_id, "nmse_ood": e.nmse_ood,
            "ood_note": ood_missing.get(pid) or "",
            **{axis: axes[key] for axis, key in zip(RUN_AXES, AXIS_KEYS)},
            "eff_note": eff_note, "trajectory_steps": e.trajectory_steps,
            "sym_judgment": j.judgment, "sym_reason": j.reason,
            "tree_similarity": j.tree_similarity, "variable_f1": j.variable_f1, "operator_f1": j.operator_f1,
            "size_truth": j.size_truth, "size_prediction": j.size_prediction,
        })  # fmt: skip
    frame = pd.DataFrame(rows)
    for column in ("ood", "eff"):
        if column in frame:
            frame[column] = pd.to_numeric(frame[column], errors="coerce")
    return frame


def _stability_frame(runs: pd.DataFrame, repeats: list[tuple[int, ...]], pairs: dict) -> pd.DataFrame:
    by_id = {int(r["prediction_id"]): r for r in runs.to_dict("records")}
    rows = []
    for ids in repeats:
        ids = tuple(i for i in ids if i in by_id)
        if not ids:
            continue
        first = by_id[ids[0]]
        row = {c: first[c] for c in ("method", "budget", "condition", "noise", "task", "catalog", "problem_id", "draw", "seed")}
        row["repeats"] = len(ids)
        runs_of = [(bool(by_id[i]["valid"]), float(by_id[i]["id"]), None if pd.isna(by_id[i]["ood"]) else float(by_id[i]["ood"]))
                   for i in ids]  # fmt: skip
        same = {(a, b): pairs[(ids[a], ids[b])].positive for a, b in combinations(range(len(ids)), 2)
                if (ids[a], ids[b]) in pairs}  # fmt: skip
        stab = stab_score(runs_of, same)
        if stab is None:
            row.update(N=None, V=None, C=None, stab=None, note="needs 2 repeats per task (found 1)")
        else:
            row.update(N=stab.n, V=stab.v, C=stab.c, stab=stab.score, note="")
        rows.append(row)
    frame = pd.DataFrame(rows)
    if len(frame):
        frame["stab"] = pd.to_numeric(frame["stab"], errors="coerce")
    return frame


def _judgments_frame(runs: pd.DataFrame, pairs: dict) -> pd.DataFrame:
    columns = ["kind", "prediction_id", "other_id", "method", "task", "condition", "judgment", "positive", "reason"]
    rows = [("truth", int(r.prediction_id), None, r.method, r.task, r.condition, r.sym_judgment,
             r.sym_judgment == "equivalent", r.sym_reason) for r in runs.itertuples(index=False)]  # fmt: skip
    about = {int(r.prediction_id): (r.method, r.task, r.condition) for r in runs.itertuples(index=False)}
    rows += [("repeats", a, b, *about[a], j.judgment, j.positive, j.reason) for (a, b), j in pairs.items()]
    frame = pd.DataFrame(rows, columns=columns)
    frame["other_id"] = frame["other_id"].astype("Int64")  # empty for a judgment against the truth
    return frame
