"""What a run says before it starts about a method whose configuration changed since its stored runs.

Editing a method file (one comment is enough) or an option gives the method a new configuration
hash, so none of its stored fits match the plan and every one runs again. That is right (the code
that runs is not the code that ran), but it must not be silent: ``changed_lines`` names the method,
what changed (``srbf.store.configurations.differences``), the two hashes and how many fits run
again, and says that the old fits stay in the store (``srbf runs`` lists them; the analysis reads
the newest configuration and says what it set aside).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from srbf.store.configurations import SHORT, differences

__all__ = ["changed_lines"]


def changed_lines(configurations: Sequence, variants: Sequence, fits: Sequence) -> list[str]:
    """One line per variant whose label has stored configurations but not this one as the newest:
    ``configurations`` as ``ResultsStore.configurations()`` lists them (newest first per label),
    ``fits`` the plan's fits still to run."""
    newest = {}
    for c in configurations:
        newest.setdefault((c.label, c.method), c)
    pending = Counter((f.variant.name, f.variant.config_hash) for f in fits)
    lines = []
    for variant in variants:
        old = newest.get((variant.label, variant.name))
        if old is None or old.config_hash == variant.config_hash:
            continue
        changed = differences(old.variant, variant.to_dict())
        if changed and changed[0].startswith(("the method file", "the SRBench folder")):
            what = f"{changed[0].split(' (')[0]} changed"
            rest = changed[1:]
        else:
            what, rest = "its configuration changed", changed
        if rest:
            what += f" ({'; '.join(rest)})"
        n = pending[(variant.name, variant.config_hash)]
        lines.append(f"{variant.label}: {what} since the stored runs (hash {old.config_hash[:SHORT]} -> "
                     f"{variant.config_hash[:SHORT]}); its {n} fit(s) run again; the old ones stay, `srbf runs` "
                     "lists them")  # fmt: skip
    return lines
