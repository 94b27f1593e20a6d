"""The results store: every fit's raw prediction, its search trajectory, and the judge's metrics.

One SQLite file (WAL mode) per results root, ``./srbf-results/srbf.sqlite`` by default. The
driver is its only writer and commits the fits as they arrive (those finishing within 50 ms of
each other in one transaction); any number of readers (other processes too) may read at the same
time. See docs/store.md for the tables and how to query them.

    store = ResultsStore("runs/2024-feynman")
    campaign = store.start_campaign("feynman-pysr", config, config_hash, "upstream_default")
    for key in planned_keys - store.done_keys(config_hash):
        store.record(key, fit(key), campaign_id=campaign, data_hash=hash_of_points)
    frame = ResultsStore.open_readonly("runs/2024-feynman").predictions_frame(method="pysr")
    long = metrics_long_frame("runs/2024-feynman", judge_version="1.1")  # predictions joined with metrics
"""

from __future__ import annotations

from srbf.core import lazy_attributes

# pandas loads with the first frame, not with the package
_EXPORTS = {
    "DEFAULT_ROOT": "srbf.store.connection",
    "STORE_FILENAME": "srbf.store.connection",
    "resolve_path": "srbf.store.connection",
    "DuplicateKeyWarning": "srbf.store.errors",
    "StoreError": "srbf.store.errors",
    "metrics_long_frame": "srbf.store.long_frame",
    "parse_condition": "srbf.store.long_frame",
    "ResultsStore": "srbf.store.results",
    "Fit": "srbf.store.rows",
    "row_key": "srbf.store.rows",
    "ShardInfo": "srbf.store.shard_table",
    "KEY_COLUMNS": "srbf.store.schema",
    "PROVENANCES": "srbf.store.schema",
    "SCHEMA_VERSION": "srbf.store.schema",
    "Configuration": "srbf.store.configurations",
    "ConfigurationError": "srbf.store.configurations",
    "Selection": "srbf.store.configurations",
    "select_configurations": "srbf.store.configurations",
    "MergeError": "srbf.store.merge",
    "MergeReport": "srbf.store.merge",
    "merge_stores": "srbf.store.merge",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_attributes(__name__, _EXPORTS)
