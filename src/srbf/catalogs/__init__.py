"""The shipped problem sets, their loader and validator, and the sampling of problems.

- ``list_catalogs()``, ``load_catalog(name_or_path)`` -> ``Catalog`` of ``CatalogEntry``; a bad
  catalog raises ``CatalogError`` naming the file, the entry and the field;
- ``validate_catalog(name_or_path)`` -- which entries can serve as benchmark problems (docs/catalogs.md);
- ``sample_problem(entry, ...)`` and ``ProblemSampler`` -- support, validation and out-of-range
  points with their targets, seeded per problem key (docs/sampling.md);
- ``import_reference_catalog(path)`` and ``write_catalog(data, path)`` -- catalogs in the reference
  format read into srbf's own.

Every name is imported on first use (NumPy and the sampler load with ``sample_problem``).
"""

from __future__ import annotations

from srbf.core import lazy_attributes

_EXPORTS = {
    "CatalogError": "srbf.catalogs.loader",
    "catalog_info": "srbf.catalogs.loader",
    "catalog_path": "srbf.catalogs.loader",
    "list_catalogs": "srbf.catalogs.loader",
    "load_catalog": "srbf.catalogs.loader",
    "Catalog": "srbf.catalogs.model",
    "CatalogEntry": "srbf.catalogs.model",
    "VariableSpec": "srbf.catalogs.model",
    "UnknownProblem": "srbf.catalogs.model",
    "AdmissionReport": "srbf.catalogs.admission",
    "validate_catalog": "srbf.catalogs.admission",
    "Problem": "srbf.catalogs.sampling",
    "ProblemSampler": "srbf.catalogs.sampling",
    "load_problem_npz": "srbf.catalogs.sampling",
    "sample_problem": "srbf.catalogs.sampling",
    "save_problem_npz": "srbf.catalogs.sampling",
    "import_reference_catalog": "srbf.catalogs.importer",
    "write_catalog": "srbf.catalogs.files",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_attributes(__name__, _EXPORTS)
