"""The judge: per-prediction metrics, one code path for every method and every run.

- ``score(truth, prediction, data, *, variables=None, srbench=False)`` -> dict of metrics;
- ``score_many(truth, predictions, data, ...)`` and ``Judge(truth, data, ...)``, which prepare
  the truth once and score many predictions (SRBench's SymPy check in parallel);
- ``judge_from_files(truth, prediction, data_path, variables=None, srbench=False)`` for the
  command line, raising ``JudgeInputError`` for bad input; ``format_metrics`` prints a result;
- ``score_store(results, ...)`` scores a results store (``srbf score``);
- ``JUDGE_VERSION`` travels with every stored metric.

docs/metrics.md defines every metric, its direction and its failure rule.
"""

from __future__ import annotations

from srbf.core import lazy_attributes

# the scoring code (SymPy, mpmath) loads on first use: reading stored metrics needs only their vocabulary
_EXPORTS = {
    "AXIS_KEYS": "srbf.judge.metric_keys",
    "COMPARISON_KEYS": "srbf.judge.metric_keys",
    "FIT_KEYS": "srbf.judge.metric_keys",
    "JUDGE_VERSION": "srbf.judge.metric_keys",
    "LENGTH_KEYS": "srbf.judge.metric_keys",
    "METRIC_KEYS": "srbf.judge.metric_keys",
    "OVERLAP_KEYS": "srbf.judge.metric_keys",
    "RATE_KEYS": "srbf.judge.metric_keys",
    "SRBENCH_KEYS": "srbf.judge.metric_keys",
    "JudgeData": "srbf.judge.data",
    "JudgeInputError": "srbf.judge.data",
    "format_metrics": "srbf.judge.display",
    "jsonable": "srbf.judge.display",
    "fvu": "srbf.judge.fit",
    "judge_from_files": "srbf.judge.from_files",
    "Judge": "srbf.judge.scoring",
    "score": "srbf.judge.scoring",
    "score_many": "srbf.judge.scoring",
    "score_store": "srbf.judge.scoring_pass",
    "ScoreFailure": "srbf.judge.score_summary",
    "ScoreSummary": "srbf.judge.score_summary",
    "ScoringError": "srbf.judge.score_summary",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_attributes(__name__, _EXPORTS)
