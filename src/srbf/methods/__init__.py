"""Methods: the worker protocol and the process a method runs in, adapters, built-in references.

A method is one Python file defining ``fit(X, y, *, budget, seed, variables, options, report)``
(see docs/adapters.md). ``Worker`` runs such a file in a long-lived child process under the
method's own interpreter and turns every fit, whatever happens to it, into a ``FitResult``.
"""

from srbf.methods.worker import Worker, WorkerStartError, start_worker

__all__ = ["Worker", "WorkerStartError", "start_worker"]
