"""The Python face of srbf for notebooks: ``srbf.open`` reads a store as DataFrames, ``srbf.evaluate``
benchmarks a scikit-learn regressor. Both call the code the commands run (docs/python.md)."""

from __future__ import annotations

from srbf.core import lazy_attributes

_EXPORTS = {
    "EstimatorError": "srbf.api.estimator",
    "Results": "srbf.api.results",
    "evaluate": "srbf.api.evaluate",
    "evaluation_config": "srbf.api.evaluate",
    "open_results": "srbf.api.results",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_attributes(__name__, _EXPORTS)
