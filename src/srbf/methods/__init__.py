"""Methods: the worker protocol and the process a method runs in, adapters, built-in references.

A method is one Python file defining ``fit(X, y, *, budget, seed, variables, options, report)``
(see docs/adapters.md). ``Worker`` runs such a file in a long-lived child process under the
method's own interpreter and turns every fit, whatever happens to it, into a ``FitResult``.

The parent-side ``Worker`` is imported on first use: a built-in method file imports
``srbf.methods.builtin`` inside its worker process, which should not pay for the parent's
machinery at start-up.
"""

__all__ = ["Worker", "WorkerStartError", "start_worker"]


def __getattr__(name: str):
    if name in __all__:
        from srbf.methods import worker

        return getattr(worker, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
