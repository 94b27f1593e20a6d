"""The report's input: the long frame of per-prediction metrics, read from a results store.

The store (``srbf.store.metrics_long_frame``) owns how stored metrics become that frame: one row per prediction with method, catalog, catalog_version, problem_id, draw,
budget, seconds, provenance and one column per metric. Everything in srbf.report takes the frame
itself, so it can be built from anywhere (a notebook, a test, an exported file).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Iterable, Mapping

import pandas as pd

from srbf.core import DEFAULT_RESULTS, SrbfError, did_you_mean
from srbf.stats import RULES

KEY = ("method", "catalog", "catalog_version", "problem_id", "draw", "budget")


class ReportInputError(SrbfError, ValueError):
    """The results cannot be analysed (no store, nothing scored, an unknown method or metric)."""


def load_long_frame(results: str | Path | None = None, *, condition: str | None = None,
                    notes: list | None = None, configs=("latest",)) -> pd.DataFrame:
    """The scored predictions of the store at ``results`` (a directory or .sqlite file) as the long
    frame; :class:`ReportInputError` with one line when there is no store or nothing is scored.

    ``condition`` selects one data condition (e.g. ``n_support=512;noise=0``); a store holding
    several must be narrowed to one. Warnings of the scoring pass (predictions not scored yet) are
    appended to ``notes`` as lines instead of being printed, and so is the line naming the
    configurations set aside: ``configs`` chooses them (``srbf.store.configurations``: "latest"
    per method, "all", or hashes).
    """
    from srbf.judge.metric_keys import JUDGE_VERSION
    from srbf.store import ResultsStore, metrics_long_frame, resolve_path

    root = DEFAULT_RESULTS if results is None else results
    path = resolve_path(root)
    if not Path(path).is_file():
        raise ReportInputError(f"no results store at {path} (run something first, or pass --results DIR)")
    filters = {} if condition is None else {"condition": condition}
    with ResultsStore.open_readonly(root) as store, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = metrics_long_frame(store, judge_version=JUDGE_VERSION, **filters)
        frame, chosen = read_configs(store, frame, configs)
    frame = require_scores(frame, root)
    if notes is not None:
        notes.extend(str(w.message) for w in caught)
        notes.extend(filter(None, [chosen]))
    return _one_condition(frame, condition)


def read_configs(store, frame: pd.DataFrame, configs) -> tuple[pd.DataFrame, str | None]:
    """The long ``frame`` of ``store`` narrowed to the configurations ``configs`` chooses, each
    shown under its label, and the line naming what was set aside (None if nothing was)."""
    from srbf.store.configurations import select_configurations

    selection = select_configurations(store.configurations(), configs)
    return selection.apply(frame, method="method_name", label="method").reset_index(drop=True), selection.note()


def _one_condition(frame: pd.DataFrame, condition: str | None) -> pd.DataFrame:
    if condition is None and "condition" in frame.columns:
        found = sorted(frame["condition"].dropna().astype(str).unique())
        if len(found) > 1:
            raise ReportInputError(f"the store holds {len(found)} data conditions ({'; '.join(found)}): "
                                   "choose one with --condition")
    return frame


def metric_columns(frame: pd.DataFrame) -> list[str]:
    """The frame's metric columns srbf's rules table knows, in the frame's order (not ``seconds``,
    the time axis)."""
    return [c for c in frame.columns if c in RULES and c not in KEY and c != "seconds"]


def require_scores(frame: pd.DataFrame | None, results: str | Path = DEFAULT_RESULTS) -> pd.DataFrame:
    """``frame`` if it holds scored predictions; otherwise the one-line error of an empty store."""
    if frame is None or frame.empty or not metric_columns(frame):
        raise ReportInputError(f"no scored predictions in {results}: run `srbf score` first")
    if "placeholder" in frame.columns and frame["placeholder"].eq(True).all():
        raise ReportInputError(f"no scored predictions in {results}: run `srbf score` first")
    return frame


def provenance_labels(frame: pd.DataFrame) -> dict[str, str]:
    """Each method's provenance label (several joined by '+' when its rows disagree)."""
    methods = sorted(frame["method"].astype(str).unique())
    if "provenance" not in frame.columns:
        return {m: "unlabelled" for m in methods}
    labels = {}
    for method, values in frame.groupby(frame["method"].astype(str))["provenance"]:
        found = sorted({str(v) for v in values.dropna().unique()})
        labels[method] = "+".join(found) if found else "harness_tuned"
    return {m: labels.get(m, "harness_tuned") for m in methods}


LABEL_MEANINGS = {"upstream_default": "the method's released defaults",
                  "author_blessed": "supplied or approved by the method's authors",
                  "harness_tuned": "chosen by the benchmark's maintainers"}


def label_note(provenance: Mapping[str, str], methods: Iterable[str] | None = None) -> str:
    """The footnote a comparison between differently labelled methods carries ('' when the methods
    compared share one label): which method has which label and what each label means."""
    shown = {m: provenance.get(m, "harness_tuned") for m in (provenance if methods is None else methods)}
    labels = sorted(set(shown.values()))
    if len(labels) < 2:
        return ""
    groups = "; ".join(f"{label} ({LABEL_MEANINGS.get(label, 'mixed')}): "
                       + ", ".join(sorted(m for m, own in shown.items() if own == label)) for label in labels)
    return f"Note: differently labelled configurations are compared here. {groups}. See docs/fairness.md."


def check_methods(frame: pd.DataFrame, names, where: str = "") -> None:
    """Refuse a method name the frame does not hold, naming the ones it does (``where`` says in
    which option the name was given)."""
    known = sorted(frame["method"].astype(str).unique())
    unknown = list(dict.fromkeys(n for n in names if n not in known))
    if unknown:
        raise ReportInputError(f"unknown method {', '.join(map(repr, unknown))}{where}; known: {', '.join(known)}")


def confirmatory_pairs(frame: pd.DataFrame, pairs=(), versus: str | None = None) -> list[tuple[str, str]]:
    """The declared confirmatory family: ``pairs`` of method labels, plus every method against the
    baseline ``versus``; each pair once, in sorted order. Checked against the frame, because a
    misspelt label would otherwise quietly leave its pair in the exploratory family."""
    pairs = [tuple(str(name) for name in pair) for pair in pairs or ()]
    if any(len(pair) != 2 for pair in pairs):
        raise ReportInputError("a confirmatory comparison is a pair of two method labels")
    check_methods(frame, [name for pair in pairs for name in pair] + ([versus] if versus is not None else []),
                  " in the confirmatory comparisons")
    for a, b in pairs:
        if a == b:
            raise ReportInputError(f"a confirmatory comparison needs two different methods, got {a!r} twice")
    if versus is not None:
        pairs += [(versus, m) for m in sorted(frame["method"].astype(str).unique()) if m != versus]
    return sorted({tuple(sorted(pair)) for pair in pairs})


def check_metrics(frame: pd.DataFrame, names) -> None:
    """Refuse a metric the frame has no column for, naming the ones it has."""
    known = metric_columns(frame)
    unknown = [n for n in names if n not in known]
    if unknown:
        hints = [metric_hint(n, known) for n in unknown]
        raise ReportInputError(f"no metric {', '.join(map(repr, unknown))} in the scored predictions"
                               + "".join(h for h in hints if h) + f"; metrics: {', '.join(known)}")


def metric_hint(name: str, known) -> str:
    """What to do about an unknown metric: SRBench's metrics come from their own pass; else a
    close name."""
    if str(name).startswith("srbench_"):
        return f"; {name} comes from SRBench's checks: run srbf score --srbench first"
    return did_you_mean(str(name), known)


def same_adapter_pairs(frame: pd.DataFrame) -> list[tuple[str, str]]:
    """The pairs of method labels that are two entries of one adapter (ablations, sweep points,
    repeats under two names): the same ``adapter`` (a built-in's name, a method file's path), or,
    in a frame without that column, the same ``method_name`` (the variants of one sweep). Seed 000
    compares them at the same configuration, not at equal time (``srbf.stats.analyze``)."""
    methods = frame["method"].astype(str)
    key = next((c for c in ("adapter", "method_name") if c in frame.columns), None)
    if key is None:
        return []
    owners: dict[str, set] = {}
    for method, value in zip(methods.tolist(), frame[key].tolist()):
        if isinstance(value, str) and value:
            owners.setdefault(value, set()).add(method)
    pairs = set()
    for members in owners.values():
        listed = sorted(members)
        pairs.update((a, b) for i, a in enumerate(listed) for b in listed[i + 1:])
    return sorted(pairs)


def budget_units(frame: pd.DataFrame) -> dict[str, str | None]:
    """What each method's budget counts (its ``budget_knob``: "generations", "candidate formulas"),
    None where the results do not say: the label of its budget axis."""
    methods = sorted(frame["method"].astype(str).unique())
    if "budget_knob" not in frame.columns:
        return {m: None for m in methods}
    found = frame.dropna(subset=["budget_knob"]).groupby(frame["method"].astype(str))["budget_knob"].first()
    return {m: (str(found[m]) if m in found.index else None) for m in methods}
