"""Methods: the worker protocol and the process a method runs in, adapters, built-in references.

A method is one Python file defining ``fit(X, y, *, budget, seed, variables, options, report)``
(see docs/adapters.md). ``Worker`` runs such a file in a long-lived child process under the
method's own interpreter and turns every fit, whatever happens to it, into a ``FitResult``;
``srbench_worker`` does the same for an SRBench method folder (docs/methods.md). A ``MethodSpec``
is one method of the roster, the methods srbf knows by name (``srbf methods list``).

Every name is imported on first use: a built-in method file imports ``srbf.methods.builtin``
inside its worker process, which should not pay for the parent's machinery at start-up.
"""

from __future__ import annotations

from srbf.core import lazy_attributes

_EXPORTS = {
    "Worker": "srbf.methods.worker",
    "WorkerStartError": "srbf.methods.worker",
    "start_worker": "srbf.methods.worker",
    "SRBenchError": "srbf.methods.srbench",
    "check_method_dir": "srbf.methods.srbench",
    "srbench_worker": "srbf.methods.srbench",
    "worker_options": "srbf.methods.srbench",
    "MethodFileError": "srbf.methods.roster",
    "MethodSpec": "srbf.methods.roster",
    "UnknownMethod": "srbf.methods.roster",
    "InstallError": "srbf.methods.install",
    "EnvError": "srbf.methods.envs",
    "LockError": "srbf.methods.lockfile",
    "SandboxError": "srbf.methods.isolation",
    "PythonSpecError": "srbf.methods.interpreters",
    "ScaffoldError": "srbf.methods.scaffold",
    "TrainingError": "srbf.methods.flash_training",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_attributes(__name__, _EXPORTS)
