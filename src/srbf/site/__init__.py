"""The results explorer: a static site built from the same analysis as ``srbf analyze``.

- :func:`build_site` -- the long frame to a self-contained folder (docs/site.md);
- :func:`load_results` -- every scored prediction of a store, all data conditions;
- :func:`serve` -- the folder on localhost.

Imported lazily: ``srbf`` registers the site's commands without loading pandas.
"""

from __future__ import annotations

from srbf.core import lazy_attributes

_EXPORTS = {
    "Site": "srbf.site.build",
    "build_site": "srbf.site.build",
    "read_data": "srbf.site.build",
    "load_results": "srbf.site.load",
    "serve": "srbf.site.serve",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_attributes(__name__, _EXPORTS)
