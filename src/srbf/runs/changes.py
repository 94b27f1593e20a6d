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
from collections.abc import Mapping, Sequence

from srbf.store.configurations import SHORT, differences

__all__ = ["changed_lines", "pending_fits"]


def changed_lines(configurations: Sequence, variants: Sequence, pending: Mapping[str, int],
                  doing: str = "run again") -> list[str]:  # fmt: skip
    """One line per variant whose label has stored configurations but not this one as the newest:
    ``configurations`` as ``ResultsStore.configurations()`` lists them (newest first per label),
    ``pending`` the fits still to run per variant label (``pending_fits``); ``doing`` what they do
    (``srbf status`` says "to run again")."""
    newest = {}
    for c in configurations:
        newest.setdefault((c.label, c.method), c)
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
        n = pending.get(variant.label, 0)
        lines.append(f"{variant.label}: {what} since the stored runs (hash {old.config_hash[:SHORT]} -> "
                     f"{variant.config_hash[:SHORT]}); its {n} fit(s) {doing}; the old ones stay, `srbf runs` "
                     "lists them")  # fmt: skip
    return lines


def pending_fits(fits: Sequence) -> Counter:
    """The plan's fits still to run, counted per variant label."""
    return Counter(f.variant.label for f in fits)
