"""What stops a run's methods before anything starts: ``srbf run``, ``srbf timing run`` and ``srbf check``
ask it before a worker starts or a store is made.

A roster method's own pre-checks come first (``methods.doctor.precheck``: its environment is
installed, the programs it needs are there, its licence was accepted); then its pass-through
parameters (``params``) against its estimator's signature, read in the method's own interpreter
(``methods.param_names``). Each problem is one line naming the method.
"""

from __future__ import annotations

from collections.abc import Sequence

from srbf.runs.sweeps import Variant

__all__ = ["method_prechecks", "variant_param_problems"]


def method_prechecks(variants: Sequence[Variant]) -> list[str]:
    """What keeps the variants' roster methods from running (``methods.doctor.precheck``), once
    each; then the pass-through parameters their estimators do not take (``variant_param_problems``)."""
    from srbf.methods.doctor import precheck_python

    problems = list(dict.fromkeys(p for v in variants for p in precheck_python(v.method.python)))
    return problems or list(dict.fromkeys(p for v in variants for p in variant_param_problems(v)))


def variant_param_problems(variant: Variant) -> list[str]:
    """The variant's ``params`` keys its method's estimator does not take, read in the method's own
    interpreter (``srbf.methods.param_names``): one line each, naming the key with a suggestion."""
    from srbf.methods.roster import param_problems

    adapter = variant.method.adapter
    if adapter.type != "file" or not adapter.path:
        return []
    return param_problems(adapter.path, dict(variant.options), variant.method.python)
