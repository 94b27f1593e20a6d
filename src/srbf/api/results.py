"""``srbf.open``: a results store as DataFrames, read with the functions the commands use.

A :class:`Results` is a store plus a narrowing (``where``: methods, sets, one data condition,
which configurations). Every reading goes through the commands' own code: the long frame of
``srbf.report.data`` (configurations chosen by ``srbf.store.configurations``, the rule of
``--configs``), the reading of ``srbf.stats.reading`` (time marks or each method's largest
budget, the same choice ``srbf analyze``, ``compare`` and ``site build`` make), the analysis of
``srbf.report.readings``, the records of ``srbf.report.terminal``, ``build_report`` and
``build_site``. So a leaderboard or a verdict read here equals the one the command prints for the
same store, condition and configurations. Notes the commands print (configurations set aside,
the reading chosen) are printed the same way, on stderr.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from srbf.core import DEFAULT_RESULTS

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Results", "open_results"]

FIT_COLUMNS = ("method", "method_name", "config_hash", "provenance", "catalog", "catalog_version", "problem_id",
               "draw", "budget", "condition", "seed", "repeat", "status", "expression", "error", "wall_seconds",
               "cpu_seconds", "method_seconds", "peak_memory_bytes", "from_trajectory", "created_at")


def _names(value: str | Sequence[str] | None) -> tuple[str, ...] | None:
    return None if value is None else ((value,) if isinstance(value, str) else tuple(value))


def _times(at_seconds: float | Sequence[float] | None) -> list[float] | None:
    """Time marks as the commands' ``--at-seconds`` gives them: None, or a list of seconds."""
    if at_seconds is None:
        return None
    return [float(at_seconds)] if isinstance(at_seconds, (int, float)) else [float(t) for t in at_seconds]


def _say(lines) -> None:
    for line in lines:
        print(f"srbf: note: {line}", file=sys.stderr)


@dataclass(frozen=True)
class Results:
    """A results store, narrowed. Make one with ``srbf.open(path_or_config)``.

    ``methods`` and ``catalogs`` (None: all) narrow every frame and analysis; ``condition`` is the
    data condition analysed (e.g. ``n_support=512;noise=0``; needed when the store holds several);
    ``configs`` chooses the configurations of each method: ``"latest"`` (the newest of each),
    ``"all"`` (older ones as ``METHOD@HASH``) or hashes, as ``--configs`` does.
    """

    root: str
    methods: tuple[str, ...] | None = None
    catalogs: tuple[str, ...] | None = None
    condition: str | None = None
    configs: tuple[str, ...] = ("latest",)

    def where(self, *, method: str | Sequence[str] | None = None, catalog: str | Sequence[str] | None = None,
              condition: str | None = None, configs: str | Sequence[str] | None = None) -> Results:
        """A narrowed copy: only these methods (labels) and sets, this condition, these configurations."""
        changes: dict[str, Any] = {}
        if method is not None:
            changes["methods"] = _names(method)
        if catalog is not None:
            changes["catalogs"] = _names(catalog)
        if condition is not None:
            changes["condition"] = condition
        if configs is not None:
            changes["configs"] = _names(configs) or ("latest",)
        return replace(self, **changes)

    # --- frames ---------------------------------------------------------------------------------

    def _narrow(self, frame: pd.DataFrame) -> pd.DataFrame:
        from srbf.report.data import ReportInputError

        for column, wanted in (("method", self.methods), ("catalog", self.catalogs)):
            if wanted is None:
                continue
            held = set(frame[column].astype(str))
            unknown = [w for w in wanted if w not in held]
            if unknown:
                raise ReportInputError(f"where({column}=...): {', '.join(map(repr, unknown))} not in the results "
                                       f"read; they hold {', '.join(sorted(held)) or 'nothing'}")
            frame = frame[frame[column].astype(str).isin(wanted)]
        return frame.reset_index(drop=True)

    def metrics(self) -> pd.DataFrame:
        """One row per scored fit (every condition, unless ``where(condition=)`` chose one): the
        key (``method`` label, ``method_name``, ``config_hash``, ``catalog``, ``problem_id``,
        ``draw``, ``budget``, ``condition``, ``n_support``, ``noise``, ``seed``, ``repeat``), the
        fit (``status``, ``expression``, ``seconds``, ``provenance``, ...) and one column per
        metric of the current judge (docs/metrics.md): the long frame every analysis reads."""
        from srbf.site.load import load_results

        notes: list[str] = []
        frame = load_results(self.root, (self.condition,) if self.condition else (), notes, configs=self.configs)
        _say(notes)
        return self._narrow(frame)

    def fits(self) -> pd.DataFrame:
        """One row per stored fit, scored or not, failed ones included (``FIT_COLUMNS``: the key,
        ``status``, ``expression``, ``error``, the times measured by srbf, peak memory)."""
        from srbf.store.configurations import select_configurations

        filters = {} if self.condition is None else {"condition": self.condition}
        with _open(self.root) as store:
            selection = select_configurations(store.configurations(), self.configs)
            frame = store.predictions_frame(**filters)
        _say(filter(None, [selection.note()]))
        frame = frame.assign(method_name=frame["method"])
        frame = selection.apply(frame, method="method_name", label="method")
        return self._narrow(frame[[c for c in FIT_COLUMNS if c in frame.columns]])

    def _analysed(self) -> tuple[pd.DataFrame, Any]:
        """The long frame of one condition (``srbf.report.data.load_long_frame``) and the time axis
        of the store's timing readout, when it has one: what ``srbf analyze`` and ``compare`` read."""
        from srbf.report.data import load_long_frame
        from srbf.stats.timing_readout import stored_readout

        notes: list[str] = []
        try:
            frame = load_long_frame(self.root, condition=self.condition, notes=notes, configs=self.configs)
        except ValueError as error:
            raise type(error)(str(error).replace("with --condition", "with .where(condition=...)")) from None
        _say(notes)
        return self._narrow(frame), stored_readout(self.root)

    def _reading(self, frame, timing, at_seconds, at_budget):
        from srbf.report.readings import reading_of

        chosen = reading_of(frame, times=_times(at_seconds), at_budget=at_budget,
                            time_axis=None if timing is None else timing.frame)
        print(f"srbf: {chosen.line}", file=sys.stderr)
        return chosen

    # --- the analyses ---------------------------------------------------------------------------

    def leaderboard(self, metrics: Sequence[str] | None = None, *, at_seconds: Sequence[float] | None = None,
                    at_budget: str | None = None, statistic: str = "meta") -> pd.DataFrame:
        """The leaderboard ``srbf analyze`` writes (tables/leaderboard.csv): each method's value of
        each metric at each mark of the reading (default: chosen from the data, as the commands do)."""
        from srbf.report.readings import choose_metrics, leaderboard_table

        frame, timing = self._analysed()
        chosen = self._reading(frame, timing, at_seconds, at_budget)
        times = _times(at_seconds)
        return leaderboard_table(frame, choose_metrics(frame, metrics), times=times, statistic=statistic,
                                 reading=chosen, time_axis=None if timing is None else timing.frame)

    def compare(self, a: str, b: str, metrics: Sequence[str] | None = None, *,
                at_seconds: Sequence[float] | None = None, at_budget: str | None = None, statistic: str = "meta",
                confirmatory: Sequence[tuple[str, str]] = ()) -> pd.DataFrame:
        """``srbf compare A B``: Δ = a − b with its interval, margin and verdict, per metric and mark
        (the columns of ``srbf compare --json``)."""
        import pandas as pd

        from srbf.report.terminal import COMPARE_FIELDS, compare

        frame, timing = self._analysed()
        chosen = self._reading(frame, timing, at_seconds, at_budget)
        times = _times(at_seconds)
        records = compare(frame, a, b, metrics=metrics, times=times, statistic=statistic, confirmatory=confirmatory,
                          reading=chosen, time_axis=None if timing is None else timing.frame)
        return pd.DataFrame(records, columns=list(COMPARE_FIELDS))

    def ranks(self, metric: str | None = None, *, at_seconds: Sequence[float] | None = None,
              budget: float | None = None, statistic: str = "meta") -> pd.DataFrame:
        """``srbf ranks``: one row per mark and method, with its mean rank, CD groups, and the mark's
        Friedman test (``friedman_statistic``, ``p_value``, ``cd``, ``significant``)."""
        import pandas as pd

        from srbf.report.terminal import ranks

        frame, _ = self._analysed()
        times = _times(at_seconds)
        result = ranks(frame, metric, times=times, budget=budget, statistic=statistic)
        rows = [{"metric": result["metric"], **{k: v for k, v in mark.items() if k not in ("methods", "groups")},
                 "rank": i + 1, **entry}
                for mark in result["marks"] for i, entry in enumerate(mark["methods"])]
        return pd.DataFrame(rows)

    def report(self, out: str | Path = "report", *, at_seconds: float | Sequence[float] | None = None,
               at_budget: str | None = None, **options: Any):
        """Write the report ``srbf analyze`` writes into ``out``; ``options`` are ``build_report``'s
        (``metrics``, ``statistic``, ``confirmatory``, ``show_incomplete``, ...). Returns the
        ``Report`` (``.index``: index.md)."""
        from srbf.report.build import build_report
        from srbf.store.configurations import select_configurations

        frame, timing = self._analysed()
        chosen = self._reading(frame, timing, at_seconds, at_budget)
        with _open(self.root) as store:  # the stack behind the configurations read, as srbf analyze shows it
            kept = select_configurations(store.configurations(), self.configs).kept
            stack = store.stack_frame(condition=self.condition, config_hash=sorted({h for _, h in kept}))
        return build_report(frame, out, times=_times(at_seconds), source=self.root, stack=stack, timing=timing,
                            reading=chosen, **options)

    def site(self, out: str | Path = "site", *, at_seconds: float | Sequence[float] | None = None,
             at_budget: str | None = None, **options: Any):
        """Build the results explorer ``srbf site build`` builds into ``out`` (every condition,
        unless ``where(condition=)`` chose one); ``options`` are ``build_site``'s (``metrics``,
        ``statistic``, ``confirmatory``, ``per_set``). Returns the ``Site`` (``.index``: index.html)."""
        from srbf.site.build import build_site
        from srbf.stats.timing_readout import stored_readout

        frame = self.metrics()
        return build_site(frame, out, times=_times(at_seconds), at_budget=at_budget, source=self.root,
                          timing=stored_readout(self.root),
                          on_reading=lambda chosen: print(f"srbf: {chosen.line}", file=sys.stderr), **options)

    # --- in Jupyter -----------------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """What the store holds: its configurations (label, hash, fits, read or set aside), fits by
        status, and data conditions."""
        from srbf.store.configurations import select_configurations

        with _open(self.root) as store:
            configurations = store.configurations()
            conditions = sorted(store.predictions_frame(decode_json=False)["condition"].astype(str).unique())
        selection = select_configurations(configurations, self.configs)
        rows = [{"method": selection.kept.get(c.key, c.label), "config_hash": c.config_hash[:8], "fits": c.fits,
                 **dict(c.statuses), "read": c.key in selection.kept} for c in configurations]
        return {"root": self.root, "configurations": rows, "conditions": conditions}

    def _repr_html_(self) -> str:
        import html

        import pandas as pd

        info = self.summary()
        rows = pd.DataFrame(info["configurations"])
        counts = [c for c in rows.columns if c not in ("method", "config_hash", "read")]  # fits, then by status
        rows[counts] = rows[counts].fillna(0).astype(int)
        table = rows.to_html(index=False)
        narrowed = ", ".join(f"{k}={v!r}" for k, v in (("method", self.methods), ("catalog", self.catalogs),
                                                        ("condition", self.condition)) if v)
        return (f"<div><b>srbf results</b> at <code>{html.escape(str(info['root']))}</code>"
                f"{' (' + html.escape(narrowed) + ')' if narrowed else ''}; configurations read: "
                f"{html.escape(' '.join(self.configs))}<br>conditions: "
                f"{html.escape('; '.join(info['conditions']) or 'none')}{table}</div>")

    def __repr__(self) -> str:
        return (f"Results({self.root!r}, methods={self.methods}, catalogs={self.catalogs}, "
                f"condition={self.condition!r}, configs={self.configs})")


def _open(root: str):
    from srbf.report.data import ReportInputError
    from srbf.store import ResultsStore, resolve_path

    if not Path(resolve_path(root)).is_file():
        raise ReportInputError(f"no results store at {resolve_path(root)} (run something first)")
    return ResultsStore.open_readonly(root)


def open_results(results: str | Path = DEFAULT_RESULTS) -> Results:
    """A results store to read: a results directory or store file, or a run config (a file, or a
    shipped config's name) whose ``results:`` names it, by the rule the commands follow."""
    from srbf.store import resolve_path

    from srbf.runs.shipped import config_path, results_of

    text = str(results)
    if text.endswith((".yaml", ".yml")) or str(config_path(text)) != text:  # a config file, or a shipped config's name

        text = results_of(text)
    if not Path(resolve_path(text)).is_file():
        from srbf.report.data import ReportInputError

        raise ReportInputError(f"no results store at {resolve_path(text)} (run something first, e.g. srbf.evaluate)")
    return Results(text)
