"""The judge: per-prediction metrics, one code path for every method and every run.

- ``score(truth, prediction, data, *, variables=None, srbench=False)`` -> dict of metrics;
- ``score_many(truth, predictions, data, ...)`` and ``Judge(truth, data, ...)``, which prepare
  the truth once and score many predictions (SRBench's SymPy check in parallel);
- ``judge_from_files(truth, prediction, data_path, variables=None, srbench=False)`` for the
  command line, raising ``JudgeInputError`` for bad input; ``format_metrics`` prints a result;
- ``JUDGE_VERSION`` travels with every stored metric.

docs/metrics.md defines every metric, its direction and its failure rule.
"""

from srbf.core import lazy_attributes
from srbf.judge.metric_keys import (
    AXIS_KEYS,
    COMPARISON_KEYS,
    FIT_KEYS,
    JUDGE_VERSION,
    LENGTH_KEYS,
    METRIC_KEYS,
    OVERLAP_KEYS,
    RATE_KEYS,
    SRBENCH_KEYS,
)

# the scoring code (SymPy, mpmath) on first use: reading stored metrics needs only their vocabulary
_EXPORTS = {
    "JudgeData": "srbf.judge.data",
    "JudgeInputError": "srbf.judge.data",
    "format_metrics": "srbf.judge.display",
    "jsonable": "srbf.judge.display",
    "fvu": "srbf.judge.fit",
    "judge_from_files": "srbf.judge.from_files",
    "Judge": "srbf.judge.scoring",
    "score": "srbf.judge.scoring",
    "score_many": "srbf.judge.scoring",
}

__all__ = [
    "AXIS_KEYS",
    "COMPARISON_KEYS",
    "FIT_KEYS",
    "JUDGE_VERSION",
    "Judge",
    "JudgeData",
    "JudgeInputError",
    "LENGTH_KEYS",
    "METRIC_KEYS",
    "OVERLAP_KEYS",
    "RATE_KEYS",
    "SRBENCH_KEYS",
    "format_metrics",
    "fvu",
    "judge_from_files",
    "jsonable",
    "score",
    "score_many",
]

__getattr__ = lazy_attributes(__name__, _EXPORTS)
