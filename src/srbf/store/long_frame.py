"""The long per-prediction table the statistics read: stored predictions joined with their metrics.

One row per scored prediction (``metrics_long_frame``), with the metrics of one judge version
(the caller names it: the store keeps every version's rows and knows no current one); the
condition text of a prediction's key is read back into its support size and noise
(``parse_condition``). The metrics are stored as JSON records; the frame types their columns:
text and flag metrics as such, every other metric as a number.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from srbf.methods.own_predictions import MISMATCH_KEY
from srbf.store.jsontext import loads_many
from srbf.store.results import ResultsStore

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["metrics_long_frame", "parse_condition"]


def parse_condition(text: str) -> tuple[int, float]:
    """``(n_support, noise)`` from a condition's canonical text, e.g. ``n_support=512;noise=0``."""
    fields: dict[str, str] = {}
    for part in str(text).split(";"):
        name, sep, value = part.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"cannot read the condition {text!r}: expected NAME=VALUE parts joined by ';'")
        fields[name.strip()] = value.strip()
    unknown = sorted(set(fields) - {"n_support", "noise"})
    if unknown or "n_support" not in fields:
        raise ValueError(f"cannot read the condition {text!r}: it needs n_support (and noise), not {unknown}")
    try:
        n_support, noise = int(fields["n_support"]), float(fields.get("noise", "0"))
    except ValueError:
        raise ValueError(f"cannot read the condition {text!r}: n_support must be an integer, noise a number") from None
    return n_support, noise


# The judge's metrics that are not numbers (docs/metrics.md): text, and yes/no flags.
_TEXT_METRICS = ("failure_reason", "srbench_symbolic_note")
_FLAG_METRICS = ("canonical_complete", "srbench_symbolic_undecided")


def _adapter_text(adapter: Any) -> str | None:
    """What a method runs, as text: ``builtin:linear``, ``file:/abs/my.py`` (two entries with the
    same text are two configurations of one adapter: an ablation)."""
    if not isinstance(adapter, Mapping) or not adapter.get("type"):
        return None
    return f"{adapter['type']}:{adapter.get('name') or adapter.get('path') or ''}"


def metrics_long_frame(results: Any = None, *, judge_version: str, **filters: Any) -> pd.DataFrame:
    """One row per scored prediction with its metrics of ``judge_version`` (the current one is
    ``srbf.judge.JUDGE_VERSION``): what ``srbf.stats.analyze`` reads.

    Columns: ``prediction_id``, ``experiment`` (the campaign's name), ``method`` (the variant's
    label, e.g. ``prior[depth=3]``: one method configuration), ``method_name`` (the method as
    keyed), ``adapter`` (what it runs: ``builtin:linear``, ``file:/abs/path.py``),
    ``budget_knob`` (what its budget counts, when the config or method.yaml says), ``config_hash``, ``provenance``, ``catalog``, ``catalog_version``, ``problem_id``,
    ``draw``, ``budget``, ``condition``, ``n_support``, ``noise``, ``seed``, ``repeat`` (which
    repeat of the method on the same points; 0 in a run without ``repeats``), ``status``,
    ``placeholder`` (True for a draw that could not be made: the statistics leave it out),
    ``seconds`` (the fit's wall-clock seconds), ``wall_seconds``, ``cpu_seconds``,
    ``method_seconds``, ``expression``, ``model_string_mismatch`` (True when the formula disagrees
    with the method's own predict, ``srbf.methods.own_predictions``), then one column per metric. ``filters`` select
    predictions as ``ResultsStore.predictions_frame`` does (``method=``, ``catalog=``,
    ``condition=``, ...). Predictions without metrics of ``judge_version`` are left out, with a
    warning: run ``srbf score`` first. ``analyze`` needs one row per method, problem, draw and
    budget: with several conditions, seeds or repeats, select one (``condition="n_support=512;noise=0"``,
    ``repeat=0``).
    """
    import pandas as pd

    store = results if isinstance(results, ResultsStore) else ResultsStore.open_readonly(results)
    try:
        frame, texts, selected = store.scored_predictions(str(judge_version), MISMATCH_KEY, **filters)
        campaigns = store.campaigns_frame()
    finally:
        if store is not results:
            store.close()
    labels, names, adapters, knobs = {}, {}, {}, {}
    for row in campaigns.itertuples(index=False):
        variant = row.config.get("variant") if isinstance(row.config, Mapping) else None
        label = variant.get("label") if isinstance(variant, Mapping) else None
        labels[int(row.id)] = str(label) if label else None
        names[int(row.id)] = row.name
        adapters[int(row.id)] = _adapter_text(variant.get("adapter") if isinstance(variant, Mapping) else None)
        knob = variant.get("budget_knob") if isinstance(variant, Mapping) else None
        knobs[int(row.id)] = str(knob) if knob else None
    unscored = selected - len(frame)
    if unscored:
        warnings.warn(
            f"{store.path}: {unscored} of {selected} prediction(s) have no metrics of judge {judge_version} "
            "and are left out: run `srbf score` first",
            stacklevel=2,
        )
    texts_of_conditions = frame["condition"].tolist()  # lists: iterating a column of text goes value by value
    parsed = {text: parse_condition(text) for text in dict.fromkeys(texts_of_conditions)}
    conditions = [parsed[text] for text in texts_of_conditions]
    campaign = frame["campaign_id"].astype(int)
    out = pd.DataFrame({
        "prediction_id": frame["id"].astype("int64"),
        "experiment": campaign.map(names),
        "method": [labels.get(c) or m for c, m in zip(campaign.tolist(), frame["method"].tolist())],
        "method_name": frame["method"],
        "adapter": campaign.map(adapters),
        "budget_knob": campaign.map(knobs),
        "config_hash": frame["config_hash"],
        "provenance": frame["provenance"],
        "catalog": frame["catalog"],
        "catalog_version": frame["catalog_version"],
        "problem_id": frame["problem_id"],
        "draw": frame["draw"],
        "budget": frame["budget"],
        "condition": frame["condition"],
        "n_support": pd.Series([c[0] for c in conditions], dtype="int64"),
        "noise": pd.Series([c[1] for c in conditions], dtype="float64"),
        "seed": frame["seed"],
        "repeat": frame["repeat"],
        "status": frame["status"],
        "placeholder": frame["status"].eq("placeholder"),
        "seconds": frame["wall_seconds"],
        "wall_seconds": frame["wall_seconds"],
        "cpu_seconds": frame["cpu_seconds"],
        "method_seconds": frame["method_seconds"],
        "expression": frame["expression"],
        "model_string_mismatch": frame["flagged"],
    })  # fmt: skip
    records = loads_many(texts)
    values = pd.DataFrame.from_records(records) if records else pd.DataFrame()
    clash = sorted(set(values.columns) & set(out.columns))
    if clash:
        raise ValueError(f"metric(s) {clash} clash with the long frame's own columns")
    for column in values.columns:
        if column in _TEXT_METRICS:
            continue
        if column in _FLAG_METRICS:
            values[column] = values[column].astype("boolean")
        else:
            values[column] = pd.to_numeric(values[column], errors="coerce")
    return pd.concat([out, values], axis=1)
