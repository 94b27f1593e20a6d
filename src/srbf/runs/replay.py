"""Fits rebuilt from their stored rows: seeds re-derived, points re-drawn, methods re-run.

A prediction row holds its fit's whole key; its campaign holds the run's settings (catalogs,
sampling, seed) and the variant's (method, options, budgets, conditions); the store holds the
secret the method seed was derived under. From these alone, everything a fit was made from
follows, so a row can be checked against what it claims:

- ``Rows.problem`` recomputes what needs no method: the run seed (a public config's, or a sealed
  run's from the secret), that the key lies in the run (its method, budget, condition, draw,
  repeat and problem), and the data hash of the points re-drawn from the key. ``srbf merge``
  refuses a shard with a row that disagrees, naming the row.
- ``replay`` re-runs the fit of a row of a deterministic method (``DETERMINISTIC``: same points,
  same seed, same formula) with its method seed re-derived from the row's key, for
  ``srbf merge --verify K`` and for anyone who wants to reproduce a stored fit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from srbf.core import FitResult, SrbfError, canonical_budget
from srbf.methods.boundary import Limits
from srbf.runs.config_fields import SEALED
from srbf.runs.problems import ProblemSource, fit_task
from srbf.runs.sealed import sealed_seed
from srbf.runs.sweeps import canonical_json
from srbf.runs.worker_spec import WorkerSpec

__all__ = ["DETERMINISTIC", "ReplayError", "Rows", "StoredCampaign", "describe", "replay", "replayable", "spec_of"]

# Built-ins whose formula follows from the points, the budget and the seed alone (no clock):
# prior's draws depend only on its seed, enumeration's search only on its size bound.
DETERMINISTIC = ("linear", "prior", "enumeration")


class ReplayError(SrbfError):
    """A row that cannot be rebuilt (its campaign or catalog is missing); one line."""


@dataclass(frozen=True)
class StoredCampaign:
    """What a campaign row says about the fits that point to it: the run's settings and the variant's."""

    id: int
    config_hash: str
    run: Mapping[str, Any]
    variant: Mapping[str, Any]

    @classmethod
    def from_row(cls, row: Any) -> StoredCampaign:
        config = row.config if isinstance(row.config, Mapping) else {}
        run, variant = config.get("run"), config.get("variant")
        return cls(int(row.id), str(row.config_hash), run if isinstance(run, Mapping) else {},
                   variant if isinstance(variant, Mapping) else {})

    def run_seed(self, secret: bytes | None) -> int | None:
        """The seed the run drew with: the config's, or a sealed run's from the store's secret."""
        seed = self.run.get("seed")
        if seed == SEALED:
            return None if secret is None else sealed_seed(secret)
        return seed if isinstance(seed, int) and not isinstance(seed, bool) else None

    @property
    def sampling(self) -> Mapping[str, Any]:
        sampling = self.run.get("sampling")
        return sampling if isinstance(sampling, Mapping) else {}


def describe(row: Any) -> str:
    """A row as a message names it: its id and key."""
    text = (f"prediction {row.id} ({row.method} on {row.catalog}/{row.problem_id}, draw {row.draw}, "
            f"budget {canonical_budget(row.budget)}, {row.condition}")
    return text + (f", repeat {row.repeat})" if row.repeat else ")")


class Rows:
    """Checks the rows of one store against what can be recomputed; holds the catalogs and draws
    it loaded, so the rungs and repeats of a draw are drawn once."""

    def __init__(self, campaigns: Iterable[Any], secret: bytes | None):
        self.campaigns = {c.id: c for c in map(StoredCampaign.from_row, campaigns)}
        self.secret = secret
        self.source = ProblemSource(cache_size=64)
        self._catalogs: dict[str, Any] = {}

    def _catalog(self, ref: str):
        """The catalog ``ref`` names, loaded once per ``Rows``."""
        from srbf.catalogs.loader import load_catalog

        if ref not in self._catalogs:
            self._catalogs[ref] = load_catalog(ref)
        return self._catalogs[ref]

    def entry(self, campaign: StoredCampaign, row: Any):
        """The catalog entry of ``row`` (ReplayError when it cannot be found at the row's version)."""
        for ref in campaign.run.get("catalogs") or ():
            try:
                catalog = self._catalog(str(ref))
            except Exception:  # noqa: BLE001 - a catalog this machine cannot load is named below
                continue
            if catalog.name == row.catalog:
                if catalog.version != row.catalog_version:
                    raise ReplayError(f"catalog {row.catalog} is at version {catalog.version} here, the row's is "
                                      f"{row.catalog_version}: its points cannot be re-drawn")
                if str(row.problem_id) not in self._selected(campaign, str(ref), catalog):
                    raise ReplayError(f"its problem {row.problem_id!r} is not one the run selected from {row.catalog}")
                return catalog.entry(str(row.problem_id))
        raise ReplayError(f"catalog {row.catalog!r} is not among the run's catalogs, or cannot be loaded here")

    @staticmethod
    def _selected(campaign: StoredCampaign, ref: str, catalog) -> frozenset[str]:
        """The ids the run selected from ``catalog`` (as ``RunConfig.select``: its ``problems``
        for the catalog, else all, then the first ``limit``)."""
        chosen = (campaign.run.get("problems") or {}).get(ref)
        wanted = None if chosen is None else set(chosen)
        ids = [e.id for e in catalog.entries if wanted is None or e.id in wanted]
        limit = campaign.run.get("limit")
        return frozenset(ids if limit is None else ids[: int(limit)])

    def draw(self, campaign: StoredCampaign, row: Any, entry):
        from srbf.store import parse_condition

        n_support, noise = parse_condition(str(row.condition))
        return self.source.draw(entry, catalog=str(row.catalog), catalog_version=int(row.catalog_version),
                                seed=int(row.seed), draw=int(row.draw), n_support=n_support, noise=noise,
                                n_validation=int(campaign.sampling.get("n_validation", 512)),
                                ood=bool(campaign.sampling.get("ood", False)))  # fmt: skip

    def problem(self, row: Any) -> str | None:
        """What about ``row`` disagrees with what its campaign, the secret and a re-draw say; None
        when nothing does."""
        campaign = self.campaigns.get(int(row.campaign_id))
        if campaign is None:
            return f"its campaign {row.campaign_id} is not in the store"
        variant, run = campaign.variant, campaign.run
        seed = campaign.run_seed(self.secret)
        if seed is None or row.seed != seed:
            return "its seed is not the run's seed"
        if row.method != variant.get("method") or row.config_hash != campaign.config_hash:
            return f"its method {row.method!r} / configuration {row.config_hash} is not its campaign's"
        if canonical_budget(row.budget) not in {canonical_budget(b) for b in variant.get("budgets") or ()}:
            return f"its budget {canonical_budget(row.budget)} is not on the method's ladder"
        if row.condition not in (variant.get("conditions") or ()):
            return f"its condition {row.condition!r} is not one of the run's"
        if not 0 <= int(row.draw) < int(campaign.sampling.get("draws", 0)):
            return f"its draw {row.draw} is not one of the run's {campaign.sampling.get('draws')}"
        if not 0 <= int(row.repeat) < int(run.get("repeats", 1)):
            return f"its repeat {row.repeat} is not one of the run's {run.get('repeats', 1)}"
        try:
            entry = self.entry(campaign, row)
            problem = self.draw(campaign, row, entry)
        except ReplayError as exc:
            return str(exc)
        except Exception as exc:  # noqa: BLE001 - a draw the sampler refuses cannot match a stored one
            if row.status == "placeholder" and not row.data_hash:  # sampling failed then as it does now
                return None
            return f"its points cannot be re-drawn ({type(exc).__name__}: {exc})"
        if problem.data_hash != row.data_hash:
            return "its data hash is not the hash of the points re-drawn from its key"
        return None


def replay(rows: Rows, row: Any, *, worker=None) -> FitResult:
    """The fit of ``row`` run again from the row alone: the same points (re-drawn), the same
    method seed (re-derived from the row's key under the store's secret), the same options and
    budget. The row's method must be a deterministic built-in (``DETERMINISTIC``). ``worker``: a
    started worker of the row's spec to reuse (``spec_of``), else one is started and stopped."""
    from srbf.methods.isolation import method_seed
    from srbf.runs.executor import new_worker
    from srbf.store import row_key

    campaign = rows.campaigns[int(row.campaign_id)]
    spec = spec_of(campaign)
    entry = rows.entry(campaign, row)
    problem = rows.draw(campaign, row, entry)
    key = row_key(row)
    task = fit_task(key, problem, spec, entry.formula, float(campaign.variant.get("time_limit", 600.0)),
                    method_seed(rows.secret or b"", key))
    own = worker is None
    if own:
        worker = new_worker(spec, start_timeout=600.0, tail_bytes=4096)
        worker.start()
    try:
        return worker.fit(task)
    finally:
        if own:
            worker.close()


def spec_of(campaign: StoredCampaign) -> WorkerSpec:
    """The worker a campaign's deterministic built-in ran in, rebuilt from the stored variant."""
    from srbf.methods.builtin import path_of

    variant = campaign.variant
    adapter = variant.get("adapter") or {}
    if adapter.get("type") != "builtin" or adapter.get("name") not in DETERMINISTIC:
        raise ReplayError(f"method {variant.get('method')!r} is not a deterministic built-in "
                          f"({', '.join(DETERMINISTIC)}): its fits cannot be replayed exactly")
    env = variant.get("env") or {}
    return WorkerSpec(label=str(variant.get("label")), method_file=str(path_of(adapter["name"])),
                      python=variant.get("python"), options_json=canonical_json(variant.get("options") or {}),
                      env=tuple(sorted(env.items())), sees_truth=False, limits=Limits())


def replayable(campaign: StoredCampaign) -> bool:
    """Whether the campaign's fits can be replayed exactly (a deterministic built-in)."""
    adapter = campaign.variant.get("adapter") or {}
    return adapter.get("type") == "builtin" and adapter.get("name") in DETERMINISTIC
