"""The Python face of srbf for notebooks: ``srbf.open`` reads a store as DataFrames, ``srbf.evaluate``
benchmarks a scikit-learn regressor. Both call the code the commands run (docs/python.md)."""

from srbf.api.estimator import EstimatorError
from srbf.api.evaluate import evaluate, evaluation_config
from srbf.api.results import Results, open_results

__all__ = ["EstimatorError", "Results", "evaluate", "evaluation_config", "open_results"]
