"""The fairness protocol's checks on the data: decontamination against a training source and
complexity-budget audits. Both read catalogs and formulas only, so they sit after ``catalogs``.

- ``read_training(spec)`` -> ``TrainingSource``; ``check_catalog(catalog, source)`` -> ``SetCheck``
  (docs/fairness.md);
- ``audit_catalog(catalog, rule)`` -> ``SetAudit`` under a ``SizeRule`` (``rule_for(method)``,
  ``nodes_rule(n)``).
"""

from __future__ import annotations

from srbf.core import lazy_attributes

_EXPORTS = {
    "SetCheck": "srbf.protocol.decontamination",
    "check_catalog": "srbf.protocol.decontamination",
    "TrainingSource": "srbf.protocol.training",
    "read_training": "srbf.protocol.training",
    "AuditError": "srbf.protocol.sizes",
    "SetAudit": "srbf.protocol.sizes",
    "SizeRule": "srbf.protocol.sizes",
    "audit_catalog": "srbf.protocol.sizes",
    "nodes_rule": "srbf.protocol.sizes",
    "rule_for": "srbf.protocol.sizes",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_attributes(__name__, _EXPORTS)
