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

from srbf.store.connection import DEFAULT_ROOT, STORE_FILENAME, resolve_path
from srbf.store.errors import DuplicateKeyWarning, StoreError
from srbf.store.long_frame import metrics_long_frame, parse_condition
from srbf.store.results import ResultsStore
from srbf.store.rows import Fit, row_key
from srbf.store.shard_table import ShardInfo
from srbf.store.schema import KEY_COLUMNS, PROVENANCES, SCHEMA_VERSION

__all__ = [
    "DEFAULT_ROOT",
    "KEY_COLUMNS",
    "PROVENANCES",
    "SCHEMA_VERSION",
    "STORE_FILENAME",
    "DuplicateKeyWarning",
    "Fit",
    "ResultsStore",
    "ShardInfo",
    "StoreError",
    "metrics_long_frame",
    "parse_condition",
    "resolve_path",
    "row_key",
]
