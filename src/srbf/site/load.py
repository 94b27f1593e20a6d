"""The explorer's input: every scored prediction of a results store, all data conditions at once
(``srbf analyze`` reads one; the explorer lets the reader switch between them)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd

from srbf.report.data import DEFAULT_RESULTS, ReportInputError, load_long_frame, read_configs, require_scores


def load_results(results: str | Path | None = None, conditions=(), notes: list | None = None,
                 configs=("latest",)) -> pd.DataFrame:
    """The long frame of the store at ``results``: the ``conditions`` named (each checked, as
    ``srbf analyze --condition`` checks it), or every condition the store holds; of the
    configurations ``configs`` chooses (``srbf.report.data.read_configs``)."""
    from srbf.judge import JUDGE_VERSION
    from srbf.store import ResultsStore, metrics_long_frame, resolve_path

    root = DEFAULT_RESULTS if results is None else results
    if conditions:
        said: list[str] = []
        frames = [load_long_frame(root, condition=c, notes=said, configs=configs) for c in dict.fromkeys(conditions)]
        if notes is not None:
            notes.extend(dict.fromkeys(said))  # each condition's read names the same configurations
        return pd.concat(frames, ignore_index=True)
    path = resolve_path(root)
    if not Path(path).is_file():
        raise ReportInputError(f"no results store at {path} (run something first, or pass --results DIR)")
    with ResultsStore.open_readonly(root) as store, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = metrics_long_frame(store, judge_version=JUDGE_VERSION)
        frame, chosen = read_configs(store, frame, configs)
    if notes is not None:
        notes.extend(str(w.message) for w in caught)
        notes.extend(filter(None, [chosen]))
    return require_scores(frame, root)
