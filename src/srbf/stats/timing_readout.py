"""The timing readout: per method and budget, how long a fit takes on the frozen subset.

``read_timing(DIR)`` reads the subset frozen in DIR and the fits its timing run recorded
(``srbf.runs.timing_run``) and returns a ``Readout``. Per method and budget:

- the success rate: the share of fits that returned a formula, each set's rate combined across
  sets with random-effects weights on the logit scale, as every rate srbf shows;
- the mean fit time: each set's mean over its successful fits, combined across sets with
  random-effects weights (``meta.combine_sets``), with its 95 % interval; a failed fit is not
  timed (it counts in the success rate only);
- the median fit time, each set weighted as in the mean (``median.set_weighted_median``);
- whether the rung is complete: every set has a record for every one of its problems. Only a
  complete rung is placed on the time axis (``Readout.time_axis``), at its mean time.

Times are only comparable on one machine: a store whose campaigns were measured on machines that
differ (host, CPU, cores, memory) is refused, as is one measured on another freezing of the subset.
``readout_time_axis`` is what the report and the site call to put the readout's times on their
time axis (and say so); ``find_subset`` finds a subset frozen into ``<results>/timing``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from srbf.runs.timing_machine import machine_identity
from srbf.runs.timing_subset import MANIFEST, Subset, TimingError, load_subset
from srbf.stats.median import set_weighted_median
from srbf.stats.meta import combine_sets

__all__ = ["Readout", "TimeAxisSource", "find_subset", "read_timing", "readout_rows", "readout_time_axis"]

DEFAULT_SUBSET_DIR = "timing"  # <results>/timing: where the report and the site look for a subset


@dataclass
class Readout:
    """A timing run's readout: the table (one row per method and budget) and what it was measured on."""

    subset: Subset
    machine: dict[str, Any]
    rows: pd.DataFrame
    methods: pd.DataFrame  # per method label: load before its first fit and after its last, when measured

    def time_axis(self) -> pd.DataFrame:
        """(method, budget, seconds) of the complete rungs, at their mean time: ``analyze``'s ``time_axis``."""
        placed = self.rows[self.rows["complete"] & np.isfinite(self.rows["mean_seconds"])]
        return placed.rename(columns={"mean_seconds": "seconds"})[["method", "budget", "seconds"]].reset_index(drop=True)

    def note(self) -> str:
        """One line naming where the time axis comes from."""
        m = self.machine
        return (f"the time axis is the timing readout of {self.subset.directory} ({len(self.subset.problems)} problems "
                f"in {len(self.subset.set_sizes())} sets, {m.get('cpu_model')}, {m.get('usable_cores')} cores): "
                "each complete rung at its mean fit time, methods without one are n/a at every time mark")


@dataclass(frozen=True)
class TimeAxisSource:
    """What the report and the site receive: the time axis frame and the line that says where it is from."""

    frame: pd.DataFrame
    note: str


def readout_rows(fits: pd.DataFrame, set_sizes: dict[str, int]) -> pd.DataFrame:
    """The readout table from one row per fit (columns method, budget, catalog, problem_id, ok,
    seconds) and the subset's problems per set. Pure: tested against hand-computed values."""
    columns = ["method", "budget", "problems", "recorded", "ok", "success_rate", "median_seconds", "mean_seconds",
               "ci_low", "ci_high", "n_sets", "complete"]
    rows = []
    total = sum(set_sizes.values())
    for (method, budget), group in fits.groupby(["method", "budget"], sort=True):
        by_set = {name: g for name, g in group.groupby("catalog", sort=False)}
        recorded = {name: g["problem_id"].nunique() for name, g in by_set.items()}
        complete = all(recorded.get(name, 0) >= n for name, n in set_sizes.items())
        success = combine_sets({name: g["ok"].astype(float).to_numpy() for name, g in by_set.items()}, scale="logit")
        timed = {name: g.loc[g["ok"], "seconds"].to_numpy(dtype=float) for name, g in by_set.items()}
        timed = {name: s[np.isfinite(s)] for name, s in timed.items()}
        timed = {name: s for name, s in timed.items() if s.size}
        mean = low = high = median = np.nan
        n_sets = 0
        if timed:
            combined = combine_sets(timed, scale="identity")
            mean, low, high, n_sets = combined["estimate"], combined["ci_low"], combined["ci_high"], combined["n_sets"]
            names = list(timed)
            codes = np.concatenate([np.full(timed[n].size, i) for i, n in enumerate(names)])
            weights = np.array([combined["weights"].get(n, np.nan) for n in names])
            median = set_weighted_median(np.concatenate([timed[n] for n in names]), codes, weights)
        rows.append({"method": method, "budget": float(budget), "problems": total, "recorded": int(sum(recorded.values())),
                     "ok": int(group["ok"].sum()), "success_rate": success["estimate"], "median_seconds": median,
                     "mean_seconds": mean, "ci_low": low, "ci_high": high, "n_sets": int(n_sets), "complete": complete})
    return pd.DataFrame(rows, columns=columns)


def read_timing(subset_dir: str | Path) -> Readout:
    """The readout of the timing run recorded in ``subset_dir``; TimingError (one line) when there
    is none, or when its fits come from two machines or another subset."""
    from srbf.store import ResultsStore, resolve_path

    subset = load_subset(subset_dir)
    path = resolve_path(subset.store)
    if not path.is_file():
        raise TimingError(f"{subset.directory}: no timing run recorded yet (srbf timing run -c CONFIG --subset "
                          f"{subset.directory})")
    with ResultsStore.open_readonly(path) as store:
        campaigns = store.campaigns_frame()
        predictions = store.predictions_frame()
    machine = _one_machine(campaigns, subset, path)
    labels = {int(c.id): str(c.config.get("variant", {}).get("label") or "") for c in campaigns.itertuples()}
    predictions = predictions[predictions["status"] != "placeholder"]
    keys = {(p.catalog, p.catalog_version, p.problem_id, p.draw) for p in subset.problems}
    found = set(zip(predictions["catalog"], predictions["catalog_version"], predictions["problem_id"], predictions["draw"]))
    foreign = (found - keys) or set(predictions["seed"]) - {subset.seed} or set(predictions["condition"]) - {subset.condition}
    if foreign:
        raise TimingError(f"{path}: holds fits that are not of the subset in {subset.directory} "
                          f"(e.g. {sorted(map(str, foreign))[0]}); a timing store holds its subset's fits only")
    fits = pd.DataFrame({
        "method": [labels.get(int(c)) or m for c, m in zip(predictions["campaign_id"], predictions["method"])],
        "budget": predictions["budget"].astype(float),
        "catalog": predictions["catalog"],
        "problem_id": predictions["problem_id"],
        "ok": predictions["status"].eq("ok"),
        "seconds": predictions["wall_seconds"].astype(float),
    })  # fmt: skip
    return Readout(subset, machine, readout_rows(fits, subset.set_sizes()), _method_facts(campaigns, predictions, labels))


def _one_machine(campaigns: pd.DataFrame, subset: Subset, path: Path) -> dict[str, Any]:
    """The one machine every campaign was measured on; TimingError for two, or for another subset."""
    machines: dict[tuple, dict] = {}
    for c in campaigns.itertuples():
        timing = c.config.get("timing") if isinstance(c.config, dict) else None
        if not isinstance(timing, dict):
            raise TimingError(f"{path}: campaign {c.id} is not a timing run (srbf run wrote it?); "
                              "a timing store holds timing runs only")
        if timing.get("subset_hash") != subset.hash:
            raise TimingError(f"{path}: campaign {c.id} timed another subset (hash {timing.get('subset_hash')}, "
                              f"this one is {subset.hash})")
        facts = timing.get("machine") or {}
        machines.setdefault(machine_identity(facts), facts)
    if len(machines) > 1:
        listed = "; ".join(f"{m.get('hostname')}: {m.get('cpu_model')}, {m.get('usable_cores')} cores, "
                           f"{_gib(m.get('memory_bytes'))}" for m in machines.values())
        raise TimingError(f"{path}: refused: the fits were measured on {len(machines)} machines ({listed}); "
                          "times compare on one machine only: time each machine on its own copy of the subset")
    if not machines:
        raise TimingError(f"{subset.directory}: no timing run recorded yet")
    return next(iter(machines.values()))


def _method_facts(campaigns: pd.DataFrame, predictions: pd.DataFrame, labels: dict[int, str]) -> pd.DataFrame:
    """Per method label: load average before its first recorded fit and after its last, first and last fit."""
    from srbf.runs.timing_run import TIMING_KEY  # here: timing_run loads the run driver, which analyze rarely needs

    rows = []
    for c in campaigns.itertuples():
        own = predictions[predictions["campaign_id"] == c.id]
        ends = [i.get(TIMING_KEY, {}) for i in own["internals"] if isinstance(i, dict)]
        ends = [t for t in ends if isinstance(t, dict) and "ended" in t]
        last = max(ends, key=lambda t: t["ended"]) if ends else {}
        rows.append({"method": labels.get(int(c.id)) or "?", "campaign_id": int(c.id), "fits": len(own),
                     "load_before": c.config["timing"].get("load_before"), "load_after": last.get("load"),
                     "first_start": min((t["started"] for t in ends), default=np.nan),
                     "last_end": last.get("ended", np.nan)})
    return pd.DataFrame(rows)


def _gib(value) -> str:
    return f"{value / 2**30:.1f} GiB" if isinstance(value, (int, float)) else "memory unknown"


def find_subset(results: str | Path | None) -> Path | None:
    """The subset frozen into ``<results>/timing`` (results: a results directory or store file), if any."""
    from srbf.store import resolve_path

    folder = resolve_path(results).parent / DEFAULT_SUBSET_DIR
    return folder if (folder / MANIFEST).is_file() else None


def stored_readout(results: str | Path | None) -> TimeAxisSource | None:
    """The time axis of the subset frozen into ``<results>/timing`` once its run has recorded fits,
    else None: what ``srbf analyze`` and ``srbf.open(...).leaderboard()`` place methods by."""
    from srbf.store import resolve_path

    folder = find_subset(results)
    if folder is None or not resolve_path(folder / "results").is_file():
        return None
    return readout_time_axis(folder)


def readout_time_axis(subset_dir: str | Path) -> TimeAxisSource:
    """The readout's time axis and its note, for ``srbf analyze`` and ``srbf site build``."""
    readout = read_timing(subset_dir)
    return TimeAxisSource(readout.time_axis(), readout.note())
