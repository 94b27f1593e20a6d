"""The fairness protocol's checks on the data: decontamination against a training source and
complexity-budget audits. Both read catalogs and formulas only, so they sit after ``catalogs``."""
